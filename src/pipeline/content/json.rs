//! JSON content files (`site.json`, `errors.json`) read
//! into `serde` types: a value of the wrong shape is a [`ContentError`]
//! naming its field's path (`groups[1].name`).

use super::ContentError;
use serde::de::{self, Deserialize, Deserializer};

/// `T` read from the JSON text of `file`.
pub(super) fn from_text<T: de::DeserializeOwned>(
    file: &str,
    text: &str,
) -> Result<T, ContentError> {
    let mut json = serde_json::Deserializer::from_str(text);
    let value = from_json(file, &mut json)?;
    json.end().map_err(|e| not_json(file, &e))?;
    Ok(value)
}

/// `T` read from `json` (the JSON of `file`): an error names the field
/// whose value does not fit, as a path from the top of the file.
fn from_json<'de, T: Deserialize<'de>>(
    file: &str,
    json: impl Deserializer<'de, Error = serde_json::Error>,
) -> Result<T, ContentError> {
    serde_path_to_error::deserialize(json).map_err(|error| {
        let path = error.path().to_string();
        let error = error.into_inner();
        if error.is_syntax() || error.is_eof() {
            return not_json(file, &error);
        }
        ContentError {
            file: file.to_string(),
            // `.` is the whole file.
            field: if path == "." { String::new() } else { path },
            problem: error.to_string(),
        }
    })
}

fn not_json(file: &str, error: &serde_json::Error) -> ContentError {
    ContentError {
        file: file.to_string(),
        field: String::new(),
        problem: format!("is not valid JSON: {error}"),
    }
}
