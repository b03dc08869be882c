//! The JSON-RPC layer of `/mcp`, without I/O: from a request body and its
//! MCP headers to the status and body of the answer.
//!
//! A message is parsed, its era told apart (`refserve_core::mcp`: a
//! request carrying `params._meta` with a protocol version is modern, any
//! other legacy), checked as its era requires, and answered with a result
//! the pipeline stored, the request's id spliced around it. Only `search`
//! and the tools' own errors are written by the tools (`tools.rs`), and the
//! JSON-RPC errors by `reply.rs`: with serde, from structs whose fields are
//! in the order written.
//!
//! Statuses: a body that is not one JSON-RPC message gets 400; a modern
//! request whose version, headers or `_meta` do not hold gets 400 and an
//! unknown method 404 (MCP 2026-07-28); every other JSON-RPC error, and
//! every legacy one, travels in a 200. Notifications and responses get
//! 202 and no body.

use super::reply::{code, error_reply, shown, Call, Data, Reply};
use super::tools;
use crate::table::Table;
use http::StatusCode;
use refserve_core::mcp::{answer_key, Era, HANDSHAKE_VERSIONS, MODERN_VERSION, VERSIONS};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// `_meta` members of a modern request.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// The MCP request headers, as sent (`None` when absent; a value that is
/// not UTF-8 is never equal to anything).
#[derive(Debug, Default, Clone, Copy)]
pub struct McpHeaders<'a> {
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<&'a str>,
    /// `Mcp-Method`.
    pub method: Option<&'a str>,
    /// `Mcp-Name`.
    pub name: Option<&'a str>,
}

/// Answer one message, `body`, sent with `headers`, from `table`.
pub fn answer(table: &Table, headers: &McpHeaders, body: &[u8]) -> Reply {
    let message: Value = match serde_json::from_slice(body) {
        Ok(message) => message,
        Err(e) => {
            let problem = format!(
                "The body is not JSON ({} at line {}, column {}).",
                category(&e),
                e.line(),
                e.column()
            );
            return bad(None, code::PARSE_ERROR, &problem);
        }
    };
    // A message that is not a request: no id to answer.
    let not_request = |problem: &str| bad(None, code::INVALID_REQUEST, problem);
    let Value::Object(message) = message else {
        return not_request(if message.is_array() {
            "Batches are not accepted: send one JSON-RPC message per request (MCP 2025-06-18 and later)."
        } else {
            "The body must be one JSON-RPC message: an object."
        });
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return not_request("`jsonrpc` must be \"2.0\".");
    }
    let id = match message.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id),
        Some(id @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(id),
        Some(_) => return not_request("`id` must be a string or an integer."),
    };
    let method = message.get("method").and_then(Value::as_str);
    let Some(id) = id else {
        // A notification, or a response to a request the server never sent.
        let response = message.contains_key("result") || message.contains_key("error");
        if method.is_none() && !response {
            return not_request("`method` is missing.");
        }
        // 202: taken.
        let (status, body) = (StatusCode::ACCEPTED, Vec::new());
        return Reply { status, body };
    };
    let Some(method) = method else {
        return bad(
            Some(id),
            code::INVALID_REQUEST,
            "`method` must be a string.",
        );
    };
    let empty = Map::new();
    let params = match message.get("params") {
        None => &empty,
        Some(Value::Object(params)) => params,
        Some(_) => {
            return bad(
                Some(id),
                code::INVALID_PARAMS,
                "`params` must be an object.",
            )
        }
    };
    let era = match era(id, method, params, headers) {
        Ok(era) => era,
        Err(refused) => return refused,
    };
    let call = Call {
        id,
        era,
        legacy_version: headers.protocol_version,
        table,
    };
    dispatch(&call, method, params)
}

/// The request's method, answered. Which methods an era has is the
/// table's to say: a result stored empty in an era (`initialize` in the
/// modern one, `server/discover` in the legacy one) is a method it lacks.
fn dispatch(call: &Call, method: &str, params: &Map<String, Value>) -> Reply {
    let key = match method {
        "tools/list" | "resources/list" | "resources/templates/list"
            if params.contains_key("cursor") =>
        {
            return call.error(
                code::INVALID_PARAMS,
                "There is no further page: the whole list comes in one answer.",
            );
        }
        "ping"
        | "server/discover"
        | "tools/list"
        | "resources/list"
        | "resources/templates/list" => method.to_string(),
        "initialize" => {
            let requested = params.get("protocolVersion").and_then(Value::as_str);
            let version = HANDSHAKE_VERSIONS
                .into_iter()
                .find(|v| Some(*v) == requested)
                .unwrap_or(HANDSHAKE_VERSIONS[0]);
            answer_key("initialize", version)
        }
        "tools/call" => return tools::call(call, params),
        "resources/read" => {
            let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                return call.error(code::INVALID_PARAMS, "`params.uri` must be a string.");
            };
            let code = match call.era {
                Era::Legacy => code::RESOURCE_NOT_FOUND,
                Era::Modern => code::INVALID_PARAMS,
            };
            return call
                .stored(&answer_key("resources/read", uri))
                .unwrap_or_else(|| {
                    let message =
                        "Resource not found: resources/list gives every URI that can be read.";
                    let data = Some(Data::Uri { uri });
                    error_reply(StatusCode::OK, Some(call.id), code, message, data)
                });
        }
        _ => return unknown(call, method),
    };
    call.stored(&key).unwrap_or_else(|| unknown(call, method))
}

