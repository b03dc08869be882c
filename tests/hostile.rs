//! The bad-input matrix over real TCP: every malformed or hostile request
//! gets its documented status, and the server keeps serving everyone else.

use crate::support::{start_server, Reply, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The status code of the first response in `bytes`.
fn status(bytes: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(12)]).into_owned();
    text.strip_prefix("HTTP/1.1 ")
        .or_else(|| text.strip_prefix("HTTP/1.0 "))
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {text:?}"))
}

#[tokio::test]
async fn the_bad_input_matrix() {
    let server = start_server().await;
    let long_path = format!("/{}", "a".repeat(3000));
    let many_members = vec!["text/x;q=0.1"; 10_000].join(",");
    let big_header = "b".repeat(64 * 1024);
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("malformed request line", b"GARBAGE\r\n\r\n".to_vec(), 400),
        ("missing version", b"GET /\r\n\r\n".to_vec(), 400),
        ("unknown method", b"BREW /api/reference.json HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 405),
        ("absolute-form target", b"GET http://x/api/reference.json HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 200),
        ("asterisk-form OPTIONS", b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 204),
        ("asterisk-form GET", b"GET * HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 404),
        ("dot segments", b"GET /api/../api/reference.json HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 404),
        ("encoded dot segments", b"GET /api/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 404),
        ("double slash", b"GET //api/reference.json HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 404),
        ("NUL in the path", b"GET /api/\0.json HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 400),
        ("raw invalid UTF-8 in the path", b"GET /api/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 400),
        ("encoded invalid UTF-8 name", b"GET /api/reference/%ff.json HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 400),
        ("overlong UTF-8 encoding", b"GET /api/reference/%c0%af.json HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 400),
        ("a path beyond 2048 bytes", format!("GET {long_path} HTTP/1.1\r\nHost: x\r\n\r\n").into_bytes(), 414),
        ("a 64 KB header", format!("GET / HTTP/1.1\r\nHost: x\r\nX-Big: {big_header}\r\n\r\n").into_bytes(), 431),
        ("a 10,000-member Accept", format!("GET / HTTP/1.1\r\nHost: x\r\nAccept: {many_members}\r\n\r\n").into_bytes(), 431),
        ("conflicting Content-Length", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n".to_vec(), 400),
        ("duplicated Accept-Encoding", b"GET /api/reference.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br;q=0\r\nAccept-Encoding: br, gzip;q=0.5\r\n\r\n".to_vec(), 200),
        ("duplicated Host", b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".to_vec(), 400),
        ("HTTP/1.1 without Host", b"GET /healthz HTTP/1.1\r\n\r\n".to_vec(), 400),
        ("HTTP/1.0 without Host", b"GET /api/reference.json HTTP/1.0\r\n\r\n".to_vec(), 200),
        ("a GET with a body", b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello".to_vec(), 200),
        ("a chunked GET body", b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".to_vec(), 200),
        ("chunked not the last coding", b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n".to_vec(), 400),
        ("a coding before chunked", b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n".to_vec(), 501),
        ("control bytes in a header", b"GET / HTTP/1.1\r\nHost: x\r\nAccept: a\x01b\r\n\r\n".to_vec(), 400),
    ];
    for (name, request, expected) in cases {
        let response = server.raw(&request).await;
        assert_eq!(status(&response), expected, "{name}");
        // And the server keeps serving everyone else.
        assert_eq!(
            server.get("/healthz", &[]).await.status,
            200,
            "after {name}"
        );
    }
}

/// A request every connection below sends after the one it tests: answered
/// only if the connection stayed open.
const NEXT: &str = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

/// The one answer to `request`, sent on a connection of its own with
/// [`NEXT`] after it, which must not be answered: the connection closes
/// after the first answer, which says so.
async fn the_only_answer(server: &Server, request: &str) -> Reply {
    let sent = format!("{request}{NEXT}");
    let mut replies = Reply::parse_all(&server.raw(sent.as_bytes()).await);
    let statuses: Vec<u16> = replies.iter().map(|reply| reply.status).collect();
    assert_eq!(
        statuses.len(),
        1,
        "{request:?}: the connection closes after its answer: {statuses:?}"
    );
    let reply = replies.remove(0);
    assert_eq!(reply.header("connection"), "close", "{request:?}");
    reply
}

#[tokio::test]
async fn a_transfer_coding_other_than_chunked_is_501_and_closes_the_connection() {
    let server = start_server().await;
    let body = "5\r\nhello\r\n0\r\n\r\n";
    for (head, codings) in [
        ("POST /mcp", "gzip, chunked"),
        ("POST /mcp", "GZIP , Chunked"),
        ("GET /healthz", "gzip, chunked"),
        ("GET /api/reference.json", "chunked, chunked"),
        ("POST /api/select", "deflate, chunked"),
    ] {
        let request = format!(
            "{head} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Transfer-Encoding: {codings}\r\n\r\n{body}"
        );
        let reply = the_only_answer(&server, &request).await;
        assert_eq!(reply.status, 501, "{request:?}");
        assert_eq!(reply.error_code(), "unsupported_transfer_coding");
        assert_eq!(reply.header("cache-control"), "no-store");
    }
    // The codings on two lines are one list (RFC 9110 §5.3): hyper reads
    // the last line's.
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\
         Transfer-Encoding: chunked\r\n\r\n{body}"
    );
    let reply = the_only_answer(&server, &request).await;
    assert_eq!(reply.status, 501);
    assert_eq!(reply.error_code(), "unsupported_transfer_coding");
    // `chunked` alone is read as before (the matrix sends it on a GET).
}

#[tokio::test]
async fn an_http_1_1_request_needs_one_host_and_else_is_400_and_closed() {
    let server = start_server().await;
    for request in [
        "GET /api/reference.json HTTP/1.1\r\n\r\n",
        "GET /api/reference.json HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET /api/reference.json HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",
        "GET http://a/api/reference.json HTTP/1.1\r\n\r\n",
        "GET /api/select HTTP/1.1\r\n\r\n",
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        // HTTP/1.0 may leave Host out, but not send two (RFC 9112 §3.2).
        "GET /api/reference.json HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n",
    ] {
        let reply = the_only_answer(&server, request).await;
        assert_eq!(reply.status, 400, "{request:?}");
        assert_eq!(reply.error_code(), "bad_host", "{request:?}");
        assert_eq!(reply.header("cache-control"), "no-store");
    }
    let without = server
        .raw(b"GET /api/reference.json HTTP/1.0\r\n\r\n")
        .await;
    assert_eq!(status(&without), 200, "HTTP/1.0 without Host");
    // HTTP/2 names the authority in `:authority`: a request without `Host`
    // is answered.
    let stream = tokio::net::TcpStream::connect(server.addr())
        .await
        .expect("connect");
    let (mut sender, connection) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .expect("an h2c handshake");
    tokio::spawn(connection);
    let request = http::Request::get(format!("{}/api/reference.json", server.origin))
        .body(http_body_util::Empty::<bytes::Bytes>::new())
        .expect("a request");
    assert!(!request.headers().contains_key(http::header::HOST));
    let response = sender.send_request(request).await.expect("h2c answers");
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn unknown_methods_get_an_error_response() {
    let server = start_server().await;
    let response = server
        .raw(b"BREW /api/reference.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await;
    let text = String::from_utf8_lossy(&response);
    assert!(
        text.contains("allow: GET, HEAD, OPTIONS")
            && text.contains("\"code\":\"method_not_allowed\""),
        "{text}"
    );
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order() {
    let server = start_server().await;
    let response = server
        .raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /robots.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await;
    let text = String::from_utf8_lossy(&response);
    let statuses: Vec<&str> = text
        .match_indices("HTTP/1.1 ")
        .map(|(i, _)| &text[i + 9..i + 12])
        .collect();
    assert_eq!(statuses, ["200", "404", "200"], "{text}");
}

#[tokio::test]
async fn a_client_that_leaves_mid_response_harms_no_one() {
    let server = start_server().await;
    for _ in 0..20 {
        let mut stream = tokio::net::TcpStream::connect(server.addr())
            .await
            .expect("connect");
        stream
            .write_all(b"GET /llms-full.txt HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .expect("send");
        let mut first = [0u8; 64];
        let _ = stream.read(&mut first).await;
        drop(stream);
    }
    assert_eq!(server.get("/llms-full.txt", &[]).await.status, 200);
}

#[tokio::test]
async fn a_huge_announced_body_is_never_read() {
    let server = start_server().await;
    let mut stream = tokio::net::TcpStream::connect(server.addr())
        .await
        .expect("connect");
    // A gigabyte is announced and three bytes are sent; the write half stays open.
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\nabc")
        .await
        .expect("send");
    let mut response = Vec::new();
    // The server answers and closes the connection instead of waiting for the body.
    stream
        .read_to_end(&mut response)
        .await
        .expect("read to the server's close");
    assert_eq!(status(&response), 200);
}
