//! The JSON-RPC layer of `/mcp`, without I/O: from a request body and its
//! MCP headers to the status and body of the answer.
//!
//! A message is parsed, its era told apart (`refserve_core::mcp`: a
//! request carrying `params._meta` with a protocol version is modern, any
//! other legacy), checked as its era requires, and answered with a result
//! the pipeline stored, the request's id spliced around it. Only `search`
//! and the tools' own errors are written here (`tools.rs`), and the
//! JSON-RPC errors: with serde, from structs whose fields are in the order
//! written.
//!
//! Statuses: a body that is not one JSON-RPC message gets 400; a modern
//! request whose version, headers or `_meta` do not hold gets 400 and an
//! unknown method 404 (MCP 2026-07-28); every other JSON-RPC error, and
//! every legacy one, travels in a 200. Notifications and responses get
//! 202 and no body.

use super::tools;
use crate::table::Table;
use http::StatusCode;
use refserve_core::mcp::{answer_key, Era, Mcp, HANDSHAKE_VERSIONS, MODERN_VERSION};
use serde::Serialize;
use serde_json::{Map, Value};

/// JSON-RPC 2.0 and MCP error codes.
pub mod code {
    /// The body is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The parameters do not fit the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Legacy: no resource at that URI.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// Modern: an MCP header disagrees with the body, or is missing.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// Modern: a protocol version the server does not serve.
    pub const UNSUPPORTED_VERSION: i64 = -32022;
}

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

/// What `/mcp` answers to one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// 200, 202, 400 or 404.
    pub status: StatusCode,
    /// A JSON-RPC response (empty with 202).
    pub body: Vec<u8>,
}

/// A request being answered: its id, era, and what its answers need.
pub struct Call<'r> {
    /// The id, echoed in the answer.
    pub id: &'r Value,
    /// Its era.
    pub era: Era,
    /// The version a legacy request names in `MCP-Protocol-Version`.
    pub legacy_version: Option<&'r str>,
    /// What the server answers from.
    pub answers: &'r Mcp,
    /// Names an unknown method was probably meant to be.
    pub keys: &'r [String],
}

impl Call<'_> {
    /// The stored result `key`, in this request's era, as the answer.
    pub fn stored(&self, key: &str) -> Option<Reply> {
        let result = self.answers.answer(key)?.result(self.era)?;
        Some(self.result(result))
    }

    /// `result`, written, as the answer.
    pub fn respond(&self, result: &impl Serialize) -> Reply {
        reply(
            StatusCode::OK,
            &Success {
                jsonrpc: "2.0",
                id: self.id,
                result,
            },
        )
    }

    /// `result` (the bytes of a stored JSON object) as the answer.
    pub fn result(&self, result: &[u8]) -> Reply {
        let mut body = Vec::with_capacity(result.len() + 48);
        body.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        body.extend_from_slice(self.id.to_string().as_bytes());
        body.extend_from_slice(b",\"result\":");
        body.extend_from_slice(result);
        body.extend_from_slice(b"}\n");
        Reply {
            status: StatusCode::OK,
            body,
        }
    }

    /// A JSON-RPC error, in a 200.
    pub fn error(&self, code: i64, message: &str, data: Option<Data>) -> Reply {
        error_reply(StatusCode::OK, Some(self.id), code, message, data)
    }
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
    let Value::Object(message) = message else {
        let problem = if message.is_array() {
            "Batches are not accepted: send one JSON-RPC message per request (MCP 2025-06-18 and later)."
        } else {
            "The body must be one JSON-RPC message: an object."
        };
        return bad(None, code::INVALID_REQUEST, problem);
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return bad(None, code::INVALID_REQUEST, "`jsonrpc` must be \"2.0\".");
    }
    let id = match message.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id),
        Some(id @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(id),
        Some(_) => {
            return bad(
                None,
                code::INVALID_REQUEST,
                "`id` must be a string or an integer.",
            )
        }
    };
    let method = message.get("method").and_then(Value::as_str);
    let Some(id) = id else {
        // A notification, or a response to a request the server never sent.
        return match method {
            Some(_) => accepted(),
            None if message.contains_key("result") || message.contains_key("error") => accepted(),
            None => bad(None, code::INVALID_REQUEST, "`method` is missing."),
        };
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
    let meta_version = params
        .get("_meta")
        .and_then(|meta| meta.get(META_VERSION))
        .and_then(Value::as_str);
    let era = match meta_version {
        Some(version) => {
            if let Some(reply) = check_modern(id, method, params, version, headers) {
                return reply;
            }
            Era::Modern
        }
        None => match headers.protocol_version {
            None => Era::Legacy,
            Some(version) if HANDSHAKE_VERSIONS.contains(&version) => Era::Legacy,
            Some(MODERN_VERSION) => {
                return bad(
                    Some(id),
                    code::INVALID_PARAMS,
                    &format!("A {MODERN_VERSION} request carries `params._meta` with `{META_VERSION}` and `{META_CAPABILITIES}`."),
                )
            }
            Some(_) => return unsupported(Some(id), headers.protocol_version.unwrap_or_default()),
        },
    };
    let call = Call {
        id,
        era,
        legacy_version: headers.protocol_version,
        answers: &table.mcp,
        keys: &table.keys,
    };
    dispatch(&call, method, params)
}

