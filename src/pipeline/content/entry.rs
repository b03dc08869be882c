//! One entry file (`content/entries/<key>.json`): its shape, and its rules —
//! signatures that name the method, parameter lists that describe them,
//! examples that call it.

use super::fields::Check;
use super::json::from_json;
use super::shape::OneOrMany;
use super::{ContentErrors, Entry, Example};
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// An entry file as written: a signature or a list of them, and a
/// parameter object or a list of them, as the entry's rules need to know.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EntryFile {
    key: String,
    name: String,
    description: String,
    signature: OneOrMany<String>,
    parameters: Option<OneOrMany<Labels>>,
    returns: Option<String>,
    note: Option<String>,
    examples: Option<Vec<Example>>,
}

/// A parameter list: each label (`table [string]`) with its description,
/// in the order of the file.
type Labels = IndexMap<String, String>;

/// Read and validate one entry file, given as JSON.
pub fn parse_entry(file: &str, value: &Value) -> Result<Entry, ContentErrors> {
    let entry: EntryFile = from_json(file, value)?;
    let mut errors = Vec::new();
    let entry = entry.check(&mut Check::new(file, &mut errors));
    if errors.is_empty() {
        Ok(entry)
    } else {
        Err(ContentErrors(errors))
    }
}

impl EntryFile {
    /// The entry, its every rule checked; what breaks one is added to `check`.
    pub(super) fn check(self, check: &mut Check) -> Entry {
        let EntryFile {
            key,
            name,
            description,
            signature,
            parameters,
            returns,
            note,
            examples,
        } = self;
        if check.filled("key", &key) && !is_key(&key) {
            check.fail("key", format!("`{key}` does not match ^[a-z]+$"));
        }
        if check.filled("name", &name) && name != key {
            check.fail("name", format!("`{name}` must equal the key `{key}`"));
        }
        check.plain_line("description", &description);
        let signatures = match signature {
            OneOrMany::One(signature) => vec![signature],
            OneOrMany::Many(forms) => {
                if forms.len() < 2 {
                    check.fail(
                        "signature",
                        "an array needs two or more call forms; write one form as a string",
                    );
                }
                forms
            }
        };
        for (i, signature) in signatures.iter().enumerate() {
            let field = match signatures.len() {
                1 => "signature".to_string(),
                _ => format!("signature[{i}]"),
            };
            check_signature(check, &field, signature, &key);
        }
        let parameters = check_parameters(check, parameters, &signatures);
        if let Some(returns) = &returns {
            let typed = returns.strip_prefix('[').and_then(|r| r.split_once(']'));
            if check.line("returns", returns) && !typed.is_some_and(|(ty, _)| is_type(ty)) {
                check.fail(
                    "returns",
                    format!(
                        "`{returns}` must start with the type in square brackets, like `[array] …`"
                    ),
                );
            }
        }
        if let Some(note) = &note {
            if check.line("note", note) {
                check.only_code_tags("note", note);
            }
        }
        let examples = check_examples(check, examples, &key, &signatures);
        Entry {
            key,
            name,
            description,
            signatures,
            parameters,
            returns,
            note,
            examples,
        }
    }
}

/// `parameters`: absent only when no signature has any; an object for a
/// single signature, else an array of one object per signature.
fn check_parameters(
    check: &mut Check,
    parameters: Option<OneOrMany<Labels>>,
    signatures: &[String],
) -> Option<Vec<Vec<(String, String)>>> {
    let field = "parameters";
    match parameters {
        None => {
            let with = signatures.iter().find(|s| !signature_params(s).is_empty());
            if let Some(signature) = with {
                check.fail(
                    field,
                    format!("is required: signature `{signature}` has parameters"),
                );
            }
            None
        }
        Some(OneOrMany::One(labels)) => match signatures {
            [signature] => Some(vec![check_labels(check, field, labels, signature)]),
            _ => {
                check.fail(
                    field,
                    format!(
                        "must be an array of {} objects, one per signature",
                        signatures.len()
                    ),
                );
                None
            }
        },
        Some(OneOrMany::Many(_)) if signatures.len() == 1 => {
            check.fail(field, "must be an object: the entry has a single signature");
            None
        }
        Some(OneOrMany::Many(lists)) if lists.len() != signatures.len() => {
            check.fail(
                field,
                format!(
                    "has {} objects for {} signatures; give one per signature",
                    lists.len(),
                    signatures.len()
                ),
            );
            None
        }
        Some(OneOrMany::Many(lists)) => Some(
            lists
                .into_iter()
                .zip(signatures)
                .enumerate()
                .map(|(i, (labels, signature))| {
                    check_labels(check, &format!("{field}[{i}]"), labels, signature)
                })
                .collect(),
        ),
    }
}

/// `examples`: at least one, each a titled snippet that calls the method
/// the way its signatures do (`$database->key(` or `Class::key(`).
fn check_examples(
    check: &mut Check,
    examples: Option<Vec<Example>>,
    key: &str,
    signatures: &[String],
) -> Vec<Example> {
    let Some(examples) = examples else {
        check.fail(
            "examples",
            "is required: every method needs at least one example",
        );
        return Vec::new();
    };
    if examples.is_empty() {
        check.fail("examples", "must be a non-empty array of {title, code}");
    }
    let call = match signatures.first().and_then(|s| s.split_once("::")) {
        Some((class, _)) => format!("{class}::{key}("),
        None => format!("->{key}("),
    };
    for (i, Example { title, code }) in examples.iter().enumerate() {
        check.plain_line(&format!("examples[{i}].title"), title);
        let field = format!("examples[{i}].code");
        if !check.filled(&field, code) {
            continue;
        }
        if code.contains('\t') || code.lines().any(|l| l != l.trim_end()) {
            check.fail(&field, "must have no tabs or trailing spaces");
        }
        if code.starts_with("<?") {
            check.fail(&field, "must not open with <?php");
        }
        if !code.contains(&call) {
            check.fail(&field, format!("must call the method: `{call}`"));
        }
    }
    examples
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
fn check_labels(
    check: &mut Check,
    field: &str,
    labels: Labels,
    signature: &str,
) -> Vec<(String, String)> {
    let expected = signature_params(signature);
    let mut named = Vec::with_capacity(labels.len());
    for (label, description) in &labels {
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
    labels.into_iter().collect()
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

/// `^[a-z]+$`.
pub fn is_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase())
}
