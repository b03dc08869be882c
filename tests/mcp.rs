//! `/mcp`: the JSON-RPC protocol over real HTTP in both eras, the answers
//! against the documents they repeat, bad input, and the quality of search.

use crate::support::{
    mcp_call as call, shipped_methods, start_server, start_server_with, Reply, Server,
};
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

#[tokio::test]
async fn the_tools_are_listed_in_order_read_only_with_their_schemas() {
    let server = start_server().await;
    let reply = legacy(&server, "2025-06-18", "tools/list", json!({})).await;
    let tools = reply.json()["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["list_methods", "get_method", "search"]);
    for tool in tools.as_array().into_iter().flatten() {
        let hints = &tool["annotations"];
        assert_eq!(
            (
                hints["readOnlyHint"].as_bool(),
                hints["idempotentHint"].as_bool()
            ),
            (Some(true), Some(true)),
            "{tool}"
        );
        assert_eq!(
            (
                hints["destructiveHint"].as_bool(),
                hints["openWorldHint"].as_bool()
            ),
            (Some(false), Some(false)),
            "{tool}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object");
        assert_eq!(tool["outputSchema"]["type"], "object");
    }
    // get_method's output schema is the Reference of /openapi.json.
    let openapi = server.get("/openapi.json", &[]).await.json();
    let reference = &openapi["components"]["schemas"]["Reference"];
    let output = &tools[1]["outputSchema"];
    assert_eq!(output["required"], reference["required"]);
    assert_eq!(
        output["properties"]
            .as_object()
            .map(|p| p.keys().collect::<Vec<_>>()),
        reference["properties"]
            .as_object()
            .map(|p| p.keys().collect::<Vec<_>>())
    );
}

#[tokio::test]
async fn get_method_gives_each_method_s_page_and_reference() {
    let server = start_server().await;
    let list = call(&server, "list_methods", json!({})).await;
    let methods = list["structuredContent"]["methods"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(methods.len(), shipped_methods().len());
    for method in methods {
        let name = method["name"].as_str().expect("a name");
        let result = call(&server, "get_method", json!({ "name": name })).await;
        let page = server.get(&format!("/api/{name}.md"), &[]).await;
        assert_eq!(
            result["content"][0]["text"].as_str().map(str::as_bytes),
            Some(page.body.as_slice())
        );
        assert_eq!(result["content"][1]["type"], "resource_link");
        let reference = server
            .get(&format!("/api/reference/{name}.json"), &[])
            .await
            .json();
        assert_eq!(result["structuredContent"], reference["data"], "{name}");
    }
}

#[tokio::test]
async fn every_resource_reads_as_the_document_it_names() {
    let server = start_server().await;
    let list = legacy(&server, "2025-11-25", "resources/list", json!({}))
        .await
        .json();
    let resources = list["result"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Every method's page, `llms.txt` and `llms-full.txt`.
    assert_eq!(resources.len(), shipped_methods().len() + 2);
    for document in ["llms.txt", "llms-full.txt"] {
        let uri = format!("http://127.0.0.1:8080/{document}");
        assert!(
            resources
                .iter()
                .any(|r| r["uri"] == uri && r["name"] == document),
            "{document} is a resource"
        );
    }
    for resource in resources {
        let uri = resource["uri"].as_str().expect("a uri");
        let read = legacy(
            &server,
            "2025-11-25",
            "resources/read",
            json!({ "uri": uri }),
        )
        .await
        .json();
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["mimeType"], resource["mimeType"]);
        let path = uri.trim_start_matches("http://127.0.0.1:8080");
        let document = server.get(path, &[]).await;
        assert_eq!(
            contents["text"].as_str().map(str::as_bytes),
            Some(document.body.as_slice()),
            "{uri}"
        );
        assert_eq!(resource["size"].as_u64(), Some(document.body.len() as u64));
    }
    let missing = legacy(
        &server,
        "2025-11-25",
        "resources/read",
        json!({ "uri": "http://127.0.0.1:8080/nope.md" }),
    )
    .await;
    assert_eq!(error_code(&missing), -32002);
    let missing = modern(
        &server,
        "resources/read",
        json!({ "uri": "http://127.0.0.1:8080/nope.md" }),
    )
    .await;
    assert_eq!(error_code(&missing), -32602);
}

#[tokio::test]
async fn every_answer_stays_far_below_ten_thousand_tokens() {
    let server = start_server().await;
    let mut asked = vec![
        ("tools/list", json!({})),
        ("resources/list", json!({})),
        ("tools/call", json!({ "name": "list_methods" })),
        (
            "tools/call",
            json!({ "name": "search", "arguments": { "query": "table rows column value", "limit": shipped_methods().len() } }),
        ),
    ];
    for key in refserve::table::production().keys.iter() {
        asked.push((
            "tools/call",
            json!({ "name": "get_method", "arguments": { "name": key } }),
        ));
    }
    let mut sizes = Vec::new();
    for (method, params) in asked {
        let answer = legacy(&server, "2025-11-25", method, params.clone()).await;
        assert_eq!(answer.status, 200);
        sizes.push((answer.body.len(), format!("{method} {params}")));
    }
    sizes.sort();
    let (largest, what) = sizes.last().expect("answers");
    println!(
        "the largest answer: {largest} bytes, about {} tokens: {what}",
        largest / 4
    );
    // About four bytes a token: 10,000 tokens would be some 40,000 bytes.
    assert!(*largest < 20_000, "the largest answer is {largest} bytes");
}

#[tokio::test]
async fn wrong_tools_and_arguments_are_answered_as_the_specification_says() {
    let server = start_server().await;
    let unknown = legacy(
        &server,
        "2025-11-25",
        "tools/call",
        json!({ "name": "drop_database" }),
    )
    .await;
    assert_eq!((unknown.status, error_code(&unknown)), (200, -32602));
    // 2025-11-25 and later: the tool's own error, naming the close method.
    let result = call(&server, "get_method", json!({ "name": "selct" })).await;
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("`select`")),
        "{result}"
    );
    // 2025-06-18: a protocol error.
    let old = legacy(
        &server,
        "2025-06-18",
        "tools/call",
        json!({ "name": "get_method", "arguments": { "name": "selct" } }),
    )
    .await;
    assert_eq!(error_code(&old), -32602);
    for arguments in [
        json!({}),
        json!({ "query": "  " }),
        json!({ "query": "x", "limit": 0 }),
        json!({ "query": "x", "limit": 2.5 }),
        json!({ "query": "x", "limit": shipped_methods().len() + 1 }),
        json!({ "query": "x", "colour": 1 }),
    ] {
        assert_eq!(
            call(&server, "search", arguments.clone()).await["isError"],
            true,
            "{arguments}"
        );
    }
}

