//! Build stage 2 (HTML): every page's HTML, derived from its Markdown by a
//! CommonMark renderer and set in one layout.
//!
//! Pages are self-contained: one inline stylesheet (allowed by its hash in
//! the `Content-Security-Policy`), no scripts, no external requests. The
//! layout is readable on a phone and a desktop, follows the system's light
//! or dark scheme, and has landmarks, a skip link and visible focus.

mod actions;

use crate::address::{Address, View};
use crate::content::{Catalog, Language};
use crate::highlight;
use crate::search_page::{MAX_QUERY_CHARS, PARAMETER};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use pulldown_cmark::{
    html, CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd,
};
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

/// What the layout needs to know about a page besides its Markdown.
#[derive(Clone, Copy, Default)]
pub(crate) struct Page<'a> {
    /// The `<title>` (the site's title is appended).
    pub title: &'a str,
    /// `<meta name="description">`.
    pub description: &'a str,
    /// The page's address, in no language (`/api/select`): its canonical
    /// link is it in the catalog's language, its alternates are it in the
    /// others' and, for `x-default`, the negotiated one; `None` for error
    /// pages.
    pub address: Option<Address<'a>>,
    /// The languages it is written in, each at its own address (hreflang);
    /// the others show it untranslated.
    pub written_in: &'a [&'a Language],
    /// The language of its content, when it is not the catalog's (a
    /// method not translated yet): marked on `main`, and its canonical
    /// page is the one in that language.
    pub content_language: Option<&'a Language>,
    /// The path of its Markdown twin (`/zh-hans/api/select.md`), if it has one.
    pub markdown_path: Option<&'a str>,
    /// On a method's page, its key: the page then lists every method,
    /// this one marked as current.
    pub method: Option<&'a str>,
    /// The path of an Atom feed the page announces (the homepage's).
    pub feed: Option<&'a str>,
}

/// The stylesheet of every page (`render_html/style.css`), sent on one
/// line: its lines joined.
fn style() -> &'static str {
    static STYLE: LazyLock<String> =
        LazyLock::new(|| include_str!("render_html/style.css").lines().collect());
    &STYLE
}

/// The `Content-Security-Policy` of every page: nothing but the inline
/// stylesheet and same-origin images, no script, no framing, forms sent
/// to this origin only (the header's search), no base rewriting. `connect-src 'self'` lets nothing on the page connect
/// (no script may run), but tools that load resources in the page's context
/// under its policy need it: Lighthouse reads `/robots.txt` that way.
pub(crate) fn content_security_policy() -> String {
    let digest = Sha256::digest(style().as_bytes());
    format!(
        "default-src 'none'; style-src 'sha256-{}'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        STANDARD.encode(digest)
    )
}

/// A page: its Markdown rendered as HTML inside the layout; a page with an
/// address and a Markdown twin (the homepage, the index, a method's) has
/// the page actions under its title.
pub(crate) fn page(catalog: &Catalog, page: &Page, markdown: &str) -> String {
    let actions = page
        .markdown_path
        .filter(|_| page.address.is_some())
        .map(|twin| actions::html(catalog, twin));
    let mut main = body_after_title(markdown, actions);
    // A page shown in another language than its catalog's: its notice
    // (the first quote) is in the catalog's.
    if page.content_language.is_some() {
        let notice = format!("<blockquote lang=\"{}\">", catalog.language.tag);
        main = main.replacen("<blockquote>", &notice, 1);
    }
    layout(catalog, page, &main, None)
}