/// The request's method, answered.
fn dispatch(call: &Call, method: &str, params: &Map<String, Value>) -> Reply {
    let era = call.era;
    match (method, era) {
        ("initialize", Era::Legacy) => {
            let requested = params.get("protocolVersion").and_then(Value::as_str);
            let version = HANDSHAKE_VERSIONS
                .into_iter()
                .find(|v| Some(*v) == requested)
                .unwrap_or(HANDSHAKE_VERSIONS[0]);
            stored(call, &answer_key("initialize", version))
        }
        ("ping", Era::Legacy) | ("server/discover", Era::Modern) => {
            stored(call, &answer_key(method, ""))
        }
        ("tools/list" | "resources/list" | "resources/templates/list", _) => {
            if params.contains_key("cursor") {
                return call.error(
                    code::INVALID_PARAMS,
                    "There is no further page: the whole list comes in one answer.",
                    None,
                );
            }
            stored(call, &answer_key(method, ""))
        }
        ("tools/call", _) => tools::call(call, params),
        ("resources/read", _) => {
            let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                return call.error(code::INVALID_PARAMS, "`params.uri` must be a string.", None);
            };
            call.stored(&answer_key("resources/read", uri))
                .unwrap_or_else(|| {
                    let code = match era {
                        Era::Legacy => code::RESOURCE_NOT_FOUND,
                        Era::Modern => code::INVALID_PARAMS,
                    };
                    call.error(
                        code,
                        "Resource not found: resources/list gives every URI that can be read.",
                        Some(Data::Uri { uri }),
                    )
                })
        }
        _ => {
            let status = match era {
                Era::Modern => StatusCode::NOT_FOUND,
                Era::Legacy => StatusCode::OK,
            };
            let shown: String = method.chars().take(64).collect();
            error_reply(
                status,
                Some(call.id),
                code::METHOD_NOT_FOUND,
                &format!(
                    "Method not found: `{shown}`. This server answers {}.",
                    methods(era)
                ),
                None,
            )
        }
    }
}

/// The methods served in `era`, for an error message.
fn methods(era: Era) -> &'static str {
    match era {
        Era::Legacy => "initialize, ping, tools/list, tools/call, resources/list, resources/read and resources/templates/list",
        Era::Modern => "server/discover, tools/list, tools/call, resources/list, resources/read and resources/templates/list",
    }
}

fn stored(call: &Call, key: &str) -> Reply {
    call.stored(key).unwrap_or_else(|| {
        call.error(
            code::METHOD_NOT_FOUND,
            "Method not found in this protocol version.",
            None,
        )
    })
}

