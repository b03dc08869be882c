//! Build stage 2 (JSON): the bodies of the two JSON endpoints and of every
//! ErrorResponse, as specified in sections 2.1–2.4.
//!
//! Pure functions from the catalog to text; serde_json does the escaping.
//! Bodies are compact (the smallest bytes on the wire) and end in a newline.

use crate::address::{Address, View};
use crate::content::{Catalog, Entry, Mark, Stage};
use crate::media::MediaType;
use crate::render_markdown::page_of;
use serde_json::{json, Map, Value};

/// `GET /api/reference.json`: `{"data": [Reference…], "meta": {"count": N}}`,
/// every entry in catalog order.
pub(crate) fn collection(catalog: &Catalog) -> String {
    let data: Vec<Value> = catalog
        .entries
        .iter()
        .map(|e| reference(catalog, e))
        .collect();
    finish(&json!({ "data": data, "meta": { "count": catalog.entries.len() } }))
}

/// `GET /api/reference/{key}.json`: `{"data": Reference}`.
pub(crate) fn single(catalog: &Catalog, entry: &Entry) -> String {
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
pub(crate) fn reference(catalog: &Catalog, entry: &Entry) -> Value {
    let signature = match &*entry.signatures {
        [one] => json!(one),
        many => json!(many),
    };
    let parameters = entry.parameters.as_ref().map(|lists| {
        let mut objects = lists.iter().map(|list| {
            let object = list
                .iter()
                .map(|(label, text)| (label.clone(), json!(text)));
            Value::Object(object.collect())
        });
        match lists.len() {
            1 => objects.next().expect("one list"),
            _ => Value::Array(objects.collect()),
        }
    });
    let fields = [
        ("key", Some(json!(entry.key))),
        ("name", Some(json!(entry.name))),
        ("description", Some(json!(entry.description))),
        ("signature", Some(signature)),
        ("parameters", parameters),
        ("returns", entry.returns.as_ref().map(|text| json!(text))),
        ("note", entry.note.as_ref().map(|text| json!(text))),
        (
            "documentation_url",
            Some(json!(documentation_url(catalog, entry))),
        ),
        ("desc", Some(json!(entry.description))),
        ("url", Some(json!(page_of(&entry.key)))),
    ];
    let mut object: Map<String, Value> = fields
        .into_iter()
        .filter_map(|(name, value)| Some((name.to_string(), value?)))
        .collect();
    for (stage, mark) in entry.marks() {
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
pub(crate) fn lifecycle_mark(mark: &Mark) -> Value {
    let mut object = json!({ "version": mark.version, "date": mark.date.to_string() });
    if let Some(successor) = &mark.successor {
        object["use"] = json!(successor);
    }
    object
}

/// The absolute URL of an entry's human-readable page.
pub(crate) fn documentation_url(catalog: &Catalog, entry: &Entry) -> String {
    Address::Method(&entry.key, View::Page).url(&catalog.base_url)
}

/// `value` as every JSON document is served: compact, with a final line
/// break.
pub(crate) fn finish(value: &Value) -> String {
    let mut text = serde_json::to_string(value).expect("a serde_json::Value always serialises");
    text.push('\n');
    text
}

/// The JSON document `skeleton` with its places `{{name}}` filled in with
/// the members of `values`: a string that is one place becomes the value
/// itself, a place within a longer string the value's text (a string's
/// own, a number's digits), and so is a place within a member's name.
pub(crate) fn filled(skeleton: &str, values: &Value) -> Value {
    let document = serde_json::from_str(skeleton).expect("a skeleton is JSON");
    let values = values.as_object().expect("the values are a JSON object");
    fill_in(document, values)
}

/// `text` with each place `{{name}}` in it replaced by the value's text.
fn fill_text(text: String, values: &Map<String, Value>) -> String {
    if !text.contains("{{") {
        return text;
    }
    values.iter().fold(text, |text, (name, value)| {
        let value = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        text.replace(&format!("{{{{{name}}}}}"), &value)
    })
}

fn fill_in(value: Value, values: &Map<String, Value>) -> Value {
    match value {
        Value::String(text) if text.contains("{{") => {
            let place = text.strip_prefix("{{").and_then(|t| t.strip_suffix("}}"));
            match place.and_then(|name| values.get(name)) {
                Some(value) => value.clone(),
                None => Value::String(fill_text(text, values)),
            }
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| fill_in(v, values)).collect())
        }
        Value::Object(members) => {
            let members = members
                .into_iter()
                .map(|(k, v)| (fill_text(k, values), fill_in(v, values)));
            Value::Object(members.collect())
        }
        other => other,
    }
}

/// `/.well-known/api-catalog` (RFC 9727): a linkset naming the two APIs
/// and, for each, its description (service-desc: the OpenAPI document, the
/// MCP server card), its documentation for people (service-doc) and, for
/// machines, the Agent Skills index whose skill explains both (service-meta,
/// RFC 8631).
pub(crate) fn api_catalog(catalog: &Catalog) -> String {
    let url = |address: Address| address.url(&catalog.base_url);
    let json = MediaType::JSON.essence();
    let skills = json!([{ "href": url(Address::SkillsIndex), "type": json }]);
    let doc = json!([{
        "href": url(Address::Home(View::Page)),
        "type": MediaType::HTML.essence(),
    }]);
    finish(&json!({
        "linkset": [
            {
                "anchor": url(Address::ApiCatalog),
                "item": [
                    { "href": url(Address::Collection) },
                    { "href": url(Address::Mcp) },
                ]
            },
            {
                "anchor": url(Address::Collection),
                "service-desc": [{ "href": url(Address::OpenApi), "type": json }],
                "service-doc": doc,
                "service-meta": skills,
            },
            {
                "anchor": url(Address::Mcp),
                "service-desc": [{
                    "href": url(Address::ServerCard),
                    "type": MediaType::SERVER_CARD.content_type(),
                }],
                "service-doc": doc,
                "service-meta": skills,
            }
        ]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skeleton_s_places_are_filled_with_values_or_their_text() {
        let skeleton = r#"{"n": "{{n}}", "text": "{{n}} of {{name}}, `{key}`", "list": ["{{list}}"], "/{{name}}": 1}"#;
        let values = json!({ "n": 3, "name": "select", "list": { "a": [1] } });
        assert_eq!(
            filled(skeleton, &values),
            json!({ "n": 3, "text": "3 of select, `{key}`", "list": [{ "a": [1] }], "/select": 1 })
        );
    }
}
