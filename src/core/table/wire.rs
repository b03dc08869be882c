//! The table's stored form: what build.rs writes into `OUT_DIR` and the
//! binary reads back, derived by serde from the types of `table.rs` and
//! encoded with postcard (a compact, stable binary format).
//!
//! Reading borrows: a body, a header value and a header name are slices of
//! the bytes the binary includes, not copies. The http types are stored as
//! their bytes, by the three modules here the derives name ([`body`],
//! [`value`], [`map`]). A table read back is checked for what a request
//! relies on ([`Table::from_static`]).
//!
//! The stored form is the table's length (4 bytes, little-endian), the
//! table, then its bodies, each distinct one once: a variant stores where
//! its body lies among them. Reading the table touches its own bytes and
//! none of the bodies', which the binary's pages hold until a response
//! first sends them; a body served at two addresses is stored once.

use super::{Index, Table};
use crate::errors::ErrorKind;
use crate::negotiate::Coding;
use crate::search::Field;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

thread_local! {
    /// While [`Table::to_bytes`] stores a table: its bodies so far.
    static STORING: RefCell<Option<Bodies>> = const { RefCell::new(None) };
    /// While [`Table::from_static`] reads one: its bodies.
    static READING: Cell<Option<&'static [u8]>> = const { Cell::new(None) };
}

/// The bodies of a table being stored, each distinct one once.
#[derive(Default)]
struct Bodies {
    bytes: Vec<u8>,
    at: HashMap<Bytes, usize>,
}

impl Table {
    /// The table's stored form.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        STORING.with(|storing| storing.replace(Some(Bodies::default())));
        let table = postcard::to_allocvec(self);
        let bodies = STORING.with(|storing| storing.take()).unwrap_or_default();
        let table = table.map_err(|e| format!("storing the table: {e}"))?;
        let length = u32::try_from(table.len()).map_err(|_| "a table over 4 GiB".to_string())?;
        Ok([&length.to_le_bytes()[..], &table, &bodies.bytes].concat())
    }

    /// The table stored in `bytes` (by [`Table::to_bytes`]), borrowing every
    /// body from them, indexed by `paths` (build.rs's perfect hash of its
    /// paths) or, without it, by a hash map made here; or why the bytes are
    /// not a table the server can answer from.
    pub fn from_static(
        bytes: &'static [u8],
        paths: Option<&'static phf::Map<&'static str, u16>>,
    ) -> Result<Table, String> {
        let (length, rest) = bytes
            .split_first_chunk::<4>()
            .ok_or("reading the stored table: no length")?;
        let (table, bodies) = rest
            .split_at_checked(u32::from_le_bytes(*length) as usize)
            .ok_or("reading the stored table: shorter than its length")?;
        READING.with(|reading| reading.set(Some(bodies)));
        let table = postcard::from_bytes::<Table>(table);
        READING.with(|reading| reading.set(None));
        let mut table = table.map_err(|e| format!("reading the stored table: {e}"))?;
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
            for suggesting in bodies.sets().map(|set| &set.suggesting) {
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

/// A body: in a table, where it lies among the table's bodies, read back
/// as a slice of the binary's; alone, its bytes.
pub(crate) mod body {
    use super::*;

    /// Store the bytes among the table's bodies (once) and where they lie,
    /// or else the bytes.
    pub(crate) fn serialize<S: Serializer>(body: &Bytes, serializer: S) -> Result<S::Ok, S::Error> {
        let span = STORING.with(|storing| {
            let mut storing = storing.borrow_mut();
            let bodies = storing.as_mut()?;
            let next = bodies.bytes.len();
            let at = *bodies.at.entry(body.clone()).or_insert_with(|| {
                bodies.bytes.extend_from_slice(body);
                next
            });
            Some((at, body.len()))
        });
        match span {
            Some(span) => span.serialize(serializer),
            None => serializer.serialize_bytes(body),
        }
    }

    /// Borrow the bytes from the table's bodies, or from the stored form.
    pub(crate) fn deserialize<D: Deserializer<'static>>(
        deserializer: D,
    ) -> Result<Bytes, D::Error> {
        let Some(bodies) = READING.with(Cell::get) else {
            return <&'static [u8]>::deserialize(deserializer).map(Bytes::from_static);
        };
        let (at, length) = <(usize, usize)>::deserialize(deserializer)?;
        at.checked_add(length)
            .and_then(|end| bodies.get(at..end))
            .map(Bytes::from_static)
            .ok_or_else(|| D::Error::custom("a body beyond the stored bodies"))
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
