//! Discovery for agents: robots.txt's `Content-Signal` line, which
//! `site.json` changes.

use crate::dev::Dev;
use crate::support::start_server;
use refserve_pipeline::content;
use serde_json::{json, Value};

/// The `Content-Signal` lines of robots.txt's `User-agent: *` group.
fn content_signals(robots: &str) -> Vec<String> {
    let group = robots
        .split("User-agent: *\n")
        .nth(1)
        .expect("a User-agent: * group");
    let group = group.split("\n\n").next().unwrap_or_default();
    group
        .lines()
        .filter_map(|line| line.strip_prefix("Content-Signal: "))
        .map(String::from)
        .collect()
}

#[tokio::test]
async fn robots_txt_allows_search_ai_input_and_ai_training_by_default() {
    let server = start_server().await;
    let robots = String::from_utf8(server.get("/robots.txt", &[]).await.decoded()).expect("UTF-8");
    assert_eq!(
        content_signals(&robots),
        ["search=yes, ai-input=yes, ai-train=yes"],
        "{robots}"
    );
}

#[tokio::test]
async fn site_json_changes_the_content_signals() {
    let dev = Dev::start("content-signals", |scratch| {
        let path = scratch.path().join("content/site.json");
        let site = std::fs::read_to_string(&path).expect("site.json");
        let mut site: Value = serde_json::from_str(&site).expect("JSON");
        site["content_signals"] = json!({ "search": true, "ai-train": false });
        scratch.write("content/site.json", site.to_string());
    });
    let robots = dev.client().get("/robots.txt", &[]).await;
    assert_eq!(robots.status, 200);
    let robots = String::from_utf8(robots.decoded()).expect("UTF-8");
    assert_eq!(
        content_signals(&robots),
        ["search=yes, ai-train=no"],
        "ai-input left out is neither granted nor refused: {robots}"
    );
}

#[test]
fn content_signals_that_say_nothing_or_something_else_are_refused() {
    for (signals, error) in [
        (
            json!({}),
            "content/site.json: field `content_signals`: must state at least one of `search`, \
             `ai-input` and `ai-train` (true or false); leave the field out to allow all three",
        ),
        (
            json!({ "search": "yes" }),
            "content/site.json: field `content_signals.search`: invalid type: string \"yes\", \
             expected a boolean",
        ),
        (
            json!({ "ai_train": true }),
            "content/site.json: field `content_signals.ai_train`: unknown field `ai_train`, \
             expected one of `search`, `ai-input`, `ai-train`",
        ),
    ] {
        let scratch = crate::support::content_copy("signals");
        let path = scratch.path().join("content/site.json");
        let mut site: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("site.json"))
                .expect("JSON");
        site["content_signals"] = signals.clone();
        scratch.write(
            "content/site.json",
            serde_json::to_string_pretty(&site).expect("JSON"),
        );
        let message = content::load(scratch.path(), "content", "http://x".into(), 0)
            .map(|_| ())
            .expect_err("refused")
            .to_string();
        assert!(message.starts_with(error), "{signals}: {message}");
    }
}
