//! Build stage 2 (discovery for agents): the documents an agent finds this
//! reference by before it reads a page, each following the current text of
//! a draft:
//!
//! - **Agent Skills discovery** (Cloudflare's RFC, v0.2.0 of 2026-03-12,
//!   commit `1bd1167` of `cloudflare/agent-skills-discovery-rfc`):
//!   `/.well-known/agent-skills/index.json` lists one skill, `type`
//!   `skill-md`, whose `digest` is `sha256:` and the lowercase hex SHA-256
//!   of the exact bytes served at its `url`. The skill itself,
//!   `/.well-known/agent-skills/<name>/SKILL.md`, is a `SKILL.md` as the
//!   Agent Skills specification writes one (commit `69ef37e` of
//!   `agentskills/agentskills`): YAML front matter with `name` (the
//!   directory's, lowercase letters, digits and single hyphens, at most
//!   64) and `description` (at most 1,024 characters, the index's too),
//!   then Markdown: what the reference is, and how to search and read it
//!   over HTTP and over MCP.
//! - **MCP Server Card** (SEP-2127 as its experimental extension defines
//!   it, commit `8924e08` of `modelcontextprotocol/experimental-ext-server-card`,
//!   2026-07-24): a `v1` card at `<streamable HTTP URL>/server-card`, the
//!   location the draft reserves (`/mcp/server-card`; its earlier
//!   `/.well-known/mcp/server-card.json` is the placement the draft now
//!   advises against), naming the server, its version and its one remote.
//!
//! The api-catalog (`render_json::api_catalog`) links both.

use crate::address::{Address, View};
use crate::content::{fill, Catalog, Editions};
use crate::mcp::VERSIONS;
use crate::render_json::finish;
use crate::render_markdown::escape;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The `$schema` of the skills index, v0.2.0 (an identifier clients match).
const SKILLS_INDEX_SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// The `$schema` of a `v1` server card.
const SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// The longest skill name the Agent Skills specification allows.
const MAX_SKILL_NAME: usize = 64;

/// The skill's sections on when and how to use the reference, over HTTP
/// and over MCP, with places for the base URL (`{base}`), a method's key
/// (`{example}`) and the protocol versions served (`{versions}`).
const USAGE: &str = include_str!("render_discovery/skill.md");

/// The longest `title` and `description` a server card may hold.
const MAX_CARD_TEXT: usize = 100;

/// The skill's name, made of the site's title (`skill_name_of`).
pub(crate) fn skill_name(catalog: &Catalog) -> String {
    skill_name_of(&catalog.site.title)
}

/// `title` in lowercase ASCII letters and digits, each run of anything
/// else one hyphen, at most 64 characters and no hyphen at either end
/// (`database-library-method-reference`); `method-reference` when the
/// title has no such letter.
fn skill_name_of(title: &str) -> String {
    let mut name = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    name.truncate(MAX_SKILL_NAME);
    match name.trim_end_matches('-') {
        "" => "method-reference".to_string(),
        name => name.to_string(),
    }
}

/// What the skill is for, in the index and in its front matter alike.
fn skill_description(catalog: &Catalog) -> String {
    format!(
        "{}: find the method for a task, then read its signatures, parameters, return value, \
         notes and examples, over HTTP (Markdown, JSON) or MCP. Use it when writing, reviewing \
         or debugging code that calls the library.",
        catalog.site.title.trim_end_matches('.')
    )
}

/// The skill: front matter, then how to use this reference, in each
/// language it is served in.
pub(crate) fn skill(editions: &Editions) -> String {
    let catalog = editions.source();
    let site = &catalog.site;
    let description =
        serde_json::to_string(&skill_description(catalog)).expect("a string always serialises");
    // A JSON string is a YAML double-quoted scalar: whatever the title
    // holds, the front matter stays YAML.
    let mut md = format!(
        "---\nname: {}\ndescription: {description}\n---\n\n# {}\n\n{}\n\n{}\n\n",
        skill_name(catalog),
        escape(&site.title),
        escape(&site.summary),
        escape(&site.about)
    );
    let versions = VERSIONS.join(", ");
    // The base URL last: what it holds is filled in as it is.
    let places = [
        ("example", example_key(catalog)),
        ("versions", &versions),
        ("base", &catalog.base_url),
    ];
    md.push_str(&fill(USAGE, &places));
    md.push_str(&languages(editions));
    md.push_str("## The methods\n\n");
    for group in &site.groups {
        let keys: Vec<String> = group.keys.iter().map(|key| format!("`{key}`")).collect();
        let _ = writeln!(md, "- {}: {}", escape(&group.name), keys.join(", "));
    }
    md
}

