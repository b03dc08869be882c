//! Compression dictionary transport (RFC 9842): which of the server's
//! dictionaries a request says it holds, from `Available-Dictionary`
//! (§2.2) and `Dictionary-ID` (§2.3).
//!
//! Both fields are Structured Field Items (RFC 8941 §3.3):
//! `Available-Dictionary` a Byte Sequence (§3.3.5), the SHA-256 of the
//! dictionary in base64 between colons, and `Dictionary-ID` a String
//! (§3.3.3), the `id` the server gave the dictionary in its
//! `Use-As-Dictionary`. The hash is decoded onto the stack and compared
//! with the server's: nothing is allocated or hashed. Anything malformed
//! names no dictionary, and the request is answered as one that holds none.

use super::list::{trim_leading_ows, trim_trailing_ows};

/// The length of a SHA-256 hash in bytes.
const HASH_LENGTH: usize = 32;

/// The length of a [`HASH_LENGTH`]-byte hash in base64, without its `=`
/// padding (one `=`, for 32 bytes).
const ENCODED_HASH_LENGTH: usize = (HASH_LENGTH * 8).div_ceil(6);

// `decode_hash` reads ten groups of four characters, then three.
const _: () = assert!(HASH_LENGTH == 32 && ENCODED_HASH_LENGTH == 43);

/// Which of the server's `dictionaries`, given as (SHA-256, id), the
/// request holds: the index of the first whose hash `Available-Dictionary`
/// names and whose id `Dictionary-ID` names, when the request has that
/// header. `available` and `ids` are the values of the request's lines of
/// each.
///
/// - `Available-Dictionary` must be a single line holding a Byte Sequence
///   of 32 bytes (`:<base64>:`), with or without its `=` padding and
///   whatever its pad bits (RFC 8941 §3.3.5 asks parsers to accept both).
/// - `Dictionary-ID` may be absent: then the hash decides. Present, it must
///   be a single line holding a String equal, once unescaped, to the
///   dictionary's id.
/// - Parameters after either item (`;a=1`) are ignored.
///
/// Anything else (a second line, a malformed item, an unknown hash, another
/// id) is `None`.
pub fn held_dictionary<'a>(
    available: impl IntoIterator<Item = &'a [u8]>,
    ids: impl IntoIterator<Item = &'a [u8]>,
    dictionaries: &[(&[u8; 32], &str)],
) -> Option<usize> {
    // One line of `Available-Dictionary`, at most one of `Dictionary-ID`.
    let hash = hash_item(at_most_one(available)??)?;
    let id = match at_most_one(ids)? {
        Some(line) => Some(string_item(line)?),
        None => None,
    };
    dictionaries.iter().position(|&(candidate, candidate_id)| {
        *candidate == hash && id.is_none_or(|id| id.is(candidate_id))
    })
}

/// The one line of a field: `Some(None)` when it has none, `None` when it
/// has several (an Item field cannot be split over lines, RFC 8941 §4.2).
fn at_most_one<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Option<Option<&'a [u8]>> {
    let mut lines = lines.into_iter();
    match (lines.next(), lines.next()) {
        (first, None) => Some(first),
        (_, Some(_)) => None,
    }
}

/// The hash a field value holds as a Byte Sequence item (RFC 8941 §3.3.5),
/// if it holds one of [`HASH_LENGTH`] bytes.
fn hash_item(value: &[u8]) -> Option<[u8; HASH_LENGTH]> {
    let [b':', rest @ ..] = trim_ows(value) else {
        return None;
    };
    let end = rest.iter().position(|&b| b == b':')?;
    if !ends_item(&rest[end + 1..]) {
        return None;
    }
    decode_hash(&rest[..end])
}

