//! The three tools as `tools/list` describes them: what each does, its
//! input and output schemas and its annotations; and `locale`, which every
//! tool takes, described once ([`locale`]) with the languages served.

use crate::content::Editions;
use crate::mcp::DEFAULT_LIMIT;
use crate::render_openapi::reference_schema_alone;
use crate::search::MAX_QUERY_BYTES;
use serde_json::{json, Value};

/// The tags of the languages served, the source's first: `en, zh-Hans`.
fn locales(editions: &Editions) -> String {
    let tags: Vec<&str> = editions
        .languages()
        .into_iter()
        .map(|l| l.tag.as_str())
        .collect();
    tags.join(", ")
}

/// `locale` in a tool's input schema, the same in every tool.
fn locale(editions: &Editions) -> Value {
    json!({
        "type": "string",
        "description": format!(
            "Optional: the reader's language as a BCP 47 tag (like Accept-Language: `zh-CN`, \
             `zh-Hans`, `en`), chosen among {} as the pages' Accept-Language is; English when \
             none matches.",
            locales(editions)
        ),
    })
}

/// What instructions and the skill say of `locale`: a sentence, with a
/// space before it; nothing when the site has one language.
pub(super) fn locales_sentence(editions: &Editions) -> String {
    if editions.catalogs.len() < 2 {
        return String::new();
    }
    format!(
        " Each tool takes an optional `locale` (a BCP 47 tag such as `zh-CN`) and answers in \
         the language it chooses among {}, English when none matches; `_meta` says which was \
         served.",
        locales(editions)
    )
}

/// Read-only, idempotent, closed-world: what every tool here is.
fn annotations(title: &str) -> Value {
    json!({
        "title": title,
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false,
    })
}

/// The structured form of one method in a list or a search, with the
/// `extra` properties (required too).
fn summary_schema(extra: &[(&str, Value)]) -> Value {
    let mut schema = json!({
        "type": "object",
        "required": ["name", "description", "signatures", "url"],
        "properties": {
            "name": { "type": "string", "description": "The method's name, also the `name` of get_method." },
            "description": { "type": "string" },
            "signatures": { "type": "array", "items": { "type": "string" }, "minItems": 1 },
            "url": { "type": "string", "format": "uri", "description": "The method's page." },
            "deprecated": {
                "type": "object",
                "description": "Present when the method is deprecated: the version, its day and \
                    the method to use instead (`use`), if any; as in the Reference.",
            },
        },
    });
    for (name, property) in extra {
        schema["properties"][*name] = property.clone();
        if let Value::Array(required) = &mut schema["required"] {
            required.push(json!(name));
        }
    }
    schema
}

/// The tools, in the order of `TOOLS`.
pub(super) fn tools(editions: &Editions) -> Value {
    let catalog = editions.source();
    let locales = locales(editions);
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    let count = catalog.entries.len();
    json!([
        {
            "name": "list_methods",
            "title": "List every method",
            "description": format!(
                "Every one of the {count} documented methods with its one-line description, \
                 its call signatures and the address of its page. With `locale` ({locales}), \
                 the descriptions and addresses in that language; `_meta` then says which \
                 locale was served and lists the methods shown in English as not translated \
                 yet (`untranslated`) and those whose translation is `outdated`."
            ),
            "inputSchema": {
                "type": "object",
                "properties": { "locale": locale(editions) },
                "additionalProperties": false,
            },
            "outputSchema": {
                "type": "object",
                "required": ["methods"],
                "properties": { "methods": { "type": "array", "items": summary_schema(&[]) } },
            },
            "annotations": annotations("List every method"),
        },
        {
            "name": "get_method",
            "title": "Read one method's reference",
            "description": format!(
                "One method's whole reference: its page in Markdown (signatures, parameters, \
                 return value, notes, examples), a link to the page, and the same facts as the \
                 Reference object of /openapi.json in structured content (always English). \
                 With `locale` ({locales}), the page in that language; `_meta` then says which \
                 locale was served and whether its translation is current, outdated or \
                 missing (the page in English)."
            ),
            "inputSchema": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {
                        "type": "string",
                        "description": "The method's name, lowercase (as list_methods and search give it).",
                        "enum": keys,
                    },
                    "locale": locale(editions),
                },
                "additionalProperties": false,
            },
            "outputSchema": reference_schema_alone(),
            "annotations": annotations("Read one method's reference"),
        },
        {
            "name": "search",
            "title": "Search the reference",
            "description": format!(
                "Find the methods for a task, asked in plain words (\"count rows that match\", \
                 \"undo several writes if one fails\"). Returns the best matches first, each \
                 with why it matched, its signatures and its address; when nothing matches, \
                 says so and lists every method. Ranked over names, descriptions, parameters, \
                 return values, notes, examples (their titles, operators such as `[>]` and clause \
                 keys such as `ORDER`) and the names other libraries use; typos and accents are \
                 forgiven; at most {MAX_QUERY_BYTES} bytes of the query are read. The query may \
                 be in any of {locales}. With `locale`, the answer is in that language; `_meta` \
                 then says which locale was served and lists the methods found shown in English \
                 as not translated yet (`untranslated`) and those whose translation is \
                 `outdated`."
            ),
            "inputSchema": {
                "type": "object",
                "required": ["query"],
                "properties": {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "description": "What you want to do or know, in words.",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": count,
                        "default": DEFAULT_LIMIT,
                        "description": "The most methods to return.",
                    },
                    "locale": locale(editions),
                },
                "additionalProperties": false,
            },
            "outputSchema": {
                "type": "object",
                "required": ["query", "results"],
                "properties": {
                    "query": { "type": "string" },
                    "results": {
                        "type": "array",
                        "description": "The matches, best first; empty when nothing matched.",
                        "items": summary_schema(&[
                            ("why", json!({ "type": "string", "description": "Which words matched, and where." })),
                            ("score", json!({ "type": "number" })),
                        ]),
                    },
                    "methods": {
                        "type": "array",
                        "items": { "type": "string" },
                        "description": "Every method's name; only when nothing matched.",
                    },
                },
            },
            "annotations": annotations("Search the reference"),
        },
    ])
}
