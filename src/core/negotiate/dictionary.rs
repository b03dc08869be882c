//! Compression dictionary transport (RFC 9842): which of the server's
//! dictionaries a request says it holds, from `Available-Dictionary`
//! (§2.2).
//!
//! The field is a Structured Field Item (RFC 8941 §3.3), a Byte Sequence
//! (§3.3.5): the SHA-256 of the dictionary in base64 between colons.
//! Anything malformed names no dictionary, and the request is answered as
//! one that holds none.
//!
//! `Dictionary-ID` (§2.3) is not read: refserve gives its dictionaries no
//! `id`, so a browser sends none, and the hash alone names a dictionary.

use super::list::trim_ows;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;

/// Base64 as a Byte Sequence is read (RFC 8941 §3.3.5): the standard
/// alphabet, with or without its `=` padding, whatever its pad bits.
const BYTE_SEQUENCE: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Which of the server's dictionaries, given by their SHA-256 (`hashes`),
/// the request holds: the index of the first whose hash
/// `Available-Dictionary` names. `available` are the values of the
/// request's lines of it.
///
/// It must be a single line holding a Byte Sequence of 32 bytes
/// (`:<base64>:`). Parameters after the item (`;a=1`) are ignored.
/// Anything else (no line or a second one, a malformed item, an unknown
/// hash) is `None`.
pub fn held_dictionary<'a, 'h>(
    available: impl IntoIterator<Item = &'a [u8]>,
    hashes: impl IntoIterator<Item = &'h [u8; 32]>,
) -> Option<usize> {
    let mut lines = available.into_iter();
    let (Some(line), None) = (lines.next(), lines.next()) else {
        // None, or several: an Item field cannot be split over lines
        // (RFC 8941 §4.2).
        return None;
    };
    let held = byte_sequence_hash(line)?;
    hashes.into_iter().position(|hash| *hash == held)
}

/// The 32 bytes of a Byte Sequence item (RFC 8941 §3.3.5), if the field
/// value is one of that length: base64 between colons, then nothing or
/// the item's parameters (§3.1.2), which start at once with `;` and are
/// ignored here.
fn byte_sequence_hash(value: &[u8]) -> Option<[u8; 32]> {
    let [b':', rest @ ..] = trim_ows(value) else {
        return None;
    };
    let end = rest.iter().position(|&b| b == b':')?;
    let (encoded, after) = (&rest[..end], &rest[end + 1..]);
    if !matches!(after, [] | [b';', ..]) {
        return None;
    }
    // One byte of room over the hash: the decoder asks for three bytes a
    // four characters, and 43 characters round up to 33.
    let mut decoded = [0; 33];
    let length = BYTE_SEQUENCE.decode_slice(encoded, &mut decoded).ok()?;
    let hash = decoded.first_chunk::<32>()?;
    (length == 32).then_some(*hash)
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
    const DICTIONARIES: [[u8; 32]; 2] = [OTHER_HASH, EXAMPLE_HASH];

    /// The dictionary a request with these lines of `Available-Dictionary`
    /// holds.
    fn held(available: &[&str]) -> Option<usize> {
        held_dictionary(available.iter().map(|line| line.as_bytes()), &DICTIONARIES)
    }

    /// Base64 with the standard alphabet (RFC 4648 §4), padded or not.
    fn base64(bytes: &[u8], padded: bool) -> String {
        use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
        use base64::Engine as _;
        if padded {
            STANDARD.encode(bytes)
        } else {
            STANDARD_NO_PAD.encode(bytes)
        }
    }

    #[test]
    fn the_example_is_the_hash_in_base64() {
        assert_eq!(format!(":{}:", base64(&EXAMPLE_HASH, true)), EXAMPLE);
    }

    #[test]
    fn the_hash_names_the_dictionary() {
        assert_eq!(held(&[EXAMPLE]), Some(1));
        let other = format!(":{}:", base64(&OTHER_HASH, true));
        assert_eq!(held(&[&other]), Some(0));
        let unknown = format!(":{}:", base64(&[8; 32], true));
        assert_eq!(held(&[&unknown]), None);
        assert_eq!(held_dictionary([EXAMPLE.as_bytes()], &[]), None);
        assert_eq!(
            held_dictionary([EXAMPLE.as_bytes()], &[EXAMPLE_HASH]),
            Some(0)
        );
    }

    #[test]
    fn padding_may_be_left_out_and_pad_bits_set() {
        let unpadded = format!(":{}:", base64(&EXAMPLE_HASH, false));
        assert_eq!(held(&[&unpadded]), Some(1));
        // `G4=`: `4` is 0b111000, its last two bits the pad bits.
        for pad_bits in ["5", "6", "7"] {
            let set = EXAMPLE.replace("G4=", &format!("G{pad_bits}="));
            assert_eq!(held(&[&set]), Some(1), "{set}");
        }
        assert_eq!(held(&[&EXAMPLE.replace("G4=", "G8=")]), None);
    }

    #[test]
    fn whitespace_around_the_item_and_its_parameters_are_ignored() {
        assert_eq!(held(&[&format!(" \t{EXAMPLE}  ")]), Some(1));
        assert_eq!(held(&[&format!("{EXAMPLE};a=1;b")]), Some(1));
        assert_eq!(held(&[&format!("{EXAMPLE} ;a=1")]), None);
    }

    #[test]
    fn one_line_of_available_dictionary_is_needed() {
        assert_eq!(held(&[]), None);
        assert_eq!(held(&[EXAMPLE, EXAMPLE]), None);
        assert_eq!(held(&[&format!("{EXAMPLE}, {EXAMPLE}")]), None);
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
            assert_eq!(held(&[value]), None, "{value:?}");
        }
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
            let value = format!(":{}:", base64(&hash, padded));
            // `at`, unless one of `others` is the same hash.
            let expected = hashes.iter().position(|h| *h == hash);
            prop_assert_eq!(held_dictionary([value.as_bytes()], &hashes), expected);
        }

        #[test]
        fn never_panics_on_items_nearly_well_formed(available in "[:A-Za-z0-9+/=; \"]{0,50}") {
            let held = held(&[&available]);
            prop_assert!(held.is_none_or(|i| i < 2));
        }

        #[test]
        fn never_panics_on_arbitrary_bytes(
            available in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..3),
        ) {
            let held = held_dictionary(available.iter().map(Vec::as_slice), &DICTIONARIES);
            prop_assert!(held.is_none_or(|i| i < 2));
        }
    }
}