/// What MCP 2026-07-28 asks of a modern request before it is answered, in
/// the order its Streamable HTTP transport checks it: headers that repeat
/// the body (`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` for a
/// tool call or a read), else `-32020` (`HeaderMismatch`); then a version
/// served, else `-32022`; then the client's capabilities. A header that
/// names one version while `_meta` names another is a mismatch, whichever
/// versions they are: `-32022` would list as supported a version the
/// client did send. `None` when all hold.
fn check_modern(
    id: &Value,
    method: &str,
    params: &Map<String, Value>,
    version: &str,
    headers: &McpHeaders,
) -> Option<Reply> {
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
            return Some(bad(Some(id), code::HEADER_MISMATCH, &problem));
        }
    }
    if version != MODERN_VERSION {
        return Some(unsupported(Some(id), version));
    }
    let capabilities = params
        .get("_meta")
        .and_then(|meta| meta.get(META_CAPABILITIES));
    if !capabilities.is_some_and(Value::is_object) {
        return Some(bad(
            Some(id),
            code::INVALID_PARAMS,
            &format!("`params._meta` must carry `{META_CAPABILITIES}` (an object; {{}} for none)."),
        ));
    }
    None
}

/// The message of a `-32020`, in the words of the specification's example
/// (`Header mismatch: Mcp-Name header value 'foo' does not match body value
/// 'bar'`), each value cut to its first [`SHOWN`] characters.
fn mismatch(header: &str, sent: Option<&str>, body: &str) -> String {
    let shown = |value: &str| value.chars().take(SHOWN).collect::<String>();
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

/// The most characters of a request's value an error message repeats.
const SHOWN: usize = 64;

/// A header value as MCP sends text that is not plain ASCII:
/// `=?base64?…?=` around the UTF-8 bytes in base64.
fn decode_header(value: &str) -> std::borrow::Cow<'_, str> {
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
    match decoded {
        Some(text) => std::borrow::Cow::Owned(text),
        None => std::borrow::Cow::Borrowed(value),
    }
}

/// 400 with `-32022`, naming the versions served.
fn unsupported(id: Option<&Value>, requested: &str) -> Reply {
    let shown: String = requested.chars().take(32).collect();
    let mut supported = vec![MODERN_VERSION];
    supported.extend(HANDSHAKE_VERSIONS);
    error_reply(
        StatusCode::BAD_REQUEST,
        id,
        code::UNSUPPORTED_VERSION,
        "Unsupported protocol version",
        Some(Data::Versions {
            supported,
            requested: &shown,
        }),
    )
}

/// 400 with a JSON-RPC error.
fn bad(id: Option<&Value>, code: i64, message: &str) -> Reply {
    error_reply(StatusCode::BAD_REQUEST, id, code, message, None)
}

/// 202: a notification or a response, taken.
fn accepted() -> Reply {
    Reply {
        status: StatusCode::ACCEPTED,
        body: Vec::new(),
    }
}

/// A JSON-RPC error response (without `id` when it could not be read).
pub fn error_reply(
    status: StatusCode,
    id: Option<&Value>,
    code: i64,
    message: &str,
    data: Option<Data>,
) -> Reply {
    let failure = Failure {
        jsonrpc: "2.0",
        id,
        error: Error {
            code,
            message,
            data,
        },
    };
    reply(status, &failure)
}

/// What an error's `data` tells.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Data<'a> {
    /// The resource that was not found.
    Uri {
        /// Its URI, as asked for.
        uri: &'a str,
    },
    /// The protocol versions served, and the one asked for.
    Versions {
        /// Newest first.
        supported: Vec<&'static str>,
        /// As asked for (its first 32 characters).
        requested: &'a str,
    },
}

/// A JSON-RPC response with a result.
#[derive(Serialize)]
struct Success<'a, R> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: R,
}

/// A JSON-RPC error response.
#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Value>,
    error: Error<'a>,
}

/// A JSON-RPC error.
#[derive(Serialize)]
struct Error<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Data<'a>>,
}

/// `response`, written, with a line break after it.
fn reply(status: StatusCode, response: &impl Serialize) -> Reply {
    let mut body = serde_json::to_vec(response)
        .expect("strings, numbers, stored JSON and finite scores always serialise");
    body.push(b'\n');
    Reply { status, body }
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
