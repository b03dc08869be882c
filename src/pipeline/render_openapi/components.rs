//! The OpenAPI description's `components`: the response headers, the
//! `name` parameter, the shared responses and the schemas, which the
//! operations in `render_openapi.rs` refer to by `$ref`.

use super::{error_response, example_entry, not_modified_headers, ref_to, string};
use crate::content::Catalog;
use crate::edge::MAX_AGE as CDN_MAX_AGE;
use crate::errors::{ErrorKind, MAX_NAME_LEN, MAX_PATH_LEN};
use crate::site::CACHE_CONTROL;
use indexmap::IndexMap;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// `{name}`: a catalog key (specification §4.2).
pub(super) const NAME_PATTERN: &str = "^[a-z]+$";

/// A parameter label, `<name> [<type>]` optionally followed by ` (optional)`,
/// the types separated by `/` (specification §2.1; enforced by `content.rs`).
const LABEL_PATTERN: &str = r"^[a-z][a-z0-9_]* \[[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\]( \(optional\))?$";

/// `returns` starts with the type in square brackets.
const RETURNS_PATTERN: &str = r"^\[[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\]";

fn headers(catalog: &Catalog) -> Value {
    let last_modified = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(catalog.last_modified),
    );
    // `public, max-age=60` for 400, 404, 410 and 414; `no-store` for 400
    // (`bad_host`), 405, 406, 412, 501 and 503.
    let mut grouped: IndexMap<&str, BTreeSet<u16>> = IndexMap::new();
    for kind in ErrorKind::ALL {
        let statuses = grouped.entry(kind.cache_control()).or_default();
        statuses.insert(kind.status());
    }
    let error_policies: Vec<String> = grouped
        .into_iter()
        .map(|(policy, statuses)| {
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
            "description": "When a file the reference is built from last changed; the \
                 same for every resource of a deployment.",
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
        "CDN-Cache-Control": {
            "description": "How long a CDN may keep the document (RFC 9213): far longer than \
                 browsers, since a deploy purges what it changed (`Surrogate-Key`), and served stale \
                 through an origin outage. Errors carry none.",
            "schema": { "type": "string" },
            "example": format!(
                "public, max-age={CDN_MAX_AGE}, stale-while-revalidate=86400, \
                 stale-if-error=86400"
            ),
        },
        "Surrogate-Control": {
            "description": "`CDN-Cache-Control`'s lifetime, for the CDNs that read this \
                 header instead (Fastly).",
            "schema": { "type": "string" },
        },
        "Surrogate-Key": {
            "description": "The purge tags of the document, space-separated: `build:<hash>`, \
                 `method:<key>`, its kind (`page`, `markdown`, `json`, `openapi`, `search`…), \
                 `lang:<tag>`, and `list` on what names every method. A CDN purges by them \
                 what a deploy changed (`refserve changes`).",
            "schema": { "type": "string" },
            "example": "build:0123456789abcdef method:select json lang:en",
        },
        "Cache-Tag": {
            "description": "`Surrogate-Key`'s tags, comma-separated, as Cloudflare reads them.",
            "schema": { "type": "string" },
        },
        "Vary": {
            "description": "The request headers the representation depends on.",
            "schema": { "type": "string" },
            "example": "Accept-Encoding",
        },
        "Content-Language": {
            "description": "The language of the document: the Reference's source language, \
                 whatever `Accept-Language` asks.",
            "schema": { "type": "string" },
            "example": catalog.language.tag,
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

pub(super) fn components(catalog: &Catalog) -> Value {
    json!({
        "schemas": schemas(),
        "parameters": parameters(catalog),
        "headers": headers(catalog),
        "responses": responses(catalog),
    })
}

fn parameters(catalog: &Catalog) -> Value {
    let example = example_entry(catalog).map_or("select", |e| e.key.as_str());
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
        "IfMatch": header_parameter(
            "If-Match",
            "Entity tags (a list, or `*`). When none matches the current \
                 representation (strong comparison: a `W/` tag never does), the answer is 412, \
                 whatever `If-None-Match` says.",
        ),
        "IfNoneMatch": header_parameter(
            "If-None-Match",
            "Entity tags from earlier responses (a list, or `*`). When one \
                 matches the current representation (weak comparison), the answer is 304 \
                 without a body.",
        ),
        "IfModifiedSince": header_parameter(
            "If-Modified-Since",
            "An HTTP date. When the resource has not changed since then, the \
                 answer is 304 without a body. Ignored when `If-None-Match` is present or \
                 when the value is not a valid date.",
        ),
    })
}

/// An optional request header, a string.
fn header_parameter(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "header",
        "required": false,
        "description": description,
        "schema": { "type": "string" },
    })
}

