//! Conditional requests (RFC 9110 §13): when a GET or HEAD is answered
//! with 412 Precondition Failed, or with 304 Not Modified instead of the
//! body.
//!
//! Pure functions over header bytes; nothing allocates. Preconditions are
//! evaluated only for responses that would otherwise be 200 (§13.2.1), in
//! the order of §13.2.2 (`fields.rs` reads them so): `If-Match` first,
//! then `If-None-Match`, and `If-Modified-Since` when there is no
//! `If-None-Match`. `If-Unmodified-Since` is not read.

/// What the preconditions decide for a response that would be 200.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Precondition {
    /// The body, as without preconditions.
    Send,
    /// 304: the client's copy is current.
    NotModified,
    /// 412: `If-Match` matches no current representation.
    Failed,
}

/// Whether `If-Match` (§13.1.1) matches the selected variant's `etag`,
/// which lets the request proceed; when it does not, the answer is 412.
///
/// `fields` are the values of every `If-Match` line. `*` matches any
/// current representation (there is one: preconditions are evaluated for
/// a 200 alone). Entity tags are compared strongly (§8.8.3.2): a weak tag
/// matches nothing. Malformed members match nothing.
pub(crate) fn strong_match<'a>(fields: impl IntoIterator<Item = &'a [u8]>, etag: &[u8]) -> bool {
    let ours = strong(etag);
    fields
        .into_iter()
        .flat_map(entity_tags)
        .any(|member| member == b"*" || (ours.is_some() && strong(member) == ours))
}

/// Whether `If-None-Match` (§13.1.2) matches the selected variant's `etag`,
/// which means the client's copy is current and the answer is 304.
///
/// `fields` are the values of every `If-None-Match` line. `*` matches any
/// current representation. Entity tags are compared weakly (§8.8.3.2): a
/// `W/` prefix on either side is ignored. Malformed members match nothing.
pub fn none_match<'a>(fields: impl IntoIterator<Item = &'a [u8]>, etag: &[u8]) -> bool {
    let ours = opaque(etag);
    fields
        .into_iter()
        .flat_map(entity_tags)
        .any(|member| member == b"*" || (opaque(member) == ours && ours.is_some()))
}

/// The members of an `If-Match` or `If-None-Match` list: entity tags
/// (`"…"`, `W/"…"`), `*`, or anything else up to the next comma. An
/// entity tag runs to its closing quote whatever it holds: `,` and `\\`
/// are ordinary characters in it (§8.8.3), unlike in a quoted-string.
fn entity_tags(field: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = field;
    std::iter::from_fn(move || {
        loop {
            rest = rest.trim_ascii_start();
            match rest.first()? {
                b',' => rest = &rest[1..],
                _ => break,
            }
        }
        let quote = match rest {
            [b'"', ..] => Some(0),
            [b'W', b'/', b'"', ..] => Some(2),
            _ => None,
        };
        let end = match quote {
            Some(open) => rest[open + 1..]
                .iter()
                .position(|&b| b == b'"')
                .map_or(rest.len(), |close| open + close + 2),
            None => rest.iter().position(|&b| b == b',').unwrap_or(rest.len()),
        };
        let (member, tail) = rest.split_at(end);
        rest = tail;
        Some(member.trim_ascii_end())
    })
}

/// Whether `If-Modified-Since` (§13.1.3) says the client's copy is current:
/// the resource has not changed since the given date. Only consulted when
/// the request has no `If-None-Match` (§13.2.2); an invalid date is ignored.
pub(crate) fn not_modified_since(field: &[u8], last_modified_unix: u64) -> bool {
    std::str::from_utf8(field)
        .ok()
        .and_then(|text| httpdate::parse_http_date(text.trim()).ok())
        .and_then(|since| since.duration_since(std::time::UNIX_EPOCH).ok())
        .is_some_and(|since| last_modified_unix <= since.as_secs())
}

/// The quoted opaque tag of an entity tag, without any `W/` prefix; `None`
/// when it is not of the form `[W/]"…"` with valid `etagc` characters.
fn opaque(tag: &[u8]) -> Option<&[u8]> {
    let tag = tag.strip_prefix(b"W/").unwrap_or(tag);
    match tag {
        [b'"', inner @ .., b'"']
            if inner
                .iter()
                .all(|&b| b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80) =>
        {
            Some(tag)
        }
        _ => None,
    }
}

