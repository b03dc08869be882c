//! The pages in a real browser (Debian's headless Chromium): Lighthouse's
//! mobile audit scores 100 for accessibility, best practices and SEO (the
//! search results page, `noindex`, for the first two), axe-core finds no
//! violation in the light or the dark scheme, a reader who opens `/` and
//! follows links gets every method page compressed against the
//! dictionary, and one with JavaScript off searches from the header's box
//! and follows and opens the page actions with the keyboard. Performance depends on timing, so
//! `benches/lighthouse.sh` reports it instead.

use crate::support::{node_file, run, start_server, system_tool, tools, Outcome};
use std::process::Command;

/// Chromium's flags for this machine: headless, no sandbox (tests run as
/// root), and nothing that reaches for the network on its own.
const CHROMIUM_FLAGS: &str = "--headless=new --no-sandbox --disable-gpu --disable-quic \
     --no-first-run --disable-background-networking --disable-component-update --disable-sync";

async fn lighthouse(url: &str) -> (serde_json::Value, Outcome) {
    let mut command = Command::new(tools().join("bin/lighthouse"));
    command
        .arg(url)
        .args(["--quiet", "--output=json", "--output-path=stdout"])
        .arg("--only-categories=accessibility,best-practices,seo")
        .arg(format!("--chrome-flags={CHROMIUM_FLAGS}"))
        .env("CHROME_PATH", system_tool("chromium"));
    let outcome = run(command).await;
    outcome.assert_success();
    let report = serde_json::from_str(&outcome.stdout).expect("a JSON report");
    (report, outcome)
}

