//! One entry file (`content/entries/<key>.json`): its fields, its
//! signatures checked against its parameter lists, its examples.

use super::fields::{
    as_object, known_fields, one_line, only_code_tags, optional_string, plain_text, string,
};
use super::{fail, ContentError, Entry, Example};
use serde_json::{Map, Value};

/// Parse and validate one entry file.
pub fn parse_entry(file: &str, value: &Value) -> Result<Entry, ContentError> {
    let object = as_object(value, file, "")?;
    known_fields(
        object,
        file,
        &[
            "key",
            "name",
            "description",
            "signature",
            "parameters",
            "returns",
            "note",
            "examples",
        ],
    )?;
    let key = string(object, file, "key")?;
    if !is_key(&key) {
        return fail(file, "key", format!("`{key}` does not match ^[a-z]+$"));
    }
    let name = string(object, file, "name")?;
    if name != key {
        return fail(file, "name", format!("`{name}` must equal the key `{key}`"));
    }
    let description = string(object, file, "description")?;
    one_line(file, "description", &description)?;
    plain_text(file, "description", &description)?;
    let signatures = match object.get("signature") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(forms)) if forms.len() >= 2 => forms
            .iter()
            .enumerate()
            .map(|(i, f)| {
                f.as_str().map(str::to_string).ok_or_else(|| ContentError {
                    file: file.into(),
                    field: format!("signature[{i}]"),
                    problem: "must be a string".into(),
                })
            })
            .collect::<Result<_, _>>()?,
        Some(Value::Array(_)) => {
            return fail(
                file,
                "signature",
                "an array needs two or more call forms; write one form as a string",
            )
        }
        Some(_) => return fail(file, "signature", "must be a string or an array of strings"),
        None => return fail(file, "signature", "is required"),
    };
    for (i, signature) in signatures.iter().enumerate() {
        let field = if signatures.len() == 1 {
            "signature".to_string()
        } else {
            format!("signature[{i}]")
        };
        check_signature(file, &field, signature, &key)?;
    }
    let parameters = match object.get("parameters") {
        None => {
            if let Some(i) = signatures
                .iter()
                .position(|s| !signature_params(s).is_empty())
            {
                return fail(
                    file,
                    "parameters",
                    format!("is required: signature `{}` has parameters", signatures[i]),
                );
            }
            None
        }
        Some(Value::Object(labels)) if signatures.len() == 1 => Some(vec![parameter_list(
            file,
            "parameters",
            labels,
            &signatures[0],
        )?]),
        Some(Value::Object(_)) => {
            return fail(
                file,
                "parameters",
                format!(
                    "must be an array of {} objects, one per signature",
                    signatures.len()
                ),
            )
        }
        Some(Value::Array(lists)) if signatures.len() > 1 => {
            if lists.len() != signatures.len() {
                return fail(
                    file,
                    "parameters",
                    format!(
                        "has {} objects for {} signatures; give one per signature",
                        lists.len(),
                        signatures.len()
                    ),
                );
            }
            let mut all = Vec::with_capacity(lists.len());
            for (i, (list, signature)) in lists.iter().zip(&signatures).enumerate() {
                let field = format!("parameters[{i}]");
                all.push(parameter_list(
                    file,
                    &field,
                    as_object(list, file, &field)?,
                    signature,
                )?);
            }
            Some(all)
        }
        Some(Value::Array(_)) => {
            return fail(
                file,
                "parameters",
                "must be an object: the entry has a single signature",
            )
        }
        Some(_) => {
            return fail(
                file,
                "parameters",
                "must be an object or an array of objects",
            )
        }
    };
    let returns = optional_string(object, file, "returns")?;
    if let Some(returns) = &returns {
        one_line(file, "returns", returns)?;
        let typed = returns.strip_prefix('[').and_then(|r| r.split_once(']'));
        match typed {
            Some((ty, _)) if is_type(ty) => {}
            _ => {
                return fail(
                    file,
                    "returns",
                    format!(
                        "`{returns}` must start with the type in square brackets, like `[array] …`"
                    ),
                )
            }
        }
    }
    let note = optional_string(object, file, "note")?;
    if let Some(note) = &note {
        one_line(file, "note", note)?;
        only_code_tags(file, "note", note)?;
    }
    let examples = parse_examples(file, object, &key, &signatures)?;
    Ok(Entry {
        key,
        name,
        description,
        signatures,
        parameters,
        returns,
        note,
        examples,
    })
}

