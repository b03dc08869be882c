//! The request's header fields that negotiation and preconditions read,
//! found in one pass over its headers, and what they decide: the media
//! type `Accept` chooses, the language `Accept-Language` chooses, the weights `Accept-Encoding` gives each coding,
//! the dictionary `Available-Dictionary` names, and what the
//! preconditions decide: `If-Match` fails (412), or `If-None-Match` or
//! `If-Modified-Since` makes an answer fresh (304). The table's routes
//! (`respond.rs`) and `/search` read them alike.
//!
//! One pass costs less than the lookups it replaces (a browser's fourteen
//! headers included): a field on one line, the common case, is read as
//! found, one on several lines from the map again, and a field the request
//! lacks costs no lookup.

use crate::conditional::{self, Precondition};
use crate::negotiate::{
    held_dictionary, negotiate_language, negotiate_media_type, AcceptEncoding, Language, MediaType,
};
use crate::table::{Dictionary, Table};
use http::header::{self, HeaderMap, HeaderName, HeaderValue};

/// `Available-Dictionary` (RFC 9842 §2.2).
const AVAILABLE_DICTIONARY: HeaderName = HeaderName::from_static("available-dictionary");

/// The fields of one request.
pub(crate) struct Fields<'h> {
    headers: &'h HeaderMap,
    accept: Field<'h>,
    accept_encoding: Field<'h>,
    accept_language: Field<'h>,
    if_match: Field<'h>,
    if_none_match: Field<'h>,
    if_modified_since: Field<'h>,
    available_dictionary: Field<'h>,
}

/// What the pass found of one field.
#[derive(Clone, Copy)]
enum Field<'h> {
    Absent,
    /// One line, with this value.
    One(&'h HeaderValue),
    /// Several lines, the first with this value.
    Several(&'h HeaderValue),
}

impl<'h> Fields<'h> {
    /// The fields of `headers`, in one pass.
    pub(crate) fn of(headers: &'h HeaderMap) -> Self {
        let mut fields = Fields {
            headers,
            accept: Field::Absent,
            accept_encoding: Field::Absent,
            accept_language: Field::Absent,
            if_match: Field::Absent,
            if_none_match: Field::Absent,
            if_modified_since: Field::Absent,
            available_dictionary: Field::Absent,
        };
        for (name, value) in headers {
            let field = if name == header::ACCEPT {
                &mut fields.accept
            } else if name == header::ACCEPT_ENCODING {
                &mut fields.accept_encoding
            } else if name == header::ACCEPT_LANGUAGE {
                &mut fields.accept_language
            } else if name == header::IF_MATCH {
                &mut fields.if_match
            } else if name == header::IF_NONE_MATCH {
                &mut fields.if_none_match
            } else if name == header::IF_MODIFIED_SINCE {
                &mut fields.if_modified_since
            } else if name == AVAILABLE_DICTIONARY {
                &mut fields.available_dictionary
            } else {
                continue;
            };
            *field = match *field {
                Field::Absent => Field::One(value),
                Field::One(first) | Field::Several(first) => Field::Several(first),
            };
        }
        fields
    }

    /// Which of `offered` `Accept` chooses, `None` if it takes none.
    pub(crate) fn media_type(&self, offered: &[MediaType]) -> Option<usize> {
        negotiate_media_type(self.lines(self.accept, header::ACCEPT), offered)
    }

    /// Which of `offered` `Accept-Language` chooses (the first when it
    /// chooses none).
    pub(crate) fn language(&self, offered: &[Language]) -> usize {
        negotiate_language(
            self.lines(self.accept_language, header::ACCEPT_LANGUAGE),
            offered,
        )
    }

    /// What `Accept-Encoding` says of each coding.
    pub(crate) fn accept_encoding(&self) -> AcceptEncoding {
        AcceptEncoding::parse(self.lines(self.accept_encoding, header::ACCEPT_ENCODING))
    }

    /// The dictionary of `table` the request says it holds, if any.
    pub(crate) fn held_dictionary<'t>(&self, table: &'t Table) -> Option<&'t Dictionary> {
        let lines = self.lines(self.available_dictionary, AVAILABLE_DICTIONARY);
        let hashes = table.dictionaries.iter().map(|d| &d.hash);
        held_dictionary(lines, hashes).map(|i| &table.dictionaries[i])
    }

    /// What the preconditions decide for an answer that would be 200 with
    /// the variant tagged `etag`, in the order of RFC 9110 §13.2.2:
    /// `If-Match` when present (412 unless it matches), then freshness.
    pub(crate) fn precondition(&self, etag: &[u8], last_modified_unix: u64) -> Precondition {
        let proceeds = matches!(self.if_match, Field::Absent)
            || conditional::strong_match(self.lines(self.if_match, header::IF_MATCH), etag);
        if !proceeds {
            Precondition::Failed
        } else if self.is_fresh(etag, last_modified_unix) {
            Precondition::NotModified
        } else {
            Precondition::Send
        }
    }

    /// Whether the client's copy, tagged `etag`, is current (RFC 9110
    /// §13.2.2): `If-None-Match` decides when present; otherwise
    /// `If-Modified-Since` (its first line) against `last_modified_unix`.
    fn is_fresh(&self, etag: &[u8], last_modified_unix: u64) -> bool {
        match (self.if_none_match, self.if_modified_since) {
            (Field::One(_) | Field::Several(_), _) => {
                let lines = self.lines(self.if_none_match, header::IF_NONE_MATCH);
                conditional::none_match(lines, etag)
            }
            (Field::Absent, Field::One(since) | Field::Several(since)) => {
                conditional::not_modified_since(since.as_bytes(), last_modified_unix)
            }
            (Field::Absent, Field::Absent) => false,
        }
    }

    /// The values of the lines of `field`, named `name`: none, the one
    /// found, or every line from the map.
    fn lines(&self, field: Field<'h>, name: HeaderName) -> Lines<'h> {
        match field {
            Field::Absent => Lines::One(None),
            Field::One(value) => Lines::One(Some(value)),
            Field::Several(_) => Lines::Several(self.headers.get_all(name).iter()),
        }
    }
}

/// The values of a field's lines ([`Fields::lines`]): a plain enum, not a
/// chain of adapters, because every request reads two.
enum Lines<'h> {
    One(Option<&'h HeaderValue>),
    Several(header::ValueIter<'h, HeaderValue>),
}

impl<'h> Iterator for Lines<'h> {
    type Item = &'h [u8];

    fn next(&mut self) -> Option<&'h [u8]> {
        match self {
            Lines::One(value) => value.take(),
            Lines::Several(values) => values.next(),
        }
        .map(HeaderValue::as_bytes)
    }
}
