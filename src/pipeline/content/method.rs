//! One method file (`content/methods/<key>.md`): TOML front matter between
//! `+++` lines for the structured fields (key, name, order, group,
//! synonyms, signatures, parameters, return value, lifecycle marks), and a
//! Markdown body for the prose (description, note, examples). Read into an
//! [`Entry`] (`entry.rs`, which holds its fields and their rules), with
//! its place in the catalog and on the homepage; every rule checked, every
//! error of the file reported. The front matter's JSON Schema is
//! generated here from the type.
//!
//! The file is cut in two at its `+++` lines, as Zola writes a page; the
//! front matter is read into the type, a value of the wrong shape being an
//! error that names its field's path and its line in the file.
//!
//! Links between methods, and the methods a lifecycle mark names to use
//! instead, are read here and checked once every file is (`catalog.rs`).

use super::fields::Check;
use super::{body, fail, noted, ContentError, ContentErrors, Entry};
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::Schema;
use serde::de::DeserializeOwned;
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
    let parts = noted(split(file, text), errors)?;
    // The body is read even when the front matter cannot be: every error
    // of the file at once.
    let front = noted(read_front::<Entry>(file, parts.front), errors);
    let body = body::read(parts.body, parts.body_line, &mut Check::new(file, errors));
    Some(Method {
        file: file.to_string(),
        entry: front?.with_body(body, &mut Check::new(file, errors)),
    })
}

/// The line that opens and closes the front matter.
const FENCE: &str = "+++";

/// A method file, cut at its `+++` lines.
pub(super) struct Parts<'a> {
    /// The TOML between the two lines.
    pub(super) front: &'a str,
    /// Everything after the closing line.
    pub(super) body: &'a str,
    /// The line of the file the body starts on.
    pub(super) body_line: usize,
}

/// `text`, the whole of `file`, cut into front matter and body.
pub(super) fn split<'a>(file: &str, text: &'a str) -> Result<Parts<'a>, ContentError> {
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next().unwrap_or_default();
    if opening.trim_end() != FENCE {
        return fail(
            file,
            "must open with its front matter: a `+++` line, the TOML fields, a `+++` line",
        );
    }
    let start = opening.len();
    let mut offset = start;
    for (number, line) in lines.enumerate() {
        if line.trim_end() == FENCE {
            return Ok(Parts {
                front: &text[start..offset],
                body: &text[offset + line.len()..],
                // Line 1 opens; this line is `number + 2`; the body follows.
                body_line: number + 3,
            });
        }
        offset += line.len();
    }
    fail(
        file,
        "the front matter opened on line 1 has no closing `+++` line",
    )
}

/// `T` read from `front`, the front matter of `file`; an error names the
/// field whose value does not fit, and where it is in the file.
pub(super) fn read_front<T: DeserializeOwned>(file: &str, front: &str) -> Result<T, ContentError> {
    let document = toml::Deserializer::parse(front).map_err(|error| {
        let at = position(front, error.span());
        let problem = error.message().trim_end();
        ContentError::new(
            file,
            "",
            format!("the front matter is not valid TOML: {problem}{at}"),
        )
    })?;
    serde_path_to_error::deserialize(document).map_err(|error| {
        let path = error.path().to_string();
        let error = error.into_inner();
        let problem = error.message().trim_end();
        ContentError::new(
            file,
            &path,
            format!("{problem}{}", position(front, error.span())),
        )
    })
}

/// ` at line L column C` of the file, for a span of its front matter
/// (which starts on line 2); nothing without a span.
fn position(front: &str, span: Option<std::ops::Range<usize>>) -> String {
    let Some(at) = span.map(|span| span.start.min(front.len())) else {
        return String::new();
    };
    let before = front.get(..at).unwrap_or(front);
    let line = 2 + before.matches('\n').count();
    let column = 1 + before.rsplit('\n').next().unwrap_or("").chars().count();
    format!(" at line {line} column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_file_is_cut_at_its_fences() {
        let parts = split("f.md", "+++\nkey = \"x\"\n+++\n\nText.\n").expect("split");
        assert_eq!(parts.front, "key = \"x\"\n");
        assert_eq!(parts.body, "\nText.\n");
        assert_eq!(parts.body_line, 4);
        let parts = split("f.md", "+++\r\na = 1\r\n+++\r\nBody").expect("CRLF");
        assert_eq!(parts.front, "a = 1\r\n");
        assert_eq!(parts.body, "Body");
    }

    #[test]
    fn a_file_without_front_matter_is_refused() {
        for text in ["", "Text.\n", "---\nkey: x\n---\n", "+++\nkey = 1\n"] {
            let error = split("f.md", text).err().expect(text);
            assert_eq!(error.file, "f.md");
        }
    }

    #[test]
    fn errors_name_the_line_in_the_file() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            a: u32,
        }
        let error = read_front::<T>("f.md", "\na = \"x\"\n").expect_err("a string");
        assert_eq!(error.field, "a");
        assert!(error.problem.ends_with(" at line 3 column 5"), "{error:?}");
        let error = read_front::<T>("f.md", "a = = 1\n").expect_err("not TOML");
        assert!(
            error
                .problem
                .starts_with("the front matter is not valid TOML: "),
            "{error:?}"
        );
        assert!(error.problem.contains(" at line 2 column "), "{error:?}");
    }
}
