//! Proactive content negotiation (RFC 9110 §12): which representation and
//! which content coding a request gets.
//!
//! Everything here is a pure function over header bytes. Nothing allocates:
//! each field value is walked once, and the few offers a resource has are
//! scored in fixed-size arrays.
//!
//! - [`negotiate_encoding`] reads `Accept-Encoding` (§12.5.3).
//! - [`negotiate_media_type`] reads `Accept` (§12.5.1).
//!
//! Both take the field values of every header line of that name (a list
//! field may be split over several lines, §5.3) and the server's offers in
//! its order of preference; they answer with the index of the chosen offer,
//! or `None` when the client accepts none of them (a 406).

/// A content coding the server can send (RFC 9110 §8.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coding {
    /// No transformation: the bytes as rendered.
    Identity,
    /// `gzip` (RFC 1952).
    Gzip,
    /// `br`, Brotli (RFC 7932).
    Br,
}

impl Coding {
    /// Every coding, in a fixed order (used to index per-coding state).
    pub const ALL: [Coding; 3] = [Coding::Identity, Coding::Gzip, Coding::Br];

    /// The token that names this coding in `Accept-Encoding` and `Content-Encoding`.
    pub const fn token(self) -> &'static str {
        match self {
            Coding::Identity => "identity",
            Coding::Gzip => "gzip",
            Coding::Br => "br",
        }
    }

    const fn index(self) -> usize {
        match self {
            Coding::Identity => 0,
            Coding::Gzip => 1,
            Coding::Br => 2,
        }
    }

    /// The coding a token names, if it is one we serve. Tokens are
    /// case-insensitive, and `x-gzip` is gzip (§8.4.1.3).
    pub fn from_token(token: &[u8]) -> Option<Coding> {
        Coding::ALL
            .into_iter()
            .find(|c| token.eq_ignore_ascii_case(c.token().as_bytes()))
            .or_else(|| {
                token
                    .eq_ignore_ascii_case(b"x-gzip")
                    .then_some(Coding::Gzip)
            })
    }
}

/// A weight (RFC 9110 §12.4.2) in thousandths: `q=0.5` is 500, `q=1` is 1000.
pub type Quality = u16;

/// The weight of a member with no `q` parameter.
pub const DEFAULT_QUALITY: Quality = 1000;

/// The weight given to `identity` when `Accept-Encoding` neither names it nor
/// has `*`: still acceptable (§12.5.3), but any coding the client named wins.
const IMPLICIT_IDENTITY: Quality = 1;

/// Every representation is UTF-8; for types whose `Content-Type` carries
/// no `charset` (such as `application/json`, RFC 8259 §8.1) it is implied.
const IMPLIED_CHARSET: &str = "utf-8";

/// At most this many representations of one resource are scored by
/// [`negotiate_media_type`]; later offers are ignored.
pub const MAX_MEDIA_OFFERS: usize = 4;

/// Choose the content coding for a response (RFC 9110 §12.5.3).
///
/// `fields` are the values of the request's `Accept-Encoding` lines (none
/// when the header is absent); `offered` lists the codings available, in the
/// server's order of preference (smallest body first), and must include
/// [`Coding::Identity`].
///
/// - No header: identity, since a client that says nothing may not decode anything.
/// - An empty header: identity (the client wants no coding).
/// - Otherwise each coding gets the weight of the member naming it (the
///   first, if named twice), else that of `*`, else 0 — except identity,
///   which stays acceptable unless `identity;q=0` or `*;q=0` excludes it.
/// - The highest weight wins; ties go to the earlier offer.
/// - Malformed members (a bad token, a bad or repeated weight, any other
///   parameter) are ignored.
pub fn negotiate_encoding<'a>(
    fields: impl IntoIterator<Item = &'a [u8]>,
    offered: impl IntoIterator<Item = Coding>,
) -> Option<usize> {
    let mut explicit: [Option<Quality>; 3] = [None; 3];
    let mut star: Option<Quality> = None;
    let mut present = false;
    for field in fields {
        present = true;
        let mut cursor = Cursor::new(field);
        while let Some(member) = cursor.member() {
            let Some((token, q)) = coding_member(member) else {
                member.skip_member();
                continue;
            };
            if token == b"*" {
                star.get_or_insert(q);
            } else if let Some(coding) = Coding::from_token(token) {
                explicit[coding.index()].get_or_insert(q);
            }
        }
    }
    let quality = |coding: Coding| -> Quality {
        if !present {
            return if coding == Coding::Identity {
                DEFAULT_QUALITY
            } else {
                0
            };
        }
        match (explicit[coding.index()], star, coding) {
            (Some(q), _, _) => q,
            (None, Some(q), _) => q,
            (None, None, Coding::Identity) => IMPLICIT_IDENTITY,
            (None, None, _) => 0,
        }
    };
    best(offered.into_iter().map(quality))
}

