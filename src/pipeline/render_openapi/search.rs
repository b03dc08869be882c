//! The OpenAPI description of `GET /search`: its operation, and the
//! schemas of its JSON answer and of one method found.

use super::components::{deprecated_mark, NAME_PATTERN};
use super::{error_content, error_examples, error_response, ref_to, string, success_headers};
use crate::address::Address;
use crate::content::Catalog;
use crate::errors::ErrorKind;
use crate::search_page::{MAX_QUERY_CHARS, PARAMETER};
use serde_json::{json, Value};

/// The tag of the operation.
pub(super) const TAG: &str = "Search";

/// What `q` must hold: a character that is not ASCII white space (the
/// server's word separators), written alike in every regex dialect.
const QUERY_PATTERN: &str = "[^ \\t\\n\\r\\f\\x0b]";

/// A query no method matches (the example of an empty answer).
const NOTHING: &str = "xyzzy";

/// The top-level tag.
pub(super) fn tag() -> Value {
    json!({
        "name": TAG,
        "description": "The methods for a task, found by the words of a query and ranked best \
             first, as people (an HTML page), agents (Markdown) and programs (JSON) ask for them.",
    })
}

/// `GET /search`.
pub(super) fn operation(catalog: &Catalog) -> Value {
    let names: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    let nothing = json!({
        "data": [],
        "meta": { "query": NOTHING, "count": 0, "suggestions": [], "methods": names },
    });
    let tags: Vec<String> = (catalog.languages.iter())
        .map(|l| format!("`{}`", l.tag))
        .collect();
    let own: Vec<String> = (catalog.languages.iter())
        .map(|l| Address::Search.localized(Some(&l.segment)).to_string())
        .collect();
    let mut success = success_headers();
    success["X-Robots-Tag"] = json!({
        "description": "`noindex`: a page of search results is not a page to list.",
        "schema": { "type": "string" },
    });
    json!({
        "operationId": "searchMethods",
        "tags": [TAG],
        "summary": "Search the methods",
        "description": format!(
            "Finds the methods for a task asked in words, best first: the words are looked for \
             in the methods' names, descriptions, signatures, parameters, return values, notes, \
             examples and common synonyms, with the same ranking as the MCP tool `search`. \
             `Accept` chooses the answer: HTML (a results page; preferred, so browsers get it), \
             `text/markdown`, or `application/json`. Answers are sent uncompressed, vary on \
             `Accept` (and at `/search` on `Accept-Language`) and may be cached like the \
             documents; the query, normalised \
             (one space between words, letters in their case), is part of their `ETag`. For an HTML \
             answer, a query that is exactly a method's name is redirected (`303`) to its \
             page; JSON and Markdown clients get the results. Of the {} methods, every one \
             found is listed; when none is, the answer says so, offers the names closest to \
             the query's words, and names every method.\n\n\
             The answer is in one of the site's languages ({languages}): at `/search` the one \
             `Accept-Language` prefers (the source's, `{source}`, when it prefers none), at a \
             language's own address (`{own}`) that language's, whatever is asked; \
             `Content-Language` of an HTML or Markdown answer says which.",
            catalog.entries.len(),
            languages = tags.join(", "),
            source = catalog.language.tag,
            own = own.join("`, `"),
        ),
        "parameters": [
            {
                "name": PARAMETER,
                "in": "query",
                "required": true,
                "description": format!(
                    "What to find, in words: at least one character that is not white \
                     space, at most {MAX_QUERY_CHARS}. No other parameter is taken, and `q` \
                     only once."
                ),
                "schema": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_CHARS,
                    "pattern": QUERY_PATTERN,
                },
                "example": "count rows",
            },
            {
                "name": "Accept-Language",
                "in": "header",
                "required": false,
                "description": format!(
                    "At `/search`, the language of the answer, among {}; ignored at a \
                     language's own address.",
                    tags.join(", ")
                ),
                "schema": { "type": "string" },
                "example": catalog.languages.last().map_or("en", |l| l.tag.as_str()),
            },
            ref_to("parameters", "IfMatch"),
            ref_to("parameters", "IfNoneMatch"),
            ref_to("parameters", "IfModifiedSince"),
        ],
        "responses": {
            "200": {
                "description": "The methods found, best first.",
                "headers": success,
                "content": {
                    "application/json": {
                        "schema": ref_to("schemas", "SearchResults"),
                        "examples": { "nothing": {
                            "summary": "A query no method matches: `meta` names every method",
                            "value": nothing,
                        } },
                    },
                    "text/html": { "schema": { "type": "string" } },
                    "text/markdown": { "schema": { "type": "string" } },
                },
            },
            "303": {
                "description": "An HTML answer to a query that is exactly a method's name: \
                     its page.",
                "headers": {
                    "Location": {
                        "description": "The method's page, `/api/{name}`.",
                        "schema": { "type": "string" },
                    },
                    "Cache-Control": ref_to("headers", "Cache-Control"),
                    "Vary": ref_to("headers", "Vary"),
                },
            },
            "304": ref_to("responses", "NotModified"),
            "400": error_response(
                catalog,
                "No query or an empty one (`query_missing`), one longer than allowed \
                 (`query_too_long`), or a query string with another parameter, `q` twice or \
                 text that is not percent-encoded UTF-8 (`query_invalid`). A browser gets the \
                 error as a page with the search box. The answer may be cached for a minute.",
                &[ErrorKind::QueryMissing, ErrorKind::QueryTooLong, ErrorKind::QueryInvalid],
            ),
            "406": ref_to("responses", "NotAcceptable"),
            "412": ref_to("responses", "PreconditionFailed"),
            "503": {
                "description": "The server's memory budget cannot hold the answer now \
                     (`busy`); retry after `Retry-After` seconds. Caches do not store it.",
                "headers": {
                    "Retry-After": {
                        "description": "Seconds to wait before retrying.",
                        "schema": { "type": "integer", "minimum": 0 },
                    },
                    "Cache-Control": ref_to("headers", "Cache-Control"),
                },
                "content": error_content(error_examples(catalog, &[ErrorKind::Busy])),
            },
            "default": ref_to("responses", "Error"),
        },
    })
}

