//! Content files read into `serde` types: a value of the wrong shape is a
//! [`ContentError`] naming its field's path (`parameters[1].table
//! [string]`); and the shape the derives do not give, one value or an
//! array of them ([`OneOrMany`]).

use super::ContentError;
use indexmap::IndexMap;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

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
pub(super) fn from_json<'de, T: Deserialize<'de>>(
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

/// A field written as one value or as an array of them: a signature or a
/// list of them, a parameter object or a list of them. Which it was is
/// kept: the entry's rules depend on it.
#[derive(Debug)]
pub(super) enum OneOrMany<T> {
    /// One value, as it stands.
    One(T),
    /// An array.
    Many(Vec<T>),
}

/// What a [`OneOrMany`] of `Self` is, for the message of a value that is
/// neither.
pub(super) trait Expecting {
    /// `a string or an array of strings`.
    const EXPECTING: &'static str;
}

impl Expecting for String {
    const EXPECTING: &'static str = "a string or an array of strings";
}

impl<V> Expecting for IndexMap<String, V> {
    const EXPECTING: &'static str = "an object or an array of objects";
}

impl<'de, T: Deserialize<'de> + Expecting> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Expecting> Visitor<'de> for Either<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(T::EXPECTING)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                T::deserialize(text.into_deserializer()).map(OneOrMany::One)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(OneOrMany::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::deserialize(SeqAccessDeserializer::new(seq)).map(OneOrMany::Many)
            }
        }
        deserializer.deserialize_any(Either(PhantomData))
    }
}