/// `examples`: at least one, each a titled snippet that calls the method
/// the way its signatures do (`$database->key(` or `Class::key(`).
fn parse_examples(
    file: &str,
    object: &Map<String, Value>,
    key: &str,
    signatures: &[String],
) -> Result<Vec<Example>, ContentError> {
    let Some(value) = object.get("examples") else {
        return fail(
            file,
            "examples",
            "is required: every method needs at least one example",
        );
    };
    let Some(items) = value.as_array().filter(|items| !items.is_empty()) else {
        return fail(
            file,
            "examples",
            "must be a non-empty array of {title, code}",
        );
    };
    let call = match signatures[0].split_once("::") {
        Some((class, _)) => format!("{class}::{key}("),
        None => format!("->{key}("),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = format!("examples[{i}]");
            let example = as_object(item, file, &field)?;
            known_fields(example, file, &["title", "code"])?;
            let text = |name: &str| {
                string(example, file, name).map_err(|error| ContentError {
                    field: format!("{field}.{name}"),
                    ..error
                })
            };
            let title = text("title")?;
            one_line(file, &format!("{field}.title"), &title)?;
            plain_text(file, &format!("{field}.title"), &title)?;
            let code = text("code")?;
            if code.contains('\t') || code.lines().any(|l| l != l.trim_end()) {
                return fail(
                    file,
                    &format!("{field}.code"),
                    "must have no tabs or trailing spaces",
                );
            }
            if code.starts_with("<?") {
                return fail(file, &format!("{field}.code"), "must not open with <?php");
            }
            if !code.contains(&call) {
                return fail(
                    file,
                    &format!("{field}.code"),
                    format!("must call the method: `{call}`"),
                );
            }
            Ok(Example { title, code })
        })
        .collect()
}

/// `<name>(<$a>, <$b>)` or `Class::<name>(…)`, naming this entry.
fn check_signature(
    file: &str,
    field: &str,
    signature: &str,
    key: &str,
) -> Result<(), ContentError> {
    let call = signature.rsplit("::").next().unwrap_or(signature);
    let well_formed = call
        .strip_prefix(key)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'));
    let Some(arguments) = well_formed else {
        return fail(
            file,
            field,
            format!("`{signature}` must read `{key}($a, $b)`"),
        );
    };
    let names = signature_params(signature);
    let listed = arguments
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .count();
    if listed != names.len()
        || arguments
            .split(',')
            .map(str::trim)
            .any(|a| !a.is_empty() && !a.starts_with('$'))
    {
        return fail(
            file,
            field,
            format!("`{signature}`: every argument must be a `$name`"),
        );
    }
    Ok(())
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
fn parameter_list(
    file: &str,
    field: &str,
    labels: &Map<String, Value>,
    signature: &str,
) -> Result<Vec<(String, String)>, ContentError> {
    let expected = signature_params(signature);
    let mut list = Vec::with_capacity(labels.len());
    for (label, description) in labels {
        let here = format!("{field}.{label}");
        let Some(name) = label_name(label) else {
            return fail(
                file,
                &here,
                "the label must read `<name> [<type>]`, optionally followed by ` (optional)`",
            );
        };
        if !expected.contains(&name) {
            return fail(
                file,
                &here,
                format!("names no `${name}` of signature `{signature}`"),
            );
        }
        let Some(description) = description.as_str() else {
            return fail(file, &here, "must be a string");
        };
        if description.trim().is_empty() {
            return fail(file, &here, "must describe the parameter");
        }
        one_line(file, &here, description)?;
        plain_text(file, &here, description)?;
        list.push((label.clone(), description.to_string()));
    }
    let names: Vec<&str> = list.iter().filter_map(|(l, _)| label_name(l)).collect();
    if names != expected {
        let expected = expected
            .iter()
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        return fail(
            file,
            field,
            format!("must describe {expected} of `{signature}`, in that order"),
        );
    }
    Ok(list)
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
