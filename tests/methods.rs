//! Methods: GET and HEAD serve, OPTIONS describes, everything else is 405.

use crate::support::start_server;
use http::Method;

#[tokio::test]
async fn other_methods_are_405_with_allow() {
    let server = start_server().await;
    for method in [
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::TRACE,
    ] {
        for path in [
            "/api/reference.json",
            "/api/reference/select.json",
            "/api/reference/nope.json",
        ] {
            let reply = server.request(method.clone(), path, &[]).await;
            assert_eq!(reply.status, 405, "{method} {path}");
            assert_eq!(reply.header("allow"), "GET, HEAD, OPTIONS");
            assert_eq!(reply.error_code(), "method_not_allowed");
        }
    }
}

#[tokio::test]
async fn extension_methods_are_405_too() {
    let server = start_server().await;
    let method = Method::from_bytes(b"PROPFIND").expect("a token");
    let reply = server.request(method, "/api/reference.json", &[]).await;
    assert_eq!(reply.status, 405);
}

#[tokio::test]
async fn options_lists_the_methods() {
    let server = start_server().await;
    let reply = server
        .request(Method::OPTIONS, "/api/reference/select.json", &[])
        .await;
    assert_eq!(reply.status, 204);
    assert_eq!(reply.header("allow"), "GET, HEAD, OPTIONS");
    assert!(reply.body.is_empty());
    let missing = server.request(Method::OPTIONS, "/nope", &[]).await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn http2_cleartext_serves_the_same_bytes() {
    let server = start_server().await;
    let http1 = server
        .get("/api/reference.json", &[("accept-encoding", "br")])
        .await;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .http2_only(true)
        .build_http::<http_body_util::Empty<bytes::Bytes>>();
    let request = http::Request::get(format!("{}/api/reference.json", server.origin))
        .header("accept-encoding", "br")
        .body(http_body_util::Empty::new())
        .expect("a request");
    let response = client.request(request).await.expect("h2c answers");
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.headers()["content-encoding"], "br");
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(body.as_ref(), http1.body.as_slice());
}
