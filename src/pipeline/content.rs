//! Build stage 1: load `content/` into a [`Catalog`] and validate it.
//!
//! Every error names the file (as the content directory was given, so
//! `content/entries/select.json` from `build.rs`) and the field at fault.
//! A content file is a regular file inside the content directory of at
//! most [`MAX_FILE_BYTES`]; anything else is refused unread.
//!
//! This file holds the catalog's types and reads `content/catalog.json`;
//! beside it, `content/read.rs` reads the files (what a content file may
//! be), `content/entry.rs` an entry file, `content/site.rs` `site.json`
//! and `errors.json`, `content/search.rs` `search.json`, and
//! `content/fields.rs` the JSON fields and text rules they share.

mod entry;
mod fields;
mod read;
mod search;
mod site;

pub use entry::{is_key, parse_entry};
use fields::{as_object, known_fields, parse_date, string};
use read::Directory;
use search::parse_search;
use serde_json::Value;
use site::{parse_errors, parse_site};
use std::fmt;
use std::path::Path;

/// The number of entries the specification's catalog holds (section 2.5).
pub const CATALOG_SIZE: usize = 24;

/// The largest content file read, in bytes (1 MiB; the largest shipped is
/// a few KB). A larger one is refused unread.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Everything the renderers need: the base URL, the entries in catalog order
/// and the error texts.
#[derive(Debug)]
pub struct Catalog {
    /// The public address, without a trailing slash.
    pub base_url: String,
    /// `Last-Modified` of every resource, as seconds since the Unix epoch.
    pub last_modified: u64,
    /// The entries, in the order of `content/catalog.json`.
    pub entries: Vec<Entry>,
    /// `message` and `hint` for each error code.
    pub errors: Vec<ErrorText>,
    /// The site's own texts and the grouping of methods on the homepage.
    pub site: Site,
    /// What search knows beyond the entries (`content/search.json`).
    pub search: Search,
}

/// `content/search.json`: the synonyms search indexes.
#[derive(Debug, Clone)]
pub struct Search {
    /// Words an agent may use, each with the methods it should find.
    pub synonyms: Vec<Synonym>,
}

/// Words that should find some methods.
#[derive(Debug, Clone)]
pub struct Synonym {
    /// The words, separated by spaces; each is a term of its own.
    pub words: String,
    /// The catalog keys they find.
    pub keys: Vec<String>,
}

/// `content/site.json`: what the homepage and the agent index say.
#[derive(Debug, Clone)]
pub struct Site {
    /// The name of the site (the homepage's heading).
    pub title: String,
    /// One or two sentences on what is published here.
    pub summary: String,
    /// What the service is and is not.
    pub about: String,
    /// The methods grouped by purpose; every key in exactly one group.
    pub groups: Vec<Group>,
}

/// A group of methods on the homepage.
#[derive(Debug, Clone)]
pub struct Group {
    /// Its heading.
    pub name: String,
    /// One line on what the methods have in common.
    pub summary: String,
    /// Catalog keys, in the order shown.
    pub keys: Vec<String>,
}

/// One documented method.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Lowercase identifier, `^[a-z]+$`.
    pub key: String,
    /// Method name (equal to the key).
    pub name: String,
    /// One- or two-sentence summary.
    pub description: String,
    /// The call forms; more than one for overloaded methods.
    pub signatures: Vec<String>,
    /// One parameter list per signature (`None` for methods without
    /// parameters); each a list of (label, description) in signature order.
    pub parameters: Option<Vec<Vec<(String, String)>>>,
    /// Return value, starting with `[type]`.
    pub returns: Option<String>,
    /// Additional remark; may hold `<code>` tags.
    pub note: Option<String>,
    /// Short PHP snippets that call the method, each with a title.
    pub examples: Vec<Example>,
}

/// One example of a method's use.
#[derive(Debug, Clone)]
pub struct Example {
    /// One line of plain text saying what the example does.
    pub title: String,
    /// PHP statements (no `<?php` opener) that call the method.
    pub code: String,
}

/// The texts of one error code.
#[derive(Debug, Clone)]
pub struct ErrorText {
    /// The stable code.
    pub code: String,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    pub hint: String,
    /// A hint naming a close catalog key, with `{key}` where it goes.
    pub hint_suggesting: Option<String>,
}

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

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.problem)
        } else {
            write!(f, "{}: field `{}`: {}", self.file, self.field, self.problem)
        }
    }
}

fn fail<T>(file: &str, field: &str, problem: impl Into<String>) -> Result<T, ContentError> {
    Err(ContentError {
        file: file.to_string(),
        field: field.to_string(),
        problem: problem.into(),
    })
}

