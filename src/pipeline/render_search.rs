//! Build stage 2 (search): the pieces `GET /search` answers from
//! (`refserve_core::search_page`), and the page a static host serves at
//! its address instead.
//!
//! The results page is a page of the site like any other: the layout of
//! `render_html.rs` around HTML written here, and its Markdown twin. Each
//! is rendered once with a [`HOLE`] wherever the server puts something of
//! the request's (the query, the number of methods found, the methods),
//! then cut there: the server writes the pieces back with the holes
//! filled, and renders nothing. Each method's pieces are its list item,
//! cut where the line that says why it matched goes.

use crate::address::{Address, View};
use crate::content::{Catalog, Entry};
use crate::mcp::Members;
use crate::media::MediaType;
use crate::render_html::{self, Page};
use crate::render_json;
use crate::render_markdown::{self, page_of};
use crate::search_page::{Form, Headers, Layout, Method, Piece, SearchPage};
use crate::site::{Body, Resource};
use crate::table;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue};

/// Where a text is cut: a character of Unicode's private use area, which
/// no renderer writes and no content of the reference holds.
const HOLE: char = '\u{E000}';

/// `/search`'s pieces, with the headers `headers` gives each form and the
/// headers of a `303`; `exported` is the page a static host serves instead
/// (from [`exported`], stored).
pub(crate) fn page(
    catalog: &Catalog,
    headers: impl Fn(Form) -> Headers,
    see_other: HeaderMap,
    exported: table::Resource,
) -> SearchPage {
    SearchPage {
        html: html(catalog, headers(Form::Html)),
        markdown: markdown(catalog, headers(Form::Markdown)),
        json: headers(Form::Json),
        see_other,
        methods: catalog.entries.iter().map(|e| method(catalog, e)).collect(),
        exported,
    }
}

/// The page a static host serves at `/search` (`refserve export`): search
/// needs the server; the index of methods lists them all.
pub(crate) fn exported(catalog: &Catalog) -> Resource {
    let markdown = format!(
        "# Search\n\nSearch needs the reference's own server, which ranks the {} methods for \
         the words of a query; this copy of the reference is a set of files, which cannot. \
         Every method is listed, grouped by purpose and with a line on what it does, in the \
         [index of methods]({}).\n",
        catalog.entries.len(),
        Address::Methods(View::Page),
    );
    let page = Page {
        title: "Search",
        description: "Search needs the reference's own server; the index lists every method.",
        ..Page::default()
    };
    Resource {
        id: Address::Search.to_string(),
        representations: vec![Body {
            headers: crate::site::html_headers(),
            ..Body::new(
                MediaType::HTML,
                render_html::page(catalog, &page, &markdown),
            )
        }],
        cache_control: crate::site::CACHE_CONTROL,
        error: None,
        languages: 1,
    }
}

/// What search says when nothing matches, before every method: how it
/// reads a query (as MCP's `search` says it).
fn how_search_reads(catalog: &Catalog) -> String {
    format!(
        "Search looks for the query's words in the methods' names, descriptions, signatures, \
         parameters, return values, notes, examples and common synonyms. Try other words, or \
         pick one of the {} methods:",
        catalog.entries.len()
    )
}

/// The results page, cut.
fn html(catalog: &Catalog, headers: Headers) -> Layout {
    let count = catalog.entries.len();
    let hole = HOLE.to_string();
    let page = Page {
        title: &format!("Search: {HOLE}"),
        description: "The methods of the reference that match a query, best first.",
        ..Page::default()
    };
    // The query in the title and in the search box, then the results.
    let whole = render_html::layout(catalog, &page, &hole, Some(&hole));
    let [to_title, to_search_box, to_results, end] = cut(&whole);
    let heading = "<h1>Search results</h1>\n";
    let every_method = format!(
        "<p>{}</p>\n{}",
        render_html::escape(&how_search_reads(catalog)),
        render_html::body(&render_markdown::groups(catalog, "##"))
    );
    Layout {
        headers,
        top: vec![to_title, to_search_box, to_results],
        found: cut(&format!(
            "{heading}<p>Methods matching “{HOLE}”: {HOLE} of {count}, best first.</p>\n\
             <ol class=\"results\">\n"
        )),
        found_end: piece("</ol>\n"),
        nothing: cut(&format!("{heading}<p>No method matches “{HOLE}”.</p>\n")),
        suggestions: cut(&format!("<p>Did you mean {HOLE} or {HOLE}?</p>\n")),
        every_method: piece(every_method),
        end,
    }
}

