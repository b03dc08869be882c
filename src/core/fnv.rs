//! FNV-1a, 64 bits: a hash stable across builds and platforms, for the
//! `ETag`s the server makes (`headers::fingerprint`) and the typo keys of
//! the search index (`search::typos`), which the pipeline stores.

/// The hash of nothing: where a hash starts.
pub(crate) const START: u64 = 0xcbf2_9ce4_8422_2325;

/// `hash` continued over `bytes`.
pub(crate) fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_values() {
        assert_eq!(fnv1a(START, b""), START);
        assert_eq!(fnv1a(START, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(fnv1a(START, b"a"), b"b"), fnv1a(START, b"ab"));
    }
}