/// A page whose main content is the HTML `main`, in the layout; the
/// header's search box holds `query`, if any.
pub(crate) fn layout(catalog: &Catalog, page: &Page, main: &str, query: Option<&str>) -> String {
    let words = &catalog.language.chrome;
    let site = &catalog.site.title;
    let title = if page.title == site {
        escape(site)
    } else {
        format!("{} · {}", escape(page.title), escape(site))
    };
    let mut head = format!(
        "<!doctype html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<meta name=\"description\" content=\"{}\">\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n",
        catalog.language.tag,
        escape(page.description)
    );
    match page.address {
        Some(address) => head.push_str(&alternates(catalog, page, address)),
        None => head.push_str("<meta name=\"robots\" content=\"noindex\">\n"),
    }
    if let Some(twin) = page.markdown_path {
        head.push_str(&format!(
            "<link rel=\"alternate\" type=\"text/markdown\" href=\"{twin}\">\n"
        ));
    }
    if let Some(feed) = page.feed {
        head.push_str(&format!(
            "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"{}\" href=\"{feed}\">\n",
            escape(&words.feed_title)
        ));
    }
    // The header's search form: a plain GET of `/search` (no script), its
    // box labelled for screen readers and holding `query`, if any.
    let value = query
        .map(|query| format!(" value=\"{}\"", escape(query)))
        .unwrap_or_default();
    let search_form = format!(
        "<form class=\"search\" role=\"search\" method=\"get\" action=\"{search}\">\
         <label class=\"hidden\" for=\"search-query\">{label}</label>\
         <input id=\"search-query\" type=\"search\" name=\"{PARAMETER}\" required \
         maxlength=\"{MAX_QUERY_CHARS}\" placeholder=\"{placeholder}\" enterkeyhint=\"search\"{value}>\
         <button type=\"submit\">{button}</button></form>\n",
        search = catalog.at(Address::Search),
        label = escape(&words.search_label),
        placeholder = escape(&words.search_placeholder),
        button = escape(&words.search_button),
    );
    let footer_twin = page
        .markdown_path
        .map(|twin| format!(" · <a href=\"{twin}\">{}</a>", escape(&words.as_markdown)))
        .unwrap_or_default();
    let main_lang = page
        .content_language
        .map(|language| format!(" lang=\"{}\"", language.tag))
        .unwrap_or_default();
    let main = format!("<main id=\"main\"{main_lang}>\n{main}</main>\n");
    let content = match page.method {
        Some(key) => format!(
            "<div class=\"with-nav\">\n{main}{}</div>\n",
            methods_nav(catalog, key)
        ),
        None => main,
    };
    format!(
        "{head}<style>{style}</style>\n</head>\n<body>\n<a class=\"skip\" href=\"#main\">{skip}</a>\n\
         <header>\n<nav aria-label=\"{site_nav}\"><a href=\"{home}\">{}</a><a href=\"{methods}\">{methods_label}</a><a href=\"{collection}\">JSON</a>\
         <a href=\"{openapi}\">OpenAPI</a><a href=\"{llms}\">llms.txt</a></nav>\n{}{}</header>\n\
         {content}<footer>\n<p>{read_only}{footer_twin}</p>\n</footer>\n</body>\n</html>\n",
        escape(site),
        search_form,
        switcher(catalog, page),
        style = style(),
        skip = escape(&words.skip_to_content),
        site_nav = escape(&words.site_navigation),
        home = catalog.at(Address::Home(View::Page)),
        methods = catalog.at(Address::Methods(View::Page)),
        methods_label = escape(&words.methods),
        collection = Address::Collection,
        openapi = Address::OpenApi,
        llms = catalog.at(Address::Llms),
        read_only = escape(&words.read_only),
    )
}

/// The links of a page's head to its own versions: `canonical` (its
/// address in its catalog's language, or in its content's when that is
/// another), and, when it is written in more than one language, an
/// `alternate` for each with its `hreflang`, and `x-default`: the address
/// that negotiates (Google's rules for localized versions).
fn alternates(catalog: &Catalog, page: &Page, address: Address) -> String {
    let base = escape(&catalog.base_url);
    let own = page.content_language.unwrap_or(&catalog.language);
    let canonical = address.localized(Some(&own.segment));
    let mut links = format!("<link rel=\"canonical\" href=\"{base}{canonical}\">\n");
    if page.content_language.is_none() && page.written_in.len() > 1 {
        let languages = page.written_in.iter().map(|l| (&*l.tag, Some(&*l.segment)));
        for (hreflang, segment) in languages.chain([("x-default", None)]) {
            links.push_str(&format!(
                "<link rel=\"alternate\" hreflang=\"{hreflang}\" href=\"{base}{}\">\n",
                address.localized(segment)
            ));
        }
    }
    links
}