/// A media type the server offers, split for matching against `Accept`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaType {
    /// The top-level type, lowercase: `application`.
    pub kind: &'static str,
    /// The subtype, lowercase: `json`.
    pub subtype: &'static str,
    /// The value of the `charset` parameter the representation is sent with,
    /// if any (`utf-8` is implied when there is none).
    pub charset: Option<&'static str>,
}

/// Choose a representation by media type (RFC 9110 §12.5.1).
///
/// `fields` are the values of the request's `Accept` lines (none when the
/// header is absent); `offered` lists the media types available, in the
/// server's order of preference.
///
/// Each offer takes the weight of the most specific range that matches it
/// (`type/subtype;params` over `type/subtype` over `type/*` over `*/*`); an
/// offer no range matches is unacceptable. No header, or one whose members
/// are all malformed, accepts everything. The highest weight wins; ties go to
/// the earlier offer. A range's parameters must all be present on the offer
/// (only `charset` is compared, case-insensitively), and any other parameter
/// names the range cannot match.
pub fn negotiate_media_type<'a>(
    fields: impl IntoIterator<Item = &'a [u8]>,
    offered: &[MediaType],
) -> Option<usize> {
    // Per offer: (specificity of the best matching range so far, its weight).
    let mut scores: [Option<(u8, Quality)>; MAX_MEDIA_OFFERS] = [None; MAX_MEDIA_OFFERS];
    let offered = &offered[..offered.len().min(MAX_MEDIA_OFFERS)];
    let mut any_valid = false;
    for field in fields {
        let mut cursor = Cursor::new(field);
        while let Some(member) = cursor.member() {
            let Some(range) = MediaRange::parse(member) else {
                member.skip_member();
                continue;
            };
            any_valid = true;
            for (offer, score) in offered.iter().zip(scores.iter_mut()) {
                let Some(specificity) = range.matches(offer) else {
                    continue;
                };
                if score.is_none_or(|(s, _)| specificity > s) {
                    *score = Some((specificity, range.quality));
                }
            }
        }
    }
    if !any_valid {
        return (!offered.is_empty()).then_some(0);
    }
    best(
        scores[..offered.len()]
            .iter()
            .map(|s| s.map_or(0, |(_, q)| q)),
    )
}

/// The index of the first highest non-zero weight.
fn best(weights: impl Iterator<Item = Quality>) -> Option<usize> {
    let mut chosen: Option<(usize, Quality)> = None;
    for (i, q) in weights.enumerate() {
        if q > 0 && chosen.is_none_or(|(_, best)| q > best) {
            chosen = Some((i, q));
        }
    }
    chosen.map(|(i, _)| i)
}

/// One parsed member of `Accept`.
struct MediaRange<'a> {
    kind: &'a [u8],
    subtype: &'a [u8],
    /// The `charset` parameter, if given (unquoted).
    charset: Option<&'a [u8]>,
    /// The range names a parameter we never send: it matches nothing.
    foreign_param: bool,
    quality: Quality,
}

