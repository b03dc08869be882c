//! Build stage 2 (agent index): `llms.txt` in the llmstxt.org format and
//! its companion `llms-full.txt`, made of the pages' Markdown
//! (`render_markdown.rs`), in each language: `/zh-hans/llms.txt` in the
//! words of its language's chrome (`llms_*`), linking its pages. The one
//! at `/llms.txt`, where agents look first, is the source language's,
//! linking the addresses without a language, and names every language's.
//! Links are absolute: an agent reads the file away from the site.

use crate::address::{Address, View};
use crate::content::{fill, Catalog};
use crate::render_markdown::{escape, method, method_list};
use std::fmt::Write as _;

/// `llms.txt` in the llmstxt.org format, in `catalog`'s language: title,
/// summary, instructions for agents, then sections of links, each
/// address in the pages of `links_in` (a language's segment), or without
/// a language for `None` (the file at `/llms.txt`).
///
/// The sections `API` and `Optional` keep their names in every language:
/// llmstxt.org gives `Optional` a meaning (what an agent may skip).
pub(crate) fn llms(catalog: &Catalog, links_in: Option<&str>) -> String {
    let site = &catalog.site;
    let words = &catalog.language.chrome;
    let base = &catalog.base_url;
    let url = |address: Address<'_>| address.localized(links_in).url(base);
    let mut md = format!(
        "# {}\n\n> {}\n\n",
        escape(&site.title),
        escape(&site.summary)
    );
    let collection = url(Address::Collection);
    let mcp = url(Address::Mcp);
    let _ = write!(
        md,
        "{}\n\n{}\n\n- {}\n- {}\n- {}\n- {}\n- {}\n\n",
        escape(&site.about),
        words.llms_how,
        words.llms_twin,
        fill(
            &words.llms_json,
            &[
                ("collection", &collection),
                ("document", &url(Address::Document("{name}"))),
            ],
        ),
        words.llms_errors,
        words.llms_compression,
        fill(&words.llms_mcp, &[("mcp", &mcp)]),
    );
    for group in &site.groups {
        let _ = write!(md, "## {}\n\n", escape(&group.name));
        let markdown_of = |key: &str| url(Address::Method(key, View::Markdown));
        md.push_str(&method_list(catalog, group, &markdown_of, |e| {
            format!("[{}]({})", e.key, markdown_of(&e.key))
        }));
        md.push('\n');
    }
    let api = [
        fill(&words.llms_openapi, &[("openapi", &url(Address::OpenApi))]),
        fill(&words.llms_collection, &[("collection", &collection)]),
        fill(
            &words.llms_api_catalog,
            &[("api_catalog", &url(Address::ApiCatalog))],
        ),
        fill(&words.llms_feed, &[("feed", &url(Address::Feed))]),
        fill(&words.llms_mcp_endpoint, &[("mcp", &mcp)]),
    ];
    md.push_str("## API\n\n");
    for line in api {
        let _ = writeln!(md, "- {line}");
    }
    md.push('\n');
    md.push_str(&languages(catalog));
    let _ = write!(
        md,
        "## Optional\n\n- {}\n- {}\n",
        fill(&words.llms_full, &[("full", &url(Address::LlmsFull))]),
        fill(
            &words.llms_home,
            &[("home", &url(Address::Home(View::Markdown)))]
        ),
    );
    md
}

/// The section naming each language's own `llms.txt` and index of
/// methods, in `catalog`'s words.
fn languages(catalog: &Catalog) -> String {
    let words = &catalog.language.chrome;
    let base = &catalog.base_url;
    let example = catalog.entries.first().map_or("select", |e| e.key.as_str());
    let page = Address::Method(example, View::Page);
    let mut md = format!(
        "## {}\n\n{}\n\n",
        words.languages,
        fill(
            &words.llms_languages,
            &[
                ("own", &catalog.at(page).to_string()),
                ("negotiated", &page.localized(None).to_string()),
            ],
        )
    );
    for language in &catalog.languages {
        let at = |address: Address| address.localized(Some(&language.segment)).url(base);
        let _ = writeln!(
            md,
            "- [{}]({}): {}",
            escape(&language.name),
            at(Address::Llms),
            fill(
                &words.llms_language,
                &[
                    ("language", &escape(&language.name)),
                    ("methods", &at(Address::Methods(View::Markdown))),
                ],
            )
        );
    }
    md.push('\n');
    md
}

/// `llms-full.txt` in `catalog`'s language: the homepage's introduction
/// and every method page, in catalog order, as one document (headings one
/// level down, each section heading prefixed with its method's key).
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
