//! The Model Context Protocol as refserve speaks it, and its answers as
//! the table stores them: the vocabulary the pipeline (`render_mcp.rs`)
//! and the server's `/mcp` endpoint share.
//!
//! Two eras of the protocol are served on one endpoint:
//!
//! - **modern** ([`MODERN_VERSION`]): stateless; every request names its
//!   version in `params._meta` and in headers; `server/discover`; every
//!   result carries `resultType`, lists and reads `ttlMs` and `cacheScope`;
//! - **legacy** ([`HANDSHAKE_VERSIONS`]): the `initialize` handshake, then
//!   requests that may name their version in `MCP-Protocol-Version`.
//!
//! Every fixed result is stored in both forms, as the bytes of the JSON-RPC
//! `result` member: the server splices the request's id around them. The
//! pieces of the results the server writes itself (searches, tool errors)
//! are JSON the server writes again unchanged: stored as text, read once
//! with the table into [`Members`] and `RawValue`s (`json_text`).

use crate::search::Index;
use bytes::Bytes;
use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// The stateless revision of the protocol.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The handshake revisions served, newest first: `initialize` offering
/// any other gets the first.
pub const HANDSHAKE_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// Every version served, newest first.
pub const VERSIONS: [&str; 3] = [MODERN_VERSION, HANDSHAKE_VERSIONS[0], HANDSHAKE_VERSIONS[1]];

/// The tools, in the order `tools/list` gives them.
pub const TOOLS: [&str; 3] = ["list_methods", "get_method", "search"];

/// Results a search gives when the request names no `limit`.
pub const DEFAULT_LIMIT: usize = 5;

/// `ttlMs` of modern lists and reads: the pages' `max-age`.
pub const TTL_MS: u64 = 3_600_000;

/// The key of a fixed answer to `method` with an argument (the version of
/// an `initialize`, the tool of a `tools/call` and its method name, the URI
/// of a `resources/read`); an answer to a method without one is keyed by
/// the method alone.
pub fn answer_key(method: &str, argument: &str) -> String {
    format!("{method} {argument}")
}

/// The era of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// A handshake revision.
    Legacy,
    /// [`MODERN_VERSION`].
    Modern,
}

/// Everything `/mcp` answers from.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Mcp {
    /// Every fixed result, sorted by key.
    pub answers: Vec<Answer>,
    /// The search index, for `search` here and `/search`.
    pub index: Index,
    /// What `search` answers with in each of the table's languages
    /// (`Table::languages`), the source's first.
    pub editions: Vec<Edition>,
    /// What a modern result has that a legacy one has not (`resultType`
    /// and `_meta`): the members that end every modern result the server
    /// writes itself (searches, tool errors).
    #[serde(with = "json_text")]
    pub modern_members: Members,
    /// Every method's name, as a JSON array.
    #[serde(with = "json_text")]
    pub methods_json: Box<RawValue>,
}

/// One fixed result, in both eras' forms (empty where an era has no such
/// request: `initialize` is legacy, `server/discover` modern).
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Answer {
    /// See [`answer_key`].
    pub key: String,
    /// The `result` of a legacy request.
    #[serde(with = "crate::table::body")]
    pub legacy: Bytes,
    /// The `result` of a modern request.
    #[serde(with = "crate::table::body")]
    pub modern: Bytes,
}

/// What `search` answers with in one language: each method as a result,
/// and the texts around them.
#[derive(Debug, Serialize, Deserialize)]
pub struct Edition {
    /// Each method as a search result, in catalog order.
    pub hits: Vec<Hit>,
    /// The text before the methods found, up to the first.
    pub found_text: String,
    /// The text of a search that finds nothing.
    pub no_match_text: String,
}

/// How a method's text stands in the language a tool answered in; `_meta`
/// names it as serde writes it: `current`, `outdated`, `untranslated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Standing {
    /// In the language, as the source is now (or the source itself).
    Current,
    /// In the language, translated from an older source.
    Outdated,
    /// Not translated: in the source's language.
    Untranslated,
}

