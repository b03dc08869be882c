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

    /// A short name for it, in its `ETag`: its media type's subtype
    /// (`html`, `markdown`, `json`).
    pub const fn token(self) -> &'static str {
        MEDIA_TYPES[self as usize].subtype
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
    /// The headers of the answers in each form, in the order of
    /// [`Form::ALL`].
    pub headers: [Headers; 3],
    /// The headers of a `303` to a method's page (but `Location`).
    #[serde(with = "map")]
    pub see_other: HeaderMap,
    /// Each method, in catalog order.
    pub methods: Vec<Method>,
    /// The line that says why a method matched.
    pub why: Why,
    /// What a static host serves at this language's search address instead
    /// (`/en/search`, `refserve export`):
    /// a page that says search needs the server, and links the index. One
    /// of the table's stored resources (`Table::stored`), never routed to.
    pub exported: Resource,
}

impl SearchPage {
    /// A fingerprint of what the answers are made from — each method, the
    /// line that says why it matched, each layout's text — and of no
    /// header: it changes when an answer's bytes may, and not with the
    /// build's name (`refserve manifest`).
    pub fn fingerprint(&self) -> u64 {
        let text = |layout| postcard::to_allocvec(layout).expect("pieces serialise");
        let answers = postcard::to_allocvec(&(&self.methods, &self.why))
            .expect("the methods and the line that says why serialise");
        crate::headers::fingerprint(&[&answers, &text(&self.html), &text(&self.markdown)])
    }
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

/// A piece of a text cut where the holes are: its bytes, borrowed from the
/// stored table when read back. A fixed number of pieces is an array,
/// stored without a count, so it is always read back whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent, bound(deserialize = "'de: 'static"))]
pub struct Piece(#[serde(with = "body")] pub Bytes);

impl std::ops::Deref for Piece {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// One text form (HTML or Markdown): its fixed texts, each cut where a
/// hole is.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Layout {
    /// From the start to the results, cut wherever the query goes (the
    /// page's title and its search box; none in Markdown).
    pub top: Vec<Piece>,
    /// Some methods found: before the query, between it and the number
    /// found, and from that number to the first method.
    pub found: [Piece; 3],
    /// After the last method found.
    pub found_end: Piece,
    /// Nothing found: before the query and after it.
    pub nothing: [Piece; 2],
    /// The names closest to the query's words: before the first, between
    /// two, after the last.
    pub suggestions: [Piece; 3],
    /// After nothing was found (and the suggestions): how search reads a
    /// query, and every method.
    pub every_method: Piece,
    /// From the end of the results to the end.
    pub end: Piece,
}

/// The line that says why a method matched, in the page's language, cut
/// where the server writes a query's words and where they were found:
/// "Matched “rows” in its description; “selct” (read as “select”) in its
/// name." Plain text: each form escapes it as it escapes the query.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Why {
    /// Before the first word: `Matched `.
    pub start: Piece,
    /// A word found as it is: before it, between it and where, after.
    pub found: [Piece; 3],
    /// A word read as another (a typo): before it, between it and the word
    /// read, between that and where, after.
    pub read_as: [Piece; 4],
    /// Between two words: `; `.
    pub separator: Piece,
    /// After the last: `.`.
    pub end: Piece,
    /// Where a word was found, in the order of `search::Field::ALL`
    /// (`its name`).
    pub fields: Vec<Piece>,
}

/// One method, as the answers show it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Method {
    /// In the results page: its list item before the line that says why it
    /// matched, and after.
    pub html: [Piece; 2],
    /// In the Markdown results: its list item (after the number) before
    /// that line, and after.
    pub markdown: [Piece; 2],
    /// A link to its page, in HTML and in Markdown.
    pub links: [Piece; 2],
    /// Its members in the JSON answer (`key`, `name`, `description`,
    /// `signature`, `documentation_url`, …); the server adds `why`.
    #[serde(with = "json_text")]
    pub json: Members,
    /// Its page, as `Location` of a `303`.
    #[serde(with = "value")]
    pub location: HeaderValue,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_is_named_in_its_etag_by_its_subtype() {
        assert_eq!(Form::ALL.map(Form::token), ["html", "markdown", "json"]);
    }

    #[test]
    fn pieces_are_read_back_borrowed_and_only_in_their_number() {
        let two = [&b"before"[..], b"after"].map(|p| Piece(Bytes::from_static(p)));
        let bytes: &'static [u8] = postcard::to_allocvec(&two).expect("pieces store").leak();
        let read: [Piece; 2] = postcard::from_bytes(bytes).expect("two pieces read back");
        assert_eq!(read, two);
        let stored_range = bytes.as_ptr_range();
        for piece in &read {
            assert!(stored_range.contains(&piece.as_ptr()), "a copy: {piece:?}");
        }
        let three = postcard::from_bytes::<[Piece; 3]>(bytes);
        assert!(three.is_err(), "{three:?}");
    }
}
