//! The response table: every body the server can send, rendered and
//! compressed by the pipeline, behind a small lookup API.
//!
//! A [`Table`] is made once from a stored table (`refserve_core::stored`)
//! and never changes. In production that is the one build.rs wrote (the
//! site crate's `table::production`): statics that borrow every body from
//! the binary, and `phf` maps from path and error id to a resource.
//! `refserve dev` makes a new table from each render and swaps it in whole
//! ([`Tables`]). Either way a request costs one lookup
//! and clones of what is here: the body is `Bytes` over the stored bytes,
//! and every header a response carries is prebuilt.
//!
//! A resource has one or more representations (one per media type, in the
//! server's order of preference), and each representation has one or more
//! variants (one per content coding, smallest body first; identity is always
//! present).

use crate::errors::ErrorKind;
use crate::mcp::Answers;
use crate::negotiate::{
    AcceptEncoding, Coding, MediaType, COMMON_ACCEPTS, COMMON_ACCEPT_ENCODINGS,
};
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue};
use refserve_core::stored::{self, Header};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// Every response the server can send.
#[derive(Debug)]
pub struct Table {
    resources: Vec<Resource>,
    paths: Index,
    errors: Vec<Resource>,
    error_ids: Index,
    keys: Vec<Cow<'static, str>>,
    base_url: Cow<'static, str>,
    dictionaries: Vec<Dictionary>,
    last_modified_unix: u64,
    content_hash: Cow<'static, str>,
    common_accept_encoding_weights: [[u16; Coding::ALL.len()]; COMMON_ACCEPT_ENCODINGS.len()],
    mcp: Answers,
}

/// From a resource's id to its index.
#[derive(Debug)]
enum Index {
    /// A perfect hash, written by build.rs.
    Perfect(&'static phf::Map<&'static str, u16>),
    /// A hash map, made with the table.
    Hashed(HashMap<Cow<'static, str>, u16>),
}

/// One URL's worth of responses.
#[derive(Debug)]
pub struct Resource {
    /// The table key: a path for documents, an id for errors.
    pub id: Cow<'static, str>,
    /// [`Resource::id`] as a `Location`: where a misspelt page redirects.
    pub location: HeaderValue,
    /// The media types of [`Resource::representations`], in the same order
    /// (kept apart so negotiation can borrow them as a slice).
    pub media_types: Vec<MediaType>,
    /// The representations, in the server's order of preference.
    pub representations: Vec<Representation>,
    /// Which representation each of [`COMMON_ACCEPTS`] chooses (`None`: a
    /// 406), negotiated by the pipeline.
    pub common_choices: [Option<usize>; COMMON_ACCEPTS.len()],
}

/// One media type of a resource, in every coding it is stored in.
#[derive(Debug)]
pub struct Representation {
    /// `Content-Type`.
    pub content_type: HeaderValue,
    /// The variants, smallest body first; one of them is identity.
    pub variants: Vec<Variant>,
}

/// A compression dictionary (RFC 9842) the server serves and compresses
/// the HTML pages against.
#[derive(Debug)]
pub struct Dictionary {
    /// The SHA-256 of its bytes.
    pub hash: [u8; 32],
    /// That hash in base64 without padding, as `Available-Dictionary` names
    /// it (between colons).
    pub encoded_hash: Cow<'static, str>,
    /// Where it is served: `/dictionaries/` and the first 8 bytes of the
    /// hash in hex.
    pub path: Cow<'static, str>,
}

/// One body, exactly as it goes on the wire.
#[derive(Debug)]
pub struct Variant {
    /// The content coding of [`Variant::body`]; a `dcb` or `dcz` body is
    /// compressed against the table's dictionary, which a client must hold
    /// to be sent it.
    pub coding: Coding,
    /// The bytes sent.
    pub body: Bytes,
    /// A strong `ETag`, different for every variant of every representation.
    pub etag: HeaderValue,
    /// Every header of a response carrying this body, as the pipeline wrote
    /// them: its representation's metadata, then the validators of a
    /// document or the `Allow` of a 405. Responses clone it.
    pub headers: HeaderMap,
    /// The headers of a 304 about this body.
    pub not_modified: HeaderMap,
}

/// Why a stored table cannot be served.
#[derive(Debug)]
pub struct Invalid(String);

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Table {
    /// The table that serves `stored`.
    pub fn new(stored: &stored::Table<'static>) -> Result<Table, Invalid> {
        let hashed = |resources: &[stored::StoredResource<'static>]| {
            Index::Hashed(
                resources
                    .iter()
                    .zip(0..)
                    .map(|(resource, i)| (resource.id.clone(), i))
                    .collect(),
            )
        };
        Table::with_index(stored, hashed(&stored.resources), hashed(&stored.errors))
    }

    /// The table that serves `stored`, whose resources build.rs indexed in
    /// `paths` (by path) and `error_ids` (by error id).
    pub fn with_perfect_index(
        stored: &stored::Table<'static>,
        paths: &'static phf::Map<&'static str, u16>,
        error_ids: &'static phf::Map<&'static str, u16>,
    ) -> Result<Table, Invalid> {
        Table::with_index(stored, Index::Perfect(paths), Index::Perfect(error_ids))
    }

    fn with_index(
        stored: &stored::Table<'static>,
        paths: Index,
        error_ids: Index,
    ) -> Result<Table, Invalid> {
        let resources =
            |list: &[stored::StoredResource<'static>]| -> Result<Vec<Resource>, Invalid> {
                list.iter().map(Resource::new).collect()
            };
        Ok(Table {
            resources: resources(&stored.resources)?,
            paths,
            errors: resources(&stored.errors)?,
            error_ids,
            keys: stored.keys.to_vec(),
            base_url: stored.base_url.clone(),
            dictionaries: stored
                .dictionaries
                .iter()
                .map(|d| Dictionary {
                    hash: d.hash,
                    encoded_hash: d.encoded_hash.clone(),
                    path: d.path.clone(),
                })
                .collect(),
            last_modified_unix: stored.last_modified_unix,
            content_hash: stored.content_hash.clone(),
            common_accept_encoding_weights: COMMON_ACCEPT_ENCODINGS
                .map(|value| AcceptEncoding::parse([value]).weights()),
            mcp: Answers::new(&stored.mcp),
        })
    }

    /// What `/mcp` answers from.
    pub fn mcp(&self) -> &Answers {
        &self.mcp
    }

    /// The resource served at `path` (already percent-decoded), if any.
    pub fn resource(&self, path: &str) -> Option<&Resource> {
        self.paths.get(path).map(|i| &self.resources[i])
    }

    /// Every resource served with 200, in table order (the catalog's).
    pub fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.resources.iter()
    }

