//! `refserve manifest` and `refserve changes`: what a build serves, one
//! variant a line with its ETag and purge tags; and, between two builds'
//! manifests, what a CDN must drop — the tags every document of which
//! changed, and every address any representation of which changed, was
//! added or was removed.
//!
//! A manifest line is tab-separated: the address, the media type, the
//! language (`-` for none), the coding, the ETag and the purge tags
//! (space-separated, `-` for none: errors, such as what stands at a removed
//! method's address, carry none). Search's answers, made at run time, stand
//! at each language's search address with a fingerprint of what they are
//! made from in place of an ETag. The build's own tag (`build:…`) names
//! every document of one build, so it is never printed as a change.

use crate::table::Table;
use http::header::{HeaderMap, CONTENT_LANGUAGE, CONTENT_TYPE};
use refserve_core::address::Address;
use refserve_core::search_page::{Form, MEDIA_TYPES};
use std::collections::{BTreeMap, BTreeSet};

/// The header that carries the purge tags, space-separated.
const SURROGATE_KEY: &str = "surrogate-key";

/// The tag every document of one build carries.
const BUILD_TAG: &str = "build:";

/// One line of a manifest, as read: a variant (its address, and what
/// tells it from the address's other variants: media type, language and
/// coding), its ETag (or the fingerprint of search's answers) and its
/// purge tags.
struct Line<'a> {
    variant: (&'a str, [&'a str; 3]),
    etag: &'a str,
    tags: Vec<&'a str>,
}

/// The manifest of `table`: one line a variant, in table order, then
/// search's answers.
pub fn manifest(table: &Table) -> String {
    let mut out = String::new();
    let mut line = |fields: [&str; 6]| {
        out.push_str(&fields.join("\t"));
        out.push('\n');
    };
    for resource in &table.resources {
        for variant in resource.representations.iter().flat_map(|r| &r.variants) {
            let headers = &variant.headers;
            line([
                &resource.id,
                essence(headers),
                language(headers),
                variant.coding.token(),
                variant.etag.to_str().unwrap_or("-"),
                &tags(headers),
            ]);
        }
    }
    for page in &table.search {
        // At the language's own search address and at the one that
        // negotiates, each form's answers are in the page's language (JSON's
        // too, which sends no Content-Language).
        let fingerprint = format!("\"search-{:016x}\"", page.fingerprint());
        let written_in = language(&page.headers[Form::Html as usize].ok);
        for address in [page.exported.id.clone(), Address::Search.to_string()] {
            for (headers, media) in page.headers.iter().zip(MEDIA_TYPES) {
                let media = media.essence();
                line([
                    &address,
                    &media,
                    written_in,
                    "identity",
                    &fingerprint,
                    &tags(&headers.ok),
                ]);
            }
        }
    }
    out
}

/// The media type of a response with `headers`, without parameters.
fn essence(headers: &HeaderMap) -> &str {
    let value = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let value = value.unwrap_or("-");
    value.split(';').next().unwrap_or(value).trim()
}

/// The language of a response with `headers`, `-` for none.
fn language(headers: &HeaderMap) -> &str {
    let value = headers.get(CONTENT_LANGUAGE).and_then(|v| v.to_str().ok());
    value.unwrap_or("-")
}

/// The purge tags of a response with `headers`, space-separated; `-` for none.
fn tags(headers: &HeaderMap) -> String {
    let value = headers.get(SURROGATE_KEY).and_then(|v| v.to_str().ok());
    let tags: Vec<&str> = value.unwrap_or_default().split_ascii_whitespace().collect();
    if tags.is_empty() {
        "-".to_string()
    } else {
        tags.join(" ")
    }
}

/// What a CDN must drop between two builds.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The tags every document of which changed (or was added or removed).
    pub tags: Vec<String>,
    /// The addresses any variant of which changed, was added or removed.
    pub addresses: Vec<String>,
}

impl Changes {
    /// One tag a line, then one address a line.
    pub fn lines(&self) -> String {
        self.tags
            .iter()
            .chain(&self.addresses)
            .map(|item| format!("{item}\n"))
            .collect()
    }

    /// `{"tags": [...], "addresses": [...]}`.
    pub fn json(&self) -> String {
        let value = serde_json::json!({ "tags": self.tags, "addresses": self.addresses });
        format!("{value}\n")
    }
}

