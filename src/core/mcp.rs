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
//! `result` member: the server splices the request's id around them.

use crate::search::Posting;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

/// The stateless revision of the protocol.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The handshake revisions served, newest first: `initialize` offering
/// any other gets the first.
pub const HANDSHAKE_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// The tools, in the order `tools/list` gives them.
pub const TOOLS: [&str; 3] = ["list_methods", "get_method", "search"];

/// Results a search gives when the request names no `limit`.
pub const DEFAULT_LIMIT: usize = 5;

/// `ttlMs` of modern lists and reads: the pages' `max-age`.
pub const TTL_MS: u64 = 3_600_000;

/// The key of a fixed answer: `method` (and its argument: the version of
/// an `initialize`, the tool of a `tools/call` and its method name, the
/// URI of a `resources/read`).
pub fn answer_key(method: &str, argument: &str) -> String {
    if argument.is_empty() {
        method.to_string()
    } else {
        format!("{method} {argument}")
    }
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
    /// Every search term, sorted, with the methods it finds.
    pub terms: Vec<Term>,
    /// Each method as a search result, in catalog order.
    pub hits: Vec<Hit>,
    /// What a modern result has that a legacy one has not (`resultType`
    /// and `_meta`), as members to insert before its closing brace: for
    /// the results the server completes itself (searches, tool errors).
    pub modern_members: String,
    /// The text of a search that finds nothing, escaped for a JSON string.
    pub no_match_text: String,
    /// Every method's name, as a JSON array.
    pub methods_json: String,
}

/// A search term (a stem) and the methods it finds.
#[derive(Debug, Serialize, Deserialize)]
pub struct Term {
    /// The stem.
    pub stem: String,
    /// The methods it finds, with their weights.
    pub postings: Vec<Posting>,
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

/// One method as a search result, in pieces the server completes with the
/// line that says why it matched.
#[derive(Debug, Serialize, Deserialize)]
pub struct Hit {
    /// Its structured result without the closing brace: `{"name": …,
    /// "description": …, "signatures": […], "url": …`.
    pub json: String,
    /// Its Markdown lines, the first starting after the rank (name and
    /// description, then signatures and address), escaped for a JSON
    /// string: the server copies them into the text it answers with.
    pub text: String,
}

impl Mcp {
    /// The fixed answer stored as `key` ([`answer_key`]).
    pub fn answer(&self, key: &str) -> Option<&Answer> {
        self.answers
            .binary_search_by(|answer| answer.key.as_str().cmp(key))
            .ok()
            .map(|i| &self.answers[i])
    }

    /// The methods `stem` finds, with their weights.
    pub fn postings(&self, stem: &str) -> &[Posting] {
        self.terms
            .binary_search_by(|term| term.stem.as_str().cmp(stem))
            .map_or(&[], |i| &self.terms[i].postings)
    }
}

impl Answer {
    /// The result for `era`, if the era has this request.
    pub fn result(&self, era: Era) -> Option<&[u8]> {
        let bytes: &[u8] = match era {
            Era::Legacy => &self.legacy,
            Era::Modern => &self.modern,
        };
        (!bytes.is_empty()).then_some(bytes)
    }
}
