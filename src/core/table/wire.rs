//! The table's stored form: what build.rs writes into `OUT_DIR` and the
//! binary reads back, derived by serde from the types of `table.rs` and
//! encoded with postcard (a compact, stable binary format).
//!
//! Reading borrows: a body, a header value and a header name are slices of
//! the bytes the binary includes, not copies. The http types are stored as
//! their bytes, by the three modules here the derives name ([`body`],
//! [`value`], [`map`]). A table read back is checked for what a request
//! relies on ([`Table::from_static`]).

use super::{Index, Table};
use crate::errors::ErrorKind;
use crate::negotiate::Coding;
use crate::search::Field;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serializer};

impl Table {
    /// The table's stored form.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        postcard::to_allocvec(self).map_err(|e| format!("storing the table: {e}"))
    }

    /// The table stored in `bytes` (by [`Table::to_bytes`]), borrowing every
    /// body from them, indexed by `paths` (build.rs's perfect hash of its
    /// paths) or, without it, by a hash map made here; or why the bytes are
    /// not a table the server can answer from.
    pub fn from_static(
        bytes: &'static [u8],
        paths: Option<&'static phf::Map<&'static str, u16>>,
    ) -> Result<Table, String> {
        let mut table: Table =
            postcard::from_bytes(bytes).map_err(|e| format!("reading the stored table: {e}"))?;
        table.check()?;
        table.paths = match paths {
            Some(paths) => Index::Perfect(paths),
            None => Index::of(&table.resources),
        };
        Ok(table)
    }

    /// What the lookups rely on: an error body of every kind, suggestions
    /// for every key or none, an identity body in every representation,
    /// and `/search`'s pieces for every key (the pieces of a cut text are
    /// arrays, each read whole).
    pub fn check(&self) -> Result<(), String> {
        if self.search.len() != self.languages.len() {
            return Err(format!(
                "/search: {} languages for {}",
                self.search.len(),
                self.languages.len()
            ));
        }
        for page in &self.search {
            if page.methods.len() != self.keys.len() || page.why.fields.len() != Field::ALL.len() {
                return Err(format!(
                    "/search: {} methods for {} keys, {} fields for {}",
                    page.methods.len(),
                    self.keys.len(),
                    page.why.fields.len(),
                    Field::ALL.len()
                ));
            }
        }
        if self.errors.len() != ErrorKind::ALL.len() {
            return Err(format!(
                "{} kinds of error bodies, not {}",
                self.errors.len(),
                ErrorKind::ALL.len()
            ));
        }
        for (kind, bodies) in ErrorKind::ALL.iter().zip(&self.errors) {
            if bodies.pages.len() != self.languages.len() {
                return Err(format!(
                    "{}: error pages in {} languages, not {}",
                    kind.code(),
                    bodies.pages.len(),
                    self.languages.len()
                ));
            }
            let suggesting = std::iter::once(&bodies.program_suggesting)
                .chain(bodies.pages.iter().map(|pages| &pages.suggesting));
            for suggesting in suggesting {
                if !suggesting.is_empty() && suggesting.len() != self.keys.len() {
                    return Err(format!(
                        "{}: {} suggestions for {} keys",
                        kind.code(),
                        suggesting.len(),
                        self.keys.len()
                    ));
                }
            }
        }
        for resource in self.stored() {
            let count = resource.representations.len();
            let languages = if resource.negotiates_language {
                self.languages.len()
            } else {
                1
            };
            let sound = count > 0
                && resource.media_types.len() * languages == count
                && resource
                    .representations
                    .iter()
                    .all(|r| r.variants.iter().any(|v| v.coding == Coding::Identity));
            if !sound {
                return Err(format!(
                    "{}: its representations, media types and identity bodies disagree",
                    resource.id
                ));
            }
        }
        Ok(())
    }
}

/// A body: its bytes, read back as a slice of the binary's.
pub(crate) mod body {
    use super::*;

    /// Store the bytes.
    pub(crate) fn serialize<S: Serializer>(body: &Bytes, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(body)
    }

    /// Borrow the bytes.
    pub(crate) fn deserialize<D: Deserializer<'static>>(
        deserializer: D,
    ) -> Result<Bytes, D::Error> {
        <&'static [u8]>::deserialize(deserializer).map(Bytes::from_static)
    }
}

/// A header value: its text, read back without a copy.
pub(crate) mod value {
    use super::*;

    /// Store the text (every value the pipeline writes is visible ASCII).
    pub(crate) fn serialize<S: Serializer>(
        value: &HeaderValue,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let text = value.to_str().map_err(S::Error::custom)?;
        serializer.serialize_str(text)
    }

    /// Borrow the text as a value, checked.
    pub(crate) fn deserialize<D: Deserializer<'static>>(
        deserializer: D,
    ) -> Result<HeaderValue, D::Error> {
        let text = <&'static str>::deserialize(deserializer)?;
        from_static(text).map_err(D::Error::custom)
    }

    pub(super) fn from_static(text: &'static str) -> Result<HeaderValue, String> {
        HeaderValue::from_maybe_shared(Bytes::from_static(text.as_bytes()))
            .map_err(|_| format!("`{text}` is not a header value"))
    }
}

/// A header map: its `(name, value)` pairs in order, read back without a
/// copy; a repeated name keeps every value.
pub(crate) mod map {
    use super::*;

    /// Store the pairs.
    pub(crate) fn serialize<S: Serializer>(
        map: &HeaderMap,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let pairs = map
            .iter()
            .map(|(name, value)| Ok((name.as_str(), value.to_str()?)))
            .collect::<Result<Vec<_>, http::header::ToStrError>>()
            .map_err(S::Error::custom)?;
        serializer.collect_seq(pairs)
    }

    /// Borrow the pairs into a map, checked.
    pub(crate) fn deserialize<D: Deserializer<'static>>(
        deserializer: D,
    ) -> Result<HeaderMap, D::Error> {
        let pairs = <Vec<(&'static str, &'static str)>>::deserialize(deserializer)?;
        let mut map = HeaderMap::with_capacity(pairs.len());
        for (name, text) in pairs {
            // Checked first, then made without a copy of the name.
            HeaderName::from_lowercase(name.as_bytes())
                .map_err(|_| D::Error::custom(format!("`{name}` is not a header name")))?;
            let value = value::from_static(text).map_err(D::Error::custom)?;
            map.append(HeaderName::from_static(name), value);
        }
        Ok(map)
    }
}
