//! `tools/call`: the three tools' arguments checked, and their answers —
//! stored by the pipeline for `list_methods` and `get_method`, completed
//! here for `search` from each method's stored pieces.
//!
//! Every tool takes an optional `locale`, negotiated among the table's
//! languages as `Accept-Language` is ([`locale`]): asked in one, a tool
//! answers from the stored answer of that language (keyed by its segment)
//! or, for `search`, from its `Edition`, with `_meta` saying what was
//! served; an unknown or malformed locale gets the source's language.
//! Without one, the answer is what it was before there were languages.
//!
//! A tool name that does not exist is a JSON-RPC error (`-32602`). Wrong
//! arguments are the tool's own error (`isError`, so a model can correct
//! them; MCP 2025-11-25 and later), or `-32602` for a client that speaks
//! 2025-06-18.

use super::json::{Echoed, Score};
use super::reply::{code, shown, Call, Reply};
use crate::search::{query_terms, rank, read_part};
use refserve_core::mcp::{answer_key, Era, Hit, Members, Served, DEFAULT_LIMIT, TOOLS};
use refserve_core::negotiate::negotiate_language;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// Answer a `tools/call` with `params`.
pub(crate) fn call(call: &Call, params: &Map<String, Value>) -> Reply {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return call.error(
            code::INVALID_PARAMS,
            "`params.name` must be a string: the tool to call.",
        );
    };
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return invalid(call, "`arguments` must be an object."),
    };
    let answered = match name {
        "list_methods" => list_methods(call, arguments),
        "get_method" => get_method(call, arguments),
        "search" => search(call, arguments),
        _ => {
            let tools = TOOLS.join(", ");
            let problem = format!("Unknown tool: `{}`. The tools are {tools}.", shown(name));
            return call.error(code::INVALID_PARAMS, &problem);
        }
    };
    // A tool that cannot answer (wrong arguments, most often) answers why.
    answered.unwrap_or_else(|wrong| wrong)
}

/// The language a tool's `locale` argument chooses, as an index into
/// `call.table.languages`: `None` without one; the source's (0) when it names
/// none of them or is malformed, as `Accept-Language` would. The tool's
/// error when it is not a string, or when an argument is not one of
/// those the tool takes (`known`).
fn locale(
    call: &Call,
    arguments: &Map<String, Value>,
    known: &[&str],
) -> Result<Option<usize>, Reply> {
    let unknown = arguments
        .keys()
        .find(|name| !known.contains(&name.as_str()));
    if let Some(name) = unknown {
        let (name, takes) = (shown(name), known.join(" and "));
        let problem = format!("Unknown argument `{name}`: this tool takes {takes}.");
        return Err(invalid(call, &problem));
    }
    const LOCALE: &str = "the reader's language as a BCP 47 tag, like `zh-CN` or `en`";
    match arguments.get("locale") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(locale)) => Ok(Some(negotiate_language(
            [locale.as_bytes()],
            &call.table.languages,
        ))),
        Some(other) => Err(invalid(
            call,
            &wrong_type("locale", "a string", other, LOCALE),
        )),
    }
}

/// The stored answer `argument` of `tools/call`: in `language` when a
/// `locale` chose one and it is stored there (keyed `{argument}
/// {segment}`), else as asked without a locale.
fn stored_tool(call: &Call, argument: &str, language: Option<usize>) -> Option<Reply> {
    let offer = language.and_then(|language| call.table.languages.get(language));
    offer
        .and_then(|offer| {
            let segment = offer.tag.to_ascii_lowercase();
            call.stored(&answer_key("tools/call", &format!("{argument} {segment}")))
        })
        .or_else(|| call.stored(&answer_key("tools/call", argument)))
}

fn list_methods(call: &Call, arguments: &Map<String, Value>) -> Result<Reply, Reply> {
    let language = locale(call, arguments, &["locale"])?;
    Ok(stored_tool(call, "list_methods", language)
        .expect("the pipeline stores every fixed tool answer (tested in tests/mcp.rs)"))
}

fn get_method(call: &Call, arguments: &Map<String, Value>) -> Result<Reply, Reply> {
    let language = locale(call, arguments, &["name", "locale"])?;
    const WHAT: &str = "the method's name, like `select` (list_methods gives them all)";
    let name = match arguments.get("name") {
        Some(Value::String(name)) => name,
        None => return Err(invalid(call, &format!("`name` is required: {WHAT}."))),
        Some(other) => return Err(invalid(call, &wrong_type("name", "a string", other, WHAT))),
    };
    // Asked in a locale: the page in its language, if stored (a removed
    // method's error is not).
    let key = format!("get_method {}", name.trim().to_ascii_lowercase());
    if let Some(reply) = stored_tool(call, &key, language) {
        return Ok(reply);
    }
    let asked = shown(name);
    // What search would answer for the name: a typo's method, or the
    // method another library's name stands for.
    let terms = query_terms(&call.table.mcp.index, name);
    let meant = rank(&call.table.mcp.index, &terms, 1)
        .first()
        .and_then(|found| call.table.keys.get(found.method));
    let problem = match meant {
        Some(meant) => format!("No method is named `{asked}`; did you mean `{meant}`?"),
        None => format!(
            "No method is named `{asked}`. The methods: {}.",
            call.table.keys.join(", ")
        ),
    };
    Err(invalid(call, &problem))
}

