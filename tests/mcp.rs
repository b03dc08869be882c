//! `/mcp`: the JSON-RPC protocol over real HTTP in both eras, the answers
//! against the documents they repeat, bad input, and the quality of search.
//! `mcp/protocol.rs`: the handshake, the eras, the version headers and
//! `_meta`; `mcp/tools.rs`: the tools and resources, against the documents
//! they repeat, their sizes, and wrong tools, arguments and types;
//! `mcp/search_tool.rs`: `search`'s answers and its quality;
//! `mcp/locale.rs`: the tools asked in a `locale`, and each language's pages
//! as resources;
//! `mcp/transport.rs`: bad input, the trailing slash, origins and preflight,
//! the body timeout.

mod locale;
mod protocol;
mod search_tool;
mod tools;
mod transport;

use crate::support::{Reply, Server};
use serde_json::{json, Value};

const JSON_HEADERS: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// A legacy request, after the handshake at `version`.
async fn legacy(server: &Server, version: &str, method: &str, params: Value) -> Reply {
    let mut headers = JSON_HEADERS.to_vec();
    headers.push(("mcp-protocol-version", version));
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
    server.post("/mcp", &headers, body.to_string()).await
}

/// A 2026-07-28 request with its `_meta` and its headers.
async fn modern(server: &Server, method: &str, mut params: Value) -> Reply {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .unwrap_or_default()
        .to_string();
    let mut headers = JSON_HEADERS.to_vec();
    headers.extend([
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ]);
    if !name.is_empty() {
        headers.push(("mcp-name", &name));
    }
    let body = json!({ "jsonrpc": "2.0", "id": "m-1", "method": method, "params": params });
    server.post("/mcp", &headers, body.to_string()).await
}

fn error_code(reply: &Reply) -> i64 {
    reply.json()["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("a JSON-RPC error: {}", String::from_utf8_lossy(&reply.body)))
}
