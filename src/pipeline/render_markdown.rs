//! Build stage 2 (Markdown): every page as CommonMark — the homepage, one
//! page per method, error pages — and the pieces the agent index
//! (`render_llms.rs`) writes again.
//!
//! Markdown is the source of every page: the HTML renderer derives its
//! pages from these texts, so the two representations cannot drift apart.
//! Links are root-relative (they work on any host and through any CDN),
//! except where a caller asks for absolute ones (`llms.txt`, `render_llms.rs`).

use crate::address::{Address, View};
use crate::content::{Catalog, Entry, Group, Inline, Paragraph};
use std::fmt::Write as _;

/// The homepage `/` (and `/index.md`).
pub(crate) fn home(catalog: &Catalog) -> String {
    let site = &catalog.site;
    let base = &catalog.base_url;
    let mut md = format!(
        "# {}\n\n{}\n\n{}\n\n\
         ## Quick start\n\n\
         List every method as JSON, then fetch one, then read its page as Markdown:\n\n\
         ```sh\ncurl --compressed {}\ncurl --compressed {}\n\
         curl -H 'Accept: text/markdown' {}\n```\n\n",
        escape(&site.title),
        escape(&site.summary),
        escape(&site.about),
        Address::Collection.url(base),
        Address::Document("select").url(base),
        Address::Method("select", View::Page).url(base),
    );
    md.push_str("## Endpoints\n\n| Method and path | Answer |\n| --- | --- |\n");
    let endpoints = [
        (
            "GET",
            Address::Collection,
            "Every method reference, in catalog order, with `meta.count`",
        ),
        (
            "GET",
            Address::Document("{name}"),
            "One method reference; `name` is lowercase, like `select`",
        ),
        (
            "GET",
            Address::Method("{name}", View::Page),
            "The method's page: HTML, or Markdown with `Accept: text/markdown`",
        ),
        (
            "GET",
            Address::Method("{name}", View::Markdown),
            "The method's page as Markdown",
        ),
        (
            "POST",
            Address::Mcp,
            "The Model Context Protocol endpoint for agents (below)",
        ),
    ];
    for (method, address, answer) in endpoints {
        let _ = writeln!(md, "| `{method} {address}` | {answer} |");
    }
    // How an agent reaches `/mcp`: what it offers and a client's entry for it.
    let _ = write!(
        md,
        "\nResponses are compressed with Brotli or gzip when the client allows it, carry an \
         `ETag` for revalidation, and errors come back as JSON with a `code`, a `message` and a \
         `hint`.\n\n\
         ## For agents: MCP\n\n\
         Agents that speak the Model Context Protocol can use `{mcp}` (Streamable HTTP, \
         no session, no sign-in). Its tools: `search` finds the methods for a task asked in \
         plain words, `get_method` gives one method's whole reference, `list_methods` all of \
         them at a glance; every method page and `llms.txt` are resources. Most clients take \
         an entry like this in their MCP settings:\n\n\
         ```json\n{{\n  \"mcpServers\": {{\n    \"method-reference\": {{ \"type\": \"http\", \"url\": \"{mcp}\" }}\n  }}\n}}\n```\n\n",
        mcp = Address::Mcp.url(base),
    );
    md.push_str("## Methods\n\n");
    md.push_str(&groups(catalog, "###"));
    md.push_str("## Machine-readable resources\n\n");
    for (path, what) in RESOURCES {
        let _ = writeln!(md, "- [`{path}`]({path}): {what}");
    }
    md
}

/// The index of methods `/api/` (and `/api/index.md`): every method with
/// its one-line description, grouped as on the homepage.
pub(crate) fn methods(catalog: &Catalog) -> String {
    let mut md = format!(
        "# Methods\n\nAll {} documented methods, grouped by purpose. Each page has the call \
         signatures, the parameters, the return value and examples; each is also \
         [JSON](/api/reference.json).\n\n",
        catalog.entries.len()
    );
    md.push_str(groups(catalog, "##").trim_end());
    md.push('\n');
    md
}

/// Every group of methods under a heading of `level` (`##`), with its
/// summary and its methods linked to their pages.
pub(crate) fn groups(catalog: &Catalog, level: &str) -> String {
    let mut md = String::new();
    for group in &catalog.site.groups {
        let _ = write!(
            md,
            "{level} {}\n\n{}\n\n",
            escape(&group.name),
            escape(&group.summary)
        );
        md.push_str(&method_list(catalog, group, &page_of, |e| {
            format!("[`{}`]({})", e.key, page_of(&e.key))
        }));
        md.push('\n');
    }
    md
}

/// The machine-readable resources, as listed on the homepage and in `llms.txt`.
const RESOURCES: [(Address, &str); 8] = [
    (
        Address::OpenApi,
        "OpenAPI 3.1 description of the JSON endpoints",
    ),
    (Address::Collection, "the whole reference as JSON"),
    (Address::Llms, "index for AI agents"),
    (
        Address::LlmsFull,
        "the whole reference as one Markdown document",
    ),
    (Address::Sitemap, "sitemap of every page"),
    (Address::Robots, "crawler policy"),
    (
        Address::Feed,
        "Atom feed of the methods that came in, were deprecated or were removed",
    ),
    (Address::ApiCatalog, "API catalog (RFC 9727)"),
];

