//! Build stage 4: every rendered body compressed and given its header
//! maps, into the response table (`refserve_core::table`, whose types the
//! server answers from as they are).
//!
//! This is the one place a response's headers are written: a header added
//! here (a line of `shared` for one every answer has, 200, 304 or `/search`'s
//! 303) is sent, stored and checked (`src/table/tests.rs`) with no other
//! change.

use crate::address::Address;
use crate::compress::{self, Compressed, Encoding};
use crate::content::{Catalog, Editions};
use crate::dictionary::Dictionary;
use crate::edge::Edge;
use crate::errors::ErrorKind;
use crate::headers;
use crate::media::MediaType;
use crate::negotiate::{Coding, Language};
use crate::render_mcp;
use crate::render_search;
use crate::search_page::{Form, Headers as SearchHeaders, SearchPage, MEDIA_TYPES};
use crate::site::{self, Body, Resource, CACHE_CONTROL};
use crate::table::{self, ErrorBodies, Index, Representation, Table, Variant};
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue};
use indexmap::IndexMap;

/// Compress every body of `pages` and `errors` as `encoding` says (against
/// `dictionary` where a body asks for it) and give each its headers.
pub(crate) fn table(
    editions: &Editions,
    pages: &[Resource],
    errors: &[ErrorBodies<Resource>],
    dictionary: Option<&Dictionary>,
    encoding: &Encoding,
    cdn_max_age: u64,
) -> Table {
    // The MCP answers are made from the catalogs alone: on another core,
    // beside the rest (a fifth of what `refserve dev` does on an edit).
    std::thread::scope(|scope| {
        let mcp = scope.spawn(|| render_mcp::render(editions));
        let catalog = editions.source();
        let exported: Vec<Resource> = editions
            .catalogs
            .iter()
            .map(render_search::exported)
            .collect();
        let content_hash = content_hash(table::every(pages, errors, exported.iter()), editions);
        let edge = Edge {
            max_age: cdn_max_age,
            build: content_hash.clone(),
        };
        let rendered = table::every(pages, errors, exported.iter());
        let bodies = rendered.flat_map(|resource| &resource.representations);
        let compressed = compress::encode(bodies, dictionary, encoding);
        let last_modified = httpdate::fmt_http_date(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(catalog.last_modified),
        );
        let store =
            |resource: &Resource| stored_resource(resource, &compressed, &last_modified, &edge);
        let resources: Vec<table::Resource> = pages.iter().map(store).collect();
        let errors: Vec<ErrorBodies> = errors.iter().map(|bodies| bodies.map(store)).collect();
        let search: Vec<SearchPage> = editions
            .catalogs
            .iter()
            .zip(&exported)
            .map(|(catalog, exported)| {
                let search = catalog.at(Address::Search).to_string();
                let edge = |media| edge.headers(&search, media, Some(&catalog.language.tag));
                render_search::page(
                    catalog,
                    |form| search_headers(catalog, form, &last_modified, &edge),
                    // `/search`'s `303` to a method's page, but `Location`: kept
                    // as long as an answer, and by `Accept` (JSON and Markdown
                    // clients get the results).
                    map(shared("Accept", CACHE_CONTROL, Answer::SeeOther)
                        .chain(edge(MediaType::HTML))),
                    store(exported),
                )
            })
            .collect();
        Table {
            paths: Index::of(&resources),
            resources,
            errors,
            dictionaries: dictionary
                .iter()
                .map(|d| table::Dictionary {
                    hash: d.hash,
                    path: d.path.clone(),
                })
                .collect(),
            last_modified_unix: catalog.last_modified,
            keys: catalog.entries.iter().map(|e| e.key.clone()).collect(),
            languages: offers(editions),
            base_url: catalog.base_url.clone(),
            content_hash,
            // If it panicked, the panic goes on here.
            mcp: mcp
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            search,
        }
    })
}

/// The languages of `editions`, as the server negotiates among them.
fn offers(editions: &Editions) -> Vec<Language> {
    editions
        .catalogs
        .iter()
        .map(|catalog| {
            crate::languages::offered(&catalog.language.tag)
                .expect("content::load checks that a language's tag is one CLDR knows")
        })
        .collect()
}

