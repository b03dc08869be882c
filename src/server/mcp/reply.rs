//! What `/mcp` answers, as JSON-RPC writes it: the error [`code`]s, a
//! [`Call`] being answered and the [`Reply`] it makes (a stored result
//! with the request's id spliced around it, a result written with serde, or
//! an error). Both the dispatch (`rpc.rs`) and the tools (`tools.rs`) answer
//! through it, so neither needs the other's words.

use crate::table::Table;
use http::StatusCode;
use refserve_core::mcp::Era;
use serde::Serialize;
use serde_json::Value;

/// JSON-RPC 2.0 and MCP error codes.
pub(crate) mod code {
    /// The body is not JSON.
    pub(crate) const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a request.
    pub(crate) const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
    /// The parameters do not fit the method.
    pub(crate) const INVALID_PARAMS: i64 = -32602;
    /// The server cannot answer (its table lacks what it needs).
    pub(crate) const INTERNAL_ERROR: i64 = -32603;
    /// Legacy: no resource at that URI.
    pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;
    /// Modern: an MCP header disagrees with the body, or is missing.
    pub(crate) const HEADER_MISMATCH: i64 = -32020;
    /// Modern: a protocol version the server does not serve.
    pub(crate) const UNSUPPORTED_VERSION: i64 = -32022;
}

/// What `/mcp` answers to one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// 200, 202, 400 or 404.
    pub status: StatusCode,
    /// A JSON-RPC response (empty with 202).
    pub body: Vec<u8>,
}

/// A request being answered: its id, era, and the table it is answered
/// from.
pub(crate) struct Call<'r> {
    /// The id, echoed in the answer.
    pub id: &'r Value,
    /// Its era.
    pub era: Era,
    /// The version a legacy request names in `MCP-Protocol-Version`.
    pub legacy_version: Option<&'r str>,
    /// What the server answers from: `mcp`, and the methods' `keys`, the
    /// `languages` and each one's `/search` words.
    pub table: &'r Table,
}

impl Call<'_> {
    /// The stored result `key`, in this request's era, as the answer: the
    /// bytes of a stored JSON object, the request's id spliced around them.
    pub(crate) fn stored(&self, key: &str) -> Option<Reply> {
        let result = self.table.mcp.result(key, self.era)?;
        let head = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":", self.id);
        let body = [head.as_bytes(), result, b"}\n"].concat();
        let status = StatusCode::OK;
        Some(Reply { status, body })
    }

    /// `result`, written, as the answer.
    pub(crate) fn respond(&self, result: &impl Serialize) -> Reply {
        let response = Response {
            jsonrpc: "2.0",
            id: Some(self.id),
            result: Some(result),
            error: None,
        };
        reply(StatusCode::OK, &response)
    }

    /// A JSON-RPC error, in a 200.
    pub(crate) fn error(&self, code: i64, message: &str) -> Reply {
        error_reply(StatusCode::OK, Some(self.id), code, message, None)
    }
}

/// A JSON-RPC error response (without `id` when it could not be read).
pub(crate) fn error_reply(
    status: StatusCode,
    id: Option<&Value>,
    code: i64,
    message: &str,
    data: Option<Data>,
) -> Reply {
    let error = Error {
        code,
        message,
        data,
    };
    let response = Response::<()> {
        jsonrpc: "2.0",
        id,
        result: None,
        error: Some(error),
    };
    reply(status, &response)
}

/// A request's value as a message repeats it: its first 64 characters.
pub(crate) fn shown(value: &str) -> String {
    value.chars().take(64).collect()
}

/// What an error's `data` tells.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Data<'a> {
    /// The resource that was not found.
    Uri {
        /// Its URI, as asked for.
        uri: &'a str,
    },
    /// The protocol versions served, and the one asked for.
    Versions {
        /// Newest first.
        supported: &'static [&'static str],
        /// As asked for (its first 32 characters).
        requested: &'a str,
    },
}

/// A JSON-RPC response: a result, or an error (without `id` when it
/// could not be read).
#[derive(Serialize)]
struct Response<'a, R> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Error<'a>>,
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
