//! Each coding and each representation is its own object, the one refserve
//! would choose for the same request; a dictionary-compressed body reaches
//! only a client holding the dictionary.

use super::{cache_state, Headers, Varnish};
use crate::support::start_server;

/// The page URLs, and the JSON documents, the tests go through.
const PAGES: [&str; 2] = ["/", "/api/select"];
const DOCUMENTS: [&str; 2] = ["/api/reference.json", "/api/reference/select.json"];

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn each_coding_is_its_own_object() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for path in DOCUMENTS.into_iter().chain(PAGES) {
        let plain = server.get(path, &[]).await;
        assert_eq!(plain.header("content-encoding"), "");
        // br, gzip and identity clients, one after the other: each misses
        // the first time although the others are stored, and hits after.
        for round in ["MISS", "HIT"] {
            for (accept_encoding, coding) in [("br", "br"), ("gzip", "gzip"), ("", "")] {
                let headers: &[(&str, &str)] = if accept_encoding.is_empty() {
                    &[]
                } else {
                    &[("accept-encoding", accept_encoding)]
                };
                let direct = server.get(path, headers).await;
                let reply = varnish.get(path, headers).await;
                let what = format!("{path} {accept_encoding:?} ({round})");
                assert_eq!(reply.status, 200, "{what}");
                assert_eq!(cache_state(&reply), round, "{what}");
                assert_eq!(reply.header("content-encoding"), coding, "{what}");
                assert_eq!(reply.decoded(), plain.body, "{what}");
                // Nothing the cache could weaken or drop.
                for name in ["etag", "vary", "cache-control", "content-type"] {
                    assert_eq!(reply.header(name), direct.header(name), "{what}: {name}");
                }
                assert!(reply.header("etag").starts_with('"'), "strong: {what}");
            }
        }
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn codings_are_the_ones_refserve_chooses() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for accept_encoding in [
        "br",
        "gzip",
        "identity",
        "",
        "gzip, deflate, br, zstd",
        "gzip, br",
        "br;q=0.5, gzip;q=0.9",
        "br;q=0, gzip",
        "br;q=0.",
        "BR",
        "x-gzip",
        "*",
        "*;q=0, identity",
        "gzip;q=0, br;q=0",
        "deflate",
        "br;q=nonsense, gzip;q=0.1",
        "identity;q=0.5, gzip;q=0.4",
        "br;q=0.5, identity",
        "zstd, *;q=0.1",
        "br ; q=0.9 , gzip ; Q=1",
        // Nothing acceptable: 406, through the cache too.
        "identity;q=0",
        "gzip;q=0, br;q=0, identity;q=0",
        "*;q=0",
    ] {
        for path in ["/api/reference.json", "/api/select"] {
            let headers = [("accept-encoding", accept_encoding)];
            let direct = server.get(path, &headers).await;
            let reply = varnish.get(path, &headers).await;
            let what = format!("{path} {accept_encoding:?}");
            assert_eq!(reply.status, direct.status, "{what}");
            assert_eq!(
                reply.header("content-encoding"),
                direct.header("content-encoding"),
                "{what}"
            );
            if reply.status == 406 && path.ends_with(".json") {
                assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            } else if reply.status == 406 {
                // Without Accept a page's error is JSON; the cache asked
                // as an HTML client (page URLs get a canonical Accept).
                assert_eq!(direct.header("content-type"), "application/json");
                assert_eq!(reply.header("content-type"), "text/html; charset=utf-8");
                assert_eq!(
                    reply.decoded(),
                    server
                        .get(path, &[headers[0], ("accept", "text/html")])
                        .await
                        .decoded(),
                    "{what}"
                );
            } else {
                assert_eq!(reply.header("etag"), direct.header("etag"), "{what}");
                assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            }
            assert_eq!(
                reply.header("cache-control"),
                direct.header("cache-control"),
                "{what}"
            );
        }
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn markdown_and_html_are_separate_objects() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let agent = "text/markdown, text/html;q=0.5";
    for path in PAGES {
        let html = server.get(path, &[("accept", "text/html")]).await;
        let markdown = server.get(path, &[("accept", "text/markdown")]).await;
        assert_eq!(html.header("content-type"), "text/html; charset=utf-8");
        assert_eq!(
            markdown.header("content-type"),
            "text/markdown; charset=utf-8"
        );
        // HTML, then Markdown while HTML is stored, then each again.
        for (accept, expected, state) in [
            (browser, &html, "MISS"),
            (agent, &markdown, "MISS"),
            (browser, &html, "HIT"),
            (agent, &markdown, "HIT"),
        ] {
            for accept_encoding in ["br", "gzip"] {
                let headers = [("accept", accept), ("accept-encoding", accept_encoding)];
                let reply = varnish.get(path, &headers).await;
                let what = format!("{path} {headers:?}");
                assert_eq!(reply.status, 200, "{what}");
                assert_eq!(cache_state(&reply), state, "{what}");
                assert_eq!(
                    reply.header("content-type"),
                    expected.header("content-type"),
                    "{what}"
                );
                assert_eq!(reply.header("content-encoding"), accept_encoding, "{what}");
                assert_eq!(reply.decoded(), expected.body, "{what}");
                assert_eq!(reply.header("vary"), crate::support::PAGE_VARY, "{what}");
                assert_eq!(
                    reply.header("x-markdown-tokens"),
                    expected.header("x-markdown-tokens"),
                    "{what}"
                );
            }
        }
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn page_representations_are_the_ones_refserve_chooses() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for accept in [
        None,
        Some("*/*"),
        Some("text/html"),
        Some("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
        Some("text/markdown"),
        Some("TEXT/MARKDOWN"),
        Some("text/markdown;charset=utf-8"),
        Some("text/markdown, text/html;q=0.5"),
        Some("text/html, text/markdown;q=0.1"),
        Some("text/markdown;q=0.9, text/html;q=0.8"),
        Some("text/markdown;q=0.5, text/html;q=0.5"),
        Some("text/markdown;q=0.5;ext=1, text/html;q=0.4"),
        Some("text/*"),
        Some("text/*;q=0.5, text/markdown"),
        Some("text/markdown, */*;q=0.1"),
        Some("text/plain, text/markdown;q=0.3, */*;q=0.2"),
        Some("text/html;level=1, text/markdown;q=0.5"),
        Some("nonsense"),
        // Neither HTML nor Markdown: 406, through the cache too.
        Some("application/json"),
        Some("text/plain"),
        Some("text/html;q=0, text/markdown;q=0"),
    ] {
        for path in PAGES {
            let headers: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
            let direct = server.get(path, &headers).await;
            let reply = varnish.get(path, &headers).await;
            let what = format!("{path} {accept:?}");
            assert_eq!(reply.status, direct.status, "{what}");
            assert_eq!(
                reply.header("content-type"),
                direct.header("content-type"),
                "{what}"
            );
            assert_eq!(reply.decoded(), direct.decoded(), "{what}");
        }
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_dictionary_compressed_body_only_reaches_a_client_holding_the_dictionary() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let chrome = "gzip, deflate, br, zstd, dcb, dcz";
    let available = crate::support::available_dictionary();
    let other = format!(":{}:", crate::support::base64(&[1; 32]));
    let holding: Headers = &[
        ("accept", "text/html"),
        ("accept-encoding", chrome),
        ("available-dictionary", &available),
    ];
    let without: Headers = &[("accept", "text/html"), ("accept-encoding", chrome)];
    let another: Headers = &[
        ("accept", "text/html"),
        ("accept-encoding", chrome),
        ("available-dictionary", &other),
    ];
    let not_naming: Headers = &[
        ("accept", "text/html"),
        ("accept-encoding", "gzip, br"),
        ("available-dictionary", &available),
    ];
    for path in ["/", "/api/", "/api/select"] {
        let plain = server.get(path, &[("accept", "text/html")]).await;
        // The dictionary's holder first, so its object is in the cache
        // before anyone else asks.
        for (headers, coding, states) in [
            (holding, "dc", ["MISS", "HIT"]),
            (without, "br", ["MISS", "HIT"]),
            (another, "br", ["MISS", "HIT"]),
            (not_naming, "br", ["HIT", "HIT"]),
            (holding, "dc", ["HIT", "HIT"]),
        ] {
            for state in states {
                let reply = varnish.get(path, headers).await;
                let what = format!("{path} {headers:?}");
                assert_eq!(reply.status, 200, "{what}");
                assert!(
                    reply.header("content-encoding").starts_with(coding),
                    "{what}: {}",
                    reply.header("content-encoding")
                );
                assert_eq!(cache_state(&reply), state, "{what}");
                assert_eq!(reply.decoded(), plain.body, "{what}");
            }
        }
    }
}
