//! The response table: every response the server can send, as one set of
//! types from the build to the request.
//!
//! - The pipeline fills them (`src/pipeline/stored.rs`): every body
//!   in every coding, with the complete header maps of its 200 and its 304.
//! - build.rs writes the table into `OUT_DIR` with [`Table::to_bytes`] and
//!   the binary reads it back with [`Table::from_static`]. serde derives
//!   both directions (`table/wire.rs`), so the file cannot drift from the
//!   types, and every body is borrowed from the binary, never copied.
//! - `refserve dev` serves the table the pipeline returns, as it is.
//! - The server answers from it: a request costs one lookup
//!   ([`Table::resource`], a `phf` perfect hash in production) and clones
//!   of what is here: a body is `Bytes` over the stored bytes, and every
//!   header map is complete.
//!
//! A resource has one or more representations (one per media type, in the
//! server's order of preference), and each representation one or more
//! variants (one per content coding, smallest body first; identity is
//! always there). Error bodies are found by an [`ErrorKey`].
//!
//! What a change touches:
//! - a new header on some or all responses: the lines of
//!   `src/pipeline/stored.rs` that write a variant's header maps;
//!   nothing here, nothing in the server;
//! - a new field of a resource, a representation or a variant: the field
//!   here and the stage line that fills it; the stored form follows from
//!   the derive.

mod wire;

use crate::address::Localized;
use crate::errors::ErrorKind;
use crate::mcp::Mcp;
use crate::negotiate::{Coding, Language, MediaType};
use crate::search_page::SearchPage;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub(crate) use wire::{body, map, value};

/// Every response the server can send.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Table {
    /// The documents, in catalog order.
    pub resources: Vec<Resource>,
    /// From a path to its resource.
    #[serde(skip)]
    pub paths: Index,
    /// The error bodies of each kind, in [`ErrorKind::ALL`] order.
    pub errors: Vec<ErrorBodies>,
    /// The compression dictionaries the HTML pages are compressed against
    /// (none or one; `dcb` and `dcz` bodies need the first).
    pub dictionaries: Vec<Dictionary>,
    /// `Last-Modified` of every resource, in seconds since the Unix epoch.
    pub last_modified_unix: u64,
    /// The catalog keys, in catalog order.
    pub keys: Vec<String>,
    /// The languages of the pages, the source's first: what a resource
    /// that negotiates its language offers, in this order.
    pub languages: Vec<Language>,
    /// The public address the bodies link to.
    pub base_url: String,
    /// The start of a SHA-256 over every path and identity body: a name for
    /// this content (`refserve_build_info`).
    pub content_hash: String,
    /// What `/mcp` answers from.
    pub mcp: Mcp,
    /// What `/search` answers from, in each of [`Table::languages`].
    pub search: Vec<SearchPage>,
}

/// One URL's worth of responses (or one error's).
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Resource {
    /// Its path; for an error body, a name that says which it is
    /// (`page/not_found/select`).
    pub id: String,
    /// [`Resource::id`] as a `Location` header, made at build time: where
    /// a misspelt page redirects.
    #[serde(with = "wire::value")]
    pub location: HeaderValue,
    /// The media types of [`Resource::representations`], in the same order
    /// (kept apart so negotiation can borrow them as a slice).
    pub media_types: Vec<MediaType>,
    /// The representations, in the server's order of preference; at an
    /// address that negotiates its language, those of each of the table's
    /// [`Table::languages`] in turn, each language's
    /// [`Resource::media_types`] in the same order.
    pub representations: Vec<Representation>,
    /// Whether it negotiates its language (`Accept-Language`) among the
    /// table's languages.
    pub negotiates_language: bool,
    /// The error its bodies explain, `None` for a document (200). At a
    /// path, `Some` is what is left at a removed method's addresses: they
    /// answer with this error, one lookup as for any path.
    pub error: Option<ErrorKind>,
}

/// One media type of a resource, in every coding it is stored in.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Representation {
    /// The variants, smallest body first; one of them is identity.
    pub variants: Vec<Variant>,
}

