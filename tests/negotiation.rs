//! Accept-Encoding and Accept over real HTTP: every coding decodes to the
//! identity bytes, and the headers say what was chosen.

use crate::support::{shipped_methods, start_server, Server};

const PATHS: [&str; 3] = [
    "/api/reference.json",
    "/api/reference/select.json",
    "/api/reference/info.json",
];

async fn identity(server: &Server, path: &str) -> Vec<u8> {
    let reply = server.get(path, &[]).await;
    assert_eq!(reply.header("content-encoding"), "");
    reply.body
}

#[tokio::test]
async fn every_coding_decodes_to_the_identity_body() {
    let server = start_server().await;
    for path in PATHS {
        let plain = identity(&server, path).await;
        for (accept_encoding, coding) in
            [("br", "br"), ("gzip", "gzip"), ("identity", ""), ("", "")]
        {
            let reply = server
                .get(path, &[("accept-encoding", accept_encoding)])
                .await;
            assert_eq!(reply.status, 200);
            assert_eq!(
                reply.header("content-encoding"),
                coding,
                "{path} {accept_encoding}"
            );
            assert_eq!(reply.header("content-length"), reply.body.len().to_string());
            assert_eq!(reply.decoded(), plain, "{path} {accept_encoding}");
            assert!(reply.header("vary").contains("Accept-Encoding"));
        }
    }
}

#[tokio::test]
async fn the_matrix_of_accept_encoding() {
    let server = start_server().await;
    for (header, expected) in [
        ("gzip, deflate, br, zstd", "br"),
        ("gzip, br", "br"),
        ("br;q=0.5, gzip;q=0.9", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("BR", "br"),
        ("x-gzip", "gzip"),
        ("*", "br"),
        ("*;q=0, identity", ""),
        ("gzip;q=0, br;q=0", ""),
        ("deflate", ""),
        ("br;q=nonsense, gzip;q=0.1", "gzip"),
        ("identity;q=0.5, gzip;q=0.4", ""),
    ] {
        let reply = server
            .get("/api/reference.json", &[("accept-encoding", header)])
            .await;
        assert_eq!(reply.status, 200, "{header}");
        assert_eq!(reply.header("content-encoding"), expected, "{header}");
        assert_eq!(reply.json()["meta"]["count"], shipped_methods().len());
    }
}

#[tokio::test]
async fn nothing_acceptable_is_406() {
    let server = start_server().await;
    for header in [
        "*;q=0",
        "identity;q=0",
        "br;q=0, gzip;q=0, identity;q=0",
        "identity;q=0, deflate",
    ] {
        let reply = server
            .get("/api/reference/select.json", &[("accept-encoding", header)])
            .await;
        assert_eq!(reply.status, 406, "{header}");
        assert_eq!(reply.error_code(), "not_acceptable");
    }
}

#[tokio::test]
async fn the_matrix_of_accept() {
    let server = start_server().await;
    for header in [
        "application/json",
        "*/*",
        "application/*",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "application/json; charset=utf-8",
        "text/plain, application/json;q=0.1",
    ] {
        let reply = server
            .get("/api/reference/select.json", &[("accept", header)])
            .await;
        assert_eq!(reply.status, 200, "{header}");
        assert_eq!(reply.header("content-type"), "application/json");
    }
    for header in [
        "text/html",
        "application/json;q=0",
        "*/*;q=0",
        "application/xml, text/*",
    ] {
        let reply = server
            .get("/api/reference/select.json", &[("accept", header)])
            .await;
        assert_eq!(reply.status, 406, "{header}");
        assert_eq!(reply.error_code(), "not_acceptable");
    }
}

#[tokio::test]
async fn etags_differ_per_coding_and_are_strong() {
    let server = start_server().await;
    let mut seen = Vec::new();
    for coding in ["br", "gzip", "identity"] {
        let reply = server
            .get("/api/reference.json", &[("accept-encoding", coding)])
            .await;
        let etag = reply.header("etag").to_string();
        assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
        assert!(!seen.contains(&etag));
        seen.push(etag);
    }
}

#[tokio::test]
async fn errors_are_compressed_too() {
    let server = start_server().await;
    let reply = server
        .get("/api/reference/selct.json", &[("accept-encoding", "br")])
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.header("content-encoding"), "br");
    assert_eq!(reply.error_code(), "reference_not_found");
}
