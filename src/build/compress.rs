//! Build stage 3: precompress every body, as small as the encoders allow.
//!
//! Each coding is encoded a few ways and the smallest output is kept:
//!
//! - brotli (RFC 7932) at quality 11, with the window that has the shortest
//!   header code among those that hold the whole body (2^16 − 16 bytes for
//!   any body up to that size). Four encodings are tried: literal context
//!   modelling on (as the `brotli` CLI does) or off, crossed with the
//!   default distance codes or those of the encoder's FONT mode (one postfix
//!   bit, 12 direct codes). The TEXT mode is not tried: the encoder's output
//!   is byte for byte that of GENERIC. The large-window extension, which
//!   standard decoders refuse, stays off.
//! - gzip (RFC 1952) written by zopfli (15 iterations), or by flate2 at level
//!   9 when that is smaller, as it can be on bodies of about 200 bytes (some
//!   error bodies). The header carries no name and a zero mtime.
//!
//! - dcb and dcz (RFC 9842), for the bodies that are also compressed
//!   against the compression dictionary (`dictionary.rs`): brotli as above
//!   with the dictionary as history, and Zstandard at level 22 with the
//!   dictionary as raw content, each after the RFC's header (its magic and
//!   the dictionary's SHA-256). Each is kept only when smaller than every
//!   plain variant of its body. The brotli candidates are decoded by
//!   `brotli-decompressor` and the Zstandard frame by `structured-zstd`,
//!   decoders written apart from the encoders that made them.
//!
//! Every candidate is decoded and compared with the body before it counts,
//! and on equal sizes the first candidate in the order above wins, so the
//! output is a function of the body alone: builds are reproducible. An
//! encoded variant is kept only when it is smaller than the identity body
//! (see [`variants`]). The two codings run on two threads, and a body met
//! before (a page's Markdown and its `.md` twin) is not encoded again.

use crate::negotiate::Coding;
use brotli::enc::backward_references::BrotliEncoderMode;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::num::NonZeroU64;
use std::sync::Mutex;

/// The variants of every body encoded so far, by body.
type Encoded = Vec<(Coding, Vec<u8>)>;
static SEEN: Mutex<BTreeMap<Vec<u8>, Encoded>> = Mutex::new(BTreeMap::new());

/// Every coding worth storing for `body`, with its bytes, smallest first
/// (identity always included, so a client that accepts nothing else is served).
pub fn variants(body: &[u8]) -> Vec<(Coding, Vec<u8>)> {
    if let Some(known) = seen().get(body) {
        return known.clone();
    }
    let (br, gz) = std::thread::scope(|scope| {
        let gz = scope.spawn(|| gzip(body));
        (
            brotli(body),
            gz.join().expect("the gzip encoder does not panic"),
        )
    });
    let mut all = vec![(Coding::Identity, body.to_vec())];
    for (coding, encoded) in [(Coding::Br, br), (Coding::Gzip, gz)] {
        if let Some(encoded) = encoded.filter(|encoded| encoded.len() < body.len()) {
            all.push((coding, encoded));
        }
    }
    // Stable: on equal sizes the order above (identity, br, gzip) stands.
    all.sort_by_key(|(_, bytes)| bytes.len());
    seen().insert(body.to_vec(), all.clone());
    all
}

/// The variants encoded so far, locked.
fn seen() -> std::sync::MutexGuard<'static, BTreeMap<Vec<u8>, Encoded>> {
    SEEN.lock()
        .expect("the cache is never locked across a panic")
}

/// The smallest brotli stream for `body` (quality 11, see the module docs),
/// or `None` if no candidate decodes back to `body`.
pub fn brotli(body: &[u8]) -> Option<Vec<u8>> {
    brotli_against(body, &[])
}

/// The smallest brotli stream for `body` whose history starts with
/// `dictionary` (empty: none). Every candidate is decoded by
/// `brotli-decompressor`, a decoder written apart from the encoder.
fn brotli_against(body: &[u8], dictionary: &[u8]) -> Option<Vec<u8>> {
    let settings = [
        (BrotliEncoderMode::BROTLI_MODE_GENERIC, 0),
        (BrotliEncoderMode::BROTLI_MODE_FONT, 0),
        (BrotliEncoderMode::BROTLI_MODE_GENERIC, 1),
        (BrotliEncoderMode::BROTLI_MODE_FONT, 1),
    ];
    let candidates = settings
        .into_iter()
        .map(|(mode, disable_literal_context_modeling)| {
            let params = brotli::enc::BrotliEncoderParams {
                quality: 11,
                // A dictionary is history: the window spans it and the body.
                lgwin: window(dictionary.len() + body.len()),
                large_window: false,
                mode,
                disable_literal_context_modeling,
                size_hint: body.len(),
                ..Default::default()
            };
            let mut out = Vec::new();
            brotli::enc::BrotliCompressCustomIoCustomDict(
                &mut brotli::IoReaderWrapper(&mut &body[..]),
                &mut brotli::IoWriterWrapper(&mut out),
                &mut [0; 4096],
                &mut [0; 4096],
                &params,
                brotli::enc::StandardAlloc::default(),
                &mut |_, _, _, _| (),
                dictionary,
                std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
            )
            .expect("compressing into memory cannot fail");
            out
        })
        .collect();
    smallest_decoding(candidates, body, |encoded, decoded| {
        brotli_decompressor::BrotliDecompressCustomDict(
            &mut &encoded[..],
            decoded,
            &mut [0; 4096],
            &mut [0; 4096],
            dictionary.to_vec(),
        )
        .is_ok()
    })
}