impl<'a> MediaRange<'a> {
    /// Parse one member; the cursor stands at its start and is left at its end.
    fn parse(cursor: &mut Cursor<'a>) -> Option<MediaRange<'a>> {
        let kind = cursor.token();
        if !cursor.eat(b'/') {
            return None;
        }
        let subtype = cursor.token();
        if kind.is_empty() || subtype.is_empty() || (kind == b"*" && subtype != b"*") {
            return None;
        }
        let mut range = MediaRange {
            kind,
            subtype,
            charset: None,
            foreign_param: false,
            quality: DEFAULT_QUALITY,
        };
        while let Some((name, value)) = cursor.parameter()? {
            if name.eq_ignore_ascii_case(b"q") {
                // The weight ends the media-range parameters; what follows
                // are accept-ext parameters, which carry no meaning here.
                range.quality = parse_quality(value)?;
                cursor.skip_member();
                break;
            } else if name.eq_ignore_ascii_case(b"charset") {
                range.charset = Some(unquote(value));
            } else {
                range.foreign_param = true;
            }
        }
        Some(range)
    }

    /// How specifically this range matches `offer` (higher is more
    /// specific), or `None` if it does not.
    fn matches(&self, offer: &MediaType) -> Option<u8> {
        if self.kind == b"*" {
            return Some(0);
        }
        if !self.kind.eq_ignore_ascii_case(offer.kind.as_bytes()) {
            return None;
        }
        if self.subtype == b"*" {
            return Some(1);
        }
        if !self.subtype.eq_ignore_ascii_case(offer.subtype.as_bytes()) || self.foreign_param {
            return None;
        }
        match (self.charset, offer.charset) {
            (None, _) => Some(2),
            (Some(wanted), ours)
                if wanted.eq_ignore_ascii_case(ours.unwrap_or(IMPLIED_CHARSET).as_bytes()) =>
            {
                Some(3)
            }
            (Some(_), _) => None,
        }
    }
}

/// One member of `Accept-Encoding`: a coding token (or `*`) and its
/// weight. `None` if any parameter other than a single `q` is present or
/// the weight is malformed.
fn coding_member<'a>(cursor: &mut Cursor<'a>) -> Option<(&'a [u8], Quality)> {
    let token = cursor.token();
    if token.is_empty() {
        return None;
    }
    let quality = match cursor.parameter()? {
        None => return Some((token, DEFAULT_QUALITY)),
        Some((name, value)) if name.eq_ignore_ascii_case(b"q") => parse_quality(value)?,
        Some(_) => return None,
    };
    match cursor.parameter()? {
        None => Some((token, quality)),
        Some(_) => None,
    }
}

/// A cursor over one list-valued field (RFC 9110 §5.6.1), walking it once:
/// members separated by commas, each a token with `;name=value`
/// parameters, optional whitespace around the separators.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    /// Move to the start of the next non-empty member; `None` at the end of
    /// the field. A member's parser leaves the cursor past the member's end
    /// when it succeeds; when it fails, the caller calls [`Cursor::skip_member`].
    fn member(&mut self) -> Option<&mut Self> {
        loop {
            self.skip_ows();
            match self.bytes.get(self.at)? {
                b',' => self.at += 1,
                _ => return Some(self),
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        self.at += usize::from(hit);
        hit
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.at..).unwrap_or_default()
    }

    fn skip_ows(&mut self) {
        let rest = self.rest();
        self.at += rest
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .unwrap_or(rest.len());
    }

    /// The longest run of `tchar`s here (possibly empty).
    fn token(&mut self) -> &'a [u8] {
        let rest = self.rest();
        let length = rest
            .iter()
            .position(|&b| !TCHAR[usize::from(b)])
            .unwrap_or(rest.len());
        self.at += length;
        &rest[..length]
    }

    /// The next `;name=value` of this member: `Some(None)` at the member's
    /// end (which is consumed), `None` if it is malformed.
    fn parameter(&mut self) -> Option<Option<(&'a [u8], &'a [u8])>> {
        self.skip_ows();
        match self.peek() {
            None => return Some(None),
            Some(b',') => {
                self.at += 1;
                return Some(None);
            }
            Some(b';') => self.at += 1,
            Some(_) => return None,
        }
        self.skip_ows();
        let name = self.token();
        if name.is_empty() || !self.eat(b'=') {
            return None;
        }
        let value = if self.peek() == Some(b'"') {
            let start = self.at;
            self.at += 1;
            while let Some(b) = self.peek() {
                self.at += if b == b'\\' { 2 } else { 1 };
                if b == b'"' {
                    break;
                }
            }
            let end = self.at.min(self.bytes.len());
            &self.bytes[start..end]
        } else {
            self.token()
        };
        if value.is_empty() {
            return None;
        }
        Some(Some((name, value)))
    }

    /// Skip to just past the next comma outside a quoted string.
    fn skip_member(&mut self) {
        let rest = &self.bytes[self.at.min(self.bytes.len())..];
        self.at += separator_position(rest, b',') + 1;
    }
}