/// The language switcher: the same page in every language of the site,
/// the current one marked; nothing on a site of one language or a page
/// without an address.
fn switcher(catalog: &Catalog, page: &Page) -> String {
    let Some(address) = page.address.filter(|_| catalog.languages.len() > 1) else {
        return String::new();
    };
    let links: String = catalog
        .languages
        .iter()
        .map(|language| {
            format!(
                "<a href=\"{}\" hreflang=\"{tag}\" lang=\"{tag}\"{}>{}</a>",
                address.localized(Some(&language.segment)),
                aria_current(language.tag == catalog.language.tag),
                escape(&language.name),
                tag = language.tag,
            )
        })
        .collect();
    format!(
        "<nav class=\"languages\" aria-label=\"{}\">{links}</nav>\n",
        escape(&catalog.language.chrome.languages)
    )
}

/// The attribute that marks a link to the page it is on, if `is` says it is.
fn aria_current(is: bool) -> &'static str {
    if is {
        " aria-current=\"page\""
    } else {
        ""
    }
}

/// Every method, grouped as on the homepage, `current` marked: after the
/// content in the document (first on a wide screen, beside it).
fn methods_nav(catalog: &Catalog, current: &str) -> String {
    let mut html = format!(
        "<nav class=\"methods\" aria-label=\"{}\">\n<ul>\n",
        escape(&catalog.language.chrome.methods)
    );
    for group in &catalog.site.groups {
        html.push_str(&format!("<li>{}<ul>\n", escape(&group.name)));
        for key in &group.keys {
            html.push_str(&format!(
                "<li><a href=\"{}\"{}>{key}</a></li>\n",
                catalog.page_of(key),
                aria_current(key == current)
            ));
        }
        html.push_str("</ul></li>\n");
    }
    html.push_str("</ul>\n</nav>\n");
    html
}

/// The Markdown as HTML (a page's main content).
pub(crate) fn body(markdown: &str) -> String {
    body_after_title(markdown, None)
}

/// The Markdown as HTML, with the HTML `after_title`, if any, right after
/// its `h1`.
fn body_after_title(markdown: &str, after_title: Option<String>) -> String {
    let mut html = String::with_capacity(markdown.len() * 2);
    let mut after_title = after_title.map(|after| Event::Html(CowStr::from(after)));
    let events = Parser::new_ext(markdown, Options::ENABLE_TABLES).flat_map(|event| {
        let title_ends = matches!(event, Event::End(TagEnd::Heading(HeadingLevel::H1)));
        let after = if title_ends { after_title.take() } else { None };
        std::iter::once(event).chain(after)
    });
    html::push_html(
        &mut html,
        link_headings(label_tables(highlight_php(events))),
    );
    html
}

/// The events with every fenced `php` block replaced by its highlighted HTML.
fn highlight_php<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    let mut code: Option<String> = None;
    events.filter_map(move |event| match event {
        Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(ref lang))) if &**lang == "php" => {
            code = Some(String::new());
            None
        }
        Event::Text(text) if code.is_some() => {
            code.as_mut().expect("inside a php block").push_str(&text);
            None
        }
        Event::End(TagEnd::CodeBlock) if code.is_some() => {
            let text = code.take().expect("inside a php block");
            let html = format!(
                "<pre><code class=\"language-php\">{}</code></pre>\n",
                highlight::php(&text)
            );
            Some(Event::Html(CowStr::from(html)))
        }
        other => Some(other),
    })
}

