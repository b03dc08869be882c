//! Build stage 3: precompress every body, as small as the encoders allow.
//!
//! Each coding is encoded a few ways and the smallest output is kept:
//!
//! - brotli (RFC 7932) at quality 11, with the window that has the shortest
//!   header code among those that hold the whole body (2^16 − 16 bytes for
//!   any body up to that size). Two encodings are tried: literal context
//!   modelling on (as the `brotli` CLI does) or off. The FONT mode's
//!   distance codes, tried too until 28 November, won 397 bytes of 443 kB
//!   over the served bodies and cost a third of a build after an edit
//!   (`benches/README.md`, "Issue 42"); the TEXT mode's output is byte for
//!   byte that of GENERIC. The large-window extension, which standard
//!   decoders refuse, stays off.
//! - gzip (RFC 1952) written by zopfli (15 iterations), or by flate2 at level
//!   9 when that is smaller, as it can be on bodies of about 200 bytes (some
//!   error bodies). The header carries no name and a zero mtime.
//!
//! - dcb and dcz (RFC 9842), for the bodies that are also compressed
//!   against the compression dictionary (`dictionary.rs`): brotli as above
//!   with the dictionary as history, context modelling on alone (the few
//!   hundred bytes of a page's difference from the dictionary gain some
//!   five bytes from the other), and Zstandard at level 22 with the
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
//! (see [`variants`]).
//!
//! [`encode`] runs one job per body and coding on every core it may use,
//! and keeps each output in a [`Cache`] under `target/`, so a build after
//! an edit encodes only the bodies the edit changed. A cached output is
//! decoded and compared like a fresh one; the result is byte for byte that
//! of a build without the cache.

use crate::dictionary::Dictionary;
use crate::negotiate::Coding;
use crate::parallel;
use crate::site::Body;
use brotli::enc::backward_references::BrotliEncoderMode;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};

/// The variants of one body: every coding worth storing with its bytes,
/// smallest first, identity always among them.
pub(crate) type Encoded = Vec<(Coding, Vec<u8>)>;

/// How the bodies are stored.
#[derive(Debug, Clone)]
pub enum Encoding {
    /// As small as the encoders allow (see the module docs): what the
    /// production binary serves. Encoded outputs are reused from `cache`,
    /// when given, for bodies encoded before with the same settings.
    Smallest {
        /// Where encoded outputs are kept between builds.
        cache: Option<Cache>,
    },
    /// The identity body alone: `refserve dev`, which renders on every edit.
    Identity,
}

/// A directory of encoded outputs from earlier builds, each in a file
/// named by a SHA-256 of everything the output depends on: the body, the
/// coding, the dictionary for dcb and dcz, this module's settings and the
/// [`Cache::salt`] (the encoders' versions). A hit is decoded and compared
/// with the body like a fresh candidate, so a damaged file is only a miss.
#[derive(Debug, Clone)]
pub struct Cache {
    /// The directory (created when missing).
    pub dir: PathBuf,
    /// What else the outputs depend on, such as the lock file that pins the
    /// encoders' versions.
    pub salt: Vec<u8>,
}

/// The settings of this module, part of every cache key: change it when an
/// encoder's settings change.
const SETTINGS: &str =
    "br q11 generic, context modelling on or off (on alone for dcb), shortest window; gzip zopfli 15 or flate2 9; dcz 22";

/// The codings a body is encoded in, each tried a few ways (see the module
/// docs): dcb and dcz only against the dictionary.
const CODINGS: [Coding; 4] = [Coding::Br, Coding::Gzip, Coding::Dcb, Coding::Dcz];

/// Cache files unused for this long are removed.
const CACHE_LIFETIME: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 60 * 60);

