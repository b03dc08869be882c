//! One method file (`content/methods/<key>.md`): TOML front matter between
//! `+++` lines for the structured fields (key, name, order, group,
//! synonyms, signatures, parameters, return value, lifecycle marks), and a
//! Markdown body for the prose (description, note, examples). Read into an
//! [`Entry`] (`entry.rs`, which holds its fields and their rules), with
//! its place in the catalog and on the homepage; every rule checked, every
//! error of the file reported. The front matter's JSON Schema is
//! generated here from the type.
//!
//! Links between methods, and the methods a lifecycle mark names to use
//! instead, are read here and checked once every file is (`catalog.rs`).

use super::fields::Check;
use super::{body, front_matter, ContentError, ContentErrors, Entry};
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::Schema;
use serde_json::Value;

/// The JSON Schema of the front matter (draft 2020-12), as
/// `content/method.schema.json` holds it.
pub fn front_matter_schema() -> String {
    let generator = SchemaSettings::draft2020_12()
        .with_transform(RecursiveTransform(without_null))
        .into_generator();
    let schema = generator.into_root_schema_for::<Entry>();
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

/// A method read from its file.
#[derive(Debug)]
pub(super) struct Method {
    /// Its file, as errors name it.
    pub(super) file: String,
    pub(super) entry: Entry,
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
    let front = front_matter::read::<Entry>(file, parts.front)
        .map_err(|error| errors.push(error))
        .ok();
    let body = body::read(parts.body, parts.body_line, &mut Check::new(file, errors));
    Some(Method {
        file: file.to_string(),
        entry: front?.with_body(body, &mut Check::new(file, errors)),
    })
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