/// `-32601`, naming the methods served in the request's era: in a 200 in
/// the legacy era, a 404 in the modern one.
fn unknown(call: &Call, method: &str) -> Reply {
    let (status, methods) = match call.era {
        Era::Legacy => (StatusCode::OK, "initialize, ping, tools/list, tools/call, resources/list, resources/read and resources/templates/list"),
        Era::Modern => (StatusCode::NOT_FOUND, "server/discover, tools/list, tools/call, resources/list, resources/read and resources/templates/list"),
    };
    let message = format!(
        "Method not found: `{}`. This server answers {methods}.",
        shown(method)
    );
    error_reply(
        status,
        Some(call.id),
        code::METHOD_NOT_FOUND,
        &message,
        None,
    )
}

/// The era of a request: modern when `params._meta` names a version
/// (legacy otherwise), and what MCP 2026-07-28 asks of a modern request
/// before it is answered, in the order its Streamable HTTP transport
/// checks it: headers that repeat the body (`MCP-Protocol-Version`,
/// `Mcp-Method`, and `Mcp-Name` for a tool call or a read), else `-32020`
/// (`HeaderMismatch`); then a version served, else `-32022`; then the
/// client's capabilities. A header that names one version while `_meta`
/// names another is a mismatch, whichever versions they are: `-32022`
/// would list as supported a version the client did send. A legacy
/// request may name a handshake version in `MCP-Protocol-Version`.
fn era(
    id: &Value,
    method: &str,
    params: &Map<String, Value>,
    headers: &McpHeaders,
) -> Result<Era, Reply> {
    let meta = params.get("_meta");
    let Some(version) = meta.and_then(|meta| meta.get(META_VERSION)?.as_str()) else {
        return match headers.protocol_version {
            None => Ok(Era::Legacy),
            Some(version) if HANDSHAKE_VERSIONS.contains(&version) => Ok(Era::Legacy),
            Some(MODERN_VERSION) => Err(bad(
                Some(id),
                code::INVALID_PARAMS,
                &format!("A {MODERN_VERSION} request carries `params._meta` with `{META_VERSION}` and `{META_CAPABILITIES}`."),
            )),
            Some(version) => Err(unsupported(Some(id), version)),
        };
    };
    let name = match method {
        "tools/call" => params.get("name").and_then(Value::as_str),
        "resources/read" => params.get("uri").and_then(Value::as_str),
        _ => None,
    };
    let expected = [
        (
            "MCP-Protocol-Version",
            headers.protocol_version,
            Some(version),
        ),
        ("Mcp-Method", headers.method, Some(method)),
        ("Mcp-Name", headers.name, name),
    ];
    for (header, sent, body) in expected {
        let Some(body) = body else { continue };
        let sent = sent.map(decode_header);
        if sent.as_deref() != Some(body) {
            let problem = mismatch(header, sent.as_deref(), body);
            return Err(bad(Some(id), code::HEADER_MISMATCH, &problem));
        }
    }
    if version != MODERN_VERSION {
        return Err(unsupported(Some(id), version));
    }
    let capabilities = meta.and_then(|meta| meta.get(META_CAPABILITIES));
    if !capabilities.is_some_and(Value::is_object) {
        return Err(bad(
            Some(id),
            code::INVALID_PARAMS,
            &format!("`params._meta` must carry `{META_CAPABILITIES}` (an object; {{}} for none)."),
        ));
    }
    Ok(Era::Modern)
}

/// The message of a `-32020`, in the words of the specification's example
/// (`Header mismatch: Mcp-Name header value 'foo' does not match body value
/// 'bar'`), each value cut as [`shown`].
fn mismatch(header: &str, sent: Option<&str>, body: &str) -> String {
    match sent {
        None => format!(
            "Header mismatch: the {header} header is missing; it must repeat the body value '{}'",
            shown(body)
        ),
        Some(sent) => format!(
            "Header mismatch: {header} header value '{}' does not match body value '{}'",
            shown(sent),
            shown(body)
        ),
    }
}

/// A header value as MCP sends text that is not plain ASCII:
/// `=?base64?…?=` around the UTF-8 bytes in base64.
fn decode_header(value: &str) -> Cow<'_, str> {
    use base64::Engine as _;
    let decoded = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|encoded| {
            base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()
        })
        .and_then(|bytes| String::from_utf8(bytes).ok());
    decoded.map_or(Cow::Borrowed(value), Cow::Owned)
}

/// 400 with `-32022`, naming the versions served.
fn unsupported(id: Option<&Value>, requested: &str) -> Reply {
    let shown: String = requested.chars().take(32).collect();
    error_reply(
        StatusCode::BAD_REQUEST,
        id,
        code::UNSUPPORTED_VERSION,
        "Unsupported protocol version",
        Some(Data::Versions {
            supported: &VERSIONS,
            requested: &shown,
        }),
    )
}

/// 400 with a JSON-RPC error.
fn bad(id: Option<&Value>, code: i64, message: &str) -> Reply {
    error_reply(StatusCode::BAD_REQUEST, id, code, message, None)
}

/// What kind of JSON error `e` is, in words.
fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Eof => "it ends early",
        serde_json::error::Category::Syntax => "a syntax error",
        serde_json::error::Category::Data => "unexpected data",
        serde_json::error::Category::Io => "a read error",
    }
}