/// The variants of each of `bodies` (see [`Encoded`]), found by the body;
/// those marked `with_dictionary` are also encoded against `dictionary`.
///
/// The work is one job per body and coding, run on as many threads as
/// cargo allows a build script (`NUM_JOBS`) or the machine has, longest
/// body first; a body met twice (a page's Markdown and its `.md` twin) is
/// encoded once.
pub(crate) fn encode<'b>(
    bodies: impl IntoIterator<Item = &'b Body>,
    dictionary: Option<&Dictionary>,
    encoding: &Encoding,
) -> Compressed<'b> {
    // The distinct inputs, and the jobs on them.
    let dictionary_given = dictionary.is_some();
    let mut distinct: Vec<(&[u8], bool)> = bodies
        .into_iter()
        .map(|body| key(body, dictionary_given))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    // The identity body alone is no job at all.
    let (codings, cache) = match encoding {
        Encoding::Identity => (&[][..], None),
        Encoding::Smallest { cache } => (&CODINGS[..], cache.as_ref()),
    };
    let mut jobs: Vec<((&[u8], bool), Coding)> = Vec::new();
    for &input in &distinct {
        // dcb and dcz for a body compressed against the dictionary alone.
        let codings = codings.iter().filter(|c| input.1 || !c.needs_dictionary());
        jobs.extend(codings.map(|&coding| (input, coding)));
    }
    jobs.sort_by_key(|&((body, _), coding)| (std::cmp::Reverse(body.len()), coding as u8));
    let dictionary_bytes = dictionary.map_or(&[][..], |d| &d.bytes[..]);
    if let Some(cache) = cache {
        // No cache is no failure: every output is encoded afresh.
        let _ = std::fs::create_dir_all(&cache.dir);
    }
    let outputs = parallel::map(&jobs, |((body, _), coding)| {
        // The history a dcb or dcz stream starts with: the dictionary.
        let history = if coding.needs_dictionary() {
            dictionary_bytes
        } else {
            &[]
        };
        let Some(cache) = cache else {
            return encode_one(coding, body, history);
        };
        let path = cache.dir.join(cache_key(cache, coding, history, body));
        let cached = std::fs::read(&path).ok();
        if let Some(bytes) = cached.filter(|bytes| decodes(coding, bytes, body, history)) {
            // Used now: kept from the next prune.
            let _ = std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|file| file.set_modified(std::time::SystemTime::now()));
            return Some(bytes);
        }
        let encoded = encode_one(coding, body, history)?;
        store(&path, &encoded);
        Some(encoded)
    });
    if let Some(cache) = cache {
        prune(cache);
    }
    // Every distinct body with the outputs of its jobs (identity: none).
    let mut by_input: HashMap<_, Vec<_>> = (distinct.into_iter())
        .map(|input| (input, Vec::new()))
        .collect();
    for (&(input, coding), output) in jobs.iter().zip(outputs) {
        by_input.entry(input).or_default().push((coding, output));
    }
    let variants = by_input
        .into_iter()
        .map(|(input, outputs)| (input, variants(input.0, outputs, dictionary)));
    Compressed {
        variants: variants.collect(),
        dictionary: dictionary_given,
    }
}

/// A body as [`encode`] tells bodies apart: its bytes, and whether it is
/// compressed against the dictionary (marked so, when there is one).
fn key(body: &Body, dictionary: bool) -> (&[u8], bool) {
    (&body.bytes[..], body.with_dictionary && dictionary)
}

/// What [`encode`] made: the variants of each distinct body.
#[derive(Debug)]
pub(crate) struct Compressed<'b> {
    /// By body, and whether it is compressed against the dictionary.
    variants: HashMap<(&'b [u8], bool), Encoded>,
    dictionary: bool,
}

impl Compressed<'_> {
    /// The variants of `body`, which [`encode`] was given.
    pub(crate) fn variants(&self, body: &Body) -> Encoded {
        self.variants[&key(body, self.dictionary)].clone()
    }
}

/// The variants of `body` worth storing from the `outputs` of its jobs:
/// identity, gzip and br when smaller than identity, dcb and dcz when
/// smaller than every one of those (RFC 9842 §4), each framed by the RFC's
/// header; smallest first, and on equal sizes in `Coding`'s order (the
/// order of `outputs`: the jobs are sorted by coding).
fn variants(
    body: &[u8],
    outputs: Vec<(Coding, Option<Vec<u8>>)>,
    dictionary: Option<&Dictionary>,
) -> Encoded {
    let mut plain = vec![(Coding::Identity, body.to_vec())];
    let mut framed = Vec::new();
    for (coding, output) in outputs {
        let Some(output) = output else { continue };
        match (coding, dictionary) {
            (Coding::Dcb, Some(d)) => {
                framed.push((coding, [&DCB_MAGIC[..], &d.hash, &output].concat()))
            }
            (Coding::Dcz, Some(d)) => {
                framed.push((coding, [&DCZ_MAGIC[..], &d.hash, &output].concat()))
            }
            _ if output.len() < body.len() => plain.push((coding, output)),
            _ => {}
        }
    }
    // Stable: on equal sizes the order above (identity, gzip, br) stands.
    plain.sort_by_key(|(_, bytes)| bytes.len());
    framed.sort_by_key(|(_, bytes)| bytes.len());
    let smallest = plain[0].1.len();
    plain.extend(
        framed
            .into_iter()
            .filter(|(_, bytes)| bytes.len() < smallest),
    );
    // Stable: a plain body stays ahead of a dictionary one of its size.
    plain.sort_by_key(|(_, bytes)| bytes.len());
    plain
}

