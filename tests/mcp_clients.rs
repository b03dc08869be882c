//! `/mcp` with the official MCP SDKs as clients.
//!
//! The Python SDK (`mcp` on PyPI) and the TypeScript SDK
//! (`@modelcontextprotocol/client` on npm), installed pinned by
//! `tests/tools/install.sh` for `tests/tools/full`, connect to the live server at 2026-07-28
//! (`server/discover`, then the stateless per-request envelope) and at
//! 2025-06-18 (the `initialize` handshake offering only that version). Each
//! run lists the tools and calls every one (`get_method` for every method
//! `list_methods` names), searches, and reads every resource through the
//! SDK, which validates each answer against its own schemas. The scripts,
//! `tests/tools/mcp_client.py` and `tests/tools/mcp_client.cjs`, check the
//! answers and print one JSON summary line, checked here.

use crate::support::{node_file, python_tool, run, shipped_methods, start_server, system_tool};
use std::process::Command;

/// `tests/tools/<name>`.
fn script(name: &str) -> String {
    format!("{}/tests/tools/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The Python SDK's client script, run by the venv's Python.
fn python() -> Command {
    let mut command = python_tool("python");
    command.arg(script("mcp_client.py"));
    command
}

/// The TypeScript SDK's client script, with the installed modules.
fn typescript() -> Command {
    let mut command = Command::new(system_tool("node"));
    command
        .arg(script("mcp_client.cjs"))
        .env("NODE_PATH", node_file(""));
    command
}

/// Run a client script against a fresh server's `/mcp` at `version`: it must
/// succeed and report every tool, method and resource, at `version`.
async fn exercise(mut client: Command, version: &str) {
    let server = start_server().await;
    client.arg(format!("{}/mcp", server.origin)).arg(version);
    let outcome = run(client).await;
    outcome.assert_success();
    let summary: serde_json::Value = outcome
        .stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("no JSON summary line:\n{}", outcome.output));
    println!("{summary}");
    assert_eq!(summary["version"], version, "{}", outcome.output);
    assert_eq!(summary["tools"], 3, "{}", outcome.output);
    // A resource for every method in each language, `llms.txt` and
    // `llms-full.txt`.
    let methods = shipped_methods().len();
    let languages = refserve::table::production().languages.len();
    assert_eq!(summary["methods"], methods, "{}", outcome.output);
    assert_eq!(
        summary["resources"],
        methods * languages + 2,
        "{}",
        outcome.output
    );
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn python_sdk_at_2026_07_28() {
    exercise(python(), "2026-07-28").await;
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn python_sdk_at_2025_06_18() {
    exercise(python(), "2025-06-18").await;
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn typescript_sdk_at_2026_07_28() {
    exercise(typescript(), "2026-07-28").await;
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn typescript_sdk_at_2025_06_18() {
    exercise(typescript(), "2025-06-18").await;
}
