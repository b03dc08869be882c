//! Proactive content negotiation (RFC 9110 §12): which representation and
//! which content coding a request gets.
//!
//! Everything here is a pure function over header bytes. Nothing allocates:
//! each field value is split into its members once (sixteen bytes per
//! step), members that cannot concern any offer are passed over on their
//! first byte, and the few offers a resource has are scored in fixed-size
//! arrays.
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

    /// Every token that names a coding we serve, lowercase; `x-gzip` is
    /// gzip (§8.4.1.3). The lengths differ, so a token's length picks at
    /// most one.
    const NAMES: [(&'static str, Coding); 4] = [
        ("br", Coding::Br),
        ("gzip", Coding::Gzip),
        ("x-gzip", Coding::Gzip),
        ("identity", Coding::Identity),
    ];

    /// The coding a token names, if it is one we serve (case-insensitively).
    #[inline]
    pub fn from_token(token: &[u8]) -> Option<Coding> {
        Coding::NAMES
            .iter()
            .find(|(name, _)| eq_folded(token, name.as_bytes()))
            .map(|&(_, coding)| coding)
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
        for member in members(field) {
            // A member whose first byte starts no coding we serve (nor
            // `*`) is passed over: `deflate`, `zstd`.
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
///
/// `fields` is read a second time only when no member named an offer and
/// was well formed, to tell a header of foreign ranges (a 406) from one of
/// malformed members (ignored).
pub fn negotiate_media_type<F>(fields: F, offered: &[MediaType]) -> Option<usize>
where
    F: IntoIterator + Copy,
    F::Item: AsRef<[u8]>,
{
    let offered = &offered[..offered.len().min(MAX_MEDIA_OFFERS)];
    let mut scoring = Scoring::new(offered);
    for field in fields {
        scoring.field(field.as_ref(), offered);
    }
    if !scoring.any_valid {
        scoring.any_valid = fields
            .into_iter()
            .any(|field| members(field.as_ref()).any(is_media_range));
    }
    scoring.choice(offered)
}

/// The state of [`negotiate_media_type`] while it reads `Accept`.
struct Scoring {
    /// Per offer: (specificity of the best matching range so far, its weight).
    scores: [Option<(u8, Quality)>; MAX_MEDIA_OFFERS],
    /// Whether a well-formed member naming an offer has been read.
    any_valid: bool,
    /// The first bytes a member naming an offer can begin with: bit
    /// `(b | 0x20) % 64` for `*` and the first letter of each offer's type.
    /// Other bytes may share a bit; they are only checked in full.
    firsts: u64,
}

impl Scoring {
    fn new(offered: &[MediaType]) -> Self {
        let firsts = offered
            .iter()
            .filter_map(|o| o.kind.as_bytes().first())
            .fold(first_bit(b'*'), |bits, &b| bits | first_bit(b));
        Scoring {
            scores: [None; MAX_MEDIA_OFFERS],
            any_valid: false,
            firsts,
        }
    }

    /// Read every member of `field`.
    #[inline]
    fn field(&mut self, field: &[u8], offered: &[MediaType]) {
        for member in members(field) {
            // Which offers the range names by its type and subtype alone;
            // most members name none, and their first byte shows it.
            if member
                .first()
                .is_some_and(|&b| self.firsts & first_bit(b) != 0)
            {
                self.member(member, offered);
            }
        }
    }

    /// Score `member`, whose first byte may begin a range naming an offer,
    /// if it names any and is well formed. A range naming none
    /// (`image/webp` for a page) is passed over here; whether
    /// it is well formed matters only when nothing else is, and
    /// [`negotiate_media_type`] asks that afterwards.
    ///
    /// Out of line: only a few members get here, and the loop over all of
    /// them stays small without it (measured: 81 → 75 ns on Chrome's
    /// `Accept`).
    #[inline(never)]
    fn member(&mut self, member: &[u8], offered: &[MediaType]) {
        // The parameters are read once, when the first offer is named.
        let mut params: Option<RangeParameters<'_>> = None;
        for (offer, score) in offered.iter().zip(self.scores.iter_mut()) {
            let Some(naming) = Naming::of(member, offer) else {
                continue;
            };
            let params = match params {
                Some(ref params) => params,
                None => {
                    let Some(parsed) = RangeParameters::parse(&member[naming.length..]) else {
                        return;
                    };
                    self.any_valid = true;
                    params.insert(parsed)
                }
            };
            let Some(specificity) = params.specificity(naming, offer) else {
                continue;
            };
            if score.is_none_or(|(s, _)| specificity > s) {
                *score = Some((specificity, params.quality));
            }
        }
    }

    /// The offer chosen: the best weighted, or the first when the header
    /// is absent or has no well-formed member.
    #[inline]
    fn choice(&self, offered: &[MediaType]) -> Option<usize> {
        if !self.any_valid {
            return (!offered.is_empty()).then_some(0);
        }
        best(
            self.scores[..offered.len()]
                .iter()
                .map(|s| s.map_or(0, |(_, q)| q)),
        )
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

/// The bit of [`Scoring::firsts`] for a member's first byte: ASCII letters
/// of either case share one.
#[inline(always)]
const fn first_bit(byte: u8) -> u64 {
    1 << ((byte | 0x20) % 64)
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

/// How a member of `Accept` names an offer by its `type/subtype`.
#[derive(Clone, Copy)]
struct Naming {
    /// `*/*` is 0, `type/*` is 1, `type/subtype` is 2.
    specificity: u8,
    /// The length of the `type/subtype` the member begins with.
    length: usize,
}

impl Naming {
    /// How `member` names `offer`, if it does: it begins with `*/*`,
    /// `type/*` or `type/subtype` (case-insensitively), followed by anything
    /// but a `tchar`. The cheap single-byte checks come first, since most
    /// members name nothing.
    #[inline]
    fn of(member: &[u8], offer: &MediaType) -> Option<Naming> {
        let begins_with = |kind: &[u8], subtype: &[u8]| {
            let slash = kind.len();
            let end = slash + 1 + subtype.len();
            let named = member.len() >= end
                && member[slash] == b'/'
                && member.get(end).is_none_or(|&b| !TCHAR[usize::from(b)])
                && eq_folded(&member[slash + 1..end], subtype)
                && eq_folded(&member[..slash], kind);
            named.then_some(end)
        };
        let kind = offer.kind.as_bytes();
        let naming = |specificity, length| Naming {
            specificity,
            length,
        };
        match member.first().map(u8::to_ascii_lowercase) {
            Some(b'*') => begins_with(b"*", b"*").map(|end| naming(0, end)),
            Some(first) if kind.first() == Some(&first) => begins_with(kind, b"*")
                .map(|end| naming(1, end))
                .or_else(|| begins_with(kind, offer.subtype.as_bytes()).map(|end| naming(2, end))),
            _ => None,
        }
    }
}

/// Whether `member` is a well-formed media range (§12.5.1), whatever it names.
fn is_media_range(member: &[u8]) -> bool {
    let mut cursor = Cursor::new(member);
    let kind = cursor.token();
    if !cursor.eat(b'/') {
        return false;
    }
    let subtype = cursor.token();
    let valid_head = !kind.is_empty() && !subtype.is_empty() && (kind != b"*" || subtype == b"*");
    valid_head && RangeParameters::parse(cursor.rest).is_some()
}

/// The parameters of a media range, after its `type/subtype`.
struct RangeParameters<'a> {
    /// The `charset` parameter, if given (unquoted).
    charset: Option<&'a [u8]>,
    /// The range names a parameter we never send: as `type/subtype`, it
    /// matches nothing.
    foreign_param: bool,
    quality: Quality,
}

impl<'a> RangeParameters<'a> {
    /// No parameters: a range that matches on its `type/subtype` alone.
    const NONE: RangeParameters<'static> = RangeParameters {
        charset: None,
        foreign_param: false,
        quality: DEFAULT_QUALITY,
    };

    /// Parse `;name=value` pairs up to the member's end; `None` if malformed.
    /// The two shapes browsers send, nothing and a lone `;q=` weight, are
    /// read in place; anything else goes to the full reading.
    #[inline(always)]
    fn parse(rest: &'a [u8]) -> Option<RangeParameters<'a>> {
        match rest {
            [] => return Some(RangeParameters::NONE),
            [b';', b'q' | b'Q', b'=', weight @ ..] => {
                if let Some(quality) = parse_quality(weight) {
                    return Some(RangeParameters {
                        quality,
                        ..RangeParameters::NONE
                    });
                }
            }
            _ => {}
        }
        RangeParameters::parse_list(&mut Cursor::new(rest))
    }

    /// [`RangeParameters::parse`] for any parameter list.
    fn parse_list(cursor: &mut Cursor<'a>) -> Option<RangeParameters<'a>> {
        let mut params = RangeParameters::NONE;
        while let Some((name, value)) = cursor.parameter()? {
            if eq_folded(name, b"q") {
                // The weight ends the media-range parameters; what follows
                // are accept-ext parameters, which carry no meaning here.
                params.quality = parse_quality(value)?;
                break;
            } else if eq_folded(name, b"charset") {
                params.charset = Some(unquote(value));
            } else {
                params.foreign_param = true;
            }
        }
        Some(params)
    }

    /// How specifically a range with these parameters, naming `offer` as
    /// `naming` says, matches it (higher is more specific), or `None` if its
    /// parameters rule the offer out. Parameters count only on a full
    /// `type/subtype`.
    #[inline]
    fn specificity(&self, naming: Naming, offer: &MediaType) -> Option<u8> {
        if naming.specificity < 2 {
            return Some(naming.specificity);
        }
        if self.foreign_param {
            return None;
        }
        match (self.charset, offer.charset) {
            (None, _) => Some(2),
            (Some(wanted), ours)
                if eq_folded(wanted, ours.unwrap_or(IMPLIED_CHARSET).as_bytes()) =>
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

/// The members of one list-valued field (RFC 9110 §5.6.1): split at
/// commas outside quoted strings, each from its first byte that is not
/// optional whitespace; empty members are skipped. Whitespace before the
/// comma is left on the member: its reader passes over it as it does over
/// the whitespace around parameters.
#[inline]
fn members(field: &[u8]) -> Members<'_> {
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
struct Members<'a> {
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
    /// The delimiters of `field[at..]` (`at` within the field, or 0).
    ///
    /// On x86-64 a whole chunk is compared in one SSE2 register (through
    /// `safe_arch`, so this crate stays free of `unsafe`); a chunk that
    /// would run past the end is read as the field's last sixteen bytes,
    /// its masks shifted. Shorter fields, and other targets, read two
    /// eight-byte words instead.
    #[inline(always)]
    fn at(field: &[u8], at: usize) -> Delimiters {
        #[cfg(target_arch = "x86_64")]
        if field.len() >= CHUNK {
            let from = at.min(field.len() - CHUNK);
            let chunk = field[from..from + CHUNK].try_into().expect("sixteen bytes");
            return Delimiters::of_chunk(chunk).shifted(at - from);
        }
        Delimiters::of_words(field, at)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of_chunk(chunk: &[u8; CHUNK]) -> Delimiters {
        use safe_arch::set_splat_i8_m128i as splat;
        use safe_arch::{cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
        let bytes = load_unaligned_m128i(chunk);
        let mask = |byte: u8| {
            let equal = cmp_eq_mask_i8_m128i(bytes, splat(i8::from_ne_bytes([byte])));
            u32::from_ne_bytes(move_mask_i8_m128i(equal).to_ne_bytes())
        };
        Delimiters {
            commas: mask(b','),
            quotes: mask(b'"'),
        }
    }

    /// The delimiters `bytes` further on.
    #[cfg(target_arch = "x86_64")]
    fn shifted(self, bytes: usize) -> Delimiters {
        Delimiters {
            commas: self.commas >> bytes,
            quotes: self.quotes >> bytes,
        }
    }

    /// The same, one eight-byte word at a time without SIMD.
    #[inline(always)]
    fn of_words(field: &[u8], at: usize) -> Delimiters {
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
fn trim_leading_ows(mut bytes: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = bytes {
        bytes = rest;
    }
    bytes
}

/// `bytes` without trailing spaces and tabs.
#[inline(always)]
fn trim_trailing_ows(mut bytes: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\t'] = bytes {
        bytes = rest;
    }
    bytes
}

/// A cursor over one member of a list: a token with `;name=value`
/// parameters, optional whitespace around the semicolons. It holds what is
/// left to read.
struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn new(member: &'a [u8]) -> Self {
        Cursor { rest: member }
    }

    #[inline]
    fn eat(&mut self, byte: u8) -> bool {
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
    fn token(&mut self) -> &'a [u8] {
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
    fn parameter(&mut self) -> Option<Option<(&'a [u8], &'a [u8])>> {
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

/// Parse a qvalue: `0[.ddd]` or `1[.000]` (RFC 9110 §12.4.2).
#[inline]
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

/// Whether `bytes` equals `lower`, a lowercase ASCII string, ignoring
/// ASCII case. Unlike `eq_ignore_ascii_case` it folds one side only and
/// does not stop early, so the compiler makes it a short branch-free run.
#[inline]
fn eq_folded(bytes: &[u8], lower: &[u8]) -> bool {
    bytes.len() == lower.len()
        && bytes
            .iter()
            .zip(lower)
            .fold(0, |diff, (b, l)| diff | (b.to_ascii_lowercase() ^ l))
            == 0
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

    fn accept_strategy() -> impl Strategy<Value = String> {
        let range = prop_oneof![
            Just("text/html"),
            Just("TEXT/Markdown"),
            Just("text/markdown"),
            Just("application/json"),
            Just("Application/JSON"),
            Just("*/*"),
            Just("text/*"),
            Just("application/*"),
            Just("image/webp"),
            Just("*/json"),
            Just("text"),
            Just("text /html"),
            Just("t/html"),
            Just(""),
        ];
        let parameter = prop_oneof![
            Just(""),
            Just(";q=0.5"),
            Just(";q=0"),
            Just(" ; q=1"),
            Just(";Q=0.25"),
            Just(";charset=utf-8"),
            Just(";charset=UTF-8"),
            Just(";charset=latin1"),
            Just(";level=1"),
            Just(";q=2"),
            Just(";q=0.8;ext=1"),
            Just(";q = 0.5"),
            Just(";"),
            Just(";x"),
        ];
        let member = (range, parameter.clone(), parameter, "[ \t]{0,2}")
            .prop_map(|(r, p1, p2, ows)| format!("{ows}{r}{p1}{p2}{ows}"));
        prop::collection::vec(member, 0..7).prop_map(|members| members.join(","))
    }

    /// A deliberately naive reading of RFC 9110 §12.5.1, allocation and all,
    /// that the real parser must agree with on headers without quotes.
    fn oracle_media_type(header: &str, offered: &[MediaType]) -> Option<usize> {
        let is_token = |t: &str| !t.is_empty() && t.bytes().all(|b| TCHAR[usize::from(b)]);
        let trim = |t: &str| t.trim_matches([' ', '\t']).to_string();
        let mut any_valid = false;
        let mut scores: Vec<Option<(u8, Quality)>> = vec![None; offered.len()];
        for member in header.split(',').map(trim).filter(|m| !m.is_empty()) {
            let mut parts = member.split(';');
            let head = trim(parts.next().unwrap_or_default());
            let Some((kind, subtype)) = head.split_once('/') else {
                continue;
            };
            if !is_token(kind) || !is_token(subtype) || (kind == "*" && subtype != "*") {
                continue;
            }
            let (mut q, mut charset, mut foreign, mut valid) = (1000, None, false, true);
            for part in parts.map(trim) {
                let Some((name, value)) = part.split_once('=') else {
                    valid = false;
                    break;
                };
                if !is_token(name) || !is_token(value) {
                    valid = false;
                    break;
                }
                match name.to_ascii_lowercase().as_str() {
                    "q" => {
                        match parse_quality(value.as_bytes()) {
                            Some(weight) => q = weight,
                            None => valid = false,
                        }
                        break;
                    }
                    "charset" => charset = Some(value.to_ascii_lowercase()),
                    _ => foreign = true,
                }
            }
            if !valid {
                continue;
            }
            any_valid = true;
            let (kind, subtype) = (kind.to_ascii_lowercase(), subtype.to_ascii_lowercase());
            for (offer, score) in offered.iter().zip(scores.iter_mut()) {
                let specificity = if kind == "*" {
                    0
                } else if kind != offer.kind {
                    continue;
                } else if subtype == "*" {
                    1
                } else if subtype != offer.subtype || foreign {
                    continue;
                } else {
                    match &charset {
                        None => 2,
                        Some(c) if c == offer.charset.unwrap_or(IMPLIED_CHARSET) => 3,
                        Some(_) => continue,
                    }
                };
                if score.is_none_or(|(s, _)| specificity > s) {
                    *score = Some((specificity, q));
                }
            }
        }
        if !any_valid {
            return (!offered.is_empty()).then_some(0);
        }
        best(scores.iter().map(|s| s.map_or(0, |(_, q)| q)))
    }

    proptest! {
        // Disagreements need two members about the same offer; give the
        // generator room to find them.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn media_types_agree_with_a_naive_reading(header in accept_strategy()) {
            for offered in [&PAGE[..], &[JSON], &[JSON, HTML, MARKDOWN]] {
                prop_assert_eq!(
                    negotiate_media_type([header.as_bytes()], offered),
                    oracle_media_type(&header, offered),
                    "{:?} for {:?}", header, offered
                );
            }
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
            // Both ways of reading: SSE2 on x86-64 for long fields, and words.
            prop_assert_eq!(Delimiters::at(field, at), expected);
            prop_assert_eq!(Delimiters::of_words(field, at), expected);
        }
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
