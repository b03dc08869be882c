//! Header values that do not depend on the resource, as text. build.rs
//! writes them into every variant's header list; `respond` sends the
//! redirect and preflight ones itself. And the fingerprint every `ETag`
//! is made of.

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
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in part.iter().chain(&[0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn a_fingerprint_tells_where_parts_end() {
        assert_ne!(fingerprint(&[b"ab", b"c"]), fingerprint(&[b"a", b"bc"]));
        assert_eq!(fingerprint(&[b"ab", b"c"]), fingerprint(&[b"ab", b"c"]));
        assert_ne!(fingerprint(&[b"ab"]), fingerprint(&[b"ba"]));
    }
}
