//! Build stage 2 (Markdown): every page as CommonMark — the homepage, one
//! page per method, error pages — and the pieces the agent index
//! (`render_llms.rs`) writes again.
//!
//! Markdown is the source of every page: the HTML renderer derives its
//! pages from these texts, so the two representations cannot drift apart.
//! Links are root-relative (they work on any host and through any CDN),
//! except where a caller asks for absolute ones (`llms.txt`, `render_llms.rs`).

use crate::address::{Address, View};
use crate::content::{fill, Catalog, Chrome, Entry, Group, Inline, Mark, Paragraph, Status};
use std::fmt::Write as _;

/// The name the reference's MCP server is given in a client's settings
/// (the homepage's entry, the page actions' install links).
pub(crate) const MCP_ENTRY: &str = "method-reference";

/// The homepage `/` (and `/index.md`), in `catalog`'s language.
pub(crate) fn home(catalog: &Catalog) -> String {
    let site = &catalog.site;
    let words = &catalog.language.chrome;
    let base = &catalog.base_url;
    let mut md = format!(
        "# {}\n\n{}\n\n{}\n\n## {}\n\n{}\n\n\
         ```sh\ncurl --compressed {}\ncurl --compressed {}\n\
         curl -H 'Accept: text/markdown' {}\n```\n\n",
        escape(&site.title),
        escape(&site.summary),
        escape(&site.about),
        words.quick_start,
        words.quick_start_text,
        Address::Collection.url(base),
        Address::Document("select").url(base),
        catalog.at(Address::Method("select", View::Page)).url(base),
    );
    let _ = write!(
        md,
        "## {}\n\n| {} | {} |\n| --- | --- |\n",
        words.endpoints, words.endpoint_column, words.answer_column
    );
    let endpoints = [
        ("GET", Address::Collection, &words.endpoint_collection),
        ("GET", Address::Document("{name}"), &words.endpoint_document),
        (
            "GET",
            Address::Method("{name}", View::Page),
            &words.endpoint_page,
        ),
        (
            "GET",
            Address::Method("{name}", View::Markdown),
            &words.endpoint_twin,
        ),
        ("POST", Address::Mcp, &words.endpoint_mcp),
    ];
    for (method, address, answer) in endpoints {
        let _ = writeln!(md, "| `{method} {address}` | {answer} |");
    }
    // How an agent reaches `/mcp`: what it offers and a client's entry for it.
    let mcp = Address::Mcp.url(base);
    let _ = write!(
        md,
        "\n{}\n\n## {}\n\n{}\n\n\
         ```json\n{{\n  \"mcpServers\": {{\n    \"{MCP_ENTRY}\": {{ \"type\": \"http\", \"url\": \"{mcp}\" }}\n  }}\n}}\n```\n\n",
        words.responses,
        words.for_agents,
        fill(&words.mcp_text, &[("mcp", &mcp)]),
    );
    let _ = write!(md, "## {}\n\n", words.methods);
    md.push_str(&groups(catalog, "###"));
    let _ = write!(md, "## {}\n\n", words.machine_readable);
    for (address, what) in resources(words) {
        let address = catalog.at(address);
        let _ = writeln!(md, "- [`{address}`]({address}): {what}");
    }
    md
}

/// The index of methods `/api/` (and `/api/index.md`): every method with
/// its one-line description, grouped as on the homepage.
pub(crate) fn methods(catalog: &Catalog) -> String {
    let words = &catalog.language.chrome;
    let count = catalog.entries.len().to_string();
    let json = Address::Collection.to_string();
    let mut md = format!(
        "# {}\n\n{}\n\n",
        words.methods,
        fill(&words.methods_intro, &[("count", &count), ("json", &json)])
    );
    md.push_str(groups(catalog, "##").trim_end());
    md.push('\n');
    md
}

