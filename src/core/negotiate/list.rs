//! Weighted lists (RFC 9110 §12.4.2), the shape of `Accept`,
//! `Accept-Encoding` and `Accept-Language`: a list-valued field (§5.6.1)
//! whose members each name something (a token, or a media range), may
//! carry parameters (§5.6.6) and a weight, `;q=`.
//!
//! [`members`] reads one line of such a field into [`Member`]s, in place;
//! a malformed member (no name, a bad parameter or weight) is left out, as
//! a reader of these fields ignores it. [`best`] chooses among the weights
//! a reader gives its offers. No HTTP crate in the tree reads these lists
//! without allocating (`mime` and `headers` own their values), so this one
//! does it by hand; `memchr` finds the commas.

/// A weight in thousandths: `q=0.5` is 500, `q=1` is 1000.
pub type Quality = u16;

/// The weight of a member with no `q` parameter.
pub(crate) const DEFAULT_QUALITY: Quality = 1000;

/// One well-formed member of a weighted list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Member<'a> {
    /// What it names, as written: a token (`gzip`, `en-US`, `*`) or a
    /// media range (`text/html`).
    pub name: &'a [u8],
    /// Its parameters before the weight, unread: [`Member::parameters`].
    parameters: &'a [u8],
    /// Its weight; [`DEFAULT_QUALITY`] without one.
    pub quality: Quality,
    /// Whether anything follows its weight (the `accept-ext` of RFC 7231,
    /// which `Accept` still passes over).
    pub extended: bool,
}

