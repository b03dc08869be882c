//! One method file (`content/methods/<key>.md`): TOML front matter between
//! `+++` lines for the structured fields (key, name, order, group,
//! synonyms, signatures, parameters, return value, lifecycle marks), and a
//! Markdown body for
//! the prose (description, note, examples). Read into an [`Entry`] with its
//! place in the catalog and on the homepage; every rule checked, every
//! error of the file reported.
//!
//! Links between methods, and the methods a lifecycle mark names to use
//! instead, are read here and checked once every file is (`catalog.rs`).

use super::entry::{
    check_examples, check_key_and_name, check_parameters, check_returns, check_signatures, Labels,
};
use super::fields::Check;
use super::lifecycle::{self, Ending, Since};
use super::prose::Paragraph;
use super::shape::OneOrMany;
use super::{body, front_matter, ContentError, ContentErrors, Entry};
use serde::Deserialize;

/// The front matter as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    key: String,
    name: String,
    weight: u32,
    group: Membership,
    #[serde(default)]
    synonyms: Vec<String>,
    signature: OneOrMany<String>,
    parameters: Option<OneOrMany<Labels>>,
    returns: Option<String>,
    since: Option<Since>,
    deprecated: Option<Ending>,
    removed: Option<Ending>,
}

/// A method's group on the homepage and its place in it.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table like { name = \"Queries\", weight = 10 }"
)]
pub(super) struct Membership {
    /// The group's name, as `site.json` gives it.
    pub(super) name: String,
    /// Its place in the group: lighter first, equal weights by key.
    pub(super) weight: u32,
}

/// A method read from its file: the entry, and where it goes.
#[derive(Debug)]
pub(super) struct Method {
    /// Its file, as errors name it.
    pub(super) file: String,
    pub(super) entry: Entry,
    /// Its place in the catalog: lighter first, equal weights by key.
    pub(super) weight: u32,
    pub(super) group: Membership,
}

/// Read and validate one method file, given as text; the links to other
/// methods are left for the load to check (it knows them).
pub fn parse_method(file: &str, text: &str) -> Result<Entry, ContentErrors> {
    let mut errors = Vec::new();
    let method = read(file, text, &mut errors);
    match method {
        Some(method) if errors.is_empty() => Ok(method.entry),
        _ => Err(ContentErrors(errors)),
    }
}

/// The method of `file` (its text), its errors added to `errors`; none if
/// its front matter could not be read.
pub(super) fn read(file: &str, text: &str, errors: &mut Vec<ContentError>) -> Option<Method> {
    let parts = match front_matter::split(file, text) {
        Ok(parts) => parts,
        Err(error) => {
            errors.push(error);
            return None;
        }
    };
    // The body is read even when the front matter cannot be: every error
    // of the file at once.
    let front = front_matter::read::<FrontMatter>(file, parts.front)
        .map_err(|error| errors.push(error))
        .ok();
    let body = body::read(parts.body, parts.body_line, &mut Check::new(file, errors));
    let entry = method(front?, body, &mut Check::new(file, errors));
    Some(Method {
        file: file.to_string(),
        ..entry
    })
}

/// The method of `front` and `body`, every rule checked.
fn method(front: FrontMatter, body: body::Body, check: &mut Check) -> Method {
    let FrontMatter {
        key,
        name,
        weight,
        group,
        synonyms,
        signature,
        parameters,
        returns,
        since,
        deprecated,
        removed,
    } = front;
    check_key_and_name(check, &key, &name);
    check.filled("group.name", &group.name);
    check_synonyms(check, &synonyms);
    let signatures = check_signatures(check, signature, &key);
    let parameters = check_parameters(check, parameters, &signatures);
    check_returns(check, returns.as_deref());
    let description_md = body.description.unwrap_or(Paragraph(Vec::new()));
    let description = description_md.plain();
    // An empty one is missing, which the body has said.
    if !description_md.0.is_empty()
        && check.line("description", &description)
        && description.contains(['<', '>'])
    {
        check.fail(
            "description",
            "holds `<` or `>`, which the JSON `description` may not: \
             clients may show it as HTML",
        );
    }
    let note = body.note.as_ref().map(Paragraph::with_code_tags);
    if let (Some(note_md), Some(text)) = (&body.note, &note) {
        if check.line("note", text) && !note_md.fits_code_tags() {
            check.fail(
                "note",
                "holds `<`, or `>` outside code, which the JSON `note` may not: \
                 it is text with HTML `<code>` tags",
            );
        }
    }
    let examples = check_examples(
        check,
        body.examples,
        &key,
        &signatures,
        parameters.as_deref(),
    );
    let lifecycle = lifecycle::lifecycle(check, &key, since, deprecated, removed);
    Method {
        file: String::new(),
        entry: Entry {
            key,
            name,
            description,
            description_md,
            signatures,
            parameters,
            returns,
            note,
            note_md: body.note,
            examples,
            synonyms,
            lifecycle,
        },
        weight,
        group,
    }
}

/// Synonyms: each a line of words to search with, given once.
fn check_synonyms(check: &mut Check, synonyms: &[String]) {
    for (i, words) in synonyms.iter().enumerate() {
        let field = format!("synonyms[{i}]");
        if !check.plain_line(&field, words) {
            continue;
        }
        if crate::search::terms(words).is_empty() {
            check.fail(&field, "holds no word to search with (only stop words?)");
        } else if synonyms[..i].contains(words) {
            check.fail(&field, format!("`{words}` is given twice"));
        }
    }
}