    /// Every error body: the ErrorResponses, the error pages and the
    /// ErrorResponses with a suggestion.
    pub fn errors(&self) -> impl Iterator<Item = &Resource> {
        self.errors.iter()
    }

    /// The error body stored as `id`.
    fn error_by_id(&self, id: &str) -> Option<&Resource> {
        self.error_ids.get(id).map(|i| &self.errors[i])
    }

    /// The ErrorResponse for `kind`.
    pub fn error(&self, kind: ErrorKind) -> &Resource {
        self.error_by_id(kind.code())
            .expect("the pipeline renders a body for every ErrorKind (tested in table::tests)")
    }

    /// The error for `kind` as page URLs answer it: the ErrorResponse, an HTML
    /// page or a Markdown page, by negotiation.
    pub fn page_error(&self, kind: ErrorKind) -> &Resource {
        let mut buf = [0u8; 64];
        let id = prefixed(&mut buf, "page/", kind.code()).expect("error codes are short");
        self.error_by_id(id)
            .expect("the pipeline renders a page for every ErrorKind (tested in table::tests)")
    }

    /// The error page for `kind` that links the method `suggestion`; the plain
    /// one when no such page was rendered.
    pub fn page_error_suggesting(&self, kind: ErrorKind, suggestion: &str) -> &Resource {
        let mut page = [0u8; 64];
        prefixed(&mut page, "page/", kind.code())
            .and_then(|page| self.suggesting(page, suggestion))
            .unwrap_or_else(|| self.page_error(kind))
    }

    /// The ErrorResponse for `kind` whose hint suggests the catalog key
    /// `suggestion`; the plain one when no such body was rendered.
    pub fn error_suggesting(&self, kind: ErrorKind, suggestion: &str) -> &Resource {
        self.suggesting(kind.code(), suggestion)
            .unwrap_or_else(|| self.error(kind))
    }

    /// The error rendered as `<id>/<suggestion>`, if there is one.
    fn suggesting(&self, id: &str, suggestion: &str) -> Option<&Resource> {
        let mut slashed = [0u8; 64];
        let mut buf = [0u8; 64];
        prefixed(&mut slashed, id, "/")
            .and_then(|id| prefixed(&mut buf, id, suggestion))
            .and_then(|id| self.error_by_id(id))
    }

    /// The catalog keys, in catalog order.
    pub fn keys(&self) -> &[Cow<'static, str>] {
        &self.keys
    }

    /// The public address the bodies link to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The compression dictionaries (none or one).
    pub fn dictionaries(&self) -> &[Dictionary] {
        &self.dictionaries
    }

    /// `Last-Modified` of every resource, in seconds since the Unix epoch.
    pub fn last_modified_unix(&self) -> u64 {
        self.last_modified_unix
    }

    /// A name for this content: the start of a SHA-256 of every path and
    /// body (`refserve_build_info`).
    pub fn content_hash(&self) -> &str {
        &self.content_hash
    }

    /// The weight of each coding (in `Coding::ALL` order) for the `i`th of
    /// [`COMMON_ACCEPT_ENCODINGS`].
    pub fn common_accept_encoding_weights(&self, i: usize) -> [u16; Coding::ALL.len()] {
        self.common_accept_encoding_weights[i]
    }
}

