//! Build stage 2 (assembly): which resources exist, at which paths, in which
//! representations — the site map of the server, before compression.
//!
//! The renderers produce text; this stage names the path and media type of
//! each text, the headers that travel with it, and the caching policy of
//! each resource. The error bodies, and a removed method's addresses,
//! whose bodies explain the error they answer with, are
//! `site/errors.rs`'s; the agents' discovery documents
//! `site/discovery.rs`'s.

mod discovery;
mod errors;

pub(crate) use errors::errors;

use crate::address::{Address, View};
use crate::content::{Catalog, Editions, Status};
use crate::errors::ErrorKind;
use crate::media::MediaType;
use crate::parallel;
use crate::render_html::{self, Page};
use crate::{
    render_crawlers, render_feed, render_icon, render_json, render_llms, render_markdown,
    render_openapi,
};

/// `Cache-Control` of every successful response. Documentation changes only
/// when a new build is deployed: a CDN may serve it for an hour and keep
/// serving it for a day while it revalidates (a cheap 304 thanks to ETag).
pub(crate) const CACHE_CONTROL: &str = "public, max-age=3600, stale-while-revalidate=86400";

/// One representation before compression.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    /// Its media type.
    pub media: MediaType,
    /// The identity body.
    pub bytes: Vec<u8>,
    /// Headers sent with it (lowercase names), besides the ones every response has.
    pub headers: Vec<(&'static str, String)>,
    /// Whether it is also stored compressed against the compression
    /// dictionary (`dictionary.rs`).
    pub with_dictionary: bool,
}

impl Body {
    /// A body with no headers of its own.
    pub(crate) fn new(media: MediaType, bytes: impl Into<Vec<u8>>) -> Body {
        Body {
            media,
            bytes: bytes.into(),
            headers: Vec::new(),
            with_dictionary: false,
        }
    }
}

/// One resource before compression: its representations in the server's
/// order of preference, and its caching policy.
#[derive(Debug)]
pub(crate) struct Resource {
    /// The table key: a path for pages, an error id for errors.
    pub id: String,
    /// The representations, in order of preference.
    pub representations: Vec<Body>,
    /// `Cache-Control`.
    pub cache_control: &'static str,
    /// The error this resource explains; `None` for a document (served
    /// with 200 and validators).
    pub error: Option<ErrorKind>,
    /// How many languages its representations are in: more than one at an
    /// address that negotiates the language, each language's the same
    /// media types in the same order, the languages in the site's.
    pub languages: usize,
}

/// `Link` to the OpenAPI description, sent with every JSON API response (RFC 8631).
pub(crate) fn service_desc(catalog: &Catalog) -> (&'static str, String) {
    (
        "link",
        format!(
            "<{}>; rel=\"service-desc\"",
            Address::OpenApi.url(&catalog.base_url)
        ),
    )
}

/// The headers of every HTML page: a strict policy and no referrer.
pub(crate) fn html_headers() -> Vec<(&'static str, String)> {
    vec![
        (
            "content-security-policy",
            render_html::content_security_policy(),
        ),
        ("referrer-policy", "no-referrer".to_string()),
    ]
}

/// A document at `address`, served with 200 and kept as long as any but
/// the health check.
fn document(address: Address, representations: Vec<Body>) -> Resource {
    Resource {
        id: address.to_string(),
        representations,
        // For load balancers: never cached, never listed.
        cache_control: if address == Address::Health {
            "no-store"
        } else {
            CACHE_CONTROL
        },
        error: None,
        languages: 1,
    }
}

/// `Link` to `address` as an alternate representation of type `media`.
fn alternate(address: impl std::fmt::Display, media: MediaType) -> String {
    format!(
        "<{address}>; rel=\"alternate\"; type=\"{}\"",
        media.essence()
    )
}

/// A page at `at(View::Page)` (HTML, then Markdown) and its Markdown twin
/// at `at(View::Markdown)`, in `catalog`'s pages, the page sending a link
/// to its twin, then `links`; each with the address that negotiates it.
fn page_and_twin<'k>(
    catalog: &Catalog,
    at: impl Fn(View) -> Address<'k>,
    page: &Page,
    markdown: String,
    links: &[String],
) -> [(String, Resource); 2] {
    let twin = catalog.at(at(View::Markdown)).to_string();
    let links = [vec![alternate(&twin, MediaType::MARKDOWN)], links.to_vec()].concat();
    let page = Page {
        address: Some(at(View::Page)),
        markdown_path: Some(&twin),
        ..*page
    };
    let pair = page_pair(catalog, &page, markdown.clone(), &links);
    let twin = markdown_body(MediaType::MARKDOWN, markdown).localized(catalog, &[]);
    let resource = |view, representations| {
        let address = at(view);
        (
            address.to_string(),
            localized_document(catalog, address, representations),
        )
    };
    [
        resource(View::Page, pair),
        resource(View::Markdown, vec![twin]),
    ]
}