/// What a script printed: one JSON value a line.
fn json_lines(outcome: &Outcome) -> Vec<serde_json::Value> {
    outcome
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// `node tests/tools/<script>`, with the installed modules and Chromium.
fn chromium_script(script: &str) -> Command {
    let mut command = Command::new(system_tool("node"));
    command
        .arg(format!(
            "{}/tests/tools/{script}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .env("NODE_PATH", node_file(""))
        .env("CHROME_PATH", system_tool("chromium"));
    command
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn lighthouse_scores_100_for_accessibility_best_practices_and_seo() {
    let server = start_server().await;
    for path in [
        "/",
        "/api/",
        "/api/select",
        "/zh-hans/",
        "/zh-hans/api/select",
    ] {
        let (report, _) = lighthouse(&format!("{}{path}", server.origin)).await;
        for category in ["accessibility", "best-practices", "seo"] {
            let score = report["categories"][category]["score"].as_f64();
            let failing: Vec<String> = report["audits"]
                .as_object()
                .expect("audits")
                .values()
                .filter(|a| a["score"].as_f64().is_some_and(|s| s < 1.0))
                .map(|a| format!("{}: {}", a["id"], a["title"]))
                .collect();
            assert_eq!(score, Some(1.0), "{path} {category}: {failing:#?}");
        }
    }
    // A results page is not to be indexed (SEO scores that), and is
    // otherwise held to the same.
    let (report, _) = lighthouse(&format!("{}/search?q=count+rows", server.origin)).await;
    for category in ["accessibility", "best-practices"] {
        let score = report["categories"][category]["score"].as_f64();
        assert_eq!(score, Some(1.0), "/search {category}: {report:#}");
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn axe_finds_no_violation_in_either_scheme() {
    let server = start_server().await;
    let mut command = chromium_script("axe.cjs");
    let paths = [
        "/",
        "/api/select",
        "/zh-hans/api/select",
        "/api/selct",
        "/zh-hans/api/selct",
        "/search?q=count+rows",
        "/zh-hans/search?q=%E7%BB%9F%E8%AE%A1%E8%A1%8C%E6%95%B0",
        "/search?q=slectt+xyzzy",
        "/search?q=",
    ];
    command.args(paths.map(|path| format!("{}{path}", server.origin)));
    let outcome = run(command).await;
    outcome.assert_success();
    let pages = json_lines(&outcome);
    assert_eq!(
        pages.len(),
        2 * paths.len(),
        "every page in two schemes: {}",
        outcome.output
    );
    for page in pages {
        assert_eq!(page["violations"], serde_json::json!([]), "{page}");
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn chromium_reads_the_method_pages_dictionary_compressed() {
    let server = start_server().await;
    let paths: Vec<String> = refserve::table::production()
        .keys
        .iter()
        .map(|key| format!("/en/api/{key}"))
        .collect();
    let mut command = Command::new(system_tool("node"));
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/tools/dictionary.cjs"
        ))
        .arg(&server.origin)
        .args(&paths)
        .env("NODE_PATH", node_file(""))
        .env("CHROME_PATH", system_tool("chromium"));
    let outcome = run(command).await;
    outcome.assert_success();
    let visits = json_lines(&outcome);
    // `/`, the dictionary, then every method page by following links.
    assert_eq!(visits.len(), paths.len() + 2, "{}", outcome.output);
    assert_eq!(visits[0]["encoding"], "br", "{}", visits[0]);
    assert_eq!(
        visits[1]["path"],
        *refserve::table::production().dictionaries[0].path
    );
    for (visit, path) in visits[2..].iter().zip(&paths) {
        assert_eq!(visit["path"], path.as_str());
        assert_eq!(visit["status"], 200, "{visit}");
        assert!(
            matches!(visit["encoding"].as_str(), Some("dcb" | "dcz")),
            "{visit}\n{}",
            outcome.output
        );
        let key = path.trim_start_matches("/en/api/");
        assert!(
            visit["title"]
                .as_str()
                .is_some_and(|t| t.starts_with(&format!("{key} · "))),
            "decoded and shown: {visit}"
        );
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_reader_without_javascript_searches_from_the_header_with_the_keyboard() {
    let server = start_server().await;
    let mut command = chromium_script("search.cjs");
    command
        .arg(&server.origin)
        .args(["count the rows that match", "Select"]);
    let outcome = run(command).await;
    outcome.assert_success();
    let visits = json_lines(&outcome);
    assert_eq!(visits.len(), 2, "{}", outcome.output);
    // Typed, Enter: the results page, ranked as the JSON answer ranks.
    let results = &visits[0];
    assert_eq!(results["status"], 200, "{results}");
    // The box of an English page searches the English pages.
    assert_eq!(results["path"], "/en/search?q=count+the+rows+that+match");
    let expected = server
        .get(
            "/en/search?q=count+the+rows+that+match",
            &[("accept", "application/json")],
        )
        .await
        .json();
    let ranked: Vec<&serde_json::Value> = expected["data"]
        .as_array()
        .expect("results")
        .iter()
        .map(|hit| &hit["key"])
        .collect();
    assert!(ranked.len() > 1, "{expected}");
    assert_eq!(
        results["results"]
            .as_array()
            .map(|r| r.iter().collect::<Vec<_>>()),
        Some(ranked)
    );
    // The box is reached with Tab, after the skip link and the site's links.
    assert!(
        results["tabs"]
            .as_u64()
            .is_some_and(|tabs| (1..10).contains(&tabs)),
        "{results}"
    );
    // A method's name: its page.
    let exact = &visits[1];
    assert_eq!(exact["status"], 200, "{exact}");
    assert_eq!(exact["path"], "/en/api/select");
    assert_eq!(
        exact["redirected"],
        serde_json::json!(["/en/search?q=Select"])
    );
    assert!(exact["title"]
        .as_str()
        .is_some_and(|title| title.starts_with("select · ")));
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_reader_without_javascript_uses_the_page_actions_with_the_keyboard() {
    let server = start_server().await;
    let mut command = chromium_script("actions.cjs");
    command.arg(&server.origin).arg("/en/api/select");
    let outcome = run(command).await;
    outcome.assert_success();
    let used = &json_lines(&outcome)[0];
    // Reached with Tab, after the header and the title.
    assert!(
        used["tabs"]
            .as_u64()
            .is_some_and(|tabs| (1..20).contains(&tabs)),
        "{used}"
    );
    // Enter on the first action: the page's Markdown twin.
    assert_eq!(
        used["followed"],
        serde_json::json!({
            "status": 200,
            "path": "/en/api/select.md",
            "type": "text/markdown; charset=utf-8"
        })
    );
    // The disclosure opens with Enter, and its links come next.
    assert_eq!(used["opened"], true, "{used}");
    let links: Vec<&str> = used["links"]
        .as_array()
        .expect("links")
        .iter()
        .filter_map(|link| link.as_str())
        .collect();
    let forms = [
        "/en/api/select.md",
        "https://chatgpt.com/?q=",
        "https://claude.ai/new?q=",
        "https://www.perplexity.ai/search?q=",
        "cursor://anysphere.cursor-deeplink/mcp/install?",
        "vscode:mcp/install?",
    ];
    assert_eq!(links.len(), forms.len(), "{used}");
    for (link, form) in links.iter().zip(forms) {
        assert!(link.starts_with(form), "{link} is not {form}…");
    }
}