/// The skill's section on the languages served and how to ask for one,
/// over HTTP and MCP; nothing when the reference has one language.
fn languages(editions: &Editions) -> String {
    let Some(other) = editions.catalogs.get(1) else {
        return String::new();
    };
    let base = &editions.source().base_url;
    let served: Vec<String> = editions
        .languages()
        .iter()
        .map(|language| format!("{} (`{}`)", escape(&language.name), language.tag))
        .collect();
    let tags: Vec<&str> = editions
        .languages()
        .iter()
        .map(|language| language.tag.as_str())
        .collect();
    format!(
        "## Languages\n\n\
         The reference is written in {served}; the JSON reference and the structured content \
         of MCP's answers are always in English.\n\n\
         - Over HTTP, send `Accept-Language` (`{example}`) to the pages above, or use a \
         language's own addresses: `{page}`, `{search}?q=<words>`.\n\
         - Over MCP, give any tool `locale`, a BCP 47 tag chosen among {tags} as \
         `Accept-Language` is (`{example}`; English when none matches): `list_methods` and \
         `search` answer in that language and `get_method` gives the page in it; `_meta` says \
         which locale was served and which methods are shown in English, not translated yet \
         (`untranslated`), or translated from an older text (`outdated`). Each language's \
         method pages are resources too (`{resource}`).\n\n",
        served = served.join(", "),
        tags = tags.join(", "),
        example = other.language.tag,
        page = other
            .at(Address::Method("<name>", View::Markdown))
            .url(base),
        search = other.at(Address::Search).url(base),
        resource = other
            .at(Address::Method(example_key(other), View::Markdown))
            .url(base),
    )
}

/// The method the skill shows its addresses with: the first.
fn example_key(catalog: &Catalog) -> &str {
    catalog
        .entries
        .first()
        .map_or("select", |entry| entry.key.as_str())
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`: the RFC's digest.
fn digest(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

/// The skills index, listing the skill whose served bytes are `skill`.
pub(crate) fn skills_index(catalog: &Catalog, skill: &str) -> String {
    let index = json!({
        "$schema": SKILLS_INDEX_SCHEMA,
        "skills": [{
            "name": skill_name(catalog),
            "type": "skill-md",
            "description": skill_description(catalog),
            "url": Address::Skill(&skill_name(catalog)).to_string(),
            "digest": digest(skill.as_bytes()),
        }],
    });
    finish(&index)
}

/// The server card, in the order of the draft's schema: who the server is
/// and where it answers. The title (optional) is the site's when it fits
/// the card's 100 characters.
pub(crate) fn server_card(catalog: &Catalog) -> String {
    let base = &catalog.base_url;
    let title = &catalog.site.title;
    let mut card = json!({
        "$schema": SERVER_CARD_SCHEMA,
        "name": server_name(base),
        "version": env!("CARGO_PKG_VERSION"),
        "title": title,
        "description": "Search this method reference, list its methods and read each one's \
            signatures and examples.",
        "websiteUrl": Address::Home(View::Page).url(base),
        "remotes": [{
            "type": "streamable-http",
            "url": Address::Mcp.url(base),
            "supportedProtocolVersions": VERSIONS,
        }],
    });
    if title.chars().count() > MAX_CARD_TEXT {
        let members = card.as_object_mut().expect("the card is an object");
        members.shift_remove("title");
    }
    finish(&card)
}

/// The card's `name`: the base URL's host in reverse-DNS order, then
/// `/refserve` (`com.example.docs/refserve`); characters a name may not
/// hold (an IPv6 address's) become hyphens.
fn server_name(base_url: &str) -> String {
    let authority = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(literal) => literal.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    let reversed = if host.parse::<std::net::IpAddr>().is_ok() {
        host.to_string()
    } else {
        host.split('.').rev().collect::<Vec<_>>().join(".")
    };
    let namespace = reversed.replace(
        |c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'),
        "-",
    );
    format!("{namespace}/refserve")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_name_is_its_host_in_reverse_dns_order() {
        assert_eq!(
            server_name("https://docs.example.com"),
            "com.example.docs/refserve"
        );
        assert_eq!(
            server_name("https://docs.example.com:8443/ref"),
            "com.example.docs/refserve"
        );
        assert_eq!(server_name("http://127.0.0.1:8080"), "127.0.0.1/refserve");
        assert_eq!(server_name("http://[::1]:8080"), "--1/refserve");
    }

    #[test]
    fn a_skill_name_is_the_title_in_lowercase_words_joined_by_hyphens() {
        assert_eq!(
            skill_name_of("Database library method reference"),
            "database-library-method-reference"
        );
        assert_eq!(skill_name_of("  Café -- API v2.1! "), "caf-api-v2-1");
        assert_eq!(skill_name_of("日本語"), "method-reference");
        let long = skill_name_of(&"word ".repeat(30));
        assert!(long.len() <= 64 && !long.ends_with('-'), "{long}");
    }

    #[test]
    fn a_digest_is_the_sha256_in_lowercase_hex() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
