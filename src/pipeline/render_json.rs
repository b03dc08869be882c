//! Build stage 2 (JSON): the bodies of the two JSON endpoints and of every
//! ErrorResponse, as specified in sections 2.1–2.4.
//!
//! Pure functions from the catalog to text; serde_json does the escaping.
//! Bodies are compact (the smallest bytes on the wire) and end in a newline.

use crate::content::{Catalog, Entry, Mark, Stage};
use crate::render_discovery;
use serde_json::{json, Map, Value};

/// `GET /api/reference.json`: `{"data": [Reference…], "meta": {"count": N}}`,
/// every entry in catalog order.
pub fn collection(catalog: &Catalog) -> String {
    let data: Vec<Value> = catalog
        .entries
        .iter()
        .map(|e| reference(catalog, e))
        .collect();
    finish(&json!({ "data": data, "meta": { "count": catalog.entries.len() } }))
}

/// `GET /api/reference/{key}.json`: `{"data": Reference}`.
pub fn single(catalog: &Catalog, entry: &Entry) -> String {
    finish(&json!({ "data": reference(catalog, entry) }))
}

/// An ErrorResponse: `{"error": {"code", "message", "hint"}}`.
pub fn error(code: &str, message: &str, hint: &str) -> String {
    finish(&json!({ "error": { "code": code, "message": message, "hint": hint } }))
}

/// One Reference object (section 2.1), fields in the order the
/// specification lists them, then the observed extras `desc` and `url`,
/// the lifecycle marks `since` and `deprecated` where the method has them
/// (extra fields, which clients must tolerate), then the optional
/// `examples` (`[{"title", "code"}]`).
pub fn reference(catalog: &Catalog, entry: &Entry) -> Value {
    let mut object = Map::new();
    object.insert("key".into(), json!(entry.key));
    object.insert("name".into(), json!(entry.name));
    object.insert("description".into(), json!(entry.description));
    let signature = match entry.signatures.as_slice() {
        [one] => json!(one),
        many => json!(many),
    };
    object.insert("signature".into(), signature);
    if let Some(lists) = &entry.parameters {
        let objects: Vec<Value> = lists
            .iter()
            .map(|list| {
                Value::Object(
                    list.iter()
                        .map(|(label, text)| (label.clone(), json!(text)))
                        .collect(),
                )
            })
            .collect();
        let parameters = match <[Value; 1]>::try_from(objects) {
            Ok([one]) => one,
            Err(many) => Value::Array(many),
        };
        object.insert("parameters".into(), parameters);
    }
    if let Some(returns) = &entry.returns {
        object.insert("returns".into(), json!(returns));
    }
    if let Some(note) = &entry.note {
        object.insert("note".into(), json!(note));
    }
    object.insert(
        "documentation_url".into(),
        json!(documentation_url(catalog, entry)),
    );
    object.insert("desc".into(), json!(entry.description));
    object.insert("url".into(), json!(page_path(entry)));
    for (stage, mark) in entry.lifecycle.marks() {
        // A removed method has no Reference; its mark is not written.
        if stage != Stage::Removed {
            object.insert(stage.field().into(), lifecycle_mark(mark));
        }
    }
    if !entry.examples.is_empty() {
        let examples: Vec<Value> = entry
            .examples
            .iter()
            .map(|e| json!({ "title": e.title, "code": e.code }))
            .collect();
        object.insert("examples".into(), Value::Array(examples));
    }
    Value::Object(object)
}

/// A lifecycle mark: `{"version", "date"}`, and `use` (the key of the
/// method to use instead) when it names one.
pub fn lifecycle_mark(mark: &Mark) -> Value {
    let mut object = Map::new();
    object.insert("version".into(), json!(mark.version));
    object.insert("date".into(), json!(mark.date.to_string()));
    if let Some(successor) = &mark.successor {
        object.insert("use".into(), json!(successor));
    }
    Value::Object(object)
}

/// `/api/<key>`: the path of an entry's human-readable page.
pub fn page_path(entry: &Entry) -> String {
    format!("/api/{}", entry.key)
}

/// `{base_url}/api/<key>`.
pub fn documentation_url(catalog: &Catalog, entry: &Entry) -> String {
    format!("{}{}", catalog.base_url, page_path(entry))
}

/// `value` as every JSON document is served: compact, with a final line
/// break.
pub fn finish(value: &Value) -> String {
    let mut text = serde_json::to_string(value).expect("a serde_json::Value always serialises");
    text.push('\n');
    text
}

/// `/.well-known/api-catalog` (RFC 9727): a linkset naming the two APIs
/// and, for each, its description (service-desc: the OpenAPI document, the
/// MCP server card), its documentation for people (service-doc) and, for
/// machines, the Agent Skills index whose skill explains both (service-meta,
/// RFC 8631).
pub fn api_catalog(catalog: &Catalog) -> String {
    let base = &catalog.base_url;
    let skills = json!([{
        "href": format!("{base}{}", render_discovery::SKILLS_INDEX_PATH),
        "type": "application/json",
    }]);
    let doc = json!([{ "href": format!("{base}/"), "type": "text/html" }]);
    finish(&json!({
        "linkset": [
            {
                "anchor": format!("{base}/.well-known/api-catalog"),
                "item": [
                    { "href": format!("{base}/api/reference.json") },
                    { "href": format!("{base}/mcp") },
                ]
            },
            {
                "anchor": format!("{base}/api/reference.json"),
                "service-desc": [{ "href": format!("{base}/openapi.json"), "type": "application/json" }],
                "service-doc": doc,
                "service-meta": skills,
            },
            {
                "anchor": format!("{base}/mcp"),
                "service-desc": [{
                    "href": format!("{base}{}", render_discovery::SERVER_CARD_PATH),
                    "type": render_discovery::SERVER_CARD_MEDIA.content_type(),
                }],
                "service-doc": doc,
                "service-meta": skills,
            }
        ]
    }))
}