/// The events with every `h2` and `h3` given a stable `id` (from its
/// text, unique in the page) and its text made a link to itself.
fn link_headings<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    let mut heading: Option<(HeadingLevel, Vec<Event<'a>>)> = None;
    let mut ids: Vec<String> = Vec::new();
    events.filter_map(move |event| match event {
        Event::Start(Tag::Heading { level, .. })
            if matches!(level, HeadingLevel::H2 | HeadingLevel::H3) =>
        {
            heading = Some((level, Vec::new()));
            None
        }
        Event::End(TagEnd::Heading(_)) if heading.is_some() => {
            let (level, inner) = heading.take().expect("inside a heading");
            let base = slug(&inner.iter().filter_map(text_of).collect::<String>());
            // The first of `base`, `base-2`, `base-3`… not taken yet.
            let id = std::iter::once(base.clone())
                .chain((2..).map(|n| format!("{base}-{n}")))
                .find(|id| !ids.contains(id))
                .expect("the ids go on without end");
            ids.push(id.clone());
            let mut content = String::new();
            html::push_html(&mut content, inner.into_iter());
            Some(Event::Html(CowStr::from(format!(
                "<{level} id=\"{id}\"><a class=\"here\" href=\"#{id}\">{content}</a></{level}>\n"
            ))))
        }
        other => match heading.as_mut() {
            Some((_, inner)) => {
                inner.push(other);
                None
            }
            None => Some(other),
        },
    })
}

/// The events with each table wrapped in a region that scrolls on its own
/// if it must (focusable, for keyboard users), labelled by the heading
/// before it, and each body cell carrying its column's name, which narrow
/// screens show beside the value when the rows are stacked. (The pages'
/// Markdown aligns no column: a body cell is written without a style.)
fn label_tables<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    // The text of the last heading below `h1` (as it is read), the
    // columns' names, and whether the head is being read.
    let mut heading: Option<String> = None;
    let mut in_heading = false;
    let mut columns: Vec<String> = Vec::new();
    let mut in_head = false;
    let mut column = 0;
    events.flat_map(move |event| {
        let raw = |text: String| Event::Html(CowStr::from(text));
        match &event {
            Event::Start(Tag::Heading { level, .. }) if *level != HeadingLevel::H1 => {
                heading = Some(String::new());
                in_heading = true;
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::Table(_)) => {
                columns.clear();
                let label = escape(heading.as_deref().unwrap_or("Table"));
                let region = format!(
                    "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"{label}\">"
                );
                return vec![raw(region), event];
            }
            Event::End(TagEnd::Table) => return vec![raw("</tbody></table></div>\n".into())],
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => column = 0,
            Event::Start(Tag::TableCell) if in_head => columns.push(String::new()),
            Event::Start(Tag::TableCell) => {
                let name = escape(columns.get(column).map_or("", String::as_str));
                column += 1;
                return vec![raw(format!("<td data-label=\"{name}\">"))];
            }
            _ => {
                let target = if in_heading {
                    heading.as_mut()
                } else if in_head {
                    columns.last_mut()
                } else {
                    None
                };
                if let (Some(target), Some(text)) = (target, text_of(&event)) {
                    target.push_str(text);
                }
            }
        }
        vec![event]
    })
}

/// The text an event shows, if it is text.
fn text_of<'e>(event: &'e Event) -> Option<&'e str> {
    match event {
        Event::Text(text) | Event::Code(text) => Some(text),
        _ => None,
    }
}

/// A fragment id from a heading's text: lowercase letters and digits,
/// words joined by `-`.
fn slug(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| word.chars().flat_map(char::to_lowercase).collect())
        .collect();
    if words.is_empty() {
        "section".to_string()
    } else {
        words.join("-")
    }
}

/// Escape text for HTML content and double-quoted attributes (the
/// server escapes a query with the same function).
pub use crate::escape::html as escape;