/// One body, exactly as it goes on the wire, with its headers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Variant {
    /// The content coding of [`Variant::body`]; a `dcb` or `dcz` body is
    /// compressed against the table's dictionary, which a client must hold
    /// to be sent it.
    pub coding: Coding,
    /// The bytes sent.
    #[serde(with = "wire::body")]
    pub body: Bytes,
    /// A strong `ETag`, quotes included, different for every variant of
    /// every representation.
    #[serde(with = "wire::value")]
    pub etag: HeaderValue,
    /// Every header of a response carrying this body, in the order sent:
    /// its representation's metadata, then the validators of a document or
    /// the `Allow` of a 405. Responses clone it.
    #[serde(with = "wire::map")]
    pub headers: HeaderMap,
    /// The headers of a 304 about this body (RFC 9110 §15.4.5).
    #[serde(with = "wire::map")]
    pub not_modified: HeaderMap,
}

/// A compression dictionary (RFC 9842) the server serves and compresses
/// the HTML pages against.
#[derive(Debug, Serialize, Deserialize)]
pub struct Dictionary {
    /// The SHA-256 of its bytes, by which `Available-Dictionary` names it.
    pub hash: [u8; 32],
    /// Where it is served: `/dictionaries/` and the first 8 bytes of the
    /// hash in hex.
    pub path: String,
}

/// The error bodies of one [`ErrorKind`]: stored [`Resource`]s in the
/// table, the pipeline's rendered ones before.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "'de: 'static, R: Deserialize<'de>"
))]
pub struct ErrorBodies<R = Resource> {
    /// The ErrorResponse, for API paths: in the source's language whatever
    /// the path, as the JSON Reference is; those that suggest a catalog
    /// key say so in their hint.
    pub program: ErrorSet<R>,
    /// The error as page URLs answer it, in each of the table's
    /// [`Table::languages`], in that order: by negotiation the
    /// ErrorResponse (the source's, as for programs), an HTML page or a
    /// Markdown page in the language; those that suggest a catalog key
    /// link its method.
    pub pages: Vec<ErrorSet<R>>,
}

/// One error's body for one audience (and language), plain and suggesting
/// each catalog key.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "'de: 'static, R: Deserialize<'de>"
))]
pub struct ErrorSet<R = Resource> {
    /// The body that suggests no key.
    pub plain: R,
    /// The body that suggests each catalog key, in catalog order; empty
    /// when the kind suggests none.
    pub suggesting: Vec<R>,
}

impl<R> ErrorBodies<R> {
    /// Every set: the program's, then each language's pages.
    fn sets(&self) -> impl Iterator<Item = &ErrorSet<R>> {
        std::iter::once(&self.program).chain(&self.pages)
    }

    /// Every body: the ErrorResponse, the ones that suggest, then each
    /// language's page and its pages that suggest.
    pub fn iter(&self) -> impl Iterator<Item = &R> {
        self.sets()
            .flat_map(|set| std::iter::once(&set.plain).chain(&set.suggesting))
    }

    /// Every body, to change, in the order of [`ErrorBodies::iter`].
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut R> {
        std::iter::once(&mut self.program)
            .chain(&mut self.pages)
            .flat_map(|set| std::iter::once(&mut set.plain).chain(&mut set.suggesting))
    }

    /// The same bodies, each made into another by `f`.
    pub fn map<S>(&self, mut f: impl FnMut(&R) -> S) -> ErrorBodies<S> {
        let mut map = |set: &ErrorSet<R>| ErrorSet {
            plain: f(&set.plain),
            suggesting: set.suggesting.iter().map(&mut f).collect(),
        };
        ErrorBodies {
            program: map(&self.program),
            pages: self.pages.iter().map(&mut map).collect(),
        }
    }
}

/// Which error body a request gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorKey {
    /// Why the request failed.
    pub kind: ErrorKind,
    /// Whom the body is for.
    pub audience: Audience,
    /// The catalog key (its index) the body suggests, if any: the plain
    /// body when the kind suggests none.
    pub suggestion: Option<usize>,
    /// The language of a page's body (its index in
    /// [`Table::languages`]); a program's is always the source's.
    pub language: usize,
}

/// Whom an error body is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// A program on an API path: always the ErrorResponse.
    Program,
    /// Whoever reads a page URL: JSON, HTML or Markdown by negotiation.
    Page,
}

impl ErrorKey {
    /// The ErrorResponse for `kind`.
    pub const fn program(kind: ErrorKind) -> ErrorKey {
        ErrorKey {
            kind,
            audience: Audience::Program,
            suggestion: None,
            language: 0,
        }
    }

    /// The negotiated error page for `kind`.
    pub const fn page(kind: ErrorKind) -> ErrorKey {
        ErrorKey {
            audience: Audience::Page,
            ..ErrorKey::program(kind)
        }
    }

