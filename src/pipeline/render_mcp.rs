//! Build stage 2 (MCP): every fixed answer of `/mcp`, in both eras' forms
//! (`mcp.rs`), and each method as a search result.
//!
//! Pure functions of the catalog. The texts a tool returns are the site's
//! own: a method's Markdown page, its Reference object, `llms.txt` and
//! `llms-full.txt`.

use crate::address::{Address, View};
use crate::content::{Catalog, Entry};
use crate::mcp::{
    answer_key, Answer, Era, Hit, Mcp, Members, DEFAULT_LIMIT, HANDSHAKE_VERSIONS, MODERN_VERSION,
    TOOLS, TTL_MS,
};
use crate::render_json;
use crate::render_openapi::reference_schema_alone;
use crate::search::{self, MAX_QUERY_BYTES};
use crate::{render_llms, render_markdown};
use serde_json::{json, Map, Value};

/// The server's name in `serverInfo`.
const SERVER_NAME: &str = "refserve";

/// Every answer of `/mcp` for `catalog`.
pub(crate) fn render(catalog: &Catalog) -> Mcp {
    let mut answers: Vec<Answer> = Vec::new();
    let mut add = |key: String, legacy: Option<Value>, modern: Option<Value>, cached: bool| {
        let bytes = |value: Option<Value>, era: Era| match value {
            Some(value) => finish(value, era, cached).into_bytes(),
            None => Vec::new(),
        };
        answers.push(Answer {
            key,
            legacy: bytes(legacy, Era::Legacy).into(),
            modern: bytes(modern, Era::Modern).into(),
        });
    };
    for version in HANDSHAKE_VERSIONS {
        add(
            answer_key("initialize", version),
            Some(initialize(catalog, version)),
            None,
            false,
        );
    }
    add(
        answer_key("server/discover", ""),
        None,
        Some(discover(catalog)),
        true,
    );
    add(answer_key("ping", ""), Some(json!({})), None, false);
    let tools = json!({ "tools": tools(catalog) });
    add(
        answer_key("tools/list", ""),
        Some(tools.clone()),
        Some(tools),
        true,
    );
    let readable = readable(catalog);
    let listed: Vec<Value> = readable.iter().map(Readable::listed).collect();
    let resources = json!({ "resources": listed });
    add(
        answer_key("resources/list", ""),
        Some(resources.clone()),
        Some(resources),
        true,
    );
    let templates = json!({ "resourceTemplates": [] });
    add(
        answer_key("resources/templates/list", ""),
        Some(templates.clone()),
        Some(templates),
        true,
    );
    let list = list_methods(catalog);
    add(
        answer_key("tools/call", "list_methods"),
        Some(list.clone()),
        Some(list),
        false,
    );
    for entry in &catalog.entries {
        let method = get_method(catalog, entry);
        add(
            answer_key("tools/call", &format!("get_method {}", entry.key)),
            Some(method.clone()),
            Some(method),
            false,
        );
    }
    for entry in &catalog.removed {
        let gone = removed_method(entry);
        add(
            answer_key("tools/call", &format!("get_method {}", entry.key)),
            Some(gone.clone()),
            Some(gone),
            false,
        );
    }
    for resource in &readable {
        let read = json!({ "contents": [{
            "uri": resource.uri, "mimeType": resource.mime, "text": resource.text,
        }] });
        add(
            answer_key("resources/read", &resource.uri),
            Some(read.clone()),
            Some(read),
            true,
        );
    }
    answers.sort_by(|a, b| a.key.cmp(&b.key));
    Mcp {
        answers,
        index: search::index(catalog),
        hits: catalog.entries.iter().map(|e| hit(catalog, e)).collect(),
        modern_members: members(&finish(json!({}), Era::Modern, false)),
        no_match_text: no_match_text(catalog),
        methods_json: serde_json::value::to_raw_value(
            &catalog.entries.iter().map(|e| &e.key).collect::<Vec<_>>(),
        )
        .expect("strings always serialise"),
    }
}

