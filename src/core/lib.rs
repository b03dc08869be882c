//! refserve's vocabulary: what the pipeline (`src/pipeline/`, which fills the
//! response table at build time) and the server (`src/server/`, which
//! answers from it) both speak. Pure functions and plain types; nothing
//! here does I/O or knows the content.
//!
//! - [`address`]: every address the site serves, written and parsed.
//! - [`media`]: the media types served, defined once.
//! - [`errors`]: the error kinds, their statuses and codes.
//! - [`headers`]: header values every response of a kind carries.
//! - [`negotiate`]: `Accept`, `Accept-Language`, `Accept-Encoding` and
//!   `Available-Dictionary` (RFC 9110 §12, RFC 9842).
//! - [`table`]: the response table, filled by the pipeline, stored by
//!   build.rs and answered from by the server.
//! - [`mcp`]: what `/mcp` answers from: the stored answers and hits, the
//!   protocol versions and tools.
//! - [`search`]: search terms (the same words at build time and for a
//!   query) and the index: postings, and the typo neighbourhood of its
//!   words.
//! - [`search_page`]: what `GET /search` answers from: the pieces of its
//!   answers, and its limits.
//! - [`escape`]: text made safe for HTML and Markdown, at build time and
//!   for a query.
//!
//! The arrows run one way: the pipeline and the server depend on this
//! crate, and it depends on nothing of theirs.

pub mod address;
pub mod errors;
pub mod escape;
mod fnv;
pub mod headers;
pub mod mcp;
pub mod media;
pub mod negotiate;
pub mod search;
pub mod search_page;
pub mod table;
