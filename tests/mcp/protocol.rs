//! The protocol: the legacy handshake and `ping`, the 2026-07-28 era's
//! stateless requests, and the version headers and `_meta` that must agree.

use super::{error_code, legacy, modern, JSON_HEADERS};
use crate::support::start_server;
use serde_json::{json, Value};

#[tokio::test]
async fn the_handshake_echoes_a_served_version_and_offers_the_newest_otherwise() {
    let server = start_server().await;
    for (asked, given) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
    ] {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": asked, "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
        let reply = server.post("/mcp", &JSON_HEADERS, body.to_string()).await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), "application/json");
        assert_eq!(reply.header("mcp-session-id"), "", "stateless: no session");
        let result = &reply.json()["result"];
        assert_eq!(result["protocolVersion"], given);
        assert_eq!(result["capabilities"]["tools"]["listChanged"], false);
        assert_eq!(result["serverInfo"]["name"], "refserve");
    }
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let reply = server
        .post("/mcp", &JSON_HEADERS, initialized.to_string())
        .await;
    assert_eq!((reply.status, reply.body.len()), (202, 0));
    let pong = legacy(&server, "2025-06-18", "ping", json!({})).await;
    assert_eq!(
        pong.json(),
        json!({ "jsonrpc": "2.0", "id": 7, "result": {} })
    );
}

#[tokio::test]
async fn a_modern_request_is_answered_statelessly_with_its_era_s_members() {
    let server = start_server().await;
    let reply = modern(&server, "server/discover", json!({})).await;
    assert_eq!(reply.status, 200);
    let result = &reply.json()["result"];
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "public");
    assert!(result["ttlMs"].as_u64().is_some());
    assert_eq!(reply.json()["id"], "m-1");
    let tools = modern(&server, "tools/list", json!({})).await.json();
    assert_eq!(tools["result"]["resultType"], "complete");
    let called = modern(
        &server,
        "tools/call",
        json!({ "name": "get_method", "arguments": { "name": "sum" } }),
    )
    .await;
    assert_eq!(called.json()["result"]["structuredContent"]["key"], "sum");
    assert_eq!(called.json()["result"]["resultType"], "complete");
    // `initialize` is legacy: not offered in the modern era's discover, but still served.
    assert!(legacy(&server, "2025-11-25", "server/discover", json!({}))
        .await
        .json()["error"]
        .is_object());
}

#[tokio::test]
async fn a_modern_request_whose_version_headers_or_meta_do_not_hold_gets_400() {
    let server = start_server().await;
    let post = |headers: Vec<(&'static str, &'static str)>, body: Value| {
        let server = &server;
        async move {
            let mut all = JSON_HEADERS.to_vec();
            all.extend(headers);
            server.post("/mcp", &all, body.to_string()).await
        }
    };
    let meta = |version: &str| {
        json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    };
    let discover = |version: &str| json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": meta(version) } });
    // No Mcp-Method header.
    let reply = post(
        vec![("mcp-protocol-version", "2026-07-28")],
        discover("2026-07-28"),
    )
    .await;
    assert_eq!((reply.status, error_code(&reply)), (400, -32020));
    // A version nobody serves.
    let reply = post(
        vec![
            ("mcp-protocol-version", "1900-01-01"),
            ("mcp-method", "server/discover"),
        ],
        discover("1900-01-01"),
    )
    .await;
    assert_eq!((reply.status, error_code(&reply)), (400, -32022));
    assert_eq!(reply.json()["error"]["data"]["requested"], "1900-01-01");
    assert!(reply.json()["error"]["data"]["supported"]
        .as_array()
        .is_some_and(|v| v.contains(&json!("2026-07-28"))));
    // No client capabilities.
    let mut body = discover("2026-07-28");
    body["params"]["_meta"] = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
    let reply = post(
        vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "server/discover"),
        ],
        body,
    )
    .await;
    assert_eq!((reply.status, error_code(&reply)), (400, -32602));
    // Mcp-Name disagreeing with the tool called; then in base64, agreeing.
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "list_methods", "arguments": {}, "_meta": meta("2026-07-28") } });
    let headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
    ];
    let mut wrong = headers.clone();
    wrong.push(("mcp-name", "search"));
    let reply = post(wrong, call.clone()).await;
    assert_eq!((reply.status, error_code(&reply)), (400, -32020));
    let mut encoded = headers;
    encoded.push(("mcp-name", "=?base64?bGlzdF9tZXRob2Rz?="));
    assert_eq!(post(encoded, call).await.status, 200);
    // An unknown method: 404 in this era.
    let reply = modern(&server, "prompts/list", json!({})).await;
    assert_eq!((reply.status, error_code(&reply)), (404, -32601));
}

#[tokio::test]
async fn a_version_header_that_disagrees_with_meta_is_a_header_mismatch() {
    let server = start_server().await;
    // Each pair: the header, then `_meta`. Both versions are served, so
    // "unsupported" (-32022, listing the very version sent) would mislead.
    for (header, meta) in [("2026-07-28", "2025-11-25"), ("2025-11-25", "2026-07-28")] {
        let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": meta,
                "io.modelcontextprotocol/clientCapabilities": {},
            } } });
        let mut headers = JSON_HEADERS.to_vec();
        headers.extend([
            ("mcp-protocol-version", header),
            ("mcp-method", "server/discover"),
        ]);
        let reply = server.post("/mcp", &headers, body.to_string()).await;
        assert_eq!(
            (reply.status, error_code(&reply)),
            (400, -32020),
            "{header} / {meta}"
        );
        let error = &reply.json()["error"];
        assert_eq!(
            error["message"],
            format!(
                "Header mismatch: MCP-Protocol-Version header value '{header}' does not match body value '{meta}'"
            )
        );
        assert!(error.get("data").is_none(), "{error}");
        assert_eq!(reply.json()["id"], 3);
    }
}