/// What `_meta` says of a tool's answer asked for in a `locale`: the
/// locale served (a language's tag, `zh-Hans`; the source's when none
/// matched), and the methods in the answer shown in the source's language
/// (`untranslated`) or whose translation is `outdated`, each in the
/// answer's order.
#[derive(Debug, Serialize)]
pub struct Served<'a> {
    /// The tag of the language served.
    pub locale: &'a str,
    /// The keys of the methods shown in the source's language.
    pub untranslated: Vec<&'a str>,
    /// The keys of the methods whose translation is outdated.
    pub outdated: Vec<&'a str>,
}

impl<'a> Served<'a> {
    /// What `_meta` says of an answer in `locale` showing `hits`.
    pub fn of(locale: &'a str, hits: impl IntoIterator<Item = &'a Hit>) -> Served<'a> {
        let hits: Vec<&Hit> = hits.into_iter().collect();
        let standing = |standing| {
            let keys = hits.iter().filter(|hit| hit.standing == standing);
            keys.map(|hit| hit.key.as_str()).collect()
        };
        Served {
            locale,
            untranslated: standing(Standing::Untranslated),
            outdated: standing(Standing::Outdated),
        }
    }
}

/// One method as a search result, in pieces the server completes with the
/// line that says why it matched.
#[derive(Debug, Serialize, Deserialize)]
pub struct Hit {
    /// The method's key.
    pub key: String,
    /// How its text stands in the result's language.
    pub standing: Standing,
    /// Its structured result's members (`name`, `description`,
    /// `signatures`, `url`); the server adds `why` and `score` after them.
    #[serde(with = "json_text")]
    pub members: Members,
    /// Its Markdown lines, the first starting after the rank (name and
    /// description, then signatures and address): the server copies them
    /// into the text it answers with.
    pub text: String,
}

/// A JSON object's members in their order, each value as it was written:
/// read from an object's text, written again (inside another object, with
/// `#[serde(flatten)]`) byte for byte.
pub type Members = IndexMap<String, Box<RawValue>>;

/// A piece of JSON in the table: stored as its text, read back (with the
/// table, once) by serde_json, so that a table whose JSON is not JSON is
/// refused when it is read, not when a search is answered.
pub(crate) mod json_text {
    use super::*;
    use serde::de::Error as _;
    use serde::ser::Error as _;

    /// Store `value`'s JSON text.
    pub(crate) fn serialize<T: Serialize, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let text = serde_json::to_string(value).map_err(S::Error::custom)?;
        serializer.serialize_str(&text)
    }

    /// Read the text back (borrowed from the stored table, then parsed).
    pub(crate) fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        let text = <&str>::deserialize(deserializer)?;
        serde_json::from_str(text).map_err(|e| D::Error::custom(format!("stored JSON: {e}")))
    }
}

impl Mcp {
    /// The fixed result stored as `key` ([`answer_key`]) in `era`'s form,
    /// if there is one and the era has this request.
    pub fn result(&self, key: &str, era: Era) -> Option<&[u8]> {
        let i = (self.answers)
            .binary_search_by(|answer| answer.key.as_str().cmp(key))
            .ok()?;
        let bytes: &[u8] = match era {
            Era::Legacy => &self.answers[i].legacy,
            Era::Modern => &self.answers[i].modern,
        };
        (!bytes.is_empty()).then_some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::Members;

    #[test]
    fn members_are_written_again_as_stored() {
        let stored = r#"{"name":"select","signatures":["a( $x )","b"],"n":1.50,"e":"\u2028\n"}"#;
        let members: Members = serde_json::from_str(stored).expect("an object");
        let written = serde_json::to_string(&members).expect("serialises");
        assert_eq!(written, stored);
    }

    #[test]
    fn stored_json_travels_as_text_and_is_read_back_whole() {
        let stored: Members = serde_json::from_str(r#"{"a":[1, 2],"b":{}}"#).expect("an object");
        let bytes = postcard::to_allocvec(&Stored(stored)).expect("stores");
        let read: Stored = postcard::from_bytes(&bytes).expect("reads back");
        assert_eq!(
            serde_json::to_string(&read.0).expect("serialises"),
            r#"{"a":[1, 2],"b":{}}"#
        );
        let not_json = postcard::to_allocvec(&"{\"a\":").expect("stores");
        assert!(postcard::from_bytes::<Stored>(&not_json).is_err());
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Stored(#[serde(with = "super::json_text")] Members);
}