/// One method's page `/api/<key>` (and `/api/<key>.md`).
pub(crate) fn method(catalog: &Catalog, entry: &Entry) -> String {
    let mut md = format!(
        "# {}\n\n{}\n\n",
        entry.key,
        paragraph(&entry.description_md, &page_of)
    );
    md.push_str(&lifecycle(entry));
    let heading = if entry.signatures.len() == 1 {
        "Signature"
    } else {
        "Signatures"
    };
    let _ = write!(
        md,
        "## {heading}\n\n```php\n{}\n```\n\n",
        entry.signatures.join("\n")
    );
    if let Some(lists) = &entry.parameters {
        md.push_str("## Parameters\n\n");
        for (signature, list) in entry.signatures.iter().zip(lists) {
            if lists.len() > 1 {
                let _ = write!(md, "### `{signature}`\n\n");
            }
            md.push_str(
                "| Parameter | Type | Required | Description |\n| --- | --- | --- | --- |\n",
            );
            for (label, description) in list {
                let (name, ty, optional) = split_label(label);
                let required = if optional { "optional" } else { "yes" };
                let _ = writeln!(
                    md,
                    "| `${name}` | `{ty}` | {required} | {} |",
                    escape(description)
                );
            }
            md.push('\n');
        }
    }
    if let Some(returns) = &entry.returns {
        let (ty, meaning) = split_returns(returns);
        let _ = write!(md, "## Returns\n\n`{ty}`: {}\n\n", escape(meaning));
    }
    if let Some(note) = &entry.note_md {
        let _ = write!(md, "## Note\n\n{}\n\n", paragraph(note, &page_of));
    }
    if !entry.examples.is_empty() {
        md.push_str("## Examples\n\n");
        for example in &entry.examples {
            let _ = write!(
                md,
                "### {}\n\n```php\n{}\n```\n\n",
                escape(&example.title),
                example.code
            );
        }
    }
    md.push_str("## See also\n\n");
    let _ = writeln!(
        md,
        "- JSON: [`/api/reference/{0}.json`](/api/reference/{0}.json)",
        entry.key
    );
    let index = catalog
        .entries
        .iter()
        .position(|e| e.key == entry.key)
        .expect("the entry is in the catalog");
    let count = catalog.entries.len();
    let previous = &catalog.entries[(index + count - 1) % count];
    let next = &catalog.entries[(index + 1) % count];
    let _ = writeln!(
        md,
        "- Previous: [`{}`]({})",
        previous.key,
        page_of(&previous.key)
    );
    let _ = writeln!(md, "- Next: [`{}`]({})", next.key, page_of(&next.key));
    md.push_str("- [All methods](/api/)\n");
    md
}

/// What a method's page says of its lifecycle, under its description: a
/// notice when it is deprecated (the version, the day and what to use
/// instead), and the version it came in.
fn lifecycle(entry: &Entry) -> String {
    let mut md = String::new();
    if let Some(mark) = &entry.deprecated {
        let instead = match &mark.successor {
            Some(key) => format!(": use [`{key}`]({}) instead", page_of(key)),
            None => String::new(),
        };
        let _ = write!(
            md,
            "> **Deprecated** since version {} ({}){instead}.\n\n",
            escape(&mark.version),
            mark.date
        );
    }
    if let Some(mark) = &entry.since {
        let _ = write!(
            md,
            "Available since version {} ({}).\n\n",
            escape(&mark.version),
            mark.date
        );
    }
    md
}

/// In a list of methods: `Deprecated in 2.0: use select.`, its link where
/// `links` says, after a method's description; nothing for a method that
/// is not deprecated.
pub(crate) fn deprecation(entry: &Entry, links: &dyn Fn(&str) -> String) -> String {
    let Some(mark) = &entry.deprecated else {
        return String::new();
    };
    let instead = match &mark.successor {
        Some(key) => format!(": use [`{key}`]({})", links(key)),
        None => String::new(),
    };
    format!(" *Deprecated in {}{instead}.*", escape(&mark.version))
}

