//! Build stage 4 proper: every rendered body compressed and given its
//! header lists, into the types of `stored.rs`.

use super::{Header, StoredDictionary, StoredRepresentation, StoredResource, StoredVariant, Table};
use crate::compress::{self, Encoded, Encoding};
use crate::content::Catalog;
use crate::dictionary::Dictionary;
use crate::errors::ErrorKind;
use crate::headers;
use crate::negotiate::{negotiate_media_type, Coding, MediaType, COMMON_ACCEPTS};
use crate::render_mcp;
use crate::site::{Body, Resource};
use std::borrow::Cow;

/// Compress every body of `pages` and `errors` as `encoding` says (against
/// `dictionary` where a body asks for it) and give each its headers.
pub fn table(
    catalog: &Catalog,
    pages: &[Resource],
    errors: &[Resource],
    dictionary: Option<&Dictionary>,
    encoding: &Encoding,
) -> Table<'static> {
    let bodies: Vec<&Body> = pages
        .iter()
        .chain(errors)
        .flat_map(|resource| &resource.representations)
        .collect();
    let mut encoded = compress::encode(&bodies, dictionary, encoding).into_iter();
    let last_modified = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(catalog.last_modified),
    );
    let mut store = |resources: &[Resource]| -> Vec<StoredResource<'static>> {
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
    let dictionaries: Vec<StoredDictionary> = dictionary
        .iter()
        .map(|d| StoredDictionary {
            hash: d.hash,
            encoded_hash: d.encoded_hash().into(),
            path: d.path.clone().into(),
        })
        .collect();
    let content_hash = content_hash(resources.iter().chain(&errors)).into();
    Table {
        resources: resources.into(),
        errors: errors.into(),
        dictionaries: dictionaries.into(),
        last_modified: last_modified.into(),
        last_modified_unix: catalog.last_modified,
        keys: catalog
            .entries
            .iter()
            .map(|e| Cow::Owned(e.key.clone()))
            .collect(),
        base_url: catalog.base_url.clone().into(),
        content_hash,
        mcp: render_mcp::render(catalog),
    }
}

/// One resource with the encoded variants of each of its bodies.
fn stored_resource(
    resource: &Resource,
    encoded: Vec<Encoded>,
    last_modified: &str,
) -> StoredResource<'static> {
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
    let representations: Vec<StoredRepresentation<'static>> = resource
        .representations
        .iter()
        .zip(encoded)
        .map(|(body, variants)| {
            let content_type = body.media.content_type();
            let variants: Vec<StoredVariant> = variants
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
                content_type: content_type.into(),
                variants: variants.into(),
            }
        })
        .collect();
    // The run-time negotiation, done here for the `Accept` values most
    // requests carry.
    let offered: Vec<MediaType> = representations.iter().map(|r| r.media_type).collect();
    let common_choices = COMMON_ACCEPTS.map(|accept| negotiate_media_type([accept], &offered));
    StoredResource {
        id: resource.id.clone().into(),
        representations: representations.into(),
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
) -> StoredVariant<'static> {
    let etag = format!(
        "\"{:016x}-{}\"",
        fnv1a(&[content_type.as_bytes(), coding.token().as_bytes(), &bytes]),
        coding.token()
    );
    // Every header a response carrying this body has, in the order sent.
    let mut sent: Vec<Header> = vec![
        ("content-type", content_type.to_string().into()),
        ("content-length", bytes.len().to_string().into()),
    ];
    if coding != Coding::Identity {
        sent.push(("content-encoding", coding.token().into()));
    }
    sent.extend([
        ("vary", vary.into()),
        ("cache-control", resource.cache_control.into()),
        ("x-content-type-options", headers::NOSNIFF.into()),
        ("access-control-allow-origin", headers::ANY_ORIGIN.into()),
        ("access-control-expose-headers", headers::EXPOSED.into()),
    ]);
    sent.extend(
        body.headers
            .iter()
            .map(|(name, value)| (*name, Cow::Owned(value.clone()))),
    );
    match resource.error {
        None => sent.extend([
            ("etag", etag.clone().into()),
            ("last-modified", last_modified.to_string().into()),
        ]),
        Some(ErrorKind::MethodNotAllowed) => sent.push(("allow", headers::ALLOW.into())),
        Some(_) => {}
    }
    let not_modified: Vec<Header> = vec![
        ("etag", etag.clone().into()),
        ("vary", vary.into()),
        ("cache-control", resource.cache_control.into()),
        ("access-control-allow-origin", headers::ANY_ORIGIN.into()),
        ("access-control-expose-headers", headers::EXPOSED.into()),
    ];
    StoredVariant {
        coding,
        bytes: bytes.into(),
        etag: etag.into(),
        headers: sent.into(),
        not_modified: not_modified.into(),
    }
}

/// The first 16 hex digits of a SHA-256 over every resource's path and
/// identity bodies, in table order.
fn content_hash<'r>(resources: impl Iterator<Item = &'r StoredResource<'static>>) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for resource in resources {
        hash.update(resource.id.as_bytes());
        hash.update([0]);
        for representation in resource.representations.iter() {
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