/// The text of a tool's error.
async fn tool_error(server: &Server, tool: &str, arguments: Value) -> String {
    let result = call(server, tool, arguments.clone()).await;
    assert_eq!(result["isError"], true, "{arguments}: {result}");
    result["content"][0]["text"]
        .as_str()
        .expect("an error's text")
        .to_string()
}

#[tokio::test]
async fn a_wrong_type_is_reported_as_a_wrong_type() {
    let server = start_server().await;
    for (tool, arguments, expected) in [
        (
            "search",
            json!({ "query": 123 }),
            "`query` must be a string, not a number",
        ),
        (
            "search",
            json!({ "query": null }),
            "`query` must be a string, not null",
        ),
        (
            "search",
            json!({ "query": ["rows"] }),
            "`query` must be a string, not an array",
        ),
        ("search", json!({}), "`query` is required"),
        (
            "search",
            json!({ "query": "rows", "limit": "3" }),
            "`limit` must be an integer from 1 to",
        ),
        (
            "get_method",
            json!({ "name": 7 }),
            "`name` must be a string, not a number",
        ),
        ("get_method", json!({}), "`name` is required"),
    ] {
        let text = tool_error(&server, tool, arguments.clone()).await;
        assert!(text.starts_with(expected), "{arguments}: {text}");
    }
    let text = tool_error(&server, "search", json!({ "query": "rows", "limit": "3" })).await;
    assert!(text.contains("not a string"), "{text}");
    // 2025-06-18 gets the same words as a protocol error.
    let old = legacy(
        &server,
        "2025-06-18",
        "tools/call",
        json!({ "name": "search", "arguments": { "query": 123 } }),
    )
    .await;
    assert_eq!(error_code(&old), -32602);
    assert!(old.json()["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("not a number")));
}

#[tokio::test]
async fn an_integral_number_is_an_integer_where_one_is_asked() {
    let server = start_server().await;
    for limit in [json!(3), json!(3.0), json!(3e0)] {
        let result = call(
            &server,
            "search",
            json!({ "query": "rows", "limit": limit }),
        )
        .await;
        assert!(result.get("isError").is_none(), "{limit}: {result}");
        assert_eq!(
            result["structuredContent"]["results"]
                .as_array()
                .map(Vec::len),
            Some(3),
            "{limit}"
        );
    }
    for limit in [json!(2.5), json!(-1.0), json!(1e300), json!(true)] {
        let text = tool_error(
            &server,
            "search",
            json!({ "query": "rows", "limit": limit }),
        )
        .await;
        assert!(
            text.starts_with("`limit` must be an integer"),
            "{limit}: {text}"
        );
    }
}

#[tokio::test]
async fn get_method_suggests_what_search_finds_for_the_name() {
    let server = start_server().await;
    for (name, meant) in [
        ("selct", "select"),
        ("upsert", "replace"),
        ("lastInsertId", "id"),
        ("findOne", "get"),
        ("insert_id", "id"),
    ] {
        let text = tool_error(&server, "get_method", json!({ "name": name })).await;
        assert_eq!(
            text,
            format!("No method is named `{name}`; did you mean `{meant}`?"),
            "{name}"
        );
    }
    let text = tool_error(&server, "get_method", json!({ "name": "kubernetes" })).await;
    assert!(
        text.starts_with("No method is named `kubernetes`. The methods: select, "),
        "{text}"
    );
}

#[tokio::test]
async fn a_search_echoes_only_the_part_of_the_query_it_read() {
    let server = start_server().await;
    let ask = |query: String| {
        legacy(
            &server,
            "2025-11-25",
            "tools/call",
            json!({ "name": "search", "arguments": { "query": query } }),
        )
    };
    // 10 KB, of which the first 500 bytes are read: 100 times "rows ".
    let long = ask("rows ".repeat(2_000)).await;
    let read = ask("rows ".repeat(100)).await;
    let echoed = long.json()["result"]["structuredContent"]["query"].clone();
    assert_eq!(
        echoed.as_str().map(str::len),
        Some(499),
        "trimmed, as a query is"
    );
    assert_eq!(
        String::from_utf8_lossy(&long.body),
        String::from_utf8_lossy(&read.body),
        "a longer query gives the same answer"
    );
    assert!(long.body.len() < 10_000, "{} bytes", long.body.len());
}

#[tokio::test]
async fn a_search_that_finds_nothing_says_so_and_lists_every_method() {
    let server = start_server().await;
    let result = call(
        &server,
        "search",
        json!({ "query": "kubernetes helm chart" }),
    )
    .await;
    assert_eq!(result["structuredContent"]["results"], json!([]));
    assert_eq!(
        result["structuredContent"]["methods"]
            .as_array()
            .map(Vec::len),
        Some(shipped_methods().len())
    );
    assert!(result["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("No method matches")));
    assert!(
        result.get("isError").is_none(),
        "no match is an answer, not an error"
    );
    // A long query is read up to its limits, and answered.
    let long = "rows ".repeat(2_000);
    let result = call(&server, "search", json!({ "query": long })).await;
    assert!(!result["structuredContent"]["results"]
        .as_array()
        .is_some_and(Vec::is_empty));
}

/// The questions of `tests/data/search_questions.tsv`: top-1 and top-3.
#[tokio::test]
async fn search_finds_the_method_for_natural_questions() {
    let server = start_server().await;
    let questions = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/search_questions.tsv"
    ))
    .expect("the question set");
    let (mut asked, mut first, mut top3, mut misses) = (0, 0, 0, Vec::new());
    for line in questions
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (question, expected) = line.split_once('\t').expect("question TAB method");
        let result = call(&server, "search", json!({ "query": question, "limit": 3 })).await;
        let names: Vec<String> = result["structuredContent"]["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["name"].as_str().map(String::from))
            .collect();
        asked += 1;
        first += usize::from(names.first().is_some_and(|n| n == expected));
        top3 += usize::from(names.iter().any(|n| n == expected));
        if names.first().is_none_or(|n| n != expected) {
            misses.push(format!("{question} → {names:?} (wanted {expected})"));
        }
    }
    println!(
        "search quality: top-1 {first}/{asked} ({:.1}%), top-3 {top3}/{asked} ({:.1}%); not first:\n  {}",
        100.0 * first as f64 / asked as f64,
        100.0 * top3 as f64 / asked as f64,
        misses.join("\n  ")
    );
    assert!(asked >= 80);
    assert!(top3 * 100 >= asked * 95, "top-3 {top3}/{asked}");
    assert!(first * 100 >= asked * 85, "top-1 {first}/{asked}");
}

/// The first results' names, and the first's `why`, of a search.
async fn searched(server: &Server, query: &str) -> (Vec<String>, String) {
    let result = call(server, "search", json!({ "query": query, "limit": 3 })).await;
    let results = result["structuredContent"]["results"].clone();
    let names = results
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["name"].as_str().map(String::from))
        .collect();
    (names, results[0]["why"].as_str().unwrap_or_default().into())
}

#[tokio::test]
async fn search_forgives_typos_and_accents_and_reads_the_examples_code() {
    let server = start_server().await;
    // A word the index lacks is read as the nearest words of the reference.
    for (typo, method, meant) in [
        ("selct", "select", "select"),
        ("insrt", "insert", "insert"),
        ("delte", "delete", "delete"),
        ("upadte", "update", "update"),
        ("avarage", "avg", "average"),
    ] {
        let (names, why) = searched(&server, typo).await;
        assert_eq!(names.first().map(String::as_str), Some(method), "{typo}");
        assert!(
            why.contains(&format!("“{typo}” (read as “{meant}”)")),
            "{typo}: {why}"
        );
    }
    // Under five letters a word is not corrected: `user` is not `used`.
    let (_, why) = searched(&server, "user").await;
    assert!(!why.contains("read as"), "{why}");
    // Accents are folded in the query as in the index.
    assert_eq!(searched(&server, "sélect").await.0[0], "select");
    assert_eq!(searched(&server, "SÉLECT").await.0[0], "select");
    // The examples' operators and clause keys are terms.
    for (query, method) in [
        ("[<>]", "select"),
        ("[!]", "select"),
        ("[+]", "update"),
        ("LIMIT", "select"),
        ("GROUP HAVING", "select"),
        ("NOW()", "raw"),
    ] {
        let (names, why) = searched(&server, query).await;
        assert_eq!(names.first().map(String::as_str), Some(method), "{query}");
        assert!(!why.is_empty(), "{query}");
    }
    let (names, why) = searched(&server, "[!]").await;
    assert_eq!(names, ["select"], "only select's examples use [!]");
    assert!(why.contains("“[!]” in an example's code"), "{why}");
    // Other libraries' names, from the methods' synonyms.
    for (name, method) in [
        ("findOne", "get"),
        ("findAll", "select"),
        ("lastInsertId", "id"),
        ("upsert", "replace"),
        ("pluck", "select"),
        ("paginate", "select"),
        ("exists", "has"),
        ("increment", "update"),
        ("getQueryLog", "log"),
    ] {
        assert_eq!(searched(&server, name).await.0[0], method, "{name}");
    }
}

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
