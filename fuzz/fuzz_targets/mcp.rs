//! Fuzz `/mcp`'s JSON-RPC layer (`refserve::mcp::rpc::answer`): from a
//! request body and its MCP headers to the status and body of the answer,
//! without I/O, on the production table.
//!
//! Input format: up to four fields separated by 0xFF:
//!
//! ```text
//! body 0xFF MCP-Protocol-Version 0xFF Mcp-Method 0xFF Mcp-Name
//! ```
//!
//! A missing header field means the header is absent; a header field that
//! is not UTF-8 stands for a value no body holds.
//!
//! Properties checked on every input:
//!
//! 1. Nothing panics.
//! 2. The status is 200, 202, 400 or 404; 202 comes with no body and only
//!    then.
//! 3. Every body is one JSON-RPC response: `jsonrpc` "2.0", and either a
//!    `result` object or an `error` with an integer `code` and a non-empty
//!    `message`; an `id`, when present, is the request's (a string or an
//!    integer).
//! 4. A 404 is a modern request's unknown method (`-32601`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use refserve::mcp::rpc::{answer, McpHeaders};
use serde_json::Value;

/// A header field as text; one that is not UTF-8 as a value no body holds.
fn header(field: &[u8]) -> &str {
    std::str::from_utf8(field).unwrap_or("\u{fffd}")
}

fuzz_target!(|data: &[u8]| {
    let mut fields = data.split(|&b| b == 0xFF);
    let body = fields.next().unwrap_or_default();
    let headers = McpHeaders {
        protocol_version: fields.next().map(header),
        method: fields.next().map(header),
        name: fields.next().map(header),
    };
    let table = refserve::table::production();
    let reply = answer(table, &headers, body);
    let status = reply.status.as_u16();
    assert!([200, 202, 400, 404].contains(&status), "status {status}");
    assert_eq!(status == 202, reply.body.is_empty(), "202 and only 202 has no body");
    if reply.body.is_empty() {
        return;
    }
    let response: Value = serde_json::from_slice(&reply.body).expect("the answer is JSON");
    assert_eq!(response["jsonrpc"], "2.0");
    match (response.get("result"), response.get("error")) {
        (Some(result), None) => assert!(result.is_object(), "a result is an object"),
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "an error code is an integer");
            assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
            if status == 404 {
                assert_eq!(error["code"], -32601);
            }
        }
        _ => panic!("a result or an error, not both: {response}"),
    }
    if let Some(id) = response.get("id") {
        assert!(id.is_string() || id.is_i64() || id.is_u64(), "an id is a string or an integer");
    }
});
