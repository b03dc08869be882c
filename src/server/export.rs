//! `refserve export DIR`: every representation the server sends, written as
//! static files the way static hosts and nginx expect them — byte for byte
//! the bodies of the table.
//!
//! - a page's HTML goes to `<path>.html`, a directory's (`/`, `/api/`) to
//!   its `index.html`; its Markdown is already exported through its `.md`
//!   twin;
//! - every other resource goes to its path (`api/reference.json`,
//!   `llms.txt`, `.well-known/api-catalog`, `mcp/server-card`), once: a
//!   second representation with the same bytes (the server card as
//!   `application/json`) has no file of its own;
//! - each stored coding goes beside it: `.br` for brotli, `.gz` for gzip
//!   (nginx's `brotli_static` and `gzip_static` names).
//!
//! The bodies compressed against the compression dictionary (`dcb`, `dcz`)
//! are not written. A static host can serve the dictionary itself
//! (`dictionaries/<name>`), but it cannot choose a body by the request's
//! `Available-Dictionary`, nor send the headers that make the scheme work
//! (`Use-As-Dictionary` on the dictionary, the `Link` that names it on
//! every page, `Vary: Available-Dictionary`); without them no browser ever
//! asks for a dictionary-compressed body, so the pages cost their brotli
//! bytes there. [`DICTIONARY_NOTE`] says so at the end of an export.
//!
//! A removed method's addresses are not written: a static host would
//! serve their error bodies with 200, where a missing file gets its 404.
//!
//! `/mcp` is not written either: it answers `POST` requests, each from its
//! body, which a static host cannot do. [`MCP_NOTE`] says so too. The
//! server card below it is a document like the others (`mcp/server-card`).
//!
//! Nor can a static host search: each language's search (`/en/search`,
//! where every page's search box sends its query) is written as the page
//! the table keeps for it (`en/search.html`, which nginx's `try_files
//! $uri.html` serves whatever the query), saying search needs the server
//! and linking the index of methods; [`SEARCH_NOTE`] says so.

use crate::negotiate::Coding;
use crate::table::{Resource, Table};
use std::path::Path;

/// The file (relative to the export root) of representation `index` of the
/// resource at `path`, identity coding; `None` when another file holds it.
pub fn file_name(path: &str, resource: &Resource, index: usize) -> Option<String> {
    let name = own_file_name(path, resource, index)?;
    // The same bytes under a second type (the server card's
    // `application/json`) have their file already.
    let taken =
        (0..index).any(|earlier| own_file_name(path, resource, earlier) == Some(name.clone()));
    (!taken).then_some(name)
}

/// The file of representation `index` by its media type alone.
fn own_file_name(path: &str, resource: &Resource, index: usize) -> Option<String> {
    let media = resource.media_types.get(index)?;
    let relative = path.trim_start_matches('/');
    match (media.kind, media.subtype) {
        // A directory's page (`/`, `/api/`) is its `index.html`.
        ("text", "html") if relative.is_empty() || relative.ends_with('/') => {
            Some(format!("{relative}index.html"))
        }
        ("text", "html") => Some(format!("{relative}.html")),
        ("text", "markdown") if resource.media_types.len() > 1 => None,
        _ => Some(relative.to_string()),
    }
}

/// The suffix a coding adds to a file name; `None` for the codings that
/// are not exported (those that need a dictionary).
const fn suffix(coding: Coding) -> Option<&'static str> {
    match coding {
        Coding::Identity => Some(""),
        Coding::Gzip => Some(".gz"),
        Coding::Br => Some(".br"),
        Coding::Dcb | Coding::Dcz => None,
    }
}

/// What an export tells its user about compression dictionaries.
pub const DICTIONARY_NOTE: &str = "dictionary-compressed bodies (dcb, dcz) are not exported: \
a static host cannot choose them by Available-Dictionary; the pages cost their .br bytes there";

/// What an export tells its user about `/mcp`.
pub const MCP_NOTE: &str = "/mcp is not exported: a static host cannot answer POST requests; \
agents must use the running server (refserve) for MCP";

/// What an export tells its user about `/search`.
pub const SEARCH_NOTE: &str = "each language's search (/en/search, …) is exported as a page \
that says search needs the running server (refserve) and links the index of methods";

/// Write every representation of every document `table` stores under
/// `dir` (the page a static host serves at `/search` among them); returns
/// the number of files written.
pub fn export(table: &Table, dir: &Path) -> std::io::Result<usize> {
    let mut written = 0;
    for resource in table.stored().filter(|r| r.error.is_none()) {
        let path = &resource.id;
        for (index, representation) in resource.representations.iter().enumerate() {
            let Some(name) = file_name(path, resource, index) else {
                continue;
            };
            for variant in &representation.variants {
                let Some(suffix) = suffix(variant.coding) else {
                    continue;
                };
                let file = dir.join(format!("{name}{suffix}"));
                if let Some(parent) = file.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(&file, &variant.body)?;
                written += 1;
            }
        }
    }
    Ok(written)
}
