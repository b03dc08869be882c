//! A method's [`Entry`]: the fields of its file's front matter, as serde
//! reads them and as its JSON Schema (`content/method.schema.json`,
//! generated from the type, `method.rs`) describes them, then the prose of
//! its body; and beside the type, the rules its fields' types do not say:
//! a key and name that agree, signatures that name the method, parameter
//! lists that describe them, a typed return value, prose that fits the
//! JSON, and examples that call the method (`php.rs` parses them).
//! `method.rs` reads a method file into it.

pub(crate) use crate::address::is_key;

use super::body::{self, Body};
use super::fields::Check;
use super::lifecycle::{self, Mark, Since};
use super::php::Calls;
use super::prose::Paragraph;
use super::shape::OneOrMany;
use indexmap::IndexMap;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;

// One documented method: the front matter of its file, and after the
// front matter's fields the prose of its body, which serde skips.
/// The front matter of a method file (`content/methods/<key>.md`): the TOML
/// between its two `+++` lines. Its JSON Schema, for editors and tools
/// (`content/method.schema.json`), is generated from this type, with these
/// comments as its descriptions. The build checks more than the schema
/// says: the key is the file's name, every signature names the method, the
/// parameter labels describe the signature's $parameters in order, the
/// group is one of content/site.json's, the marks are dated in the order
/// since, deprecated, removed, and a mark's use names a method that is not
/// removed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "Front matter of a method file (content/methods/<key>.md)",
    extend("$id" = "method.schema.json")
)]
pub struct Entry {
    /// The method's key: the file's name without .md, and {name} in
    /// /api/reference/{name}.json.
    #[schemars(regex(pattern = KEY))]
    pub key: String,
    /// The method's name, equal to the key.
    #[schemars(regex(pattern = KEY))]
    pub name: String,
    /// The method's place in the catalog: lighter first, equal weights by key.
    pub weight: u32,
    /// The method's group on the homepage and its place in it.
    pub group: Membership,
    /// Words an agent may search with that the method's own text does not
    /// use, each given once.
    #[serde(default)]
    #[schemars(inner(regex(pattern = LINE)), extend("uniqueItems" = true))]
    pub synonyms: Vec<String>,
    /// One call form, or two or more for an overloaded method: key($a, $b),
    /// or Class::key($a) for a static form.
    #[serde(rename = "signature")]
    #[schemars(schema_with = "signature_schema")]
    pub signatures: OneOrMany<String>,
    /// The parameters: one table for a single signature, one table per
    /// signature (in the same order) for several. Absent only when no
    /// signature has parameters.
    #[serde(default)]
    #[schemars(schema_with = "parameters_schema")]
    pub parameters: Option<OneOrMany<Labels>>,
    /// The return value, starting with its type in square brackets: [array]
    /// The rows.
    #[schemars(regex(pattern = RETURNS))]
    pub returns: Option<String>,
    /// Optional: the version of the library the method came in, and its
    /// date: { version = "1.2", date = 2025-03-01 }.
    #[serde(default, deserialize_with = "lifecycle::since")]
    #[schemars(with = "Option<Since>")]
    pub since: Option<Mark>,
    /// Optional: the version the method was deprecated in, its date, and the
    /// method to use instead, if any: { version = "2.0", date = 2026-11-01,
    /// use = "select" }. The method stays in every list, marked.
    pub deprecated: Option<Mark>,
    /// Optional: the version the method was removed in, its date, and its
    /// successor, if any: { version = "3.0", date = 2026-11-20, use =
    /// "select" }. The method leaves every list; its page answers 410 Gone
    /// and its JSON document 404, naming the successor.
    pub removed: Option<Mark>,
    // The body's, not the front matter's: set by `with_body`.
    /// The first paragraph: one or two sentences on what the method does,
    /// as written (Markdown, for the pages).
    #[serde(skip)]
    pub description_md: Paragraph,
    /// The same, as plain text (the JSON `description`).
    #[serde(skip)]
    pub description: String,
    /// The paragraph under `## Note`, if any, as written.
    #[serde(skip)]
    pub note_md: Option<Paragraph>,
    /// The same, as text with `<code>` tags (the JSON `note`).
    #[serde(skip)]
    pub note: Option<String>,
    /// Short PHP snippets that call the method, each with a title.
    #[serde(skip)]
    pub examples: Vec<Example>,
    /// How its text stands in its catalog's language: the source, a
    /// translation (current or outdated) or the source's, untranslated.
    #[serde(skip)]
    pub translation: super::Status,
}

