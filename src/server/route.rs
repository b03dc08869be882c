//! Routing: from a request path to the part of the server that answers it
//! ([`endpoint`]: `/mcp`, `/search` or the table), and in the table to the
//! resource that answers it, or to the error that explains why none does.
//! Every choice of an error body is made here ([`ErrorKey`]s: for whom,
//! which method it suggests, and in which language: a page's error under
//! `/zh-hans/` is in Chinese, a program's always the source's). Paths are read with
//! `refserve_core::address`, which writes them too.
//!
//! The common case is one `phf` lookup of the path as sent. Only a miss
//! pays for more: percent-decoding of unreserved characters (RFC 3986
//! §2.3, §6.2.2.2) into a stack buffer, a second lookup, and for
//! `/api/reference/{name}.json` a check of the name against `^[a-z]+$` and a
//! search for a close catalog key to suggest. A page URL spelled with
//! upper-case letters or a trailing slash is redirected to its canonical
//! form. Nothing allocates.
//!
//! A resource that carries an error (a removed method's page and JSON
//! document) is found like any other and answered with its error.

use crate::errors::{ErrorKind, MAX_NAME_LEN, MAX_PATH_LEN};
use crate::table::{ErrorKey, Resource, Table};
use refserve_core::address::{self, Address, Localized};
use refserve_core::search::typos::edit_distance;

/// The part of the server that answers a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `/mcp` (and `/mcp/`), answered once the request's body has arrived.
    Mcp,
    /// `/search`, answered at run time from the table's pieces.
    Search,
    /// Everything else: the table's resources and errors ([`route`]).
    Table,
}

/// Which part of the server answers `path`, as sent.
#[inline]
pub(crate) fn endpoint(path: &str) -> Endpoint {
    match Address::run_time(path) {
        Some(Address::Search) => Endpoint::Search,
        Some(Address::Mcp) => Endpoint::Mcp,
        // A language's search (`/zh-hans/search`); the search checks the
        // language.
        _ if path.ends_with("/search") && is_localized_search(path) => Endpoint::Search,
        _ => Endpoint::Table,
    }
}

/// Whether `path` is the search in a language's pages.
fn is_localized_search(path: &str) -> bool {
    Localized::parse(path).is_some_and(|l| l.address == Address::Search)
}

/// Where a path leads, in a table that lives for `'t`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Route<'t> {
    /// A resource served with 200.
    Found(&'t Resource),
    /// A page spelled otherwise: 308 to this page's canonical path.
    Redirect(&'t Resource),
    /// No resource: the error to answer with, and its body.
    Missing(ErrorKind, &'t Resource),
}

/// Route a request path (the query string already removed) in `table`.
pub(crate) fn route<'t>(table: &'t Table, path: &str) -> Route<'t> {
    if let Some(resource) = table.resource(path) {
        return found(resource);
    }
    if path.len() > MAX_PATH_LEN {
        return missing(table, path, ErrorKind::UriTooLong);
    }
    let mut buffer = [0u8; MAX_PATH_LEN];
    let decoded = decode_unreserved(path, &mut buffer);
    if decoded.len() != path.len() {
        if let Some(resource) = table.resource(decoded) {
            return found(resource);
        }
    }
    if let Some(Address::Document(name)) = Address::parse(decoded) {
        return unknown_name(table, name);
    }
    let mut buffer = [0u8; MAX_PATH_LEN + 1];
    // A directory page (`/api/`) is canonical with its slash.
    let (canonical, slashed) = canonical_form(decoded, &mut buffer);
    match table
        .resource(canonical)
        .or_else(|| table.resource(slashed))
    {
        Some(resource) if resource.is_page() => Route::Redirect(resource),
        _ => match mistyped_page(table, canonical) {
            Some(key) => {
                let kind = ErrorKind::NotFound;
                let error = ErrorKey::page(kind)
                    .suggesting(key)
                    .in_language(table.language_of(canonical));
                Route::Missing(kind, table.error(error))
            }
            None => missing(table, decoded, ErrorKind::NotFound),
        },
    }
}

/// A resource at its path: served with 200, or the error it carries.
fn found(resource: &Resource) -> Route<'_> {
    match resource.error {
        None => Route::Found(resource),
        Some(kind) => Route::Missing(kind, resource),
    }
}

/// The method (its key's index) a missing `/api/<name>` or `/api/<name>.md`
/// (in canonical form, in a language's pages or not) was probably meant
/// to be.
fn mistyped_page(table: &Table, canonical: &str) -> Option<usize> {
    match Localized::parse(canonical)?.address {
        Address::Method(name, _)
            if !address::is_for_programs(canonical) && name.len() <= MAX_NAME_LEN =>
        {
            suggest(name, &table.keys)
        }
        _ => None,
    }
}

/// The error resource for `kind` on `path`: JSON for API paths, a
/// negotiated page elsewhere, in the language whose pages `path` is among
/// (`/zh-hans/…`; the source's without one).
pub(crate) fn error_for<'t>(table: &'t Table, path: &str, kind: ErrorKind) -> &'t Resource {
    if address::is_for_programs(path) {
        table.error(ErrorKey::program(kind))
    } else {
        page_error_for(table, path, kind)
    }
}