impl Index {
    fn get(&self, id: &str) -> Option<usize> {
        match self {
            Index::Perfect(map) => map.get(id).map(|&i| usize::from(i)),
            Index::Hashed(map) => map.get(id).map(|&i| usize::from(i)),
        }
    }
}

/// `prefix` and `rest` joined in `buf`, if they fit.
fn prefixed<'b>(buf: &'b mut [u8; 64], prefix: &str, rest: &str) -> Option<&'b str> {
    let total = prefix.len() + rest.len();
    if total > buf.len() {
        return None;
    }
    buf[..prefix.len()].copy_from_slice(prefix.as_bytes());
    buf[prefix.len()..total].copy_from_slice(rest.as_bytes());
    std::str::from_utf8(&buf[..total]).ok()
}

/// Stored bytes as a body: borrowed ones are not copied.
#[expect(clippy::ptr_arg, reason = "whether the `Cow` borrows decides the copy")]
fn bytes(stored: &Cow<'static, [u8]>) -> Bytes {
    match stored {
        Cow::Borrowed(bytes) => Bytes::from_static(bytes),
        Cow::Owned(bytes) => Bytes::from(bytes.clone()),
    }
}

/// A stored header value, checked; a borrowed one is not copied.
#[expect(clippy::ptr_arg, reason = "whether the `Cow` borrows decides the copy")]
fn value(stored: &Cow<'static, str>) -> Result<HeaderValue, Invalid> {
    let bytes = match stored {
        Cow::Borrowed(text) => Bytes::from_static(text.as_bytes()),
        Cow::Owned(text) => Bytes::from(text.clone()),
    };
    HeaderValue::from_maybe_shared(bytes)
        .map_err(|_| Invalid(format!("`{stored}` is not a header value")))
}

/// A stored header list as a map; repeated names keep every value.
fn map(headers: &[Header<'static>]) -> Result<HeaderMap, Invalid> {
    let mut map = HeaderMap::with_capacity(headers.len());
    for (name, text) in headers {
        // Checked first, then made without a copy of the name.
        HeaderName::from_lowercase(name.as_bytes())
            .map_err(|_| Invalid(format!("`{name}` is not a header name")))?;
        map.append(HeaderName::from_static(name), value(text)?);
    }
    Ok(map)
}

impl Resource {
    fn new(stored: &stored::StoredResource<'static>) -> Result<Resource, Invalid> {
        let representations = stored
            .representations
            .iter()
            .map(|representation| {
                let variants = representation
                    .variants
                    .iter()
                    .map(|variant| {
                        Ok(Variant {
                            coding: variant.coding,
                            body: bytes(&variant.bytes),
                            etag: value(&variant.etag)?,
                            headers: map(&variant.headers)?,
                            not_modified: map(&variant.not_modified)?,
                        })
                    })
                    .collect::<Result<_, Invalid>>()?;
                Ok(Representation {
                    content_type: value(&representation.content_type)?,
                    variants,
                })
            })
            .collect::<Result<_, Invalid>>()?;
        Ok(Resource {
            id: stored.id.clone(),
            location: value(&stored.id)?,
            media_types: stored
                .representations
                .iter()
                .map(|r| r.media_type)
                .collect(),
            representations,
            common_choices: stored.common_choices,
        })
    }

    /// Whether this is a page for people or agents (its preferred
    /// representation is HTML or Markdown), as opposed to a document for
    /// programs. Page URLs are redirected to their canonical spelling.
    pub fn is_page(&self) -> bool {
        self.media_types
            .first()
            .is_some_and(|m| m.kind == "text" && matches!(m.subtype, "html" | "markdown"))
    }
}

impl AsRef<str> for Dictionary {
    /// The encoded hash, by which a request names the dictionary.
    fn as_ref(&self) -> &str {
        &self.encoded_hash
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

/// The table a server answers from: fixed for its life in production,
/// replaced whole by `refserve dev` after every render.
#[derive(Debug, Clone)]
pub enum Tables {
    /// One table for ever.
    Fixed(&'static Table),
    /// The latest table; a request keeps the one it began with.
    Swappable(Arc<RwLock<Arc<Table>>>),
}

/// The table one request is answered from.
#[derive(Debug)]
pub enum Current {
    /// A fixed table.
    Fixed(&'static Table),
    /// A swappable table as it was when the request began.
    Shared(Arc<Table>),
}

impl Tables {
    /// The table to answer a request from.
    pub fn current(&self) -> Current {
        match self {
            Tables::Fixed(table) => Current::Fixed(table),
            Tables::Swappable(latest) => Current::Shared(Arc::clone(
                &latest
                    .read()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()),
            )),
        }
    }

    /// Serve `table` from now on (a fixed table stays as it is).
    pub fn replace(&self, table: Table) {
        if let Tables::Swappable(latest) = self {
            *latest
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(table);
        }
    }
}

impl std::ops::Deref for Current {
    type Target = Table;

    fn deref(&self) -> &Table {
        match self {
            Current::Fixed(table) => table,
            Current::Shared(table) => table,
        }
    }
}
