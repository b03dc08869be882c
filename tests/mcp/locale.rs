//! The tools asked in a `locale`: `list_methods` and `search` answer in the
//! language it chooses (negotiated as `Accept-Language` is, English when it
//! names none served), `_meta` saying which locale was served and which
//! methods fell back to English or are outdated; without one, they answer
//! as before. Each language's method pages are resources.

use super::{legacy, modern};
use crate::support::{content_copy, mcp_call as call, start_server, start_server_on, Server};
use refserve_pipeline::content;
use serde_json::{json, Value};

/// Whether `text` holds a Chinese character.
fn is_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// The methods of a `list_methods` or `search` result.
fn methods(result: &Value, member: &str) -> Vec<Value> {
    result["structuredContent"][member]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn list_methods_answers_in_the_locale_asked() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let english = call(&server, "list_methods", json!({})).await;
    assert!(english.get("_meta").is_none(), "{english}");
    for locale in ["zh-Hans", "zh-CN", "zh"] {
        let chinese = call(&server, "list_methods", json!({ "locale": locale })).await;
        let listed = methods(&chinese, "methods");
        assert_eq!(listed.len(), methods(&english, "methods").len());
        for method in &listed {
            let name = method["name"].as_str().expect("a name");
            assert!(
                method["description"].as_str().is_some_and(is_chinese),
                "{locale}: {method}"
            );
            assert_eq!(
                method["url"],
                format!("{base}/zh-hans/api/{name}"),
                "{locale}"
            );
        }
        let select = listed.iter().find(|m| m["name"] == "select");
        assert!(
            select.is_some_and(|m| m["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("从数据表中读取行"))),
            "{select:?}"
        );
        let text = chinese["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.starts_with("全部 24 个已收录的方法："), "{text}");
        assert_eq!(
            chinese["_meta"],
            json!({ "locale": "zh-Hans", "untranslated": [], "outdated": [] }),
            "{locale}"
        );
    }
    // A locale the site lacks, or not a tag at all: English, saying so.
    for locale in ["zh-TW", "de", "!!", "", "en-GB"] {
        let answer = call(&server, "list_methods", json!({ "locale": locale })).await;
        assert_eq!(answer["content"], english["content"], "{locale}");
        assert_eq!(
            answer["structuredContent"], english["structuredContent"],
            "{locale}"
        );
        assert_eq!(answer["_meta"]["locale"], "en", "{locale}");
    }
    let wrong = call(&server, "list_methods", json!({ "locale": 7 })).await;
    assert_eq!(wrong["isError"], true, "{wrong}");
    let other = call(&server, "list_methods", json!({ "lang": "zh" })).await;
    assert_eq!(other["isError"], true, "{other}");
}

#[tokio::test]
async fn search_searches_and_answers_in_the_locale_asked() {
    let server = start_server().await;
    let asked = json!({ "query": "插入一条记录", "locale": "zh-CN" });
    let chinese = call(&server, "search", asked.clone()).await;
    let found = methods(&chinese, "results");
    assert_eq!(found.first().map(|m| &m["name"]), Some(&json!("insert")));
    for method in &found {
        for member in ["description", "why"] {
            assert!(
                method[member].as_str().is_some_and(is_chinese),
                "{member}: {method}"
            );
        }
    }
    let text = chinese["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("与查询匹配的方法"), "{text}");
    assert!(text.contains("匹配："), "the why line in Chinese: {text}");
    assert_eq!(
        chinese["_meta"],
        json!({ "locale": "zh-Hans", "untranslated": [], "outdated": [] })
    );
    // The same methods in the same order as without a locale: one index.
    let unlocalized = call(&server, "search", json!({ "query": "插入一条记录" })).await;
    let names =
        |results: &[Value]| -> Vec<Value> { results.iter().map(|m| m["name"].clone()).collect() };
    assert_eq!(
        names(&found),
        names(&methods(&unlocalized, "results")),
        "{unlocalized}"
    );
    assert!(unlocalized.get("_meta").is_none(), "{unlocalized}");
    // Nothing found: said in Chinese, every method listed.
    let nothing = call(
        &server,
        "search",
        json!({ "query": "zzzzqqq", "locale": "zh-Hans" }),
    )
    .await;
    let text = nothing["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("没有与查询匹配的方法。"), "{text}");
    assert!(!methods(&nothing, "methods").is_empty(), "{nothing}");
    // A locale the site lacks: English, saying so.
    let english = call(&server, "search", json!({ "query": "insert many rows" })).await;
    for locale in ["zh-TW", "de", "!!"] {
        let answer = call(
            &server,
            "search",
            json!({ "query": "insert many rows", "locale": locale }),
        )
        .await;
        assert_eq!(answer["content"], english["content"], "{locale}");
        assert_eq!(answer["_meta"]["locale"], "en", "{locale}");
    }
    // In the 2026-07-28 era, `_meta` names the server beside the locale.
    let reply = modern(
        &server,
        "tools/call",
        json!({ "name": "search", "arguments": asked }),
    )
    .await;
    let result = &reply.json()["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"]["locale"], "zh-Hans", "{result}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "refserve"
    );
    assert_eq!(result["content"], chinese["content"]);
}

#[tokio::test]
async fn each_language_s_pages_are_resources() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let list = legacy(&server, "2025-11-25", "resources/list", json!({}))
        .await
        .json();
    let resources = list["result"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let uri = format!("{base}/zh-hans/api/select.md");
    let select = resources.iter().find(|r| r["uri"] == uri);
    let select = select.unwrap_or_else(|| panic!("{uri} is listed: {list}"));
    assert_eq!(
        select["_meta"],
        json!({ "locale": "zh-Hans", "translation": "current" })
    );
    assert_eq!(select["mimeType"], "text/markdown");
    // The English pages keep their addresses, and say nothing of a locale.
    let english = format!("{base}/api/select.md");
    let english = resources.iter().find(|r| r["uri"] == english);
    assert!(english.is_some_and(|r| r.get("_meta").is_none()), "{list}");
    let read = legacy(
        &server,
        "2025-11-25",
        "resources/read",
        json!({ "uri": uri }),
    )
    .await
    .json();
    let contents = &read["result"]["contents"][0];
    let text = contents["text"].as_str().unwrap_or_default();
    assert!(text.contains("从数据表中读取行"), "{text}");
    assert_eq!(contents["_meta"]["locale"], "zh-Hans");
    // The page get_method links to in that locale.
    let got = call(
        &server,
        "get_method",
        json!({ "name": "select", "locale": "zh-CN" }),
    )
    .await;
    assert_eq!(got["content"][1]["uri"], uri.as_str());
    assert_eq!(got["content"][1]["title"], select["title"]);
}

#[tokio::test]
async fn every_tool_takes_the_same_locale_and_says_so() {
    let server = start_server().await;
    let reply = legacy(&server, "2025-11-25", "tools/list", json!({})).await;
    let tools = reply.json()["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let locale = &tools[1]["inputSchema"]["properties"]["locale"];
    assert!(
        locale["description"]
            .as_str()
            .is_some_and(|d| d.contains("en, zh-Hans")),
        "{locale}"
    );
    for tool in &tools {
        assert_eq!(
            &tool["inputSchema"]["properties"]["locale"], locale,
            "{}",
            tool["name"]
        );
        assert!(
            tool["description"]
                .as_str()
                .is_some_and(|d| d.contains("`locale` (en, zh-Hans)")
                    || d.contains("any of en, zh-Hans. With `locale`")),
            "{tool}"
        );
    }
    // The skill names the languages and how to ask for one.
    let index = server
        .get("/.well-known/agent-skills/index.json", &[])
        .await
        .json();
    let url = index["skills"][0]["url"].as_str().expect("the skill's url");
    let skill = String::from_utf8(server.get(url, &[]).await.decoded()).expect("UTF-8");
    for text in [
        "English (`en`), 简体中文 (`zh-Hans`)",
        "give any tool `locale`",
        "/zh-hans/api/<name>.md",
        "/zh-hans/search?q=<words>",
    ] {
        assert!(skill.contains(text), "{text}: {skill}");
    }
}

/// A server of a content copy whose Chinese lacks `has` and whose English
/// `count` changed since it was translated.
async fn partly_translated() -> Server {
    let scratch = content_copy("mcp-partly-translated");
    std::fs::remove_file(scratch.path().join("content/zh-hans/methods/has.md"))
        .expect("has is translated");
    let file = "content/methods/count.md";
    let text = std::fs::read_to_string(scratch.path().join(file)).expect("count");
    let from = "Counts the rows of a table";
    assert!(text.contains(from));
    scratch.write(
        file,
        text.replacen(from, "Counts the records of a table", 1),
    );
    let editions =
        content::load(scratch.path(), "content", "http://x".into(), 0).expect("valid content");
    start_server_on(refserve_pipeline::preview(&editions)).await
}

#[tokio::test]
async fn a_method_not_translated_is_listed_in_english_saying_so() {
    let server = partly_translated().await;
    let listed = call(&server, "list_methods", json!({ "locale": "zh-Hans" })).await;
    assert_eq!(
        listed["_meta"],
        json!({ "locale": "zh-Hans", "untranslated": ["has"], "outdated": ["count"] })
    );
    let all = methods(&listed, "methods");
    let has = all.iter().find(|m| m["name"] == "has").expect("has");
    assert_eq!(
        has["description"],
        "Checks whether a table holds at least one record that matches a condition."
    );
    let text = listed["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("**has**: Checks whether a table holds at least one record that matches a condition.（尚未翻译，以英文显示）"),
        "{text}"
    );
    assert!(text.contains("（译文可能已过时）"), "{text}");
    let found = call(
        &server,
        "search",
        json!({ "query": "has", "locale": "zh-Hans", "limit": 1 }),
    )
    .await;
    assert_eq!(
        found["_meta"],
        json!({ "locale": "zh-Hans", "untranslated": ["has"], "outdated": [] }),
        "{found}"
    );
    let got = call(
        &server,
        "get_method",
        json!({ "name": "has", "locale": "zh-Hans" }),
    )
    .await;
    assert_eq!(got["_meta"]["translation"], "untranslated");
}