/// One resource with the variants of each of its bodies.
fn stored_resource(
    resource: &Resource,
    compressed: &Compressed,
    last_modified: &str,
    edge: &Edge,
) -> table::Resource {
    let encoded: Vec<compress::Encoded> = resource
        .representations
        .iter()
        .map(|body| compressed.variants(body))
        .collect();
    // Whether one body is compressed against the dictionary decides the
    // `Vary` of them all (RFC 9842 §6.2).
    let compressed_against_dictionary = encoded
        .iter()
        .flatten()
        .any(|(coding, _)| coding.needs_dictionary());
    let media_types: Vec<MediaType> = resource.representations
        [..resource.representations.len() / resource.languages]
        .iter()
        .map(|b| b.media)
        .collect();
    let vary = [
        ("Accept", media_types.len() > 1),
        ("Accept-Encoding", true),
        ("Accept-Language", resource.languages > 1),
        ("Available-Dictionary", compressed_against_dictionary),
    ]
    .into_iter()
    .filter_map(|(field, varies)| varies.then_some(field))
    .collect::<Vec<_>>()
    .join(", ");
    let representations: Vec<Representation> = resource
        .representations
        .iter()
        .zip(encoded)
        .map(|(body, variants)| Representation {
            variants: variants
                .into_iter()
                .map(|(coding, bytes)| {
                    variant(resource, body, &vary, last_modified, edge, coding, bytes)
                })
                .collect(),
        })
        .collect();
    table::Resource {
        id: resource.id.clone(),
        location: value(resource.id.clone()),
        media_types,
        representations,
        negotiates_language: resource.languages > 1,
        error: resource.error,
    }
}

/// One body with its ETag and the header maps of its 200 and its 304.
fn variant(
    resource: &Resource,
    body: &Body,
    vary: &str,
    last_modified: &str,
    edge: &Edge,
    coding: Coding,
    bytes: Vec<u8>,
) -> Variant {
    let content_type = body.media.content_type();
    let etag = format!(
        "\"{:016x}-{}\"",
        headers::fingerprint(&[content_type.as_bytes(), coding.token().as_bytes(), &bytes]),
        coding.token()
    );
    // Every header a response carrying this body has, in the order sent.
    let mut sent = vec![
        ("content-type", content_type),
        ("content-length", bytes.len().to_string()),
    ];
    if coding != Coding::Identity {
        sent.push(("content-encoding", coding.token().into()));
    }
    sent.extend(shared(vary, resource.cache_control, Answer::Body));
    sent.extend(body.headers.iter().cloned());
    if let Some(seconds) = resource.error.and_then(ErrorKind::retry_after) {
        sent.push(("retry-after", seconds.into()));
    }
    if resource.error.is_some_and(ErrorKind::closes_connection) {
        sent.push(("connection", "close".into()));
    }
    match resource.error {
        None => sent.extend([
            ("etag", etag.clone()),
            ("last-modified", last_modified.to_string()),
        ]),
        Some(ErrorKind::MethodNotAllowed) => sent.push(("allow", headers::ALLOW.into())),
        Some(_) => {}
    }
    // What a CDN reads, on a document it may keep: its lifetime and tags,
    // on its 200s and the 304s that refresh them (RFC 9111 §4.3.4).
    let for_the_edge = if resource.error.is_none() && resource.cache_control != "no-store" {
        let language = body
            .headers
            .iter()
            .find(|(name, _)| *name == "content-language")
            .map(|(_, tag)| tag.as_str());
        edge.headers(&resource.id, body.media, language)
    } else {
        Vec::new()
    };
    sent.extend(for_the_edge.iter().cloned());
    let mut not_modified = vec![("etag", etag.clone())];
    not_modified.extend(shared(vary, resource.cache_control, Answer::NotModified));
    not_modified.extend(for_the_edge);
    Variant {
        coding,
        body: Bytes::from(bytes),
        etag: value(etag),
        headers: map(sent),
        not_modified: map(not_modified),
    }
}

