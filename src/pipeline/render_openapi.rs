//! Build stage 2 (OpenAPI): the OpenAPI 3.1 description of the two JSON
//! endpoints, `/openapi.json`.
//!
//! Everything that can be derived is derived: the server URL, the examples
//! (rendered by [`render_json`] from the real catalog and error texts, so
//! they are the served bodies), the error codes ([`ErrorKind::ALL`]), the
//! name limits and the caching headers. The document is deterministic: the
//! same content gives the same bytes.
//!
//! This file writes the document and the two reference operations;
//! `render_openapi/search.rs` the search and its schemas;
//! `render_openapi/components.rs` the components they refer to.

use crate::address::{Address, View};
use crate::content::{Catalog, Entry};
use crate::errors::ErrorKind;
use crate::render_json;
use serde_json::{json, Map, Value};

mod components;
mod search;
use components::components;
pub(crate) use components::reference_schema_alone;

/// The version of the API description (specification §9).
const API_VERSION: &str = "2.6.0";

/// The one media type of both endpoints.
const JSON: &str = "application/json";

/// The only tag (specification §4).
const TAG: &str = "Reference";

/// The OpenAPI document.
pub(crate) fn openapi(catalog: &Catalog) -> String {
    let description = format!(
        "A read-only HTTP API that publishes the reference of a PHP database access library: \
         for each of its {count} documented methods the call signatures, what every parameter \
         means, what the method returns, remarks, and a link to the human-readable page. \
         It documents the library; it never connects to a database or runs a query.\n\n\
         Every body is rendered when the service is built, so responses are identical for \
         identical requests and cheap to cache. Successful responses carry a strong `ETag` \
         and `Last-Modified`; send them back in `If-None-Match` or `If-Modified-Since` and an \
         unchanged resource answers `304 Not Modified`; an `If-Match` that names no current \
         `ETag` is answered `412 Precondition Failed`. Bodies are sent in `br`, `gzip` or \
         identity coding according to `Accept-Encoding`.\n\n\
         No authentication is needed and none is accepted. Every endpoint also answers `HEAD` \
         (the same headers, no body) and `OPTIONS` (`204` with `Allow`); any other method is \
         refused with `405` and the code `method_not_allowed`. `GET /search` finds the \
         methods for a task asked in words. Every error body is an \
         `ErrorResponse` whose `error.code` is stable and whose `error.hint` says what to do \
         next.\n\n{languages}",
        count = catalog.entries.len(),
        languages = languages(catalog),
    );
    let document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Method Reference API",
            "summary": "Read-only JSON reference of a PHP database access library's methods.",
            "description": description,
            "version": API_VERSION,
            "license": { "name": "MIT", "identifier": "MIT" },
        },
        "servers": [{
            "url": catalog.base_url,
            "description": "The origin that serves the method reference (the address its documentation_url links point to).",
        }],
        "security": [],
        "tags": [{
            "name": TAG,
            "description": "Machine-readable reference entries of the library's methods: one entry per method, or all of them at once.",
        }, search::tag()],
        "paths": {
            Address::Collection.to_string(): { "get": list_operation(catalog) },
            Address::Document("{name}").to_string(): { "get": get_operation(catalog) },
            Address::Search.to_string(): { "get": search::operation(catalog) },
        },
        "components": components(catalog),
    });
    render_json::finish(&document)
}

/// What the description says of languages: the JSON documents are the
/// source's, whatever `Accept-Language` asks; the pages are in each of
/// the site's languages, at addresses of their own.
fn languages(catalog: &Catalog) -> String {
    let source = &catalog.language;
    let tags: Vec<String> = (catalog.languages.iter())
        .map(|l| format!("`{}`", l.tag))
        .collect();
    let example = example_entry(catalog).map_or("select", |e| e.key.as_str());
    let page = Address::Method(example, View::Page);
    let own: Vec<String> = (catalog.languages.iter())
        .map(|l| format!("`{}`", page.localized(Some(&l.segment))))
        .collect();
    format!(
        "The JSON documents are the reference in its source language, `{tag}`, whatever \
         `Accept-Language` asks: they are sent with `Content-Language: {tag}`, their error \
         bodies too are in it, and none varies on `Accept-Language`. The pages for people and \
         agents (HTML and Markdown, outside this description) are published in {all}: each \
         language's at its own address ({own}), and at the address without a language \
         (`{negotiated}`) in the one `Accept-Language` prefers.",
        tag = source.tag,
        all = tags.join(", "),
        own = own.join(", "),
        negotiated = page.localized(None),
    )
}

