//! Build stage 2 (MCP): every fixed answer of `/mcp`, in both eras' forms
//! (`mcp.rs`), and each method as a search result.
//!
//! Pure functions of the catalog. The texts a tool returns are the site's
//! own: a method's Markdown page, its Reference object, `llms.txt` and
//! `llms-full.txt`.

use crate::address::{Address, View};
use crate::content::{Catalog, Editions, Entry, Status};
use crate::mcp::{
    answer_key, Answer, Era, Hit, Mcp, Members, DEFAULT_LIMIT, HANDSHAKE_VERSIONS, MODERN_VERSION,
    TTL_MS,
};
use crate::render_json;
use crate::render_openapi::reference_schema_alone;
use crate::search::{self, MAX_QUERY_BYTES};
use crate::{render_llms, render_markdown};
use bytes::Bytes;
use serde::Serialize;
use serde_json::{json, Value};

/// The server's name in `serverInfo`.
const SERVER_NAME: &str = "refserve";

/// Every answer of `/mcp` for `catalog`.
pub(crate) fn render(editions: &Editions) -> Mcp {
    let catalog = editions.source();
    const LEGACY: &[Era] = &[Era::Legacy];
    const BOTH: &[Era] = &[Era::Legacy, Era::Modern];
    let readable = readable(catalog);
    let markdown_of = |key: &str| Address::Method(key, View::Markdown).url(&catalog.base_url);
    let hits: Vec<Hit> = (catalog.entries.iter())
        .map(|entry| {
            // One method as `list_methods` and `search` give it; a
            // deprecated one says so (`deprecated`, as in its Reference).
            let mut summary = json!({
                "name": entry.key,
                "description": entry.description,
                "signatures": &*entry.signatures,
                "url": render_json::documentation_url(catalog, entry),
            });
            if let Some(mark) = &entry.deprecated {
                summary["deprecated"] = render_json::lifecycle_mark(mark);
            }
            // Its Markdown lines in a list: name and description, then its
            // signatures and address.
            let signatures: Vec<String> =
                entry.signatures.iter().map(|s| format!("`{s}`")).collect();
            let text = format!(
                "**{}**: {}{}\n   {} — {}\n",
                entry.key,
                render_markdown::paragraph(&entry.description_md, &markdown_of),
                render_markdown::deprecation(&catalog.language.chrome, entry, &markdown_of),
                signatures.join(", "),
                render_json::documentation_url(catalog, entry),
            );
            let members = members(&summary.to_string());
            Hit { members, text }
        })
        .collect();
    let mut answers = Vec::new();
    // `result` in the form of each era of `eras`, nothing in the other.
    let mut add = |key: &str, result: Value, eras: &[Era], cached: bool| {
        let form = |era: Era| {
            if eras.contains(&era) {
                Bytes::from(finish(result.clone(), era, cached))
            } else {
                Bytes::new()
            }
        };
        answers.push(Answer {
            key: key.to_string(),
            legacy: form(Era::Legacy),
            modern: form(Era::Modern),
        });
    };
    let discover = json!({
        "supportedVersions": [MODERN_VERSION],
        "capabilities": capabilities(),
        "instructions": instructions(catalog),
    });
    add("server/discover", discover, &[Era::Modern], true);
    add("ping", json!({}), LEGACY, false);
    add(
        "tools/list",
        json!({ "tools": tools(editions) }),
        BOTH,
        true,
    );
    let resources = json!({ "resources": readable });
    add("resources/list", resources, BOTH, true);
    let templates = json!({ "resourceTemplates": [] });
    add("resources/templates/list", templates, BOTH, true);
    let list = list_methods(&hits);
    add(&answer_key("tools/call", "list_methods"), list, BOTH, false);
    for version in HANDSHAKE_VERSIONS {
        let initialize = json!({
            "protocolVersion": version,
            "capabilities": capabilities(),
            "serverInfo": {
                "name": SERVER_NAME,
                "title": catalog.site.title,
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": instructions(catalog),
        });
        let key = answer_key("initialize", version);
        add(&key, initialize, LEGACY, false);
    }
    let get_method = |entry: &Entry| answer_key("tools/call", &format!("get_method {}", entry.key));
    for (entry, page) in catalog.entries.iter().zip(&readable) {
        // The method's Markdown page, a link to it, its Reference object.
        let got = json!({
            "content": [
                { "type": "text", "text": page.text },
                {
                    "type": "resource_link",
                    "uri": page.uri,
                    "name": page.name,
                    "title": page.title,
                    "description": page.description,
                    "mimeType": page.mime_type,
                },
            ],
            "structuredContent": render_json::reference(catalog, entry),
        });
        add(&get_method(entry), got, BOTH, false);
    }
    // Each method's page in each other language, for `get_method` asked in
    // that `locale`: the page in it (or in English, saying so), its facts
    // the Reference's, as in English, and `_meta` saying which locale was
    // served and how its translation stands.
    for translation in &editions.catalogs[1..] {
        let language = &translation.language;
        for (entry, original) in translation.entries.iter().zip(&catalog.entries) {
            let twin = translation.at(Address::Method(&entry.key, View::Markdown));
            let status = match &entry.translation {
                Status::Outdated(_) => "outdated",
                Status::Untranslated => "untranslated",
                Status::Current | Status::Source => "current",
            };
            let got = json!({
                "content": [
                    { "type": "text", "text": render_markdown::method(translation, entry) },
                    {
                        "type": "resource_link",
                        "uri": twin.url(&catalog.base_url),
                        "name": entry.key,
                        "title": format!("{} — {}", entry.name, language.name),
                        "description": entry.description,
                        "mimeType": "text/markdown",
                    },
                ],
                "structuredContent": render_json::reference(catalog, original),
                "_meta": { "locale": language.tag, "translation": status },
            });
            let key = format!("get_method {} {}", entry.key, language.segment);
            add(&answer_key("tools/call", &key), got, BOTH, false);
        }
    }
    for entry in &catalog.removed {
        // The tool's error, saying when and what to use instead.
        let mark =
            (entry.removed.as_ref()).expect("`catalog.removed` holds only methods marked removed");
        let instead = match &mark.successor {
            Some(key) => format!("; use `{key}` instead (get_method gives its reference)"),
            None => " and has no successor; list_methods gives the methods there are".to_string(),
        };
        let text = format!(
            "The method `{}` was removed from the library in version {}{instead}.",
            entry.key, mark.version
        );
        let removed = json!({ "content": [{ "type": "text", "text": text }], "isError": true });
        add(&get_method(entry), removed, BOTH, false);
    }
    for page in &readable {
        let read = json!({ "contents": [{
            "uri": page.uri, "mimeType": page.mime_type, "text": page.text,
        }] });
        add(&answer_key("resources/read", &page.uri), read, BOTH, true);
    }
    answers.sort_by(|a, b| a.key.cmp(&b.key));
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    // What a search that finds nothing says: how search reads a query, and
    // every method to pick from.
    let no_match_text = format!(
        "No method matches the query. Search looks for its words in the methods' names, \
         descriptions, signatures, parameters, return values, notes, examples and the names \
         other libraries use; try other words, or pick from these (get_method gives one whole, \
         list_methods all with their descriptions): {}.\n",
        keys.join(", ")
    );
    Mcp {
        answers,
        index: search::index(editions),
        hits,
        modern_members: members(&finish(json!({}), Era::Modern, false)),
        no_match_text,
        methods_json: serde_json::value::to_raw_value(&keys).expect("strings always serialise"),
    }
}

/// The result's bytes in `era`'s form: modern results (every result is an
/// object) say they are complete and name the server, and lists and reads
/// (`cached`) how long they may be kept, by anyone.
fn finish(mut value: Value, era: Era, cached: bool) -> String {
    if era == Era::Modern {
        value["resultType"] = json!("complete");
        if cached {
            value["ttlMs"] = json!(TTL_MS);
            value["cacheScope"] = json!("public");
        }
        let server = json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") });
        // Beside what the result says of itself (a locale).
        if !value["_meta"].is_object() {
            value["_meta"] = json!({});
        }
        value["_meta"]["io.modelcontextprotocol/serverInfo"] = server;
    }
    serde_json::to_string(&value).expect("a serde_json::Value always serialises")
}

/// The members of `object`, the text of a JSON object, each value as written.
fn members(object: &str) -> Members {
    serde_json::from_str(object).expect("serde_json writes a Value::Object as a JSON object")
}

fn capabilities() -> Value {
    json!({
        "tools": { "listChanged": false },
        "resources": { "subscribe": false, "listChanged": false },
    })
}

/// What a client's model is told about the server.
fn instructions(catalog: &Catalog) -> String {
    format!(
        "{}: {} Use `search` to find the methods for a task (a question in plain words), \
         `get_method` for one method's whole reference, `list_methods` for all {} at a glance. \
         Every answer is read-only documentation; nothing here touches a database.",
        catalog.site.title.trim_end_matches('.'),
        catalog.site.summary,
        catalog.entries.len(),
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

fn tools(editions: &Editions) -> Value {
    let catalog = editions.source();
    let locales: Vec<&str> = editions
        .languages()
        .into_iter()
        .map(|l| l.tag.as_str())
        .collect();
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    let count = catalog.entries.len();
    // In the order of `TOOLS`.
    json!([
        {
            "name": "list_methods",
            "title": "List every method",
            "description": format!(
                "Every one of the {count} documented methods with its one-line description, \
                 its call signatures and the address of its page."
            ),
            "inputSchema": { "type": "object", "additionalProperties": false },
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
                 With `locale` ({}), the page in that language; `_meta` then says which \
                 locale was served and whether its translation is current, outdated or \
                 missing (the page in English).",
                locales.join(", ")
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
                    "locale": {
                        "type": "string",
                        "description": format!(
                            "Optional: the reader's language as a BCP 47 tag (like \
                             Accept-Language: `zh-CN`, `zh-Hans`, `en`), chosen among {} as \
                             the pages' Accept-Language is; English when none matches.",
                            locales.join(", ")
                        ),
                    },
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
                 forgiven; at most {MAX_QUERY_BYTES} bytes of the query are read."
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

/// One resource: its entry in `resources/list` (ending with its text's
/// `size`) and its text.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Readable {
    uri: String,
    name: String,
    title: String,
    description: String,
    mime_type: &'static str,
    size: usize,
    #[serde(skip)]
    text: String,
}

/// Every resource, each rendered once: the method pages, then `llms.txt`
/// and `llms-full.txt` (as served: `text/plain`).
fn readable(catalog: &Catalog) -> Vec<Readable> {
    let mut list: Vec<Readable> = catalog
        .entries
        .iter()
        .map(|entry| {
            let text = render_markdown::method(catalog, entry);
            Readable {
                uri: Address::Method(&entry.key, View::Markdown).url(&catalog.base_url),
                name: entry.key.clone(),
                title: format!("{} — method reference", entry.name),
                description: entry.description.clone(),
                mime_type: "text/markdown",
                size: text.len(),
                text,
            }
        })
        .collect();
    let files = [
        (
            "llms.txt",
            "Index for agents",
            "Where everything is: every method's Markdown page, the JSON API and the OpenAPI \
             description.",
            render_llms::llms(catalog, None),
        ),
        (
            "llms-full.txt",
            "The whole reference",
            "Every method's page in one Markdown document, after the homepage's introduction: \
             for reading or searching the reference at once.",
            render_llms::llms_full(catalog),
        ),
    ];
    list.extend(files.map(|(name, title, description, text)| Readable {
        uri: format!("{}/{name}", catalog.base_url),
        name: name.into(),
        title: title.into(),
        description: description.into(),
        mime_type: "text/plain",
        size: text.len(),
        text,
    }));
    list
}

/// `list_methods`: every method as a search gives it, `hits`.
fn list_methods(hits: &[Hit]) -> Value {
    let mut text = format!("The {} documented methods:\n\n", hits.len());
    for hit in hits {
        text.push_str("- ");
        text.push_str(&hit.text);
    }
    text.push_str("\nget_method gives one method's whole reference.\n");
    let methods: Vec<&Members> = hits.iter().map(|hit| &hit.members).collect();
    json!({
        "content": [{ "type": "text", "text": text }],
        "structuredContent": { "methods": methods },
    })
}
