//! The page actions: on the homepage, the index and every method's page, a
//! small group of plain links (no script) that hand the page to an
//! assistant — its Markdown twin, ChatGPT, Claude and Perplexity opened with
//! a prompt naming the twin's address — and, folded in a `<details>`, the
//! reference's MCP server with the editors' install links and Claude Code's
//! command. Every label is the page's language's.
//!
//! The URL forms, and where each is documented:
//! - ChatGPT: `https://chatgpt.com/?q=<prompt>`, the address OpenAI gives
//!   for making ChatGPT search a browser's search engine (its help centre,
//!   "ChatGPT search").
//! - Claude: `https://claude.ai/new?q=<prompt>`, the path and parameter of
//!   Anthropic's "Open Claude Desktop with a link" (`claude://claude.ai/new?q=`)
//!   on the web, where no app need be installed.
//! - Perplexity: `https://www.perplexity.ai/search?q=<prompt>`, the address
//!   its help centre gives for making it a browser's search engine.
//! - Cursor: `cursor://anysphere.cursor-deeplink/mcp/install?name=<name>&config=<base64 of the server's JSON>`
//!   (Cursor's docs, "MCP install links").
//! - VS Code: `vscode:mcp/install?<URL-encoded JSON of name, type and url>`
//!   (VS Code's "MCP developer guide", "MCP URL handler").
//! - Claude Code: `claude mcp add --transport http <name> <url>` (its
//!   "Connect Claude Code to tools via MCP").

use super::escape;
use crate::address::Address;
use crate::content::{fill, Catalog};
use crate::render_markdown::MCP_ENTRY;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// The assistants a page opens in: each one's name and the address its
/// prompt is appended to, URL-encoded.
const ASSISTANTS: [(&str, &str); 3] = [
    ("ChatGPT", "https://chatgpt.com/?q="),
    ("Claude", "https://claude.ai/new?q="),
    ("Perplexity", "https://www.perplexity.ai/search?q="),
];

/// The actions of a page whose Markdown twin is at `twin` (a path), as an
/// `<aside>` for the top of its `main`.
pub(super) fn html(catalog: &Catalog, twin: &str) -> String {
    let words = &catalog.language.chrome;
    let base = &catalog.base_url;
    let prompt = fill(&words.ask_prompt, &[("url", &format!("{base}{twin}"))]);
    let mut links = format!(
        "<li><a href=\"{twin}\" type=\"text/markdown\">{}</a></li>",
        escape(&words.view_markdown)
    );
    for (name, address) in ASSISTANTS {
        let href = format!("{address}{}", encoded(&prompt));
        links.push_str(&item(&href, &fill(&words.open_in, &[("app", name)])));
    }
    let mcp = Address::Mcp.url(base);
    let installs = [
        ("Cursor", cursor_link(&mcp)),
        ("VS Code", vscode_link(&mcp)),
    ]
    .map(|(name, link)| item(&link, &fill(&words.add_to, &[("app", name)])))
    .concat();
    format!(
        "<aside class=\"actions\" aria-label=\"{label}\">\n<ul>{links}</ul>\n\
         <details>\n<summary>{use_with}</summary>\n\
         <p>{server} <code>{mcp}</code></p>\n<ul>{installs}</ul>\n\
         <p>{by_command}</p>\n<pre><code>claude mcp add --transport http {MCP_ENTRY} {mcp}</code></pre>\n\
         </details>\n</aside>\n",
        label = escape(&words.page_actions),
        use_with = escape(&words.use_with_assistant),
        server = escape(&words.mcp_server),
        mcp = escape(&mcp),
        by_command = escape(&words.add_by_command),
    )
}

/// A list item linking `href` as `label`, both escaped.
fn item(href: &str, label: &str) -> String {
    format!(
        "<li><a href=\"{}\">{}</a></li>",
        escape(href),
        escape(label)
    )
}

/// What a query value keeps as it is: letters, digits and `-._~` (RFC
/// 3986's unreserved characters, as JavaScript's `encodeURIComponent`).
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `text` as a URL's query value.
fn encoded(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

/// Cursor's install link for the MCP server at `mcp`.
fn cursor_link(mcp: &str) -> String {
    let config = serde_json::json!({ "url": mcp }).to_string();
    format!(
        "cursor://anysphere.cursor-deeplink/mcp/install?name={MCP_ENTRY}&config={}",
        encoded(&STANDARD.encode(config))
    )
}

/// VS Code's install link for the MCP server at `mcp`.
fn vscode_link(mcp: &str) -> String {
    let config = serde_json::json!({ "name": MCP_ENTRY, "type": "http", "url": mcp });
    format!("vscode:mcp/install?{}", encoded(&config.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_install_links_carry_the_servers_json_as_each_editor_reads_it() {
        let mcp = "https://docs.example.com/mcp";
        let cursor = cursor_link(mcp);
        let config = cursor
            .strip_prefix(
                "cursor://anysphere.cursor-deeplink/mcp/install?name=method-reference&config=",
            )
            .expect("Cursor's form");
        let config = percent_encoding::percent_decode_str(config).decode_utf8_lossy();
        let config = STANDARD.decode(config.as_bytes()).expect("base64");
        assert_eq!(config, br#"{"url":"https://docs.example.com/mcp"}"#);

        let vscode = vscode_link(mcp);
        let config = vscode
            .strip_prefix("vscode:mcp/install?")
            .expect("VS Code's form");
        let config: serde_json::Value =
            serde_json::from_str(&percent_encoding::percent_decode_str(config).decode_utf8_lossy())
                .expect("JSON");
        assert_eq!(
            config,
            serde_json::json!({ "name": "method-reference", "type": "http", "url": mcp })
        );
    }

    #[test]
    fn a_prompt_is_one_query_value() {
        assert_eq!(
            encoded("Read https://x/a.md ?&#"),
            "Read%20https%3A%2F%2Fx%2Fa.md%20%3F%26%23"
        );
    }
}