impl<'a> Member<'a> {
    /// Read the member `line` opens with, up to its comma or the line's
    /// end, where it leaves `line`; `None` if it is malformed (and `line`
    /// where reading stopped).
    fn read(line: &mut &'a [u8]) -> Option<Member<'a>> {
        let length = line
            .iter()
            .position(|&b| !is_name_byte(b))
            .unwrap_or(line.len());
        let name = line.split_off(..length)?;
        if name.is_empty() {
            return None;
        }
        let mut member = Member {
            name,
            parameters: &[],
            quality: DEFAULT_QUALITY,
            extended: false,
        };
        // Most members are a name alone: nothing to read after it.
        if matches!(line.first(), None | Some(b',')) {
            return Some(member);
        }
        let after = *line;
        loop {
            let unread = line.len();
            match parameter(line)? {
                None => {}
                Some((key, value)) if key.eq_ignore_ascii_case(b"q") => {
                    member.quality = parse_quality(value)?;
                }
                Some(_) => continue,
            }
            // The end of the member, or its weight: the parameters read
            // before it are its own, anything after the weight an extension.
            member.parameters = trim_ows(&after[..after.len() - unread]);
            let end = comma(line);
            member.extended = !trim_leading_ows(&line[..end]).is_empty();
            *line = &line[end..];
            return Some(member);
        }
    }

    /// Its parameters before the weight, as names and values (a quoted
    /// value with its quotes: [`unquote`]).
    pub(crate) fn parameters(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> {
        let mut rest = self.parameters;
        std::iter::from_fn(move || parameter(&mut rest).flatten())
    }

    /// Whether it is a name with at most a weight, as every member of
    /// `Accept-Encoding` and `Accept-Language` must be (§12.5.3, §12.5.4).
    pub(crate) fn is_bare(&self) -> bool {
        self.parameters.is_empty() && !self.extended
    }
}

/// The well-formed members of one line of a weighted list, in order.
pub(crate) fn members(line: &[u8]) -> impl Iterator<Item = Member<'_>> {
    let mut rest = line;
    std::iter::from_fn(move || loop {
        rest = trim_leading_ows(rest);
        match rest.first() {
            None => return None,
            Some(b',') => rest = &rest[1..],
            Some(_) => {
                // A malformed member is passed over, up to its comma.
                let start = rest;
                match Member::read(&mut rest) {
                    Some(member) => return Some(member),
                    None => rest = &start[comma(start)..],
                }
            }
        }
    })
}

/// The index of the first highest non-zero weight among `weights`, one per
/// offer in the server's order of preference: the highest wins, a tie goes
/// to the earlier offer, and `None` means every weight is 0 (a 406).
pub fn best(weights: impl Iterator<Item = Quality>) -> Option<usize> {
    let mut chosen: Option<(usize, Quality)> = None;
    for (i, q) in weights.enumerate() {
        if q > 0 && chosen.is_none_or(|(_, best)| q > best) {
            chosen = Some((i, q));
        }
    }
    chosen.map(|(i, _)| i)
}

/// Parse a qvalue: `0[.ddd]` or `1[.000]` (§12.4.2).
pub(super) fn parse_quality(value: &[u8]) -> Option<Quality> {
    let (&lead, rest) = value.split_first()?;
    let decimals = match rest {
        [] => &[][..],
        [b'.', decimals @ ..] if decimals.len() <= 3 => decimals,
        _ => return None,
    };
    let mut thousandths: Quality = 0;
    for (&digit, scale) in decimals.iter().zip([100, 10, 1]) {
        if !digit.is_ascii_digit() {
            return None;
        }
        thousandths += Quality::from(digit - b'0') * scale;
    }
    match lead {
        b'0' => Some(thousandths),
        b'1' if thousandths == 0 => Some(DEFAULT_QUALITY),
        _ => None,
    }
}

/// The index of the first comma of `bytes` outside quoted strings, or its
/// length.
fn comma(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(found) = memchr::memchr2(b',', b'"', &bytes[at..]) {
        at += found;
        if bytes[at] == b',' {
            return at;
        }
        at += quoted_string_length(&bytes[at..]);
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

/// The next `;name=value` parameter of what is left of a member, `rest`
/// (optional whitespace, §5.6.3, around the semicolons), read off it:
/// `Some(None)` at the member's end, `None` if it is malformed. A value is
/// a token or a quoted string.
fn parameter<'a>(rest: &mut &'a [u8]) -> Option<Option<(&'a [u8], &'a [u8])>> {
    *rest = trim_leading_ows(rest);
    if matches!(rest.first(), None | Some(b',')) {
        return Some(None);
    }
    *rest = trim_leading_ows(rest.strip_prefix(b";")?);
    let name = rest.split_off(..token_length(rest))?;
    *rest = rest.strip_prefix(b"=")?;
    let length = match rest.first() {
        Some(b'"') => quoted_string_length(rest),
        _ => token_length(rest),
    };
    let value = rest.split_off(..length)?;
    (!name.is_empty() && !value.is_empty()).then_some(Some((name, value)))
}

/// The length of the token (§5.6.2) `bytes` begins with (possibly 0).
fn token_length(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| is_tchar(b)).count()
}

/// Whether `byte` is a `tchar` (§5.6.2).
#[inline]
fn is_tchar(byte: u8) -> bool {
    TCHAR[usize::from(byte)]
}

/// Whether `byte` may be in a member's name: a `tchar`, or the `/` of a
/// media range.
#[inline]
fn is_name_byte(byte: u8) -> bool {
    is_tchar(byte) || byte == b'/'
}

/// Which bytes are a `tchar`, as a table: one load a byte.
const TCHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(c, b'!' | b'#'..=b'\'' | b'*' | b'+' | b'-' | b'.' | b'^'..=b'`' | b'|' | b'~');
        b += 1;
    }
    table
};

/// A parameter value without its surrounding quotes (escapes are left as
/// they are).
pub(crate) fn unquote(value: &[u8]) -> &[u8] {
    match value {
        [b'"', inner @ .., b'"'] => inner,
        _ => value,
    }
}

/// `bytes` without leading spaces and tabs (OWS, §5.6.3).
#[inline]
pub(super) fn trim_leading_ows(mut bytes: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = bytes {
        bytes = rest;
    }
    bytes
}