/// `encoded` decoded from base64 (RFC 4648 §4), if it encodes exactly
/// [`HASH_LENGTH`] bytes. Its `=` padding may be left out and its pad bits
/// need not be zero, as RFC 8941 §3.3.5 asks of parsers.
fn decode_hash(encoded: &[u8]) -> Option<[u8; HASH_LENGTH]> {
    let encoded = encoded.strip_suffix(b"=").unwrap_or(encoded);
    if encoded.len() != ENCODED_HASH_LENGTH {
        return None;
    }
    let mut hash = [0; HASH_LENGTH];
    // The OR of every character's value: it has `NOT_BASE64` if any has.
    let mut values = 0;
    let mut bits_of = |characters: &[u8]| {
        characters.iter().fold(0u32, |bits, &c| {
            let value = BASE64_VALUES[usize::from(c)];
            values |= value;
            bits << 6 | u32::from(value)
        })
    };
    // Ten groups of four characters, three bytes each, then three
    // characters: the last two bytes and two pad bits.
    let (groups, last) = encoded.as_chunks::<4>();
    let (triples, last_bytes) = hash.as_chunks_mut::<3>();
    for (group, triple) in groups.iter().zip(triples) {
        triple.copy_from_slice(&bits_of(group).to_be_bytes()[1..]);
    }
    last_bytes.copy_from_slice(&(bits_of(last) >> 2).to_be_bytes()[2..]);
    (values & NOT_BASE64 == 0).then_some(hash)
}

/// Marks a byte of [`BASE64_VALUES`] that is no base64 character.
const NOT_BASE64: u8 = 0x80;

/// The six bits each character of the base64 alphabet stands for, and
/// [`NOT_BASE64`] for every other byte.
const BASE64_VALUES: [u8; 256] = {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut table = [NOT_BASE64; 256];
    let mut value = 0;
    while value < alphabet.len() {
        table[alphabet[value] as usize] = value as u8;
        value += 1;
    }
    table
};

/// The String a field value holds as an item (RFC 8941 §3.3.3), if it is
/// well formed: printable ASCII between quotes, with only `\"` and `\\`
/// escaped.
fn string_item(value: &[u8]) -> Option<SfString<'_>> {
    let [b'"', rest @ ..] = trim_ows(value) else {
        return None;
    };
    let mut at = 0;
    loop {
        match *rest.get(at)? {
            b'"' => break,
            b'\\' if matches!(rest.get(at + 1), Some(b'"' | b'\\')) => at += 2,
            b'\\' => return None,
            b' '..=b'~' => at += 1,
            _ => return None,
        }
    }
    ends_item(&rest[at + 1..]).then_some(SfString {
        escaped: &rest[..at],
    })
}

/// A well-formed String item, between its quotes, its escapes still in.
#[derive(Clone, Copy)]
struct SfString<'a> {
    escaped: &'a [u8],
}

impl SfString<'_> {
    /// Whether the string, unescaped, is `text`.
    fn is(self, text: &str) -> bool {
        let mut bytes = self.escaped.iter().copied();
        let unescaped = std::iter::from_fn(|| match bytes.next()? {
            b'\\' => bytes.next(),
            b => Some(b),
        });
        unescaped.eq(text.bytes())
    }
}

/// Whether `rest`, what follows a bare item, ends the item: nothing, or its
/// parameters (RFC 8941 §3.1.2), which start at once with `;` and are
/// ignored here.
fn ends_item(rest: &[u8]) -> bool {
    matches!(rest, [] | [b';', ..])
}