/// Every group of methods under a heading of `level` (`##`), with its
/// summary and its methods linked to their pages.
pub(crate) fn groups(catalog: &Catalog, level: &str) -> String {
    let page_of = |key: &str| catalog.page_of(key);
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

/// The machine-readable resources, as listed on the homepage and in
/// `llms.txt`, each said in `words`' language.
pub(crate) fn resources(words: &Chrome) -> [(Address<'static>, &str); 8] {
    [
        (Address::OpenApi, &words.resource_openapi),
        (Address::Collection, &words.resource_collection),
        (Address::Llms, &words.resource_llms),
        (Address::LlmsFull, &words.resource_llms_full),
        (Address::Sitemap, &words.resource_sitemap),
        (Address::Robots, &words.resource_robots),
        (Address::Feed, &words.resource_feed),
        (Address::ApiCatalog, &words.resource_api_catalog),
    ]
}

/// One method's page `/api/<key>` (and `/api/<key>.md`), in `catalog`'s
/// language.
pub(crate) fn method(catalog: &Catalog, entry: &Entry) -> String {
    let words = &catalog.language.chrome;
    let page_of = |key: &str| catalog.page_of(key);
    let mut md = format!(
        "# {}\n\n{}\n\n",
        entry.key,
        paragraph(&entry.description_md, &page_of)
    );
    md.push_str(&notice(catalog, entry));
    md.push_str(&lifecycle(catalog, entry));
    let heading = if entry.signatures.len() == 1 {
        &words.signature
    } else {
        &words.signatures
    };
    let _ = write!(
        md,
        "## {heading}\n\n```php\n{}\n```\n\n",
        entry.signatures.join("\n")
    );
    if let Some(lists) = &entry.parameters {
        let _ = write!(md, "## {}\n\n", words.parameters);
        for (signature, list) in entry.signatures.iter().zip(lists) {
            if lists.len() > 1 {
                let _ = write!(md, "### `{signature}`\n\n");
            }
            let _ = write!(
                md,
                "| {} | {} | {} | {} |\n| --- | --- | --- | --- |\n",
                words.parameter, words.type_column, words.required, words.description
            );
            for (label, description) in list {
                let (name, ty, optional) = split_label(label);
                let required = if optional {
                    &words.required_optional
                } else {
                    &words.required_yes
                };
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
        let ty = format!("`{ty}`");
        let line = fill(
            &words.returns_line,
            &[("type", &ty), ("meaning", &escape(meaning))],
        );
        let _ = write!(md, "## {}\n\n{line}\n\n", words.returns);
    }
    if let Some(note) = &entry.note_md {
        let _ = write!(md, "## {}\n\n{}\n\n", words.note, paragraph(note, &page_of));
    }
    if !entry.examples.is_empty() {
        let _ = write!(md, "## {}\n\n", words.examples);
        for example in &entry.examples {
            let _ = write!(
                md,
                "### {}\n\n```php\n{}\n```\n\n",
                escape(&example.title),
                example.code
            );
        }
    }
    let _ = write!(md, "## {}\n\n", words.see_also);
    let _ = writeln!(
        md,
        "- {}: [`{1}`]({1})",
        words.json,
        Address::Document(&entry.key)
    );
    let index = catalog
        .entries
        .iter()
        .position(|e| e.key == entry.key)
        .expect("the entry is in the catalog");
    let count = catalog.entries.len();
    for (label, at) in [
        (&words.previous, index + count - 1),
        (&words.next, index + 1),
    ] {
        let key = &catalog.entries[at % count].key;
        let _ = writeln!(md, "- {label}: [`{key}`]({})", page_of(key));
    }
    let _ = writeln!(
        md,
        "- [{}]({})",
        words.all_methods,
        catalog.at(Address::Methods(View::Page))
    );
    md
}

/// What a method's page in a translation says of its text, under its
/// description: that it may be out of date, or that it is not translated,
/// each linking the source language's page; nothing for a current
/// translation or the source.
fn notice(catalog: &Catalog, entry: &Entry) -> String {
    let words = &catalog.language.chrome;
    let label = match entry.translation {
        Status::Outdated(_) => &words.outdated,
        Status::Untranslated => &words.untranslated,
        Status::Current | Status::Source => return String::new(),
    };
    let source = catalog.languages.first().map_or("", |l| l.segment.as_str());
    let url = Address::Method(&entry.key, View::Page)
        .localized(Some(source))
        .to_string();
    format!("> {}\n\n", fill(label, &[("url", &url)]))
}

/// What a method's page says of its lifecycle, under its description: a
/// notice when it is deprecated (the version, the day and what to use
/// instead), and the version it came in.
fn lifecycle(catalog: &Catalog, entry: &Entry) -> String {
    let words = &catalog.language.chrome;
    let dated = |template: &str, mark: &Mark| {
        let date = mark.date.to_string();
        fill(
            template,
            &[("version", &escape(&mark.version)), ("date", &date)],
        )
    };
    let mut md = String::new();
    if let Some(mark) = &entry.deprecated {
        let since = dated(&words.deprecated_since, mark);
        let instead = successor(&words.use_instead, mark, &|key| catalog.page_of(key));
        let _ = write!(md, "> {since}{instead}.\n\n");
    }
    if let Some(mark) = &entry.since {
        let _ = write!(md, "{}\n\n", dated(&words.available_since, mark));
    }
    md
}

/// `template` (`: use {method}`) naming the successor `mark` gives, linked
/// where `links` says; nothing when it gives none.
fn successor(template: &str, mark: &Mark, links: &dyn Fn(&str) -> String) -> String {
    mark.successor
        .as_deref()
        .map_or_else(String::new, |key| linked(template, key, links))
}

/// `template` with its `{method}` the method `key`, linked where `links` says.
fn linked(template: &str, key: &str, links: &dyn Fn(&str) -> String) -> String {
    fill(
        template,
        &[("method", &format!("[`{key}`]({})", links(key)))],
    )
}

/// In a list of methods: `Deprecated in 2.0: use select.`, in `words`'
/// language, its link where `links` says, after a method's description;
/// nothing for a method that is not deprecated.
pub(crate) fn deprecation(words: &Chrome, entry: &Entry, links: &dyn Fn(&str) -> String) -> String {
    let Some(mark) = &entry.deprecated else {
        return String::new();
    };
    let instead = successor(&words.use_successor, mark, links);
    let deprecated = fill(&words.deprecated_in, &[("version", &escape(&mark.version))]);
    format!(" *{deprecated}{instead}.*")
}

/// The method an error page links to, by its key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Pointer<'a> {
    /// The method the reader probably meant (a mistyped page).
    Meant(&'a str),
    /// The successor of a removed method.
    Successor(&'a str),
}

/// An error page in `catalog`'s language: the same code, message and hint
/// as the ErrorResponse, and a link to the method the reader probably
/// meant, or to the one to use instead.
pub(crate) fn error(
    catalog: &Catalog,
    title: &str,
    code: &str,
    (message, hint): (&str, &str),
    pointer: Option<Pointer>,
) -> String {
    let words = &catalog.language.chrome;
    let line = |template: &str, key: &str| {
        format!("{}\n\n", linked(template, key, &|key| catalog.page_of(key)))
    };
    // The method meant comes before the hint, the successor (which the
    // hint names) after it.
    let (meant, successor) = match pointer {
        Some(Pointer::Meant(key)) => (line(&words.did_you_mean, key), String::new()),
        Some(Pointer::Successor(key)) => (String::new(), line(&words.go_to, key)),
        None => Default::default(),
    };
    let code = format!("`{code}`");
    format!(
        "# {}\n\n{}\n\n{meant}{}\n\n{successor}{}\n\n[{}]({})\n",
        escape(title),
        escape(message),
        escape(hint),
        fill(&words.error_code, &[("code", &code)]),
        words.back_to_reference,
        catalog.at(Address::Home(View::Page)),
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
            .entry(key)
            .expect("groups name catalog keys (validated)");
        let _ = writeln!(
            list,
            "- {}: {}{}",
            link(entry),
            paragraph(&entry.description_md, links),
            deprecation(&catalog.language.chrome, entry, links)
        );
    }
    list
}

/// `(name, type, optional)` of a label `name [type]( (optional))?`.
fn split_label(label: &str) -> (&str, &str, bool) {
    let optional = label.strip_suffix(" (optional)");
    let rest = optional.unwrap_or(label);
    let (name, ty) = rest.split_once(" [").expect("labels are validated");
    (name, ty.trim_end_matches(']'), optional.is_some())
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