/// The opaque tag of a strong entity tag; `None` for a weak or malformed
/// one.
fn strong(tag: &[u8]) -> Option<&[u8]> {
    match tag {
        [b'W', b'/', ..] => None,
        _ => opaque(tag),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ETAG: &[u8] = b"\"0123abcd-br\"";

    fn matches(header: &str) -> bool {
        none_match([header.as_bytes()], ETAG)
    }

    #[test]
    fn exact_and_weak_tags_match() {
        assert!(matches("\"0123abcd-br\""));
        assert!(matches("W/\"0123abcd-br\""));
        assert!(matches("\"other\", \"0123abcd-br\""));
        assert!(matches("\"other\",W/\"0123abcd-br\" "));
    }

    #[test]
    fn backslashes_and_commas_are_ordinary_in_entity_tags() {
        assert!(matches("\"a\\\", \"0123abcd-br\""));
        assert!(matches("\"a,b\", \"0123abcd-br\""));
        assert!(none_match([&b"\"x,y\""[..]], b"\"x,y\""));
    }

    #[test]
    fn star_matches_anything() {
        assert!(matches("*"));
        assert!(matches("\"x\", *"));
    }

    #[test]
    fn other_tags_and_garbage_do_not_match() {
        for header in [
            "",
            "\"0123abcd-gzip\"",
            "0123abcd-br",
            "\"0123abcd-br",
            "w/\"0123abcd-br\"",
            "\"\"",
        ] {
            assert!(!matches(header), "{header:?}");
        }
    }

    #[test]
    fn if_match_compares_strongly() {
        let strongly = |header: &str| strong_match([header.as_bytes()], ETAG);
        for header in ["\"0123abcd-br\"", "\"x\", \"0123abcd-br\"", "*", "\"x\", *"] {
            assert!(strongly(header), "{header}");
        }
        for header in [
            "W/\"0123abcd-br\"",
            "\"0123abcd-gzip\"",
            "0123abcd-br",
            "\"0123abcd-br",
            "",
        ] {
            assert!(!strongly(header), "{header}");
        }
        let lines: [&[u8]; 2] = [b"\"a\"", ETAG];
        assert!(strong_match(lines, ETAG));
        assert!(
            !strong_match([&b"W/\"a\""[..]], b"W/\"a\""),
            "weak never matches"
        );
    }

    #[test]
    fn tags_on_separate_lines_count() {
        let lines: [&[u8]; 2] = [b"\"a\"", ETAG];
        assert!(none_match(lines, ETAG));
    }

    #[test]
    fn modified_since_compares_seconds() {
        let last_modified = 1_795_305_600; // Sun, 22 Nov 2026 00:00:00 GMT
        assert!(not_modified_since(
            b"Sun, 22 Nov 2026 00:00:00 GMT",
            last_modified
        ));
        assert!(not_modified_since(
            b"Mon, 23 Nov 2026 00:00:00 GMT",
            last_modified
        ));
        assert!(!not_modified_since(
            b"Sat, 21 Nov 2026 23:59:59 GMT",
            last_modified
        ));
        assert!(!not_modified_since(b"yesterday", last_modified));
        assert!(!not_modified_since(b"\xff", last_modified));
    }

    #[test]
    fn obsolete_date_formats_are_read() {
        let last_modified = 1_795_305_600;
        assert!(not_modified_since(
            b"Sunday, 22-Nov-26 00:00:00 GMT",
            last_modified
        ));
        assert!(not_modified_since(
            b"Sun Nov 22 00:00:00 2026",
            last_modified
        ));
    }

    proptest! {
        #[test]
        fn a_list_containing_our_tag_matches(others in prop::collection::vec("\"[a-z0-9]{0,8}\"", 0..4), at in 0usize..4) {
            let mut tags: Vec<String> = others;
            let at = at.min(tags.len());
            tags.insert(at, String::from_utf8_lossy(ETAG).into_owned());
            prop_assert!(matches(&tags.join(", ")));
        }

        #[test]
        fn a_list_without_our_tag_or_star_does_not(others in prop::collection::vec("W?/?\"[a-z0-9]{0,8}\"", 0..4)) {
            prop_assert!(!matches(&others.join(", ")));
        }
    }
}