fn search(call: &Call, arguments: &Map<String, Value>) -> Result<Reply, Reply> {
    let asked = locale(call, arguments, &["query", "limit", "locale"])?;
    // The language answered in: the source's unless a locale chose one.
    let language = asked.unwrap_or(0);
    let (Some(edition), Some(words)) = (
        call.table.mcp.editions.get(language),
        call.table.search.get(language),
    ) else {
        return Err(call.error(code::INTERNAL_ERROR, "The search is not stored."));
    };
    const WHAT: &str = "what you want to do or know, in words";
    let query = match arguments.get("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => query.trim(),
        None => return Err(invalid(call, &format!("`query` is required: {WHAT}."))),
        Some(Value::String(_)) => return Err(invalid(call, &format!("`query` is empty: {WHAT}."))),
        Some(other) => return Err(invalid(call, &wrong_type("query", "a string", other, WHAT))),
    };
    let most = edition.hits.len();
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(limit) => match whole_number(limit) {
            Some(n) if (1..=most).contains(&n) => n,
            _ => {
                let expected = format!("an integer from 1 to {most}");
                let problem = match limit {
                    Value::Number(_) => format!("`limit` must be {expected}."),
                    _ => wrong_type("limit", &expected, limit, "the most methods to return"),
                };
                return Err(invalid(call, &problem));
            }
        },
    };
    let terms = query_terms(&call.table.mcp.index, query);
    let found = rank(&call.table.mcp.index, &terms, limit);
    let hits: Vec<&Hit> = (found.iter())
        .map(|found| &edition.hits[found.method])
        .collect();
    let intro = if hits.is_empty() {
        &edition.no_match_text
    } else {
        &edition.found_text
    };
    let mut text = String::with_capacity(512 * (hits.len() + 1));
    text.push_str(intro);
    let mut results = Vec::with_capacity(hits.len());
    for (rank, (found, hit)) in found.iter().zip(&hits).enumerate() {
        let why = found.why_line(&words.why);
        let _ = writeln!(text, "{}. {}   {why}", rank + 1, hit.text);
        results.push(Match {
            method: &hit.members,
            why,
            score: Score(found.score),
        });
    }
    let served = asked.and_then(|language| {
        let tag = call.table.languages.get(language)?.tag;
        Some(Served::of(tag, hits))
    });
    let structured = Searched {
        query: Echoed(read_part(query).trim_end()),
        results,
        methods: found.is_empty().then_some(&*call.table.mcp.methods_json),
    };
    Ok(finish(call, text, Some(structured), served))
}

/// Wrong arguments: the tool's own error, or `-32602` for 2025-06-18.
fn invalid(call: &Call, problem: &str) -> Reply {
    if call.era == Era::Legacy && call.legacy_version == Some("2025-06-18") {
        return call.error(code::INVALID_PARAMS, problem);
    }
    finish(call, Echoed(problem), None::<Searched>, None)
}

/// The tool's result, `text` and the `structured` content (an error
/// without), in the request's era, as the answer. It ends with a modern
/// result's members (`resultType`, `_meta` naming the server), and `_meta`
/// saying what was `served` when a locale was asked for (before the
/// server's name, in a modern one).
fn finish<T: Serialize, S: Serialize>(
    call: &Call,
    text: T,
    structured: Option<S>,
    served: Option<Served>,
) -> Reply {
    let mut ending = Members::new();
    if call.era == Era::Modern {
        ending.clone_from(&call.table.mcp.modern_members);
    }
    if let Some(served) = served {
        let mut meta = serde_json::to_value(&served).unwrap_or_default();
        let server = ending
            .get("_meta")
            .and_then(|raw| serde_json::from_str::<Map<String, Value>>(raw.get()).ok());
        if let (Value::Object(meta), Some(server)) = (&mut meta, server) {
            meta.extend(server);
        }
        if let Ok(meta) = serde_json::value::to_raw_value(&meta) {
            ending.insert("_meta".into(), meta);
        }
    }
    call.respond(&ToolResult {
        content: [Content { kind: "text", text }],
        is_error: structured.is_none(),
        structured,
        ending,
    })
}

/// A tool's result: `{"content":[…],"structuredContent":{…}}`, or
/// `"isError":true` in place of the structured content; a modern one
/// ends with `resultType` and `_meta`, one asked in a locale with `_meta`.
#[derive(Serialize)]
struct ToolResult<T, S> {
    content: [Content<T>; 1],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured: Option<S>,
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    is_error: bool,
    #[serde(flatten)]
    ending: Members,
}

/// `{"type":"text","text":…}`.
#[derive(Serialize)]
struct Content<T> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: T,
}

/// What a search found: the query (the part that was read), the results,
/// and every method's name when there is none.
#[derive(Serialize)]
struct Searched<'a> {
    query: Echoed<'a>,
    results: Vec<Match<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    methods: Option<&'a RawValue>,
}

/// One method found: its stored members, then why it matched and its
/// score. `why` (here and in the text) is written as serde_json writes a
/// string, which for it is what [`Echoed`] writes too: its words are
/// letters, digits, underscores and the operators' signs
/// (`refserve_core::search::terms`), the rest fixed.
#[derive(Serialize)]
struct Match<'a> {
    #[serde(flatten)]
    method: &'a Members,
    why: String,
    score: Score,
}

/// `value` as a whole number up to `u32::MAX` (far over any limit): an
/// integer, or a number with no fraction (`3.0`, which JSON Schema counts
/// an integer too).
fn whole_number(value: &Value) -> Option<usize> {
    let float = value.as_f64()?;
    let whole = float.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&float);
    whole.then_some(float as usize)
}

/// The problem of an argument that is not what it must be: the type (or
/// range) it must have, the JSON type it has, and what it is for.
fn wrong_type(name: &str, expected: &str, value: &Value, what: &str) -> String {
    let given = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    format!("`{name}` must be {expected}, not {given}: {what}.")
}