/// `bytes` without the optional whitespace around it.
fn trim_ows(bytes: &[u8]) -> &[u8] {
    trim_trailing_ows(trim_leading_ows(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An `Available-Dictionary` value, the one examples usually show: the
    /// SHA-256 of `Hello World`.
    const EXAMPLE: &str = ":pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=:";
    const EXAMPLE_HASH: [u8; 32] = [
        0xa5, 0x91, 0xa6, 0xd4, 0x0b, 0xf4, 0x20, 0x40, 0x4a, 0x01, 0x17, 0x33, 0xcf, 0xb7, 0xb1,
        0x90, 0xd6, 0x2c, 0x65, 0xbf, 0x0b, 0xcd, 0xa3, 0x2b, 0x57, 0xb2, 0x77, 0xd9, 0xad, 0x9f,
        0x14, 0x6e,
    ];
    const OTHER_HASH: [u8; 32] = [7; 32];

    /// The server's dictionaries in these tests: the example second.
    const DICTIONARIES: [(&[u8; 32], &str); 2] =
        [(&OTHER_HASH, "other"), (&EXAMPLE_HASH, "abc123")];

    /// The dictionary a request with these lines of each field holds.
    fn held(available: &[&str], ids: &[&str]) -> Option<usize> {
        held_dictionary(
            available.iter().map(|line| line.as_bytes()),
            ids.iter().map(|line| line.as_bytes()),
            &DICTIONARIES,
        )
    }

    /// Base64 with the standard alphabet (RFC 4648 §4), written apart from
    /// the decoder under test.
    fn base64(bytes: &[u8], padded: bool) -> String {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut text = String::new();
        for chunk in bytes.chunks(3) {
            let mut group = [0u8; 3];
            group[..chunk.len()].copy_from_slice(chunk);
            let n = u32::from_be_bytes([0, group[0], group[1], group[2]]);
            for i in 0..4 {
                if i <= chunk.len() {
                    text.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
                } else if padded {
                    text.push('=');
                }
            }
        }
        text
    }

    #[test]
    fn the_test_encoder_encodes_the_example() {
        assert_eq!(format!(":{}:", base64(&EXAMPLE_HASH, true)), EXAMPLE);
    }

    #[test]
    fn the_hash_names_the_dictionary() {
        assert_eq!(held(&[EXAMPLE], &[]), Some(1));
        let other = format!(":{}:", base64(&OTHER_HASH, true));
        assert_eq!(held(&[&other], &[]), Some(0));
        let unknown = format!(":{}:", base64(&[8; 32], true));
        assert_eq!(held(&[&unknown], &[]), None);
        assert_eq!(
            held_dictionary([EXAMPLE.as_bytes()], None::<&[u8]>, &[]),
            None
        );
    }

    #[test]
    fn padding_may_be_left_out_and_pad_bits_set() {
        let unpadded = format!(":{}:", base64(&EXAMPLE_HASH, false));
        assert_eq!(held(&[&unpadded], &[]), Some(1));
        // `G4=`: `4` is 0b111000, its last two bits the pad bits.
        for pad_bits in ["5", "6", "7"] {
            let set = EXAMPLE.replace("G4=", &format!("G{pad_bits}="));
            assert_eq!(held(&[&set], &[]), Some(1), "{set}");
        }
        assert_eq!(held(&[&EXAMPLE.replace("G4=", "G8=")], &[]), None);
    }

    #[test]
    fn whitespace_around_the_item_and_its_parameters_are_ignored() {
        assert_eq!(held(&[&format!(" \t{EXAMPLE}  ")], &[]), Some(1));
        assert_eq!(held(&[&format!("{EXAMPLE};a=1;b")], &[]), Some(1));
        assert_eq!(held(&[&format!("{EXAMPLE} ;a=1")], &[]), None);
    }

    #[test]
    fn one_line_of_available_dictionary_is_needed() {
        assert_eq!(held(&[], &[]), None);
        assert_eq!(held(&[], &["\"abc123\""]), None);
        assert_eq!(held(&[EXAMPLE, EXAMPLE], &[]), None);
        assert_eq!(held(&[&format!("{EXAMPLE}, {EXAMPLE}")], &[]), None);
    }

    #[test]
    fn anything_but_a_byte_sequence_of_32_bytes_is_refused() {
        let inner = EXAMPLE.trim_matches(':');
        for value in [
            "",
            ":",
            "::",
            inner,
            &format!(":{inner}"),
            &format!("{inner}:"),
            &format!("\"{inner}\""),
            &format!(":{inner}=:"),
            &format!(":{}:", inner.replacen('p', "-", 1)),
            &format!(":{}:", inner.replacen('p', "_", 1)),
            &format!(":{}:", base64(&EXAMPLE_HASH[..31], true)),
            &format!(
                ":{}:",
                base64(&[EXAMPLE_HASH, OTHER_HASH].concat()[..33], true)
            ),
            &format!(":{} :", base64(&EXAMPLE_HASH, false)),
            &format!(":={}:", base64(&EXAMPLE_HASH, false)),
            &format!(":{}:x", base64(&EXAMPLE_HASH, true)),
        ] {
            assert_eq!(held(&[value], &[]), None, "{value:?}");
        }
    }

    #[test]
    fn a_dictionary_id_must_be_the_dictionarys() {
        assert_eq!(held(&[EXAMPLE], &["\"abc123\""]), Some(1));
        assert_eq!(held(&[EXAMPLE], &[" \"abc123\";v=2 "]), Some(1));
        assert_eq!(held(&[EXAMPLE], &["\"other\""]), None);
        assert_eq!(held(&[EXAMPLE], &["\"abc1234\""]), None);
        assert_eq!(held(&[EXAMPLE], &["\"ABC123\""]), None);
        assert_eq!(held(&[EXAMPLE], &["\"abc123\"", "\"abc123\""]), None);
    }

    #[test]
    fn a_dictionary_id_must_be_a_well_formed_string() {
        for value in [
            "abc123",
            "\"abc123",
            "abc123\"",
            "\"abc123\" x",
            "\"abc123\",\"abc123\"",
            "\"abc\\123\"",
            "\"abc\t123\"",
            "\"abc\u{e9}123\"",
            "",
        ] {
            assert_eq!(held(&[EXAMPLE], &[value]), None, "{value:?}");
        }
    }

    #[test]
    fn a_dictionary_id_is_compared_unescaped() {
        let with = |id: &'static str| [(&EXAMPLE_HASH, id)];
        let held_with = |value: &str, id: &'static str| {
            held_dictionary([EXAMPLE.as_bytes()], [value.as_bytes()], &with(id))
        };
        assert_eq!(held_with(r#""a\"b""#, "a\"b"), Some(0));
        assert_eq!(held_with(r#""a\\b""#, "a\\b"), Some(0));
        assert_eq!(held_with(r#""a\\b""#, "a\\\\b"), None);
        assert_eq!(held_with(r#""""#, ""), Some(0));
    }

    #[test]
    fn the_id_chooses_among_dictionaries_of_one_hash() {
        let twins = [(&EXAMPLE_HASH, "old"), (&EXAMPLE_HASH, "new")];
        let held_among = |ids: &[&str]| {
            held_dictionary(
                [EXAMPLE.as_bytes()],
                ids.iter().map(|id| id.as_bytes()),
                &twins,
            )
        };
        assert_eq!(held_among(&["\"new\""]), Some(1));
        assert_eq!(held_among(&["\"old\""]), Some(0));
        assert_eq!(held_among(&[]), Some(0));
    }

    proptest! {
        #[test]
        fn any_hash_round_trips(
            hash in any::<[u8; 32]>(),
            others in prop::collection::vec(any::<[u8; 32]>(), 0..4),
            at in any::<prop::sample::Index>(),
            padded in any::<bool>(),
        ) {
            // The dictionaries: `others` with `hash` inserted at `at`.
            let at = at.index(others.len() + 1);
            let mut hashes = others.clone();
            hashes.insert(at, hash);
            let dictionaries: Vec<_> = hashes.iter().map(|h| (h, "id")).collect();
            let value = format!(":{}:", base64(&hash, padded));
            // `at`, unless one of `others` is the same hash.
            let expected = hashes.iter().position(|h| *h == hash);
            prop_assert_eq!(
                held_dictionary([value.as_bytes()], None::<&[u8]>, &dictionaries),
                expected
            );
            prop_assert_eq!(
                held_dictionary([value.as_bytes()], [&b"\"id\""[..]], &dictionaries),
                expected
            );
        }

        #[test]
        fn never_panics_on_items_nearly_well_formed(
            available in "[:A-Za-z0-9+/=; \"]{0,50}",
            id in "[a-z\"\\\\; ]{0,8}",
        ) {
            let held = held_dictionary([available.as_bytes()], [id.as_bytes()], &DICTIONARIES);
            prop_assert!(held.is_none_or(|i| i < DICTIONARIES.len()));
        }

        #[test]
        fn never_panics_on_arbitrary_bytes(
            available in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..3),
            ids in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..16), 0..3),
        ) {
            let held = held_dictionary(
                available.iter().map(Vec::as_slice),
                ids.iter().map(Vec::as_slice),
                &DICTIONARIES,
            );
            prop_assert!(held.is_none_or(|i| i < DICTIONARIES.len()));
        }
    }
}
