//! `GET /search` as the table stores it: the pieces the pipeline renders
//! at build time (`src/pipeline/render_search.rs`) and the server puts
//! together around a query (`src/server/search_page.rs`), with the limits
//! both follow.
//!
//! An answer is its representation's fixed texts with the holes between
//! them filled: the query (escaped), the number of methods found, and for
//! each method found its stored pieces around the line that says why it
//! matched. The JSON answer is written by serde around each method's
//! stored members. Nothing is rendered at run time; every header but
//! `Content-Length` and `ETag` is stored here too.

use crate::mcp::{json_text, Members};
use crate::media::MediaType;
use crate::table::{body, map, value, Resource};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The one query parameter: the words searched for.
pub const PARAMETER: &str = "q";

/// The longest query answered, in characters (as JSON Schema's `maxLength`
/// counts them), before it is normalised.
pub const MAX_QUERY_CHARS: usize = 200;

/// The representations, in the server's order of preference (the index of
/// each in [`MEDIA_TYPES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The results page, for people.
    Html,
    /// The same as Markdown, for agents.
    Markdown,
    /// `{"data": […], "meta": {…}}`, for programs.
    Json,
}

impl Form {
    /// Every form, in the order of [`MEDIA_TYPES`].
    pub const ALL: [Form; 3] = [Form::Html, Form::Markdown, Form::Json];

    /// A short name for it, in its `ETag`.
    pub const fn token(self) -> &'static str {
        match self {
            Form::Html => "html",
            Form::Markdown => "markdown",
            Form::Json => "json",
        }
    }
}

/// The media types of [`Form::ALL`], in that order.
pub const MEDIA_TYPES: [MediaType; 3] = [MediaType::HTML, MediaType::MARKDOWN, MediaType::JSON];

/// Everything `/search` answers from.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct SearchPage {
    /// The results page.
    pub html: Layout,
    /// The results as Markdown.
    pub markdown: Layout,
    /// The headers of the JSON answer.
    pub json: Headers,
    /// The headers of a `303` to a method's page (but `Location`).
    #[serde(with = "map")]
    pub see_other: HeaderMap,
    /// Each method, in catalog order.
    pub methods: Vec<Method>,
    /// Every method's name, in catalog order, as a JSON array (the JSON
    /// answer's `meta.methods` when nothing matches).
    #[serde(with = "json_text")]
    pub names: Box<RawValue>,
    /// What a static host serves at `/search` instead (`refserve export`):
    /// a page that says search needs the server, and links the index. One
    /// of the table's stored resources (`Table::stored`), never routed to.
    pub exported: Resource,
}

/// The headers of one form's answers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Headers {
    /// Every header of a `200` but `Content-Length` and `ETag`, which the
    /// server adds.
    #[serde(with = "map")]
    pub ok: HeaderMap,
    /// Every header of a `304` but `ETag`.
    #[serde(with = "map")]
    pub not_modified: HeaderMap,
}

/// One text form (HTML or Markdown): its headers and fixed texts, each cut
/// where a hole is.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Layout {
    /// Its headers.
    pub headers: Headers,
    /// From the start to the results, cut wherever the query goes (the
    /// page's title and its search box; none in Markdown).
    #[serde(with = "pieces")]
    pub top: Vec<Bytes>,
    /// Some methods found: before the query, between it and the number
    /// found, and from that number to the first method.
    #[serde(with = "pieces::fixed")]
    pub found: [Bytes; 3],
    /// After the last method found.
    #[serde(with = "body")]
    pub found_end: Bytes,
    /// Nothing found: before the query and after it.
    #[serde(with = "pieces::fixed")]
    pub nothing: [Bytes; 2],
    /// The names closest to the query's words: before the first, between
    /// two, after the last.
    #[serde(with = "pieces::fixed")]
    pub suggestions: [Bytes; 3],
    /// After nothing was found (and the suggestions): how search reads a
    /// query, and every method.
    #[serde(with = "body")]
    pub every_method: Bytes,
    /// From the end of the results to the end.
    #[serde(with = "body")]
    pub end: Bytes,
}