/// The dictionary-compressed variants of `body` worth storing (RFC 9842
/// §4): `dcb` and `dcz`, each kept only when smaller than every variant in
/// `plain`. `dictionary` is the dictionary's bytes, `hash` their SHA-256.
pub fn dictionary_variants(
    body: &[u8],
    dictionary: &[u8],
    hash: &[u8; 32],
    plain: &[(Coding, Vec<u8>)],
) -> Vec<(Coding, Vec<u8>)> {
    let smallest = plain.iter().map(|(_, bytes)| bytes.len()).min();
    let (dcb, dcz) = std::thread::scope(|scope| {
        let dcz = scope.spawn(|| zstd_against(body, dictionary));
        (
            brotli_against(body, dictionary),
            dcz.join().expect("the zstd encoder does not panic"),
        )
    });
    let mut all = Vec::new();
    for (coding, magic, encoded) in [
        (Coding::Dcb, &DCB_MAGIC[..], dcb),
        (Coding::Dcz, &DCZ_MAGIC[..], dcz),
    ] {
        let Some(encoded) = encoded else { continue };
        let framed = [magic, hash, &encoded].concat();
        if smallest.is_none_or(|smallest| framed.len() < smallest) {
            all.push((coding, framed));
        }
    }
    all.sort_by_key(|(_, bytes)| bytes.len());
    all
}

/// What opens a `dcb` body, before the dictionary's SHA-256 (RFC 9842 §4.1).
const DCB_MAGIC: [u8; 4] = [0xff, 0x44, 0x43, 0x42];

/// What opens a `dcz` body, before the dictionary's SHA-256: the header of a
/// Zstandard skippable frame of 32 bytes (RFC 9842 §4.2), which a decoder
/// that knows nothing of dictionaries passes over.
const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];

/// A Zstandard frame of `body` at the highest level, with `dictionary` as
/// raw content (a prefix, no dictionary ID in the frame). Encoded by the
/// reference library and checked with `structured-zstd`, a decoder written
/// apart from it; `None` if that does not give `body` back.
fn zstd_against(body: &[u8], dictionary: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = zstd::bulk::Compressor::with_dictionary(22, dictionary)
        .expect("the reference library takes any bytes as a raw dictionary");
    let encoded = encoder
        .compress(body)
        .expect("compressing into memory cannot fail");
    // Raw content: the frame names no dictionary, so it is handed over.
    let dictionary =
        structured_zstd::decoding::Dictionary::from_raw_content(1, dictionary.to_vec())
            .ok()?
            .into_handle();
    let mut decoded = vec![0; body.len()];
    let length = structured_zstd::decoding::FrameDecoder::new()
        .decode_all_with_dict_handle(&encoded, &mut decoded, &dictionary)
        .ok()?;
    (decoded[..length] == *body).then_some(encoded)
}

/// The brotli window (log2 of 16 more than its size in bytes) for a body of
/// `len` bytes: large enough for the whole body if brotli allows it, and of
/// those the one with the shortest code in the stream header, since a
/// larger window changes nothing else for a body that fits. The code is
/// 1 bit for 16, 7 bits for 17 and 10–15, 4 bits for 18–24.
fn window(len: usize) -> i32 {
    match (16..=24).find(|&w| (1usize << w) - 16 >= len) {
        Some(17) => 18,
        Some(w) => w,
        None => 24,
    }
}

/// The smallest gzip member for `body`: zopfli, or flate2 at level 9 when
/// smaller; no file name, zero mtime (RFC 1952). `None` if neither decodes
/// back to `body`.
pub fn gzip(body: &[u8]) -> Option<Vec<u8>> {
    let options = zopfli::Options {
        iteration_count: NonZeroU64::new(15).expect("15 is not zero"),
        ..Default::default()
    };
    let mut zopfli = Vec::new();
    zopfli::compress(options, zopfli::Format::Gzip, body, &mut zopfli)
        .expect("compressing into memory cannot fail");

    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(body)
        .expect("writing into memory cannot fail");
    let flate2 = encoder.finish().expect("writing into memory cannot fail");

    smallest_decoding(vec![zopfli, flate2], body, |encoded, decoded| {
        flate2::read::GzDecoder::new(encoded)
            .read_to_end(decoded)
            .is_ok()
    })
}

/// The smallest of `candidates` that `decode` turns back into `body`
/// (the first of equal sizes); `None` if none does.
fn smallest_decoding(
    candidates: Vec<Vec<u8>>,
    body: &[u8],
    decode: impl Fn(&[u8], &mut Vec<u8>) -> bool,
) -> Option<Vec<u8>> {
    candidates
        .into_iter()
        .filter(|encoded| {
            let mut decoded = Vec::with_capacity(body.len());
            decode(encoded, &mut decoded) && decoded == body
        })
        .min_by_key(Vec::len)
}
