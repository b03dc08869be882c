//! Every address the site serves, named once: the pipeline writes pages,
//! links and discovery documents with [`Address`]'s `Display`, and the
//! server reads a request path back into one with [`Address::parse`]. No
//! other file spells a path.
//!
//! A language, when pages get one, is the next part of an address: a
//! field of the pages' variants, written as a prefix here and nowhere else.

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
        let between = |before: &str, after: &str| {
            path.strip_prefix(before)?
                .strip_suffix(after)
                .filter(|name| !name.is_empty())
        };
        let named = |before: &str, after: &str| between(before, after).filter(|n| !n.contains('/'));
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

    proptest! {
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
