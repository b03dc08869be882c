//! Build stage 2 (assembly): which resources exist, at which paths, in which
//! representations — the site map of the server, before compression.
//!
//! The renderers produce text; this stage names the path and media type of
//! each text, the headers that travel with it, and the caching policy of
//! each resource, and pairs every [`ErrorKind`] with its texts from
//! `content/errors.json`. A removed method's addresses are resources too,
//! whose bodies explain the error they answer with ([`removed`]); the
//! agents' discovery documents are `site/discovery.rs`'s.

mod discovery;

use crate::content::Catalog;
use crate::errors::ErrorKind;
use crate::render_html::{self, Page};
use crate::render_markdown::Pointer;
use crate::table::ErrorBodies;
use crate::{
    render_crawlers, render_feed, render_icon, render_json, render_llms, render_markdown,
    render_openapi,
};

/// `Cache-Control` of every successful response. Documentation changes only
/// when a new build is deployed: a CDN may serve it for an hour and keep
/// serving it for a day while it revalidates (a cheap 304 thanks to ETag).
pub const CACHE_CONTROL: &str = "public, max-age=3600, stale-while-revalidate=86400";

/// A media type as the table stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Media {
    /// Top-level type, lowercase.
    pub kind: &'static str,
    /// Subtype, lowercase.
    pub subtype: &'static str,
    /// `charset` parameter, if sent.
    pub charset: Option<&'static str>,
    /// Further parameters sent in `Content-Type` (`; profile="…"`), not negotiated.
    pub extra: &'static str,
}

impl Media {
    /// `application/json` (UTF-8 by definition, RFC 8259: no charset parameter).
    pub const JSON: Media = Media {
        kind: "application",
        subtype: "json",
        charset: None,
        extra: "",
    };
    /// `text/html; charset=utf-8`.
    pub const HTML: Media = Media {
        kind: "text",
        subtype: "html",
        charset: Some("utf-8"),
        extra: "",
    };
    /// `text/markdown; charset=utf-8` (RFC 7763).
    pub const MARKDOWN: Media = Media {
        kind: "text",
        subtype: "markdown",
        charset: Some("utf-8"),
        extra: "",
    };
    /// `text/plain; charset=utf-8`.
    pub const TEXT: Media = Media {
        kind: "text",
        subtype: "plain",
        charset: Some("utf-8"),
        extra: "",
    };
    /// `application/xml` (RFC 7303; the document declares its encoding).
    pub const XML: Media = Media {
        kind: "application",
        subtype: "xml",
        charset: None,
        extra: "",
    };
    /// `application/atom+xml` (RFC 4287; the document declares its encoding).
    pub const ATOM: Media = Media {
        kind: "application",
        subtype: "atom+xml",
        charset: None,
        extra: "",
    };
    /// `image/svg+xml`.
    pub const SVG: Media = Media {
        kind: "image",
        subtype: "svg+xml",
        charset: None,
        extra: "",
    };
    /// `application/octet-stream`: bytes for a program (the compression dictionary).
    pub const OCTET_STREAM: Media = Media {
        kind: "application",
        subtype: "octet-stream",
        charset: None,
        extra: "",
    };
    /// `image/vnd.microsoft.icon`, the ICO format's registered type.
    pub const ICO: Media = Media {
        kind: "image",
        subtype: "vnd.microsoft.icon",
        charset: None,
        extra: "",
    };
    /// `application/linkset+json` with the API catalog profile (RFC 9264, RFC 9727).
    pub const LINKSET: Media = Media {
        kind: "application",
        subtype: "linkset+json",
        charset: None,
        extra: "; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
    };

    /// The `Content-Type` value.
    pub fn content_type(&self) -> String {
        let charset = self
            .charset
            .map(|c| format!("; charset={c}"))
            .unwrap_or_default();
        format!("{}/{}{charset}{}", self.kind, self.subtype, self.extra)
    }
}

