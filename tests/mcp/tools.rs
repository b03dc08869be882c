//! The tools and resources: the listing and its schemas, `get_method` and
//! every resource against the documents they repeat, the size of every
//! answer, and wrong tools, arguments and types.

use super::{error_code, legacy, modern};
use crate::support::{mcp_call as call, shipped_methods, start_server, Server};
use serde_json::{json, Value};

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
    // Every method's page in each language, `llms.txt` and `llms-full.txt`.
    let languages = refserve::table::production().languages.len();
    assert_eq!(resources.len(), shipped_methods().len() * languages + 2);
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
            json!({ "name": "list_methods", "arguments": { "locale": "zh-Hans" } }),
        ),
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
