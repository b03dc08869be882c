//! Build stage 4: the table as the server stores it — every resource with
//! every body in every coding, and the complete header lists of its 200 and
//! its 304 — as plain data.
//!
//! `emit.rs` writes this as Rust for the production binary; `refserve dev`
//! turns it into the table it serves from memory. Resources stay in the
//! order they were rendered in, so the output is deterministic.

use crate::compress::{self, Encoded, Encoding};
use crate::content::Catalog;
use crate::dictionary::Dictionary;
use crate::errors::ErrorKind;
use crate::headers;
use crate::negotiate::{negotiate_media_type, Coding, MediaType, COMMON_ACCEPTS};
use crate::site::{Body, Resource};

/// Everything the server serves.
#[derive(Debug)]
pub struct Table {
    /// The documents, keyed by path, in catalog order.
    pub resources: Vec<StoredResource>,
    /// The error bodies, keyed by error id.
    pub errors: Vec<StoredResource>,
    /// The compression dictionary the HTML pages are compressed against.
    pub dictionary: Option<Dictionary>,
    /// `Last-Modified` of every resource, as an HTTP date.
    pub last_modified: String,
    /// [`Table::last_modified`] in seconds since the Unix epoch.
    pub last_modified_unix: u64,
    /// The catalog keys, in catalog order.
    pub keys: Vec<String>,
    /// The public address the bodies link to.
    pub base_url: String,
}

/// One URL's worth of responses (or one error's).
#[derive(Debug)]
pub struct StoredResource {
    /// The table key: a path, or an error id.
    pub id: String,
    /// The representations, in the server's order of preference.
    pub representations: Vec<StoredRepresentation>,
    /// Which representation each of [`COMMON_ACCEPTS`] chooses (`None`: a 406).
    pub common_choices: [Option<usize>; COMMON_ACCEPTS.len()],
}

/// One media type of a resource, in every coding it is stored in.
#[derive(Debug)]
pub struct StoredRepresentation {
    /// Its media type, as negotiated.
    pub media_type: MediaType,
    /// `Content-Type`.
    pub content_type: String,
    /// The variants, smallest body first; one of them is identity.
    pub variants: Vec<StoredVariant>,
}