/// The method an error page links to, by its key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Pointer<'a> {
    /// The method the reader probably meant (a mistyped page).
    Meant(&'a str),
    /// The successor of a removed method.
    Successor(&'a str),
}

/// An error page: the same code, message and hint as the ErrorResponse,
/// and a link to the method the reader probably meant, or to the one to
/// use instead.
pub(crate) fn error(
    reason: &str,
    code: &str,
    message: &str,
    hint: &str,
    pointer: Option<Pointer>,
) -> String {
    // The method meant comes before the hint, the successor (which the
    // hint names) after it.
    let (meant, successor) = match pointer {
        Some(Pointer::Meant(key)) => (
            format!("Did you mean [`{key}`]({})?\n\n", page_of(key)),
            String::new(),
        ),
        Some(Pointer::Successor(key)) => (
            String::new(),
            format!("Go to [`{key}`]({}).\n\n", page_of(key)),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        "# {reason}\n\n{}\n\n{meant}{}\n\n{successor}Error code: `{code}`.\n\n[Back to the method reference](/)\n",
        escape(message),
        escape(hint)
    )
}

/// A group's methods as a Markdown list: each linked by `link`, with its
/// description (whose links to methods go where `links` says).
pub(crate) fn method_list(
    catalog: &Catalog,
    group: &Group,
    links: &dyn Fn(&str) -> String,
    link: impl Fn(&Entry) -> String,
) -> String {
    let mut list = String::new();
    for key in &group.keys {
        let entry = catalog
            .entries
            .iter()
            .find(|e| &e.key == key)
            .expect("groups name catalog keys (validated)");
        let _ = writeln!(
            list,
            "- {}: {}{}",
            link(entry),
            paragraph(&entry.description_md, links),
            deprecation(entry, links)
        );
    }
    list
}

/// `(name, type, optional)` of a label `name [type]( (optional))?`.
fn split_label(label: &str) -> (&str, &str, bool) {
    let (rest, optional) = match label.strip_suffix(" (optional)") {
        Some(rest) => (rest, true),
        None => (label, false),
    };
    let (name, ty) = rest.split_once(" [").expect("labels are validated");
    (name, ty.trim_end_matches(']'), optional)
}

/// `(type, meaning)` of `[type] meaning`.
fn split_returns(returns: &str) -> (&str, &str) {
    let (ty, meaning) = returns[1..].split_once(']').expect("returns are validated");
    (ty, meaning.trim())
}

/// The root-relative address of the page of the method `key`, where a
/// link to it in prose points on the site's pages.
pub(crate) fn page_of(key: &str) -> String {
    Address::Method(key, View::Page).to_string()
}

/// A paragraph of prose as Markdown: its text escaped, its code, emphasis
/// and links as written, and each link to a method pointing at
/// `link(key)`.
pub(crate) fn paragraph(paragraph: &Paragraph, link: &dyn Fn(&str) -> String) -> String {
    inlines(&paragraph.0, link)
}

fn inlines(list: &[Inline], link: &dyn Fn(&str) -> String) -> String {
    let inner = |inner: &[Inline]| inlines(inner, link);
    list.iter()
        .map(|inline| match inline {
            Inline::Text(text) => escape(text),
            Inline::Code(code) => code_span(code),
            Inline::Emphasis(text) => format!("*{}*", inner(text)),
            Inline::Strong(text) => format!("**{}**", inner(text)),
            Inline::Method { key, text } => format!("[{}]({})", inner(text), link(key)),
            Inline::Web { url, text } if url.contains([' ', '(', ')', '<', '>']) => {
                let url = url.replace('<', "%3C").replace('>', "%3E");
                format!("[{}](<{url}>)", inner(text))
            }
            Inline::Web { url, text } => format!("[{}]({url})", inner(text)),
        })
        .collect()
}

/// `code` as a code span: fenced by one more backtick than its longest run
/// of them, and padded where its first or last character would be lost.
fn code_span(code: &str) -> String {
    let longest = code
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or_default();
    let fence = "`".repeat(longest + 1);
    let pad = code.starts_with('`')
        || code.ends_with('`')
        || (code.starts_with(' ') && code.ends_with(' ') && !code.trim().is_empty());
    let space = if pad { " " } else { "" };
    format!("{fence}{space}{code}{space}{fence}")
}

/// Escape the characters that would turn plain text into Markdown markup
/// (the server escapes a query with the same function).
pub use crate::escape::markdown as escape;

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Event, Parser};

    /// The paragraph of `markdown` as the content loader reads it.
    fn read(markdown: &str) -> Paragraph {
        let events: Vec<Event> = Parser::new(markdown).collect();
        let (paragraph, problems) = Paragraph::read(&events[1..events.len() - 1]);
        assert!(problems.is_empty(), "{markdown}: {problems:?}");
        paragraph
    }

    #[test]
    fn prose_is_written_back_as_it_reads() {
        for markdown in [
            "Plain text, with * and _ and [brackets] and a # sign.",
            "Passing `*` as the columns fetches every column.",
            "Works like [`log()`](log.md), but *only* the **most recent** query.",
            "A span with a backtick: `` a`b ``, one with spaces: `  x  `.",
            "See [the manual](https://example.com/a_(b)) for more.",
        ] {
            let paragraph = read(markdown);
            let written = super::paragraph(&paragraph, &|key| format!("{key}.md"));
            assert_eq!(read(&written), paragraph, "{markdown} → {written}");
        }
    }

    #[test]
    fn links_to_methods_point_where_they_are_asked_to() {
        let paragraph = read("Like [`log()`](log.md).");
        assert_eq!(
            super::paragraph(&paragraph, &page_of),
            "Like [`log()`](/api/log)."
        );
    }
}
