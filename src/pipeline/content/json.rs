//! JSON content files (`site.json`, `errors.json`) read
//! into `serde` types: a value of the wrong shape is a [`ContentError`]
//! naming its field's path (`groups[1].name`).

use super::ContentError;
use serde::de::DeserializeOwned;

/// `T` read from the JSON text of `file`: an error names the field whose
/// value does not fit, as a path from the top of the file.
pub(super) fn from_text<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, ContentError> {
    let mut json = serde_json::Deserializer::from_str(text);
    let not_json = |error| ContentError::new(file, "", format!("is not valid JSON: {error}"));
    let value = serde_path_to_error::deserialize(&mut json).map_err(|error| {
        let path = error.path().to_string();
        let error = error.into_inner();
        if error.is_syntax() || error.is_eof() {
            return not_json(error);
        }
        ContentError::new(file, &path, error.to_string())
    })?;
    json.end().map_err(not_json)?;
    Ok(value)
}
