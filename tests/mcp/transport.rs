//! `/mcp` as an HTTP endpoint: bad input and the methods it refuses, the
//! trailing slash, origins and preflight, and a body that never comes.

use super::{legacy, JSON_HEADERS};
use crate::support::{start_server, start_server_with};
use serde_json::json;

/// Request headers, body, and the status and JSON-RPC error code expected.
type Case = (
    &'static [(&'static str, &'static str)],
    &'static str,
    u16,
    Option<i64>,
);

#[tokio::test]
async fn bad_input_gets_a_clear_error_and_the_next_request_is_served() {
    let server = start_server().await;
    let post = |headers: &'static [(&'static str, &'static str)], body: &'static str| {
        server.post("/mcp", headers, body)
    };
    let cases: [Case; 7] = [
        (&JSON_HEADERS, "{\"jsonrpc\":\"2.0\",", 400, Some(-32700)),
        (
            &JSON_HEADERS,
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            400,
            Some(-32600),
        ),
        (
            &JSON_HEADERS,
            "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
            400,
            Some(-32600),
        ),
        (
            &JSON_HEADERS,
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
            400,
            Some(-32600),
        ),
        (
            &JSON_HEADERS,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\"}",
            200,
            Some(-32601),
        ),
        (&[("content-type", "text/plain")], "{}", 415, Some(-32600)),
        (
            &[
                ("content-type", "application/json"),
                ("accept", "text/event-stream"),
            ],
            "{}",
            406,
            Some(-32600),
        ),
    ];
    for (headers, body, status, code) in cases {
        let reply = post(headers, body).await;
        assert_eq!(
            reply.status,
            status,
            "{body}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        assert_eq!(reply.json()["error"]["code"].as_i64(), code, "{body}");
        assert!(reply.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"pad\":\"{}\"}}",
        "x".repeat(70_000)
    );
    assert_eq!(server.post("/mcp", &JSON_HEADERS, huge).await.status, 413);
    for method in [http::Method::GET, http::Method::HEAD, http::Method::DELETE] {
        let reply = server.request(method.clone(), "/mcp", &[]).await;
        assert_eq!(
            (reply.status, reply.header("allow")),
            (405, "POST, OPTIONS"),
            "{method}"
        );
    }
    let ping = legacy(&server, "2025-06-18", "ping", json!({})).await;
    assert_eq!(ping.status, 200, "still serving");
}

#[tokio::test]
async fn the_endpoint_with_a_trailing_slash_is_the_endpoint() {
    let server = start_server().await;
    // Both eras, a tool call and a JSON-RPC error: each as `/mcp` answers it.
    let discover = json!({ "jsonrpc": "2.0", "id": 5, "method": "server/discover", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        } } });
    let mut modern_headers = JSON_HEADERS.to_vec();
    modern_headers.extend([
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ]);
    let mut legacy_headers = JSON_HEADERS.to_vec();
    legacy_headers.push(("mcp-protocol-version", "2025-11-25"));
    let search = json!({ "jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": { "name": "search", "arguments": { "query": "count rows" } } });
    let unknown = json!({ "jsonrpc": "2.0", "id": 7, "method": "prompts/get" });
    for (headers, body) in [
        (&modern_headers, discover),
        (&legacy_headers, search),
        (&legacy_headers, unknown),
    ] {
        let plain = server.post("/mcp", headers, body.to_string()).await;
        let slashed = server.post("/mcp/", headers, body.to_string()).await;
        assert_eq!(plain.status, 200, "{body}");
        assert_eq!(
            (slashed.status, slashed.header("content-type")),
            (plain.status, "application/json"),
            "{body}"
        );
        assert_eq!(slashed.json(), plain.json(), "{body}");
    }
    // Not the page router's 405 (`Allow: GET, HEAD, OPTIONS`): /mcp's.
    let get = server.get("/mcp/", &[]).await;
    assert_eq!((get.status, get.header("allow")), (405, "POST, OPTIONS"));
    assert_eq!(get.json()["error"]["code"], -32600);
    let preflight = server
        .request(
            http::Method::OPTIONS,
            "/mcp/",
            &[
                ("origin", "http://127.0.0.1:8080"),
                ("access-control-request-method", "POST"),
            ],
        )
        .await;
    assert_eq!(
        (
            preflight.status,
            preflight.header("access-control-allow-methods")
        ),
        (204, "POST, OPTIONS")
    );
}

#[tokio::test]
async fn an_origin_must_be_allowed_and_a_preflight_names_the_mcp_headers() {
    let server =
        start_server_with(|config| config.mcp_allow_origins = vec!["http://localhost:6274".into()])
            .await;
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    let from = |origin: &'static str| {
        let mut headers = JSON_HEADERS.to_vec();
        headers.push(("origin", origin));
        headers
    };
    let refused = server
        .post("/mcp", &from("https://attacker.example"), ping)
        .await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.header("access-control-allow-origin"), "");
    let allowed = server
        .post("/mcp", &from("http://localhost:6274"), ping)
        .await;
    assert_eq!(allowed.status, 200);
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        "http://localhost:6274"
    );
    let own = server
        .post("/mcp", &from("http://127.0.0.1:8080"), ping)
        .await;
    assert_eq!(own.status, 200, "the base URL's own origin");
    let preflight = server
        .request(
            http::Method::OPTIONS,
            "/mcp",
            &[
                ("origin", "http://localhost:6274"),
                ("access-control-request-method", "POST"),
            ],
        )
        .await;
    assert_eq!(preflight.status, 204);
    assert!(preflight
        .header("access-control-allow-headers")
        .contains("Mcp-Method"));
    assert_eq!(
        preflight.header("access-control-allow-methods"),
        "POST, OPTIONS"
    );
    // A 405 names no origin that was not allowed.
    let get = server
        .get("/mcp", &[("origin", "https://attacker.example")])
        .await;
    assert_eq!(get.status, 405);
    assert_eq!(get.header("access-control-allow-origin"), "");
    // Two origins are one too many, even when one of them is allowed.
    let mut two = from("http://localhost:6274");
    two.push(("origin", "https://attacker.example"));
    let twice = server.post("/mcp", &two, ping).await;
    assert_eq!(twice.status, 403);
    assert_eq!(twice.header("access-control-allow-origin"), "");
}

#[tokio::test]
async fn a_body_that_never_comes_is_answered_within_the_body_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = start_server_with(|config| {
        config.body_timeout = std::time::Duration::from_secs(1);
    })
    .await;
    // The head promises 100 bytes; 10 come, and the connection stays open.
    let mut stream = tokio::net::TcpStream::connect(server.addr())
        .await
        .expect("connect");
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        .await
        .expect("send");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    // A body cut short by the client is a 400.
    let cut = server
        .raw(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        .await;
    assert!(String::from_utf8_lossy(&cut).starts_with("HTTP/1.1 400"));
    assert_eq!(
        legacy(&server, "2025-06-18", "ping", json!({}))
            .await
            .status,
        200
    );
}
