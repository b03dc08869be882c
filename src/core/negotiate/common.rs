//! The `Accept` and `Accept-Encoding` values most requests carry, byte for
//! byte, read once rather than on every request.
//!
//! A browser sends the same two values on every navigation, and a tool the
//! same on every request: whatever a field could say, most requests say one
//! of a few things. (HPACK's static table, RFC 7541 Appendix A, rests on the
//! same observation.) build.rs negotiates these values ahead of time with
//! the same parsers (per resource for `Accept`, once for `Accept-Encoding`),
//! and a request whose field is one of them, on one line, gets that answer
//! from the table. Any other value is read in full. Behind a cache that
//! normalises these fields, as `deploy/varnish.vcl` does, every request the
//! origin sees carries one of them.

/// `Accept` values sent verbatim by many requests.
pub const COMMON_ACCEPTS: [&str; 7] = [
    // Chrome, Edge and Opera, on a navigation.
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    // Firefox 92 and later, on a navigation.
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
    // Safari (and Firefox 66 to 71), on a navigation.
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    // curl, wget, and `fetch()` without an `Accept` of its own.
    "*/*",
    // API clients, and a page asked for as JSON by `deploy/varnish.vcl`.
    "application/json",
    // What `deploy/varnish.vcl` forwards for a page asked for as HTML or
    // as Markdown.
    "text/html",
    "text/markdown",
];

/// The index in [`COMMON_ACCEPTS`] of `*/*`, which stands for a request
/// without `Accept`: no `Accept` accepts every media type (RFC 9110
/// §12.5.1), as `*/*` does, and both choose the first offer.
pub const ACCEPT_ABSENT: usize = 3;

/// `Accept-Encoding` values sent verbatim by many requests.
pub const COMMON_ACCEPT_ENCODINGS: [&str; 6] = [
    // Chrome and Firefox over HTTPS (and Chrome to localhost).
    "gzip, deflate, br, zstd",
    // Chrome, holding a compression dictionary for the URL (RFC 9842).
    "gzip, deflate, br, zstd, dcb, dcz",
    // Safari.
    "gzip, deflate, br",
    // Chrome over cleartext HTTP.
    "gzip, deflate",
    // A cache in front that normalises the field to one coding, as
    // `deploy/varnish.vcl` does (and Fastly).
    "br",
    "gzip",
];

/// The index in `common` of the field's value, if the field is one line and
/// that line is one of `common`, byte for byte; `absent` when the request
/// has no such field.
#[inline]
pub fn common_index<F>(lines: F, common: &[&str], absent: Option<usize>) -> Option<usize>
where
    F: IntoIterator,
    F::Item: AsRef<[u8]>,
{
    let mut lines = lines.into_iter();
    let Some(line) = lines.next() else {
        return absent;
    };
    if lines.next().is_some() {
        return None;
    }
    let line = line.as_ref();
    common.iter().position(|value| value.as_bytes() == line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_common_value_is_found_only_alone_and_exact() {
        let chrome = COMMON_ACCEPT_ENCODINGS[0].as_bytes();
        assert_eq!(
            common_index([chrome], &COMMON_ACCEPT_ENCODINGS, None),
            Some(0)
        );
        assert_eq!(common_index([b"*/*"], &COMMON_ACCEPTS, None), Some(3));
        // Two lines, even of a common value, are read in full.
        assert_eq!(
            common_index([chrome, chrome], &COMMON_ACCEPT_ENCODINGS, None),
            None
        );
        assert_eq!(
            common_index(None::<&[u8]>, &COMMON_ACCEPT_ENCODINGS, None),
            None
        );
        // Another spelling of the same list is not the same bytes.
        for other in [
            "gzip,deflate,br,zstd",
            "GZIP, deflate, br, zstd",
            "gzip, deflate, br, zstd ",
        ] {
            assert_eq!(
                common_index([other.as_bytes()], &COMMON_ACCEPT_ENCODINGS, None),
                None,
                "{other}"
            );
        }
    }

    #[test]
    fn common_values_are_distinct() {
        for list in [&COMMON_ACCEPTS[..], &COMMON_ACCEPT_ENCODINGS[..]] {
            for (i, value) in list.iter().enumerate() {
                assert_eq!(
                    common_index([value.as_bytes()], list, None),
                    Some(i),
                    "{value}"
                );
            }
        }
    }

    #[test]
    fn no_accept_chooses_as_any_type_does() {
        use crate::negotiate::{negotiate_media_type, MediaType};
        assert_eq!(COMMON_ACCEPTS[ACCEPT_ABSENT], "*/*");
        let (json, html) = (MediaType::JSON, MediaType::HTML);
        for offered in [&[json, html][..], &[html, json], &[html]] {
            assert_eq!(
                negotiate_media_type(None::<&[u8]>, offered),
                negotiate_media_type([b"*/*"], offered),
            );
        }
        let none = common_index(None::<&[u8]>, &COMMON_ACCEPTS, Some(ACCEPT_ABSENT));
        assert_eq!(none, Some(ACCEPT_ABSENT));
    }
}
