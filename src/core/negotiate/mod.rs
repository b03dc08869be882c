//! Proactive content negotiation (RFC 9110 §12): which representation and
//! which content coding a request gets, and which compression dictionary
//! (RFC 9842) it holds for the codings that need one.
//!
//! Everything here is a pure function over header bytes. Nothing allocates:
//! each field value is split into its members once, byte by byte, members
//! that cannot concern any offer are passed over on their first byte, and
//! the few offers a resource has are scored in fixed-size arrays.
//!
//! - [`negotiate_encoding`] reads `Accept-Encoding` (§12.5.3); its two
//!   steps, [`AcceptEncoding`] (the weight of each coding) and [`best`]
//!   (the choice among weights), serve a caller that weighs offers further.
//! - [`negotiate_media_type`] reads `Accept` (§12.5.1).
//! - [`held_dictionary`] reads `Available-Dictionary` (RFC 9842 §2.2).
//! - [`common_index`] recognises the few values most requests carry
//!   verbatim ([`COMMON_ACCEPTS`], [`COMMON_ACCEPT_ENCODINGS`]), which
//!   build.rs negotiates ahead of time.
//!
//! Each takes the field values of every header line of its fields (a list
//! field may be split over several lines, §5.3). The two negotiations take
//! the server's offers in its order of preference and answer with the index
//! of the chosen offer, or `None` when the client accepts none of them (a
//! 406); [`held_dictionary`] takes the server's dictionaries and answers
//! with the index of the one the request holds, if any.
//!
//! One file per concern: `list.rs` cuts a list-valued field into members
//! and reads a member's token and parameters (§5.6), `accept.rs` reads
//! `Accept`, `accept_encoding.rs` reads `Accept-Encoding`, `dictionary.rs`
//! `Available-Dictionary`, and `common.rs` lists the common values; this
//! file holds what they share: [`Coding`], [`Quality`] and
//! the choice of the best weight.

mod accept;
mod accept_encoding;
mod common;
mod dictionary;
mod list;

pub use accept::{negotiate_media_type, MediaType, MAX_MEDIA_OFFERS};
pub use accept_encoding::{negotiate_encoding, AcceptEncoding};
pub use common::{common_index, ACCEPT_ABSENT, COMMON_ACCEPTS, COMMON_ACCEPT_ENCODINGS};
pub use dictionary::held_dictionary;

/// A content coding the server can send (RFC 9110 §8.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Coding {
    /// No transformation: the bytes as rendered.
    Identity,
    /// `gzip` (RFC 1952).
    Gzip,
    /// `br`, Brotli (RFC 7932).
    Br,
    /// `dcb`, Brotli against a compression dictionary the client holds
    /// (RFC 9842).
    Dcb,
    /// `dcz`, Zstandard (RFC 8878) against a compression dictionary the
    /// client holds (RFC 9842).
    Dcz,
}

impl Coding {
    /// Every coding, in a fixed order (used to index per-coding state).
    pub const ALL: [Coding; 5] = [
        Coding::Identity,
        Coding::Gzip,
        Coding::Br,
        Coding::Dcb,
        Coding::Dcz,
    ];

    /// The token that names this coding in `Accept-Encoding` and `Content-Encoding`.
    pub const fn token(self) -> &'static str {
        match self {
            Coding::Identity => "identity",
            Coding::Gzip => "gzip",
            Coding::Br => "br",
            Coding::Dcb => "dcb",
            Coding::Dcz => "dcz",
        }
    }

    /// Whether a body in this coding decodes only with a dictionary the
    /// client holds (RFC 9842): `dcb` and `dcz`.
    pub const fn needs_dictionary(self) -> bool {
        matches!(self, Coding::Dcb | Coding::Dcz)
    }

    /// Its place in [`Coding::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Coding::Identity => 0,
            Coding::Gzip => 1,
            Coding::Br => 2,
            Coding::Dcb => 3,
            Coding::Dcz => 4,
        }
    }

    /// Every token that names a coding we serve, lowercase; `x-gzip` is
    /// gzip (§8.4.1.3).
    const NAMES: [(&'static str, Coding); 6] = [
        ("br", Coding::Br),
        ("gzip", Coding::Gzip),
        ("x-gzip", Coding::Gzip),
        ("identity", Coding::Identity),
        ("dcb", Coding::Dcb),
        ("dcz", Coding::Dcz),
    ];

    /// The coding a token names, if it is one we serve (case-insensitively).
    #[inline]
    pub fn from_token(token: &[u8]) -> Option<Coding> {
        Coding::NAMES
            .iter()
            .find(|(name, _)| eq_folded(token, name.as_bytes()))
            .map(|&(_, coding)| coding)
    }
}

