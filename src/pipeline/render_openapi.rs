//! Build stage 2 (OpenAPI): the OpenAPI 3.1 description of the two JSON
//! endpoints and of the search, `/openapi.json`.
//!
//! The document is `render_openapi/openapi.json`, with a place `{{name}}`
//! for everything that is derived: the server URL, the examples (rendered
//! by [`render_json`] from the real catalog and error texts, so they are
//! the served bodies), the error codes ([`ErrorKind::ALL`]), the name and
//! query limits, the languages and the caching headers. The document is
//! deterministic: the same content gives the same bytes.

use crate::address::{Address, View};
use crate::content::{Catalog, Entry};
use crate::edge::MAX_AGE as CDN_MAX_AGE;
use crate::errors::{ErrorKind, MAX_NAME_LEN, MAX_PATH_LEN};
use crate::render_json::{self, filled};
use crate::search_page::{MAX_QUERY_CHARS, PARAMETER};
use crate::site::CACHE_CONTROL;
use indexmap::IndexMap;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::fmt::Display;

/// The document, with a place for each value [`openapi`] derives.
const SKELETON: &str = include_str!("render_openapi/openapi.json");

/// The OpenAPI document.
pub(crate) fn openapi(catalog: &Catalog) -> String {
    let example = example_entry(catalog).map_or("select", |e| e.key.as_str());
    let page = Address::Method(example, View::Page);
    let in_each = |address: Address| {
        spans((catalog.languages.iter()).map(|l| address.localized(Some(&l.segment))))
    };
    let collection: Value = serde_json::from_str(&render_json::collection(catalog))
        .expect("render_json::collection renders JSON");
    let errors = |kinds: &[ErrorKind]| Value::Object(error_examples(catalog, kinds));
    let query_errors = [
        ErrorKind::QueryMissing,
        ErrorKind::QueryTooLong,
        ErrorKind::QueryInvalid,
    ];
    let values = json!({
        "count": catalog.entries.len(),
        "base_url": catalog.base_url,
        "collection_path": Address::Collection.to_string(),
        "document_path": Address::Document("{name}").to_string(),
        "search_path": Address::Search.to_string(),
        "source": catalog.language.tag,
        "languages": spans(catalog.languages.iter().map(|l| &l.tag)),
        "pages": in_each(page),
        "page": page.localized(None).to_string(),
        "searches": in_each(Address::Search),
        "last_language": catalog.languages.last().map_or("en", |l| l.tag.as_str()),
        "example": example,
        "collection": collection,
        "references": single_examples(catalog),
        "methods": catalog.entries.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(),
        "parameter": PARAMETER,
        "max_query_chars": MAX_QUERY_CHARS,
        "max_name_len": MAX_NAME_LEN,
        "max_path_len": MAX_PATH_LEN,
        "codes": ErrorKind::ALL.iter().map(|kind| kind.code()).collect::<Vec<_>>(),
        "last_modified": httpdate::fmt_http_date(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(catalog.last_modified),
        ),
        "cache_control": CACHE_CONTROL,
        "error_policies": error_policies(),
        "cdn_max_age": CDN_MAX_AGE,
        "not_found_errors": errors(&[ErrorKind::ReferenceNotFound]),
        "name_errors": errors(&[ErrorKind::InvalidName, ErrorKind::NameTooLong]),
        "not_acceptable_errors": errors(&[ErrorKind::NotAcceptable]),
        "precondition_errors": errors(&[ErrorKind::PreconditionFailed]),
        "uri_too_long_errors": errors(&[ErrorKind::UriTooLong]),
        "query_errors": errors(&query_errors),
        "busy_errors": errors(&[ErrorKind::Busy]),
    });
    render_json::finish(&filled(SKELETON, &values))
}

/// The Reference schema standing alone (JSON Schema 2020-12): the schemas
/// it refers to under `$defs`, as an MCP tool's `outputSchema` needs it.
pub(crate) fn reference_schema_alone() -> Value {
    let document: Value = serde_json::from_str(SKELETON).expect("the skeleton is JSON");
    let schemas = &document["components"]["schemas"];
    let text = schemas["Reference"]
        .to_string()
        .replace("#/components/schemas/", "#/$defs/");
    let mut schema: Value = serde_json::from_str(&text).expect("a schema just serialised");
    schema["$defs"] = json!({ "ParameterDescriptions": schemas["ParameterDescriptions"] });
    schema
}

/// `items` as code spans in a list: `` `en`, `zh-Hans` ``.
fn spans(items: impl Iterator<Item = impl Display>) -> String {
    let spans: Vec<String> = items.map(|item| format!("`{item}`")).collect();
    spans.join(", ")
}

/// What `Cache-Control` is on errors, by policy: `` `public, max-age=60`
/// for 400, 404, 410 and 414; `no-store` for 400 (`bad_host`), 405, 406,
/// 412, 501 and 503``.
fn error_policies() -> String {
    let mut grouped: IndexMap<&str, BTreeSet<u16>> = IndexMap::new();
    for kind in ErrorKind::ALL {
        let statuses = grouped.entry(kind.cache_control()).or_default();
        statuses.insert(kind.status());
    }
    let policies: Vec<String> = grouped
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
    policies.join("; ")
}

/// The method the examples show first: `select`, or the first entry.
fn example_entry(catalog: &Catalog) -> Option<&Entry> {
    let select = catalog.entries.iter().find(|e| e.key == "select");
    select.or(catalog.entries.first())
}

/// A shape of Reference, described, and the test for it.
type Shape = (&'static str, fn(&Entry) -> bool);

/// The named examples of a single reference: `select` (or the first
/// entry) and then the first entry of each shape not shown yet, so that
/// every form of `signature`, `parameters` and `returns` appears once.
fn single_examples(catalog: &Catalog) -> Map<String, Value> {
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
    let mut chosen: Vec<&Entry> = Vec::new();
    let mut examples = Map::new();
    let candidates = first.into_iter().chain(catalog.entries.iter());
    for entry in candidates {
        if chosen.iter().any(|e| e.key == entry.key) {
            continue;
        }
        let new_shapes: Vec<&str> = shapes
            .iter()
            .filter(|(_, test)| test(entry))
            .filter(|(_, test)| !chosen.iter().any(|e| test(e)))
            .map(|(summary, _)| *summary)
            .collect();
        if !new_shapes.is_empty() {
            chosen.push(entry);
            let summary = format!("`{}`. {}", entry.key, new_shapes.join("; "));
            let data = render_json::reference(catalog, entry);
            let example = json!({ "summary": summary, "value": { "data": data } });
            examples.insert(entry.key.clone(), example);
        }
    }
    examples
}

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