/// One body, exactly as it goes on the wire, with its headers.
#[derive(Debug)]
pub struct StoredVariant {
    /// Its content coding.
    pub coding: Coding,
    /// The bytes sent.
    pub bytes: Vec<u8>,
    /// Its strong `ETag`, quotes included.
    pub etag: String,
    /// Every header of a response carrying it, in the order sent.
    pub headers: Vec<(&'static str, String)>,
    /// The headers of a 304 about it (RFC 9110 §15.4.5).
    pub not_modified: Vec<(&'static str, String)>,
}

/// Compress every body of `pages` and `errors` as `encoding` says (against
/// `dictionary` where a body asks for it) and give each its headers.
pub fn table(
    catalog: &Catalog,
    pages: &[Resource],
    errors: &[Resource],
    dictionary: Option<Dictionary>,
    encoding: &Encoding,
) -> Table {
    let bodies: Vec<&Body> = pages
        .iter()
        .chain(errors)
        .flat_map(|resource| &resource.representations)
        .collect();
    let mut encoded = compress::encode(&bodies, dictionary.as_ref(), encoding).into_iter();
    let last_modified = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(catalog.last_modified),
    );
    let mut store = |resources: &[Resource]| -> Vec<StoredResource> {
        resources
            .iter()
            .map(|resource| {
                let encoded = encoded
                    .by_ref()
                    .take(resource.representations.len())
                    .collect();
                stored_resource(resource, encoded, &last_modified)
            })
            .collect()
    };
    let resources = store(pages);
    let errors = store(errors);
    Table {
        resources,
        errors,
        dictionary,
        last_modified,
        last_modified_unix: catalog.last_modified,
        keys: catalog.entries.iter().map(|e| e.key.clone()).collect(),
        base_url: catalog.base_url.clone(),
    }
}

/// One resource with the encoded variants of each of its bodies.
fn stored_resource(
    resource: &Resource,
    encoded: Vec<Encoded>,
    last_modified: &str,
) -> StoredResource {
    // Whether one body is compressed against the dictionary decides the
    // `Vary` of them all (RFC 9842 §6.2).
    let compressed_against_dictionary = encoded
        .iter()
        .flatten()
        .any(|(coding, _)| coding.needs_dictionary());
    let vary = match (
        resource.representations.len() > 1,
        compressed_against_dictionary,
    ) {
        (true, true) => "Accept, Accept-Encoding, Available-Dictionary",
        (true, false) => "Accept, Accept-Encoding",
        (false, true) => "Accept-Encoding, Available-Dictionary",
        (false, false) => "Accept-Encoding",
    };
    let representations: Vec<StoredRepresentation> = resource
        .representations
        .iter()
        .zip(encoded)
        .map(|(body, variants)| {
            let content_type = body.media.content_type();
            let variants = variants
                .into_iter()
                .map(|(coding, bytes)| {
                    variant(
                        resource,
                        body,
                        &content_type,
                        vary,
                        last_modified,
                        coding,
                        bytes,
                    )
                })
                .collect();
            StoredRepresentation {
                media_type: MediaType {
                    kind: body.media.kind,
                    subtype: body.media.subtype,
                    charset: body.media.charset,
                },
                content_type,
                variants,
            }
        })
        .collect();
    // The run-time negotiation, done here for the `Accept` values most
    // requests carry.
    let offered: Vec<MediaType> = representations.iter().map(|r| r.media_type).collect();
    let common_choices = COMMON_ACCEPTS.map(|accept| negotiate_media_type([accept], &offered));
    StoredResource {
        id: resource.id.clone(),
        representations,
        common_choices,
    }
}

/// One body with its ETag and the header lists of its 200 and its 304.
fn variant(
    resource: &Resource,
    body: &Body,
    content_type: &str,
    vary: &'static str,
    last_modified: &str,
    coding: Coding,
    bytes: Vec<u8>,
) -> StoredVariant {
    let etag = format!(
        "\"{:016x}-{}\"",
        fnv1a(&[content_type.as_bytes(), coding.token().as_bytes(), &bytes]),
        coding.token()
    );
    // Every header a response carrying this body has, in the order sent.
    let mut sent: Vec<(&'static str, String)> = vec![
        ("content-type", content_type.to_string()),
        ("content-length", bytes.len().to_string()),
    ];
    if coding != Coding::Identity {
        sent.push(("content-encoding", coding.token().to_string()));
    }
    sent.extend(
        [
            ("vary", vary),
            ("cache-control", resource.cache_control),
            ("x-content-type-options", headers::NOSNIFF),
            ("access-control-allow-origin", headers::ANY_ORIGIN),
            ("access-control-expose-headers", headers::EXPOSED),
        ]
        .map(|(name, value)| (name, value.to_string())),
    );
    sent.extend(body.headers.iter().cloned());
    match resource.error {
        None => sent.extend([
            ("etag", etag.clone()),
            ("last-modified", last_modified.to_string()),
        ]),
        Some(ErrorKind::MethodNotAllowed) => sent.push(("allow", headers::ALLOW.to_string())),
        Some(_) => {}
    }
    let not_modified = vec![
        ("etag", etag.clone()),
        ("vary", vary.to_string()),
        ("cache-control", resource.cache_control.to_string()),
        (
            "access-control-allow-origin",
            headers::ANY_ORIGIN.to_string(),
        ),
        (
            "access-control-expose-headers",
            headers::EXPOSED.to_string(),
        ),
    ];
    StoredVariant {
        coding,
        bytes,
        etag,
        headers: sent,
        not_modified,
    }
}

impl Table {
    /// The start of a SHA-256 over every resource's path and bodies, in
    /// table order: a name for this content (`refserve_build_info`).
    pub fn content_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for resource in self.resources.iter().chain(&self.errors) {
            hash.update(resource.id.as_bytes());
            hash.update([0]);
            for representation in &resource.representations {
                let identity = representation
                    .variants
                    .iter()
                    .find(|v| v.coding == Coding::Identity)
                    .expect("every representation stores its identity body");
                hash.update((identity.bytes.len() as u64).to_be_bytes());
                hash.update(&identity.bytes);
            }
        }
        hash.finalize()[..8]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

/// FNV-1a, 64 bits, over the parts with a separator between them: a stable
/// fingerprint of the exact bytes (and their type) for the ETag.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in part.iter().chain(&[0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}
