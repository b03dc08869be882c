//! Build stage 2 (OpenAPI): the OpenAPI 3.1 description of the two JSON
//! endpoints, `/openapi.json`.
//!
//! Everything that can be derived is derived: the server URL, the examples
//! (rendered by [`render_json`] from the real catalog and error texts, so
//! they are the served bodies), the error codes ([`ErrorKind::ALL`]), the
//! name limits and the caching headers. The document is deterministic: the
//! same content gives the same bytes.

use crate::content::{Catalog, Entry};
use crate::errors::{ErrorKind, MAX_NAME_LEN, MAX_PATH_LEN};
use crate::render_json;
use crate::site::CACHE_CONTROL;
use serde_json::{json, Map, Value};

/// The version of the API description (specification §9).
const API_VERSION: &str = "2.6.0";

/// The one media type of both endpoints.
const JSON: &str = "application/json";

/// The only tag (specification §4).
const TAG: &str = "Reference";

/// `{name}`: a catalog key (specification §4.2).
const NAME_PATTERN: &str = "^[a-z]+$";

/// A parameter label, `<name> [<type>]` optionally followed by ` (optional)`,
/// the types separated by `/` (specification §2.1; enforced by `content.rs`).
const LABEL_PATTERN: &str = r"^[a-z][a-z0-9_]* \[[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\]( \(optional\))?$";

/// `returns` starts with the type in square brackets.
const RETURNS_PATTERN: &str = r"^\[[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\]";

/// The OpenAPI document.
pub fn openapi(catalog: &Catalog) -> String {
    let document = json!({
        "openapi": "3.1.0",
        "info": info(catalog),
        "servers": [{
            "url": catalog.base_url,
            "description": "The origin that serves the method reference (the address its documentation_url links point to).",
        }],
        "security": [],
        "tags": [{
            "name": TAG,
            "description": "Machine-readable reference entries of the library's methods: one entry per method, or all of them at once.",
        }],
        "paths": {
            "/api/reference.json": { "get": list_operation(catalog) },
            "/api/reference/{name}.json": { "get": get_operation(catalog) },
        },
        "components": components(catalog),
    });
    let mut text = serde_json::to_string(&document).expect("a serde_json::Value always serialises");
    text.push('\n');
    text
}

fn info(catalog: &Catalog) -> Value {
    let description = format!(
        "A read-only HTTP API that publishes the reference of a PHP database access library: \
         for each of its {count} documented methods the call signatures, what every parameter \
         means, what the method returns, remarks, and a link to the human-readable page. \
         It documents the library; it never connects to a database or runs a query.\n\n\
         Every body is rendered when the service is built, so responses are identical for \
         identical requests and cheap to cache. Successful responses carry a strong `ETag` \
         and `Last-Modified`; send them back in `If-None-Match` or `If-Modified-Since` and an \
         unchanged resource answers `304 Not Modified`. Bodies are sent in `br`, `gzip` or \
         identity coding according to `Accept-Encoding`.\n\n\
         No authentication is needed and none is accepted. Both endpoints also answer `HEAD` \
         (the same headers, no body) and `OPTIONS` (`204` with `Allow`); any other method is \
         refused with `405` and the code `method_not_allowed`. Every error body is an \
         `ErrorResponse` whose `error.code` is stable and whose `error.hint` says what to do \
         next.",
        count = catalog.entries.len()
    );
    json!({
        "title": "Method Reference API",
        "summary": "Read-only JSON reference of a PHP database access library's methods.",
        "description": description,
        "version": API_VERSION,
        "license": { "name": "MIT", "identifier": "MIT" },
    })
}

// ---------------------------------------------------------------------------
// Operations