/// A weight (RFC 9110 §12.4.2) in thousandths: `q=0.5` is 500, `q=1` is 1000.
pub type Quality = u16;

/// The weight of a member with no `q` parameter.
pub const DEFAULT_QUALITY: Quality = 1000;

/// Parse a qvalue: `0[.ddd]` or `1[.000]` (RFC 9110 §12.4.2).
#[inline]
pub fn parse_quality(value: &[u8]) -> Option<Quality> {
    let (&lead, rest) = value.split_first()?;
    let decimals = match rest {
        [] => &[][..],
        [b'.', decimals @ ..] if decimals.len() <= 3 => decimals,
        _ => return None,
    };
    let mut thousandths: Quality = 0;
    let mut scale: Quality = 100;
    for &d in decimals {
        if !d.is_ascii_digit() {
            return None;
        }
        thousandths += Quality::from(d - b'0') * scale;
        scale /= 10;
    }
    match lead {
        b'0' => Some(thousandths),
        b'1' if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The index of the first highest non-zero weight among `weights`, one per
/// offer in the server's order of preference: the highest wins, a tie goes
/// to the earlier offer, and `None` means every weight is 0 (a 406).
pub fn best(weights: impl Iterator<Item = Quality>) -> Option<usize> {
    let mut chosen: Option<(usize, Quality)> = None;
    for (i, q) in weights.enumerate() {
        if q > 0 && chosen.is_none_or(|(_, best)| q > best) {
            chosen = Some((i, q));
        }
    }
    chosen.map(|(i, _)| i)
}

/// The bit of a member's first byte in the masks that pass members over on
/// it (`Scoring::firsts` for `Accept`, `CODING_FIRSTS` for
/// `Accept-Encoding`): ASCII letters of either case share one.
#[inline(always)]
const fn first_bit(byte: u8) -> u64 {
    1 << ((byte | 0x20) % 64)
}

/// Whether `bytes` equals `lower`, a lowercase ASCII string, ignoring
/// ASCII case. Unlike `eq_ignore_ascii_case` it folds one side only and
/// does not stop early, so the compiler makes it a short branch-free run.
#[inline]
fn eq_folded(bytes: &[u8], lower: &[u8]) -> bool {
    bytes.len() == lower.len()
        && bytes
            .iter()
            .zip(lower)
            .fold(0, |diff, (b, l)| diff | (b.to_ascii_lowercase() ^ l))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codings_are_indexed_in_the_order_of_all() {
        for (i, coding) in Coding::ALL.into_iter().enumerate() {
            assert_eq!(coding.index(), i, "{coding:?}");
            assert_eq!(Coding::from_token(coding.token().as_bytes()), Some(coding));
        }
        for (name, coding) in Coding::NAMES {
            assert_eq!(Coding::from_token(name.as_bytes()), Some(coding), "{name}");
        }
        assert_eq!(Coding::from_token(b"DCZ"), Some(Coding::Dcz));
        assert_eq!(Coding::from_token(b"X-Gzip"), Some(Coding::Gzip));
        for other in ["", "b", "bz", "dcc", "gzap", "zstd", "x-gzap", "identify"] {
            assert_eq!(Coding::from_token(other.as_bytes()), None, "{other}");
        }
        assert_eq!(Coding::from_token(b"deflate"), None);
    }

    #[test]
    fn only_dictionary_codings_need_a_dictionary() {
        let needing: Vec<_> = Coding::ALL
            .into_iter()
            .filter(|c| c.needs_dictionary())
            .collect();
        assert_eq!(needing, [Coding::Dcb, Coding::Dcz]);
    }

    #[test]
    fn the_best_weight_is_the_highest_and_the_earliest() {
        assert_eq!(best([500, 1000, 1000].into_iter()), Some(1));
        assert_eq!(best([1, 0, 1].into_iter()), Some(0));
        assert_eq!(best([0, 0].into_iter()), None);
        assert_eq!(best(std::iter::empty()), None);
    }

    #[test]
    fn qvalues_parse_per_rfc() {
        for (text, q) in [
            ("0", 0),
            ("0.", 0),
            ("0.5", 500),
            ("0.25", 250),
            ("0.125", 125),
        ] {
            assert_eq!(parse_quality(text.as_bytes()), Some(q), "{text}");
        }
        for (text, q) in [("1", 1000), ("1.", 1000), ("1.0", 1000), ("1.000", 1000)] {
            assert_eq!(parse_quality(text.as_bytes()), Some(q), "{text}");
        }
        for text in ["", "2", "1.001", "0.1234", ".5", "0,5", "-0", "0.a", "01"] {
            assert_eq!(parse_quality(text.as_bytes()), None, "{text}");
        }
    }
}
