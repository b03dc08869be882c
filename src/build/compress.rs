//! Build stage 3: precompress every body.
//!
//! Brotli at quality 11 with a window just large enough for the body, and
//! gzip at the best level; an encoded variant is kept only when it is
//! smaller than the identity body (see [`variants`]).

use crate::negotiate::Coding;
use std::io::Write;

/// Every coding worth storing for `body`, with its bytes, smallest first
/// (identity always included, so a client that accepts nothing else is served).
pub fn variants(body: &[u8]) -> Vec<(Coding, Vec<u8>)> {
    let mut all = vec![(Coding::Identity, body.to_vec())];
    for (coding, encoded) in [(Coding::Br, brotli(body)), (Coding::Gzip, gzip(body))] {
        if encoded.len() < body.len() {
            all.push((coding, encoded));
        }
    }
    // Stable: on equal sizes the order above (identity, br, gzip) stands.
    all.sort_by_key(|(_, bytes)| bytes.len());
    all
}

/// Brotli, quality 11, window fitted to the body (RFC 7932).
pub fn brotli(body: &[u8]) -> Vec<u8> {
    // A window of 2^lgwin − 16 bytes; 10 is the smallest brotli allows.
    let lgwin = (10..24)
        .find(|&w| (1usize << w) - 16 >= body.len())
        .unwrap_or(24);
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin,
        size_hint: body.len(),
        ..Default::default()
    };
    let mut out = Vec::new();
    brotli::BrotliCompress(&mut &body[..], &mut out, &params)
        .expect("compressing into memory cannot fail");
    out
}

/// gzip at level 9, with a zero mtime so builds are reproducible (RFC 1952).
pub fn gzip(body: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(body)
        .expect("writing into memory cannot fail");
    encoder.finish().expect("writing into memory cannot fail")
}
