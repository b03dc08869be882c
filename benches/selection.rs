//! Micro-benchmarks of the request path without I/O: negotiation,
//! preconditions, the table lookup, the whole selection, and what metrics
//! and the access log add to a request.
//!
//! Run with `cargo bench --bench selection`. Numbers are reported, never
//! asserted; the README quotes them with the machine they ran on.

use criterion::{criterion_group, criterion_main, Criterion};
use http::{HeaderMap, HeaderValue, Method};
use refserve::client_class::{ClientClass, Read};
use refserve::negotiate::{negotiate_encoding, negotiate_media_type, Coding, MediaType};
use std::hint::black_box;

#[path = "browser_headers.rs"]
mod browser_headers;
use browser_headers::{
    available_dictionary, respelled, BROWSER_ACCEPT, BROWSER_ACCEPT_ENCODING,
    BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY, BROWSER_ACCEPT_LANGUAGE,
    BROWSER_ACCEPT_LANGUAGE_CHINA,
};

fn negotiation(c: &mut Criterion) {
    let offered = [Coding::Br, Coding::Gzip, Coding::Identity];
    c.bench_function("negotiate_encoding/browser", |b| {
        b.iter(|| negotiate_encoding([black_box(BROWSER_ACCEPT_ENCODING.as_bytes())], offered))
    });
    let json = [MediaType::JSON];
    c.bench_function("negotiate_media_type/browser", |b| {
        b.iter(|| negotiate_media_type([black_box(BROWSER_ACCEPT.as_bytes())], &json))
    });
    c.bench_function("negotiate_media_type/api-client", |b| {
        b.iter(|| negotiate_media_type([black_box(&b"application/json"[..])], &json))
    });
    c.bench_function("negotiate_encoding/api-client", |b| {
        b.iter(|| negotiate_encoding([black_box(&b"gzip, br"[..])], offered))
    });
}

fn dictionary(c: &mut Criterion) {
    let available = available_dictionary();
    let dictionaries = &refserve::table::production().dictionaries;
    let hashes: Vec<[u8; 32]> = dictionaries.iter().map(|d| d.hash).collect();
    c.bench_function("held_dictionary/browser", |b| {
        b.iter(|| refserve::negotiate::held_dictionary([black_box(available.as_bytes())], &hashes))
    });
}

fn preconditions(c: &mut Criterion) {
    let etag = b"\"795353738ecaea97-br\"";
    c.bench_function("if_none_match/hit", |b| {
        b.iter(|| refserve::conditional::none_match([black_box(&etag[..])], etag))
    });
}

fn lookup(c: &mut Criterion) {
    c.bench_function("table/lookup", |b| {
        b.iter(|| refserve::table::production().resource(black_box("/api/reference/select.json")))
    });
}