/// A document at `address` in `catalog`'s pages.
pub(crate) fn localized_document(
    catalog: &Catalog,
    address: Address,
    representations: Vec<Body>,
) -> Resource {
    Resource {
        id: catalog.at(address).to_string(),
        ..document(address, representations)
    }
}

impl Body {
    /// This body sending `links`, then the `Content-Language` of
    /// `catalog`'s pages.
    fn localized(mut self, catalog: &Catalog, links: &[String]) -> Body {
        let links = links.iter().map(|link| ("link", link.clone()));
        self.headers.extend(links);
        self.headers
            .push(("content-language", catalog.language.tag.clone()));
        self
    }
}

/// `page`, its Markdown rendered as HTML, in `catalog`'s language and
/// sending `links`.
pub(crate) fn html_page(catalog: &Catalog, page: &Page, markdown: &str, links: &[String]) -> Body {
    let html = Body {
        headers: html_headers(),
        ..Body::new(MediaType::HTML, render_html::page(catalog, page, markdown))
    };
    html.localized(catalog, links)
}

/// An HTML page and its Markdown source, in that order of preference.
fn page_pair(catalog: &Catalog, page: &Page, markdown: String, links: &[String]) -> Vec<Body> {
    let html = html_page(catalog, page, &markdown, links);
    let markdown = markdown_body(MediaType::MARKDOWN, markdown).localized(catalog, links);
    vec![html, markdown]
}

/// A Markdown body with `x-markdown-tokens`: an estimate of the tokens a
/// language model spends on it (about four bytes of English text per
/// token).
fn markdown_body(media: MediaType, markdown: String) -> Body {
    Body {
        headers: vec![("x-markdown-tokens", markdown.len().div_ceil(4).to_string())],
        ..Body::new(media, markdown)
    }
}

/// Every resource, keyed by path: the documents for programs and the
/// discovery files, the pages at the addresses that negotiate their
/// language, each language's pages and documents for agents at its own,
/// then a removed method's addresses (`site/errors.rs`).
pub(crate) fn resources(editions: &Editions) -> Vec<Resource> {
    let mut all = documents(editions);
    let catalogs: Vec<&Catalog> = editions.catalogs.iter().collect();
    let languages = parallel::map(&catalogs, |catalog| pages(editions, catalog));
    all.extend(negotiated(&languages));
    let sitemap = Body::new(MediaType::XML, render_crawlers::sitemap(editions));
    all.push(document(Address::Sitemap, vec![sitemap]));
    all.extend(languages.into_iter().flatten().map(|(_, page)| page));
    all.extend(editions.catalogs.iter().flat_map(for_agents));
    all.extend(errors::removed(editions));
    all
}

/// `catalog`'s documents for agents at its own addresses, in its language
/// and linking its pages: `llms.txt`, `llms-full.txt` and the feed. The
/// ones without a language (`/llms.txt`) are the source's ([`documents`]):
/// an agent asks for them without `Accept-Language`, so they do not
/// negotiate.
fn for_agents(catalog: &Catalog) -> Vec<Resource> {
    agents_documents(catalog, Some(&catalog.language.segment))
        .into_iter()
        .map(|(address, body)| {
            localized_document(catalog, address, vec![body.localized(catalog, &[])])
        })
        .collect()
}

