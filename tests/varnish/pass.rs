//! What the cache passes: `/mcp`'s POSTs, answered by refserve and never
//! stored or coalesced, and its other methods' 405.

use super::{cache_state, Headers, Varnish};
use crate::support::start_server;
use http::Method;

/// The headers of an MCP request in the legacy era (no protocol version).
const MCP: Headers = &[
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// A JSON-RPC ping with `id`.
fn ping(id: u64) -> String {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}")
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn mcp_posts_are_passed_to_refserve_and_never_stored() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let direct = server.post("/mcp", MCP, ping(1)).await;
    assert_eq!(direct.status, 200, "{direct:?}");
    // The same message but for its id, one after the other, again, and
    // with a query string: each answered by refserve, with its own id.
    for (path, id) in [
        ("/mcp", 1),
        ("/mcp", 2),
        ("/mcp", 1),
        ("/mcp?utm_source=feed", 2),
        ("/mcp/", 1),
    ] {
        let reply = varnish.post(path, MCP, ping(id)).await;
        let what = format!("POST {path} id {id}");
        assert_eq!(reply.status, 200, "{what}: {reply:?}");
        assert_eq!(cache_state(&reply), "PASS", "{what}");
        assert_eq!(reply.header("content-type"), "application/json", "{what}");
        assert_eq!(reply.header("cache-control"), "no-store", "{what}");
        assert_eq!(
            reply.json(),
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "{what}"
        );
        if id == 1 {
            assert_eq!(reply.body, direct.body, "{what}");
        }
    }
    // At the same time: nothing coalesced either.
    let (three, four) = tokio::join!(
        varnish.post("/mcp", MCP, ping(3)),
        varnish.post("/mcp", MCP, ping(4)),
    );
    for (reply, id) in [(three, 3), (four, 4)] {
        assert_eq!(reply.status, 200, "id {id}: {reply:?}");
        assert_eq!(cache_state(&reply), "PASS", "id {id}");
        assert_eq!(reply.json()["id"], id, "{reply:?}");
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn other_methods_on_mcp_get_refserves_405() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for (method, path) in [
        (Method::GET, "/mcp"),
        (Method::GET, "/mcp"),
        (Method::GET, "/mcp?x=1"),
        (Method::HEAD, "/mcp"),
        (Method::DELETE, "/mcp"),
        (Method::GET, "/mcp/"),
    ] {
        let direct = server.request(method.clone(), path, &[]).await;
        let reply = varnish.request(method.clone(), path, &[]).await;
        let what = format!("{method} {path}");
        assert_eq!(reply.status, 405, "{what}: {reply:?}");
        assert_eq!(cache_state(&reply), "PASS", "{what}");
        assert_eq!(reply.header("allow"), "POST, OPTIONS", "{what}");
        assert_eq!(reply.header("cache-control"), "no-store", "{what}");
        assert_eq!(reply.body, direct.body, "{what}");
        // Passed, not looked up: a GET after a GET did not find the
        // hit-for-miss object a stored 405 would leave.
        assert_eq!(reply.header("x-test-hitmiss"), "false", "{what}");
    }
}
