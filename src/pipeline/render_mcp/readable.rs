//! `/mcp`'s resources: each language's method pages in Markdown, and
//! `llms.txt` and `llms-full.txt`, each rendered once for `resources/list`,
//! `resources/read` and `get_method`'s link.
//!
//! The source's pages are at the addresses that negotiate the language
//! (`/api/select.md`, as before there were languages); another language's
//! at its own (`/zh-hans/api/select.md`), with `_meta` naming the language
//! (`locale`, its tag) and how the method's translation stands
//! (`translation`), as `get_method` says them.

use super::{translated, url};
use crate::address::{Address, View};
use crate::content::Catalog;
use crate::{render_llms, render_markdown};
use serde::Serialize;
use serde_json::{json, Value};

/// One resource: its entry in `resources/list` (its text's `size`, then
/// its language's `_meta` if it is not the source's) and its text.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Readable {
    pub(super) uri: String,
    pub(super) name: String,
    pub(super) title: String,
    pub(super) description: String,
    pub(super) mime_type: &'static str,
    size: usize,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Value>,
    #[serde(skip)]
    pub(super) text: String,
}

impl Readable {
    /// Its item in `resources/read`'s `contents`.
    pub(super) fn contents(&self) -> Value {
        let mut contents = json!({
            "uri": self.uri, "mimeType": self.mime_type, "text": self.text,
        });
        if let Some(meta) = &self.meta {
            contents["_meta"] = meta.clone();
        }
        contents
    }
}

/// Each method's page in `catalog`'s language, in catalog order.
pub(super) fn pages(catalog: &Catalog) -> Vec<Readable> {
    let language = &catalog.language;
    catalog
        .entries
        .iter()
        .map(|entry| {
            let text = render_markdown::method(catalog, entry);
            let (title, meta) = if catalog.is_source() {
                (format!("{} — method reference", entry.name), None)
            } else {
                let meta = translated(catalog, entry);
                (format!("{} — {}", entry.name, language.name), Some(meta))
            };
            Readable {
                uri: url(catalog, Address::Method(&entry.key, View::Markdown)),
                name: entry.key.clone(),
                title,
                description: entry.description.clone(),
                mime_type: "text/markdown",
                size: text.len(),
                meta,
                text,
            }
        })
        .collect()
}

/// `llms.txt` and `llms-full.txt` (as served: `text/plain`).
pub(super) fn files(catalog: &Catalog) -> Vec<Readable> {
    let files = [
        (
            Address::Llms,
            "llms.txt",
            "Index for agents",
            "Where everything is: every method's Markdown page, the JSON API and the OpenAPI \
             description.",
            render_llms::llms(catalog, None),
        ),
        (
            Address::LlmsFull,
            "llms-full.txt",
            "The whole reference",
            "Every method's page in one Markdown document, after the homepage's introduction: \
             for reading or searching the reference at once.",
            render_llms::llms_full(catalog),
        ),
    ];
    files
        .into_iter()
        .map(|(address, name, title, description, text)| Readable {
            uri: address.url(&catalog.base_url),
            name: name.into(),
            title: title.into(),
            description: description.into(),
            mime_type: "text/plain",
            size: text.len(),
            meta: None,
            text,
        })
        .collect()
}
