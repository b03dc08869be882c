//! How `/search`'s answers are served: an `ETag` of the normalised query and its
//! `304`s; `Vary: Accept`, a cache's `Cache-Control`, identity and
//! `noindex`; `406`; `HEAD`, `OPTIONS` and `405`; and its answers held in
//! the memory budget.

use super::{search, text, BROWSER};
use crate::support::{start_server, start_server_with, Server};
use http::Method;

#[tokio::test]
async fn answers_revalidate_with_an_etag_of_the_normalised_query() {
    let server = start_server().await;
    let mut tags = Vec::new();
    for accept in [BROWSER, "text/markdown", "application/json"] {
        let reply = search(&server, "q=count+rows", accept).await;
        let etag = reply.header("etag").to_string();
        assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
        assert!(!reply.header("last-modified").is_empty());
        // The same query spelled otherwise is the same answer.
        let respelled = search(&server, "q=+count%20%20rows+", accept).await;
        assert_eq!(respelled.header("etag"), etag);
        assert_eq!(respelled.body, reply.body);
        let fresh = server
            .get(
                "/search?q=count+rows",
                &[("accept", accept), ("if-none-match", &etag)],
            )
            .await;
        assert_eq!(fresh.status, 304, "{accept}");
        assert!(fresh.body.is_empty());
        assert_eq!(fresh.header("etag"), etag);
        assert_eq!(fresh.header("vary"), "Accept, Accept-Language");
        assert_eq!(fresh.header("cache-control"), reply.header("cache-control"));
        let listed = format!("\"other\", W/{etag}");
        let weak = server
            .get(
                "/search?q=count+rows",
                &[("accept", accept), ("if-none-match", &listed)],
            )
            .await;
        assert_eq!(weak.status, 304, "weak comparison, in a list");
        let since = reply.header("last-modified").to_string();
        let by_date = server
            .get(
                "/search?q=count+rows",
                &[("accept", accept), ("if-modified-since", &since)],
            )
            .await;
        assert_eq!(by_date.status, 304);
        let other = server
            .get(
                "/search?q=count+row",
                &[("accept", accept), ("if-none-match", &etag)],
            )
            .await;
        assert_eq!(other.status, 200, "another query, another tag");
        assert_ne!(other.header("etag"), etag);
        tags.push(etag);
    }
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), 3, "one tag per representation");
}

#[tokio::test]
async fn answers_vary_on_accept_are_kept_by_caches_sent_uncompressed_and_never_indexed() {
    let server = start_server().await;
    for accept in [BROWSER, "text/markdown", "application/json"] {
        let reply = server
            .get(
                "/search?q=rows",
                &[
                    ("accept", accept),
                    ("accept-encoding", "gzip, deflate, br, zstd"),
                ],
            )
            .await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-encoding"), "", "identity");
        assert_eq!(reply.header("vary"), "Accept, Accept-Language");
        assert_eq!(
            reply.header("cache-control"),
            "public, max-age=3600, stale-while-revalidate=86400"
        );
        assert_eq!(reply.header("x-robots-tag"), "noindex");
        assert_eq!(reply.header("x-content-type-options"), "nosniff");
        assert_eq!(reply.header("access-control-allow-origin"), "*");
        assert_eq!(reply.header("content-length"), reply.body.len().to_string());
    }
    let page = server.get("/search?q=rows", &[("accept", BROWSER)]).await;
    assert!(text(&page).contains("<meta name=\"robots\" content=\"noindex\">"));
    assert!(page
        .header("content-security-policy")
        .contains("default-src 'none'"));
    // No representation acceptable, or no coding: 406.
    for headers in [
        &[("accept", "image/png")][..],
        &[
            ("accept", "application/json"),
            ("accept-encoding", "identity;q=0"),
        ][..],
    ] {
        let reply = server.get("/search?q=rows", headers).await;
        assert_eq!(reply.status, 406, "{headers:?}");
        assert_eq!(reply.header("cache-control"), "no-store");
    }
}

#[tokio::test]
async fn head_gets_the_headers_options_a_preflight_and_other_methods_405() {
    let server = start_server().await;
    let get = server.get("/search?q=rows", &[("accept", BROWSER)]).await;
    let head = server
        .request(Method::HEAD, "/search?q=rows", &[("accept", BROWSER)])
        .await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    for name in [
        "etag",
        "content-length",
        "content-type",
        "vary",
        "x-robots-tag",
    ] {
        assert_eq!(head.header(name), get.header(name), "{name}");
    }
    let options = server.request(Method::OPTIONS, "/search", &[]).await;
    assert_eq!(options.status, 204);
    assert_eq!(options.header("allow"), "GET, HEAD, OPTIONS");
    for method in [Method::POST, Method::PUT, Method::DELETE] {
        let reply = server.request(method.clone(), "/search?q=rows", &[]).await;
        assert_eq!(reply.status, 405, "{method}");
        assert_eq!(reply.header("allow"), "GET, HEAD, OPTIONS");
        assert_eq!(reply.error_code(), "method_not_allowed");
    }
}

/// The value of the metrics sample `series`.
async fn sample(server: &Server, series: &str) -> f64 {
    let addr = server.metrics_addr.as_deref().expect("a metrics listener");
    let reply = Server::client_for(&format!("http://{addr}"))
        .get("/metrics", &[])
        .await;
    let exposition = String::from_utf8(reply.body).expect("UTF-8");
    exposition
        .lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no sample {series} in\n{exposition}"))
}

#[tokio::test]
async fn answers_are_held_in_the_memory_budget() {
    // A budget that holds them: answered, and given back once sent.
    let roomy = start_server_with(|c| {
        c.metrics_addr = Some("127.0.0.1:0".parse().expect("an address"));
    })
    .await;
    for _ in 0..20 {
        assert_eq!(search(&roomy, "q=rows", BROWSER).await.status, 200);
    }
    assert_eq!(
        sample(&roomy, "refserve_memory_budget_held_bytes").await,
        0.0
    );
    let etag = search(&roomy, "q=rows", BROWSER)
        .await
        .header("etag")
        .to_string();

    // A budget smaller than any answer: each gets 503, for every audience.
    let server = start_server_with(|c| {
        c.memory_budget = 1024;
        c.metrics_addr = Some("127.0.0.1:0".parse().expect("an address"));
    })
    .await;
    let reply = server
        .get("/search?q=rows", &[("accept", "application/json")])
        .await;
    assert_eq!(reply.status, 503);
    assert_eq!(reply.error_code(), "busy");
    assert_eq!(reply.header("retry-after"), "1");
    assert_eq!(reply.header("cache-control"), "no-store");
    let page = server.get("/search?q=rows", &[("accept", BROWSER)]).await;
    assert_eq!(page.status, 503);
    assert!(text(&page).contains("<form class=\"search\""));
    assert!(sample(&server, "refserve_memory_budget_refused_total").await >= 2.0);
    // What needs no answer held is answered: a 304 (the same table makes
    // the same ETag), a redirect, an error.
    let fresh = server
        .get(
            "/search?q=rows",
            &[("accept", BROWSER), ("if-none-match", &etag)],
        )
        .await;
    assert_eq!(fresh.status, 304);
    assert_eq!(search(&server, "q=select", BROWSER).await.status, 303);
    assert_eq!(search(&server, "q=", BROWSER).await.status, 400);
}
