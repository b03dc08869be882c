//! A crawl from `/` and the documents crawlers and agents start from: every
//! link of every HTML and Markdown page, every sitemap URL and every
//! llms.txt link answers 200 — no dead links.

use crate::support::{start_server, Server};
use std::collections::{BTreeSet, VecDeque};

/// The links of a body: `href="…"` in HTML, `](…)` in Markdown, `<loc>…` in XML.
fn links(body: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [("href=\"", "\""), ("](", ")"), ("<loc>", "</loc>")] {
        for piece in body.split(open).skip(1) {
            if let Some(end) = piece.find(close) {
                found.push(piece[..end].to_string());
            }
        }
    }
    found
}

/// A link as a path on the server under test, if it points to us.
fn local(server: &Server, link: &str) -> Option<String> {
    let base = &refserve::table::production().base_url;
    let path = link
        .strip_prefix(base)
        .or_else(|| link.strip_prefix(server.origin.as_str()))
        .unwrap_or(link);
    let path = path.split('#').next().unwrap_or_default();
    (path.starts_with('/') && !path.starts_with("//")).then(|| path.to_string())
}

#[tokio::test]
async fn every_link_answers_200() {
    let server = start_server().await;
    let mut queue: VecDeque<String> = [
        "/",
        "/index.md",
        "/llms.txt",
        "/llms-full.txt",
        "/sitemap.xml",
        "/robots.txt",
        "/.well-known/api-catalog",
        "/.well-known/agent-skills/index.json",
        "/mcp/server-card",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    // The skill the index lists (its address holds the site's title).
    let skill = refserve::table::production()
        .resources
        .iter()
        .find(|resource| resource.id.ends_with("/SKILL.md"))
        .expect("the Agent Skills index's skill");
    queue.push_back(skill.id.clone());
    let mut seen = BTreeSet::new();
    while let Some(path) = queue.pop_front() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let first = server.get(&path, &[]).await;
        assert_eq!(first.status, 200, "{path}");
        let mut replies = vec![first];
        if replies[0].header("content-type").starts_with("text/html") {
            // A page: its Markdown representation has links of its own to follow.
            replies.push(server.get(&path, &[("accept", "text/markdown")]).await);
        }
        for reply in replies {
            assert_eq!(reply.status, 200, "{path}");
            let body = String::from_utf8_lossy(&reply.decoded()).into_owned();
            queue.extend(links(&body).iter().filter_map(|link| local(&server, link)));
        }
    }
    assert!(
        seen.contains("/favicon.svg"),
        "the crawl reaches /favicon.svg"
    );
    // Every page in every language: the pages link in their own language,
    // and each page's language switcher to the others.
    let table = refserve::table::production();
    let languages: Vec<String> = table
        .languages
        .iter()
        .map(|l| l.tag.to_ascii_lowercase())
        .collect();
    assert!(languages.len() > 1, "{languages:?}");
    for language in &languages {
        for path in ["/", "/api/", "/api/index.md"] {
            let path = format!("/{language}{path}");
            assert!(seen.contains(&path), "the crawl reaches {path}");
        }
        for key in &table.keys {
            for path in [
                format!("/{language}/api/{key}"),
                format!("/{language}/api/{key}.md"),
            ] {
                assert!(seen.contains(&path), "the crawl reaches {path}");
            }
        }
    }
    for key in table.keys.iter() {
        assert!(
            seen.contains(&format!("/api/reference/{key}.json")),
            "the crawl reaches the JSON of {key}"
        );
    }
}