/// One example of a method's use.
#[derive(Debug, Clone)]
pub struct Example {
    /// One line of plain text saying what the example does.
    pub title: String,
    /// PHP statements (no `<?php` opener) that call the method.
    pub code: String,
}

/// A method's group on the homepage and its place in it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a table like { name = \"Queries\", weight = 10 }"
)]
pub struct Membership {
    /// The name of one of the groups of content/site.json.
    #[schemars(length(min = 1))]
    pub name: String,
    /// The method's place in its group: lighter first, equal weights by key.
    pub weight: u32,
}

/// A parameter list: each label (`table [string]`) with its description,
/// in the order of the file.
pub type Labels = IndexMap<String, String>;

/// A method's key (`is_key`).
pub(super) const KEY: &str = "^[a-z]+$";
/// One line of plain text (`fields::Check::plain_line`).
const LINE: &str = r"^[^\s<>`]([^\n\r<>`]*[^\s<>`])?$";
/// A call form (`check_signature`).
const SIGNATURE: &str = r"^([A-Za-z_][A-Za-z0-9_]*::)?[a-z]+\((\$[A-Za-z_][A-Za-z0-9_]*(\s*,\s*\$[A-Za-z_][A-Za-z0-9_]*)*)?\)$";
/// A parameter's label (`label_name`).
const LABEL: &str = r"^[a-z][a-z0-9_]* \[[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\]( \(optional\))?$";
/// A return value (`check_returns`).
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

impl Entry {
    /// The entry of this front matter and `body`, the body after it, every
    /// rule of their fields checked.
    pub(super) fn with_body(mut self, body: Body, check: &mut Check) -> Entry {
        let key = &self.key;
        if check.filled("key", key) && !is_key(key) {
            check.fail("key", format!("`{key}` does not match ^[a-z]+$"));
        }
        if check.filled("name", &self.name) && self.name != *key {
            let name = &self.name;
            check.fail("name", format!("`{name}` must equal the key `{key}`"));
        }
        check.filled("group.name", &self.group.name);
        check_synonyms(check, &self.synonyms);
        check_signatures(check, &self.signatures, key);
        let lists = check_parameters(check, self.parameters.as_ref(), &self.signatures);
        check_returns(check, self.returns.as_deref());
        self.description_md = body.description.unwrap_or_default();
        self.description = self.description_md.plain();
        // An empty one is missing, which the body has said.
        if !self.description_md.0.is_empty()
            && check.line("description", &self.description)
            && self.description.contains(['<', '>'])
        {
            check.fail(
                "description",
                "holds `<` or `>`, which the JSON `description` may not: \
                 clients may show it as HTML",
            );
        }
        self.note = body.note.as_ref().map(Paragraph::with_code_tags);
        if let (Some(note_md), Some(text)) = (&body.note, &self.note) {
            if check.line("note", text) && !note_md.fits_code_tags() {
                check.fail(
                    "note",
                    "holds `<`, or `>` outside code, which the JSON `note` may not: \
                     it is text with HTML `<code>` tags",
                );
            }
        }
        self.note_md = body.note;
        let calls = Calls::new(&self.key, &self.signatures, lists);
        self.examples = check_examples(check, body.examples, &calls);
        lifecycle::check(check, &self);
        self
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

/// The call forms of `signature`: a string for one, an array of two or
/// more; each names the method `key`.
fn check_signatures(check: &mut Check, signatures: &OneOrMany<String>, key: &str) {
    if let OneOrMany::Many(forms) = signatures {
        if forms.len() < 2 {
            check.fail(
                "signature",
                "an array needs two or more call forms; write one form as a string",
            );
        }
    }
    for (field, signature) in signatures.named("signature") {
        check_signature(check, &field, signature, key);
    }
}

/// `returns`, if given: one line that starts with `[type]`.
fn check_returns(check: &mut Check, returns: Option<&str>) {
    let Some(returns) = returns else {
        return;
    };
    let typed = returns.strip_prefix('[').and_then(|r| r.split_once(']'));
    if check.line("returns", returns) && !typed.is_some_and(|(ty, _)| is_type(ty)) {
        check.fail(
            "returns",
            format!("`{returns}` must start with the type in square brackets, like `[array] …`"),
        );
    }
}

/// `parameters`: absent only when no signature has any; an object for a
/// single signature, else an array of one object per signature. The
/// lists, when there is one per signature.
fn check_parameters<'a>(
    check: &mut Check,
    parameters: Option<&'a OneOrMany<Labels>>,
    signatures: &[String],
) -> Option<&'a [Labels]> {
    let field = "parameters";
    let Some(parameters) = parameters else {
        let with = signatures.iter().find(|s| !signature_params(s).is_empty());
        if let Some(signature) = with {
            check.fail(
                field,
                format!("is required: signature `{signature}` has parameters"),
            );
        }
        return None;
    };
    let count = signatures.len();
    let problem = match parameters {
        OneOrMany::One(_) if count != 1 => {
            format!("must be an array of {count} objects, one per signature")
        }
        OneOrMany::Many(_) if count == 1 => {
            "must be an object: the entry has a single signature".to_string()
        }
        OneOrMany::Many(lists) if lists.len() != count => format!(
            "has {} objects for {count} signatures; give one per signature",
            lists.len()
        ),
        _ => {
            for ((field, labels), signature) in parameters.named(field).zip(signatures) {
                check_labels(check, &field, labels, signature);
            }
            return Some(parameters);
        }
    };
    check.fail(field, problem);
    None
}

