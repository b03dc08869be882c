//! Reading JSON fields with errors that name the file and field: objects,
//! known keys, strings, and the text rules (one line, plain text, only
//! `<code>` tags); and the catalog's HTTP date.

use super::{fail, ContentError};
use serde_json::{Map, Value};

pub(super) fn as_object<'v>(
    value: &'v Value,
    file: &str,
    field: &str,
) -> Result<&'v Map<String, Value>, ContentError> {
    value.as_object().ok_or_else(|| ContentError {
        file: file.into(),
        field: field.into(),
        problem: "must be a JSON object".into(),
    })
}

pub(super) fn known_fields(
    object: &Map<String, Value>,
    file: &str,
    known: &[&str],
) -> Result<(), ContentError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => fail(
            file,
            unknown,
            format!("is not a known field (known: {})", known.join(", ")),
        ),
        None => Ok(()),
    }
}

pub(super) fn string(
    object: &Map<String, Value>,
    file: &str,
    field: &str,
) -> Result<String, ContentError> {
    optional_string(object, file, field)?.map_or_else(|| fail(file, field, "is required"), Ok)
}

pub(super) fn optional_string(
    object: &Map<String, Value>,
    file: &str,
    field: &str,
) -> Result<Option<String>, ContentError> {
    match object.get(field) {
        None => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(Value::String(_)) => fail(file, field, "must not be empty"),
        Some(_) => fail(file, field, "must be a string"),
    }
}

pub(super) fn one_line(file: &str, field: &str, text: &str) -> Result<(), ContentError> {
    if text.contains(['\n', '\r']) || text != text.trim() {
        return fail(
            file,
            field,
            "must be one line without leading or trailing spaces",
        );
    }
    Ok(())
}

pub(super) fn plain_text(file: &str, field: &str, text: &str) -> Result<(), ContentError> {
    if text.contains(['<', '>', '`']) {
        return fail(file, field, "must be plain text (no HTML or Markdown)");
    }
    Ok(())
}

/// Notes may use `<code>…</code>` and no other markup.
pub(super) fn only_code_tags(file: &str, field: &str, text: &str) -> Result<(), ContentError> {
    let mut rest = text;
    let mut open = false;
    while let Some(at) = rest.find(['<', '>']) {
        let tail = &rest[at..];
        let tag = if !open && tail.starts_with("<code>") {
            "<code>"
        } else if open && tail.starts_with("</code>") {
            "</code>"
        } else if open && tail.starts_with('>') {
            // `=>` inside code is text, escaped when rendered.
            ">"
        } else {
            return fail(file, field, "may contain only balanced <code>…</code> tags");
        };
        if tag != ">" {
            open = !open;
        }
        rest = &tail[tag.len()..];
    }
    if open {
        return fail(file, field, "has an unclosed <code> tag");
    }
    Ok(())
}

pub(super) fn parse_date(date: &str) -> Option<u64> {
    let time = httpdate::parse_http_date(date).ok()?;
    Some(time.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs())
}
