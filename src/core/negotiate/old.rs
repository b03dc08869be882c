//! Negotiation as it was before issue 41 (common values kept ahead of
//! time, first-byte bitmasks, a reader per field), kept while property
//! tests compare the new reading with it on random headers.
#![allow(dead_code)]

mod accept;
mod accept_encoding;
mod list;

use super::{Coding, MediaType};

pub type Quality = u16;
pub const DEFAULT_QUALITY: Quality = 1000;

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

pub fn best(weights: impl Iterator<Item = Quality>) -> Option<usize> {
    let mut chosen: Option<(usize, Quality)> = None;
    for (i, q) in weights.enumerate() {
        if q > 0 && chosen.is_none_or(|(_, best)| q > best) {
            chosen = Some((i, q));
        }
    }
    chosen.map(|(i, _)| i)
}

const fn first_bit(byte: u8) -> u64 {
    1 << ((byte | 0x20) % 64)
}

fn eq_folded(bytes: &[u8], lower: &[u8]) -> bool {
    bytes.len() == lower.len()
        && bytes
            .iter()
            .zip(lower)
            .fold(0, |diff, (b, l)| diff | (b.to_ascii_lowercase() ^ l))
            == 0
}

/// The old `held_dictionary`, whose hashes were base64 without padding.
fn old_held_dictionary<'a>(
    available: impl IntoIterator<Item = &'a [u8]>,
    hashes: &[String],
) -> Option<usize> {
    use list::{trim_leading_ows, trim_trailing_ows};
    let mut lines = available.into_iter();
    let (Some(value), None) = (lines.next(), lines.next()) else {
        return None;
    };
    let [b':', rest @ ..] = trim_trailing_ows(trim_leading_ows(value)) else {
        return None;
    };
    let (encoded, after) = rest.split_at_checked(43)?;
    let after = after.strip_prefix(b"=").unwrap_or(after);
    let [b':', parameters @ ..] = after else {
        return None;
    };
    if !matches!(parameters, [] | [b';', ..]) {
        return None;
    }
    let sextet = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let hash_bits = |c| sextet(c).map(|v| v >> 2);
    hashes.iter().position(|canonical| {
        let canonical = canonical.as_bytes();
        let (Some((&last, head)), Some((&c_last, c_head))) =
            (encoded.split_last(), canonical.split_last())
        else {
            return false;
        };
        head == c_head && hash_bits(last).is_some() && hash_bits(last) == hash_bits(c_last)
    })
}

mod tests {
    use super::super::{held_dictionary, negotiate_media_type, AcceptEncoding};
    use super::*;
    use proptest::prelude::*;

    const fn media(kind: &'static str, subtype: &'static str, charset: bool) -> MediaType {
        MediaType {
            kind,
            subtype,
            charset: if charset { Some("utf-8") } else { None },
        }
    }
    const HTML: MediaType = media("text", "html", true);
    const MARKDOWN: MediaType = media("text", "markdown", true);
    const JSON: MediaType = media("application", "json", false);
    /// What the resources offer: a page, a JSON document, `/search`, an
    /// error, and more offers than are scored.
    const OFFERS: [&[MediaType]; 6] = [
        &[HTML, MARKDOWN],
        &[JSON],
        &[HTML, MARKDOWN, JSON],
        &[JSON, HTML, MARKDOWN],
        &[],
        &[MARKDOWN, JSON, HTML, JSON, HTML],
    ];

    /// `piece` in random ASCII case.
    fn cased(piece: &'static str) -> impl Strategy<Value = String> {
        prop::collection::vec(any::<bool>(), piece.len()).prop_map(move |upper| {
            piece
                .chars()
                .zip(upper)
                .map(|(c, up)| if up { c.to_ascii_uppercase() } else { c })
                .collect()
        })
    }

    fn ows() -> impl Strategy<Value = String> {
        prop_oneof![4 => Just(String::new()), 1 => "[ \t]{1,2}"]
    }

    /// A weight, well formed or nearly.
    fn weight() -> impl Strategy<Value = String> {
        prop_oneof![
            (0u16..=1000).prop_map(|q| format!("{}.{:03}", q / 1000, q % 1000)),
            (0u16..=10).prop_map(|q| format!("0.{q}")),
            Just("1".to_string()),
            Just("0".to_string()),
            Just("1.".to_string()),
            "[0-9.\"]{0,5}",
        ]
    }

