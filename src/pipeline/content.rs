//! Build stage 1: load `content/` into a [`Catalog`] and validate it.
//!
//! Every error names the file (as the content directory was given, so
//! `content/methods/select.md` from `build.rs`) and the field at fault.
//! A content file is a regular file inside the content directory of at
//! most [`MAX_FILE_BYTES`]; anything else is refused unread.
//!
//! Each method is one Markdown file, `methods/<key>.md`: TOML front matter
//! between `+++` lines for its structured fields, and a body for its
//! description, note and examples. The other files are JSON. Each file is
//! read into `serde` types that say its shape: an unknown field is
//! refused, and a value of the wrong type is an error naming its path
//! (`parameters[1].table [string]`). The rules a type does not say (one
//! line of text, names, links to methods that exist, groups that
//! `site.json` defines, examples that parse as PHP and call their method
//! as its signatures do) are checked on what was read, and a load reports
//! every error of every file it could read, not only the first.
//!
//! This file holds the catalog's types and the load; beside it,
//! `content/read.rs` reads the files (what a content file may be) and
//! turns JSON into types, `content/method.rs` cuts a method file, reads
//! its TOML and makes the entry of it, `content/body.rs` reads its
//! Markdown body, `content/prose.rs` a paragraph of it,
//! `content/entry.rs` holds the entry's type (the front matter's fields,
//! from which its schema is generated, and the body's) and the rules of
//! its fields, `content/php.rs` parses an example's PHP and checks its
//! calls, `content/lifecycle.rs` its lifecycle marks (`since`,
//! `deprecated`, `removed`), `content/catalog.rs` orders and groups the
//! methods, sets the removed ones apart and checks their links,
//! `content/site.rs` checks `site.json` and `errors.json`,
//! `content/shape.rs` reads a value or an array of them, and
//! `content/fields.rs` holds the text rules they share.

mod body;
mod catalog;
mod chrome;
mod entry;
mod fields;
mod fingerprint;
mod language;
mod lifecycle;
mod method;
mod php;
mod prose;
mod read;
mod shape;
mod site;
mod translation;

use crate::address::{Address, Localized, View};
use crate::errors::ErrorKind;
pub use chrome::{fill, Chrome};
pub(crate) use entry::is_key;
pub use entry::{Entry, Example, Labels, Membership};
use fields::Check;
pub use language::Language;
pub use lifecycle::{Date, Mark, Stage};
pub use method::{front_matter_schema, parse_method};
pub(crate) use prose::{Inline, Paragraph};
use read::Directory;
use serde::Deserialize;
pub use shape::OneOrMany;
use std::fmt;
use std::path::Path;
pub use translation::Status;

/// The most methods a catalog may hold: the search index numbers them
/// with a `u16` (`refserve_core::search::Posting`).
const MAX_METHODS: usize = u16::MAX as usize;

/// The largest content file read, in bytes (1 MiB; the largest shipped is
/// a few KB). A larger one is refused unread.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The site in every language it is written in: the source's catalog
/// first, then each translation's, in the order of their tags.
#[derive(Debug)]
pub struct Editions {
    /// One catalog a language.
    pub catalogs: Vec<Catalog>,
}

impl Editions {
    /// The source language's catalog.
    pub fn source(&self) -> &Catalog {
        &self.catalogs[0]
    }

    /// The languages the page of the method `key` is written in: the
    /// source's, and each translation's that translates it (current or
    /// outdated).
    pub fn written_in(&self, key: &str) -> Vec<&Language> {
        self.catalogs
            .iter()
            .filter(|c| {
                c.entry(key)
                    .is_some_and(|e| e.translation != Status::Untranslated)
            })
            .map(|c| &c.language)
            .collect()
    }

    /// Every language of the site, the source's first.
    pub fn languages(&self) -> Vec<&Language> {
        self.catalogs.iter().map(|c| &c.language).collect()
    }
}

