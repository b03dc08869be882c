//! refserve's pipeline: from `content/` to the table of every response.
//!
//! One stage per file, each a function of the one before:
//!
//! 1. load and validate (`content.rs`): `content/` into a [`Catalog`], or
//!    [`content::ContentErrors`], each naming the file and field at fault, dated
//!    by the newest of the files it is made from (`dates.rs`);
//! 2. render (`render_*.rs`, one file per output format, each a pure
//!    function of the catalog) and assemble (`site.rs`: which resource is
//!    at which path, in which representations), with the compression
//!    dictionary chosen among the pages (`dictionary.rs`);
//! 3. compress (`compress.rs`): every body in every coding worth storing;
//! 4. store (`stored.rs`): every body with its complete header maps, in
//!    the response table's types (`refserve_core::table`), the CDN's
//!    lifetime and purge tags among them (`edge.rs`);
//! 5. emit (`emit.rs`): the table's stored form and its `phf` index.
//!
//! Work that splits is spread over the cores (`parallel.rs`): the encoders'
//! jobs, each language's pages, the MCP answers beside the rest.
//!
//! `build.rs` runs all five for the production binary ([`build`], then
//! [`emit::table`]); `refserve dev` runs the first four in memory on every
//! edit ([`preview`]), with identity bodies, no dictionary, and the script
//! that reloads its pages (`preview.rs`).

mod compress;
pub mod content;
pub mod dates;
mod dictionary;
mod edge;
pub mod emit;
mod highlight;
mod languages;
mod parallel;
pub mod preview;
mod render_crawlers;
mod render_discovery;
mod render_feed;
mod render_html;
mod render_icon;
mod render_json;
mod render_llms;
mod render_markdown;
mod render_mcp;
mod render_openapi;
mod render_search;
mod search;
mod site;
mod stored;
pub mod translations;

// The vocabulary the pipeline shares with the server (`src/core/`): the
// error kinds, the headers every response has, content negotiation (which
// the table answers ahead of time for the most common requests), the
// escaping of text, the table itself and what `/mcp` and `/search` answer
// from.
use refserve_core::{address, errors, escape, headers, mcp, media, negotiate, search_page, table};

pub use compress::{Cache, Encoding};
use content::Editions;
pub use edge::MAX_AGE as CDN_MAX_AGE;
pub use refserve_core::table::Table;

/// Where the server links to when no base URL is given: itself.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080";

/// Render, compress and store every response of `catalog`, as small as
/// the encoders allow, reusing the outputs in `cache`; the HTML pages are
/// also compressed against a dictionary chosen among them. A CDN may keep
/// each document `cdn_max_age` seconds ([`CDN_MAX_AGE`] unless the build
/// says otherwise).
pub fn build(editions: &Editions, cache: Option<Cache>, cdn_max_age: u64) -> Table {
    let mut pages = site::resources(editions);
    let mut errors = site::errors(editions);
    let dictionary = dictionary::attach(&mut pages, &mut errors);
    let encoding = Encoding::Smallest { cache };
    let dictionary = dictionary.as_ref();
    stored::table(
        editions,
        &pages,
        &errors,
        dictionary,
        &encoding,
        cdn_max_age,
    )
}

/// Render and store every response of `catalog` for `refserve dev`:
/// identity bodies, no dictionary, and HTML pages that reload after an
/// edit (`preview.rs`).
pub fn preview(editions: &Editions) -> Table {
    let mut pages = site::resources(editions);
    let mut errors = site::errors(editions);
    preview::inject(&mut pages);
    preview::inject(errors.iter_mut().flat_map(table::ErrorBodies::iter_mut));
    stored::table(
        editions,
        &pages,
        &errors,
        None,
        &Encoding::Identity,
        CDN_MAX_AGE,
    )
}