/// The result's bytes in `era`'s form: modern results say they are
/// complete and name the server, and lists and reads (`cached`) how long
/// they may be kept, by anyone.
fn finish(mut value: Value, era: Era, cached: bool) -> String {
    if era == Era::Modern {
        let object = value.as_object_mut().expect("every result is an object");
        object.insert("resultType".into(), json!("complete"));
        if cached {
            object.insert("ttlMs".into(), json!(TTL_MS));
            object.insert("cacheScope".into(), json!("public"));
        }
        object.insert(
            "_meta".into(),
            json!({ "io.modelcontextprotocol/serverInfo": server_info() }),
        );
    }
    serde_json::to_string(&value).expect("a serde_json::Value always serialises")
}

/// The members of `object`, the text of a JSON object, each value as written.
fn members(object: &str) -> Members {
    serde_json::from_str(object).expect("serde_json writes a Value::Object as a JSON object")
}

fn server_info() -> Value {
    json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") })
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

fn initialize(catalog: &Catalog, version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": {
            "name": SERVER_NAME,
            "title": catalog.site.title,
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": instructions(catalog),
    })
}

fn discover(catalog: &Catalog) -> Value {
    json!({
        "supportedVersions": [MODERN_VERSION],
        "capabilities": capabilities(),
        "instructions": instructions(catalog),
    })
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

/// The structured form of one method in a list or a search.
fn summary_schema(extra: &[(&str, Value)]) -> Value {
    let mut properties = Map::new();
    properties.insert(
        "name".into(),
        json!({ "type": "string", "description": "The method's name, also the `name` of get_method." }),
    );
    properties.insert("description".into(), json!({ "type": "string" }));
    properties.insert(
        "signatures".into(),
        json!({ "type": "array", "items": { "type": "string" }, "minItems": 1 }),
    );
    properties.insert(
        "url".into(),
        json!({ "type": "string", "format": "uri", "description": "The method's page." }),
    );
    properties.insert(
        "deprecated".into(),
        json!({
            "type": "object",
            "description": "Present when the method is deprecated: the version, its day and \
                the method to use instead (`use`), if any; as in the Reference.",
        }),
    );
    let mut required = vec![
        json!("name"),
        json!("description"),
        json!("signatures"),
        json!("url"),
    ];
    for (name, schema) in extra {
        properties.insert((*name).into(), schema.clone());
        required.push(json!(name));
    }
    json!({ "type": "object", "required": required, "properties": properties })
}

fn tools(catalog: &Catalog) -> Vec<Value> {
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    let count = catalog.entries.len();
    let tool = |name: &str| -> Value {
        match name {
            "list_methods" => json!({
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
            }),
            "get_method" => json!({
                "name": "get_method",
                "title": "Read one method's reference",
                "description": "One method's whole reference: its page in Markdown (signatures, \
                     parameters, return value, notes, examples), a link to the page, and the same \
                     facts as the Reference object of /openapi.json in structured content.",
                "inputSchema": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {
                            "type": "string",
                            "description": "The method's name, lowercase (as list_methods and search give it).",
                            "enum": keys,
                        },
                    },
                    "additionalProperties": false,
                },
                "outputSchema": reference_schema_alone(),
                "annotations": annotations("Read one method's reference"),
            }),
            _ => json!({
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
            }),
        }
    };
    TOOLS.iter().map(|name| tool(name)).collect()
}

/// The address of a method's Markdown page.
fn markdown_uri(catalog: &Catalog, entry: &Entry) -> String {
    Address::Method(&entry.key, View::Markdown).url(&catalog.base_url)
}

/// One resource: its entry in `resources/list` and its text.
struct Readable {
    uri: String,
    name: String,
    title: String,
    description: String,
    mime: &'static str,
    text: String,
}

impl Readable {
    /// Its entry in `resources/list`.
    fn listed(&self) -> Value {
        json!({
            "uri": self.uri,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime,
            "size": self.text.len(),
        })
    }
}