/// The smallest output of the encoders of `coding` for `body` (history
/// starting with `history`; dcb and dcz unframed) that [`decodes`] back to
/// it, the first of equal sizes; `None` if none does.
fn encode_one(coding: Coding, body: &[u8], history: &[u8]) -> Option<Vec<u8>> {
    let candidates = match coding {
        Coding::Br | Coding::Dcb => brotli(body, history),
        Coding::Gzip => gzip(body),
        Coding::Dcz => vec![zstd(body, history)],
        Coding::Identity => vec![body.to_vec()],
    };
    candidates
        .into_iter()
        .filter(|encoded| decodes(coding, encoded, body, history))
        .min_by_key(Vec::len)
}

/// Whether `encoded` is a `coding` stream of `body` whose history starts
/// with `history` (dcb and dcz unframed), by a decoder written apart from
/// the encoder: `brotli-decompressor`, flate2, `structured-zstd`.
fn decodes(coding: Coding, encoded: &[u8], body: &[u8], history: &[u8]) -> bool {
    let mut decoded = Vec::with_capacity(body.len());
    let ok = match coding {
        Coding::Br | Coding::Dcb => brotli_decompressor::BrotliDecompressCustomDict(
            &mut &encoded[..],
            &mut decoded,
            &mut [0; 4096],
            &mut [0; 4096],
            history.to_vec(),
        )
        .is_ok(),
        Coding::Gzip => flate2::read::GzDecoder::new(encoded)
            .read_to_end(&mut decoded)
            .is_ok(),
        Coding::Dcz => {
            // Raw content: the frame names no dictionary, so it is handed over.
            let Ok(dictionary) =
                structured_zstd::decoding::Dictionary::from_raw_content(1, history.to_vec())
            else {
                return false;
            };
            decoded.resize(body.len(), 0);
            let decoder = structured_zstd::decoding::FrameDecoder::new()
                .decode_all_with_dict_handle(encoded, &mut decoded, &dictionary.into_handle());
            return decoder.is_ok_and(|length| decoded[..length] == *body);
        }
        Coding::Identity => return encoded == body,
    };
    ok && decoded == body
}

