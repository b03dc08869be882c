//! Spellings that mean the same thing share one object: header spellings,
//! the query string refserve ignores, the Host, and `/search`'s query,
//! kept by its normalised form.

use super::{cache_state, seconds, Headers, Varnish};
use crate::support::start_server;

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn header_spellings_share_one_object() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let document = "/api/reference/insert.json";
    let page = "/api/update";
    // Per group: the first spelling stores the object, the others hit it.
    let groups: [(&str, &[Headers]); 8] = [
        (
            document,
            &[
                &[("accept-encoding", "gzip, deflate, br, zstd")],
                &[("accept-encoding", "br")],
                &[("accept-encoding", "BR;q=1")],
                &[("accept-encoding", "*")],
                &[("accept-encoding", "br"), ("accept", "text/html")],
                &[("accept-encoding", "br"), ("accept", "application/json")],
            ],
        ),
        (
            document,
            &[
                &[("accept-encoding", "gzip")],
                &[("accept-encoding", "x-gzip")],
                &[("accept-encoding", "deflate, gzip")],
                &[("accept-encoding", "gzip, br;q=0")],
            ],
        ),
        (
            document,
            &[
                &[],
                &[("accept-encoding", "")],
                &[("accept-encoding", "identity")],
                &[("accept-encoding", "deflate")],
                &[("accept-encoding", "br;q=0, gzip;q=0")],
            ],
        ),
        (
            page,
            &[
                &[(
                    "accept",
                    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                )],
                &[("accept", "text/html")],
                &[("accept", "*/*")],
                &[],
                &[("accept", "text/html, text/markdown;q=0.1")],
            ],
        ),
        (
            page,
            &[
                &[("accept", "text/markdown")],
                &[("accept", "text/markdown, text/html;q=0.5")],
                &[("accept", "text/markdown;q=0.9, text/html;q=0.8")],
                &[("accept", "TEXT/MARKDOWN")],
            ],
        ),
        (
            page,
            &[
                &[
                    ("accept", "text/markdown"),
                    ("accept-encoding", "gzip, deflate, br, zstd"),
                ],
                &[
                    ("accept", "text/markdown, */*;q=0.1"),
                    ("accept-encoding", "br"),
                ],
            ],
        ),
        // The query string, which refserve ignores, and the Host.
        (
            "/api/delete",
            &[
                &[("accept-encoding", "br")],
                &[("accept-encoding", "br"), ("host", "docs.example.com")],
            ],
        ),
        (
            "/api/delete?utm_source=feed",
            &[
                &[("accept-encoding", "br")],
                &[("accept-encoding", "br;q=0.8, gzip;q=0.7")],
            ],
        ),
    ];
    for (index, (path, spellings)) in groups.iter().enumerate() {
        let mut first = None;
        for (n, headers) in spellings.iter().enumerate() {
            let reply = varnish.get(path, headers).await;
            let what = format!("{path} {headers:?}");
            assert_eq!(reply.status, 200, "{what}");
            // The `?utm_source` group finds the object the group before stored.
            let expected = if n == 0 && index != 7 { "MISS" } else { "HIT" };
            assert_eq!(cache_state(&reply), expected, "{what}");
            // The same object: its ETag and its bytes.
            let (tag, body) =
                first.get_or_insert_with(|| (reply.header("etag").to_string(), reply.decoded()));
            assert_eq!(reply.header("etag"), tag, "{what}");
            assert_eq!(&reply.decoded(), body, "{what}");
            if n == 0 {
                let direct = server.get(path, headers).await;
                assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            }
        }
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_search_is_kept_by_its_normalised_query() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let json = [("accept", "application/json")];
    let first = varnish.get("/search?q=Count+Rows", &json).await;
    assert_eq!((first.status, cache_state(&first)), (200, "MISS"));
    let direct = server.get("/search?q=Count+Rows", &json).await;
    assert_eq!(first.body, direct.body);
    assert_eq!(first.header("etag"), direct.header("etag"));
    // Every spelling of the query is the stored object.
    for respelled in [
        "/search?q=Count%20%20Rows",
        "/search?q=+Count%09Rows+&utm_source=mail",
        "/search?page=2&q=Count+Rows",
        "/search?q=Count+Rows&q=other",
    ] {
        let reply = varnish.get(respelled, &json).await;
        assert_eq!(
            (reply.status, cache_state(&reply)),
            (200, "HIT"),
            "{respelled}"
        );
        assert_eq!(reply.body, first.body, "{respelled}");
        assert_eq!(reply.header("etag"), first.header("etag"), "{respelled}");
    }
    // Another query, and another representation, are objects of their own.
    let other = varnish.get("/search?q=count", &json).await;
    assert_eq!(cache_state(&other), "MISS");
    // Case is kept: a word in capitals may rank otherwise.
    let lower = varnish.get("/search?q=count+rows", &json).await;
    assert_eq!(cache_state(&lower), "MISS");
    assert_ne!(other.body, first.body);
    let html = [("accept", "text/html")];
    for state in ["MISS", "HIT"] {
        let page = varnish.get("/search?q=count+rows", &html).await;
        assert_eq!((page.status, cache_state(&page)), (200, state));
        assert_eq!(page.header("content-type"), "text/html; charset=utf-8");
        assert_eq!(page.header("vary"), "Accept, Accept-Language");
    }
    // A browser's 303 to a method's page is kept as long as an answer (its
    // CDN-Cache-Control: a deploy purges it with `search`), a 400 its
    // max-age.
    for state in ["MISS", "HIT"] {
        let redirect = varnish.get("/search?q=Select", &html).await;
        assert_eq!((redirect.status, cache_state(&redirect)), (303, state));
        assert_eq!(redirect.header("location"), "/en/api/select");
        let ttl = seconds(&redirect, "x-test-ttl");
        assert!(ttl > 31_535_000.0 && ttl <= 31_536_000.0, "TTL {ttl}");
        let empty = varnish.get("/search?q=+", &json).await;
        assert_eq!((empty.status, cache_state(&empty)), (400, state));
        assert!(empty.body.windows(13).any(|w| w == b"query_missing"));
    }
    // Without a query, refserve's 400 too.
    let none = varnish.get("/search?x=1", &json).await;
    assert_eq!(none.status, 400);
    // Revalidation through the cache.
    let etag = first.header("etag").to_string();
    let fresh = varnish
        .get(
            "/search?q=Count+Rows",
            &[("accept", "application/json"), ("if-none-match", &etag)],
        )
        .await;
    assert_eq!(fresh.status, 304);
}