/// The negotiated error page for `kind` on `path`, in the language whose
/// pages `path` is among.
pub(crate) fn page_error_for<'t>(table: &'t Table, path: &str, kind: ErrorKind) -> &'t Resource {
    table.error(ErrorKey::page(kind).in_language(table.language_of(path)))
}

/// The error body for `kind` about the existing `resource` (its 406): a
/// negotiated page for a page, in its language, the ErrorResponse for a
/// document.
pub(crate) fn error_about<'t>(
    table: &'t Table,
    resource: &Resource,
    kind: ErrorKind,
) -> &'t Resource {
    if resource.is_page() {
        page_error_for(table, &resource.id, kind)
    } else {
        table.error(ErrorKey::program(kind))
    }
}

/// `path` in lowercase without trailing slashes (the root stays `/`),
/// and the same followed by `/`, in `buffer`.
fn canonical_form<'b>(path: &str, buffer: &'b mut [u8; MAX_PATH_LEN + 1]) -> (&'b str, &'b str) {
    let trimmed = path.trim_end_matches('/');
    let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
    let length = trimmed.len().min(MAX_PATH_LEN);
    buffer[..length].copy_from_slice(&trimmed.as_bytes()[..length]);
    buffer[..length].make_ascii_lowercase();
    buffer[length] = b'/';
    let canonical = std::str::from_utf8(&buffer[..=length]).unwrap_or("//");
    (&canonical[..canonical.len() - 1], canonical)
}

/// The error for a JSON document's name that is not in the table.
fn unknown_name<'t>(table: &'t Table, name: &str) -> Route<'t> {
    let kind = if !address::is_key(name) {
        ErrorKind::InvalidName
    } else if name.len() > MAX_NAME_LEN {
        ErrorKind::NameTooLong
    } else {
        ErrorKind::ReferenceNotFound
    };
    let error = match (kind, suggest(name, &table.keys)) {
        (ErrorKind::NameTooLong, _) | (_, None) => ErrorKey::program(kind),
        (_, Some(key)) => ErrorKey::program(kind).suggesting(key),
    };
    Route::Missing(kind, table.error(error))
}

fn missing<'t>(table: &'t Table, path: &str, kind: ErrorKind) -> Route<'t> {
    Route::Missing(kind, error_for(table, path, kind))
}

/// Decode `%XX` escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`)
/// into `buffer`; every other byte, and every other escape, is kept as it
/// is. `path` must fit in `buffer` (decoding never lengthens it); the
/// excess is cut otherwise.
fn decode_unreserved<'b>(path: &str, buffer: &'b mut [u8]) -> &'b str {
    let bytes = path.as_bytes();
    let mut length = 0;
    let mut i = 0;
    while i < bytes.len() && length < buffer.len() {
        let escaped = match bytes[i..] {
            [b'%', high, low, ..] => hex(high).zip(hex(low)).map(|(h, l)| h << 4 | l),
            _ => None,
        };
        match escaped {
            Some(byte) if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) => {
                buffer[length] = byte;
                i += 3;
            }
            _ => {
                buffer[length] = bytes[i];
                i += 1;
            }
        }
        length += 1;
    }
    // Only ASCII bytes were substituted for ASCII escapes, and a cut (if
    // any) is moved back to a character boundary.
    let mut end = length;
    loop {
        match std::str::from_utf8(&buffer[..end]) {
            Ok(text) => return text,
            Err(e) => end = e.valid_up_to(),
        }
    }
}

