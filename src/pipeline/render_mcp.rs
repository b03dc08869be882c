//! Build stage 2 (MCP): every fixed answer of `/mcp`, in both eras' forms
//! (`mcp.rs`), and each method as a search result, in each language.
//!
//! Pure functions of the catalogs. The texts a tool returns are the site's
//! own: a method's Markdown page (in each language), its Reference object,
//! `llms.txt` and `llms-full.txt`. This file writes the answers;
//! `render_mcp/tools.json` describes the tools, `render_mcp/readable.rs` the
//! resources.
//!
//! A tool asked in a `locale` answers in the language negotiated for it:
//! `list_methods` and `get_method` from answers stored per language (keyed
//! by the language's segment), `search` from the [`Edition`] of that
//! language; `_meta` then says which locale was served and how each
//! method's translation stands ([`Served`], [`Standing`]). Asked without
//! one, they answer in the source's language as they always have.

mod readable;

use crate::address::{Address, View};
use crate::content::{fill, Catalog, Editions, Entry, Status};
use crate::mcp::{
    answer_key, Answer, Edition, Era, Hit, Mcp, Members, Served, Standing, DEFAULT_LIMIT,
    HANDSHAKE_VERSIONS, MODERN_VERSION, TTL_MS,
};
use crate::render_json::{self, filled};
use crate::render_markdown;
use crate::render_openapi::reference_schema_alone;
use crate::search::{self, MAX_QUERY_BYTES};
use bytes::Bytes;
use readable::Readable;
use serde_json::{json, Value};

/// The server's name in `serverInfo`.
const SERVER_NAME: &str = "refserve";

/// The three tools as `tools/list` describes them: what each does, its
/// input and output schemas and its annotations, with a place for each
/// value [`tools`] derives.
const TOOLS: &str = include_str!("render_mcp/tools.json");

