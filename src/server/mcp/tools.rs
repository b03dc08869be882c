//! `tools/call`: the three tools' arguments checked, and their answers —
//! stored by the pipeline for `list_methods` and `get_method`, completed
//! here for `search` from each method's stored pieces.
//!
//! A tool name that does not exist is a JSON-RPC error (`-32602`). Wrong
//! arguments are the tool's own error (`isError`, so a model can correct
//! them; MCP 2025-11-25 and later), or `-32602` for a client that speaks
//! 2025-06-18.

use super::json::{Echoed, Score};
use super::reply::{code, Call, Reply};
use crate::search::{query_terms, rank, read_part};
use refserve_core::mcp::{answer_key, Era, Members, DEFAULT_LIMIT, TOOLS};
use refserve_core::negotiate::negotiate_language;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Answer a `tools/call` with `params`.
pub(crate) fn call(call: &Call, params: &Map<String, Value>) -> Reply {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return call.error(
            code::INVALID_PARAMS,
            "`params.name` must be a string: the tool to call.",
            None,
        );
    };
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return invalid(call, "`arguments` must be an object."),
    };
    match name {
        "list_methods" => match unexpected(arguments, &[]) {
            Some(problem) => invalid(call, &problem),
            None => call
                .stored(&answer_key("tools/call", "list_methods"))
                .expect("the pipeline stores every fixed tool answer (tested in tests/mcp.rs)"),
        },
        "get_method" => get_method(call, arguments),
        "search" => search(call, arguments),
        _ => {
            let shown: String = name.chars().take(64).collect();
            call.error(
                code::INVALID_PARAMS,
                &format!(
                    "Unknown tool: `{shown}`. The tools are {}.",
                    TOOLS.join(", ")
                ),
                None,
            )
        }
    }
}

fn get_method(call: &Call, arguments: &Map<String, Value>) -> Reply {
    if let Some(problem) = unexpected(arguments, &["name", "locale"]) {
        return invalid(call, &problem);
    }
    const LOCALE: &str = "the reader's language as a BCP 47 tag, like `zh-CN` or `en`";
    let language = match arguments.get("locale") {
        None | Some(Value::Null) => 0,
        Some(Value::String(locale)) => negotiate_language([locale.as_bytes()], call.languages),
        Some(other) => return invalid(call, &wrong_type("locale", "a string", other, LOCALE)),
    };
    const WHAT: &str = "the method's name, like `select` (list_methods gives them all)";
    let name = match arguments.get("name") {
        Some(Value::String(name)) => name,
        None => return invalid(call, &format!("`name` is required: {WHAT}.")),
        Some(other) => return invalid(call, &wrong_type("name", "a string", other, WHAT)),
    };
    let key = name.trim().to_ascii_lowercase();
    // In another language than the source's: its page there, if stored.
    if let Some(offer) = call.languages.get(language).filter(|_| language > 0) {
        let segment = offer.tag.to_ascii_lowercase();
        let localized = answer_key("tools/call", &format!("get_method {key} {segment}"));
        if let Some(reply) = call.stored(&localized) {
            return reply;
        }
    }
    if let Some(reply) = call.stored(&answer_key("tools/call", &format!("get_method {key}"))) {
        return reply;
    }
    let shown: String = name.chars().take(64).collect();
    // What search would answer for the name: a typo's method, or the
    // method another library's name stands for.
    let terms = query_terms(&call.answers.index, name);
    let meant = rank(&call.answers.index, &terms, 1)
        .first()
        .and_then(|found| call.keys.get(found.method));
    let problem = match meant {
        Some(meant) => format!("No method is named `{shown}`; did you mean `{meant}`?"),
        None => format!(
            "No method is named `{shown}`. The methods: {}.",
            call.keys.join(", ")
        ),
    };
    invalid(call, &problem)
}

