//! Conditional requests and HEAD (RFC 9110 §13, §9.3.2).

use crate::support::start_server;

#[tokio::test]
async fn if_none_match_with_the_etag_gives_304() {
    let server = start_server().await;
    let first = server
        .get("/api/reference/select.json", &[("accept-encoding", "br")])
        .await;
    let etag = first.header("etag");
    for header in [
        etag.to_string(),
        format!("W/{etag}"),
        format!("\"nope\", {etag}"),
        "*".to_string(),
    ] {
        let reply = server
            .get(
                "/api/reference/select.json",
                &[("accept-encoding", "br"), ("if-none-match", &header)],
            )
            .await;
        assert_eq!(reply.status, 304, "{header}");
        assert!(reply.body.is_empty());
        assert_eq!(reply.header("etag"), etag);
        assert_eq!(reply.header("vary"), first.header("vary"));
        assert_eq!(reply.header("cache-control"), first.header("cache-control"));
    }
}

#[tokio::test]
async fn another_codings_etag_does_not_match() {
    let server = start_server().await;
    let br = server
        .get("/api/reference.json", &[("accept-encoding", "br")])
        .await;
    let reply = server
        .get(
            "/api/reference.json",
            &[
                ("accept-encoding", "gzip"),
                ("if-none-match", br.header("etag")),
            ],
        )
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-encoding"), "gzip");
}

#[tokio::test]
async fn if_modified_since() {
    let server = start_server().await;
    let first = server.get("/api/reference.json", &[]).await;
    let last_modified = first.header("last-modified");
    assert!(
        httpdate::parse_http_date(last_modified).is_ok(),
        "{last_modified}"
    );
    let fresh = server
        .get(
            "/api/reference.json",
            &[("if-modified-since", last_modified)],
        )
        .await;
    assert_eq!(fresh.status, 304);
    let stale = server
        .get(
            "/api/reference.json",
            &[("if-modified-since", "Thu, 01 Jan 1970 00:00:00 GMT")],
        )
        .await;
    assert_eq!(stale.status, 200);
    let invalid = server
        .get(
            "/api/reference.json",
            &[("if-modified-since", "not a date")],
        )
        .await;
    assert_eq!(invalid.status, 200);
}

#[tokio::test]
async fn if_none_match_takes_precedence_over_if_modified_since() {
    let server = start_server().await;
    let first = server.get("/api/reference.json", &[]).await;
    let reply = server
        .get(
            "/api/reference.json",
            &[
                ("if-none-match", "\"other\""),
                ("if-modified-since", first.header("last-modified")),
            ],
        )
        .await;
    assert_eq!(reply.status, 200);
}

#[tokio::test]
async fn errors_are_never_304() {
    let server = start_server().await;
    let reply = server
        .get("/api/reference/nope.json", &[("if-none-match", "*")])
        .await;
    assert_eq!(reply.status, 404);
}

#[tokio::test]
async fn head_has_the_get_headers_and_no_body() {
    let server = start_server().await;
    for coding in ["br", "gzip", "identity"] {
        let get = server
            .get("/api/reference.json", &[("accept-encoding", coding)])
            .await;
        let head = server
            .request(
                http::Method::HEAD,
                "/api/reference.json",
                &[("accept-encoding", coding)],
            )
            .await;
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty());
        for name in [
            "content-type",
            "content-length",
            "content-encoding",
            "etag",
            "vary",
            "cache-control",
            "last-modified",
        ] {
            assert_eq!(head.header(name), get.header(name), "{name}");
        }
        assert_eq!(head.header("content-length"), get.body.len().to_string());
    }
}

#[tokio::test]
async fn caching_headers_suit_a_cdn() {
    let server = start_server().await;
    let reply = server.get("/api/reference.json", &[]).await;
    let cache_control = reply.header("cache-control");
    assert!(
        cache_control.contains("public") && cache_control.contains("max-age="),
        "{cache_control}"
    );
    assert_eq!(reply.header("x-content-type-options"), "nosniff");
}

#[tokio::test]
async fn if_match_without_the_current_etag_is_412_before_if_none_match() {
    let server = start_server().await;
    let path = "/api/reference/select.json";
    let first = server.get(path, &[("accept-encoding", "br")]).await;
    let etag = first.header("etag");
    let weak = format!("W/{etag}");
    let listed = format!("\"nope\", {etag}");
    // Matched (strongly) or `*`: the request proceeds, to 200 or to 304.
    for (if_match, if_none_match, status) in [
        (etag, "", 200),
        (listed.as_str(), "", 200),
        ("*", "", 200),
        (etag, etag, 304),
        ("*", "\"nope\"", 200),
    ] {
        let mut headers = vec![("accept-encoding", "br"), ("if-match", if_match)];
        if !if_none_match.is_empty() {
            headers.push(("if-none-match", if_none_match));
        }
        let reply = server.get(path, &headers).await;
        assert_eq!(reply.status, status, "{headers:?}");
    }
    // Not matched: 412, whatever If-None-Match says (RFC 9110 §13.2.2).
    for headers in [
        &[("accept-encoding", "br"), ("if-match", "\"nope\"")][..],
        &[("accept-encoding", "br"), ("if-match", &weak)],
        &[("accept-encoding", "gzip"), ("if-match", etag)],
        &[
            ("accept-encoding", "br"),
            ("if-match", "\"nope\""),
            ("if-none-match", etag),
        ],
    ] {
        let reply = server.get(path, headers).await;
        assert_eq!(reply.status, 412, "{headers:?}");
        assert_eq!(reply.error_code(), "precondition_failed", "{headers:?}");
        assert_eq!(reply.header("cache-control"), "no-store");
    }
    let head = server
        .request(http::Method::HEAD, path, &[("if-match", "\"nope\"")])
        .await;
    assert_eq!(head.status, 412);
    assert!(head.body.is_empty());
}

#[tokio::test]
async fn if_match_holds_on_pages_and_searches_and_not_on_errors() {
    let server = start_server().await;
    for path in ["/api/select", "/search?q=count+rows"] {
        let first = server.get(path, &[("accept", "text/html")]).await;
        let matched = server
            .get(
                path,
                &[("accept", "text/html"), ("if-match", first.header("etag"))],
            )
            .await;
        assert_eq!(matched.status, 200, "{path}");
        let page = server
            .get(path, &[("accept", "text/html"), ("if-match", "\"nope\"")])
            .await;
        assert_eq!(page.status, 412, "{path}");
        assert!(
            page.header("content-type").starts_with("text/html"),
            "{path}: the error as a page"
        );
        let program = server.get(path, &[("if-match", "\"nope\"")]).await;
        assert_eq!(program.status, 412, "{path}");
        assert_eq!(program.error_code(), "precondition_failed", "{path}");
    }
    // Preconditions are evaluated for what would be a 200 alone (RFC 9110
    // §13.2.1).
    let missing = server
        .get("/api/reference/nope.json", &[("if-match", "\"nope\"")])
        .await;
    assert_eq!(missing.status, 404);
}