/// `llms.txt`, `llms-full.txt` and the feed of `catalog`, linking its
/// pages in the language `own` (`None`: at the addresses that negotiate).
fn agents_documents(catalog: &Catalog, own: Option<&str>) -> [(Address<'static>, Body); 3] {
    [
        (
            Address::Llms,
            markdown_body(MediaType::TEXT, render_llms::llms(catalog, own)),
        ),
        (
            Address::LlmsFull,
            markdown_body(MediaType::TEXT, render_llms::llms_full(catalog)),
        ),
        (
            Address::Feed,
            Body::new(MediaType::ATOM, render_feed::changes(catalog, own)),
        ),
    ]
}

/// The pages at the addresses that negotiate their language: of each page
/// (the same in every language's list, at the same place), every
/// language's representations, each saying where it stands on its own
/// (`Content-Location`).
fn negotiated(languages: &[Vec<(String, Resource)>]) -> Vec<Resource> {
    let Some(first) = languages.first() else {
        return Vec::new();
    };
    first
        .iter()
        .enumerate()
        .map(|(i, (path, page))| Resource {
            id: path.clone(),
            representations: languages
                .iter()
                .map(|pages| &pages[i].1)
                .flat_map(|fixed| {
                    fixed.representations.iter().map(|body| {
                        let mut body = body.clone();
                        body.headers.push(("content-location", fixed.id.clone()));
                        body
                    })
                })
                .collect(),
            cache_control: page.cache_control,
            error: None,
            languages: languages.len(),
        })
        .collect()
}

/// `catalog`'s pages at its own addresses (`/zh-hans/api/select`), each
/// with the address that negotiates it: the homepage, the index and each
/// method's page, each with its Markdown twin.
fn pages(editions: &Editions, catalog: &Catalog) -> Vec<(String, Resource)> {
    let words = &catalog.language.chrome;
    let every = editions.languages();
    let feed = catalog.at(Address::Feed).to_string();
    let home = Page {
        title: &catalog.site.title,
        description: &catalog.site.summary,
        feed: Some(&feed),
        written_in: &every,
        ..Page::default()
    };
    let home_links = [
        format!(
            "<{}>; rel=\"describedby\"; type=\"text/plain\"",
            catalog.at(Address::Llms)
        ),
        format!("<{}>; rel=\"api-catalog\"", Address::ApiCatalog),
        alternate(&feed, MediaType::ATOM),
    ];
    let markdown = render_markdown::home(catalog);
    let home = page_and_twin(catalog, Address::Home, &home, markdown, &home_links);
    let index = Page {
        title: &words.methods,
        description: &words.methods_description,
        written_in: &every,
        ..Page::default()
    };
    let markdown = render_markdown::methods(catalog);
    let index = page_and_twin(catalog, Address::Methods, &index, markdown, &[]);
    let mut all = Vec::from_iter(home.into_iter().chain(index));
    let source = editions.source();
    for entry in &catalog.entries {
        let key = entry.key.as_str();
        let written_in = editions.written_in(key);
        let page = Page {
            title: key,
            description: &entry.description,
            method: Some(key),
            written_in: &written_in,
            content_language: (entry.translation == Status::Untranslated)
                .then_some(&source.language),
            ..Page::default()
        };
        let json = alternate(Address::Document(key), MediaType::JSON);
        let markdown = render_markdown::method(catalog, entry);
        let at = |form| Address::Method(key, form);
        all.extend(page_and_twin(catalog, at, &page, markdown, &[json]));
    }
    all
}

/// The documents for programs and crawlers, one address each, from the
/// source's catalog: the JSON reference, OpenAPI, the agent index, the
/// feed, the sitemap, robots.txt, the icons, the health check, the API
/// catalog and the discovery files.
fn documents(editions: &Editions) -> Vec<Resource> {
    // The JSON Reference is the source language's, whatever is asked.
    let catalog = editions.source();
    let api = |text: String| {
        Body {
            headers: vec![service_desc(catalog)],
            ..Body::new(MediaType::JSON, text)
        }
        .localized(catalog, &[])
    };
    let collection = api(render_json::collection(catalog));
    let mut all = vec![document(Address::Collection, vec![collection])];
    for entry in &catalog.entries {
        let json = api(render_json::single(catalog, entry));
        all.push(document(Address::Document(&entry.key), vec![json]));
    }

    let api_catalog = Address::ApiCatalog.url(&catalog.base_url);
    let catalog_link = ("link", format!("<{api_catalog}>; rel=\"api-catalog\""));
    let openapi = (
        Address::OpenApi,
        Body::new(MediaType::JSON, render_openapi::openapi(catalog)),
    );
    let others = [
        (
            Address::Robots,
            Body::new(MediaType::TEXT, render_crawlers::robots(catalog)),
        ),
        (
            Address::IconSvg,
            Body::new(MediaType::SVG, render_icon::svg()),
        ),
        (
            Address::IconIco,
            Body::new(MediaType::ICO, render_icon::ico()),
        ),
        (Address::Health, Body::new(MediaType::TEXT, "ok\n")),
        (
            Address::ApiCatalog,
            Body {
                headers: vec![catalog_link],
                ..Body::new(MediaType::LINKSET, render_json::api_catalog(catalog))
            },
        ),
    ];
    let documents = std::iter::once(openapi)
        .chain(agents_documents(catalog, None))
        .chain(others);
    all.extend(documents.map(|(address, body)| document(address, vec![body])));
    all.extend(discovery::resources(editions));
    all
}
