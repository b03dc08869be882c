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
//! - `api`: an API client's `GET /api/reference/select.json` (br).

use http::{HeaderMap, HeaderValue, Method};
use std::hint::black_box;
use std::process::ExitCode;

#[path = "browser_headers.rs"]
mod browser_headers;
use browser_headers::{
    available_dictionary, respelled, BROWSER_ACCEPT, BROWSER_ACCEPT_ENCODING,
    BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY,
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(count), Some(case)) = (args.first().and_then(|n| n.parse().ok()), args.get(1)) else {
        eprintln!("usage: selection_loop N page-br|page-dcb|page-dcb-parsed|api");
        return ExitCode::from(2);
    };
    let Some((path, headers)) = request(case) else {
        eprintln!("selection_loop: unknown case `{case}`");
        return ExitCode::from(2);
    };
    for _ in 0..count {
        black_box(refserve::respond::select(
            &Method::GET,
            black_box(path),
            black_box(&headers),
        ));
    }
    ExitCode::SUCCESS
}

/// The path and headers of `case`.
fn request(case: &str) -> Option<(&'static str, HeaderMap)> {
    let mut headers = HeaderMap::new();
    let mut set = |name: http::header::HeaderName, value: HeaderValue| {
        headers.insert(name, value);
    };
    let path = match case {
        "page-br" => {
            set(
                http::header::ACCEPT,
                HeaderValue::from_static(BROWSER_ACCEPT),
            );
            set(
                http::header::ACCEPT_ENCODING,
                HeaderValue::from_static(BROWSER_ACCEPT_ENCODING),
            );
            "/"
        }
        "page-dcb" => {
            set(
                http::header::ACCEPT,
                HeaderValue::from_static(BROWSER_ACCEPT),
            );
            set(
                http::header::ACCEPT_ENCODING,
                HeaderValue::from_static(BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY),
            );
            set(
                http::header::HeaderName::from_static("available-dictionary"),
                available_dictionary(),
            );
            "/api/select"
        }
        "page-dcb-parsed" => {
            set(http::header::ACCEPT, respelled(BROWSER_ACCEPT));
            set(
                http::header::ACCEPT_ENCODING,
                respelled(BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY),
            );
            set(
                http::header::HeaderName::from_static("available-dictionary"),
                available_dictionary(),
            );
            "/api/select"
        }
        "api" => {
            set(
                http::header::ACCEPT,
                HeaderValue::from_static("application/json"),
            );
            set(
                http::header::ACCEPT_ENCODING,
                HeaderValue::from_static("gzip, br"),
            );
            "/api/reference/select.json"
        }
        _ => return None,
    };
    Some((path, headers))
}
