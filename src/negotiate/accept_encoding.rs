//! `Accept-Encoding` (RFC 9110 §12.5.3): which content coding a response
//! is sent in.

use super::list::{members, trim_trailing_ows, Cursor};
use super::{best, eq_folded, first_bit, parse_quality, Coding, Quality, DEFAULT_QUALITY};

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ALL: [Coding; 3] = [Coding::Br, Coding::Gzip, Coding::Identity];

    fn encoding(header: Option<&str>) -> Option<Coding> {
        negotiate_encoding(header.map(str::as_bytes), ALL).map(|i| ALL[i])
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
        }
    }
}
