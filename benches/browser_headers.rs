//! The request headers the selection benchmarks send: Chrome's, for a
//! navigation with and without the compression dictionary, and the same
//! respelled so the parsers read them. Shared by `benches/selection.rs`
//! (criterion) and `benches/selection_loop.rs`.

use http::HeaderValue;

/// What Chrome sends for a navigation.
pub const BROWSER_ACCEPT: &str =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
/// Chrome's `Accept-Encoding`.
pub const BROWSER_ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd";
/// What Chrome sends once it holds a dictionary for the URL.
pub const BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY: &str = "gzip, deflate, br, zstd, dcb, dcz";

/// Chrome's `Accept-Language` for a reader in the United States, and for
/// one in China.
pub const BROWSER_ACCEPT_LANGUAGE: &str = "en-US,en;q=0.9";
/// See [`BROWSER_ACCEPT_LANGUAGE`].
pub const BROWSER_ACCEPT_LANGUAGE_CHINA: &str = "zh-CN,zh;q=0.9";

/// `Available-Dictionary` for the served dictionary.
pub fn available_dictionary() -> HeaderValue {
    use base64::Engine;
    let dictionary = &refserve::table::production().dictionaries[0];
    let hash = base64::engine::general_purpose::STANDARD.encode(dictionary.hash);
    HeaderValue::from_str(&format!(":{hash}:")).expect("base64 is a valid header value")
}

/// `value` with an empty list member after it: the same meaning (RFC 9110
/// §5.6.1) in other bytes. (Before issue 41 the selection kept answers for
/// a few values byte for byte, and this spelling was read in full; now
/// every value is.)
pub fn respelled(value: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("{value},")).expect("a header value with a comma is valid")
}