fn responses(catalog: &Catalog) -> Value {
    json!({
        "NotModified": {
            "description": "The representation has not changed since the one the client \
                 holds (`If-None-Match` or `If-Modified-Since`): no body.",
            "headers": not_modified_headers(),
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
        "PreconditionFailed": error_response(
            catalog,
            "`If-Match` names no entity tag of the representation that would be sent (code \
             `precondition_failed`). Caches do not store this answer.",
            &[ErrorKind::PreconditionFailed],
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
    let mut schemas = json!({
        "Reference": reference_schema(),
        "ParameterDescriptions": parameter_descriptions_schema(),
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
                        "message": string("What went wrong, for people. The request is never echoed."),
                        "hint": string("What to do next, for people."),
                    },
                },
            },
        },
    });
    for (name, schema) in super::search::schemas() {
        schemas[name] = schema;
    }
    schemas
}

fn parameter_descriptions_schema() -> Value {
    json!({
        "type": "object",
        "description": "The parameters of one signature, in signature order. Each label \
             reads `<name> [<type>]`, optionally followed by ` (optional)`; a type may \
             list alternatives separated by `/` (for example `array/string`). Each value \
             describes the parameter.",
        "propertyNames": { "pattern": LABEL_PATTERN },
        "additionalProperties": { "type": "string" },
    })
}

/// The Reference schema standing alone (JSON Schema 2020-12): the schemas
/// it refers to under `$defs`, as an MCP tool's `outputSchema` needs it.
pub(crate) fn reference_schema_alone() -> Value {
    let text = reference_schema()
        .to_string()
        .replace("#/components/schemas/", "#/$defs/");
    let mut schema: Value = serde_json::from_str(&text).expect("a schema just serialised");
    schema["$defs"] = json!({ "ParameterDescriptions": parameter_descriptions_schema() });
    schema
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
            "name": string("Method name (equal to `key`)."),
            "description": string("One- or two-sentence summary."),
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
            "note": string("Additional remark; may contain inline `<code>` tags."),
            "documentation_url": {
                "type": "string",
                "format": "uri",
                "description": "Absolute link to the human-readable page, `{base_url}/api/<key>`.",
            },
            "desc": string("Same text as `description`, kept for existing clients."),
            "url": {
                "type": "string",
                "format": "uri-reference",
                "description": "Path of the human-readable page, `/api/<key>`, kept for existing clients.",
            },
            "since": mark(
                "Optional: the version of the library the method came in, and its day.",
                "1.2",
            ),
            "deprecated": deprecated_mark(),
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

/// The schema of `deprecated`, in a Reference and in a search's hit.
pub(super) fn deprecated_mark() -> Value {
    let mut schema = mark(
        "Present when the method is deprecated: the version it was deprecated in, its \
         day, and the method to use instead, if any. A removed method has no \
         Reference: its document answers 404, its hint naming the successor.",
        "2.0",
    );
    schema["properties"]["use"] = json!({
        "type": "string",
        "pattern": NAME_PATTERN,
        "description": "The key of the method to use instead.",
    });
    schema
}

/// The schema of a lifecycle mark: the library's version (`like` it) and
/// its day.
fn mark(description: &str, like: &str) -> Value {
    json!({
        "type": "object",
        "description": description,
        "required": ["version", "date"],
        "properties": {
            "version": { "type": "string", "description": format!("The library's version, like `{like}`.") },
            "date": { "type": "string", "format": "date" },
        },
    })
}