    /// This body, suggesting the catalog key at `key` (its index).
    pub const fn suggesting(self, key: usize) -> ErrorKey {
        ErrorKey {
            suggestion: Some(key),
            ..self
        }
    }

    /// This body in the language at `language` (its index in
    /// [`Table::languages`]): a page's words; a program's stays the
    /// source's.
    pub const fn in_language(self, language: usize) -> ErrorKey {
        ErrorKey { language, ..self }
    }
}

/// From a path to its resource's index.
#[derive(Debug)]
pub enum Index {
    /// A perfect hash, written by build.rs.
    Perfect(&'static phf::Map<&'static str, u16>),
    /// A hash map, made with the table.
    Hashed(HashMap<String, u16>),
}

impl Default for Index {
    fn default() -> Self {
        Index::Hashed(HashMap::new())
    }
}

impl Index {
    /// A hash map of `resources` by path.
    pub fn of(resources: &[Resource]) -> Index {
        Index::Hashed(
            resources
                .iter()
                .zip(0..)
                .map(|(resource, i)| (resource.id.clone(), i))
                .collect(),
        )
    }

    fn get(&self, path: &str) -> Option<usize> {
        match self {
            Index::Perfect(map) => map.get(path).map(|&i| usize::from(i)),
            Index::Hashed(map) => map.get(path).map(|&i| usize::from(i)),
        }
    }
}

impl Table {
    /// The resource served at `path` (already percent-decoded), if any.
    pub fn resource(&self, path: &str) -> Option<&Resource> {
        self.paths.get(path).map(|i| &self.resources[i])
    }

    /// The error body `key` names (the source language's page when the
    /// table has no language at its index).
    pub fn error(&self, key: ErrorKey) -> &Resource {
        let bodies = &self.errors[key.kind.index()];
        let set = match key.audience {
            Audience::Program => &bodies.program,
            Audience::Page => (bodies.pages.get(key.language)).unwrap_or_else(|| &bodies.pages[0]),
        };
        key.suggestion
            .and_then(|i| set.suggesting.get(i))
            .unwrap_or(&set.plain)
    }

    /// The index in [`Table::languages`] of the language whose pages
    /// `path` is among (`/zh-hans/…`, the segment in any case); the
    /// source's, 0, for any other path.
    pub fn language_of(&self, path: &str) -> usize {
        Localized::language_of(path)
            .and_then(|segment| self.language(segment))
            .unwrap_or(0)
    }

    /// The index in [`Table::languages`] of the language whose tag is
    /// `segment`, in any case (`zh-hans`).
    pub fn language(&self, segment: &str) -> Option<usize> {
        self.languages
            .iter()
            .position(|language| language.tag.eq_ignore_ascii_case(segment))
    }

    /// Every error body: of each kind, the ErrorResponse, the page, and
    /// the ones that suggest a key.
    pub fn errors(&self) -> impl Iterator<Item = &Resource> {
        self.errors.iter().flat_map(ErrorBodies::iter)
    }

    /// Every resource the table stores, once each, in its order ([`every`]).
    pub fn stored(&self) -> impl Iterator<Item = &Resource> {
        every(
            &self.resources,
            &self.errors,
            self.search.iter().map(|page| &page.exported),
        )
    }
}

/// Every resource of a table, in its order: the documents (`resources`),
/// every error body, then the page a static host serves at `/search`
/// (`exported`: kept in [`SearchPage`], as routing never answers it).
/// Generic, so that the pipeline compresses its rendered resources as the
/// table will store them.
pub fn every<'r, R>(
    resources: &'r [R],
    errors: &'r [ErrorBodies<R>],
    exported: impl Iterator<Item = &'r R>,
) -> impl Iterator<Item = &'r R> {
    resources
        .iter()
        .chain(errors.iter().flat_map(ErrorBodies::iter))
        .chain(exported)
}

impl Resource {
    /// Whether this is a page for people or agents (it has an HTML or a
    /// Markdown representation), as opposed to a document for programs:
    /// a method's page, and what stands at a removed method's page address
    /// (the error page that says it is gone). Page URLs are redirected to
    /// their canonical spelling.
    pub fn is_page(&self) -> bool {
        self.media_types
            .iter()
            .any(|m| m.kind == "text" && matches!(m.subtype, "html" | "markdown"))
    }
}

impl Representation {
    /// The identity variant.
    pub fn identity(&self) -> &Variant {
        self.variants
            .iter()
            .find(|v| v.coding == Coding::Identity)
            .expect("the pipeline always stores the identity body")
    }
}
