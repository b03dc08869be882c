//! No connection is held without a request: stalled prefaces, PINGs alone,
//! idle keep-alive connections are closed within their timeout plus one
//! second, and everyone else is served meanwhile.

use crate::support::{start_server_with, Server};
use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The slack the issue allows past a timeout.
const SLACK: Duration = Duration::from_secs(1);

/// A server whose header-read and idle timeouts are both one second.
async fn impatient_server() -> Server {
    start_server_with(|c| {
        c.header_read_timeout = Duration::from_secs(1);
        c.idle_timeout = Duration::from_secs(1);
    })
    .await
}

/// Read until the server closes `stream`; panics if it is still open after
/// `within`. Returns what was read.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Vec<u8> {
    let mut received = Vec::new();
    let read = tokio::time::timeout(within, stream.read_to_end(&mut received)).await;
    assert!(read.is_ok(), "still open after {within:?}: {received:?}");
    received
}

/// An h2c connection to `server` whose client sends a PING every 200 ms,
/// with or without a stream open.
async fn pinging_h2_client(
    server: &Server,
) -> (
    hyper::client::conn::http2::SendRequest<Empty<Bytes>>,
    hyper::client::conn::http2::Connection<TokioIo<TcpStream>, Empty<Bytes>, TokioExecutor>,
) {
    let stream = TcpStream::connect(server.addr()).await.expect("connect");
    hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .timer(TokioTimer::new())
        .keep_alive_interval(Duration::from_millis(200))
        .keep_alive_while_idle(true)
        .handshake(TokioIo::new(stream))
        .await
        .expect("an h2 handshake")
}

#[tokio::test]
async fn a_partial_h2c_preface_is_closed_and_others_are_served() {
    let server = impatient_server().await;
    for partial in [
        &b"P"[..],
        b"PRI * HTTP/2.0\r\n",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n",
    ] {
        let mut stalled = TcpStream::connect(server.addr()).await.expect("connect");
        stalled.write_all(partial).await.expect("send");
        // A client of its own each round: a pooled connection idle since
        // the last round would race the server's one-second idle close.
        let others = Server::client_for(&format!("http://{}", server.addr()));
        assert_eq!(others.get("/healthz", &[]).await.status, 200);
        let received = closed_within(&mut stalled, Duration::from_secs(1) + SLACK).await;
        // Nothing but, at most, the server's own preface and GOAWAY.
        assert!(!received.starts_with(b"HTTP/1.1 200"), "{received:?}");
    }
}

#[tokio::test]
async fn h2_pings_without_a_stream_do_not_hold_a_connection() {
    let server = impatient_server().await;
    let (_sender, connection) = pinging_h2_client(&server).await;
    // The client completes the preface, then only PINGs (and answers the
    // server's): the connection ends all the same.
    let ended = tokio::time::timeout(Duration::from_secs(1) + SLACK, connection).await;
    assert!(
        ended.is_ok(),
        "an h2 connection without a stream stayed open"
    );
    assert_eq!(server.get("/healthz", &[]).await.status, 200);
}

#[tokio::test]
async fn an_idle_h2_connection_gets_goaway_after_the_idle_timeout() {
    let server = start_server_with(|c| c.idle_timeout = Duration::from_secs(1)).await;
    let (mut sender, connection) = pinging_h2_client(&server).await;
    let connection = tokio::spawn(connection);
    let request = http::Request::get(format!("{}/healthz", server.origin))
        .body(Empty::new())
        .expect("a request");
    let response = sender.send_request(request).await.expect("a response");
    assert_eq!(response.status(), 200);
    drop(response);
    let ended = tokio::time::timeout(Duration::from_secs(1) + SLACK, connection).await;
    assert!(ended.is_ok(), "an idle h2 connection stayed open");
    // GOAWAY told the client: the sender takes no new request.
    assert!(sender.ready().await.is_err());
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let server = start_server_with(|c| c.idle_timeout = Duration::from_secs(1)).await;
    let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("send");
    let received = closed_within(&mut stream, Duration::from_secs(1) + SLACK).await;
    assert!(received.starts_with(b"HTTP/1.1 200"), "{received:?}");
    assert!(
        received.ends_with(b"ok\n"),
        "one whole response: {received:?}"
    );
}

#[tokio::test]
async fn stalled_connections_cannot_starve_the_connection_cap() {
    let server = start_server_with(|c| {
        c.header_read_timeout = Duration::from_secs(1);
        c.max_connections = 100;
    })
    .await;
    let mut stalled = Vec::new();
    for _ in 0..120 {
        let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
        stream.write_all(b"P").await.expect("send");
        stalled.push(stream);
    }
    // Every slot is taken by a connection that sent one byte; the stalled
    // ones are closed, and a normal client is served within the timeout of
    // the first 100 and then of the 20 that waited in the backlog.
    let reply = tokio::time::timeout(
        2 * (Duration::from_secs(1) + SLACK),
        server.get("/healthz", &[]),
    )
    .await
    .expect("a normal client is served");
    assert_eq!(reply.status, 200);
    for stream in &mut stalled {
        closed_within(stream, 2 * (Duration::from_secs(1) + SLACK)).await;
    }
}
