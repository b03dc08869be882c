//! `/search`'s query string, read: the one parameter `q`, decoded and
//! normalised, or the error a query string that is not one gets. Pure
//! functions, nothing but the query's own buffer allocated.
//!
//! The normalised query is what the answer is about, so it is also what
//! its `ETag` and a cache's key are made of (`deploy/varnish.vcl` makes
//! the same key from the URL): decoded (`+` is a space), its words
//! separated by one space and none around them. Its case is kept: a word
//! in capitals can mean what the same word in lower case does not (`LIKE`,
//! a clause of the examples' SQL, is never a stop word), so MCP's `search`
//! and `/search` rank the same words alike. Words are separated
//! by ASCII white space alone (as the OpenAPI description's pattern for
//! `q` says, in the same terms in every regex dialect); any other control
//! character stands as U+FFFD, so that no answer echoes one.

use crate::errors::ErrorKind;
use crate::route::hex;
use refserve_core::search_page::{MAX_QUERY_CHARS, PARAMETER};

/// The normalised query of the query string `raw` (`None`: the URL has
/// none), or the error that explains why there is none: no `q` or an empty
/// one ([`ErrorKind::QueryMissing`]), one of more than
/// [`MAX_QUERY_CHARS`] ([`ErrorKind::QueryTooLong`]), or a query string
/// that is not one `q` of percent-encoded UTF-8
/// ([`ErrorKind::QueryInvalid`]).
pub(crate) fn query(raw: Option<&str>) -> Result<String, ErrorKind> {
    let mut value = None;
    for pair in raw.unwrap_or_default().split('&') {
        if pair.is_empty() {
            continue;
        }
        let (name, encoded) = pair.split_once('=').unwrap_or((pair, ""));
        if !is_parameter(name) || value.replace(encoded).is_some() {
            return Err(ErrorKind::QueryInvalid);
        }
    }
    let encoded = value.ok_or(ErrorKind::QueryMissing)?;
    // A character is at most four bytes, each at most three when escaped.
    if encoded.len() > MAX_QUERY_CHARS * 12 {
        return Err(ErrorKind::QueryTooLong);
    }
    let decoded = decode(encoded).ok_or(ErrorKind::QueryInvalid)?;
    if decoded.chars().count() > MAX_QUERY_CHARS {
        return Err(ErrorKind::QueryTooLong);
    }
    let normal = normalise(&decoded);
    if normal.is_empty() {
        return Err(ErrorKind::QueryMissing);
    }
    Ok(normal)
}

/// Whether a parameter's name (as sent) is [`PARAMETER`].
fn is_parameter(name: &str) -> bool {
    name == PARAMETER || decode(name).is_some_and(|name| name == PARAMETER)
}

/// `text` with `+` as a space and every `%XX` as its byte, if that is
/// UTF-8; `None` for a broken escape or bytes that are not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => decoded.push(b' '),
            b'%' => {
                let high = hex(*bytes.get(i + 1)?)?;
                let low = hex(*bytes.get(i + 2)?)?;
                decoded.push(high << 4 | low);
                i += 2;
            }
            byte => decoded.push(byte),
        }
        i += 1;
    }
    String::from_utf8(decoded).ok()
}

/// Whether `c` separates words: ASCII white space (space, tab, line feed,
/// vertical tab, form feed, carriage return).
fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// `text` with its words (runs between [`is_separator`]s) joined by one
/// space, every other control character made U+FFFD.
fn normalise(text: &str) -> String {
    let mut normal = String::with_capacity(text.len());
    for word in text.split(is_separator).filter(|word| !word.is_empty()) {
        if !normal.is_empty() {
            normal.push(' ');
        }
        normal.extend(word.chars().map(|c| {
            if c.is_control() {
                char::REPLACEMENT_CHARACTER
            } else {
                c
            }
        }));
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_query_is_decoded_and_normalised() {
        assert_eq!(query(Some("q=count+rows")).as_deref(), Ok("count rows"));
        assert_eq!(
            query(Some("q=+Count%20%20Rows%09")).as_deref(),
            Ok("Count Rows"),
            "case kept"
        );
        assert_eq!(query(Some("q=S%C3%A9lect")).as_deref(), Ok("Sélect"));
        assert_eq!(query(Some("q=%5B%3E%5D+%3Ca%3E")).as_deref(), Ok("[>] <a>"));
        assert_eq!(query(Some("q=a%2Bb")).as_deref(), Ok("a+b"));
        assert_eq!(
            query(Some("%71=select")).as_deref(),
            Ok("select"),
            "q escaped"
        );
        assert_eq!(query(Some("&q=select&")).as_deref(), Ok("select"));
        assert_eq!(query(Some("q=%00x%7F")).as_deref(), Ok("\u{fffd}x\u{fffd}"));
        assert_eq!(
            query(Some("q=a%C2%A0b")).as_deref(),
            Ok("a\u{a0}b"),
            "no-break space is no separator"
        );
    }

    #[test]
    fn a_missing_or_empty_query_is_missing() {
        for raw in [
            None,
            Some(""),
            Some("q"),
            Some("q="),
            Some("q=+%20%09%0A"),
            Some("&"),
        ] {
            assert_eq!(query(raw), Err(ErrorKind::QueryMissing), "{raw:?}");
        }
    }

    #[test]
    fn other_parameters_a_second_q_and_broken_escapes_are_invalid() {
        for raw in [
            "q=a&page=2",
            "x=1",
            "q=a&q=b",
            "Q=a",
            "q=%zz",
            "q=%4",
            "q=%",
            "q=%FF",
            "q=%C3",
        ] {
            assert_eq!(query(Some(raw)), Err(ErrorKind::QueryInvalid), "{raw}");
        }
    }

    #[test]
    fn the_limit_counts_characters_before_normalising() {
        let most = "é".repeat(MAX_QUERY_CHARS);
        let encoded = "%C3%A9".repeat(MAX_QUERY_CHARS);
        assert_eq!(query(Some(&format!("q={encoded}"))), Ok(most));
        assert_eq!(
            query(Some(&format!("q={encoded}a"))),
            Err(ErrorKind::QueryTooLong)
        );
        let spaces = "+".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(
            query(Some(&format!("q=a{spaces}"))),
            Err(ErrorKind::QueryTooLong)
        );
        let huge = "a".repeat(100_000);
        assert_eq!(
            query(Some(&format!("q={huge}"))),
            Err(ErrorKind::QueryTooLong)
        );
    }

    proptest! {
        #[test]
        fn normalising_is_idempotent_and_never_leaves_space_at_the_ends(text in "\\PC{0,40}|[ \\ta-zA-ZÉé\\x00-\\x1f]{0,40}") {
            let once = normalise(&text);
            prop_assert_eq!(normalise(&once), once.clone());
            prop_assert!(!once.starts_with(' ') && !once.ends_with(' '));
            prop_assert!(!once.contains("  "));
            prop_assert!(!once.chars().any(char::is_control));
        }

        #[test]
        fn reading_never_panics(raw in "[q=&%+a-zA-Z0-9\\x00-\\x7f]{0,60}") {
            let _ = query(Some(&raw));
        }
    }
}
