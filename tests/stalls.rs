//! No connection is held by a client that will not read: an HTTP/1.1
//! client that stops reading, an HTTP/2 client that grants no window (to a
//! stream or to the connection) is closed within the send timeout plus one
//! second while others are served; a slow reader is never cut.

use crate::support::{start_server_with, Server};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::{TcpSocket, TcpStream};

/// The slack the issue allows past the timeout.
const SLACK: Duration = Duration::from_secs(1);
/// The send timeout of these tests' servers.
const SEND_TIMEOUT: Duration = Duration::from_secs(1);

async fn server_with_send_timeout(max_connections: usize) -> Server {
    start_server_with(|c| {
        c.send_timeout = SEND_TIMEOUT;
        c.max_connections = max_connections;
    })
    .await
}

/// A connection with a 4 KB receive buffer.
pub async fn small_window_connection(addr: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
    socket
        .connect(addr.parse().expect("an address"))
        .await
        .expect("connect")
}

/// 400 pipelined requests for the OpenAPI document in identity (48 KB
/// each), sent and never read.
pub async fn stop_reading(stream: &mut TcpStream) {
    let request = b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n";
    stream
        .write_all(&request.repeat(400))
        .await
        .expect("send the requests");
}

/// Waits until the peer closes (or resets) `stream`, without reading what
/// it sent; panics if that takes longer than `within`.
///
/// The bytes waiting unread make the socket readable at once, so readiness
/// is cleared first and the next event waited for; with no reading there is
/// no new data, so that event is the close (read-closed, or an error for a
/// reset). tokio keeps the closed state once seen.
pub async fn closed_unread(stream: &TcpStream, within: Duration) {
    let closed = async {
        loop {
            let _ = stream.try_io(Interest::READABLE, || {
                Err::<(), _>(std::io::ErrorKind::WouldBlock.into())
            });
            let ready = stream
                .ready(Interest::READABLE | Interest::ERROR)
                .await
                .expect("readiness");
            if ready.is_read_closed() || ready.is_error() {
                return;
            }
        }
    };
    assert!(
        tokio::time::timeout(within, closed).await.is_ok(),
        "still open after {within:?}"
    );
}

#[tokio::test]
async fn an_http1_client_that_never_reads_is_closed() {
    let server = server_with_send_timeout(100).await;
    let mut stalled = small_window_connection(server.addr()).await;
    stop_reading(&mut stalled).await;
    assert_eq!(server.get("/healthz", &[]).await.status, 200);
    closed_unread(&stalled, SEND_TIMEOUT + SLACK).await;
}

#[tokio::test]
async fn fifty_clients_that_never_read_cannot_starve_a_cap_of_forty() {
    let server = server_with_send_timeout(40).await;
    let mut stalled = Vec::new();
    for _ in 0..50 {
        let mut stream = small_window_connection(server.addr()).await;
        stop_reading(&mut stream).await;
        stalled.push(stream);
    }
    // The first 40 hold every slot until the send timeout closes them,
    // then the 10 that waited in the backlog are served and stall in turn.
    let reply = tokio::time::timeout(2 * (SEND_TIMEOUT + SLACK), server.get("/healthz", &[]))
        .await
        .expect("a normal client is served");
    assert_eq!(reply.status, 200);
    for stream in &stalled {
        closed_unread(stream, 2 * (SEND_TIMEOUT + SLACK)).await;
    }
}

#[tokio::test]
async fn a_reader_taking_1_kb_every_100_ms_gets_its_whole_body() {
    let server = server_with_send_timeout(100).await;
    let mut slow = small_window_connection(server.addr()).await;
    slow.write_all(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("send");
    // 48 KB at 10 KB a second: several times the send timeout in all.
    let mut received = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let read = slow
            .read(&mut chunk)
            .await
            .expect("the connection stays open");
        if read == 0 {
            break;
        }
        received.extend_from_slice(&chunk[..read]);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let text = String::from_utf8_lossy(&received);
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole head");
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .and_then(|value| value.parse().ok())
        .expect("a Content-Length");
    assert!(length > 40_000, "a body of {length} bytes");
    assert_eq!(body.len(), length, "the whole body");
}

/// An h2c connection whose client grants each stream `stream_window` bytes
/// and the connection 65,535 (the protocol's default), and more only as it
/// reads bodies.
async fn h2_client(
    server: &Server,
    stream_window: u32,
) -> (
    hyper::client::conn::http2::SendRequest<Empty<Bytes>>,
    tokio::task::JoinHandle<Result<(), hyper::Error>>,
) {
    let stream = TcpStream::connect(server.addr()).await.expect("connect");
    let (sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .initial_stream_window_size(stream_window)
        .initial_connection_window_size(65_535)
        .handshake(TokioIo::new(stream))
        .await
        .expect("an h2 handshake");
    (sender, tokio::spawn(connection))
}

fn get(server: &Server, path: &str) -> http::Request<Empty<Bytes>> {
    http::Request::get(format!("{}{path}", server.origin))
        .body(Empty::new())
        .expect("a request")
}

#[tokio::test]
async fn an_h2_stream_held_at_a_zero_window_is_closed() {
    let server = server_with_send_timeout(100).await;
    let (mut sender, connection) = h2_client(&server, 0).await;
    // HEADERS are not flow-controlled: the head arrives, the body cannot.
    let response = sender
        .send_request(get(&server, "/openapi.json"))
        .await
        .expect("a response head");
    assert_eq!(response.status(), 200);
    assert_eq!(server.get("/healthz", &[]).await.status, 200);
    let ended = tokio::time::timeout(SEND_TIMEOUT + SLACK, connection).await;
    assert!(ended.is_ok(), "the stalled h2 connection stayed open");
    // The body never came whole.
    assert!(response.into_body().collect().await.is_err());
}

#[tokio::test]
async fn an_h2_connection_whose_window_runs_out_is_closed() {
    let server = server_with_send_timeout(100).await;
    let (mut sender, connection) = h2_client(&server, 1 << 20).await;
    // Three 33 KB bodies on a 64 KB connection window, none read: the
    // window runs out during the second.
    let mut held = Vec::new();
    for _ in 0..3 {
        let response = sender
            .send_request(get(&server, "/llms-full.txt"))
            .await
            .expect("a response head");
        held.push(response);
    }
    let ended = tokio::time::timeout(SEND_TIMEOUT + SLACK, connection).await;
    assert!(
        ended.is_ok(),
        "the h2 connection with no window stayed open"
    );
    assert_eq!(server.get("/healthz", &[]).await.status, 200);
}

#[tokio::test]
async fn an_h2_client_reading_slowly_is_not_cut() {
    let server = server_with_send_timeout(100).await;
    let (mut sender, connection) = h2_client(&server, 4096).await;
    let response = sender
        .send_request(get(&server, "/openapi.json"))
        .await
        .expect("a response head");
    // A 4 KB window, granted again as frames are read, one every 200 ms:
    // 48 KB take a few seconds, the send timeout one.
    let mut body = response.into_body();
    let mut received = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.expect("the stream stays open");
        received += frame.data_ref().map_or(0, |data| data.len());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(received > 40_000, "{received} bytes");
    assert!(!connection.is_finished(), "the connection stays open");
}
