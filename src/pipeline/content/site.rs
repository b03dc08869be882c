//! `content/site.json` (the homepage's texts and groups of methods) and
//! `content/errors.json` (the texts of each error code).

use super::fields::{as_object, known_fields, one_line, plain_text, string};
use super::{fail, ContentError, Entry, ErrorText, Group, Site};
use serde_json::Value;

pub(super) fn parse_site(
    file: &str,
    value: &Value,
    entries: &[Entry],
) -> Result<Site, ContentError> {
    let object = as_object(value, file, "")?;
    known_fields(object, file, &["title", "summary", "about", "groups"])?;
    let text = |field: &str| -> Result<String, ContentError> {
        let text = string(object, file, field)?;
        one_line(file, field, &text)?;
        plain_text(file, field, &text)?;
        Ok(text)
    };
    let (title, summary, about) = (text("title")?, text("summary")?, text("about")?);
    let Some(Value::Array(list)) = object.get("groups") else {
        return fail(file, "groups", "must be an array of groups");
    };
    let mut groups = Vec::with_capacity(list.len());
    let mut seen: Vec<&str> = Vec::new();
    for (i, group) in list.iter().enumerate() {
        let field = format!("groups[{i}]");
        let group = as_object(group, file, &field)?;
        known_fields(group, file, &["name", "summary", "keys"]).map_err(|e| ContentError {
            field: format!("{field}.{}", e.field),
            ..e
        })?;
        let name = string(group, file, "name").map_err(|e| ContentError {
            field: format!("{field}.name"),
            ..e
        })?;
        let summary = string(group, file, "summary").map_err(|e| ContentError {
            field: format!("{field}.summary"),
            ..e
        })?;
        let Some(Value::Array(keys)) = group.get("keys") else {
            return fail(
                file,
                &format!("{field}.keys"),
                "must be an array of entry keys",
            );
        };
        let mut group_keys = Vec::with_capacity(keys.len());
        for (j, key) in keys.iter().enumerate() {
            let here = format!("{field}.keys[{j}]");
            let Some(entry) = key
                .as_str()
                .and_then(|k| entries.iter().find(|e| e.key == k))
            else {
                return fail(
                    file,
                    &here,
                    format!("{key} is not a key of content/catalog.json"),
                );
            };
            if seen.contains(&entry.key.as_str()) {
                return fail(
                    file,
                    &here,
                    format!("`{}` is in more than one group", entry.key),
                );
            }
            seen.push(&entry.key);
            group_keys.push(entry.key.clone());
        }
        groups.push(Group {
            name,
            summary,
            keys: group_keys,
        });
    }
    if let Some(missing) = entries.iter().find(|e| !seen.contains(&e.key.as_str())) {
        return fail(
            file,
            "groups",
            format!(
                "`{}` is in no group; every method belongs to one",
                missing.key
            ),
        );
    }
    Ok(Site {
        title,
        summary,
        about,
        groups,
    })
}

pub(super) fn parse_errors(file: &str, value: &Value) -> Result<Vec<ErrorText>, ContentError> {
    let object = as_object(value, file, "")?;
    let mut texts = Vec::with_capacity(object.len());
    for (code, text) in object {
        let text = as_object(text, file, code)?;
        known_fields(text, file, &["message", "hint", "hint_suggesting"]).map_err(|e| {
            ContentError {
                field: format!("{code}.{}", e.field),
                ..e
            }
        })?;
        let field = |name: &str| format!("{code}.{name}");
        let get = |name: &str| -> Result<Option<String>, ContentError> {
            match text.get(name) {
                None => Ok(None),
                Some(Value::String(s)) if !s.trim().is_empty() => {
                    one_line(file, &field(name), s)?;
                    Ok(Some(s.clone()))
                }
                Some(_) => fail(file, &field(name), "must be a non-empty string"),
            }
        };
        let required = |name: &str| {
            get(name)?.ok_or_else(|| ContentError {
                file: file.into(),
                field: field(name),
                problem: "is required".into(),
            })
        };
        let hint_suggesting = get("hint_suggesting")?;
        if hint_suggesting
            .as_ref()
            .is_some_and(|h| !h.contains("{key}"))
        {
            return fail(
                file,
                &field("hint_suggesting"),
                "must contain `{key}` where the suggested key goes",
            );
        }
        texts.push(ErrorText {
            code: code.clone(),
            message: required("message")?,
            hint: required("hint")?,
            hint_suggesting,
        });
    }
    Ok(texts)
}