/// One representation before compression.
#[derive(Debug)]
pub struct Body {
    /// Its media type.
    pub media: Media,
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
    pub fn new(media: Media, bytes: impl Into<Vec<u8>>) -> Body {
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
pub struct Resource {
    /// The table key: a path for pages, an error id for errors.
    pub id: String,
    /// The representations, in order of preference.
    pub representations: Vec<Body>,
    /// `Cache-Control`.
    pub cache_control: &'static str,
    /// The error this resource explains; `None` for a document (served
    /// with 200 and validators).
    pub error: Option<ErrorKind>,
}

/// `Link` to the OpenAPI description, sent with every JSON API response (RFC 8631).
pub fn service_desc(catalog: &Catalog) -> (&'static str, String) {
    (
        "link",
        format!("<{}/openapi.json>; rel=\"service-desc\"", catalog.base_url),
    )
}

/// The headers of every HTML page: a strict policy and no referrer.
pub fn html_headers() -> Vec<(&'static str, String)> {
    vec![
        (
            "content-security-policy",
            render_html::content_security_policy(),
        ),
        ("referrer-policy", "no-referrer".to_string()),
    ]
}

/// An HTML page and its Markdown source, in that order of preference.
fn page_pair(catalog: &Catalog, page: &Page, markdown: String, links: &[String]) -> Vec<Body> {
    let mut html_headers = html_headers();
    let mut markdown_headers = vec![markdown_tokens(&markdown)];
    for link in links {
        html_headers.push(("link", link.clone()));
        markdown_headers.push(("link", link.clone()));
    }
    vec![
        Body {
            headers: html_headers,
            ..Body::new(Media::HTML, render_html::page(catalog, page, &markdown))
        },
        Body {
            headers: markdown_headers,
            ..Body::new(Media::MARKDOWN, markdown)
        },
    ]
}

/// `x-markdown-tokens`: an estimate of the tokens a language model spends
/// on the body (about four bytes of English text per token).
fn markdown_tokens(markdown: &str) -> (&'static str, String) {
    ("x-markdown-tokens", markdown.len().div_ceil(4).to_string())
}

/// A Markdown body with its token estimate.
fn markdown_body(media: Media, markdown: String) -> Body {
    Body {
        headers: vec![markdown_tokens(&markdown)],
        ..Body::new(media, markdown)
    }
}

/// Every resource, keyed by path: the documents served with 200, then a
/// removed method's addresses ([`removed`]).
pub fn resources(catalog: &Catalog) -> Vec<Resource> {
    let base = &catalog.base_url;
    let resource = |id: &str, representations: Vec<Body>| Resource {
        id: id.to_string(),
        representations,
        cache_control: CACHE_CONTROL,
        error: None,
    };
    let api = |text: String| Body {
        headers: vec![service_desc(catalog)],
        ..Body::new(Media::JSON, text)
    };
    let mut all = vec![resource(
        "/api/reference.json",
        vec![api(render_json::collection(catalog))],
    )];
    for entry in &catalog.entries {
        let id = format!("/api/reference/{}.json", entry.key);
        all.push(resource(
            &id,
            vec![api(render_json::single(catalog, entry))],
        ));
    }

    let home = render_markdown::home(catalog);
    let home_page = Page {
        title: &catalog.site.title,
        description: &catalog.site.summary,
        path: Some("/"),
        markdown_path: Some("/index.md"),
        method: None,
        feed: Some(render_feed::PATH),
    };
    let home_links = [
        "</index.md>; rel=\"alternate\"; type=\"text/markdown\"".to_string(),
        "</llms.txt>; rel=\"describedby\"; type=\"text/plain\"".to_string(),
        "</.well-known/api-catalog>; rel=\"api-catalog\"".to_string(),
        format!(
            "<{}>; rel=\"alternate\"; type=\"application/atom+xml\"",
            render_feed::PATH
        ),
    ];
    all.push(resource(
        "/",
        page_pair(catalog, &home_page, home.clone(), &home_links),
    ));
    all.push(resource(
        "/index.md",
        vec![markdown_body(Media::MARKDOWN, home)],
    ));
    let index = render_markdown::methods(catalog);
    let index_page = Page {
        title: "Methods",
        description: "Every documented method of the library, grouped by purpose, with a one-line description.",
        path: Some("/api/"),
        markdown_path: Some("/api/index.md"),
        method: None,
        feed: None,
    };
    let index_links = ["</api/index.md>; rel=\"alternate\"; type=\"text/markdown\"".to_string()];
    all.push(resource(
        "/api/",
        page_pair(catalog, &index_page, index.clone(), &index_links),
    ));
    all.push(resource(
        "/api/index.md",
        vec![markdown_body(Media::MARKDOWN, index)],
    ));
    for entry in &catalog.entries {
        let path = render_json::page_path(entry);
        let twin = format!("{path}.md");
        let markdown = render_markdown::method(catalog, entry);
        let page = Page {
            title: &entry.key,
            description: &entry.description,
            path: Some(&path),
            markdown_path: Some(&twin),
            method: Some(&entry.key),
            feed: None,
        };
        let links = [
            format!("<{twin}>; rel=\"alternate\"; type=\"text/markdown\""),
            format!(
                "</api/reference/{}.json>; rel=\"alternate\"; type=\"application/json\"",
                entry.key
            ),
        ];
        all.push(resource(
            &path,
            page_pair(catalog, &page, markdown.clone(), &links),
        ));
        all.push(resource(
            &twin,
            vec![markdown_body(Media::MARKDOWN, markdown)],
        ));
    }

    all.push(resource(
        "/openapi.json",
        vec![Body::new(Media::JSON, render_openapi::openapi(catalog))],
    ));
    all.push(resource(
        "/llms.txt",
        vec![markdown_body(Media::TEXT, render_llms::llms(catalog))],
    ));
    all.push(resource(
        "/llms-full.txt",
        vec![markdown_body(Media::TEXT, render_llms::llms_full(catalog))],
    ));
    all.push(resource(
        render_feed::PATH,
        vec![Body::new(Media::ATOM, render_feed::changes(catalog))],
    ));
    all.push(resource(
        "/sitemap.xml",
        vec![Body::new(Media::XML, render_crawlers::sitemap(catalog))],
    ));
    all.push(resource(
        "/robots.txt",
        vec![Body::new(Media::TEXT, render_crawlers::robots(catalog))],
    ));
    all.push(resource(
        "/favicon.svg",
        vec![Body::new(Media::SVG, render_icon::svg())],
    ));
    all.push(resource(
        "/favicon.ico",
        vec![Body::new(Media::ICO, render_icon::ico())],
    ));
    // For load balancers: never cached, never listed.
    all.push(Resource {
        cache_control: "no-store",
        ..resource("/healthz", vec![Body::new(Media::TEXT, "ok\n".to_string())])
    });
    let catalog_link = (
        "link",
        format!("<{base}/.well-known/api-catalog>; rel=\"api-catalog\""),
    );
    all.push(resource(
        "/.well-known/api-catalog",
        vec![Body {
            headers: vec![catalog_link],
            ..Body::new(Media::LINKSET, render_json::api_catalog(catalog))
        }],
    ));
    all.extend(discovery::resources(catalog));
    all.extend(removed(catalog));
    all
}

/// The error bodies of every kind, in [`ErrorKind::ALL`] order: the
/// ErrorResponse and the page, and one of either per catalog key for the
/// kinds that suggest a close key (`reference_not_found/select`,
/// `page/not_found/select`).
pub fn errors(catalog: &Catalog) -> Vec<ErrorBodies<Resource>> {
    let mut all = Vec::new();
    for kind in ErrorKind::ALL {
        let text = catalog
            .errors
            .iter()
            .find(|t| t.code == kind.code())
            .expect("content::load checks that errors.json has every code");
        let error = |id: String, hint: &str| Resource {
            id,
            representations: vec![Body::new(
                Media::JSON,
                render_json::error(kind.code(), &text.message, hint),
            )],
            cache_control: kind.cache_control(),
            error: Some(kind),
        };
        let texts = (text.message.as_str(), text.hint.as_str());
        // A mistyped method page (`/api/selct`) links the method meant.
        let page_suggesting = match kind {
            ErrorKind::NotFound => catalog
                .entries
                .iter()
                .map(|e| {
                    let id = format!("page/{}/{}", kind.code(), e.key);
                    page_error(catalog, kind, texts, Some(Pointer::Meant(&e.key)), id)
                })
                .collect(),
            _ => Vec::new(),
        };
        let program_suggesting = match &text.hint_suggesting {
            Some(template) => catalog
                .entries
                .iter()
                .map(|entry| {
                    let hint = template.replace("{key}", &entry.key);
                    error(format!("{}/{}", kind.code(), entry.key), &hint)
                })
                .collect(),
            None => Vec::new(),
        };
        all.push(ErrorBodies {
            program: error(kind.code().into(), &text.hint),
            page: page_error(catalog, kind, texts, None, format!("page/{}", kind.code())),
            program_suggesting,
            page_suggesting,
        });
    }
    all
}

/// The addresses of the methods removed from the library, each answering
/// with its error: the page and its Markdown twin 410 (`method_removed`),
/// the JSON document 404 (`reference_not_found`), each hint naming the
/// successor, if any, and the page linking it.
pub fn removed(catalog: &Catalog) -> Vec<Resource> {
    let text = |kind: ErrorKind| {
        catalog
            .errors
            .iter()
            .find(|t| t.code == kind.code())
            .expect("content::load checks that errors.json has every code")
    };
    let (gone, unknown) = (ErrorKind::MethodRemoved, ErrorKind::ReferenceNotFound);
    let mut all = Vec::new();
    for entry in &catalog.removed {
        let hint = text(gone).hint_for_removed(entry);
        let successor = entry
            .lifecycle
            .removed
            .as_ref()
            .and_then(|m| m.successor.as_deref());
        let path = render_json::page_path(entry);
        for id in [format!("{path}.md"), path] {
            let texts = (text(gone).message.as_str(), hint.as_str());
            all.push(page_error(
                catalog,
                gone,
                texts,
                successor.map(Pointer::Successor),
                id,
            ));
        }
        let message = &text(unknown).message;
        let hint = text(unknown).hint_for_removed(entry);
        all.push(Resource {
            id: format!("/api/reference/{}.json", entry.key),
            representations: vec![Body::new(
                Media::JSON,
                render_json::error(unknown.code(), message, &hint),
            )],
            cache_control: unknown.cache_control(),
            error: Some(unknown),
        });
    }
    all
}

/// The error as page URLs answer it, at `id` (`page/<code>`, or
/// `page/<code>/<key>` when it suggests the method `key`, or a removed
/// method's path): the ErrorResponse first (for clients that state no
/// preference), then HTML and Markdown. `texts` are its message and hint.
fn page_error(
    catalog: &Catalog,
    kind: ErrorKind,
    (message, hint): (&str, &str),
    pointer: Option<Pointer>,
    id: String,
) -> Resource {
    let markdown = render_markdown::error(kind.reason(), kind.code(), message, hint, pointer);
    let page = Page {
        title: kind.reason(),
        description: message,
        path: None,
        markdown_path: None,
        method: None,
        feed: None,
    };
    let mut representations = vec![Body::new(
        Media::JSON,
        render_json::error(kind.code(), message, hint),
    )];
    representations.extend(page_pair(catalog, &page, markdown, &[]));
    Resource {
        id,
        representations,
        cache_control: kind.cache_control(),
        error: Some(kind),
    }
}