/// The cache file name of the `coding` output for `body`.
fn cache_key(cache: &Cache, coding: Coding, history: &[u8], body: &[u8]) -> String {
    let mut hash = Sha256::new();
    for part in [
        SETTINGS.as_bytes(),
        &cache.salt,
        coding.token().as_bytes(),
        history,
        body,
    ] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Keep `encoded` in the cache at `path`, written apart and renamed into
/// place so a reader never sees half a file. A failure leaves no entry.
fn store(path: &Path, encoded: &[u8]) {
    let partial = path.with_extension(format!(
        "{}-{:?}.partial",
        std::process::id(),
        std::thread::current().id()
    ));
    if std::fs::write(&partial, encoded).is_err() || std::fs::rename(&partial, path).is_err() {
        let _ = std::fs::remove_file(&partial);
    }
}

/// Remove the cache files unused for [`CACHE_LIFETIME`].
fn prune(cache: &Cache) {
    let Ok(listing) = std::fs::read_dir(&cache.dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for file in listing.flatten() {
        let unused = file
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age > CACHE_LIFETIME);
        if unused {
            let _ = std::fs::remove_file(file.path());
        }
    }
}

/// The brotli streams for `body` whose history starts with `dictionary`
/// (empty: none), one for each setting (quality 11, see the module docs).
fn brotli(body: &[u8], dictionary: &[u8]) -> Vec<Vec<u8>> {
    // Literal context modelling on, then off; against a dictionary, on
    // alone (module docs).
    let disable_literal_context_modeling: &[i32] =
        if dictionary.is_empty() { &[0, 1] } else { &[0] };
    disable_literal_context_modeling
        .iter()
        .map(|&disable_literal_context_modeling| {
            let params = brotli::enc::BrotliEncoderParams {
                quality: 11,
                // A dictionary is history: the window spans it and the body.
                lgwin: window(dictionary.len() + body.len()),
                large_window: false,
                mode: BrotliEncoderMode::BROTLI_MODE_GENERIC,
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
        .collect()
}

/// What opens a `dcb` body, before the dictionary's SHA-256 (RFC 9842 §4.1).
const DCB_MAGIC: [u8; 4] = [0xff, 0x44, 0x43, 0x42];

/// What opens a `dcz` body, before the dictionary's SHA-256: the header of a
/// Zstandard skippable frame of 32 bytes (RFC 9842 §4.2), which a decoder
/// that knows nothing of dictionaries passes over.
const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];

/// A Zstandard frame of `body` at the highest level, with `dictionary` as
/// raw content (a prefix, no dictionary ID in the frame), encoded by the
/// reference library.
fn zstd(body: &[u8], dictionary: &[u8]) -> Vec<u8> {
    zstd::bulk::Compressor::with_dictionary(22, dictionary)
        .expect("the reference library takes any bytes as a raw dictionary")
        .compress(body)
        .expect("compressing into memory cannot fail")
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

/// The gzip members for `body`: zopfli's and flate2's at level 9; no
/// file name, zero mtime (RFC 1952).
fn gzip(body: &[u8]) -> Vec<Vec<u8>> {
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
    vec![zopfli, flate2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::MediaType;

    /// A few small bodies that share text, one compressed against a
    /// dictionary too.
    fn sample() -> (Vec<Body>, Dictionary) {
        let text = |n: usize| {
            (0..n)
                .map(|i| format!("<p>Row {i} of the table, selected with a condition.</p>\n"))
                .collect::<String>()
        };
        let mut page = Body::new(MediaType::HTML, text(40));
        page.with_dictionary = true;
        let bodies = vec![
            page,
            Body::new(MediaType::MARKDOWN, text(30)),
            Body::new(MediaType::MARKDOWN, text(30)),
            Body::new(MediaType::JSON, "{}"),
        ];
        let bytes = text(50).into_bytes();
        let hash: [u8; 32] = Sha256::digest(&bytes).into();
        let dictionary = Dictionary {
            bytes,
            hash,
            path: "/dictionaries/test".into(),
        };
        (bodies, dictionary)
    }

    fn encode_with(cache: Option<Cache>) -> Vec<Encoded> {
        let (bodies, dictionary) = sample();
        let compressed = encode(&bodies, Some(&dictionary), &Encoding::Smallest { cache });
        bodies
            .iter()
            .map(|body| compressed.variants(body))
            .collect()
    }

    #[test]
    fn a_cache_changes_no_byte() {
        let uncached = encode_with(None);
        let codings: Vec<Vec<Coding>> = uncached
            .iter()
            .map(|v| v.iter().map(|(c, _)| *c).collect())
            .collect();
        assert!(codings[0].contains(&Coding::Dcb), "{codings:?}");
        assert_eq!(codings[3], [Coding::Identity], "too small to compress");
        assert_eq!(uncached[1], uncached[2], "a body met twice");

        let dir = std::env::temp_dir().join(format!("refserve-cache-test-{}", std::process::id()));
        let cache = Cache {
            dir: dir.clone(),
            salt: b"test".to_vec(),
        };
        assert_eq!(encode_with(Some(cache.clone())), uncached, "cold");
        let files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("the cache was made")
            .map(|f| f.expect("listing").path())
            .collect();
        // br and gzip of three distinct bodies, dcb and dcz of one.
        assert_eq!(files.len(), 8, "{files:?}");
        assert_eq!(encode_with(Some(cache.clone())), uncached, "warm");
        for file in &files {
            std::fs::write(file, b"damaged").expect("write");
        }
        assert_eq!(encode_with(Some(cache.clone())), uncached, "damaged");
        let salted = Cache {
            salt: b"other encoders".to_vec(),
            ..cache
        };
        assert_eq!(encode_with(Some(salted)), uncached, "another salt");
        assert_eq!(std::fs::read_dir(&dir).expect("listing").count(), 16);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    #[test]
    fn identity_encodes_nothing() {
        let (bodies, dictionary) = sample();
        let compressed = encode(&bodies, Some(&dictionary), &Encoding::Identity);
        for body in &bodies {
            assert_eq!(
                compressed.variants(body),
                [(Coding::Identity, body.bytes.clone())]
            );
        }
    }
}