/// The headers of `/search`'s answers in `form`: as a page's (a document's
/// for JSON), varying on `Accept` alone (they are sent in identity), and
/// `noindex` (a results page is no page to list), with what `edge` says a
/// CDN reads on an answer of its media type. The server adds
/// `Content-Length` and `ETag`.
fn search_headers(
    catalog: &Catalog,
    form: Form,
    last_modified: &str,
    edge: &dyn Fn(MediaType) -> Vec<(&'static str, String)>,
) -> SearchHeaders {
    let media = MEDIA_TYPES[form as usize];
    let for_the_edge = edge(media);
    let noindex = ("x-robots-tag", "noindex".to_string());
    let mut sent = vec![("content-type", media.content_type())];
    if form != Form::Json {
        sent.push(("content-language", catalog.language.tag.clone()));
    }
    sent.extend(shared("Accept", CACHE_CONTROL, Answer::Body));
    sent.push(noindex.clone());
    match form {
        Form::Html => sent.extend(site::html_headers()),
        Form::Markdown => {}
        Form::Json => sent.push(site::service_desc(catalog)),
    }
    sent.push(("last-modified", last_modified.to_string()));
    sent.extend(for_the_edge.iter().cloned());
    let not_modified = shared("Accept", CACHE_CONTROL, Answer::NotModified)
        .chain([noindex])
        .chain(for_the_edge);
    SearchHeaders {
        ok: map(sent),
        not_modified: map(not_modified),
    }
}

/// What an answer is, for the headers it shares with every other.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// A body: a document's, an error's, a search's.
    Body,
    /// A `304` about a body (RFC 9110 §15.4.5): no body to sniff.
    NotModified,
    /// A `303`, which a browser follows before a script could read it.
    SeeOther,
}

/// The headers every answer has, in the order sent: one line a header,
/// each sent on the answers it means something on.
fn shared<'v>(
    vary: &'v str,
    cache_control: &'static str,
    answer: Answer,
) -> impl Iterator<Item = (&'static str, String)> + 'v {
    [
        Some(("vary", vary)),
        Some(("cache-control", cache_control)),
        (answer == Answer::Body).then_some(("x-content-type-options", headers::NOSNIFF)),
        Some(("access-control-allow-origin", headers::ANY_ORIGIN)),
        (answer != Answer::SeeOther).then_some(("access-control-expose-headers", headers::EXPOSED)),
    ]
    .into_iter()
    .flatten()
    .map(|(name, text)| (name, text.to_string()))
}

/// A header value the pipeline wrote: visible ASCII, from checked parts.
fn value(text: String) -> HeaderValue {
    HeaderValue::try_from(text).expect("the pipeline writes header values of visible ASCII")
}

/// The headers as sent, in order; a field given more than once (`Link`,
/// a list, RFC 9110 §5.3) is one line, its values joined by commas where
/// it first stands, which a response copies and writes once.
fn map(headers: impl IntoIterator<Item = (&'static str, String)>) -> HeaderMap {
    let mut lines = IndexMap::<&'static str, String>::new();
    for (name, text) in headers {
        lines
            .entry(name)
            .and_modify(|line| *line = format!("{line}, {text}"))
            .or_insert(text);
    }
    lines
        .into_iter()
        .map(|(name, text)| (HeaderName::from_static(name), value(text)))
        .collect()
}

/// The first 16 hex digits of a SHA-256 over every resource's path and
/// identity bodies, in table order, and what search answers from in each
/// language: the build's name (its purge tag, `edge.rs`) and what the ETags
/// of search's answers are made from.
fn content_hash<'r>(resources: impl Iterator<Item = &'r Resource>, editions: &Editions) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for catalog in &editions.catalogs {
        let index = render_search::methods(catalog);
        hash.update(serde_json::to_vec(&index).expect("the search index serialises"));
    }
    for resource in resources {
        hash.update(resource.id.as_bytes());
        hash.update([0]);
        for body in &resource.representations {
            hash.update((body.bytes.len() as u64).to_be_bytes());
            hash.update(&body.bytes);
        }
    }
    hash.finalize()[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