    /// A parameter, well formed or nearly.
    fn parameter() -> impl Strategy<Value = String> {
        let name = prop_oneof![
            3 => cased("q"),
            2 => cased("charset"),
            1 => Just("level".to_string()),
            1 => Just("v".to_string()),
            1 => Just(String::new()),
        ];
        let value = prop_oneof![
            3 => weight(),
            2 => cased("utf-8"),
            1 => Just("latin1".to_string()),
            1 => Just("\"utf-8\"".to_string()),
            1 => Just("\"a,b;q=0\"".to_string()),
            1 => Just("\"open".to_string()),
            1 => Just("b3".to_string()),
            1 => Just(String::new()),
        ];
        (
            ows(),
            name,
            ows(),
            prop_oneof![4 => Just("="), 1 => Just(" = ")],
            value,
        )
            .prop_map(|(a, n, b, eq, v)| format!("{a};{b}{n}{eq}{v}"))
    }

    /// A member: a realistic name, or junk, with parameters.
    fn member(names: Vec<&'static str>) -> impl Strategy<Value = String> {
        let name = prop_oneof![
            6 => prop::sample::select(names).prop_flat_map(cased),
            1 => "[a-z*/ \"-]{0,8}",
            1 => "[ -~]{0,6}",
        ];
        let parameters = prop::collection::vec(parameter(), 0..3).prop_map(|p| p.concat());
        (
            ows(),
            name,
            parameters,
            ows(),
            prop_oneof![6 => Just(""), 1 => Just(";x")],
        )
            .prop_map(|(a, n, p, b, tail)| format!("{a}{n}{p}{tail}{b}"))
    }

    /// A field: one to three lines of such members.
    fn lines(names: Vec<&'static str>) -> impl Strategy<Value = Vec<String>> {
        let line = prop::collection::vec(member(names), 0..7).prop_map(|m| m.join(","));
        prop::collection::vec(line, 1..3)
    }

    fn accepts() -> impl Strategy<Value = Vec<String>> {
        lines(vec![
            "text/html",
            "text/markdown",
            "application/json",
            "application/xhtml+xml",
            "application/xml",
            "image/webp",
            "*/*",
            "text/*",
            "application/*",
            "*/json",
            "text",
            "text/html/x",
            "application/signed-exchange",
        ])
    }

    fn accept_encodings() -> impl Strategy<Value = Vec<String>> {
        lines(vec![
            "gzip", "deflate", "br", "zstd", "dcb", "dcz", "identity", "x-gzip", "*", "compress",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn media_types_are_chosen_as_before(lines in accepts()) {
            for offered in OFFERS {
                prop_assert_eq!(
                    negotiate_media_type(&lines, offered),
                    accept::negotiate_media_type(&lines, offered),
                    "{:?} for {:?}", lines, offered
                );
            }
        }

        #[test]
        fn codings_are_weighed_as_before(lines in accept_encodings()) {
            let new = AcceptEncoding::parse(&lines);
            let old = accept_encoding::AcceptEncoding::parse(&lines);
            for coding in Coding::ALL {
                prop_assert_eq!(new.quality(coding), old.quality(coding), "{:?} {:?}", lines, coding);
            }
        }

        #[test]
        fn arbitrary_bytes_are_read_as_before(bytes in prop::collection::vec(any::<u8>(), 0..80)) {
            for offered in OFFERS {
                prop_assert_eq!(
                    negotiate_media_type([&bytes], offered),
                    accept::negotiate_media_type([&bytes], offered)
                );
            }
            prop_assert_eq!(
                AcceptEncoding::parse([&bytes]).quality(Coding::Br),
                accept_encoding::AcceptEncoding::parse([&bytes]).quality(Coding::Br)
            );
        }

        #[test]
        fn dictionaries_are_found_as_before(
            hashes in prop::collection::vec(any::<[u8; 32]>(), 0..3),
            named in any::<prop::sample::Index>(),
            value in "[ ]?:[A-Za-z0-9+/]{40,45}={0,2}:(;a=1|x| )?",
            take_hash in any::<bool>(),
            edit in any::<prop::sample::Index>(),
            junk in "[A-Za-z0-9+/=: \"-]{0,1}",
        ) {
            use base64::Engine as _;
            let encoded: Vec<String> = hashes
                .iter()
                .map(|h| base64::engine::general_purpose::STANDARD_NO_PAD.encode(h))
                .collect();
            // Often a hash of the server's, lightly edited; else random.
            let mut value = value;
            if take_hash && !hashes.is_empty() {
                let hash = &hashes[named.index(hashes.len())];
                value = format!(":{}:", base64::engine::general_purpose::STANDARD.encode(hash));
                let at = edit.index(value.len());
                if value.is_char_boundary(at) {
                    value.replace_range(at..at, &junk);
                }
            }
            prop_assert_eq!(
                held_dictionary([value.as_bytes()], &hashes),
                old_held_dictionary([value.as_bytes()], &encoded),
                "{:?}", value
            );
        }
    }
}