/// Everything the renderers need of one language: the base URL, the
/// entries in catalog order, the error texts, the language and its chrome.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The public address, without a trailing slash.
    pub base_url: String,
    /// `Last-Modified` of every resource, as seconds since the Unix epoch.
    pub last_modified: u64,
    /// The entries, in catalog order: by the `weight` of their files,
    /// equal weights by key. The methods removed from the library are not
    /// among them: no list names them.
    pub entries: Vec<Entry>,
    /// The methods whose files mark them `removed`, by key: their
    /// addresses answer that they are gone, naming their successor.
    pub removed: Vec<Entry>,
    /// `message` and `hint` for each error code.
    pub errors: Vec<ErrorText>,
    /// The site's own texts and the grouping of methods on the homepage.
    pub site: Site,
    /// The language of its texts.
    pub language: Language,
    /// Every language of the site, the source's first.
    pub languages: Vec<Language>,
}

impl Catalog {
    /// `address` in this catalog's pages: `/zh-hans/api/select` (an
    /// address that is not localized stays as it is).
    pub fn at<'a>(&'a self, address: Address<'a>) -> Localized<'a> {
        address.localized(Some(&self.language.segment))
    }

    /// The address of the page of the method `key` in this catalog's pages.
    pub fn page_of(&self, key: &str) -> String {
        self.at(Address::Method(key, View::Page)).to_string()
    }

    /// The entry (not removed) of `key`, if any.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.key == key)
    }

    /// Whether its language is the source's.
    pub fn is_source(&self) -> bool {
        self.languages
            .first()
            .is_some_and(|source| source.tag == self.language.tag)
    }
}

/// `content/site.json`: what the homepage and the agent index say.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// The name of the site (the homepage's heading).
    pub title: String,
    /// One or two sentences on what is published here; `{count}` in the
    /// file stands for the number of methods.
    pub summary: String,
    /// What the service is and is not.
    pub about: String,
    /// The methods grouped by purpose; every key in exactly one group.
    pub groups: Vec<Group>,
    /// What robots.txt's `Content-Signal` line says may be done with the
    /// content; absent, every use is allowed.
    #[serde(default)]
    pub content_signals: ContentSignals,
}

/// `content_signals` of `site.json`: the uses of the content, once
/// fetched, that robots.txt grants (`true`) or refuses (`false`) in its
/// `Content-Signal` line (contentsignals.org). A use left out is neither
/// granted nor refused.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentSignals {
    /// Building a search index and showing search results.
    pub search: Option<bool>,
    /// Input to AI models as they answer (retrieval, grounding).
    #[serde(rename = "ai-input")]
    pub ai_input: Option<bool>,
    /// Training or fine-tuning AI models.
    #[serde(rename = "ai-train")]
    pub ai_train: Option<bool>,
}

impl Default for ContentSignals {
    /// Every use allowed: public reference documentation is meant to be
    /// found, quoted and learned from.
    fn default() -> Self {
        ContentSignals {
            search: Some(true),
            ai_input: Some(true),
            ai_train: Some(true),
        }
    }
}

impl ContentSignals {
    /// Each use that is stated, by its label: `("search", true)`.
    pub(crate) fn stated(&self) -> Vec<(&'static str, bool)> {
        [
            ("search", self.search),
            ("ai-input", self.ai_input),
            ("ai-train", self.ai_train),
        ]
        .into_iter()
        .filter_map(|(label, allowed)| allowed.map(|allowed| (label, allowed)))
        .collect()
    }
}

/// A group of methods on the homepage.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Its heading, which the method files name as their `group` (and
    /// translations, the source's).
    pub name: String,
    /// One line on what the methods have in common.
    pub summary: String,
    /// Catalog keys, in the order shown: the methods whose `group` names
    /// it, by their weight in it (`content/catalog.rs`).
    #[serde(skip)]
    pub keys: Vec<String>,
}

/// The texts of one error code.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorText {
    /// The stable code (the member's name in `errors.json`).
    #[serde(skip)]
    pub code: String,
    /// The heading of its pages, if not the HTTP reason phrase (a
    /// translation's).
    pub title: Option<String>,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    pub hint: String,
    /// A hint naming a close catalog key, with `{key}` where it goes.
    pub hint_suggesting: Option<String>,
    /// For a removed method without a successor: a hint with `{key}` and
    /// `{version}` where they go (the kinds of `ABOUT_REMOVED`).
    pub hint_removed: Option<String>,
    /// For a removed method with a successor: a hint with `{key}`,
    /// `{version}` and `{successor}` where they go.
    pub hint_replaced: Option<String>,
}

