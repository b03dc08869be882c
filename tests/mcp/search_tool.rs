//! The `search` tool: the query it echoes, the answer when nothing matches,
//! the natural questions it must find, and the typos, accents, code and
//! other libraries' names it forgives.

use super::legacy;
use crate::support::{mcp_call as call, shipped_methods, start_server, Server};
use serde_json::json;

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

/// The questions of `tests/data/search_questions.tsv`: top-1 and top-3,
/// of the English questions and of the Chinese ones apart (one index holds
/// both languages' texts).
#[tokio::test]
async fn search_finds_the_method_for_natural_questions() {
    let server = start_server().await;
    let questions = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/search_questions.tsv"
    ))
    .expect("the question set");
    let lines: Vec<&str> = questions
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    let is_chinese = |line: &&str| line.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    let (chinese, english): (Vec<&str>, Vec<&str>) = lines.into_iter().partition(is_chinese);
    assert!(english.len() >= 80 && chinese.len() >= 40);
    for (language, lines) in [("English", english), ("Chinese", chinese)] {
        quality(&server, language, &lines).await;
    }
}

/// Ask MCP's `search` each question of `lines` (`question TAB method`);
/// print top-1 and top-3 and the misses, and hold them to 85 % and 95 %.
async fn quality(server: &Server, language: &str, lines: &[&str]) {
    let (mut asked, mut first, mut top3, mut misses) = (0, 0, 0, Vec::new());
    for line in lines {
        let (question, expected) = line.split_once('\t').expect("question TAB method");
        let result = call(server, "search", json!({ "query": question, "limit": 3 })).await;
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
        "search quality, {language}: top-1 {first}/{asked} ({:.1}%), top-3 {top3}/{asked} ({:.1}%); not first:\n  {}",
        100.0 * first as f64 / asked as f64,
        100.0 * top3 as f64 / asked as f64,
        misses.join("\n  ")
    );
    assert!(top3 * 100 >= asked * 95, "{language}: top-3 {top3}/{asked}");
    assert!(
        first * 100 >= asked * 85,
        "{language}: top-1 {first}/{asked}"
    );
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