fn list_operation(catalog: &Catalog) -> Value {
    let data: Vec<Value> = catalog
        .entries
        .iter()
        .map(|entry| render_json::reference(catalog, entry))
        .collect();
    let example = json!({ "data": data, "meta": { "count": catalog.entries.len() } });
    json!({
        "operationId": "listApiReferences",
        "tags": [TAG],
        "summary": "List every method reference",
        "description": format!(
            "Returns all {} reference entries in catalog order, in one response: there is no \
             pagination and no query parameter.",
            catalog.entries.len()
        ),
        "parameters": [ref_to("parameters", "IfNoneMatch"), ref_to("parameters", "IfModifiedSince")],
        "responses": {
            "200": {
                "description": "The whole catalog.",
                "headers": success_headers(),
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
            "default": ref_to("responses", "Error"),
        },
    })
}

fn get_operation(catalog: &Catalog) -> Value {
    let mut examples = Map::new();
    for (entry, summary) in single_examples(catalog) {
        examples.insert(
            entry.key.clone(),
            json!({
                "summary": summary,
                "value": { "data": render_json::reference(catalog, entry) },
            }),
        );
    }
    let not_found = error_examples(catalog, &[ErrorKind::ReferenceNotFound]);
    json!({
        "operationId": "getApiReference",
        "tags": [TAG],
        "summary": "Get one method reference",
        "description": "Returns the reference entry of the method whose key is `name`, for \
             example `select`. Percent-encoded unreserved characters in the path are decoded \
             first, and a query string is ignored.",
        "parameters": [
            ref_to("parameters", "Name"),
            ref_to("parameters", "IfNoneMatch"),
            ref_to("parameters", "IfModifiedSince"),
        ],
        "responses": {
            "200": {
                "description": "The reference entry of the method.",
                "headers": success_headers(),
                "content": { JSON: {
                    "schema": ref_to("schemas", "SingleReference"),
                    "examples": examples,
                } },
            },
            "304": ref_to("responses", "NotModified"),
            "400": ref_to("responses", "InvalidName"),
            "404": {
                "description": "`name` is well formed but no method has that key (code \
                     `reference_not_found`). When one key is close to it, the hint suggests \
                     that key. The answer may be cached for a minute.",
                "headers": error_headers(),
                "content": error_content(not_found),
            },
            "406": ref_to("responses", "NotAcceptable"),
            "default": ref_to("responses", "Error"),
        },
    })
}

/// A shape of Reference, described, and the test for it.
type Shape = (&'static str, fn(&Entry) -> bool);

/// The entries shown as examples of a single reference: `select` (or the
/// first entry) and then the first entry of each shape not shown yet, so that
/// every form of `signature`, `parameters` and `returns` appears once.
fn single_examples(catalog: &Catalog) -> Vec<(&Entry, String)> {
    let first = catalog
        .entries
        .iter()
        .find(|e| e.key == "select")
        .or_else(|| catalog.entries.first());
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
    let suggested = catalog
        .entries
        .iter()
        .find(|e| e.key == "select")
        .or_else(|| catalog.entries.first());
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
    let mut media = Map::new();
    media.insert("schema".into(), ref_to("schemas", "ErrorResponse"));
    if !examples.is_empty() {
        media.insert("examples".into(), Value::Object(examples));
    }
    json!({ JSON: media })
}

fn error_response(catalog: &Catalog, description: &str, kinds: &[ErrorKind]) -> Value {
    json!({
        "description": description,
        "headers": error_headers(),
        "content": error_content(error_examples(catalog, kinds)),
    })
}

// ---------------------------------------------------------------------------
// Headers

fn success_headers() -> Value {
    json!({
        "ETag": ref_to("headers", "ETag"),
        "Last-Modified": ref_to("headers", "Last-Modified"),
        "Cache-Control": ref_to("headers", "Cache-Control"),
        "Vary": ref_to("headers", "Vary"),
        "Link": ref_to("headers", "Link"),
    })
}

fn error_headers() -> Value {
    json!({
        "Cache-Control": ref_to("headers", "Cache-Control"),
        "Vary": ref_to("headers", "Vary"),
    })
}

fn headers(catalog: &Catalog) -> Value {
    let last_modified = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(catalog.last_modified),
    );
    // `public, max-age=60` for 400, 404 and 414; `no-store` for 405 and 406.
    let mut grouped: Vec<(&str, Vec<u16>)> = Vec::new();
    for kind in ErrorKind::ALL {
        let statuses = match grouped.iter_mut().find(|(p, _)| *p == kind.cache_control()) {
            Some((_, statuses)) => statuses,
            None => {
                grouped.push((kind.cache_control(), Vec::new()));
                &mut grouped.last_mut().expect("just pushed").1
            }
        };
        if !statuses.contains(&kind.status()) {
            statuses.push(kind.status());
        }
    }
    let error_policies: Vec<String> = grouped
        .into_iter()
        .map(|(policy, mut statuses)| {
            statuses.sort_unstable();
            let statuses: Vec<String> = statuses.iter().map(u16::to_string).collect();
            let statuses = match statuses.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => statuses.join(""),
            };
            format!("`{policy}` for {statuses}")
        })
        .collect();
    json!({
        "ETag": {
            "description": "Strong entity tag of the representation, different for each \
                 content coding. Send it in `If-None-Match` to revalidate.",
            "schema": { "type": "string" },
        },
        "Last-Modified": {
            "description": "When the reference was last published; the same for every \
                 resource of a deployment.",
            "schema": { "type": "string" },
            "example": last_modified,
        },
        "Cache-Control": {
            "description": format!(
                "How long shared caches may keep the answer: `{CACHE_CONTROL}` for 200 and 304; \
                 for errors {}. The documents change only when a new build is deployed.",
                error_policies.join("; ")
            ),
            "schema": { "type": "string" },
            "example": CACHE_CONTROL,
        },
        "Vary": {
            "description": "The request headers the representation depends on.",
            "schema": { "type": "string" },
            "example": "Accept-Encoding",
        },
        "Link": {
            "description": "Points to this OpenAPI description (RFC 8631, relation `service-desc`).",
            "schema": { "type": "string" },
            "example": format!("<{}/openapi.json>; rel=\"service-desc\"", catalog.base_url),
        },
    })
}