// ---------------------------------------------------------------------------
// Operations

fn list_operation(catalog: &Catalog) -> Value {
    let example: Value = serde_json::from_str(&render_json::collection(catalog))
        .expect("render_json::collection renders JSON");
    json!({
        "operationId": "listApiReferences",
        "tags": [TAG],
        "summary": "List every method reference",
        "description": format!(
            "Returns all {} reference entries in catalog order, in one response: there is no \
             pagination and no query parameter.",
            catalog.entries.len()
        ),
        "parameters": parameter_refs(&[]),
        "responses": {
            "200": {
                "description": "The whole catalog.",
                "headers": reference_headers(),
                "content": { JSON: {
                    "schema": ref_to("schemas", "ReferenceCollection"),
                    "examples": { "catalog": {
                        "summary": "The complete collection, as served",
                        "value": example,
                    } },
                } },
            },
            "304": ref_to("responses", "NotModified"),
            "406": ref_to("responses", "NotAcceptable"),
            "412": ref_to("responses", "PreconditionFailed"),
            "default": ref_to("responses", "Error"),
        },
    })
}

fn get_operation(catalog: &Catalog) -> Value {
    let examples: Map<String, Value> = single_examples(catalog)
        .into_iter()
        .map(|(entry, summary)| {
            let data = render_json::reference(catalog, entry);
            let example = json!({ "summary": summary, "value": { "data": data } });
            (entry.key.clone(), example)
        })
        .collect();
    json!({
        "operationId": "getApiReference",
        "tags": [TAG],
        "summary": "Get one method reference",
        "description": "Returns the reference entry of the method whose key is `name`, for \
             example `select`. Percent-encoded unreserved characters in the path are decoded \
             first, and a query string is ignored.",
        "parameters": parameter_refs(&["Name"]),
        "responses": {
            "200": {
                "description": "The reference entry of the method.",
                "headers": reference_headers(),
                "content": { JSON: {
                    "schema": ref_to("schemas", "SingleReference"),
                    "examples": examples,
                } },
            },
            "304": ref_to("responses", "NotModified"),
            "400": ref_to("responses", "InvalidName"),
            "404": error_response(
                catalog,
                "`name` is well formed but no method has that key (code \
                 `reference_not_found`). When one key is close to it, the hint suggests \
                 that key. The answer may be cached for a minute.",
                &[ErrorKind::ReferenceNotFound],
            ),
            "406": ref_to("responses", "NotAcceptable"),
            "412": ref_to("responses", "PreconditionFailed"),
            "default": ref_to("responses", "Error"),
        },
    })
}

/// The method the examples show first: `select`, or the first entry.
fn example_entry(catalog: &Catalog) -> Option<&Entry> {
    let select = catalog.entries.iter().find(|e| e.key == "select");
    select.or(catalog.entries.first())
}

