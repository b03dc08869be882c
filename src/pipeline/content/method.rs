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
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;

/// The front matter of a method file (`content/methods/<key>.md`): the TOML
/// between its two `+++` lines. Its JSON Schema, for editors and tools
/// (`content/method.schema.json`), is generated from this type, with these
/// comments as its descriptions. The build checks more than the schema
/// says: the key is the file's name, every signature names the method, the
/// parameter labels describe the signature's $parameters in order, the
/// group is one of content/site.json's, the marks are dated in the order
/// since, deprecated, removed, and a mark's use names a method that is not
/// removed.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "Front matter of a method file (content/methods/<key>.md)",
    extend("$id" = "method.schema.json")
)]
struct FrontMatter {
    /// The method's key: the file's name without .md, and {name} in
    /// /api/reference/{name}.json.
    #[schemars(regex(pattern = KEY))]
    key: String,
    /// The method's name, equal to the key.
    #[schemars(regex(pattern = KEY))]
    name: String,
    /// The method's place in the catalog: lighter first, equal weights by key.
    weight: u32,
    /// The method's group on the homepage and its place in it.
    group: Membership,
    /// Words an agent may search with that the method's own text does not
    /// use, each given once.
    #[serde(default)]
    #[schemars(inner(regex(pattern = LINE)), extend("uniqueItems" = true))]
    synonyms: Vec<String>,
    /// One call form, or two or more for an overloaded method: key($a, $b),
    /// or Class::key($a) for a static form.
    #[schemars(schema_with = "signature_schema")]
    signature: OneOrMany<String>,
    /// The parameters: one table for a single signature, one table per
    /// signature (in the same order) for several. Absent only when no
    /// signature has parameters.
    #[serde(default)]
    #[schemars(schema_with = "parameters_schema")]
    parameters: Option<OneOrMany<Labels>>,
    /// The return value, starting with its type in square brackets: [array]
    /// The rows.
    #[schemars(regex(pattern = RETURNS))]
    returns: Option<String>,
    /// Optional: the version of the library the method came in, and its
    /// date: { version = "1.2", date = 2025-03-01 }.
    since: Option<Since>,
    /// Optional: the version the method was deprecated in, its date, and the
    /// method to use instead, if any: { version = "2.0", date = 2026-11-01,
    /// use = "select" }. The method stays in every list, marked.
    deprecated: Option<Ending>,
    /// Optional: the version the method was removed in, its date, and its
    /// successor, if any: { version = "3.0", date = 2026-11-20, use =
    /// "select" }. The method leaves every list; its page answers 410 Gone
    /// and its JSON document 404, naming the successor.
    removed: Option<Ending>,
}

/// A method's key (`entry::is_key`).
pub(super) const KEY: &str = "^[a-z]+$";
/// One line of plain text (`fields::Check::plain_line`).
const LINE: &str = r"^[^\s<>`]([^\n\r<>`]*[^\s<>`])?$";
/// A call form (`entry::check_signature`).
const SIGNATURE: &str = r"^([A-Za-z_][A-Za-z0-9_]*::)?[a-z]+\((\$[A-Za-z_][A-Za-z0-9_]*(\s*,\s*\$[A-Za-z_][A-Za-z0-9_]*)*)?\)$";
/// A parameter's label (`entry::label_name`).
const LABEL: &str = r"^[a-z][a-z0-9_]* \[[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\]( \(optional\))?$";
/// A return value (`entry::check_returns`).
const RETURNS: &str = r"^\[[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\] ?[^\n]*$";

/// `item`, or an array of two or more of them (`shape::OneOrMany`).
fn one_or_more(item: Schema) -> Schema {
    json_schema!({
        "oneOf": [item, { "type": "array", "items": item, "minItems": 2 }]
    })
}

/// The schema of `signature`.
fn signature_schema(_: &mut SchemaGenerator) -> Schema {
    one_or_more(json_schema!({ "type": "string", "pattern": SIGNATURE }))
}

/// The schema of `parameters`.
fn parameters_schema(_: &mut SchemaGenerator) -> Schema {
    one_or_more(json_schema!({
        "description": "Each $parameter of the signature, in its order, as a label <name> [<type>], optionally followed by (optional), with its description.",
        "type": "object",
        "propertyNames": { "pattern": LABEL },
        "additionalProperties": { "type": "string", "pattern": LINE }
    }))
}

/// The JSON Schema of the front matter (draft 2020-12), as
/// `content/method.schema.json` holds it.
pub fn front_matter_schema() -> String {
    let generator = SchemaSettings::draft2020_12()
        .with_transform(RecursiveTransform(without_null))
        .into_generator();
    let schema = generator.into_root_schema_for::<FrontMatter>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// `schema` without the `null` an `Option` adds: TOML has no null, a
/// front matter leaves the field out.
fn without_null(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            object.insert("type".into(), only);
        }
    }
    let nullable = match object.get("anyOf") {
        Some(Value::Array(any)) => match any.as_slice() {
            [some, null] if null.get("type").is_some_and(|t| t == "null") => {
                some.as_object().cloned()
            }
            _ => None,
        },
        _ => None,
    };
    if let Some(some) = nullable {
        object.remove("anyOf");
        object.extend(some);
    }
}

/// A method's group on the homepage and its place in it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a table like { name = \"Queries\", weight = 10 }"
)]
pub(super) struct Membership {
    /// The name of one of the groups of content/site.json.
    #[schemars(length(min = 1))]
    pub(super) name: String,
    /// The method's place in its group: lighter first, equal weights by key.
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

#[cfg(test)]
mod tests {
    use super::front_matter_schema;

    /// The checked-in schema is the type's; `REFSERVE_WRITE_SCHEMA=1`
    /// writes it anew.
    #[test]
    fn the_checked_in_schema_is_the_front_matter_s() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../content/method.schema.json"
        );
        let generated = front_matter_schema();
        if std::env::var_os("REFSERVE_WRITE_SCHEMA").is_some() {
            std::fs::write(path, &generated).expect("written");
        }
        let checked_in = std::fs::read_to_string(path).expect("content/method.schema.json");
        assert!(
            checked_in == generated,
            "content/method.schema.json differs from the front matter's type: \
             run `REFSERVE_WRITE_SCHEMA=1 cargo test -p refserve-pipeline schema`"
        );
    }
}