/// Parse a qvalue: `0[.ddd]` or `1[.000]` (RFC 9110 §12.4.2).
pub fn parse_quality(value: &[u8]) -> Option<Quality> {
    let (&lead, rest) = value.split_first()?;
    let decimals = match rest {
        [] => &[][..],
        [b'.', decimals @ ..] if decimals.len() <= 3 => decimals,
        _ => return None,
    };
    let mut thousandths: Quality = 0;
    let mut scale: Quality = 100;
    for &d in decimals {
        if !d.is_ascii_digit() {
            return None;
        }
        thousandths += Quality::from(d - b'0') * scale;
        scale /= 10;
    }
    match lead {
        b'0' => Some(thousandths),
        b'1' if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// A parameter value without its surrounding quotes (escapes are left as they are).
fn unquote(value: &[u8]) -> &[u8] {
    match value {
        [b'"', inner @ .., b'"'] => inner,
        _ => value,
    }
}

/// The index of the first `separator` outside quoted strings, or the
/// length. Runs of plain bytes are skipped in a tight loop; only a quote
/// switches to the slower walk that honours backslash escapes.
fn separator_position(bytes: &[u8], separator: u8) -> usize {
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == separator || b == b'"') {
        i += offset;
        if bytes[i] == separator {
            return i;
        }
        // Inside a quoted string: skip to its closing quote.
        i += 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i += 1;
        if i >= bytes.len() {
            return bytes.len();
        }
    }
    bytes.len()
}

/// `tchar` per RFC 9110 §5.6.2, as a table.
const TCHAR: [bool; 256] = {
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

    const ALL: [Coding; 3] = [Coding::Br, Coding::Gzip, Coding::Identity];

    fn encoding(header: Option<&str>) -> Option<Coding> {
        negotiate_encoding(header.map(str::as_bytes), ALL).map(|i| ALL[i])
    }

    const JSON: MediaType = MediaType {
        kind: "application",
        subtype: "json",
        charset: None,
    };
    const HTML: MediaType = MediaType {
        kind: "text",
        subtype: "html",
        charset: Some("utf-8"),
    };
    const MARKDOWN: MediaType = MediaType {
        kind: "text",
        subtype: "markdown",
        charset: Some("utf-8"),
    };
    const PAGE: [MediaType; 2] = [HTML, MARKDOWN];

    fn page(header: &str) -> Option<MediaType> {
        negotiate_media_type([header.as_bytes()], &PAGE).map(|i| PAGE[i])
    }

    #[test]
    fn no_accept_encoding_means_identity() {
        assert_eq!(encoding(None), Some(Coding::Identity));
    }

    #[test]
    fn empty_accept_encoding_means_identity() {
        assert_eq!(encoding(Some("")), Some(Coding::Identity));
        assert_eq!(encoding(Some(" , ,")), Some(Coding::Identity));
    }

    #[test]
    fn browsers_get_brotli() {
        assert_eq!(encoding(Some("gzip, deflate, br, zstd")), Some(Coding::Br));
        assert_eq!(encoding(Some("gzip, deflate")), Some(Coding::Gzip));
    }

    #[test]
    fn ties_go_to_the_smaller_offer() {
        assert_eq!(encoding(Some("gzip, br")), Some(Coding::Br));
        assert_eq!(encoding(Some("*")), Some(Coding::Br));
        let gzip_first = [Coding::Gzip, Coding::Br, Coding::Identity];
        assert_eq!(negotiate_encoding([&b"br, gzip"[..]], gzip_first), Some(0));
    }

    #[test]
    fn weights_decide() {
        assert_eq!(encoding(Some("br;q=0.5, gzip;q=0.8")), Some(Coding::Gzip));
        assert_eq!(encoding(Some("br;q=0.5, gzip")), Some(Coding::Gzip));
        assert_eq!(encoding(Some("identity, br;q=0.9")), Some(Coding::Identity));
        assert_eq!(encoding(Some("gzip;q=0.001")), Some(Coding::Gzip));
    }

    #[test]
    fn codings_are_case_insensitive_and_x_gzip_is_gzip() {
        assert_eq!(encoding(Some("GZIP")), Some(Coding::Gzip));
        assert_eq!(encoding(Some("Br;Q=1")), Some(Coding::Br));
        assert_eq!(encoding(Some("x-gzip")), Some(Coding::Gzip));
    }

    #[test]
    fn whitespace_is_optional() {
        assert_eq!(
            encoding(Some("  br ;q=0.2 ,gzip;  q=0.3 ")),
            Some(Coding::Gzip)
        );
    }

    #[test]
    fn exclusions() {
        assert_eq!(encoding(Some("br;q=0")), Some(Coding::Identity));
        assert_eq!(encoding(Some("*;q=0")), None);
        assert_eq!(
            encoding(Some("identity;q=0")),
            None,
            "without `*`, only named codings are acceptable"
        );
        assert_eq!(encoding(Some("identity;q=0, deflate")), None);
        assert_eq!(encoding(Some("*;q=0, gzip")), Some(Coding::Gzip));
        assert_eq!(encoding(Some("*;q=0, identity")), Some(Coding::Identity));
        assert_eq!(encoding(Some("gzip;q=0, *")), Some(Coding::Br));
    }

    #[test]
    fn star_covers_what_is_not_named() {
        assert_eq!(encoding(Some("br;q=0, *;q=0.5")), Some(Coding::Gzip));
        assert_eq!(
            encoding(Some("br;q=0, gzip;q=0, *;q=0.5")),
            Some(Coding::Identity)
        );
    }

    #[test]
    fn malformed_members_are_ignored() {
        assert_eq!(encoding(Some("br;q=2, gzip")), Some(Coding::Gzip));
        assert_eq!(
            encoding(Some("br;q=0.5555, gzip;q=0.1")),
            Some(Coding::Gzip)
        );
        assert_eq!(encoding(Some("br;level=5, gzip;q=0.1")), Some(Coding::Gzip));
        assert_eq!(encoding(Some("br;q=, gzip;q=0.1")), Some(Coding::Gzip));
        assert_eq!(encoding(Some("b r, gzip;q=0.1")), Some(Coding::Gzip));
        assert_eq!(encoding(Some("*;q=0, identity;q=1.5")), None);
    }

    #[test]
    fn the_first_of_a_repeated_coding_counts() {
        assert_eq!(encoding(Some("br;q=0, br, gzip;q=0.1")), Some(Coding::Gzip));
    }

    #[test]
    fn split_header_lines_are_one_list() {
        let lines: [&[u8]; 2] = [b"identity;q=0", b"gzip"];
        assert_eq!(
            negotiate_encoding(lines, ALL).map(|i| ALL[i]),
            Some(Coding::Gzip)
        );
    }

    #[test]
    fn identity_only_resources() {
        let only = [Coding::Identity];
        assert_eq!(negotiate_encoding([&b"br"[..]], only), Some(0));
        assert_eq!(negotiate_encoding([&b"br, identity;q=0"[..]], only), None);
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

    #[test]
    fn json_endpoints_accept_common_headers() {
        for header in [
            "application/json",
            "*/*",
            "application/*",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "application/json;charset=utf-8, text/plain",
            "APPLICATION/JSON",
            "",
            "garbage",
        ] {
            assert_eq!(
                negotiate_media_type([header.as_bytes()], &[JSON]),
                Some(0),
                "{header:?}"
            );
        }
        assert_eq!(negotiate_media_type(None::<&[u8]>, &[JSON]), Some(0));
    }

    #[test]
    fn json_endpoints_refuse_what_rules_json_out() {
        for header in [
            "text/html",
            "application/json;q=0",
            "*/*;q=0",
            "application/*;q=0, text/html",
            "*/*, application/json;q=0",
            "application/json;charset=latin1",
            "application/json;profile=x",
        ] {
            assert_eq!(
                negotiate_media_type([header.as_bytes()], &[JSON]),
                None,
                "{header:?}"
            );
        }
    }

    #[test]
    fn the_most_specific_range_decides() {
        assert_eq!(page("text/*;q=0.1, text/markdown"), Some(MARKDOWN));
        assert_eq!(page("text/markdown;q=0, text/*"), Some(HTML));
        assert_eq!(
            page("text/markdown;charset=UTF-8;q=0.9, text/html;q=0.5"),
            Some(MARKDOWN)
        );
        assert_eq!(page("text/markdown;charset=utf-8;q=0, text/markdown"), None);
        assert_eq!(page("text/markdown;charset=utf-8;q=0, text/*"), Some(HTML));
    }

    #[test]
    fn pages_honour_weights_and_default_to_the_first_offer() {
        assert_eq!(page("text/markdown, text/html;q=0.5"), Some(MARKDOWN));
        assert_eq!(page("text/html, text/markdown;q=0.1"), Some(HTML));
        assert_eq!(page("text/markdown;q=0.5, text/html;q=0.5"), Some(HTML));
        assert_eq!(page("*/*"), Some(HTML));
        assert_eq!(page("text/markdown"), Some(MARKDOWN));
        assert_eq!(page("application/json"), None);
    }

    #[test]
    fn quoted_commas_do_not_split_members() {
        assert_eq!(
            page(r#"text/markdown;charset="a,b", text/html;q=0.1"#),
            Some(HTML)
        );
        assert_eq!(
            page(r#"text/html;charset="utf-8";q=0.1, text/markdown"#),
            Some(MARKDOWN)
        );
    }

    #[test]
    fn accept_ext_after_the_weight_is_ignored() {
        assert_eq!(
            page("text/markdown;q=0.9;ext=1, text/html;q=0.5"),
            Some(MARKDOWN)
        );
    }

    fn header_strategy() -> impl Strategy<Value = String> {
        let member = prop_oneof![
            Just("*".to_string()),
            Just("br".to_string()),
            Just("gzip".to_string()),
            Just("identity".to_string()),
            Just("x-gzip".to_string()),
            Just("deflate".to_string()),
            "[a-zA-Z;=. ]{0,8}",
        ];
        let q = prop_oneof![
            Just(String::new()),
            (0u16..=1000).prop_map(|q| format!(";q={}.{:03}", q / 1000, q % 1000)),
            "[;q=0-9. ]{0,6}",
        ];
        prop::collection::vec((member, q).prop_map(|(m, q)| m + &q), 0..6)
            .prop_map(|members| members.join(","))
    }

    /// A deliberately naive reading of RFC 9110 §12.5.3, allocation and all,
    /// that the real parser must agree with on headers without quotes.
    fn oracle_quality(header: &str, coding: Coding) -> Quality {
        let mut named = None;
        let mut star = None;
        for member in header.split(',').map(str::trim).filter(|m| !m.is_empty()) {
            let mut parts = member.split(';').map(str::trim);
            let token = parts.next().unwrap_or_default().to_ascii_lowercase();
            let params: Vec<&str> = parts.collect();
            let q = match params.as_slice() {
                [] => Some(1000),
                [p] if p.len() > 2 && p[..2].eq_ignore_ascii_case("q=") => {
                    parse_quality(&p.as_bytes()[2..])
                }
                _ => None,
            };
            let Some(q) = q else { continue };
            let token = if token == "x-gzip" {
                "gzip".to_string()
            } else {
                token
            };
            if token == "*" {
                star.get_or_insert(q);
            } else if token == coding.token() {
                named.get_or_insert(q);
            }
        }
        named.or(star).unwrap_or(if coding == Coding::Identity {
            IMPLICIT_IDENTITY
        } else {
            0
        })
    }

    proptest! {
        #[test]
        fn the_choice_has_the_highest_weight(header in header_strategy()) {
            let weights = ALL.map(|c| oracle_quality(&header, c));
            let top = weights.iter().copied().max().unwrap_or(0);
            match negotiate_encoding([header.as_bytes()], ALL) {
                Some(i) => {
                    prop_assert!(weights[i] > 0, "{header:?}: chose {:?} with weight 0", ALL[i]);
                    prop_assert_eq!(weights[i], top);
                    prop_assert!(weights[..i].iter().all(|&w| w < top), "ties go to the earlier offer");
                }
                None => prop_assert_eq!(top, 0, "{:?}: 406 although {:?} were acceptable", header, weights),
            }
        }

        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = negotiate_encoding([bytes.as_slice()], ALL);
            let _ = negotiate_media_type([bytes.as_slice()], &PAGE);
        }
    }
}