/// The examples of the body, each a titled snippet of PHP that calls the
/// method as its signatures do (`calls`); the body has said already what
/// is missing (a title, a block).
fn check_examples(check: &mut Check, examples: Vec<body::Example>, calls: &Calls) -> Vec<Example> {
    let examples = examples.into_iter().enumerate();
    examples
        .filter_map(|(i, example)| {
            let field = body::example_field(&example.title, i);
            let (code, at) = example.code?;
            if check.filled(&field, &code) {
                if code.contains('\t') || code.lines().any(|l| l != l.trim_end()) {
                    check.fail(
                        &field,
                        format!("the code (line {at}) must have no tabs or trailing spaces"),
                    );
                }
                if code.starts_with("<?") {
                    check.fail(
                        &field,
                        format!("the code (line {at}) must not open with <?php"),
                    );
                } else {
                    calls.check(check, &field, &code, at);
                }
            }
            let title = example.title;
            Some(Example { title, code })
        })
        .collect()
}

/// `<name>(<$a>, <$b>)` or `Class::<name>(…)`, naming this entry.
fn check_signature(check: &mut Check, field: &str, signature: &str, key: &str) {
    let call = signature.rsplit("::").next().unwrap_or(signature);
    let well_formed = call
        .strip_prefix(key)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'));
    let Some(arguments) = well_formed else {
        check.fail(field, format!("`{signature}` must read `{key}($a, $b)`"));
        return;
    };
    let arguments: Vec<&str> = arguments
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    if arguments.len() != signature_params(signature).len()
        || arguments.iter().any(|a| !a.starts_with('$'))
    {
        check.fail(
            field,
            format!("`{signature}`: every argument must be a `$name`"),
        );
    }
}

/// The `$names` of a signature, in order, without the `$`.
fn signature_params(signature: &str) -> Vec<&str> {
    signature
        .split('$')
        .skip(1)
        .map(|rest| {
            rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default()
        })
        .collect()
}

/// Labels must be `<name> [<type>]( (optional))?` and describe exactly the
/// `$parameters` of the signature, in order.
fn check_labels(check: &mut Check, field: &str, labels: &Labels, signature: &str) {
    let expected = signature_params(signature);
    let mut named = Vec::with_capacity(labels.len());
    for (label, description) in labels {
        let here = format!("{field}.{label}");
        match label_name(label) {
            None => check.fail(
                &here,
                "the label must read `<name> [<type>]`, optionally followed by ` (optional)`",
            ),
            Some(name) if !expected.contains(&name) => check.fail(
                &here,
                format!("names no `${name}` of signature `{signature}`"),
            ),
            Some(name) => named.push(name),
        }
        if description.trim().is_empty() {
            check.fail(&here, "must describe the parameter");
        } else {
            check.plain_line(&here, description);
        }
    }
    // A label at fault is reported alone, not again as a list out of order.
    if named.len() == labels.len() && named != expected {
        let expected = expected
            .iter()
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        check.fail(
            field,
            format!("must describe {expected} of `{signature}`, in that order"),
        );
    }
}

/// The parameter name of a well-formed label.
fn label_name(label: &str) -> Option<&str> {
    let rest = label.strip_suffix(" (optional)").unwrap_or(label);
    let (name, ty) = rest.split_once(" [")?;
    let ty = ty.strip_suffix(']')?;
    let name_ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    (name_ok && is_type(ty)).then_some(name)
}

/// `type` or `type/type/…`, each a word.
fn is_type(ty: &str) -> bool {
    ty.split('/')
        .all(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}