/// One method, as the answers show it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Method {
    /// In the results page: its list item before the line that says why it
    /// matched, and after.
    #[serde(with = "pieces::fixed")]
    pub html: [Bytes; 2],
    /// In the Markdown results: its list item (after the number) before
    /// that line, and after.
    #[serde(with = "pieces::fixed")]
    pub markdown: [Bytes; 2],
    /// A link to its page, in HTML and in Markdown.
    #[serde(with = "pieces::fixed")]
    pub links: [Bytes; 2],
    /// Its members in the JSON answer (`key`, `name`, `description`,
    /// `signature`, `documentation_url`, …); the server adds `why`.
    #[serde(with = "json_text")]
    pub json: Members,
    /// Its page, as `Location` of a `303`.
    #[serde(with = "value")]
    pub location: HeaderValue,
}

/// Pieces of text: each borrowed from the stored table when read back.
mod pieces {
    use super::*;
    use serde::de::Error as _;
    use serde::{Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        pieces: &[Bytes],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(pieces.iter().map(|piece| serde_bytes(piece)))
    }

    pub(crate) fn deserialize<D: Deserializer<'static>>(
        deserializer: D,
    ) -> Result<Vec<Bytes>, D::Error> {
        let pieces = <Vec<&'static [u8]>>::deserialize(deserializer)?;
        Ok(pieces.into_iter().map(Bytes::from_static).collect())
    }

    /// `N` pieces (a text cut at `N - 1` holes), stored as any pieces are;
    /// read back, a count other than `N` is an error.
    pub(crate) mod fixed {
        use super::*;

        pub(crate) use super::serialize;

        pub(crate) fn deserialize<D: Deserializer<'static>, const N: usize>(
            deserializer: D,
        ) -> Result<[Bytes; N], D::Error> {
            let pieces = super::deserialize(deserializer)?;
            let count = pieces.len();
            <[Bytes; N]>::try_from(pieces)
                .map_err(|_| D::Error::custom(format!("{count} pieces of a text cut in {N}")))
        }
    }

    /// A piece as serde's bytes (not a sequence of numbers).
    fn serde_bytes(piece: &[u8]) -> impl Serialize + '_ {
        struct Piece<'a>(&'a [u8]);
        impl Serialize for Piece<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(self.0)
            }
        }
        Piece(piece)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any number of pieces, stored.
    #[derive(Serialize)]
    struct Stored {
        #[serde(with = "pieces")]
        pieces: Vec<Bytes>,
    }

    /// Two pieces, read back.
    #[derive(Debug, Deserialize)]
    #[serde(bound(deserialize = "'de: 'static"))]
    struct Two {
        #[serde(with = "pieces::fixed")]
        pieces: [Bytes; 2],
    }

    fn stored(pieces: &[&'static str]) -> &'static [u8] {
        let pieces = pieces.iter().map(|p| Bytes::from_static(p.as_bytes()));
        let stored = Stored {
            pieces: pieces.collect(),
        };
        postcard::to_allocvec(&stored).expect("pieces store").leak()
    }

    #[test]
    fn fixed_pieces_are_read_back_borrowed_and_only_in_their_number() {
        let bytes = stored(&["before", "after"]);
        let two: Two = postcard::from_bytes(bytes).expect("two pieces read back");
        assert_eq!(two.pieces, [&b"before"[..], &b"after"[..]]);
        let stored_range = bytes.as_ptr_range();
        for piece in &two.pieces {
            assert!(stored_range.contains(&piece.as_ptr()), "a copy: {piece:?}");
        }
        for pieces in [&["one"][..], &["one", "two", "three"]] {
            let read = postcard::from_bytes::<Two>(stored(pieces));
            assert!(read.is_err(), "{pieces:?}: {read:?}");
        }
    }
}
