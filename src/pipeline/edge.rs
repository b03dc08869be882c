//! Build stage 4 (what a CDN reads): how long a CDN keeps a document, and
//! the purge tags that name what the document is made of, so that a deploy
//! drops exactly what it changed (`refserve changes`).
//!
//! Browsers keep `Cache-Control`'s short lifetime; a CDN keeps a document
//! for [`Edge::max_age`] (a year unless the build says otherwise), reading
//! `CDN-Cache-Control` (RFC 9213: Cloudflare, Akamai, `deploy/varnish.vcl`)
//! or `Surrogate-Control` (Fastly), and serves it stale through an origin
//! outage. Errors and `no-store` answers carry neither: a CDN keeps an
//! error no longer than `Cache-Control` says.
//!
//! The tags, in `Surrogate-Key` (space-separated: Fastly, Varnish) and
//! `Cache-Tag` (comma-separated: Cloudflare):
//! - `build:<content hash>`: everything one build serves;
//! - `method:<key>`: a method's pages, Markdown twins and JSON document, in
//!   every language;
//! - the kind of document: `page`, `markdown`, `json`, `openapi`, `llms`,
//!   `feed`, `sitemap`, `robots`, `icon`, `discovery`, `dictionary`,
//!   `search`;
//! - `lang:<segment>`: the language it is written in (`lang:zh-hans`);
//! - `search:<segment>`: search's answers in one language, whatever their
//!   query (which a purge by URL cannot name);
//! - `list`: a document that names every method (the collection, the
//!   index, the homepage, llms.txt and llms-full.txt, the sitemap, the feed,
//!   OpenAPI, search's answers): a change to any method changes it.

use crate::address::{Address, Localized};
use crate::media::MediaType;

/// A year: how long a CDN keeps a document unless the build says otherwise.
pub const MAX_AGE: u64 = 365 * 24 * 60 * 60;

/// How long a CDN may serve a document stale while it revalidates it, or
/// while the origin fails: a day.
const STALE: u64 = 24 * 60 * 60;

/// What every cacheable document tells a CDN in one build.
#[derive(Debug, Clone)]
pub(crate) struct Edge {
    /// Seconds a CDN keeps a document.
    pub max_age: u64,
    /// The build's content hash, its tag's value.
    pub build: String,
}

impl Edge {
    /// The headers a CDN reads on the document at `id` in `media`, written
    /// in `language` (a `Content-Language` tag), if any: its lifetime and
    /// its tags.
    pub(crate) fn headers(
        &self,
        id: &str,
        media: MediaType,
        language: Option<&str>,
    ) -> Vec<(&'static str, String)> {
        let tags = self.tags(id, media, language);
        let lifetime = format!(
            "max-age={}, stale-while-revalidate={STALE}, stale-if-error={STALE}",
            self.max_age
        );
        vec![
            ("cdn-cache-control", format!("public, {lifetime}")),
            ("surrogate-control", lifetime),
            ("surrogate-key", tags.join(" ")),
            ("cache-tag", tags.join(",")),
        ]
    }

    /// The tags of the document at `id` in `media` and `language`.
    pub(crate) fn tags(&self, id: &str, media: MediaType, language: Option<&str>) -> Vec<String> {
        let mut tags = vec![format!("build:{}", self.build)];
        let address = Localized::parse(id).map(|localized| localized.address);
        if let Some(Address::Method(key, _) | Address::Document(key)) = address {
            tags.push(format!("method:{key}"));
        }
        tags.push(kind(address, media).to_string());
        if let Some(language) = language {
            let language = language.to_ascii_lowercase();
            // Search's answers in one language, whatever the query: a CDN
            // that purges by URL cannot name them all (`/search?q=…`).
            if address == Some(Address::Search) {
                tags.push(format!("search:{language}"));
            }
            tags.push(format!("lang:{language}"));
        }
        if address.is_some_and(|address| names_every_method(&address)) {
            tags.push("list".to_string());
        }
        tags
    }
}

/// The kind of document `address` is in `media`.
fn kind(address: Option<Address>, media: MediaType) -> &'static str {
    let Some(address) = address else {
        return "other";
    };
    match address {
        Address::Home(_) | Address::Methods(_) | Address::Method(..)
            if media == MediaType::HTML =>
        {
            "page"
        }
        Address::Home(_) | Address::Methods(_) | Address::Method(..) => "markdown",
        Address::Document(_) | Address::Collection => "json",
        Address::OpenApi => "openapi",
        Address::Llms | Address::LlmsFull => "llms",
        Address::Feed => "feed",
        Address::Sitemap => "sitemap",
        Address::Robots => "robots",
        Address::IconSvg | Address::IconIco => "icon",
        Address::ApiCatalog | Address::ServerCard | Address::SkillsIndex | Address::Skill(_) => {
            "discovery"
        }
        Address::Dictionary(_) => "dictionary",
        Address::Search => "search",
        Address::Mcp | Address::Health => "other",
    }
}

/// Whether the document at `address` names every method, so that a change
/// to any one changes it.
fn names_every_method(address: &Address) -> bool {
    matches!(
        address,
        Address::Home(_)
            | Address::Methods(_)
            | Address::Collection
            | Address::OpenApi
            | Address::Llms
            | Address::LlmsFull
            | Address::Feed
            | Address::Sitemap
            | Address::Search
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge() -> Edge {
        Edge {
            max_age: MAX_AGE,
            build: "0123456789abcdef".to_string(),
        }
    }

    #[test]
    fn a_method_page_is_tagged_with_its_method_kind_language_and_build() {
        let tags = edge().tags("/zh-hans/api/select", MediaType::HTML, Some("zh-Hans"));
        assert_eq!(
            tags,
            [
                "build:0123456789abcdef",
                "method:select",
                "page",
                "lang:zh-hans"
            ]
        );
        let twin = edge().tags("/api/select.md", MediaType::MARKDOWN, Some("en"));
        assert_eq!(twin[1..], ["method:select", "markdown", "lang:en"]);
        let json = edge().tags("/api/reference/select.json", MediaType::JSON, Some("en"));
        assert_eq!(json[1..], ["method:select", "json", "lang:en"]);
    }

    #[test]
    fn what_names_every_method_is_a_list() {
        for (id, media) in [
            ("/api/reference.json", MediaType::JSON),
            ("/zh-hans/api/", MediaType::HTML),
            ("/", MediaType::HTML),
            ("/llms.txt", MediaType::TEXT),
            ("/sitemap.xml", MediaType::XML),
        ] {
            assert!(
                edge().tags(id, media, None).contains(&"list".to_string()),
                "{id}"
            );
        }
        assert!(!edge()
            .tags("/robots.txt", MediaType::TEXT, None)
            .contains(&"list".to_string()));
    }

    #[test]
    fn a_cdn_keeps_a_document_for_its_lifetime_and_stale_through_an_outage() {
        let headers = edge().headers("/api/select", MediaType::HTML, Some("en"));
        let value = |name| {
            &headers
                .iter()
                .find(|(n, _)| *n == name)
                .expect("the header is sent")
                .1
        };
        assert_eq!(
            value("cdn-cache-control"),
            "public, max-age=31536000, stale-while-revalidate=86400, stale-if-error=86400"
        );
        assert!(value("surrogate-control").starts_with("max-age=31536000"));
        assert_eq!(
            value("surrogate-key"),
            "build:0123456789abcdef method:select page lang:en"
        );
        assert_eq!(
            value("cache-tag"),
            "build:0123456789abcdef,method:select,page,lang:en"
        );
    }
}
