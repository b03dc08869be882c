//! The page actions: on the homepage, the index and each method's page, in
//! each language, plain links that open the page's Markdown twin, ChatGPT,
//! Claude and Perplexity with a prompt naming the twin's address, and the
//! MCP server's install links — each checked against its documented URL
//! form, and the twin it names fetched.

use crate::support::{shipped_methods, start_server, Server};

/// The attribute values `name="…"` in `html`, HTML-unescaped (`&amp;`).
fn attributes(html: &str, name: &str) -> Vec<String> {
    let opening = format!(" {name}=\"");
    html.match_indices(&opening)
        .map(|(at, _)| {
            let value = &html[at + opening.len()..];
            value[..value.find('"').expect("a closed attribute")].replace("&amp;", "&")
        })
        .collect()
}

/// `value` percent-decoded.
fn decoded(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ASCII");
            out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

/// The page actions of the page at `path`: its `<aside>`.
async fn actions(server: &Server, path: &str) -> String {
    let page = server.get(path, &[("accept", "text/html")]).await;
    assert_eq!(page.status, 200, "{path}");
    let html = page.text();
    assert!(
        !html.contains("<script"),
        "{path}: the actions need no script"
    );
    let start = html
        .find("<aside class=\"actions\"")
        .unwrap_or_else(|| panic!("{path} has no page actions"));
    let end = start + html[start..].find("</aside>").expect("the aside ends");
    // Under the title, before the content.
    assert!(
        html[..start].contains("</h1>"),
        "{path}: the actions follow the title"
    );
    html[start..end].to_string()
}

#[tokio::test]
async fn every_page_with_a_twin_hands_it_to_an_assistant_in_its_language() {
    let server = start_server().await;
    let base = &refserve::table::production().base_url;
    let mcp = format!("{base}/mcp");
    let mut pages = vec![
        ("en", "/en/".to_string(), "/en/index.md".to_string()),
        ("en", "/en/api/".to_string(), "/en/api/index.md".to_string()),
        (
            "zh-hans",
            "/zh-hans/".to_string(),
            "/zh-hans/index.md".to_string(),
        ),
    ];
    for key in shipped_methods() {
        for lang in ["en", "zh-hans"] {
            pages.push((
                lang,
                format!("/{lang}/api/{key}"),
                format!("/{lang}/api/{key}.md"),
            ));
        }
    }
    for (lang, path, twin) in pages {
        let aside = actions(&server, &path).await;
        let links = attributes(&aside, "href");
        assert_eq!(links.len(), 6, "{path}: {links:?}");

        // View as Markdown: the twin, which answers in Markdown.
        assert_eq!(links[0], twin, "{path}");
        let markdown = server.get(&twin, &[]).await;
        assert_eq!(markdown.status, 200, "{twin}");
        assert_eq!(
            markdown.header("content-type"),
            "text/markdown; charset=utf-8"
        );

        // ChatGPT, Claude and Perplexity, each with one prompt: in the
        // page's language, naming the twin's address, not its text.
        let prompt_of = |link: &str, form: &str| {
            let query = link
                .strip_prefix(form)
                .unwrap_or_else(|| panic!("{path}: {link} is not {form}…"));
            assert!(
                !query.contains(['&', '#', ' ']),
                "{path}: one query value: {query}"
            );
            decoded(query)
        };
        let prompt = prompt_of(&links[1], "https://chatgpt.com/?q=");
        assert_eq!(prompt_of(&links[2], "https://claude.ai/new?q="), prompt);
        assert_eq!(
            prompt_of(&links[3], "https://www.perplexity.ai/search?q="),
            prompt
        );
        assert!(
            prompt.contains(&format!("{base}{twin}")),
            "{path}: {prompt}"
        );
        let english = prompt.starts_with("Read ");
        assert_eq!(
            english,
            lang == "en",
            "{path}: a prompt in its language: {prompt}"
        );

        // Cursor: name and the server's JSON, base64 (Cursor's docs, "MCP
        // install links").
        let cursor = links[4]
            .strip_prefix(
                "cursor://anysphere.cursor-deeplink/mcp/install?name=method-reference&config=",
            )
            .unwrap_or_else(|| panic!("{path}: {}", links[4]));
        let config = {
            use base64::Engine;
            let text = decoded(cursor);
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .expect("base64")
        };
        let config: serde_json::Value = serde_json::from_slice(&config).expect("JSON");
        assert_eq!(config, serde_json::json!({ "url": mcp }), "{path}");

        // VS Code: the server's JSON, URL-encoded (its "MCP URL handler").
        let vscode = links[5]
            .strip_prefix("vscode:mcp/install?")
            .unwrap_or_else(|| panic!("{path}: {}", links[5]));
        let config: serde_json::Value = serde_json::from_str(&decoded(vscode)).expect("JSON");
        assert_eq!(
            config,
            serde_json::json!({ "name": "method-reference", "type": "http", "url": mcp }),
            "{path}"
        );

        // The server's address and Claude Code's command, to copy.
        assert!(aside.contains(&format!("<code>{mcp}</code>")), "{path}");
        let command = format!("claude mcp add --transport http method-reference {mcp}");
        assert!(aside.contains(&command), "{path}");
        // Labelled, the installs folded in a disclosure a keyboard opens.
        assert_eq!(attributes(&aside, "aria-label").len(), 1, "{path}");
        assert!(aside.contains("<details>\n<summary>"), "{path}");
    }
}

#[tokio::test]
async fn pages_without_a_twin_have_no_actions() {
    let server = start_server().await;
    for path in ["/search?q=count", "/api/nonexistent"] {
        let page = server.get(path, &[("accept", "text/html")]).await;
        assert!(!page.text().contains("class=\"actions\""), "{path}");
    }
}