fn selection(c: &mut Criterion) {
    let mut headers = HeaderMap::new();
    headers.insert(
        http::header::ACCEPT,
        HeaderValue::from_static(BROWSER_ACCEPT),
    );
    headers.insert(
        http::header::ACCEPT_ENCODING,
        HeaderValue::from_static(BROWSER_ACCEPT_ENCODING),
    );
    headers.insert(
        http::header::ACCEPT_LANGUAGE,
        HeaderValue::from_static(BROWSER_ACCEPT_LANGUAGE),
    );
    c.bench_function("select/200-br", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/reference/select.json"),
                &headers,
            )
        })
    });
    let mut api_client = HeaderMap::new();
    api_client.insert(
        http::header::ACCEPT,
        HeaderValue::from_static("application/json"),
    );
    api_client.insert(
        http::header::ACCEPT_ENCODING,
        HeaderValue::from_static("gzip, br"),
    );
    c.bench_function("select/page-200-br-browser", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/"),
                &headers,
            )
        })
    });
    // A navigation from Chrome holding the dictionary: dcb.
    let mut with_dictionary = headers.clone();
    with_dictionary.insert(
        http::header::ACCEPT_ENCODING,
        HeaderValue::from_static(BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY),
    );
    with_dictionary.insert("available-dictionary", available_dictionary());
    // The same from a reader in China: the Chinese page.
    let mut from_china = with_dictionary.clone();
    from_china.insert(
        http::header::ACCEPT_LANGUAGE,
        HeaderValue::from_static(BROWSER_ACCEPT_LANGUAGE_CHINA),
    );
    c.bench_function("select/page-200-dcb-browser-zh", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/select"),
                &from_china,
            )
        })
    });
    c.bench_function("select/page-200-dcb-browser", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/select"),
                &with_dictionary,
            )
        })
    });
    // The same, respelled: Accept and Accept-Encoding read in full.
    let mut parsed = with_dictionary.clone();
    parsed.insert(http::header::ACCEPT, respelled(BROWSER_ACCEPT));
    parsed.insert(
        http::header::ACCEPT_ENCODING,
        respelled(BROWSER_ACCEPT_ENCODING_WITH_DICTIONARY),
    );
    c.bench_function("select/page-200-dcb-browser-parsed", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/select"),
                &parsed,
            )
        })
    });
    // What deploy/varnish.vcl forwards on a miss: Accept-Encoding reduced
    // to one coding, Accept removed on documents.
    let mut behind_cache = HeaderMap::new();
    behind_cache.insert(
        http::header::ACCEPT_ENCODING,
        HeaderValue::from_static("br"),
    );
    c.bench_function("select/200-br-behind-varnish", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/reference/select.json"),
                &behind_cache,
            )
        })
    });
    let bare = HeaderMap::new();
    c.bench_function("select/200-identity-no-headers", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/reference/select.json"),
                &bare,
            )
        })
    });
    c.bench_function("select/200-br-api-client", |b| {
        b.iter(|| {
            refserve::respond::select(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/reference/select.json"),
                &api_client,
            )
        })
    });
    c.bench_function("respond/200-br", |b| {
        b.iter(|| {
            refserve::respond::respond(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/reference/select.json"),
                &headers,
            )
        })
    });
    let mut revalidation = headers.clone();
    let etag = refserve::respond::respond(
        refserve::table::production(),
        &Method::GET,
        "/api/reference/select.json",
        &headers,
    )
    .headers()[http::header::ETAG]
        .clone();
    revalidation.insert(http::header::IF_NONE_MATCH, etag);
    c.bench_function("respond/304", |b| {
        b.iter(|| {
            refserve::respond::respond(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/reference/select.json"),
                &revalidation,
            )
        })
    });
    c.bench_function("respond/404-suggestion", |b| {
        b.iter(|| {
            refserve::respond::respond(
                refserve::table::production(),
                &Method::GET,
                black_box("/api/reference/selct.json"),
                &headers,
            )
        })
    });
}

fn observing(c: &mut Criterion) {
    use refserve::access_log::{Entry, Format};
    let entry = Entry {
        peer: "203.0.113.7:51234",
        method: &Method::GET,
        path: "/api/reference/select.json",
        version: http::Version::HTTP_11,
        status: 200,
        bytes: 1821,
        coding: "br",
        class: "browser",
        duration: std::time::Duration::from_micros(3),
    };
    let mut line = String::with_capacity(512);
    for (name, format) in [("text", Format::Text), ("json", Format::Json)] {
        c.bench_function(&format!("access_log/{name}-line"), |b| {
            b.iter(|| {
                line.clear();
                black_box(&entry).write_line(format, &mut line);
            })
        });
    }
    let metrics = refserve::metrics::Metrics::new("0", "0");
    c.bench_function("metrics/request", |b| {
        b.iter(|| {
            metrics.request(
                http::Version::HTTP_11,
                black_box(&Method::GET),
                http::StatusCode::OK,
                Coding::Br,
                1821,
                (ClientClass::Browser, Read::Html),
            );
            metrics.request_ended(black_box(std::time::Duration::from_micros(3)));
        })
    });
    // The class of a browser's request: the whole User-Agent read for the
    // table's tokens (a connection's first request, or one whose header
    // differs from the last; the others compare it with the last).
    let chrome = b"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                   Chrome/156.0.0.0 Safari/537.36";
    c.bench_function("metrics/client_class", |b| {
        b.iter(|| ClientClass::of(Some(black_box(&chrome[..]))))
    });
}

criterion_group!(
    benches,
    negotiation,
    dictionary,
    preconditions,
    lookup,
    selection,
    observing
);
criterion_main!(benches);
