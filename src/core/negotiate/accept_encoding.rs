//! `Accept-Encoding` (RFC 9110 §12.5.3): which content coding a response
//! is sent in.

use super::list::{best, members, Quality, DEFAULT_QUALITY};
use super::Coding;

/// The weight given to `identity` when `Accept-Encoding` neither names it nor
/// has `*`: still acceptable (§12.5.3), but any coding the client named wins.
const IMPLICIT_IDENTITY: Quality = 1;

/// Choose the content coding for a response (RFC 9110 §12.5.3).
///
/// `lines` are the values of the request's `Accept-Encoding` lines (none
/// when the header is absent); `offered` lists the codings available, in the
/// server's order of preference (smallest body first).
///
/// Each offer gets the weight [`AcceptEncoding::quality`] gives it, and
/// [`best`] chooses: the highest weight wins, ties go to the earlier offer,
/// and `None` means none is acceptable.
pub fn negotiate_encoding<'a>(
    lines: impl IntoIterator<Item = &'a [u8]>,
    offered: impl IntoIterator<Item = Coding>,
) -> Option<usize> {
    let accepted = AcceptEncoding::parse(lines);
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
    /// the header is absent). Malformed members (a bad token, a bad weight,
    /// any other parameter) are ignored.
    pub fn parse<F>(lines: F) -> Self
    where
        F: IntoIterator,
        F::Item: AsRef<[u8]>,
    {
        let mut accepted = AcceptEncoding {
            present: false,
            named: [None; Coding::ALL.len()],
            star: None,
        };
        let mut lines = lines.into_iter();
        let first = lines.next();
        let second = lines.next();
        // The shortcut `Accept` has too: a field that is exactly one coding's
        // token, as a normalising cache forwards it (benches/README.md).
        if let (Some(only), None) = (&first, &second) {
            if let Some(coding) = Coding::from_token(only.as_ref()) {
                accepted.present = true;
                accepted.named[coding.index()] = Some(DEFAULT_QUALITY);
                return accepted;
            }
        }
        for line in first.into_iter().chain(second).chain(lines) {
            accepted.present = true;
            for member in members(line.as_ref()).filter(|m| m.is_bare()) {
                let weight = if member.name == b"*" {
                    &mut accepted.star
                } else if let Some(coding) = Coding::from_token(member.name) {
                    &mut accepted.named[coding.index()]
                } else {
                    continue;
                };
                weight.get_or_insert(member.quality);
            }
        }
        accepted
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

#[cfg(test)]
mod tests {
    use super::super::list::parse_quality;
    use super::*;
    use proptest::prelude::*;

    const ALL: [Coding; 3] = [Coding::Br, Coding::Gzip, Coding::Identity];

    fn encoding(header: Option<&str>) -> Option<Coding> {
        negotiate_encoding(header.map(str::as_bytes), ALL).map(|i| ALL[i])
    }

    /// What a resource compressed against a dictionary offers, smallest first.
    const WITH_DICTIONARY: [Coding; 5] = [
        Coding::Dcb,
        Coding::Dcz,
        Coding::Br,
        Coding::Gzip,
        Coding::Identity,
    ];

    fn encoding_with_dictionary(header: Option<&str>) -> Option<Coding> {
        negotiate_encoding(header.map(str::as_bytes), WITH_DICTIONARY).map(|i| WITH_DICTIONARY[i])
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
    fn dictionary_codings_are_acceptable_only_when_named() {
        let chosen = encoding_with_dictionary;
        assert_eq!(
            chosen(Some("gzip, deflate, br, zstd, dcb, dcz")),
            Some(Coding::Dcb)
        );
        assert_eq!(chosen(Some("gzip, br, dcz")), Some(Coding::Dcz));
        assert_eq!(chosen(Some("dcz")), Some(Coding::Dcz));
        assert_eq!(chosen(Some("*;q=0, dcz")), Some(Coding::Dcz));
        assert_eq!(
            chosen(Some("*")),
            Some(Coding::Br),
            "`*` holds no dictionary"
        );
        assert_eq!(chosen(Some("*, br;q=0.5")), Some(Coding::Gzip));
        assert_eq!(chosen(Some("identity;q=0, deflate")), None);
        assert_eq!(chosen(Some("")), Some(Coding::Identity));
        assert_eq!(chosen(None), Some(Coding::Identity));
    }

    #[test]
    fn dictionary_codings_have_their_own_weights() {
        let chosen = encoding_with_dictionary;
        assert_eq!(chosen(Some("br, dcb;q=0, dcz;q=0")), Some(Coding::Br));
        assert_eq!(chosen(Some("dcb;q=0, dcz, br")), Some(Coding::Dcz));
        assert_eq!(chosen(Some("br, dcb;q=0.5")), Some(Coding::Br));
        assert_eq!(chosen(Some("DCB;Q=0.9, br;q=0.8")), Some(Coding::Dcb));
        assert_eq!(chosen(Some("dcb, dcb;q=0, dcz")), Some(Coding::Dcb));
        assert_eq!(chosen(Some("dcb;level=1, br;q=0.1")), Some(Coding::Br));
    }

    #[test]
    fn weights_can_be_asked_per_coding() {
        // In the order of `Coding::ALL`: identity, gzip, br, dcb, dcz.
        let weights = |header: Option<&str>| {
            let accepted = AcceptEncoding::parse(header.map(str::as_bytes));
            Coding::ALL.map(|coding| accepted.quality(coding))
        };
        assert_eq!(weights(None), [1000, 0, 0, 0, 0]);
        assert_eq!(weights(Some("")), [1, 0, 0, 0, 0]);
        assert_eq!(weights(Some("*;q=0.5")), [500, 500, 500, 0, 0]);
        assert_eq!(
            weights(Some("br;q=0.8, dcz;q=0.9, *;q=0.1")),
            [100, 100, 800, 0, 900]
        );
        assert_eq!(weights(Some("identity;q=0, dcb")), [0, 0, 0, 1000, 0]);
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
        if matches!(coding, Coding::Dcb | Coding::Dcz) {
            return named.unwrap_or(0);
        }
        named.or(star).unwrap_or(if coding == Coding::Identity {
            IMPLICIT_IDENTITY
        } else {
            0
        })
    }

    /// Headers of [`header_strategy`] with members naming `dcb` or `dcz`
    /// before or after the others.
    fn dictionary_header_strategy() -> impl Strategy<Value = String> {
        let named = prop_oneof![
            Just("dcb"),
            Just("dcz"),
            Just("DCB"),
            Just("dcb;q=0"),
            Just("dcz;q=0.5"),
            Just("dcz ; q=1"),
            Just("dcb;q=2"),
        ];
        (
            header_strategy(),
            prop::collection::vec(named, 0..3),
            any::<bool>(),
        )
            .prop_map(|(header, named, first)| {
                let named = named.join(",");
                if first {
                    format!("{named},{header}")
                } else {
                    format!("{header},{named}")
                }
            })
    }

    proptest! {
        #[test]
        fn weights_agree_with_a_naive_reading(header in dictionary_header_strategy()) {
            let accepted = AcceptEncoding::parse([header.as_bytes()]);
            for coding in Coding::ALL {
                prop_assert_eq!(
                    accepted.quality(coding),
                    oracle_quality(&header, coding),
                    "{:?} for {:?}", header, coding
                );
            }
        }

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
            let _ = negotiate_encoding([bytes.as_slice()], WITH_DICTIONARY);
        }
    }
}
