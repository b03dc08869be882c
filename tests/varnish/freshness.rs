//! Freshness through the cache: revalidation's 304s, and errors kept no
//! longer than their `Cache-Control` says (no-store never stored).

use super::{cache_state, seconds, Varnish};
use crate::support::start_server;
use http::Method;

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn revalidation_gives_304_through_the_cache() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let path = "/api/reference/select.json";
    let br = [("accept-encoding", "br")];
    let stored = varnish.get(path, &br).await;
    assert_eq!(cache_state(&stored), "MISS");
    let etag = stored.header("etag");
    assert_eq!(etag, server.get(path, &br).await.header("etag"));
    for if_none_match in [etag.to_string(), format!("W/{etag}")] {
        let reply = varnish
            .get(path, &[br[0], ("if-none-match", &if_none_match)])
            .await;
        assert_eq!(reply.status, 304, "{if_none_match}");
        assert_eq!(cache_state(&reply), "HIT", "{if_none_match}");
        assert!(reply.body.is_empty());
        assert_eq!(reply.header("etag"), etag);
        assert_eq!(reply.header("vary"), stored.header("vary"));
        assert_eq!(
            reply.header("cache-control"),
            stored.header("cache-control")
        );
    }
    // Varnish 7.1 compares If-None-Match as one entity-tag, not a list: a
    // list that names the ETag gets the whole 200 (a valid answer to any
    // conditional request), still from the cache.
    let list = format!("\"nope\", {etag}");
    let reply = varnish.get(path, &[br[0], ("if-none-match", &list)]).await;
    assert!([200, 304].contains(&reply.status), "{list}: {reply:?}");
    assert_eq!(cache_state(&reply), "HIT");
    assert_eq!(reply.header("etag"), etag);
    // Another coding's ETag does not match: the gzip client gets its body.
    let gzip = varnish
        .get(
            path,
            &[("accept-encoding", "gzip"), ("if-none-match", etag)],
        )
        .await;
    assert_eq!(gzip.status, 200);
    assert_eq!(gzip.header("content-encoding"), "gzip");

    // A client revalidating what the cache does not hold yet.
    let cold = "/api/reference/update.json";
    let known = server.get(cold, &br).await;
    let reply = varnish
        .get(cold, &[br[0], ("if-none-match", known.header("etag"))])
        .await;
    assert_eq!(reply.status, 304);
    assert_eq!(cache_state(&reply), "MISS");
    assert_eq!(reply.header("etag"), known.header("etag"));

    // Pages: each representation has its ETag.
    let markdown = [("accept", "text/markdown"), ("accept-encoding", "br")];
    let html = [("accept", "text/html"), ("accept-encoding", "br")];
    let page = varnish.get("/api/select", &markdown).await;
    assert_eq!(page.status, 200);
    let tag = page.header("etag");
    let again = varnish
        .get(
            "/api/select",
            &[markdown[0], markdown[1], ("if-none-match", tag)],
        )
        .await;
    assert_eq!(again.status, 304);
    assert_eq!(cache_state(&again), "HIT");
    assert_eq!(again.header("vary"), crate::support::PAGE_VARY);
    let other = varnish
        .get("/api/select", &[html[0], html[1], ("if-none-match", tag)])
        .await;
    assert_eq!(other.status, 200);
    assert_eq!(other.header("content-type"), "text/html; charset=utf-8");

    // HEAD is answered from the stored GET.
    let head = varnish.request(Method::HEAD, path, &br).await;
    assert_eq!(head.status, 200);
    assert_eq!(cache_state(&head), "HIT");
    assert!(head.body.is_empty());
    assert_eq!(head.header("etag"), etag);
    assert_eq!(head.header("content-length"), stored.body.len().to_string());
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn errors_are_kept_no_longer_than_they_say() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;

    // Documents: a year (their CDN-Cache-Control: a deploy purges what it
    // changed), then a day of grace (stale-if-error); browsers get the
    // hour of Cache-Control, and none of the headers for the cache.
    let html = [("accept", "text/html")];
    let page = varnish.get("/", &html).await;
    assert_eq!(cache_state(&page), "MISS");
    let ttl = seconds(&page, "x-test-ttl");
    assert!((31_535_000.0..=31_536_000.0).contains(&ttl), "TTL {ttl}");
    assert_eq!(
        seconds(&page, "x-test-grace"),
        86400.0,
        "{:?}",
        page.headers
    );
    assert_eq!(
        page.header("cache-control"),
        "public, max-age=3600, stale-while-revalidate=86400"
    );
    for cdn_only in [
        "cdn-cache-control",
        "surrogate-control",
        "surrogate-key",
        "cache-tag",
        "x-refserve-url",
    ] {
        assert!(!page.headers.contains_key(cdn_only), "{cdn_only}");
    }

    // 405 and 406 are no-store: never a hit, however often asked.
    for (method, path, headers) in [
        (Method::POST, "/api/reference.json", &[][..]),
        (Method::DELETE, "/", &[][..]),
        (Method::GET, "/", &[("accept", "application/json")][..]),
        (
            Method::GET,
            "/api/reference.json",
            &[("accept-encoding", "identity;q=0")][..],
        ),
    ] {
        for _ in 0..3 {
            let reply = varnish.request(method.clone(), path, headers).await;
            let what = format!("{method} {path} {headers:?}");
            assert!([405, 406].contains(&reply.status), "{what}: {reply:?}");
            assert_eq!(cache_state(&reply), "PASS", "{what}");
            assert_eq!(reply.header("cache-control"), "no-store", "{what}");
            if reply.status == 405 {
                assert_eq!(reply.header("allow"), "GET, HEAD, OPTIONS", "{what}");
            }
        }
    }
    // … and they did not displace the stored page.
    let page = varnish.get("/", &html).await;
    assert_eq!((page.status, cache_state(&page)), (200, "HIT"));

    // 404, 400 and 414 may be kept 60 seconds: stored for at most that,
    // with no grace beyond, and their Cache-Control reaches the client.
    let long = format!("/{}", "a".repeat(3000));
    for (path, status, headers) in [
        ("/api/reference/nope.json", 404, &[][..]),
        (
            "/api/reference/selct.json",
            404,
            &[("accept-encoding", "br")][..],
        ),
        ("/nope", 404, &[("accept", "text/html")][..]),
        ("/api/reference/Select.json", 400, &[][..]),
        (long.as_str(), 414, &[][..]),
    ] {
        for state in ["MISS", "HIT"] {
            let reply = varnish.get(path, headers).await;
            let what = format!("{} {headers:?} ({state})", &path[..path.len().min(40)]);
            assert_eq!(reply.status, status, "{what}");
            assert_eq!(cache_state(&reply), state, "{what}");
            assert_eq!(
                reply.header("cache-control"),
                "public, max-age=60",
                "{what}"
            );
            let ttl = seconds(&reply, "x-test-ttl");
            assert!(ttl > 0.0 && ttl <= 60.0, "{what}: TTL {ttl}");
            assert_eq!(seconds(&reply, "x-test-grace"), 0.0, "{what}");
            let age: u64 = reply.header("age").parse().expect("an Age");
            assert!(age <= 60, "{what}: Age {age}");
            assert_eq!(
                reply.decoded(),
                server.get(path, headers).await.decoded(),
                "{what}"
            );
        }
    }
}
