//! Proactive content negotiation (RFC 9110 §12): which representation,
//! which language and which content coding a request gets, and which
//! compression dictionary (RFC 9842) it holds for the codings that need one.
//!
//! Everything here is a pure function over the values of a field's lines
//! (a list field may be split over several, §5.3), read in place:
//!
//! - `list.rs` reads a weighted list (§12.4.2) into `Member`s, each a
//!   name with its parameters and weight, and [`best`] chooses among
//!   weights; `Accept`, `Accept-Encoding` and `Accept-Language` are read
//!   with it.
//! - [`negotiate_media_type`] reads `Accept` (§12.5.1) and chooses among
//!   the server's media types, in its order of preference.
//! - [`negotiate_language`] reads `Accept-Language` (§12.5.4) and chooses
//!   among the server's [`Language`]s by RFC 4647 lookup, matching language
//!   and script through CLDR's likely subtags (`zh-TW` is Traditional).
//! - [`AcceptEncoding`] reads `Accept-Encoding` (§12.5.3): the weight of
//!   each [`Coding`]; [`negotiate_encoding`] chooses among offered codings.
//! - [`held_dictionary`] reads `Available-Dictionary` (RFC 9842 §2.2).
//!
//! A choice is the index of the chosen offer, or `None` when the client
//! accepts none of them (a 406); a language is always chosen, the first
//! offer by default.

mod accept;
mod accept_encoding;
mod dictionary;
mod language;
mod list;

pub use accept::{negotiate_media_type, MediaType, MAX_MEDIA_OFFERS};
pub use accept_encoding::{negotiate_encoding, AcceptEncoding};
pub use dictionary::held_dictionary;
pub use language::{negotiate_language, Language, MAX_LANGUAGE_OFFERS, MAX_LANGUAGE_RANGES};
pub use list::{best, Quality};

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
        ["identity", "gzip", "br", "dcb", "dcz"][self.index()]
    }

    /// Whether a body in this coding decodes only with a dictionary the
    /// client holds (RFC 9842): `dcb` and `dcz`.
    pub const fn needs_dictionary(self) -> bool {
        matches!(self, Coding::Dcb | Coding::Dcz)
    }

    /// Its place in [`Coding::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The coding a token names, if it is one we serve (case-insensitively);
    /// `x-gzip` is gzip (§8.4.1.3).
    pub fn from_token(token: &[u8]) -> Option<Coding> {
        if token.eq_ignore_ascii_case(b"x-gzip") {
            return Some(Coding::Gzip);
        }
        Coding::ALL
            .into_iter()
            .find(|coding| token.eq_ignore_ascii_case(coding.token().as_bytes()))
    }
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
        assert_eq!(Coding::from_token(b"x-gzip"), Some(Coding::Gzip));
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
}