/// Validate the base URL: absolute `http` or `https`, with a host, without a
/// trailing slash, query or fragment.
pub fn base_url(value: &str) -> Result<String, ContentError> {
    let file = "REFSERVE_BASE_URL";
    let Some((scheme, rest)) = value.split_once("://") else {
        return fail(
            file,
            "",
            format!("`{value}` is not an absolute URL (http:// or https://)"),
        );
    };
    if scheme != "http" && scheme != "https" {
        return fail(
            file,
            "",
            format!("`{value}`: the scheme must be http or https"),
        );
    }
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') {
        return fail(file, "", format!("`{value}` has no host"));
    }
    if value.ends_with('/') {
        return fail(file, "", format!("`{value}` must not end with a slash"));
    }
    if value.contains(['?', '#']) || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return fail(
            file,
            "",
            format!("`{value}` must not hold a query, a fragment or spaces"),
        );
    }
    Ok(value.to_string())
}

/// Load and validate the whole of the content directory `dir` under `root`
/// (`content` under the crate root, for `build.rs`); errors name files as
/// `dir/…`. `last_modified` overrides the date in `catalog.json` (from
/// `SOURCE_DATE_EPOCH`).
pub fn load(
    root: &Path,
    dir: &str,
    base_url: String,
    last_modified: Option<u64>,
) -> Result<Catalog, ContentError> {
    let content = Directory::open(root, dir)?;
    let catalog_file = &format!("{dir}/catalog.json");
    let catalog = content.read_json(catalog_file)?;
    let catalog = as_object(&catalog, catalog_file, "")?;
    known_fields(catalog, catalog_file, &["last_modified", "entries"])?;
    let date = string(catalog, catalog_file, "last_modified")?;
    let last_modified = match last_modified {
        Some(epoch) => epoch,
        None => parse_date(&date).ok_or_else(|| ContentError {
            file: catalog_file.into(),
            field: "last_modified".into(),
            problem: format!("`{date}` is not an HTTP date (like `Sun, 22 Nov 2026 00:00:00 GMT`)"),
        })?,
    };
    let Some(Value::Array(keys)) = catalog.get("entries") else {
        return fail(catalog_file, "entries", "must be an array of entry keys");
    };
    let mut entries = Vec::with_capacity(keys.len());
    for (i, key) in keys.iter().enumerate() {
        let field = format!("entries[{i}]");
        let Some(key) = key.as_str() else {
            return fail(catalog_file, &field, "must be a string");
        };
        if !is_key(key) {
            return fail(
                catalog_file,
                &field,
                format!("`{key}` does not match ^[a-z]+$"),
            );
        }
        if entries.iter().any(|e: &Entry| e.key == key) {
            return fail(catalog_file, &field, format!("`{key}` is listed twice"));
        }
        let file = format!("{dir}/entries/{key}.json");
        let value = content.read_json(&file)?;
        let entry = parse_entry(&file, &value)?;
        if entry.key != key {
            return fail(
                &file,
                "key",
                format!("`{}` differs from the file name `{key}`", entry.key),
            );
        }
        entries.push(entry);
    }
    if entries.len() != CATALOG_SIZE {
        return fail(
            catalog_file,
            "entries",
            format!(
                "lists {} entries; the catalog has exactly {CATALOG_SIZE}",
                entries.len()
            ),
        );
    }
    unlisted_files(&content, dir, &entries)?;
    let errors_file = &format!("{dir}/errors.json");
    let errors = parse_errors(errors_file, &content.read_json(errors_file)?)?;
    let site_file = &format!("{dir}/site.json");
    let site = parse_site(site_file, &content.read_json(site_file)?, &entries)?;
    let search_file = &format!("{dir}/search.json");
    let search = parse_search(search_file, &content.read_json(search_file)?, &entries)?;
    Ok(Catalog {
        base_url,
        last_modified,
        entries,
        errors,
        site,
        search,
    })
}

/// A file in `entries/` that `catalog.json` does not list is an error.
fn unlisted_files(content: &Directory, dir: &str, entries: &[Entry]) -> Result<(), ContentError> {
    let mut names = content.names(&format!("{dir}/entries"))?;
    names.sort();
    for name in names {
        let listed = name
            .strip_suffix(".json")
            .is_some_and(|k| entries.iter().any(|e| e.key == k));
        if !listed {
            return fail(
                &format!("{dir}/entries/{name}"),
                "",
                format!("is not listed in {dir}/catalog.json `entries`"),
            );
        }
    }
    Ok(())
}
