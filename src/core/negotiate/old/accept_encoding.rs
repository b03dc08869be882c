//! `Accept-Encoding` (RFC 9110 §12.5.3): which content coding a response
//! is sent in.

use super::super::Coding;
use super::list::{members, trim_trailing_ows, Cursor};
use super::{best, eq_folded, first_bit, parse_quality, Quality, DEFAULT_QUALITY};

/// The weight given to `identity` when `Accept-Encoding` neither names it nor
/// has `*`: still acceptable (§12.5.3), but any coding the client named wins.
const IMPLICIT_IDENTITY: Quality = 1;

/// Choose the content coding for a response (RFC 9110 §12.5.3).
///
/// `fields` are the values of the request's `Accept-Encoding` lines (none
/// when the header is absent); `offered` lists the codings available, in the
/// server's order of preference (smallest body first), and must include
/// [`Coding::Identity`].
///
/// Each offer gets the weight [`AcceptEncoding::quality`] gives it, and
/// [`best`] chooses: the highest weight wins, ties go to the earlier offer,
/// and `None` means none is acceptable.
pub fn negotiate_encoding<'a>(
    fields: impl IntoIterator<Item = &'a [u8]>,
    offered: impl IntoIterator<Item = Coding>,
) -> Option<usize> {
    let accepted = AcceptEncoding::parse(fields);
    best(offered.into_iter().map(|coding| accepted.quality(coding)))
}

/// What a request's `Accept-Encoding` says of each coding we serve: read
/// once by [`AcceptEncoding::parse`], then asked per coding by
/// [`AcceptEncoding::quality`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcceptEncoding {
    /// Whether the request has the header at all.
    present: bool,
    /// Per coding, by [`Coding::index`]: the weight of the first member
    /// naming it.
    named: [Option<Quality>; Coding::ALL.len()],
    /// The weight of the first `*`.
    star: Option<Quality>,
}

impl AcceptEncoding {
    /// Read the values of the request's `Accept-Encoding` lines (none when
    /// the header is absent). Malformed members (a bad token, a bad or
    /// repeated weight, any other parameter) are ignored.
    pub fn parse<F>(fields: F) -> Self
    where
        F: IntoIterator,
        F::Item: AsRef<[u8]>,
    {
        let mut accepted = AcceptEncoding {
            present: false,
            named: [None; Coding::ALL.len()],
            star: None,
        };
        for field in fields {
            accepted.present = true;
            for member in members(field.as_ref()) {
                // A member whose first byte starts no coding we serve (nor
                // `*`) is passed over: `zstd`. (`deflate` begins as `dcb`
                // does, and is read in full.)
                if member
                    .first()
                    .is_none_or(|&b| CODING_FIRSTS & first_bit(b) == 0)
                {
                    continue;
                }
                // Most members are a bare token; only one with a `;` has
                // parameters to read. A bare member that is not a well-formed
                // token names no coding we know, so it is ignored either way.
                let (token, q) = if member.contains(&b';') {
                    let Some(parsed) = coding_member(member) else {
                        continue;
                    };
                    parsed
                } else {
                    (trim_trailing_ows(member), DEFAULT_QUALITY)
                };
                if token == b"*" {
                    accepted.star.get_or_insert(q);
                } else if let Some(coding) = Coding::from_token(token) {
                    accepted.named[coding.index()].get_or_insert(q);
                }
            }
        }
        accepted
    }

    /// The weight of every coding, in the order of [`Coding::ALL`].
    pub fn weights(&self) -> [Quality; Coding::ALL.len()] {
        Coding::ALL.map(|coding| self.quality(coding))
    }

    /// The weight the request gives `coding`; 0 is unacceptable.
    ///
    /// - No header: identity, since a client that says nothing may not
    ///   decode anything.
    /// - An empty header: identity (the client wants no coding).
    /// - Otherwise a coding gets the weight of the member naming it (the
    ///   first, if named twice), else that of `*`, else 0 — except identity,
    ///   which stays acceptable unless `identity;q=0` or `*;q=0` excludes it.
    /// - `dcb` and `dcz` (RFC 9842) get the weight of a member naming
    ///   them, else 0: `*` does not stand for them, since a client that
    ///   merely says `*` may hold no dictionary. Whether it holds the one a
    ///   body was compressed against is for `Available-Dictionary` to tell.
    pub fn quality(&self, coding: Coding) -> Quality {
        if !self.present {
            return if coding == Coding::Identity {
                DEFAULT_QUALITY
            } else {
                0
            };
        }
        match (self.named[coding.index()], self.star, coding) {
            (Some(q), _, _) => q,
            (None, _, coding) if coding.needs_dictionary() => 0,
            (None, Some(q), _) => q,
            (None, None, Coding::Identity) => IMPLICIT_IDENTITY,
            (None, None, _) => 0,
        }
    }
}

/// The [`first_bit`]s of `*` and of every token [`Coding::from_token`] knows.
const CODING_FIRSTS: u64 = {
    let mut bits = first_bit(b'*');
    let mut i = 0;
    while i < Coding::NAMES.len() {
        bits |= first_bit(Coding::NAMES[i].0.as_bytes()[0]);
        i += 1;
    }
    bits
};

/// One member of `Accept-Encoding`: a coding token (or `*`) and its
/// weight. `None` if any parameter other than a single `q` is present or
/// the weight is malformed.
#[inline]
fn coding_member(member: &[u8]) -> Option<(&[u8], Quality)> {
    let mut cursor = Cursor::new(member);
    let token = cursor.token();
    if token.is_empty() {
        return None;
    }
    let quality = match cursor.parameter()? {
        None => return Some((token, DEFAULT_QUALITY)),
        Some((name, value)) if eq_folded(name, b"q") => parse_quality(value)?,
        Some(_) => return None,
    };
    match cursor.parameter()? {
        None => Some((token, quality)),
        Some(_) => None,
    }
}
