//! The shape the derives do not give: a field written as one value or as
//! an array of them ([`OneOrMany`]), as a signature or a parameter list is.

use indexmap::IndexMap;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

/// A field written as one value or as an array of them: a signature or a
/// list of them, a parameter object or a list of them. Which it was is
/// kept: the entry's rules depend on it. Read, it is a slice of them.
#[derive(Debug, Clone)]
pub enum OneOrMany<T> {
    /// One value, as it stands.
    One(T),
    /// An array.
    Many(Vec<T>),
}

impl<T> Deref for OneOrMany<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            OneOrMany::One(one) => std::slice::from_ref(one),
            OneOrMany::Many(many) => many,
        }
    }
}

impl<T> OneOrMany<T> {
    /// Each value with its field as errors name it: `name` alone, `name[i]`
    /// among several.
    pub(super) fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = (String, &'a T)> {
        let field = move |i| match self.len() {
            1 => name.to_string(),
            _ => format!("{name}[{i}]"),
        };
        self.iter()
            .enumerate()
            .map(move |(i, value)| (field(i), value))
    }
}

impl<'a, T> IntoIterator for &'a OneOrMany<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// What a [`OneOrMany`] of `Self` is, for the message of a value that is
/// neither.
pub trait Expecting {
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
