//! Header values that do not depend on the resource, as text. build.rs
//! writes them into every variant's header list; `respond` sends the
//! redirect and preflight ones itself. And the fingerprint every `ETag`
//! is made of.

use crate::fnv::{self, fnv1a};

/// `Allow`: the methods every resource allows.
pub const ALLOW: &str = "GET, HEAD, OPTIONS";

/// `X-Content-Type-Options`: take `Content-Type` at its word.
pub const NOSNIFF: &str = "nosniff";

/// CORS (Fetch standard): a public, read-only API, readable from any
/// origin without credentials.
pub const ANY_ORIGIN: &str = "*";
/// The request headers a preflight may announce: any.
pub const ANY_HEADERS: &str = "*";
/// The response headers a cross-origin script may read.
pub const EXPOSED: &str = "ETag, Link, X-Markdown-Tokens";
/// How long a browser may keep a preflight's answer, in seconds.
pub const PREFLIGHT_MAX_AGE: &str = "86400";

/// `Cache-Control` of a redirect to a canonical URL: it changes only with a deploy.
pub const REDIRECT_CACHE_CONTROL: &str = "public, max-age=3600";

/// FNV-1a, 64 bits, over the parts with a separator between them: a stable
/// fingerprint of the exact bytes (and what they are) for an `ETag`.
pub fn fingerprint(parts: &[&[u8]]) -> u64 {
    parts
        .iter()
        .fold(fnv::START, |hash, part| fnv1a(fnv1a(hash, part), &[0xff]))
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn a_fingerprint_tells_where_parts_end() {
        assert_ne!(fingerprint(&[b"ab", b"c"]), fingerprint(&[b"a", b"bc"]));
        // FNV-1a of `ab 0xff c 0xff`: a changed hash would change every ETag.
        assert_eq!(fingerprint(&[b"ab", b"c"]), 0x20ba_9b30_25a8_b421);
        assert_ne!(fingerprint(&[b"ab"]), fingerprint(&[b"ba"]));
    }
}
