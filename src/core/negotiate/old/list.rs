//! The list syntax of HTTP fields (RFC 9110 §5.6): a list-valued field cut
//! into its members (§5.6.1), optional whitespace (§5.6.3), tokens
//! (§5.6.2), quoted strings (§5.6.4) and the parameters of a member
//! (§5.6.6).
//!
//! [`members`] cuts a field at its commas, byte by byte; a [`Cursor`] then
//! reads one member in place.

/// The members of one list-valued field (RFC 9110 §5.6.1): split at
/// commas outside quoted strings, each from its first byte that is not
/// optional whitespace; empty members are skipped. Whitespace before the
/// comma is left on the member: its reader passes over it as it does over
/// the whitespace around parameters.
pub(super) fn members(field: &[u8]) -> Members<'_> {
    Members { rest: field }
}

/// The iterator behind [`members`].
#[derive(Clone, Copy)]
pub(super) struct Members<'a> {
    /// The field after the members read so far.
    rest: &'a [u8],
}

impl<'a> Iterator for Members<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        while !self.rest.is_empty() {
            let end = comma(self.rest);
            let member = trim_leading_ows(&self.rest[..end]);
            self.rest = self.rest.get(end + 1..).unwrap_or_default();
            if !member.is_empty() {
                return Some(member);
            }
        }
        None
    }
}

/// The index of the first comma of `bytes` outside quoted strings, or its
/// length.
fn comma(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        at += match b {
            b',' => return at,
            b'"' => quoted_string_length(&bytes[at..]),
            _ => 1,
        };
    }
    bytes.len()
}

/// The length of the quoted string (§5.6.4) that `bytes` opens with,
/// quotes included and backslash escapes honoured; all of `bytes` if it is
/// not closed.
fn quoted_string_length(bytes: &[u8]) -> usize {
    let mut at = 1;
    while let Some(&b) = bytes.get(at) {
        at += match b {
            b'"' => return at + 1,
            b'\\' => 2,
            _ => 1,
        };
    }
    bytes.len()
}

/// `bytes` without leading spaces and tabs (OWS, §5.6.3).
#[inline(always)]
pub(super) fn trim_leading_ows(mut bytes: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = bytes {
        bytes = rest;
    }
    bytes
}

/// `bytes` without trailing spaces and tabs.
#[inline(always)]
pub(super) fn trim_trailing_ows(mut bytes: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\t'] = bytes {
        bytes = rest;
    }
    bytes
}

/// A cursor over one member of a list: a token with `;name=value`
/// parameters, optional whitespace around the semicolons. It holds what is
/// left to read.
pub(super) struct Cursor<'a> {
    /// What is left to read.
    pub(super) rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub(super) fn new(member: &'a [u8]) -> Self {
        Cursor { rest: member }
    }

    #[inline]
    pub(super) fn eat(&mut self, byte: u8) -> bool {
        match self.rest {
            [first, tail @ ..] if *first == byte => {
                self.rest = tail;
                true
            }
            _ => false,
        }
    }

    #[inline]
    fn skip_ows(&mut self) {
        self.rest = trim_leading_ows(self.rest);
    }

    /// The longest run of `tchar`s here (possibly empty).
    #[inline]
    pub(super) fn token(&mut self) -> &'a [u8] {
        let length = self
            .rest
            .iter()
            .take_while(|&&b| TCHAR[usize::from(b)])
            .count();
        let (token, rest) = self.rest.split_at(length);
        self.rest = rest;
        token
    }

    /// The next `;name=value` of this member: `Some(None)` at the member's
    /// end, `None` if it is malformed.
    #[inline]
    pub(super) fn parameter(&mut self) -> Option<Option<(&'a [u8], &'a [u8])>> {
        self.skip_ows();
        if self.rest.is_empty() {
            return Some(None);
        }
        if !self.eat(b';') {
            return None;
        }
        self.skip_ows();
        let name = self.token();
        if name.is_empty() || !self.eat(b'=') {
            return None;
        }
        let value = if self.rest.first() == Some(&b'"') {
            let (value, rest) = self.rest.split_at(quoted_string_length(self.rest));
            self.rest = rest;
            value
        } else {
            self.token()
        };
        if value.is_empty() {
            return None;
        }
        Some(Some((name, value)))
    }
}

/// A parameter value without its surrounding quotes (escapes are left as they are).
pub(super) fn unquote(value: &[u8]) -> &[u8] {
    match value {
        [b'"', inner @ .., b'"'] => inner,
        _ => value,
    }
}

/// `tchar` per RFC 9110 §5.6.2, as a table.
pub(super) const TCHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        b += 1;
    }
    table
};
