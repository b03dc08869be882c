//! The list syntax of HTTP fields (RFC 9110 §5.6): a list-valued field cut
//! into its members (§5.6.1), optional whitespace (§5.6.3), tokens
//! (§5.6.2), quoted strings (§5.6.4) and the parameters of a member
//! (§5.6.6).
//!
//! [`members`] reads a field sixteen bytes at a time and cuts it from bit
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
        chunk: 0,
        delimiters: 0,
        quotes: 0,
    }
    .reading(0)
}

/// The iterator behind [`members`].
///
/// The field is read sixteen bytes at a time, at fixed offsets: each
/// chunk's delimiters (`,` and `"`) become a bit mask, and members are cut
/// by taking the mask's bits in order. Where the next member starts never
/// waits on reading the one before it; only a quote moves the reading
/// offset.
#[derive(Clone, Copy)]
pub(super) struct Members<'a> {
    field: &'a [u8],
    /// Where the next member begins.
    start: usize,
    /// The offset of the chunk the masks were taken from.
    chunk: usize,
    /// The delimiters of that chunk not yet consumed: bit `i` for byte
    /// `chunk + i`.
    delimiters: u32,
    /// Which of those delimiters are quotes.
    quotes: u32,
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
                if self.chunk + CHUNK >= self.field.len() {
                    return self.field.len();
                }
                *self = self.reading(self.chunk + CHUNK);
            }
            let lowest = self.delimiters & self.delimiters.wrapping_neg();
            let at = self.chunk + lowest.trailing_zeros() as usize;
            self.delimiters ^= lowest;
            if lowest & self.quotes == 0 {
                return at;
            }
            // A quote: read on from the end of its quoted string.
            let end = at + quoted_string_length(&self.field[at..]);
            if end >= self.field.len() {
                return self.field.len();
            }
            *self = self.reading(end);
        }
    }

    /// These members with the masks of the chunk at `at`.
    #[inline(always)]
    fn reading(self, at: usize) -> Self {
        let Delimiters { commas, quotes } = Delimiters::at(self.field, at);
        Members {
            chunk: at,
            delimiters: commas | quotes,
            quotes,
            ..self
        }
    }
}

/// How many bytes [`Delimiters::at`] looks at.
const CHUNK: usize = 16;

/// The delimiters among the [`CHUNK`] bytes of a field from some offset
/// (fewer at its end): bit `i` is set for byte `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Delimiters {
    commas: u32,
    quotes: u32,
}

impl Delimiters {
    /// The delimiters of `field[at..]` (`at` within the field, or 0), read
    /// as two eight-byte words: in each, the bytes equal to a delimiter
    /// become zero bytes, whose high bits are gathered into a mask.
    #[inline(always)]
    fn at(field: &[u8], at: usize) -> Delimiters {
        const ONES: u64 = u64::from_le_bytes([0x01; 8]);
        const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
        // The high bit of every zero byte of `x`, exactly (no borrow between bytes).
        let zero_bytes = |x: u64| !((x & LOW7).wrapping_add(LOW7) | x | LOW7);
        // Bit `i` for the high bit of byte `i`.
        let gather = |high: u64| ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
        let of_word = |word: u64| Delimiters {
            commas: gather(zero_bytes(word ^ (ONES * u64::from(b',')))),
            quotes: gather(zero_bytes(word ^ (ONES * u64::from(b'"')))),
        };
        let low = of_word(field_word(field, at));
        if at + 8 >= field.len() {
            return low;
        }
        let high = of_word(field_word(field, at + 8));
        Delimiters {
            commas: low.commas | high.commas << 8,
            quotes: low.quotes | high.quotes << 8,
        }
    }
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
            let mask = |delimiter: u8| {
                let chunk = field.get(at..).unwrap_or_default().iter().take(CHUNK);
                chunk.enumerate().fold(0, |mask, (i, &b)| mask | u32::from(b == delimiter) << i)
            };
            let expected = Delimiters { commas: mask(b','), quotes: mask(b'"') };
            prop_assert_eq!(Delimiters::at(field, at), expected);
        }
    }
}
