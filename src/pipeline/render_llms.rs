//! Build stage 2 (agent index): `llms.txt` in the llmstxt.org format and
//! its companion `llms-full.txt`, made of the pages' Markdown
//! (`render_markdown.rs`). Links are absolute: an agent reads the file
//! away from the site.

use crate::address::{Address, View};
use crate::content::Catalog;
use crate::render_markdown::{escape, method, method_list};
use std::fmt::Write as _;

/// `/llms.txt` in the llmstxt.org format: title, summary, instructions for
/// agents, then sections of links.
pub(crate) fn llms(catalog: &Catalog) -> String {
    let site = &catalog.site;
    let base = &catalog.base_url;
    let mut md = format!(
        "# {}\n\n> {}\n\n",
        escape(&site.title),
        escape(&site.summary)
    );
    let _ = write!(
        md,
        "{}\n\n\
         How to read it:\n\n\
         - Every page has a Markdown twin: add `.md` to its path, or send `Accept: text/markdown`.\n\
         - The same facts as JSON: `GET {collection}` for all methods, \
         `GET {document}` for one (`name` is lowercase, like `select`).\n\
         - Errors are JSON objects with `error.code`, `error.message` and `error.hint`.\n\
         - Send `Accept-Encoding: br` or `gzip` for smaller responses, and `If-None-Match` with the \
         `ETag` you got to revalidate.\n\
         - Over MCP: add `{mcp}` as a Streamable HTTP server; its tools `search`, `get_method` \
         and `list_methods` answer from the same reference.\n\n",
        escape(&site.about),
        collection = Address::Collection.url(base),
        document = Address::Document("{name}").url(base),
        mcp = Address::Mcp.url(base),
    );
    for group in &site.groups {
        let _ = write!(md, "## {}\n\n", escape(&group.name));
        let markdown_of = |key: &str| Address::Method(key, View::Markdown).url(base);
        md.push_str(&method_list(catalog, group, &markdown_of, |e| {
            format!("[{}]({})", e.key, markdown_of(&e.key))
        }));
        md.push('\n');
    }
    let _ = write!(
        md,
        "## API\n\n\
         - [OpenAPI description]({openapi}): the JSON endpoints, their schemas and errors\n\
         - [All method references]({collection}): one JSON document\n\
         - [API catalog]({api_catalog}): RFC 9727 linkset\n\
         - [Changes]({feed}): Atom feed of the methods that came in, were deprecated or were \
         removed, with their versions and days\n\
         - MCP endpoint: `{mcp}`, the Model Context Protocol over Streamable HTTP (POST only, so \
         not a link): tools `search`, `get_method`, `list_methods`\n\n\
         ## Optional\n\n\
         - [Full reference]({full}): every method page in one Markdown document\n\
         - [Homepage]({home}): overview and quick start\n",
        openapi = Address::OpenApi.url(base),
        collection = Address::Collection.url(base),
        api_catalog = Address::ApiCatalog.url(base),
        feed = Address::Feed.url(base),
        mcp = Address::Mcp.url(base),
        full = Address::LlmsFull.url(base),
        home = Address::Home(View::Markdown).url(base),
    );
    md
}

/// `/llms-full.txt`: the homepage's introduction and every method page, in
/// catalog order, as one document (headings one level down, each section
/// heading prefixed with its method's key).
pub(crate) fn llms_full(catalog: &Catalog) -> String {
    let site = &catalog.site;
    let mut md = format!(
        "# {}\n\n> {}\n\n{}\n",
        escape(&site.title),
        escape(&site.summary),
        escape(&site.about)
    );
    for entry in &catalog.entries {
        md.push('\n');
        let mut in_code = false;
        for line in method(catalog, entry).lines() {
            in_code ^= line.starts_with("```");
            // One level down, and section headings named after their
            // method so that every heading of the document is unique.
            if in_code || line.starts_with("```") {
                md.push_str(line);
                md.push('\n');
                continue;
            }
            if let Some(section) = line.strip_prefix("## ") {
                let _ = writeln!(md, "### {}: {section}", entry.key);
                continue;
            }
            if line.starts_with('#') {
                md.push('#');
            }
            md.push_str(line);
            md.push('\n');
        }
    }
    md
}
