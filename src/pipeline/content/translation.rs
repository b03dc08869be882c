//! A translation: a folder beside the source's files, `content/<tag>/`
//! (the language's tag in lowercase), holding only what is text, checked
//! against the source it translates.
//!
//! - `language.json`: the tag, the language's name in itself and its page
//!   chrome (`language.rs`, `chrome.rs`);
//! - `site.json`: the homepage's texts and each group's name and summary,
//!   keyed by the group's source name;
//! - `errors.json`: the message and hints of each error code (and, if it
//!   likes, a `title` for its pages instead of the HTTP reason phrase);
//! - `methods/<key>.md`: a method's text. Its front matter holds its
//!   `synonyms` in the language, the text of `returns` after the `[type]`,
//!   the `parameters` tables with the source's labels as keys and the
//!   descriptions translated, and `[source]`: the fingerprint of each
//!   source field it translates (`fingerprint.rs`). Its body is the
//!   source's shape (description, `## Note`, `## Examples`), the titles
//!   translated, the code the source's but for its comments.
//!
//! The facts (key, signatures, labels, types, optional marks, groups, the
//! code, lifecycle marks) are the source's and cannot be restated: an
//! unknown field is refused, a label that differs, a parameter described
//! in one and not the other, an example whose PHP tokens differ from the
//! source's beyond comments fail naming the file and field. A method
//! without a translation file is served in the source language.

mod facts;

use super::body;
use super::catalog::is_editor_file;
use super::chrome::Chrome;
use super::fields::Check;
use super::fingerprint;
use super::language::Language;
use super::method;
use super::prose::Paragraph;
use super::read::Directory;
use super::shape::OneOrMany;
use super::{is_key, noted, Catalog, ContentError, Entry, ErrorText, Group, Labels};
use indexmap::IndexMap;
use serde::Deserialize;

/// How a method's text stands in a language.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Status {
    /// Written in this language: the source.
    #[default]
    Source,
    /// Translated from the source as it is now.
    Current,
    /// Translated from an older source: these fields have changed since
    /// (or were never marked).
    Outdated(Vec<&'static str>),
    /// Not translated: the source's text, in the source's language.
    Untranslated,
}

/// A translated `site.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SiteText {
    title: String,
    summary: String,
    about: String,
    /// Each group's texts (its name and summary), by its name in the
    /// source.
    groups: IndexMap<String, Group>,
}

/// The front matter of a translated method file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Front {
    /// Words to search with in this language.
    #[serde(default)]
    synonyms: Vec<String>,
    /// The text of the source's `returns` after its `[type]`.
    returns: Option<String>,
    /// The source's parameter tables, labels as keys, descriptions translated.
    parameters: Option<OneOrMany<Labels>>,
    /// The fingerprint of each source field translated.
    #[serde(default)]
    source: IndexMap<String, String>,
}

/// The translations in `dir` beside the source `catalog`: every folder
/// holding a `language.json`, in the order of their tags; their errors
/// added to `errors`.
pub(super) fn read_all(
    content: &Directory,
    dir: &str,
    source: &Catalog,
    errors: &mut Vec<ContentError>,
) -> Vec<Catalog> {
    let Some(names) = noted(content.names(dir), errors) else {
        return Vec::new();
    };
    names
        .iter()
        .filter(|name| content.is_file(&format!("{dir}/{name}/language.json")))
        .filter_map(|name| read(content, &format!("{dir}/{name}"), name, source, errors))
        .collect()
}

