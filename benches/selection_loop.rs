//! The whole selection (`refserve::respond::select`) run N times for one
//! kind of request, for `benches/selection.sh`: it counts instructions per
//! selection (valgrind) and times the fastest of several runs, both
//! steadier on a shared machine than criterion's means.
//!
//! `selection_loop N CASE`, CASE one of:
//! - `page-br`: Chrome's navigation to `/` (br);
//! - `page-dcb`: Chrome's navigation to `/api/select` holding the
//!   dictionary (dcb);
//! - `page-dcb-parsed`: the same with Chrome's `Accept` and
//!   `Accept-Encoding` respelled, so they are read in full rather than
//!   recognised as common values;
//! - `api`: an API client's `GET /api/reference/select.json` (br);
//! - `page-zh`: `page-dcb` from a reader in China (Chrome's zh-CN
//!   `Accept-Language`).
//!
//! Every browser case sends Chrome's `Accept-Language` (en-US, or zh-CN),
//! which a page at an address that negotiates its language reads.

use http::{HeaderMap, HeaderValue, Method};
use std::hint::black_box;
use std::process::ExitCode;

#[path = "browser_headers.rs"]
mod browser_headers;
use browser_headers::{
    available_dictionary, respelled, BROWSER_ACCEPT, BROWSER_ACCEPT_ENCODING,
    BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY, BROWSER_ACCEPT_LANGUAGE,
    BROWSER_ACCEPT_LANGUAGE_CHINA,
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(count), Some(case)) = (args.first().and_then(|n| n.parse().ok()), args.get(1)) else {
        eprintln!("usage: selection_loop N page-br|page-dcb|page-dcb-parsed|api|home-html");
        return ExitCode::from(2);
    };
    let Some((path, headers)) = request(case) else {
        eprintln!("selection_loop: unknown case `{case}`");
        return ExitCode::from(2);
    };
    // Made before the loop, so a run of none makes it too and the
    // difference is the selections alone.
    let table = refserve::table::production();
    for _ in 0..count {
        black_box(refserve::respond::select(
            table,
            &Method::GET,
            black_box(path),
            black_box(&headers),
        ));
    }
    ExitCode::SUCCESS
}

/// The path and headers of `case`.
fn request(case: &str) -> Option<(&'static str, HeaderMap)> {
    let common = HeaderValue::from_static;
    let (path, accept, accept_encoding, holds_dictionary, language) = match case {
        "page-br" => (
            "/",
            common(BROWSER_ACCEPT),
            common(BROWSER_ACCEPT_ENCODING),
            false,
            Some(BROWSER_ACCEPT_LANGUAGE),
        ),
        "page-dcb" => (
            "/api/select",
            common(BROWSER_ACCEPT),
            common(BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY),
            true,
            Some(BROWSER_ACCEPT_LANGUAGE),
        ),
        "page-dcb-parsed" => (
            "/api/select",
            respelled(BROWSER_ACCEPT),
            respelled(BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY),
            true,
            Some(BROWSER_ACCEPT_LANGUAGE),
        ),
        "page-zh" => (
            "/api/select",
            common(BROWSER_ACCEPT),
            common(BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY),
            true,
            Some(BROWSER_ACCEPT_LANGUAGE_CHINA),
        ),
        "api" => (
            "/api/reference/select.json",
            common("application/json"),
            common("gzip, br"),
            false,
            None,
        ),
        // The load table's `/` HTML br row: one bare member in each field.
        "home-html" => ("/", common("text/html"), common("br"), false, None),
        _ => return None,
    };
    let mut headers = HeaderMap::new();
    headers.insert(http::header::ACCEPT, accept);
    headers.insert(http::header::ACCEPT_ENCODING, accept_encoding);
    if let Some(language) = language {
        headers.insert(http::header::ACCEPT_LANGUAGE, common(language));
    }
    if holds_dictionary {
        headers.insert("available-dictionary", available_dictionary());
    }
    Some((path, headers))
}