// ---------------------------------------------------------------------------
// Components

fn components(catalog: &Catalog) -> Value {
    json!({
        "schemas": schemas(),
        "parameters": parameters(catalog),
        "headers": headers(catalog),
        "responses": responses(catalog),
    })
}

fn parameters(catalog: &Catalog) -> Value {
    let example = catalog
        .entries
        .iter()
        .find(|e| e.key == "select")
        .or_else(|| catalog.entries.first())
        .map_or("select", |e| e.key.as_str());
    json!({
        "Name": {
            "name": "name",
            "in": "path",
            "required": true,
            "description": format!(
                "The key of a documented method: lowercase letters only, at most \
                 {MAX_NAME_LEN}. `GET /api/reference.json` lists every key."
            ),
            "schema": { "type": "string", "pattern": NAME_PATTERN, "maxLength": MAX_NAME_LEN },
            "example": example,
        },
        "IfNoneMatch": {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "Entity tags from earlier responses (a list, or `*`). When one \
                 matches the current representation (weak comparison), the answer is 304 \
                 without a body.",
            "schema": { "type": "string" },
        },
        "IfModifiedSince": {
            "name": "If-Modified-Since",
            "in": "header",
            "required": false,
            "description": "An HTTP date. When the resource has not changed since then, the \
                 answer is 304 without a body. Ignored when `If-None-Match` is present or \
                 when the value is not a valid date.",
            "schema": { "type": "string" },
        },
    })
}

fn responses(catalog: &Catalog) -> Value {
    json!({
        "NotModified": {
            "description": "The representation has not changed since the one the client \
                 holds (`If-None-Match` or `If-Modified-Since`): no body.",
            "headers": {
                "ETag": ref_to("headers", "ETag"),
                "Cache-Control": ref_to("headers", "Cache-Control"),
                "Vary": ref_to("headers", "Vary"),
            },
        },
        "InvalidName": error_response(
            catalog,
            &format!(
                "`name` does not match `{NAME_PATTERN}` (code `invalid_name`; when one key \
                 is close to it, the hint suggests that key), or it has more than \
                 {MAX_NAME_LEN} letters (code `name_too_long`). The answer may be cached \
                 for a minute."
            ),
            &[ErrorKind::InvalidName, ErrorKind::NameTooLong],
        ),
        "NotAcceptable": error_response(
            catalog,
            "`Accept` rules out `application/json`, or `Accept-Encoding` rules out every \
             content coding, identity included (code `not_acceptable`). Caches do not store \
             this answer.",
            &[ErrorKind::NotAcceptable],
        ),
        "Error": error_response(
            catalog,
            &format!(
                "Any other error, with an ErrorResponse body; for example `414` with the code \
                 `uri_too_long` when the request path is longer than {MAX_PATH_LEN} bytes."
            ),
            &[ErrorKind::UriTooLong],
        ),
    })
}

