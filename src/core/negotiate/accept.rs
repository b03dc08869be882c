//! `Accept` (RFC 9110 §12.5.1): which representation of a resource, by
//! media type, a request gets.

use super::list::{best, members, unquote, Member, Quality};

/// Every representation is UTF-8; for types whose `Content-Type` carries
/// no `charset` (such as `application/json`, RFC 8259 §8.1) it is implied.
const IMPLIED_CHARSET: &str = "utf-8";

/// At most this many representations of one resource are scored by
/// [`negotiate_media_type`]; later offers are ignored.
pub const MAX_MEDIA_OFFERS: usize = 4;

pub use crate::media::MediaType;

/// Choose a representation by media type (RFC 9110 §12.5.1).
///
/// `lines` are the values of the request's `Accept` lines (none when the
/// header is absent); `offered` lists the media types available, in the
/// server's order of preference.
///
/// Each offer takes the weight of the most specific range that matches it
/// (`type/subtype;charset` over `type/subtype` over `type/*` over `*/*`,
/// the first of equals); an offer no range matches is unacceptable. No
/// header, or one without a well-formed media range, accepts everything.
/// The highest weight wins; ties go to the earlier offer.
pub fn negotiate_media_type<F>(lines: F, offered: &[MediaType]) -> Option<usize>
where
    F: IntoIterator,
    F::Item: AsRef<[u8]>,
{
    let offered = &offered[..offered.len().min(MAX_MEDIA_OFFERS)];
    let mut lines = lines.into_iter();
    let first = lines.next();
    let second = lines.next();
    // The one shortcut: a field that is exactly one offer's type, as API
    // clients and the load table's rows send it, is that offer without
    // reading the list (benches/README.md, "Issue 41").
    if let (Some(only), None) = (&first, &second) {
        if let Some(offer) = offered.iter().position(|o| is_exactly(only.as_ref(), o)) {
            return Some(offer);
        }
    }
    // A browser's field (`text/html,application/xhtml+xml,…`) leads with
    // the first offer, bare, so at full weight: it wins unless a later range
    // is more specific for it, and every such range names its type.
    if let (Some(only), None, Some(preferred)) = (&first, &second, offered.first()) {
        if leads_alone(only.as_ref(), preferred) {
            return Some(0);
        }
    }
    // Per offer: how specific the best range naming it is, and its weight.
    let mut scores: [Option<(u8, Quality)>; MAX_MEDIA_OFFERS] = [None; MAX_MEDIA_OFFERS];
    let mut any_range = false;
    for line in first.into_iter().chain(second).chain(lines) {
        for range in members(line.as_ref()).filter_map(MediaRange::of) {
            any_range = true;
            for (offer, score) in offered.iter().zip(&mut scores) {
                let Some(specificity) = range.specificity(offer) else {
                    continue;
                };
                if score.is_none_or(|(best, _)| specificity > best) {
                    *score = Some((specificity, range.quality));
                }
            }
        }
    }
    if !any_range {
        return (!offered.is_empty()).then_some(0);
    }
    best(
        scores[..offered.len()]
            .iter()
            .map(|s| s.map_or(0, |(_, q)| q)),
    )
}

/// Whether `value` is `offer`'s `type/subtype`, byte for byte.
fn is_exactly(value: &[u8], offer: &MediaType) -> bool {
    let (kind, subtype) = (offer.kind.as_bytes(), offer.subtype.as_bytes());
    value.len() == kind.len() + 1 + subtype.len()
        && value.starts_with(kind)
        && value[kind.len()] == b'/'
        && value.ends_with(subtype)
}

/// Whether `line`'s first member is `offer`'s `type/subtype` byte for byte,
/// without parameters, and no later member names `offer`'s type in any
/// case: no `/` after the first comma follows it.
fn leads_alone(line: &[u8], offer: &MediaType) -> bool {
    let Some(comma) = memchr::memchr(b',', line) else {
        return false;
    };
    let (first, rest) = line.split_at(comma);
    let kind = offer.kind.as_bytes();
    is_exactly(first.trim_ascii_end(), offer)
        && memchr::memchr_iter(b'/', rest).all(|slash| {
            slash < kind.len() || !rest[slash - kind.len()..slash].eq_ignore_ascii_case(kind)
        })
}

