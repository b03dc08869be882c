//! `Accept` (RFC 9110 §12.5.1): which representation of a resource, by
//! media type, a request gets.

use super::list::{members, unquote, Cursor, TCHAR};
use super::{best, eq_folded, first_bit, parse_quality, Quality, DEFAULT_QUALITY};

/// Every representation is UTF-8; for types whose `Content-Type` carries
/// no `charset` (such as `application/json`, RFC 8259 §8.1) it is implied.
const IMPLIED_CHARSET: &str = "utf-8";

/// At most this many representations of one resource are scored by
/// [`negotiate_media_type`]; later offers are ignored.
const MAX_MEDIA_OFFERS: usize = 4;

use super::super::MediaType;

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