fn schemas() -> Value {
    let codes: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.code()).collect();
    json!({
        "Reference": reference_schema(),
        "ParameterDescriptions": {
            "type": "object",
            "description": "The parameters of one signature, in signature order. Each label \
                 reads `<name> [<type>]`, optionally followed by ` (optional)`; a type may \
                 list alternatives separated by `/` (for example `array/string`). Each value \
                 describes the parameter.",
            "propertyNames": { "pattern": LABEL_PATTERN },
            "additionalProperties": { "type": "string" },
        },
        "ReferenceCollection": {
            "type": "object",
            "description": "Every reference entry, in catalog order.",
            "required": ["data", "meta"],
            "properties": {
                "data": {
                    "type": "array",
                    "description": "All entries.",
                    "items": ref_to("schemas", "Reference"),
                },
                "meta": {
                    "type": "object",
                    "required": ["count"],
                    "properties": {
                        "count": {
                            "type": "integer",
                            "minimum": 0,
                            "description": "The number of entries in `data`.",
                        },
                    },
                },
            },
        },
        "SingleReference": {
            "type": "object",
            "description": "One reference entry.",
            "required": ["data"],
            "properties": { "data": ref_to("schemas", "Reference") },
        },
        "ErrorResponse": {
            "type": "object",
            "description": "The body of every error response.",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["code", "message", "hint"],
                    "properties": {
                        "code": {
                            "type": "string",
                            "description": "Stable, machine-readable code of the error.",
                            "enum": codes,
                        },
                        "message": {
                            "type": "string",
                            "description": "What went wrong, for people. The request is never echoed.",
                        },
                        "hint": {
                            "type": "string",
                            "description": "What to do next, for people.",
                        },
                    },
                },
            },
        },
    })
}

fn reference_schema() -> Value {
    json!({
        "type": "object",
        "description": "The reference entry of one library method. Clients must tolerate \
             fields not listed here.",
        "required": ["key", "name", "description", "signature", "documentation_url"],
        "properties": {
            "key": {
                "type": "string",
                "pattern": NAME_PATTERN,
                "description": "Lowercase identifier of the method: the `{name}` of its path.",
            },
            "name": {
                "type": "string",
                "description": "Method name (equal to `key`).",
            },
            "description": {
                "type": "string",
                "description": "One- or two-sentence summary.",
            },
            "signature": {
                "description": "The call form, or the call forms of an overloaded method.",
                "oneOf": [
                    { "type": "string" },
                    { "type": "array", "items": { "type": "string" }, "minItems": 2 },
                ],
            },
            "parameters": {
                "description": "Parameter descriptions: an object for a method with one \
                     signature, an array of objects (one per signature, in the order of \
                     `signature`) for an overloaded method. Absent when the method takes no \
                     parameters.",
                "oneOf": [
                    ref_to("schemas", "ParameterDescriptions"),
                    {
                        "type": "array",
                        "items": ref_to("schemas", "ParameterDescriptions"),
                        "minItems": 2,
                    },
                ],
            },
            "returns": {
                "type": "string",
                "pattern": RETURNS_PATTERN,
                "description": "The return value, starting with its type in square brackets \
                     (for example `[array]`). Absent for methods that document none.",
            },
            "note": {
                "type": "string",
                "description": "Additional remark; may contain inline `<code>` tags.",
            },
            "documentation_url": {
                "type": "string",
                "format": "uri",
                "description": "Absolute link to the human-readable page, `{base_url}/api/<key>`.",
            },
            "desc": {
                "type": "string",
                "description": "Same text as `description`, kept for existing clients.",
            },
            "url": {
                "type": "string",
                "format": "uri-reference",
                "description": "Path of the human-readable page, `/api/<key>`, kept for existing clients.",
            },
            "examples": {
                "type": "array",
                "description": "Optional: short PHP snippets that call the method, each with \
                     a one-line title. The code has no `<?php` opener; the library instance is \
                     `$database`.",
                "items": {
                    "type": "object",
                    "required": ["title", "code"],
                    "properties": {
                        "title": { "type": "string", "description": "What the example does." },
                        "code": { "type": "string", "description": "The PHP statements." },
                    },
                },
            },
        },
        "additionalProperties": true,
    })
}

/// `{"$ref": "#/components/<section>/<name>"}`.
fn ref_to(section: &str, name: &str) -> Value {
    json!({ "$ref": format!("#/components/{section}/{name}") })
}