/// What changed from the manifest `old` to the manifest `new`; an error
/// names the line that is not a manifest's (`which` names the file).
pub fn changes(old: &str, new: &str) -> Result<Changes, String> {
    let old = read(old).map_err(|e| format!("OLD: {e}"))?;
    let new = read(new).map_err(|e| format!("NEW: {e}"))?;
    // Each variant (address, media type, language, coding): its ETag in
    // each build, if it is in it.
    let mut variants: BTreeMap<_, [Option<&str>; 2]> = BTreeMap::new();
    for (side, lines) in [&old, &new].into_iter().enumerate() {
        for line in lines {
            variants.entry(line.variant).or_default()[side] = Some(line.etag);
        }
    }
    let changed = |variant| {
        let [before, after] = variants[variant];
        before != after
    };
    let addresses: BTreeSet<&str> = variants
        .keys()
        .filter(|variant| changed(variant))
        .map(|(address, _)| *address)
        .collect();
    // A tag is printed when every variant that carries it, in either
    // build, changed.
    let mut whole: BTreeMap<&str, bool> = BTreeMap::new();
    for line in old.iter().chain(&new) {
        for tag in line.tags.iter().filter(|tag| !tag.starts_with(BUILD_TAG)) {
            *whole.entry(tag).or_insert(true) &= changed(&line.variant);
        }
    }
    Ok(Changes {
        tags: whole
            .into_iter()
            .filter(|(_, all)| *all)
            .map(|(tag, _)| tag.to_string())
            .collect(),
        addresses: addresses.into_iter().map(str::to_string).collect(),
    })
}

/// The lines of a manifest.
fn read(text: &str) -> Result<Vec<Line<'_>>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.is_empty())
        .map(|(n, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [address, media, language, coding, etag, tags] = fields[..] else {
                return Err(format!(
                    "line {}: not a manifest line (six tab-separated fields: \
                     address, type, language, coding, ETag, tags)",
                    n + 1
                ));
            };
            Ok(Line {
                variant: (address, [media, language, coding]),
                etag,
                tags: match tags {
                    "-" => Vec::new(),
                    tags => tags.split(' ').collect(),
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(lines: &[(&str, &str, &str)]) -> String {
        lines
            .iter()
            .map(|(address, etag, tags)| format!("{address}\ttext/html\ten\tbr\t{etag}\t{tags}\n"))
            .collect()
    }

    #[test]
    fn a_changed_method_is_its_tag_and_addresses_and_nothing_else() {
        let old = manifest(&[
            ("/api/select", "\"1\"", "build:a method:select page lang:en"),
            ("/api/insert", "\"2\"", "build:a method:insert page lang:en"),
            ("/api", "\"3\"", "build:a page lang:en list"),
            ("/robots.txt", "\"4\"", "build:a robots"),
        ]);
        let new = manifest(&[
            ("/api/select", "\"5\"", "build:b method:select page lang:en"),
            ("/api/insert", "\"2\"", "build:b method:insert page lang:en"),
            ("/api", "\"6\"", "build:b page lang:en list"),
            ("/robots.txt", "\"4\"", "build:b robots"),
        ]);
        let changes = changes(&old, &new).expect("two manifests");
        assert_eq!(changes.tags, ["list", "method:select"]);
        assert_eq!(changes.addresses, ["/api", "/api/select"]);
        assert_eq!(changes.lines(), "list\nmethod:select\n/api\n/api/select\n");
    }

    #[test]
    fn identical_builds_change_nothing() {
        let old = manifest(&[("/api/select", "\"1\"", "build:a method:select page")]);
        let new = manifest(&[("/api/select", "\"1\"", "build:b method:select page")]);
        assert_eq!(
            changes(&old, &new).expect("two manifests"),
            Changes::default()
        );
        assert_eq!(changes(&old, &new).expect("two manifests").lines(), "");
    }

    #[test]
    fn a_removed_method_is_dropped_and_an_added_one_fetched() {
        let old = manifest(&[
            ("/api/gone", "\"1\"", "build:a method:gone page"),
            ("/api/kept", "\"4\"", "build:a method:kept page"),
        ]);
        let new = manifest(&[
            ("/api/gone", "\"2\"", "-"),
            ("/api/kept", "\"4\"", "build:b method:kept page"),
            ("/api/new", "\"3\"", "build:b method:new page"),
        ]);
        let changes = changes(&old, &new).expect("two manifests");
        assert_eq!(changes.tags, ["method:gone", "method:new"]);
        assert_eq!(changes.addresses, ["/api/gone", "/api/new"]);
    }

    #[test]
    fn a_line_that_is_not_a_manifest_s_is_named() {
        let error = changes("/api\tx\n", "").expect_err("not a manifest");
        assert!(
            error.starts_with("OLD: line 1: not a manifest line"),
            "{error}"
        );
    }
}