/// The JSON answer, and one method found in it.
pub(super) fn schemas() -> [(&'static str, Value); 2] {
    let results = json!({
        "type": "object",
        "description": "The methods a query found, best first.",
        "required": ["data", "meta"],
        "properties": {
            "data": {
                "type": "array",
                "description": "The methods found, best first; empty when none is.",
                "items": ref_to("schemas", "SearchHit"),
            },
            "meta": {
                "type": "object",
                "required": ["query", "count"],
                "properties": {
                    "query": string(
                        "The query as read: decoded, one space between words, letters in \
                         their case."
                    ),
                    "count": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "The number of methods in `data`.",
                    },
                    "suggestions": {
                        "type": "array",
                        "items": { "type": "string" },
                        "description": "When nothing is found: the names closest to the \
                             query's words (maybe none).",
                    },
                    "methods": {
                        "type": "array",
                        "items": { "type": "string" },
                        "description": "When nothing is found: every method's name.",
                    },
                },
            },
        },
    });
    let hit = json!({
        "type": "object",
        "description": "One method found: the members of its Reference that say what it is \
             and where it is documented, and why it matched.",
        "required": ["key", "name", "description", "signature", "documentation_url", "url", "why"],
        "properties": {
            "key": { "type": "string", "pattern": NAME_PATTERN },
            "name": { "type": "string" },
            "description": { "type": "string" },
            "signature": {
                "oneOf": [
                    { "type": "string" },
                    { "type": "array", "items": { "type": "string" }, "minItems": 2 },
                ],
            },
            "documentation_url": { "type": "string", "format": "uri" },
            "url": { "type": "string" },
            "deprecated": deprecated_mark(),
            "why": string("Which words of the query matched, and where."),
        },
    });
    [("SearchResults", results), ("SearchHit", hit)]
}