/// The catalog of `source` in the language of `folder`, named `segment`:
/// its texts where translated, the source's where not, each entry saying
/// which.
fn read(
    content: &Directory,
    folder: &str,
    segment: &str,
    source: &Catalog,
    errors: &mut Vec<ContentError>,
) -> Option<Catalog> {
    let language_file = &format!("{folder}/language.json");
    let language =
        noted(content.read_json::<Language>(language_file), errors).map(Language::with_segment);
    if let Some(language) = &language {
        let check = &mut Check::new(language_file, errors);
        language.check(segment, &source.language, check);
    }
    let site_file = &format!("{folder}/site.json");
    let site = noted(content.read_json::<SiteText>(site_file), errors);
    if let Some(site) = &site {
        site.check(&mut Check::new(site_file, errors));
    }
    let errors_file = &format!("{folder}/errors.json");
    let texts = ErrorText::read_all(content, errors_file, errors);
    if let Some(texts) = &texts {
        check_errors(texts, source, &mut Check::new(errors_file, errors));
    }
    let mut catalog = source.clone();
    read_methods(content, folder, &mut catalog, errors);
    let (site, texts) = (site?, texts?);
    catalog.language = language?;
    catalog.site.title = site.title;
    catalog.site.summary = site
        .summary
        .replace("{count}", &catalog.entries.len().to_string());
    catalog.site.about = site.about;
    for group in &mut catalog.site.groups {
        // The catalog is the source's: its groups' names are the source's.
        if let Some(text) = site.groups.get(&group.name) {
            group.name.clone_from(&text.name);
            group.summary.clone_from(&text.summary);
        }
    }
    for error in &mut catalog.errors {
        if let Some(text) = texts.iter().find(|text| text.code == error.code) {
            error.clone_from(text);
        }
    }
    Some(catalog)
}

impl SiteText {
    /// One line each.
    fn check(&self, check: &mut Check) {
        check.plain_line("title", &self.title);
        check.plain_line("summary", &self.summary);
        check.plain_line("about", &self.about);
        // A group renamed in the source keeps its source texts until
        // translated: a change to the source never fails the build.
        for (name, text) in &self.groups {
            let field = format!("groups.{name}");
            check.plain_line(&format!("{field}.name"), &text.name);
            check.plain_line(&format!("{field}.summary"), &text.summary);
        }
    }
}

/// Every code of the source, with the same hints and the same places in them.
fn check_errors(texts: &[ErrorText], source: &Catalog, check: &mut Check) {
    for text in texts {
        let code = &text.code;
        let Some(original) = source.errors.iter().find(|e| &e.code == code) else {
            check.fail(code, "is not an error code of the source's errors.json");
            continue;
        };
        text.check(check);
        for ((name, _, ours), (.., theirs)) in text.hints().zip(original.hints()) {
            if ours.is_some() != theirs.is_some() {
                let problem = if ours.is_some() {
                    "is not in the source's errors.json"
                } else {
                    "is missing: the source's errors.json has it"
                };
                check.fail(&format!("{code}.{name}"), problem);
            }
        }
    }
    for original in &source.errors {
        if !texts.iter().any(|text| text.code == original.code) {
            check.fail(
                &original.code,
                "is missing: the source's errors.json has it",
            );
        }
    }
}

/// The entries of `catalog`, the source's, each in the words of its file
/// in `folder/methods` (checked against it), or untranslated.
fn read_methods(
    content: &Directory,
    folder: &str,
    catalog: &mut Catalog,
    errors: &mut Vec<ContentError>,
) {
    for entry in catalog.entries.iter_mut().chain(&mut catalog.removed) {
        entry.translation = Status::Untranslated;
    }
    let listing = format!("{folder}/methods");
    if !content.is_dir(&listing) {
        return;
    }
    let Some(names) = noted(content.names(&listing), errors) else {
        return;
    };
    for name in names.into_iter().filter(|name| !is_editor_file(name)) {
        let file = &format!("{listing}/{name}");
        let mut check = Check::new(file, errors);
        let Some(key) = name.strip_suffix(".md").filter(|key| is_key(key)) else {
            check.fail("", "is not a method file: a method is `<key>.md`");
            continue;
        };
        // A translation whose source is gone is left unread: a change to
        // the source never fails the build (`refserve translations` lists it).
        let mut entries = catalog.entries.iter_mut().chain(&mut catalog.removed);
        let Some(entry) = entries.find(|e| e.key == key) else {
            continue;
        };
        let Some(text) = noted(content.read_text(file), errors) else {
            continue;
        };
        if let Some(translated) = read_method(file, &text, entry, false, errors) {
            *entry = translated;
        }
    }
}