/// Every resource, each rendered once: the method pages, then `llms.txt`
/// and `llms-full.txt` (as served: `text/plain`).
fn readable(catalog: &Catalog) -> Vec<Readable> {
    let mut list: Vec<Readable> = catalog
        .entries
        .iter()
        .map(|entry| Readable {
            uri: markdown_uri(catalog, entry),
            name: entry.key.clone(),
            title: format!("{} — method reference", entry.name),
            description: entry.description.clone(),
            mime: "text/markdown",
            text: render_markdown::method(catalog, entry),
        })
        .collect();
    list.push(Readable {
        uri: format!("{}/llms.txt", catalog.base_url),
        name: "llms.txt".into(),
        title: "Index for agents".into(),
        description: "Where everything is: every method's Markdown page, the JSON API and the \
            OpenAPI description."
            .into(),
        mime: "text/plain",
        text: render_llms::llms(catalog),
    });
    list.push(Readable {
        uri: format!("{}/llms-full.txt", catalog.base_url),
        name: "llms-full.txt".into(),
        title: "The whole reference".into(),
        description: "Every method's page in one Markdown document, after the homepage's \
            introduction: for reading or searching the reference at once."
            .into(),
        mime: "text/plain",
        text: render_llms::llms_full(catalog),
    });
    list
}

/// One method as `list_methods` and `search` give it; a deprecated one
/// says so (`deprecated`, as in its Reference).
fn summary(catalog: &Catalog, entry: &Entry) -> Value {
    let mut summary = json!({
        "name": entry.key,
        "description": entry.description,
        "signatures": &*entry.signatures,
        "url": render_json::documentation_url(catalog, entry),
    });
    if let Some(mark) = &entry.deprecated {
        summary["deprecated"] = render_json::lifecycle_mark(mark);
    }
    summary
}

/// One method's Markdown lines in a list: name and description, then its
/// signatures and address.
fn summary_text(catalog: &Catalog, entry: &Entry) -> String {
    let signatures: Vec<String> = entry.signatures.iter().map(|s| format!("`{s}`")).collect();
    let markdown_of = |key: &str| Address::Method(key, View::Markdown).url(&catalog.base_url);
    format!(
        "**{}**: {}{}\n   {} — {}\n",
        entry.key,
        render_markdown::paragraph(&entry.description_md, &markdown_of),
        render_markdown::deprecation(entry, &markdown_of),
        signatures.join(", "),
        render_json::documentation_url(catalog, entry),
    )
}

fn list_methods(catalog: &Catalog) -> Value {
    let mut text = format!("The {} documented methods:\n\n", catalog.entries.len());
    for entry in &catalog.entries {
        text.push_str("- ");
        text.push_str(&summary_text(catalog, entry));
    }
    text.push_str("\nget_method gives one method's whole reference.\n");
    let methods: Vec<Value> = catalog
        .entries
        .iter()
        .map(|e| summary(catalog, e))
        .collect();
    json!({
        "content": [{ "type": "text", "text": text }],
        "structuredContent": { "methods": methods },
    })
}

fn get_method(catalog: &Catalog, entry: &Entry) -> Value {
    json!({
        "content": [
            { "type": "text", "text": render_markdown::method(catalog, entry) },
            {
                "type": "resource_link",
                "uri": markdown_uri(catalog, entry),
                "name": entry.key,
                "title": format!("{} — method reference", entry.name),
                "description": entry.description,
                "mimeType": "text/markdown",
            },
        ],
        "structuredContent": render_json::reference(catalog, entry),
    })
}

/// `get_method` of a method removed from the library: the tool's error,
/// saying when and what to use instead.
fn removed_method(entry: &Entry) -> Value {
    let mark =
        (entry.removed.as_ref()).expect("`catalog.removed` holds only methods marked removed");
    let (version, successor) = (mark.version.as_str(), mark.successor.as_deref());
    let instead = match successor {
        Some(key) => format!("; use `{key}` instead (get_method gives its reference)"),
        None => " and has no successor; list_methods gives the methods there are".to_string(),
    };
    json!({
        "content": [{
            "type": "text",
            "text": format!(
                "The method `{}` was removed from the library in version {version}{instead}.",
                entry.key
            ),
        }],
        "isError": true,
    })
}

/// What a search that finds nothing says: how search reads a query, and
/// every method to pick from.
fn no_match_text(catalog: &Catalog) -> String {
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    format!(
        "No method matches the query. Search looks for its words in the methods' names, \
         descriptions, signatures, parameters, return values, notes, examples and the names \
         other libraries use; try other words, or pick from these (get_method gives one whole, \
         list_methods all with their descriptions): {}.\n",
        keys.join(", ")
    )
}

fn hit(catalog: &Catalog, entry: &Entry) -> Hit {
    Hit {
        members: members(&summary(catalog, entry).to_string()),
        text: summary_text(catalog, entry),
    }
}