/// The value of a hexadecimal digit (either case), as percent-encoding
/// writes them.
pub(crate) fn hex(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// The index of the one key in `keys` closest to `name` (compared in
/// lowercase, letters only), if it is close: at most one edit for keys of up to four letters,
/// two for longer ones (edits are insertions, deletions, substitutions and
/// swaps of neighbours). `None` when nothing is close or two keys are
/// equally close.
pub(crate) fn suggest(name: &str, keys: &[impl AsRef<str>]) -> Option<usize> {
    const MAX: usize = 16;
    let mut normal = [0u8; MAX];
    let mut length = 0;
    for byte in name.bytes().filter(u8::is_ascii_alphabetic) {
        if length == MAX {
            return None;
        }
        normal[length] = byte.to_ascii_lowercase();
        length += 1;
    }
    let normal = &normal[..length];
    let mut best: Option<(usize, usize)> = None;
    let mut tie = false;
    for (i, key) in keys.iter().map(AsRef::as_ref).enumerate() {
        let allowed = if key.len() <= 4 { 1 } else { 2 };
        let Some(distance) = edit_distance(normal, key.as_bytes(), allowed) else {
            continue;
        };
        match best {
            Some((d, _)) if distance > d => {}
            Some((d, _)) if distance == d => tie = true,
            _ => {
                best = Some((distance, i));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, key)| key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode(path: &str) -> String {
        let mut buffer = [0u8; 64];
        decode_unreserved(path, &mut buffer).to_string()
    }

    #[test]
    fn unreserved_escapes_are_decoded() {
        let document = Address::Document("select").to_string();
        assert_eq!(decode(&document.replace('s', "%73")), document);
        assert_eq!(decode("/%41%7a%2D%2e%5F%7E"), "/Az-._~");
    }

    #[test]
    fn reserved_and_broken_escapes_stay() {
        assert_eq!(decode("/a%2Fb%20c%"), "/a%2Fb%20c%");
        assert_eq!(decode("/%zz%4"), "/%zz%4");
        assert_eq!(decode("/%C3%A9"), "/%C3%A9");
    }

    #[test]
    fn non_ascii_survives_and_cuts_fall_on_boundaries() {
        assert_eq!(decode("/é"), "/é");
        let mut small = [0u8; 2];
        assert_eq!(decode_unreserved("/é", &mut small), "/");
    }

    #[test]
    fn canonical_forms() {
        let mut buffer = [0u8; MAX_PATH_LEN + 1];
        let page = Address::Method("select", address::View::Page).to_string();
        let shouted = format!("{}/", page.to_ascii_uppercase());
        let slashed = format!("{page}/");
        assert_eq!(
            canonical_form(&shouted, &mut buffer),
            (page.as_str(), slashed.as_str())
        );
        assert_eq!(canonical_form("//", &mut buffer), ("/", "//"));
        assert_eq!(canonical_form("/", &mut buffer), ("/", "//"));
        assert_eq!(canonical_form("/Ä/", &mut buffer), ("/Ä", "/Ä/"));
    }

    #[test]
    fn endpoints_are_named_by_their_paths_as_sent() {
        assert_eq!(endpoint("/mcp"), Endpoint::Mcp);
        assert_eq!(endpoint("/mcp/"), Endpoint::Mcp);
        assert_eq!(endpoint("/search"), Endpoint::Search);
        for other in ["/search/", "/Search", "/%6Dcp", "/mcp/server-card", "/"] {
            assert_eq!(endpoint(other), Endpoint::Table, "{other}");
        }
    }

    const KEYS: [&str; 6] = ["select", "insert", "max", "min", "sum", "id"];

    /// The key [`suggest`] chooses among [`KEYS`].
    fn suggested(name: &str, keys: &[&'static str]) -> Option<&'static str> {
        suggest(name, keys).map(|i| keys[i])
    }

    #[test]
    fn close_names_get_a_suggestion() {
        assert_eq!(suggested("selct", &KEYS), Some("select"));
        assert_eq!(suggested("slect", &KEYS), Some("select"));
        assert_eq!(suggested("seletc", &KEYS), Some("select"));
        assert_eq!(suggested("SELECT", &KEYS), Some("select"));
        assert_eq!(suggested("se-lect", &KEYS), Some("select"));
        assert_eq!(suggested("insrt", &KEYS), Some("insert"));
        assert_eq!(suggested("summ", &KEYS), Some("sum"));
        assert_eq!(suggested("ids", &KEYS), Some("id"));
    }

    #[test]
    fn distant_or_ambiguous_names_get_none() {
        assert_eq!(
            suggested("mix", &KEYS),
            None,
            "max and min are both one edit away"
        );
        assert_eq!(suggested("zzzzzz", &KEYS), None);
        assert_eq!(suggested("sel", &KEYS), None);
        assert_eq!(suggested(&"a".repeat(300), &KEYS), None);
    }

    proptest! {
        #[test]
        fn decoding_is_idempotent_and_never_longer(path in "/[a-zA-Z0-9%._~/-]{0,40}") {
            let once = decode(&path);
            prop_assert!(once.len() <= path.len());
            // Decoding can create a new escape only from a literal `%`, which is kept.
            prop_assert_eq!(decode(&once).len() <= once.len(), true);
        }

        #[test]
        fn a_suggestion_is_never_further_than_the_key_typed(index in 0usize..6, at in 0usize..8, letter in b'a'..=b'z') {
            let key = KEYS[index];
            let mut typo = key.as_bytes().to_vec();
            let at = at % typo.len();
            typo[at] = letter;
            let typo = String::from_utf8(typo).expect("ASCII");
            let typed = edit_distance(typo.as_bytes(), key.as_bytes(), 2).expect("one substitution");
            if let Some(suggestion) = suggested(&typo, &KEYS) {
                let d = edit_distance(typo.as_bytes(), suggestion.as_bytes(), 2).expect("suggestions are close");
                prop_assert!(d <= typed);
            } else {
                // One substitution is always close enough, so only a tie explains silence.
                prop_assert!(KEYS.iter().any(|k| *k != key && edit_distance(typo.as_bytes(), k.as_bytes(), typed).is_some()));
            }
            if typed == 0 {
                prop_assert_eq!(suggested(&typo, &KEYS), Some(key));
            }
        }

        #[test]
        fn suggest_never_panics(name in ".{0,100}") {
            let _ = suggested(&name, &KEYS);
        }
    }
}