/// Every answer of `/mcp` for `editions`.
pub(crate) fn render(editions: &Editions) -> Mcp {
    let catalog = editions.source();
    // Each language's method pages, the source's first.
    let pages: Vec<Vec<Readable>> = editions.catalogs.iter().map(readable::pages).collect();
    let files = readable::files(catalog);
    let searched: Vec<Edition> = editions.catalogs.iter().map(edition).collect();
    let mut answers = Vec::new();
    let mut add = |key: String, result: Value| answers.push(answer(key, &result));
    let tool = |argument: &str| answer_key("tools/call", argument);
    let discover = json!({
        "supportedVersions": [MODERN_VERSION],
        "capabilities": capabilities(),
        "instructions": instructions(editions),
    });
    add("server/discover".into(), discover);
    add("ping".into(), json!({}));
    add("tools/list".into(), json!({ "tools": tools(editions) }));
    // The source's pages, its files, then each other language's pages.
    let every: Vec<&Readable> = pages[0]
        .iter()
        .chain(&files)
        .chain(pages[1..].iter().flatten())
        .collect();
    add("resources/list".into(), json!({ "resources": every }));
    let templates = json!({ "resourceTemplates": [] });
    add("resources/templates/list".into(), templates);
    let list = list_methods(catalog, &searched[0], None);
    add(tool("list_methods"), list);
    for version in HANDSHAKE_VERSIONS {
        let initialize = json!({
            "protocolVersion": version,
            "capabilities": capabilities(),
            "serverInfo": {
                "name": SERVER_NAME,
                "title": catalog.site.title,
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": instructions(editions),
        });
        add(answer_key("initialize", version), initialize);
    }
    for (entry, page) in catalog.entries.iter().zip(&pages[0]) {
        let key = tool(&format!("get_method {}", entry.key));
        add(key, got(catalog, entry, page));
    }
    // Each tool asked in a `locale`, for each language (the source's too):
    // `list_methods` with its descriptions in it, `get_method` with each
    // method's page in it (or in English, saying so), its facts the
    // Reference's, as in English; `_meta` saying which locale was served
    // and how its translation stands.
    let localized = editions.catalogs.iter().zip(&pages).zip(&searched);
    for ((translation, readable), searched) in localized {
        let segment = &translation.language.segment;
        let served = Served::of(&translation.language.tag, &searched.hits);
        let list = list_methods(translation, searched, Some(served));
        add(tool(&format!("list_methods {segment}")), list);
        let methods = translation
            .entries
            .iter()
            .zip(&catalog.entries)
            .zip(readable);
        for ((entry, original), page) in methods {
            let mut answer = got(catalog, original, page);
            answer["_meta"] = translated(translation, entry);
            add(tool(&format!("get_method {} {segment}", entry.key)), answer);
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
        add(tool(&format!("get_method {}", entry.key)), removed);
    }
    for page in every {
        let contents = json!({ "contents": [page.contents()] });
        add(answer_key("resources/read", &page.uri), contents);
    }
    answers.sort_by(|a, b| a.key.cmp(&b.key));
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    Mcp {
        answers,
        index: search::index(editions),
        editions: searched,
        modern_members: members(&finish(json!({}), Era::Modern, false)),
        methods_json: serde_json::value::to_raw_value(&keys).expect("strings always serialise"),
    }
}

/// The answer `key` (its first word the method), `result` in the form of
/// each era that has the method: the handshake (`initialize`, `ping`) is
/// legacy, `server/discover` modern. Lists, reads and `server/discover`
/// may be kept.
fn answer(key: String, result: &Value) -> Answer {
    let method = key.split(' ').next().unwrap_or_default();
    let cached =
        method.ends_with("/list") || matches!(method, "resources/read" | "server/discover");
    let form = |era: Era, has: bool| {
        let bytes = has.then(|| finish(result.clone(), era, cached));
        Bytes::from(bytes.unwrap_or_default())
    };
    Answer {
        legacy: form(Era::Legacy, method != "server/discover"),
        modern: form(Era::Modern, !matches!(method, "initialize" | "ping")),
        key,
    }
}

/// What `_meta` says of `entry` of `catalog` in its language: the locale,
/// and how its translation stands.
fn translated(catalog: &Catalog, entry: &Entry) -> Value {
    json!({
        "locale": catalog.language.tag,
        "translation": standing(&entry.translation),
    })
}

/// `get_method`'s answer for `entry` of the source's catalog, its page
/// being `page` (in any language): the page's Markdown, a link to it, the
/// method's Reference object.
fn got(catalog: &Catalog, entry: &Entry, page: &Readable) -> Value {
    json!({
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
    })
}

/// The address of a page of `catalog` as `/mcp` names it: the source's
/// at the address that negotiates the language (as before there were
/// languages, so that its answers stay the same), another language's at
/// its own (`/zh-hans/api/select.md`).
fn url(catalog: &Catalog, address: Address) -> String {
    if catalog.is_source() {
        address.url(&catalog.base_url)
    } else {
        catalog.at(address).url(&catalog.base_url)
    }
}

/// How `status`, a translation's, stands as `_meta` names it.
fn standing(status: &Status) -> Standing {
    match status {
        Status::Source | Status::Current => Standing::Current,
        Status::Outdated(_) => Standing::Outdated,
        Status::Untranslated => Standing::Untranslated,
    }
}

/// What `search` answers with in `catalog`'s language: each method as
/// `list_methods` and `search` give it, and the texts around them.
fn edition(catalog: &Catalog) -> Edition {
    let words = &catalog.language.chrome;
    let markdown_of = |key: &str| url(catalog, Address::Method(key, View::Markdown));
    let hits = (catalog.entries.iter())
        .map(|entry| {
            let page = url(catalog, Address::Method(&entry.key, View::Page));
            // One method as `list_methods` and `search` give it; a
            // deprecated one says so (`deprecated`, as in its Reference).
            let mut summary = json!({
                "name": entry.key,
                "description": entry.description,
                "signatures": &*entry.signatures,
                "url": page,
            });
            if let Some(mark) = &entry.deprecated {
                summary["deprecated"] = render_json::lifecycle_mark(mark);
            }
            let standing = standing(&entry.translation);
            let shown = match standing {
                Standing::Current => "",
                Standing::Outdated => words.mcp_outdated.as_str(),
                Standing::Untranslated => words.mcp_untranslated.as_str(),
            };
            // Its Markdown lines in a list: name and description (and how
            // its translation stands), then its signatures and address.
            let signatures: Vec<String> =
                entry.signatures.iter().map(|s| format!("`{s}`")).collect();
            let text = format!(
                "**{}**: {}{}{shown}\n   {} — {page}\n",
                entry.key,
                render_markdown::paragraph(&entry.description_md, &markdown_of),
                render_markdown::deprecation(words, entry, &markdown_of),
                signatures.join(", "),
            );
            Hit {
                key: entry.key.clone(),
                standing,
                members: members(&summary.to_string()),
                text,
            }
        })
        .collect();
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    Edition {
        hits,
        found_text: format!("{}\n\n", words.mcp_found),
        // How search reads a query, and every method to pick from.
        no_match_text: format!(
            "{}\n",
            fill(&words.mcp_nothing, &[("methods", &keys.join(", "))])
        ),
    }
}

/// `list_methods` in `catalog`'s language: every method as a search gives
/// it, `searched.hits`; `_meta` saying what was `served` when asked in a
/// locale.
fn list_methods(catalog: &Catalog, searched: &Edition, served: Option<Served>) -> Value {
    let words = &catalog.language.chrome;
    let count = searched.hits.len().to_string();
    let heading = fill(&words.mcp_methods, &[("count", &count)]);
    let items: String = searched
        .hits
        .iter()
        .map(|hit| format!("- {}", hit.text))
        .collect();
    let text = format!("{heading}\n\n{items}\n{}\n", words.mcp_methods_end);
    let methods: Vec<&Members> = searched.hits.iter().map(|hit| &hit.members).collect();
    let mut result = json!({
        "content": [{ "type": "text", "text": text }],
        "structuredContent": { "methods": methods },
    });
    if let Some(served) = served {
        result["_meta"] = json!(served);
    }
    result
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
        // Beside what the result says of itself (a locale), if anything.
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

/// What a client's model is told about the server; with several
/// languages, of the `locale` every tool takes too.
fn instructions(editions: &Editions) -> String {
    let catalog = editions.source();
    let locale = if editions.catalogs.len() < 2 {
        String::new()
    } else {
        format!(
            " Each tool takes an optional `locale` (a BCP 47 tag such as `zh-CN`) and answers in \
             the language it chooses among {}, English when none matches; `_meta` says which was \
             served.",
            locales(editions)
        )
    };
    format!(
        "{}: {} Use `search` to find the methods for a task (a question in plain words), \
         `get_method` for one method's whole reference, `list_methods` for all {} at a glance. \
         Every answer is read-only documentation; nothing here touches a database.{locale}",
        catalog.site.title.trim_end_matches('.'),
        catalog.site.summary,
        catalog.entries.len(),
    )
}

/// The tools, `TOOLS` with the catalog's methods, the languages served and
/// the search's limits in it.
fn tools(editions: &Editions) -> Value {
    let catalog = editions.source();
    let keys: Vec<&str> = catalog.entries.iter().map(|e| e.key.as_str()).collect();
    let values = json!({
        "count": catalog.entries.len(),
        "locales": locales(editions),
        "keys": keys,
        "reference": reference_schema_alone(),
        "max_query_bytes": MAX_QUERY_BYTES,
        "default_limit": DEFAULT_LIMIT,
    });
    filled(TOOLS, &values)
}

/// The tags of the languages served, the source's first: `en, zh-Hans`.
fn locales(editions: &Editions) -> String {
    let tags: Vec<&str> = editions
        .languages()
        .into_iter()
        .map(|l| l.tag.as_str())
        .collect();
    tags.join(", ")
}
