//! The response table: every body the server can send, rendered and
//! compressed by `build.rs`, behind a small lookup API.
//!
//! This is the one place that `include!`s generated code. The generated file
//! (in `OUT_DIR`) holds only data: a `phf` map from path to [`Resource`], one
//! from error code to the error's [`Resource`], and the catalog keys. The
//! types it is made of are defined here, so the shape of the table is
//! reviewed like any other code.
//!
//! A resource has one or more representations (one per media type, in the
//! server's order of preference), and each representation has one or more
//! variants (one per content coding, smallest body first; identity is always
//! present). Every header value a response needs is prebuilt.

use crate::errors::ErrorKind;
use crate::negotiate::{Coding, MediaType, COMMON_ACCEPTS};
use http::{HeaderMap, HeaderName, HeaderValue};
use std::sync::OnceLock;

/// One URL's worth of responses.
#[derive(Debug)]
pub struct Resource {
    /// The media types of [`Resource::representations`], in the same order
    /// (kept apart so negotiation can borrow them as a slice).
    pub media_types: &'static [MediaType],
    /// The representations, in the server's order of preference.
    pub representations: &'static [&'static Representation],
    /// Which representation each of [`COMMON_ACCEPTS`] chooses (`None`: a
    /// 406), negotiated by build.rs.
    pub common_choices: [Option<usize>; COMMON_ACCEPTS.len()],
}

/// One media type of a resource, in every coding it is stored in.
#[derive(Debug)]
pub struct Representation {
    /// `Content-Type`.
    pub content_type: HeaderValue,
    /// The variants, smallest body first; one of them is identity.
    pub variants: &'static [&'static Variant],
}

/// A compression dictionary (RFC 9842) the server serves and compresses
/// the HTML pages against.
#[derive(Debug)]
pub struct Dictionary {
    /// The SHA-256 of its bytes.
    pub hash: [u8; 32],
    /// That hash in base64 without padding, as `Available-Dictionary` names
    /// it (between colons).
    pub encoded_hash: &'static str,
    /// Where it is served: `/dictionaries/` and the first 8 bytes of the
    /// hash in hex.
    pub path: &'static str,
}

/// One body, exactly as it goes on the wire.
#[derive(Debug)]
pub struct Variant {
    /// The content coding of [`Variant::body`].
    pub coding: Coding,
    /// The dictionary [`Variant::body`] was compressed against (`dcb`,
    /// `dcz`); a client must hold it to be sent this body.
    pub dictionary: Option<&'static Dictionary>,
    /// The bytes sent.
    pub body: &'static [u8],
    /// A strong `ETag`, different for every variant of every representation.
    pub etag: HeaderValue,
    /// Every header of a response carrying this body, as build.rs wrote
    /// them: its representation's metadata, then the validators of a
    /// document or the `Allow` of a 405.
    pub headers: &'static [(HeaderName, HeaderValue)],
    /// The headers of a 304 about this body.
    pub not_modified: &'static [(HeaderName, HeaderValue)],
    /// [`Variant::headers`] as a map, made on first use (a `HeaderMap`
    /// cannot be a `static`); responses clone it.
    pub header_map: OnceLock<HeaderMap>,
    /// [`Variant::not_modified`] as a map, likewise.
    pub not_modified_map: OnceLock<HeaderMap>,
}

mod generated {
    #![allow(missing_docs, clippy::unreadable_literal)]
    use super::{Dictionary, Representation, Resource, Variant};
    use crate::negotiate::{Coding, MediaType};
    use http::{HeaderName, HeaderValue};
    include!(concat!(env!("OUT_DIR"), "/table.rs"));
}

pub use generated::{
    BASE_URL, COMMON_ACCEPT_ENCODING_WEIGHTS, CONTENT_HASH, DICTIONARIES, KEYS, LAST_MODIFIED,
    LAST_MODIFIED_UNIX,
};

/// The resource served at `path` (already percent-decoded), if any.
pub fn resource(path: &str) -> Option<&'static Resource> {
    generated::RESOURCES.get(path).copied()
}

/// The resource at `path` with its key as stored in the table (a
/// `'static` string, fit for a `Location` header).
pub fn resource_entry(path: &str) -> Option<(&'static str, &'static Resource)> {
    generated::RESOURCES
        .get_entry(path)
        .map(|(key, resource)| (*key, *resource))
}