/// The errors a removed method's addresses answer with: its JSON document
/// (`reference_not_found`) and its page (`method_removed`), each with a
/// hint naming what to use instead.
const ABOUT_REMOVED: [ErrorKind; 2] = [ErrorKind::ReferenceNotFound, ErrorKind::MethodRemoved];

/// A content error: the file, the field and what is wrong with it.
#[derive(Debug, PartialEq, Eq)]
pub struct ContentError {
    /// The file, relative to the crate root.
    pub file: String,
    /// The field, as a JSON path (`parameters[1]`), or empty for the whole file.
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

/// Every error a load found, at least one: by file, and each file's in
/// the order found.
#[derive(Debug, PartialEq, Eq)]
pub struct ContentErrors(pub Vec<ContentError>);

impl From<ContentError> for ContentErrors {
    fn from(error: ContentError) -> Self {
        ContentErrors(vec![error])
    }
}

impl fmt::Display for ContentErrors {
    /// One error a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(ContentError::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.problem)
        } else {
            write!(f, "{}: field `{}`: {}", self.file, self.field, self.problem)
        }
    }
}

impl ContentError {
    /// `problem` with `field` of `file`; an empty field, or serde's `.`,
    /// is the whole file.
    fn new(file: &str, field: &str, problem: impl Into<String>) -> Self {
        ContentError {
            file: file.to_string(),
            field: if field == "." { "" } else { field }.to_string(),
            problem: problem.into(),
        }
    }
}

/// `problem` with the whole of `file`, as an error.
fn fail<T>(file: &str, problem: impl Into<String>) -> Result<T, ContentError> {
    Err(ContentError::new(file, "", problem))
}

/// Validate the base URL: absolute `http` or `https`, with a host, without a
/// trailing slash, query or fragment.
pub fn base_url(value: &str) -> Result<String, ContentError> {
    let no_host = |rest: &str| {
        let host = rest.split('/').next().unwrap_or_default();
        host.is_empty() || host.starts_with(':')
    };
    // What follows the value in the message.
    let problem = match value.split_once("://") {
        None => " is not an absolute URL (http:// or https://)",
        Some((scheme, _)) if scheme != "http" && scheme != "https" => {
            ": the scheme must be http or https"
        }
        Some((_, rest)) if no_host(rest) => " has no host",
        _ if value.ends_with('/') => " must not end with a slash",
        _ if value.contains(['?', '#'])
            || value.chars().any(|c| c.is_whitespace() || c.is_control()) =>
        {
            " must not hold a query, a fragment or spaces"
        }
        _ => return Ok(value.to_string()),
    };
    fail("REFSERVE_BASE_URL", format!("`{value}`{problem}"))
}

/// Load and validate the whole of the content directory `dir` under `root`
/// (`content` under the crate root, for `build.rs`): the source language's
/// files, then each translation's (`content/translation.rs`); errors name
/// files as `dir/…`. `last_modified` is the date every resource is sent
/// with (the caller's: `SOURCE_DATE_EPOCH`, or the inputs' newest,
/// `dates.rs`).
///
/// A file that cannot be read or does not fit its type is one error and
/// leaves its rules unchecked; the others are all checked. The
/// translations are checked against a source without errors.
pub fn load(
    root: &Path,
    dir: &str,
    base_url: String,
    last_modified: u64,
) -> Result<Editions, ContentErrors> {
    let content = Directory::open(root, dir)?;
    let mut errors = Vec::new();
    let source = load_source(&content, dir, base_url, last_modified, &mut errors);
    let Some(source) = source.filter(|_| errors.is_empty()) else {
        return Err(in_file_order(errors));
    };
    let translations = translation::read_all(&content, dir, &source, &mut errors);
    if !errors.is_empty() {
        return Err(in_file_order(errors));
    }
    let mut catalogs: Vec<Catalog> = std::iter::once(source).chain(translations).collect();
    let languages: Vec<Language> = catalogs.iter().map(|c| c.language.clone()).collect();
    for catalog in &mut catalogs {
        catalog.languages.clone_from(&languages);
    }
    Ok(Editions { catalogs })
}