/// A member of `Accept` that is a media range: `type/subtype`, `type/*` or
/// `*/*`, with its weight and what its parameters ask.
struct MediaRange<'a> {
    kind: &'a [u8],
    subtype: &'a [u8],
    quality: Quality,
    /// The value of its last `charset` parameter, unquoted.
    charset: Option<&'a [u8]>,
    /// Whether it has a parameter other than `charset`, which no offer has.
    other_parameter: bool,
}

impl<'a> MediaRange<'a> {
    /// The media range `member` is, if it is one.
    fn of(member: Member<'a>) -> Option<MediaRange<'a>> {
        let slash = member.name.iter().position(|&b| b == b'/')?;
        let (kind, subtype) = (&member.name[..slash], &member.name[slash + 1..]);
        let valid = !kind.is_empty()
            && !subtype.is_empty()
            && !subtype.contains(&b'/')
            && (kind != b"*" || subtype == b"*");
        if !valid {
            return None;
        }
        let mut range = MediaRange {
            kind,
            subtype,
            quality: member.quality,
            charset: None,
            other_parameter: false,
        };
        for (name, value) in member.parameters() {
            if name.eq_ignore_ascii_case(b"charset") {
                range.charset = Some(unquote(value));
            } else {
                range.other_parameter = true;
            }
        }
        Some(range)
    }

    /// How specifically this range matches `offer`, if it does: `*/*` is
    /// 0, `type/*` 1, `type/subtype` 2 and 3 with a `charset` that is the
    /// offer's. On `type/subtype` every parameter must be the offer's: any
    /// other than `charset` (the last one given) rules it out.
    fn specificity(&self, offer: &MediaType) -> Option<u8> {
        if self.kind == b"*" {
            return Some(0);
        }
        if !self.kind.eq_ignore_ascii_case(offer.kind.as_bytes()) {
            return None;
        }
        if self.subtype == b"*" {
            return Some(1);
        }
        if self.other_parameter || !self.subtype.eq_ignore_ascii_case(offer.subtype.as_bytes()) {
            return None;
        }
        let ours = offer.charset.unwrap_or(IMPLIED_CHARSET).as_bytes();
        match self.charset {
            None => Some(2),
            Some(wanted) if wanted.eq_ignore_ascii_case(ours) => Some(3),
            Some(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::list::parse_quality;
    use super::*;
    use proptest::prelude::*;

    const JSON: MediaType = MediaType::JSON;
    const HTML: MediaType = MediaType::HTML;
    const MARKDOWN: MediaType = MediaType::MARKDOWN;
    const PAGE: [MediaType; 2] = [HTML, MARKDOWN];

    fn page(header: &str) -> Option<MediaType> {
        negotiate_media_type([header.as_bytes()], &PAGE).map(|i| PAGE[i])
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
    fn a_browser_s_leading_type_is_read_no_further_than_it_may_be() {
        let chrome = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,\
                      image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
        let firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        for header in [chrome, firefox, "text/html ,image/webp"] {
            assert!(leads_alone(header.as_bytes(), &HTML), "{header}");
            assert_eq!(page(header), Some(HTML), "{header}");
        }
        // A later range that is more specific for the type, in any case,
        // is read: here it rules HTML out.
        for header in [
            "text/html,text/html;charset=utf-8;q=0",
            "text/html, TEXT/HTML;charset=UTF-8;q=0",
        ] {
            assert!(!leads_alone(header.as_bytes(), &HTML), "{header}");
            assert_eq!(page(header), None, "{header}");
        }
        // Not bare, not first, not the first offer: the list is read.
        for header in [
            "text/html;q=0.5,text/markdown",
            "text/markdown,text/html",
            "*/*,text/html",
        ] {
            assert!(!leads_alone(header.as_bytes(), &HTML), "{header}");
        }
        // Only the first offer may be chosen so: another ties with `*/*`.
        assert_eq!(page("text/markdown,*/*"), Some(HTML));
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
        let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        let is_token = |t: &str| !t.is_empty() && t.bytes().all(tchar);
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

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = negotiate_media_type([bytes.as_slice()], &PAGE);
        }
    }
}
