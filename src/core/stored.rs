//! The table as the server stores it — every resource with every body in
//! every coding, and the complete header lists of its 200 and its 304 — as
//! plain data: filled by the pipeline's stage 4 (`src/pipeline/stored/`),
//! read by the server.
//!
//! The types borrow or own their data (`Cow`): `emit.rs` writes a
//! `Table<'static>` as Rust statics that borrow everything (the bodies
//! included from `OUT_DIR`), and `refserve dev` holds the owned one this
//! stage returns. The server turns either into the table it answers from,
//! the same way. Resources stay in the order they were rendered in, so the
//! output is deterministic.

use crate::mcp::StoredMcp;
use crate::negotiate::{Coding, MediaType, COMMON_ACCEPTS};
use std::borrow::Cow;

/// A header as stored: its lowercase name and its value.
pub type Header<'a> = (&'static str, Cow<'a, str>);

/// Everything the server serves.
#[derive(Debug, Clone)]
pub struct Table<'a> {
    /// The documents, keyed by path, in catalog order.
    pub resources: Cow<'a, [StoredResource<'a>]>,
    /// The error bodies, keyed by error id.
    pub errors: Cow<'a, [StoredResource<'a>]>,
    /// The compression dictionaries the HTML pages are compressed against
    /// (none or one; `dcb` and `dcz` bodies need the first).
    pub dictionaries: Cow<'a, [StoredDictionary<'a>]>,
    /// `Last-Modified` of every resource, as an HTTP date.
    pub last_modified: Cow<'a, str>,
    /// [`Table::last_modified`] in seconds since the Unix epoch.
    pub last_modified_unix: u64,
    /// The catalog keys, in catalog order.
    pub keys: Cow<'a, [Cow<'a, str>]>,
    /// The public address the bodies link to.
    pub base_url: Cow<'a, str>,
    /// The start of a SHA-256 over every path and identity body: a name for
    /// this content (`refserve_build_info`).
    pub content_hash: Cow<'a, str>,
    /// What `/mcp` answers from.
    pub mcp: StoredMcp<'a>,
}

/// One URL's worth of responses (or one error's).
#[derive(Debug, Clone)]
pub struct StoredResource<'a> {
    /// The table key: a path, or an error id.
    pub id: Cow<'a, str>,
    /// The representations, in the server's order of preference.
    pub representations: Cow<'a, [StoredRepresentation<'a>]>,
    /// Which representation each of [`COMMON_ACCEPTS`] chooses (`None`: a 406).
    pub common_choices: [Option<usize>; COMMON_ACCEPTS.len()],
}

/// One media type of a resource, in every coding it is stored in.
#[derive(Debug, Clone)]
pub struct StoredRepresentation<'a> {
    /// Its media type, as negotiated.
    pub media_type: MediaType,
    /// `Content-Type`.
    pub content_type: Cow<'a, str>,
    /// The variants, smallest body first; one of them is identity.
    pub variants: Cow<'a, [StoredVariant<'a>]>,
}

/// One body, exactly as it goes on the wire, with its headers.
#[derive(Debug, Clone)]
pub struct StoredVariant<'a> {
    /// Its content coding; `dcb` and `dcz` bodies are compressed against
    /// the table's first dictionary.
    pub coding: Coding,
    /// The bytes sent.
    pub bytes: Cow<'a, [u8]>,
    /// Its strong `ETag`, quotes included.
    pub etag: Cow<'a, str>,
    /// Every header of a response carrying it, in the order sent.
    pub headers: Cow<'a, [Header<'a>]>,
    /// The headers of a 304 about it (RFC 9110 §15.4.5).
    pub not_modified: Cow<'a, [Header<'a>]>,
}

/// A compression dictionary (RFC 9842) as the server names it.
#[derive(Debug, Clone)]
pub struct StoredDictionary<'a> {
    /// The SHA-256 of its bytes.
    pub hash: [u8; 32],
    /// That hash in base64 without padding, as `Available-Dictionary`
    /// names it (between colons).
    pub encoded_hash: Cow<'a, str>,
    /// Where it is served.
    pub path: Cow<'a, str>,
}