/// `bytes` without the spaces and tabs around it.
pub(super) fn trim_ows(mut bytes: &[u8]) -> &[u8] {
    bytes = trim_leading_ows(bytes);
    while let [rest @ .., b' ' | b'\t'] = bytes {
        bytes = rest;
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A member as text: name, parameters, weight, extended.
    type Read<'a> = (&'a str, Vec<(&'a str, &'a str)>, Quality, bool);

    /// The members of `line`, as text.
    fn read(line: &str) -> Vec<Read<'_>> {
        let text = |bytes| std::str::from_utf8(bytes).expect("ASCII");
        members(line.as_bytes())
            .map(|m| {
                let parameters = m.parameters().map(|(n, v)| (text(n), text(v)));
                (text(m.name), parameters.collect(), m.quality, m.extended)
            })
            .collect()
    }

    #[test]
    fn members_have_a_name_parameters_and_a_weight() {
        assert_eq!(
            read("gzip, en-US;q=0.5 , text/html ; level=1;Q=0 ;ext"),
            [
                ("gzip", vec![], 1000, false),
                ("en-US", vec![], 500, false),
                ("text/html", vec![("level", "1")], 0, true),
            ]
        );
        assert_eq!(
            read(r#"a;charset="x,y";q=1, b"#),
            [
                ("a", vec![("charset", r#""x,y""#)], 1000, false),
                ("b", vec![], 1000, false)
            ]
        );
    }

    #[test]
    fn malformed_members_are_left_out() {
        for line in [
            ";q=1",
            "a;q=2",
            "a;q=0.5x",
            "a;q=\"1\"",
            "a;q = 1",
            "a;=1",
            "a;x",
            "a;x=",
            "a b",
            "a;",
            "\"a\"",
        ] {
            assert_eq!(read(line), [], "{line}");
        }
    }

    #[test]
    fn a_bare_member_is_a_name_and_a_weight() {
        let bare = |line: &str| {
            members(line.as_bytes())
                .map(|m| m.is_bare())
                .collect::<Vec<_>>()
        };
        assert_eq!(bare("a, a;q=0.1 , a ;q=1 "), [true, true, true]);
        assert_eq!(bare("a;x=1, a;q=1;x=1, a;x=1;q=1"), [false, false, false]);
    }

    #[test]
    fn quoted_values_are_unquoted() {
        assert_eq!(unquote(br#""utf-8""#), b"utf-8");
        assert_eq!(unquote(b"utf-8"), b"utf-8");
        assert_eq!(unquote(br#""open"#), br#""open"#);
    }

    #[test]
    fn the_best_weight_is_the_highest_and_the_earliest() {
        assert_eq!(best([500, 1000, 1000].into_iter()), Some(1));
        assert_eq!(best([1, 0, 1].into_iter()), Some(0));
        assert_eq!(best([0, 0].into_iter()), None);
        assert_eq!(best(std::iter::empty()), None);
    }

    #[test]
    fn qvalues_parse_per_rfc() {
        for (text, q) in [
            ("0", 0),
            ("0.", 0),
            ("0.5", 500),
            ("0.25", 250),
            ("0.125", 125),
        ] {
            assert_eq!(parse_quality(text.as_bytes()), Some(q), "{text}");
        }
        for (text, q) in [("1", 1000), ("1.", 1000), ("1.0", 1000), ("1.000", 1000)] {
            assert_eq!(parse_quality(text.as_bytes()), Some(q), "{text}");
        }
        for text in ["", "2", "1.001", "0.1234", ".5", "0,5", "-0", "0.a", "01"] {
            assert_eq!(parse_quality(text.as_bytes()), None, "{text}");
        }
    }

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
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn members_are_cut_as_a_byte_by_byte_reading_cuts_them(field in "[a, \t\"\\\\]{0,70}") {
            let field = field.as_bytes();
            let mut cut = Vec::new();
            let mut rest = field;
            loop {
                let end = comma(rest);
                cut.push(trim_ows(&rest[..end]));
                match rest.get(end + 1..) {
                    Some(after) => rest = after,
                    None => break,
                }
            }
            cut.retain(|member| !member.is_empty());
            prop_assert_eq!(cut, oracle_members(field));
        }
    }
}