/// The translated method of `file` (its `text`), checked against
/// `original`: its shape always; against the facts of the source (labels,
/// code, which fields there are) only where the source has not changed
/// since the translation was marked, or for every field when `strict`
/// (`--mark`). Where the source has changed, the source's facts stand
/// and the translation is outdated: a change to the source never fails the
/// build, a translation that restates a fact differently does. The entry
/// of `original` in the translation's words.
fn read_method(
    file: &str,
    text: &str,
    original: &Entry,
    strict: bool,
    errors: &mut Vec<ContentError>,
) -> Option<Entry> {
    let parts = noted(method::split(file, text), errors)?;
    let front = noted(method::read_front::<Front>(file, parts.front), errors);
    let body = body::read(parts.body, parts.body_line, &mut Check::new(file, errors));
    let front = front?;
    let mut check = Check::new(file, errors);
    for (i, words) in front.synonyms.iter().enumerate() {
        check.plain_line(&format!("synonyms[{i}]"), words);
    }
    if let Some(text) = &front.returns {
        if check.line("returns", text) && text.starts_with('[') {
            check.fail(
                "returns",
                "holds only the text after the type: the `[type]` is the source's",
            );
        }
    }
    for field in front.source.keys() {
        if !fingerprint::FIELDS.contains(&field.as_str()) {
            check.fail(
                &format!("source.{field}"),
                format!(
                    "is not a field of the source: {}",
                    fingerprint::FIELDS.join(", ")
                ),
            );
        }
    }
    let description = body.description.unwrap_or_default();
    check.line("description", &description.plain());
    // The errors of a fact are kept where the source's field is current.
    let changed = fingerprint::changed(original, &front.source);
    let current = |field: &str| strict || !changed.contains(&field);
    check.keep_if(current("returns"));
    match (&original.returns, &front.returns) {
        (Some(_), None) => check.fail("returns", "is missing: the source has `returns`"),
        (None, Some(_)) => check.fail("returns", "is not in the source: it has no `returns`"),
        _ => {}
    }
    check.keep_if(current("parameters"));
    let (theirs, ours) = (original.parameters.as_ref(), front.parameters.as_ref());
    facts::check_parameters(&mut check, theirs, ours);
    check.keep_if(current("note"));
    match (&original.note_md, &body.note) {
        (Some(_), None) => check.fail("note", "is missing: the source has a `## Note`"),
        (None, Some(_)) => check.fail("note", "is not in the source: it has no `## Note`"),
        _ => {}
    }
    check.keep_if(current("examples"));
    let mut entry = original.clone();
    facts::check_examples(&mut check, &mut entry.examples, body.examples);
    entry.translation = if changed.is_empty() {
        Status::Current
    } else {
        Status::Outdated(changed)
    };
    // The source's words are searched too.
    entry.synonyms.extend(front.synonyms);
    if let (Some(returns), Some(text)) = (&mut entry.returns, &front.returns) {
        let ty = returns.split_once(']').map_or("", |(ty, _)| ty).to_string();
        *returns = format!("{ty}] {text}");
    }
    if let (Some(theirs), Some(ours)) = (&mut entry.parameters, &front.parameters) {
        let lists: Vec<&mut Labels> = match theirs {
            OneOrMany::One(one) => vec![one],
            OneOrMany::Many(many) => many.iter_mut().collect(),
        };
        for (list, translated) in lists.into_iter().zip(ours.iter()) {
            for (label, description) in list.iter_mut() {
                if let Some(text) = translated.get(label) {
                    description.clone_from(text);
                }
            }
        }
    }
    entry.description = description.plain();
    entry.description_md = description;
    if body.note.is_some() && entry.note_md.is_some() {
        entry.note = body.note.as_ref().map(Paragraph::with_code_tags);
        entry.note_md = body.note;
    }
    Some(entry)
}

/// Check `text`, the translated method file `file`, against every fact of
/// `original` as it is now: what a translation must pass to be marked.
pub(super) fn check_against(file: &str, text: &str, original: &Entry) -> Vec<ContentError> {
    let mut errors = Vec::new();
    read_method(file, text, original, true, &mut errors);
    errors
}

impl Language {
    /// Check a translation's language file, found in the folder `segment`,
    /// against the source's: the tag's folder, the same places in each label.
    fn check(&self, segment: &str, source: &Language, check: &mut Check) {
        self.check_own(check);
        if self.segment != segment {
            check.fail(
                "tag",
                format!(
                    "`{}` is not the folder's: a language's folder is its tag in lowercase (`{}`)",
                    self.tag, self.segment
                ),
            );
        }
        if self.tag.eq_ignore_ascii_case(&source.tag) {
            check.fail("tag", "is the source's language");
        }
        Chrome::check_places(&self.chrome, &source.chrome, check);
    }
}
