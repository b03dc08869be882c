//! Every address the site serves, named once: the pipeline writes pages,
//! links and discovery documents with [`Address`]'s `Display`, and the
//! server reads a request path back into one with [`Address::parse`]. No
//! other file spells a path.
//!
//! A page for people and agents (the homepage, the index, a method's page
//! and their Markdown twins, the search, `llms.txt`, the feed) has an
//! address in each language, `/zh-hans/api/select`, beside the one without
//! a language, `/api/select`: a [`Localized`] address, whose language is
//! written as a prefix here and nowhere else.

use std::fmt;

/// Which of a page's two addresses: the page itself (HTML, Markdown or,
/// for its errors, JSON, by `Accept`) or its Markdown twin (`.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// The negotiated page: `/api/select`.
    Page,
    /// Its Markdown twin: `/api/select.md`.
    Markdown,
}

/// An address the site serves, borrowing its variable part (a method's
/// key, a skill's or a dictionary's name) for `'k`.
///
/// A method may not be keyed `index`: its Markdown twin would be the
/// index's (`/api/index.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Address<'k> {
    /// The homepage: `/`, `/index.md`.
    Home(View),
    /// The index of every method: `/api/`, `/api/index.md`.
    Methods(View),
    /// A method's page: `/api/{key}`, `/api/{key}.md`.
    Method(&'k str, View),
    /// A method's JSON document: `/api/reference/{key}.json`.
    Document(&'k str),
    /// Every method's JSON document in one: `/api/reference.json`.
    Collection,
    /// The search, answered at run time: `/search`.
    Search,
    /// The MCP endpoint, answered at run time: `/mcp` (`/mcp/` too).
    Mcp,
    /// The MCP server card: `/mcp/server-card`, the suffix SEP-2127 reserves.
    ServerCard,
    /// The OpenAPI description of the JSON endpoints: `/openapi.json`.
    OpenApi,
    /// The index for language models: `/llms.txt`.
    Llms,
    /// Every page in one Markdown document: `/llms-full.txt`.
    LlmsFull,
    /// The Atom feed of the methods' lifecycles: `/changes.atom`.
    Feed,
    /// `/sitemap.xml`.
    Sitemap,
    /// `/robots.txt`.
    Robots,
    /// The icon as SVG: `/favicon.svg`.
    IconSvg,
    /// The icon as ICO: `/favicon.ico`.
    IconIco,
    /// For load balancers: `/healthz`.
    Health,
    /// The API catalog (RFC 9727): `/.well-known/api-catalog`.
    ApiCatalog,
    /// The Agent Skills index, where its RFC puts it:
    /// `/.well-known/agent-skills/index.json`.
    SkillsIndex,
    /// A skill: `/.well-known/agent-skills/{name}/SKILL.md`.
    Skill(&'k str),
    /// A compression dictionary (RFC 9842): `/dictionaries/{name}`.
    Dictionary(&'k str),
}

/// An address in one language's pages, `/zh-hans/api/select`, or, without
/// a language, the address that negotiates it, `/api/select`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Localized<'k> {
    /// The address.
    pub address: Address<'k>,
    /// The language's tag in lowercase (`zh-hans`), the first segment of
    /// the path; `None` for the negotiated address.
    pub language: Option<&'k str>,
}

impl<'k> Address<'k> {
    /// Whether the address has one in each language: the pages for
    /// people and agents, not the documents for programs.
    pub const fn is_localized(&self) -> bool {
        matches!(
            self,
            Address::Home(_)
                | Address::Methods(_)
                | Address::Method(..)
                | Address::Search
                | Address::Llms
                | Address::LlmsFull
                | Address::Feed
        )
    }

    /// This address in the pages of `language` (a lowercase tag), or the
    /// negotiated one for `None`; an address that is not localized stays
    /// as it is.
    pub const fn localized(self, language: Option<&'k str>) -> Localized<'k> {
        Localized {
            language: if self.is_localized() { language } else { None },
            address: self,
        }
    }
}

impl<'k> Localized<'k> {
    /// The address `path` names, in a language's pages or not: a path
    /// whose first segment has a language tag's shape (`zh-hans`, lower
    /// case) and whose rest is a localized address. The router checks the
    /// language against the site's.
    pub fn parse(path: &'k str) -> Option<Localized<'k>> {
        if let Some(address) = Address::parse(path) {
            return Some(Localized {
                address,
                language: None,
            });
        }
        let rest = path.strip_prefix('/')?;
        let (language, rest) = rest.split_at(rest.find('/')?);
        if !is_segment(language) {
            return None;
        }
        Address::parse(rest)
            .filter(Address::is_localized)
            .map(|address| Localized {
                address,
                language: Some(language),
            })
    }

    /// The absolute URL of this address on the site at `base`.
    pub fn url(&self, base: &str) -> String {
        format!("{base}{self}")
    }

    /// The first segment of `path`, in the case sent, when more follows
    /// it (`/zh-hans/api/selct` → `zh-hans`), whether or not the rest
    /// names an address: if it is one of the site's languages (the caller
    /// checks, ignoring case; `/api/…` has a first segment too), the
    /// language whose pages the path is among, and whose words its errors
    /// are in.
    pub fn language_of(path: &str) -> Option<&str> {
        let rest = path.strip_prefix('/')?;
        rest.split_once('/').map(|(segment, _)| segment)
    }
}

/// Whether `segment` has the shape of a language's segment: a lower-case
/// BCP 47 tag, two or three letters then subtags of two to eight letters
/// or digits (`en`, `zh-hans`, `pt-br`).
pub fn is_segment(segment: &str) -> bool {
    let mut subtags = segment.split('-');
    let language = subtags.next().unwrap_or_default();
    (2..=3).contains(&language.len())
        && language.bytes().all(|b| b.is_ascii_lowercase())
        && subtags.all(|s| {
            (2..=8).contains(&s.len())
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

impl fmt::Display for Localized<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(language) = self.language {
            f.write_str("/")?;
            f.write_str(language)?;
        }
        self.address.fmt(f)
    }
}

/// The pages of methods, the index, and the JSON API.
const API: &str = "/api/";
/// The JSON documents, one a method.
const DOCUMENTS: &str = "/api/reference/";
const JSON: &str = ".json";
/// A page's Markdown twin.
const MARKDOWN: &str = ".md";
const SKILLS: &str = "/.well-known/agent-skills/";
const SKILL: &str = "/SKILL.md";
const DICTIONARIES: &str = "/dictionaries/";

/// `/mcp/`, answered as `/mcp` rather than redirected or refused: a client
/// configured with the slash (or joining a base URL and a path) means the
/// endpoint; a 308 would ask every client to resend its POST body, which
/// not every HTTP client does, and an error would fail a call over one
/// character. Nothing else is at `/mcp/` itself.
const MCP_SLASHED: &str = "/mcp/";
/// The search, answered at run time.
const SEARCH: &str = "/search";
/// The MCP endpoint, answered at run time.
const MCP: &str = "/mcp";

/// Every address without a variable part.
const FIXED: [Address<'static>; 19] = [
    Address::Home(View::Page),
    Address::Home(View::Markdown),
    Address::Methods(View::Page),
    Address::Methods(View::Markdown),
    Address::Collection,
    Address::Search,
    Address::Mcp,
    Address::ServerCard,
    Address::OpenApi,
    Address::Llms,
    Address::LlmsFull,
    Address::Feed,
    Address::Sitemap,
    Address::Robots,
    Address::IconSvg,
    Address::IconIco,
    Address::Health,
    Address::ApiCatalog,
    Address::SkillsIndex,
];

impl<'k> Address<'k> {
    /// The path, in three parts written in a row: before the variable
    /// part, the variable part (empty for a fixed address), after it.
    const fn parts(&self) -> (&'static str, &'k str, &'static str) {
        match *self {
            Address::Home(View::Page) => ("/", "", ""),
            Address::Home(View::Markdown) => ("/index.md", "", ""),
            Address::Methods(View::Page) => (API, "", ""),
            Address::Methods(View::Markdown) => ("/api/index.md", "", ""),
            Address::Method(key, View::Page) => (API, key, ""),
            Address::Method(key, View::Markdown) => (API, key, MARKDOWN),
            Address::Document(key) => (DOCUMENTS, key, JSON),
            Address::Collection => ("/api/reference.json", "", ""),
            Address::Search => (SEARCH, "", ""),
            Address::Mcp => (MCP, "", ""),
            Address::ServerCard => ("/mcp/server-card", "", ""),
            Address::OpenApi => ("/openapi.json", "", ""),
            Address::Llms => ("/llms.txt", "", ""),
            Address::LlmsFull => ("/llms-full.txt", "", ""),
            Address::Feed => ("/changes.atom", "", ""),
            Address::Sitemap => ("/sitemap.xml", "", ""),
            Address::Robots => ("/robots.txt", "", ""),
            Address::IconSvg => ("/favicon.svg", "", ""),
            Address::IconIco => ("/favicon.ico", "", ""),
            Address::Health => ("/healthz", "", ""),
            Address::ApiCatalog => ("/.well-known/api-catalog", "", ""),
            Address::SkillsIndex => ("/.well-known/agent-skills/index.json", "", ""),
            Address::Skill(name) => (SKILLS, name, SKILL),
            Address::Dictionary(name) => (DICTIONARIES, name, ""),
        }
    }

    /// The address `path` names, as the server receives it (no query).
    ///
    /// Names are read as sent: a method's `{key}` may be any text without
    /// `/` (the router checks it against the keys), a document's any text
    /// at all, empty too (the router tells an invalid name from an unknown
    /// one).
    pub fn parse(path: &'k str) -> Option<Address<'k>> {
        if let Some(&fixed) = FIXED.iter().find(|fixed| fixed.parts().0 == path) {
            return Some(fixed);
        }
        if path == MCP_SLASHED {
            return Some(Address::Mcp);
        }
        // A name between `before` and `after`: not empty, one segment.
        let named = |before: &str, after: &str| {
            path.strip_prefix(before)?
                .strip_suffix(after)
                .filter(|name| !name.is_empty() && !name.contains('/'))
        };
        // A document's name may even be empty: the router calls it invalid.
        if let Some(key) = path
            .strip_prefix(DOCUMENTS)
            .and_then(|r| r.strip_suffix(JSON))
        {
            return Some(Address::Document(key));
        }
        if let Some(rest) = named(API, "") {
            return Some(match rest.strip_suffix(MARKDOWN) {
                Some("") => return None,
                Some(key) => Address::Method(key, View::Markdown),
                None => Address::Method(rest, View::Page),
            });
        }
        if let Some(name) = named(SKILLS, SKILL) {
            return Some(Address::Skill(name));
        }
        named(DICTIONARIES, "").map(Address::Dictionary)
    }

    /// The address answered at run time rather than from the table
    /// (`/search`, `/mcp`, `/mcp/`) that `path`, as sent, is, if any: one
    /// `match` on the path, which every request pays before the table's
    /// lookup.
    #[inline]
    pub fn run_time(path: &str) -> Option<Address<'static>> {
        match path {
            SEARCH => Some(Address::Search),
            MCP | MCP_SLASHED => Some(Address::Mcp),
            _ => None,
        }
    }

    /// The absolute URL of this address on the site at `base` (no
    /// trailing slash).
    pub fn url(&self, base: &str) -> String {
        format!("{base}{self}")
    }
}

/// Whether `key` has the shape of a method's key: `^[a-z]+$`, the pattern
/// of `{name}` (specification §4.2), which the catalog's keys follow and
/// the router holds a document's name to.
pub fn is_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase())
}

/// Whether errors on `path` are for programs (always an ErrorResponse)
/// rather than for pages (negotiated among JSON, HTML and Markdown): any
/// `.json`, and anything under the JSON documents.
pub fn is_for_programs(path: &str) -> bool {
    path.ends_with(JSON) || path.starts_with(DOCUMENTS)
}

impl fmt::Display for Address<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (before, name, after) = self.parts();
        f.write_str(before)?;
        f.write_str(name)?;
        f.write_str(after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn keys_follow_the_pattern() {
        assert!(is_key("select"));
        for bad in ["", "Select", "se-lect", "sel3ct", "é", "a b"] {
            assert!(!is_key(bad), "{bad:?}");
        }
    }

    #[test]
    fn addresses_are_spelled_as_the_site_serves_them() {
        assert_eq!(
            Address::Method("select", View::Page).to_string(),
            "/api/select"
        );
        assert_eq!(
            Address::Method("select", View::Markdown).to_string(),
            "/api/select.md"
        );
        assert_eq!(
            Address::Document("select").to_string(),
            "/api/reference/select.json"
        );
        assert_eq!(Address::Methods(View::Page).to_string(), "/api/");
        assert_eq!(
            Address::Skill("x").url("https://example.org"),
            "https://example.org/.well-known/agent-skills/x/SKILL.md"
        );
    }

    #[test]
    fn fixed_addresses_have_distinct_paths() {
        for (i, a) in FIXED.iter().enumerate() {
            for b in &FIXED[i + 1..] {
                assert_ne!(a.to_string(), b.to_string());
            }
        }
    }

    #[test]
    fn the_mcp_endpoint_takes_a_trailing_slash() {
        for mcp in ["/mcp", "/mcp/"] {
            assert_eq!(Address::run_time(mcp), Some(Address::Mcp));
            assert_eq!(Address::parse(mcp), Some(Address::Mcp));
        }
        assert_eq!(Address::run_time("/search"), Some(Address::Search));
        for other in [
            "/mcp//", "/mcpx", "/mcp/x", "/MCP", "/", "/api/mcp", "/search/",
        ] {
            assert_eq!(Address::run_time(other), None, "{other}");
        }
        assert_eq!(
            Address::parse("/mcp/server-card"),
            Some(Address::ServerCard)
        );
    }

    #[test]
    fn paths_that_name_nothing_parse_to_none() {
        for path in [
            "",
            "/nope",
            "/api",
            "/api/.md",
            "/api/a/b",
            "/dictionaries/",
            "/index.html",
        ] {
            assert_eq!(Address::parse(path), None, "{path}");
        }
        // A document's name is read as sent, for the router to judge.
        assert_eq!(
            Address::parse("/api/reference/a/B.json"),
            Some(Address::Document("a/B"))
        );
    }

    #[test]
    fn program_paths() {
        assert!(is_for_programs(&Address::Document("x").to_string()));
        assert!(is_for_programs(&Address::OpenApi.to_string()));
        assert!(is_for_programs("/api/reference/x"));
        assert!(!is_for_programs(
            &Address::Method("select", View::Page).to_string()
        ));
        assert!(!is_for_programs(&Address::Robots.to_string()));
    }

    #[test]
    fn localized_addresses_carry_their_language_as_a_prefix() {
        let select = Address::Method("select", View::Page);
        assert_eq!(
            select.localized(Some("zh-hans")).to_string(),
            "/zh-hans/api/select"
        );
        assert_eq!(select.localized(None).to_string(), "/api/select");
        assert_eq!(
            Address::Home(View::Page).localized(Some("en")).to_string(),
            "/en/"
        );
        assert_eq!(
            Address::Methods(View::Markdown)
                .localized(Some("zh-hans"))
                .to_string(),
            "/zh-hans/api/index.md"
        );
        // A document for programs has one address.
        assert_eq!(
            Address::Collection.localized(Some("zh-hans")).to_string(),
            "/api/reference.json"
        );
        for (path, language) in [
            ("/zh-hans/api/select.md", Some("zh-hans")),
            ("/api/select.md", None),
        ] {
            let parsed = Localized::parse(path).expect(path);
            assert_eq!(parsed.language, language);
            assert_eq!(parsed.address, Address::Method("select", View::Markdown));
        }
        assert_eq!(
            Localized::language_of("/zh-hans/api/selct"),
            Some("zh-hans")
        );
        assert_eq!(Localized::language_of("/ZH-Hans/x"), Some("ZH-Hans"));
        assert_eq!(Localized::language_of("/zh-hans"), None);
        assert_eq!(Localized::language_of("/"), None);
        assert_eq!(
            Address::Feed.localized(Some("zh-hans")).to_string(),
            "/zh-hans/changes.atom"
        );
        for path in [
            "/zh-hans",
            "/zh-hans/api/reference.json",
            "/ZH-hans/",
            "/x/api/select",
            "/zh-hans/zh-hans/",
        ] {
            assert_eq!(Localized::parse(path), None, "{path}");
        }
    }

    proptest! {
        #[test]
        fn localized_addresses_round_trip(key in "[a-z]{1,12}", language in "[a-z]{2,3}(-[a-z0-9]{2,8}){0,2}") {
            prop_assume!(key != "index");
            let mut every = FIXED.to_vec();
            every.extend([Address::Method(&key, View::Page), Address::Method(&key, View::Markdown)]);
            for address in every.into_iter().filter(Address::is_localized) {
                let localized = address.localized(Some(&language));
                let path = localized.to_string();
                prop_assert_eq!(Localized::parse(&path), Some(localized), "{}", path);
            }
        }

        #[test]
        fn every_address_round_trips(key in "[a-z]{1,12}", name in "[a-z0-9-]{1,20}") {
            prop_assume!(key != "index");
            let mut every = FIXED.to_vec();
            every.extend([
                Address::Method(&key, View::Page),
                Address::Method(&key, View::Markdown),
                Address::Document(&key),
                Address::Skill(&name),
                Address::Dictionary(&name),
            ]);
            for address in every {
                let path = address.to_string();
                prop_assert_eq!(Address::parse(&path), Some(address), "{}", path);
                let run_time = matches!(address, Address::Search | Address::Mcp);
                prop_assert_eq!(Address::run_time(&path).is_some(), run_time, "{}", path);
            }
        }

        #[test]
        fn parsing_never_panics_and_what_parses_is_written_back(path in "/[a-zA-Z0-9%./_-]{0,40}") {
            if let Some(address) = Address::parse(&path) {
                let written = address.to_string();
                prop_assert!(written == path || (address == Address::Mcp && path == MCP_SLASHED));
            }
        }
    }
}