/// `text`, the translated method file `file`, with the fingerprints of
/// `source` (the entry it translates, as it is now) in its `[source]`
/// table; or why it cannot be marked: it restates a fact of the source
/// otherwise (checked as if every field were current).
pub fn mark(file: &str, text: &str, source: &Entry) -> Result<String, ContentErrors> {
    let errors = translation::check_against(file, text, source);
    if !errors.is_empty() {
        return Err(ContentErrors(errors));
    }
    fingerprint::mark(text, &fingerprint::of(source)).ok_or_else(|| {
        ContentError::new(file, "", "has no front matter between `+++` lines").into()
    })
}

/// `errors` by file (each file's in the order found): a method's broken
/// link, found once every file is read, beside its other errors.
fn in_file_order(mut errors: Vec<ContentError>) -> ContentErrors {
    errors.sort_by(|a, b| a.file.cmp(&b.file));
    ContentErrors(errors)
}

/// The source language's catalog, its errors added to `errors`.
fn load_source(
    content: &Directory,
    dir: &str,
    base_url: String,
    last_modified: u64,
    errors: &mut Vec<ContentError>,
) -> Option<Catalog> {
    let methods = catalog::read_methods(content, dir, errors);
    catalog::check_links(&methods, dir, errors);
    let errors_file = &format!("{dir}/errors.json");
    let texts = ErrorText::read_all(content, errors_file, errors);
    if let Some(texts) = &texts {
        let mut check = Check::new(errors_file, errors);
        for text in texts {
            text.check(&mut check);
        }
        error_codes(texts, &mut check);
    }
    let language_file = &format!("{dir}/language.json");
    let language =
        noted(content.read_json::<Language>(language_file), errors).map(Language::with_segment);
    if let Some(language) = &language {
        language.check_own(&mut Check::new(language_file, errors));
    }
    let site_file = &format!("{dir}/site.json");
    let mut site = noted(content.read_json::<Site>(site_file), errors);
    if let Some(site) = &mut site {
        site.check(&mut Check::new(site_file, errors));
        catalog::group(site, dir, &methods, errors);
    }
    let (mut site, language) = (site?, language?);
    let (entries, removed) = catalog::in_order(methods);
    // The number of methods, which no file states.
    site.summary = site.summary.replace("{count}", &entries.len().to_string());
    Some(Catalog {
        base_url,
        last_modified,
        site,
        entries,
        removed,
        errors: texts.unwrap_or_default(),
        languages: vec![language.clone()],
        language,
    })
}

/// `errors.json` names every error code the server uses, and no other.
fn error_codes(texts: &[ErrorText], check: &mut Check) {
    let used = |code: &str| ErrorKind::ALL.iter().any(|kind| kind.code() == code);
    for text in texts.iter().filter(|text| !used(&text.code)) {
        check.fail(&text.code, "is not an error code the server uses");
    }
    for kind in ErrorKind::ALL {
        let Some(text) = texts.iter().find(|text| text.code == kind.code()) else {
            check.fail(
                kind.code(),
                "is missing: every error code needs a message and a hint",
            );
            continue;
        };
        if ABOUT_REMOVED.contains(&kind) {
            // The hints that name the version a method was removed in.
            let missing = text
                .hints()
                .filter(|(_, places, hint)| places.contains(&"{version}") && hint.is_none());
            for (field, ..) in missing {
                check.fail(
                    &format!("{}.{field}", kind.code()),
                    "is missing: it is the hint at a removed method's address",
                );
            }
        }
    }
}

/// What was read, or its error added to `errors`.
fn noted<T>(read: Result<T, ContentError>, errors: &mut Vec<ContentError>) -> Option<T> {
    read.map_err(|error| errors.push(error)).ok()
}
