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
use crate::content::{fill, Catalog, Chrome, Entry};
use crate::mcp::Members;
use crate::render_html::{self, Page};
use crate::render_json;
use crate::render_markdown;
use crate::search_page::{Form, Headers, Layout, Method, Piece, SearchPage, Why};
use crate::site::{self, Resource};
use crate::table;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue};

/// Where a text is cut: a character of Unicode's private use area, which
/// no renderer writes and no content of the reference holds.
const HOLE: char = '\u{E000}';

/// `/search`'s pieces in `catalog`'s language, with the headers `headers`
/// gives each form and the headers of a `303`; `exported` is the page a
/// static host serves instead (from [`exported`], stored).
pub(crate) fn page(
    catalog: &Catalog,
    headers: impl Fn(Form) -> Headers,
    see_other: HeaderMap,
    exported: table::Resource,
) -> SearchPage {
    SearchPage {
        html: html(catalog),
        markdown: markdown(catalog),
        headers: Form::ALL.map(headers),
        see_other,
        methods: methods(catalog),
        why: why(&catalog.language.chrome),
        exported,
    }
}

/// The page a static host serves at the search address of `catalog`'s
/// language (`refserve export`): search needs the server; the index of
/// methods lists them all.
pub(crate) fn exported(catalog: &Catalog) -> Resource {
    let words = &catalog.language.chrome;
    let count = catalog.entries.len().to_string();
    let index = catalog.at(Address::Methods(View::Page)).to_string();
    let markdown = format!(
        "# {}\n\n{}\n",
        words.search_title,
        fill(
            &words.search_exported,
            &[("count", &count), ("index", &index)]
        ),
    );
    let page = Page {
        title: &words.search_title,
        description: &words.search_exported_description,
        ..Page::default()
    };
    let html = site::html_page(catalog, &page, &markdown, &[]);
    site::localized_document(catalog, Address::Search, vec![html])
}

/// Each method of `catalog` as search's answers show it, in catalog order.
pub(crate) fn methods(catalog: &Catalog) -> Vec<Method> {
    catalog.entries.iter().map(|e| method(catalog, e)).collect()
}

/// The results page, cut.
fn html(catalog: &Catalog) -> Layout {
    let words = &catalog.language.chrome;
    let texts = Texts::of(catalog, render_html::escape);
    let hole = HOLE.to_string();
    let title = fill(&words.search_page_title, &[("query", &hole)]);
    let page = Page {
        title: &title,
        description: &words.search_description,
        ..Page::default()
    };
    // The query in the title and in the search box, then the results.
    let whole = render_html::layout(catalog, &page, &hole, Some(&hole));
    let [to_title, to_search_box, to_results, end] = cut(&whole);
    let heading = format!("<h1>{}</h1>\n", render_html::escape(&words.search_results));
    let every_method = format!(
        "<p>{}</p>\n{}",
        texts.how_search_reads,
        render_html::body(&render_markdown::groups(catalog, "##"))
    );
    Layout {
        top: vec![to_title, to_search_box, to_results],
        found: cut(&format!(
            "{heading}<p>{}</p>\n<ol class=\"results\">\n",
            texts.found
        )),
        found_end: piece("</ol>\n"),
        nothing: cut(&format!("{heading}<p>{}</p>\n", texts.nothing)),
        suggestions: cut(&format!("<p>{}</p>\n", texts.suggestions)),
        every_method: piece(every_method),
        end,
    }
}

/// The results as Markdown, cut.
fn markdown(catalog: &Catalog) -> Layout {
    let words = &catalog.language.chrome;
    let texts = Texts::of(catalog, render_markdown::escape);
    let every_method = format!(
        "{}\n\n{}\n",
        texts.how_search_reads,
        render_markdown::groups(catalog, "##").trim_end()
    );
    Layout {
        top: vec![piece(format!("# {}\n\n", words.search_results))],
        found: cut(&format!("{}\n\n", texts.found)),
        found_end: Piece(Bytes::new()),
        nothing: cut(&format!("{}\n\n", texts.nothing)),
        suggestions: cut(&format!("{}\n\n", texts.suggestions)),
        every_method: piece(every_method),
        end: piece(format!(
            "\n[{}]({})\n",
            words.all_methods,
            catalog.at(Address::Methods(View::Page))
        )),
    }
}

/// The texts of the results around their holes, in `catalog`'s language,
/// escaped for their format.
struct Texts {
    found: String,
    nothing: String,
    suggestions: String,
    /// What search says when nothing matches, before every method: how it
    /// reads a query (as MCP's `search` says it).
    how_search_reads: String,
}

impl Texts {
    fn of(catalog: &Catalog, escape: fn(&str) -> String) -> Texts {
        let words = &catalog.language.chrome;
        let hole = HOLE.to_string();
        let count = catalog.entries.len().to_string();
        Texts {
            found: escape(&fill(
                &words.search_found,
                &[("query", &hole), ("found", &hole), ("count", &count)],
            )),
            nothing: escape(&fill(&words.search_nothing, &[("query", &hole)])),
            suggestions: escape(&fill(
                &words.search_suggestions,
                &[("first", &hole), ("second", &hole)],
            )),
            how_search_reads: escape(&fill(&words.search_how, &[("count", &count)])),
        }
    }
}

/// The line that says why a method matched, in `words`' language, cut.
fn why(words: &Chrome) -> Why {
    let hole = HOLE.to_string();
    let fields = [
        &words.field_name,
        &words.field_synonym,
        &words.field_group,
        &words.field_description,
        &words.field_signature,
        &words.field_parameter,
        &words.field_returns,
        &words.field_note,
        &words.field_example,
        &words.field_code,
    ];
    Why {
        start: piece(words.why_start.clone()),
        found: cut(&fill(
            &words.why_found,
            &[("word", &hole), ("field", &hole)],
        )),
        read_as: cut(&fill(
            &words.why_read_as,
            &[("word", &hole), ("read_as", &hole), ("field", &hole)],
        )),
        separator: piece(words.why_separator.clone()),
        end: piece(words.why_end.clone()),
        fields: fields.into_iter().map(|f| piece(f.clone())).collect(),
    }
}

/// One method's pieces: its list item in HTML and in Markdown, cut where
/// the line that says why it matched goes, its links, its JSON members and
/// its page's address.
fn method(catalog: &Catalog, entry: &Entry) -> Method {
    let path = catalog.page_of(&entry.key);
    let page_of = |key: &str| catalog.page_of(key);
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
