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
use std::borrow::Cow;

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
#[derive(Debug, Clone)]
pub struct StoredMcp<'a> {
    /// Every fixed result, sorted by key.
    pub answers: Cow<'a, [StoredAnswer<'a>]>,
    /// Every search term, sorted, with the methods it finds.
    pub terms: Cow<'a, [Term<'a>]>,
    /// Each method as a search result, in catalog order.
    pub hits: Cow<'a, [StoredHit<'a>]>,
    /// What a modern result has that a legacy one has not (`resultType`
    /// and `_meta`), as members to insert before its closing brace: for
    /// the results the server completes itself (searches, tool errors).
    pub modern_members: Cow<'a, str>,
    /// The text of a search that finds nothing, escaped for a JSON string.
    pub no_match_text: Cow<'a, str>,
    /// Every method's name, as a JSON array.
    pub methods_json: Cow<'a, str>,
}

/// A search term (a stem) and the methods it finds.
pub type Term<'a> = (Cow<'a, str>, Cow<'a, [Posting]>);

/// One fixed result, in both eras' forms (empty where an era has no such
/// request: `initialize` is legacy, `server/discover` modern).
#[derive(Debug, Clone)]
pub struct StoredAnswer<'a> {
    /// See [`answer_key`].
    pub key: Cow<'a, str>,
    /// The `result` of a legacy request.
    pub legacy: Cow<'a, [u8]>,
    /// The `result` of a modern request.
    pub modern: Cow<'a, [u8]>,
}

impl StoredAnswer<'_> {
    /// The result for `era`, if the era has this request.
    pub fn result(&self, era: Era) -> Option<&[u8]> {
        let bytes: &[u8] = match era {
            Era::Legacy => &self.legacy,
            Era::Modern => &self.modern,
        };
        (!bytes.is_empty()).then_some(bytes)
    }
}

/// One method as a search result, in pieces the server completes with the
/// line that says why it matched.
#[derive(Debug, Clone)]
pub struct StoredHit<'a> {
    /// Its structured result without the closing brace: `{"name": …,
    /// "description": …, "signatures": […], "url": …`.
    pub json: Cow<'a, str>,
    /// Its Markdown lines, the first starting after the rank (name and
    /// description, then signatures and address), escaped for a JSON
    /// string: the server copies them into the text it answers with.
    pub text: Cow<'a, str>,
}