/// Every path the server answers with 200, with its resource.
pub fn resources() -> impl Iterator<Item = (&'static str, &'static Resource)> {
    generated::RESOURCES
        .entries()
        .map(|(path, resource)| (*path, *resource))
}

/// Every error body: the ErrorResponses, the error pages and the
/// ErrorResponses with a suggestion.
pub fn errors() -> impl Iterator<Item = &'static Resource> {
    generated::ERRORS.values().copied()
}

/// The ErrorResponse for `kind`.
pub fn error(kind: ErrorKind) -> &'static Resource {
    generated::ERRORS
        .get(kind.code())
        .copied()
        .expect("build.rs renders a body for every ErrorKind (tested in table::tests)")
}

/// The error for `kind` as page URLs answer it: the ErrorResponse, an HTML
/// page or a Markdown page, by negotiation.
pub fn page_error(kind: ErrorKind) -> &'static Resource {
    let mut buf = [0u8; 64];
    let id = prefixed(&mut buf, "page/", kind.code()).expect("error codes are short");
    generated::ERRORS
        .get(id)
        .copied()
        .expect("build.rs renders a page for every ErrorKind (tested in table::tests)")
}

/// The error page for `kind` that links the method `suggestion`; the plain
/// one when no such page was rendered.
pub fn page_error_suggesting(kind: ErrorKind, suggestion: &str) -> &'static Resource {
    let mut page = [0u8; 64];
    prefixed(&mut page, "page/", kind.code())
        .and_then(|page| suggesting(page, suggestion))
        .unwrap_or_else(|| page_error(kind))
}

/// The error rendered as `<id>/<suggestion>`, if there is one.
fn suggesting(id: &str, suggestion: &str) -> Option<&'static Resource> {
    let mut slashed = [0u8; 64];
    let mut buf = [0u8; 64];
    prefixed(&mut slashed, id, "/")
        .and_then(|id| prefixed(&mut buf, id, suggestion))
        .and_then(|id| generated::ERRORS.get(id).copied())
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

/// The ErrorResponse for `kind` whose hint suggests the catalog key
/// `suggestion`; the plain one when no such body was rendered.
pub fn error_suggesting(kind: ErrorKind, suggestion: &str) -> &'static Resource {
    suggesting(kind.code(), suggestion).unwrap_or_else(|| error(kind))
}

impl Resource {
    /// Whether this is a page for people or agents (its preferred
    /// representation is HTML or Markdown), as opposed to a document for
    /// programs. Page URLs are redirected to their canonical spelling.
    pub fn is_page(&self) -> bool {
        self.media_types
            .first()
            .is_some_and(|m| m.kind == "text" && matches!(m.subtype, "html" | "markdown"))
    }
}

impl Variant {
    /// The headers of a response carrying this body.
    pub fn header_map(&self) -> &HeaderMap {
        self.header_map.get_or_init(|| map(self.headers))
    }

    /// The headers of a 304 about this body.
    pub fn not_modified_map(&self) -> &HeaderMap {
        self.not_modified_map.get_or_init(|| map(self.not_modified))
    }
}

/// A header list as a map; repeated names keep every value.
fn map(headers: &[(HeaderName, HeaderValue)]) -> HeaderMap {
    let mut map = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        map.append(name.clone(), value.clone());
    }
    map
}

impl Representation {
    /// The identity variant.
    pub fn identity(&self) -> &'static Variant {
        self.variants
            .iter()
            .copied()
            .find(|v| v.coding == Coding::Identity)
            .expect("build.rs always stores the identity body")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_kind_has_a_page_in_three_representations() {
        for kind in ErrorKind::ALL {
            let resource = page_error(kind);
            let types: Vec<&str> = resource.media_types.iter().map(|m| m.subtype).collect();
            assert_eq!(types, ["json", "html", "markdown"], "{kind:?}");
            for representation in resource.representations {
                let body = std::str::from_utf8(representation.identity().body).expect("UTF-8");
                assert!(body.contains(kind.code()), "{kind:?}: {body}");
            }
        }
    }