/// A shape of Reference, described, and the test for it.
type Shape = (&'static str, fn(&Entry) -> bool);

/// The entries shown as examples of a single reference: `select` (or the
/// first entry) and then the first entry of each shape not shown yet, so that
/// every form of `signature`, `parameters` and `returns` appears once.
fn single_examples(catalog: &Catalog) -> Vec<(&Entry, String)> {
    let first = example_entry(catalog);
    let shapes: [Shape; 4] = [
        (
            "Several signatures: `signature` and `parameters` are arrays",
            |e| e.signatures.len() > 1,
        ),
        (
            "One signature: `signature` is a string and `parameters` an object",
            |e| e.signatures.len() == 1 && e.parameters.is_some(),
        ),
        ("A method without parameters: no `parameters` field", |e| {
            e.parameters.is_none()
        }),
        ("A method without a `returns` field", |e| {
            e.returns.is_none()
        }),
    ];
    let mut chosen: Vec<(&Entry, String)> = Vec::new();
    let candidates = first.into_iter().chain(catalog.entries.iter());
    for entry in candidates {
        if chosen.iter().any(|(e, _)| e.key == entry.key) {
            continue;
        }
        let new_shapes: Vec<&str> = shapes
            .iter()
            .filter(|(_, test)| test(entry))
            .filter(|(_, test)| !chosen.iter().any(|(e, _)| test(e)))
            .map(|(summary, _)| *summary)
            .collect();
        if !new_shapes.is_empty() {
            chosen.push((entry, format!("`{}`. {}", entry.key, new_shapes.join("; "))));
        }
    }
    chosen
}

// ---------------------------------------------------------------------------
// Errors

/// Named examples of the ErrorResponse bodies of `kinds`, with the texts of
/// `content/errors.json`: the plain hint, and for the codes whose hint can
/// suggest a close key, the hint suggesting the first catalog key.
fn error_examples(catalog: &Catalog, kinds: &[ErrorKind]) -> Map<String, Value> {
    let mut examples = Map::new();
    let suggested = example_entry(catalog);
    for kind in kinds {
        let Some(text) = catalog.errors.iter().find(|t| t.code == kind.code()) else {
            continue;
        };
        let body = |hint: &str| -> Value {
            serde_json::from_str(&render_json::error(kind.code(), &text.message, hint))
                .expect("render_json::error renders JSON")
        };
        examples.insert(
            kind.code().to_string(),
            json!({
                "summary": format!("{} {}", kind.status(), kind.code()),
                "value": body(&text.hint),
            }),
        );
        if let (Some(template), Some(entry)) = (&text.hint_suggesting, suggested) {
            examples.insert(
                format!("{}_suggesting", kind.code()),
                json!({
                    "summary": format!(
                        "{} {}, for a name close to `{}`: the hint suggests it",
                        kind.status(),
                        kind.code(),
                        entry.key
                    ),
                    "value": body(&template.replace("{key}", &entry.key)),
                }),
            );
        }
    }
    examples
}

fn error_content(examples: Map<String, Value>) -> Value {
    let mut media = json!({ "schema": ref_to("schemas", "ErrorResponse") });
    if !examples.is_empty() {
        media["examples"] = Value::Object(examples);
    }
    json!({ JSON: media })
}

fn error_response(catalog: &Catalog, description: &str, kinds: &[ErrorKind]) -> Value {
    json!({
        "description": description,
        "headers": header_refs(&["Cache-Control", "Vary"]),
        "content": error_content(error_examples(catalog, kinds)),
    })
}

// ---------------------------------------------------------------------------
// Headers

/// The headers a CDN reads on a document and its 304 (`edge.rs`).
const FOR_THE_EDGE: [&str; 4] = [
    "CDN-Cache-Control",
    "Surrogate-Control",
    "Surrogate-Key",
    "Cache-Tag",
];

fn success_headers() -> Value {
    let before = ["ETag", "Last-Modified", "Cache-Control"];
    header_refs(&[&before[..], &FOR_THE_EDGE, &["Vary", "Link"]].concat())
}

/// The headers of a 304: its validator, how long it may be kept, what it
/// varies on.
fn not_modified_headers() -> Value {
    header_refs(&[&["ETag", "Cache-Control"][..], &FOR_THE_EDGE, &["Vary"]].concat())
}

/// The headers of a JSON document of the Reference: a success's and its
/// language.
fn reference_headers() -> Value {
    let mut headers = success_headers();
    headers["Content-Language"] = ref_to("headers", "Content-Language");
    headers
}

/// The response headers `names`, each a `$ref` to its component.
fn header_refs(names: &[&str]) -> Value {
    let refs = names
        .iter()
        .map(|name| (name.to_string(), ref_to("headers", name)));
    Value::Object(refs.collect())
}

/// `$ref`s to the parameters `names`, then to the conditional headers'.
fn parameter_refs(names: &[&str]) -> Vec<Value> {
    let conditional = ["IfMatch", "IfNoneMatch", "IfModifiedSince"];
    let names = names.iter().chain(&conditional);
    names.map(|name| ref_to("parameters", name)).collect()
}

/// `{"type": "string", "description": description}`.
fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

/// `{"$ref": "#/components/<section>/<name>"}`.
fn ref_to(section: &str, name: &str) -> Value {
    json!({ "$ref": format!("#/components/{section}/{name}") })
}
