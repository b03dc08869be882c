//! The `Accept` and `Accept-Encoding` values most requests carry, byte for
//! byte, read once rather than on every request.
//!
//! A browser sends the same two values on every navigation, and a tool the
//! same on every request: whatever a field could say, most requests say one
//! of a few things. (HPACK's static table, RFC 7541 Appendix A, rests on the
//! same observation.) A request whose field is one of these values gets the
//! answer the parser gave for it the first time, kept: for
//! `Accept-Encoding` here, for `Accept` per resource by
//! [`crate::respond`], since the choice depends on what the resource
//! offers. Any other value, or a field over several lines, is read in full.
//! The answers are the parser's own, so the two paths cannot disagree.

use super::accept_encoding::AcceptEncoding;
use std::sync::LazyLock;

/// `Accept` values sent verbatim by many requests.
pub const COMMON_ACCEPTS: [&str; 5] = [
    // Chrome, Edge and Opera, on a navigation.
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    // Firefox 92 and later, on a navigation.
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
    // Safari (and Firefox 66 to 71), on a navigation.
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    // curl, wget, and `fetch()` without an `Accept` of its own.
    "*/*",
    // API clients.
    "application/json",
];

/// `Accept-Encoding` values sent verbatim by many requests.
pub const COMMON_ACCEPT_ENCODINGS: [&str; 4] = [
    // Chrome and Firefox over HTTPS (and Chrome to localhost).
    "gzip, deflate, br, zstd",
    // Chrome, holding a compression dictionary for the URL (RFC 9842).
    "gzip, deflate, br, zstd, dcb, dcz",
    // Safari.
    "gzip, deflate, br",
    // Chrome over cleartext HTTP.
    "gzip, deflate",
];

/// The index in `common` of the field's value, if the field is one line and
/// that line is one of `common`, byte for byte.
#[inline]
pub fn common_index<F>(lines: F, common: &[&str]) -> Option<usize>
where
    F: IntoIterator,
    F::Item: AsRef<[u8]>,
{
    let mut lines = lines.into_iter();
    let (Some(line), None) = (lines.next(), lines.next()) else {
        return None;
    };
    let line = line.as_ref();
    common.iter().position(|value| value.as_bytes() == line)
}

/// What the request's `Accept-Encoding` lines (`lines`) say of each coding:
/// [`AcceptEncoding::parse`]'s reading, made once for the common values.
pub fn read_accept_encoding<F>(lines: F) -> AcceptEncoding
where
    F: IntoIterator + Copy,
    F::Item: AsRef<[u8]>,
{
    static COMMON: LazyLock<[AcceptEncoding; COMMON_ACCEPT_ENCODINGS.len()]> =
        LazyLock::new(|| {
            COMMON_ACCEPT_ENCODINGS.map(|value| AcceptEncoding::parse([value.as_bytes()]))
        });
    match common_index(lines, &COMMON_ACCEPT_ENCODINGS) {
        Some(i) => COMMON[i],
        None => AcceptEncoding::parse(lines),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_common_value_is_found_only_alone_and_exact() {
        let chrome = COMMON_ACCEPT_ENCODINGS[0].as_bytes();
        assert_eq!(common_index([chrome], &COMMON_ACCEPT_ENCODINGS), Some(0));
        assert_eq!(common_index([b"*/*"], &COMMON_ACCEPTS), Some(3));
        // Two lines, even of a common value, are read in full.
        assert_eq!(
            common_index([chrome, chrome], &COMMON_ACCEPT_ENCODINGS),
            None
        );
        assert_eq!(common_index(None::<&[u8]>, &COMMON_ACCEPT_ENCODINGS), None);
        // Another spelling of the same list is not the same bytes.
        for other in [
            "gzip,deflate,br,zstd",
            "GZIP, deflate, br, zstd",
            "gzip, deflate, br, zstd ",
        ] {
            assert_eq!(
                common_index([other.as_bytes()], &COMMON_ACCEPT_ENCODINGS),
                None,
                "{other}"
            );
        }
    }

    #[test]
    fn common_values_are_read_as_the_parser_reads_them() {
        for value in COMMON_ACCEPT_ENCODINGS {
            assert_eq!(
                read_accept_encoding([value.as_bytes()]),
                AcceptEncoding::parse([value.as_bytes()]),
                "{value}"
            );
        }
        let other = b"br;q=0.5, gzip";
        assert_eq!(
            read_accept_encoding([&other[..]]),
            AcceptEncoding::parse([&other[..]])
        );
        assert_eq!(
            read_accept_encoding(None::<&[u8]>),
            AcceptEncoding::parse(None::<&[u8]>)
        );
    }

    #[test]
    fn common_values_are_distinct() {
        for list in [&COMMON_ACCEPTS[..], &COMMON_ACCEPT_ENCODINGS[..]] {
            for (i, value) in list.iter().enumerate() {
                assert_eq!(common_index([value.as_bytes()], list), Some(i), "{value}");
            }
        }
    }
}