fn search(call: &Call, arguments: &Map<String, Value>) -> Reply {
    if let Some(problem) = unexpected(arguments, &["query", "limit"]) {
        return invalid(call, &problem);
    }
    const WHAT: &str = "what you want to do or know, in words";
    let query = match arguments.get("query") {
        Some(Value::String(query)) if !query.trim().is_empty() => query.trim(),
        None => return invalid(call, &format!("`query` is required: {WHAT}.")),
        Some(Value::String(_)) => return invalid(call, &format!("`query` is empty: {WHAT}.")),
        Some(other) => return invalid(call, &wrong_type("query", "a string", other, WHAT)),
    };
    let most = call.answers.hits.len();
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
                return invalid(call, &problem);
            }
        },
    };
    let terms = query_terms(&call.answers.index, query);
    let found = rank(&call.answers.index, &terms, limit);
    let hits = &call.answers.hits;
    let mut text = String::with_capacity(512 * (found.len() + 1));
    let mut results = Vec::with_capacity(found.len());
    if found.is_empty() {
        text.push_str(&call.answers.no_match_text);
    } else {
        text.push_str("Methods for the query, best first (get_method gives one whole):\n\n");
    }
    for (rank, found) in found.iter().enumerate() {
        let hit = &hits[found.method];
        let why = found.why_line(&call.search[0].why);
        text.push_str(&(rank + 1).to_string());
        text.push_str(". ");
        text.push_str(&hit.text);
        text.push_str("   ");
        text.push_str(&why);
        text.push('\n');
        results.push(Match {
            method: &hit.members,
            why,
            score: Score(found.score),
        });
    }
    let structured = Searched {
        query: Echoed(read_part(query).trim_end()),
        results,
        methods: found.is_empty().then_some(&*call.answers.methods_json),
    };
    finish(call, text, Some(structured))
}

/// Wrong arguments: the tool's own error, or `-32602` for 2025-06-18.
fn invalid(call: &Call, problem: &str) -> Reply {
    if call.era == Era::Legacy && call.legacy_version == Some("2025-06-18") {
        return call.error(code::INVALID_PARAMS, problem, None);
    }
    finish(call, Echoed(problem), None::<Searched>)
}

/// The tool's result, `text` and the `structured` content (an error
/// without), in the request's era, as the answer.
fn finish<T: Serialize, S: Serialize>(call: &Call, text: T, structured: Option<S>) -> Reply {
    let is_error = structured.is_none();
    call.respond(&ToolResult {
        content: [Content { kind: "text", text }],
        structured,
        is_error,
        modern: (call.era == Era::Modern).then_some(&call.answers.modern_members),
    })
}

/// A tool's result: `{"content":[…],"structuredContent":{…}}`, or
/// `"isError":true` in place of the structured content; a modern one
/// ends with `resultType` and `_meta`.
#[derive(Serialize)]
struct ToolResult<'a, T, S> {
    content: [Content<T>; 1],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured: Option<S>,
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    is_error: bool,
    #[serde(flatten)]
    modern: Option<&'a Members>,
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

/// `value` as a whole number: an integer, or a number with no fraction
/// (`3.0`, which JSON Schema counts an integer too).
fn whole_number(value: &Value) -> Option<usize> {
    let number = value.as_number()?;
    let whole = number.as_u64().or_else(|| {
        let float = number.as_f64()?;
        let whole = float.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&float);
        whole.then_some(float as u64)
    })?;
    usize::try_from(whole).ok()
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

/// The first argument not in `known`, as a problem.
fn unexpected(arguments: &Map<String, Value>, known: &[&str]) -> Option<String> {
    let name = arguments
        .keys()
        .find(|name| !known.contains(&name.as_str()))?;
    let shown: String = name.chars().take(64).collect();
    Some(match known {
        [] => format!("Unknown argument `{shown}`: this tool takes none."),
        _ => format!(
            "Unknown argument `{shown}`: this tool takes {}.",
            known.join(" and ")
        ),
    })
}
