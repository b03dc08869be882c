//! `content/search.json`: words an agent may search with that the entries
//! do not use, each with the methods it should find.

use super::fields::{as_object, known_fields, one_line, plain_text, string};
use super::{fail, ContentError, Entry, Search, Synonym};
use serde_json::Value;

pub(super) fn parse_search(
    file: &str,
    value: &Value,
    entries: &[Entry],
) -> Result<Search, ContentError> {
    let object = as_object(value, file, "")?;
    known_fields(object, file, &["about", "synonyms"])?;
    string(object, file, "about")?;
    let Some(Value::Array(list)) = object.get("synonyms") else {
        return fail(file, "synonyms", "must be an array of {words, keys}");
    };
    let mut synonyms = Vec::with_capacity(list.len());
    for (i, synonym) in list.iter().enumerate() {
        let field = format!("synonyms[{i}]");
        let at = |e: ContentError| ContentError {
            field: format!("{field}.{}", e.field),
            ..e
        };
        let synonym = as_object(synonym, file, &field)?;
        known_fields(synonym, file, &["words", "keys"]).map_err(at)?;
        let words = string(synonym, file, "words").map_err(at)?;
        one_line(file, &format!("{field}.words"), &words)?;
        plain_text(file, &format!("{field}.words"), &words)?;
        if crate::search::terms(&words).is_empty() {
            return fail(
                file,
                &format!("{field}.words"),
                "holds no word to search with (only stop words?)",
            );
        }
        let Some(Value::Array(keys)) = synonym.get("keys") else {
            return fail(
                file,
                &format!("{field}.keys"),
                "must be an array of entry keys",
            );
        };
        if keys.is_empty() {
            return fail(file, &format!("{field}.keys"), "must name a method");
        }
        let mut found = Vec::with_capacity(keys.len());
        for (j, key) in keys.iter().enumerate() {
            let Some(entry) = key
                .as_str()
                .and_then(|k| entries.iter().find(|e| e.key == k))
            else {
                return fail(
                    file,
                    &format!("{field}.keys[{j}]"),
                    format!("{key} is not a key of content/catalog.json"),
                );
            };
            found.push(entry.key.clone());
        }
        synonyms.push(Synonym { words, keys: found });
    }
    Ok(Search { synonyms })
}
