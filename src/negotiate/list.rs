//! The list syntax of HTTP fields (RFC 9110 §5.6): a list-valued field cut
//! into its members (§5.6.1), optional whitespace (§5.6.3), tokens
//! (§5.6.2), quoted strings (§5.6.4) and the parameters of a member
//! (§5.6.6).
//!
//! [`members`] reads a field eight bytes at a time and cuts it from bit
//! masks of its delimiters; a [`Cursor`] then reads one member in place.

/// The members of one list-valued field (RFC 9110 §5.6.1): split at
/// commas outside quoted strings, each from its first byte that is not
/// optional whitespace; empty members are skipped. Whitespace before the
/// comma is left on the member: its reader passes over it as it does over
/// the whitespace around parameters.
#[inline]
pub(super) fn members(field: &[u8]) -> Members<'_> {
    Members {
        field,
        start: 0,
        word: 0,
        delimiters: delimiters(field_word(field, 0)),
    }
}

/// The iterator behind [`members`].
///
/// The field is read eight bytes at a time: each word's delimiters (`,`
/// and `"`) become the high bits of a mask, and members are cut by taking
/// the mask's bits in order. Where the next member starts never waits on
/// reading the one before it; only a quote moves the reading offset.
#[derive(Clone, Copy)]
pub(super) struct Members<'a> {
    field: &'a [u8],
    /// Where the next member begins.
    start: usize,
    /// The offset of the word the mask was taken from.
    word: usize,
    /// The delimiters of that word not yet consumed: the high bit of byte
    /// `i` for byte `word + i`.
    delimiters: u64,
}

impl<'a> Iterator for Members<'a> {
    type Item = &'a [u8];

    #[inline(always)]
    fn next(&mut self) -> Option<&'a [u8]> {
        while self.start < self.field.len() {
            let end = self.next_comma();
            let member = trim_leading_ows(&self.field[self.start..end]);
            self.start = end + 1;
            if !member.is_empty() {
                return Some(member);
            }
        }
        None
    }
}

impl Members<'_> {
    /// The index of the next comma outside quoted strings, or the length.
    #[inline(always)]
    fn next_comma(&mut self) -> usize {
        loop {
            while self.delimiters == 0 {
                if self.word + WORD >= self.field.len() {
                    return self.field.len();
                }
                self.read_word(self.word + WORD);
            }
            let at = self.word + (self.delimiters.trailing_zeros() / 8) as usize;
            self.delimiters &= self.delimiters - 1;
            if self.field[at] == b',' {
                return at;
            }
            // A quote: read on from the end of its quoted string.
            let end = at + quoted_string_length(&self.field[at..]);
            if end >= self.field.len() {
                return self.field.len();
            }
            self.read_word(end);
        }
    }

    /// Take the mask of the word at `at`.
    #[inline(always)]
    fn read_word(&mut self, at: usize) {
        self.word = at;
        self.delimiters = delimiters(field_word(self.field, at));
    }
}

/// How many bytes a word holds.
const WORD: usize = 8;

/// The delimiters (`,` and `"`) of a word: the high bit of each byte equal
/// to one, exactly (no borrow between bytes).
#[inline(always)]
fn delimiters(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
    let zero_bytes = |x: u64| !((x & LOW7).wrapping_add(LOW7) | x | LOW7);
    zero_bytes(word ^ (ONES * u64::from(b','))) | zero_bytes(word ^ (ONES * u64::from(b'"')))
}

/// The eight bytes of `field` from `at` (`at` within the field, or 0) as a
/// little-endian word, zero past the end (a zero byte is no delimiter). A
/// word that would run past the end is read as the last eight bytes,
/// shifted, so no byte is copied one by one unless the whole field is
/// shorter than a word.
#[inline(always)]
fn field_word(field: &[u8], at: usize) -> u64 {
    let read =
        |from: usize| u64::from_le_bytes(field[from..from + 8].try_into().expect("eight bytes"));
    let length = field.len();
    if at + 8 <= length {
        read(at)
    } else if length >= 8 {
        let last = length - 8;
        read(last) >> (8 * (at - last))
    } else {
        field[at.min(length)..]
            .iter()
            .rev()
            .fold(0, |word, &b| word << 8 | u64::from(b))
    }
}

/// The length of the quoted string (§5.6.4) that `bytes` opens with,
/// quotes included and backslash escapes honoured; all of `bytes` if it is
/// not closed.
#[cold]
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Members as a byte-by-byte reading of §5.6.1 and §5.6.4 cuts them.
    fn oracle_members(field: &[u8]) -> Vec<&[u8]> {
        let mut cuts = Vec::new();
        let (mut start, mut quoted, mut escaped) = (0, false, false);
        for (i, &b) in field.iter().enumerate() {
            match (quoted, escaped, b) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (true, false, b'"') | (false, _, b'"') => quoted = !quoted,
                (false, _, b',') => {
                    cuts.push(&field[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        cuts.push(&field[start..]);
        cuts.into_iter()
            .map(<[u8]>::trim_ascii)
            .filter(|m| !m.is_empty())
            .collect()
    }

    proptest! {
        // Every alignment of delimiters against the eight-byte words.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn members_agree_with_a_byte_by_byte_reading(field in "[a, \t\"\\\\]{0,70}") {
            let field = field.as_bytes();
            let cut: Vec<_> = members(field).map(trim_trailing_ows).collect();
            prop_assert_eq!(cut, oracle_members(field));
        }

        #[test]
        fn delimiter_masks_agree_with_a_byte_by_byte_reading(
            field in "[a,\"]{0,40}",
            at in 0usize..40,
        ) {
            let field = field.as_bytes();
            let at = at.min(field.len().saturating_sub(1));
            let expected = field.get(at..).unwrap_or_default().iter().take(WORD).enumerate()
                .filter(|&(_, &b)| b == b',' || b == b'"')
                .fold(0u64, |mask, (i, _)| mask | 0x80 << (8 * i));
            prop_assert_eq!(delimiters(field_word(field, at)), expected);
        }
    }
}