/// The results as Markdown, cut.
fn markdown(catalog: &Catalog, headers: Headers) -> Layout {
    let count = catalog.entries.len();
    let every_method = format!(
        "{}\n\n{}\n",
        render_markdown::escape(&how_search_reads(catalog)),
        render_markdown::groups(catalog, "##").trim_end()
    );
    Layout {
        headers,
        top: vec![piece("# Search results\n\n")],
        found: cut(&format!(
            "Methods matching “{HOLE}”: {HOLE} of {count}, best first.\n\n"
        )),
        found_end: Piece(Bytes::new()),
        nothing: cut(&format!("No method matches “{HOLE}”.\n\n")),
        suggestions: cut(&format!("Did you mean {HOLE} or {HOLE}?\n\n")),
        every_method: piece(every_method),
        end: piece(format!(
            "\n[All methods]({})\n",
            Address::Methods(View::Page)
        )),
    }
}

/// One method's pieces: its list item in HTML and in Markdown, cut where
/// the line that says why it matched goes, its links, its JSON members and
/// its page's address.
fn method(catalog: &Catalog, entry: &Entry) -> Method {
    let path = page_of(&entry.key);
    let description = format!(
        "{}{}",
        render_markdown::paragraph(&entry.description_md, &page_of),
        render_markdown::deprecation(&catalog.language.chrome, entry, &page_of)
    );
    let signatures = format!("```php\n{}\n```\n", entry.signatures.join("\n"));
    let html = [
        piece(format!(
            "<li><h2><a href=\"{path}\">{key}</a></h2>\n{}<p class=\"why\">",
            render_html::body(&description),
            key = entry.key,
        )),
        piece(format!("</p>\n{}</li>\n", render_html::body(&signatures))),
    ];
    let calls: Vec<String> = entry.signatures.iter().map(|s| format!("`{s}`")).collect();
    let markdown = [
        piece(format!(
            "[`{key}`]({path}): {description}\n   {}\n   ",
            calls.join(", "),
            key = entry.key,
        )),
        piece("\n"),
    ];
    let links = [
        piece(format!("<a href=\"{path}\"><code>{}</code></a>", entry.key)),
        piece(format!("[`{}`]({path})", entry.key)),
    ];
    Method {
        html,
        markdown,
        links,
        json: members(catalog, entry),
        location: HeaderValue::try_from(path).expect("a method's path is a header value"),
    }
}

/// A method's members in the JSON answer: its Reference's `key`, `name`,
/// `description`, `signature`, `documentation_url` and `url`, and
/// `deprecated` when it is, in the Reference's order.
fn members(catalog: &Catalog, entry: &Entry) -> Members {
    const KEPT: [&str; 7] = [
        "key",
        "name",
        "description",
        "signature",
        "documentation_url",
        "url",
        "deprecated",
    ];
    let reference = render_json::reference(catalog, entry).to_string();
    let mut members: Members =
        serde_json::from_str(&reference).expect("serde_json writes an object as a JSON object");
    members.retain(|name, _| KEPT.contains(&name.as_str()));
    members
}

/// `text` as a piece.
fn piece(text: impl Into<Bytes>) -> Piece {
    Piece(text.into())
}

/// `text` cut at every [`HOLE`], in `N` pieces.
fn cut<const N: usize>(text: &str) -> [Piece; N] {
    let cut: Vec<Piece> = text
        .split(HOLE)
        .map(|text| piece(text.to_string()))
        .collect();
    cut.try_into().unwrap_or_else(|cut: Vec<Piece>| {
        panic!(
            "{} pieces, not {N}: a text of /search holds U+E000, which marks where it is cut: {text}",
            cut.len()
        )
    })
}
