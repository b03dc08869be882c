//! The rules of a method's fields that their types do not say: a key and
//! name that agree, signatures that name the method, parameter lists that
//! describe them, a typed return value, and examples that call it
//! (`php.rs` parses them). `method.rs` reads a method file and checks it
//! with these.

use super::body;
use super::fields::Check;
use super::php::Calls;
use super::shape::OneOrMany;
use super::Example;
use indexmap::IndexMap;

/// A parameter list: each label (`table [string]`) with its description,
/// in the order of the file.
pub(super) type Labels = IndexMap<String, String>;

/// `key` is `^[a-z]+$`, and `name` is the same.
pub(super) fn check_key_and_name(check: &mut Check, key: &str, name: &str) {
    if check.filled("key", key) && !is_key(key) {
        check.fail("key", format!("`{key}` does not match ^[a-z]+$"));
    }
    if check.filled("name", name) && name != key {
        check.fail("name", format!("`{name}` must equal the key `{key}`"));
    }
}

/// The call forms of `signature`: a string for one, an array of two or
/// more; each names the method `key`.
pub(super) fn check_signatures(
    check: &mut Check,
    signature: OneOrMany<String>,
    key: &str,
) -> Vec<String> {
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
        check_signature(check, &field, signature, key);
    }
    signatures
}

/// `returns`, if given: one line that starts with `[type]`.
pub(super) fn check_returns(check: &mut Check, returns: Option<&str>) {
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
/// single signature, else an array of one object per signature.
pub(super) fn check_parameters(
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

/// The examples of the body, each a titled snippet of PHP that calls the
/// method as its signatures do (`php.rs`); the body has said already what
/// is missing (a title, a block).
pub(super) fn check_examples(
    check: &mut Check,
    examples: Vec<body::Example>,
    key: &str,
    signatures: &[String],
    parameters: Option<&[Vec<(String, String)>]>,
) -> Vec<Example> {
    let calls = Calls::new(key, signatures, parameters);
    let mut checked = Vec::with_capacity(examples.len());
    for (i, example) in examples.into_iter().enumerate() {
        let field = example.field(i);
        let Some((code, at)) = example.code else {
            continue;
        };
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
        checked.push(Example {
            title: example.title,
            code,
        });
    }
    checked
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
pub(crate) fn is_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase())
}