    #[test]
    fn every_error_kind_has_a_json_body() {
        for kind in ErrorKind::ALL {
            let resource = error(kind);
            assert_eq!(resource.representations.len(), 1);
            let body = resource.representations[0].identity().body;
            let text = std::str::from_utf8(body).expect("UTF-8");
            assert!(
                text.contains(&format!("\"code\":\"{}\"", kind.code())),
                "{text}"
            );
        }
    }

    #[test]
    fn suggestions_exist_for_every_key() {
        for key in KEYS {
            for kind in [ErrorKind::ReferenceNotFound, ErrorKind::InvalidName] {
                let resource = error_suggesting(kind, key);
                assert!(!std::ptr::eq(resource, error(kind)), "{kind:?} {key}");
                let body = resource.representations[0].identity().body;
                let text = std::str::from_utf8(body).expect("UTF-8");
                assert!(
                    text.contains(&format!("/api/reference/{key}.json")),
                    "{text}"
                );
            }
        }
        assert!(std::ptr::eq(
            error_suggesting(ErrorKind::NotFound, "select"),
            error(ErrorKind::NotFound)
        ));
        assert!(std::ptr::eq(
            error_suggesting(ErrorKind::ReferenceNotFound, &"x".repeat(80)),
            error(ErrorKind::ReferenceNotFound)
        ));
    }

    #[test]
    fn every_variant_is_consistent() {
        let all = resources().map(|(_, r)| r).chain(ErrorKind::ALL.map(error));
        for resource in all {
            assert_eq!(resource.media_types.len(), resource.representations.len());
            for representation in resource.representations {
                let identity = representation.identity();
                let mut sizes = representation.variants.iter().map(|v| v.body.len());
                let mut previous = 0;
                assert!(
                    sizes.all(|s| std::mem::replace(&mut previous, s) <= s),
                    "smallest first"
                );
                for variant in representation.variants {
                    assert!(
                        variant.coding == Coding::Identity
                            || variant.body.len() < identity.body.len()
                    );
                    let etag = variant.etag.to_str().expect("ASCII");
                    assert!(
                        etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/")
                    );
                }
            }
        }
    }

    /// The names in every response header list of `resource`.
    fn names(resource: &Resource) -> Vec<Vec<&'static str>> {
        let variants = resource.representations.iter().flat_map(|r| r.variants);
        variants
            .map(|v| v.headers.iter().map(|(name, _)| name.as_str()).collect())
            .collect()
    }

    #[test]
    fn documents_carry_validators_and_errors_do_not() {
        for (path, resource) in resources() {
            for names in names(resource) {
                assert!(
                    names.contains(&"etag") && names.contains(&"last-modified"),
                    "{path}"
                );
                assert!(!names.contains(&"allow"), "{path}");
            }
        }
        for resource in errors() {
            let allowed = std::ptr::eq(resource, error(ErrorKind::MethodNotAllowed))
                || std::ptr::eq(resource, page_error(ErrorKind::MethodNotAllowed));
            for names in names(resource) {
                assert!(!names.contains(&"etag") && !names.contains(&"last-modified"));
                assert_eq!(names.contains(&"allow"), allowed, "{names:?}");
            }
        }
    }

    #[test]
    fn header_lists_agree_with_the_variant() {
        for resource in resources().map(|(_, r)| r).chain(errors()) {
            for representation in resource.representations {
                for variant in representation.variants {
                    let map = variant.header_map();
                    let length = variant.body.len().to_string();
                    assert_eq!(map[http::header::CONTENT_LENGTH], length.as_str());
                    assert_eq!(map[http::header::CONTENT_TYPE], representation.content_type);
                    let vary = map[http::header::VARY].to_str().expect("ASCII");
                    assert_eq!(vary.contains("Accept,"), resource.representations.len() > 1);
                    assert_eq!(
                        map.get(http::header::CONTENT_ENCODING).is_some(),
                        variant.coding != Coding::Identity
                    );
                    assert_eq!(variant.not_modified_map()[http::header::ETAG], variant.etag);
                }
            }
        }
    }

    #[test]
    fn etags_differ_between_the_variants_of_a_resource() {
        for (path, resource) in resources() {
            let mut seen = std::collections::HashSet::new();
            for representation in resource.representations {
                for variant in representation.variants {
                    assert!(
                        seen.insert(variant.etag.clone()),
                        "{path}: {:?}",
                        variant.etag
                    );
                }
            }
        }
    }
}
