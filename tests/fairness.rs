//! Fair to every client: a keep-alive connection is held to the idle
//! timeout it was configured with, whatever the timing of its first
//! request; uploads that have not arrived lock nobody out of `/search` and
//! `/mcp`; at the connection cap a new client takes the slot of the one
//! idle the longest; an HTTP/2 response waiting behind a shut window keeps
//! its stream sending (the send timeout applies), and streams past the
//! server's total are refused.

use crate::budget::h2_connection;
use crate::support::{start_server_with, Server};
use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The slack allowed past a timeout.
const SLACK: Duration = Duration::from_secs(1);
/// The header-read timeout of the keep-alive tests' servers.
const HEADER_READ: Duration = Duration::from_secs(1);
/// Their idle timeout: past the header-read timeout and the slack.
const IDLE: Duration = Duration::from_secs(4);

/// A server whose header-read timeout is short and idle timeout longer,
/// counting how connections close.
async fn keep_alive_server() -> Server {
    start_server_with(|c| {
        c.header_read_timeout = HEADER_READ;
        c.idle_timeout = IDLE;
        c.metrics_addr = Some("127.0.0.1:0".parse().expect("an address"));
    })
    .await
}

/// The connections `server` closed for `reason`, from its metrics.
async fn closed_for(server: &Server, reason: &str) -> u64 {
    let addr = server.metrics_addr.as_deref().expect("a metrics listener");
    let reply = Server::client_for(&format!("http://{addr}"))
        .get("/metrics", &[])
        .await;
    let series = format!("refserve_connections_closed_total{{reason=\"{reason}\"}} ");
    String::from_utf8_lossy(&reply.body)
        .lines()
        .find_map(|line| line.strip_prefix(&series)?.parse().ok())
        .unwrap_or_else(|| panic!("no {series}"))
}

/// Wait (for at most two seconds) until `server` counts at least `count`
/// connections closed for `reason`: the count follows the close within the
/// connection's task.
async fn counted(server: &Server, reason: &str, count: u64) {
    let counting = async {
        while closed_for(server, reason).await < count {
            tokio::task::yield_now().await;
        }
    };
    let within = tokio::time::timeout(Duration::from_secs(2), counting).await;
    assert!(within.is_ok(), "fewer than {count} closed for {reason}");
}

/// Read one `/healthz` answer (`ok\n`) from `stream`.
async fn read_health(stream: &mut TcpStream) {
    let mut received = Vec::new();
    let mut buffer = [0u8; 1024];
    while !received.ends_with(b"\r\n\r\nok\n") {
        let read = stream.read(&mut buffer).await.expect("read");
        assert!(read > 0, "closed before the answer: {received:?}");
        received.extend_from_slice(&buffer[..read]);
    }
    assert!(received.starts_with(b"HTTP/1.1 200"), "{received:?}");
}

/// A keep-alive connection to `server` that sent `GET /healthz` `after` its
/// connect and read the answer.
async fn served_once(server: &Server, after: Duration) -> TcpStream {
    let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
    tokio::time::sleep(after).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("send");
    read_health(&mut stream).await;
    stream
}

/// Whether the server closes `stream` within `within`.
async fn closes_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut rest = Vec::new();
    tokio::time::timeout(within, stream.read_to_end(&mut rest))
        .await
        .is_ok()
}

/// Whether `stream`, which has nothing left to read, is still open: the
/// close, had it come, would make it readable (at end of file).
fn still_open(stream: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(stream.try_read(&mut byte), Err(error) if error.kind() == std::io::ErrorKind::WouldBlock)
}

/// Keep-alive connections whose one request was sent `after` their
/// connect: each stays open past the header-read timeout and is closed by
/// the idle timeout, counted as idle.
async fn held_to_the_idle_timeout(after: Duration) {
    let server = keep_alive_server().await;
    let mut streams = Vec::new();
    for _ in 0..6 {
        streams.push(served_once(&server, after).await);
    }
    tokio::time::sleep(HEADER_READ + SLACK).await;
    for stream in &streams {
        assert!(still_open(stream), "closed at the header-read timeout");
    }
    for stream in &mut streams {
        assert!(
            closes_within(stream, IDLE).await,
            "open past the idle timeout"
        );
    }
    counted(&server, "idle", 6).await;
    assert_eq!(closed_for(&server, "header_timeout").await, 0);
}

#[tokio::test]
async fn a_request_sent_at_once_keeps_its_connection_to_the_idle_timeout() {
    held_to_the_idle_timeout(Duration::ZERO).await;
}

#[tokio::test]
async fn a_request_sent_after_100_ms_keeps_its_connection_to_the_idle_timeout() {
    held_to_the_idle_timeout(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn an_h2c_request_sent_at_once_keeps_its_connection_to_the_idle_timeout() {
    let server = keep_alive_server().await;
    let mut connections = Vec::new();
    for _ in 0..4 {
        let stream = TcpStream::connect(server.addr()).await.expect("connect");
        let (mut sender, connection) =
            hyper::client::conn::http2::Builder::new(TokioExecutor::new())
                .timer(TokioTimer::new())
                .handshake::<_, Empty<Bytes>>(TokioIo::new(stream))
                .await
                .expect("an h2 handshake");
        let connection = tokio::spawn(connection);
        let request = http::Request::get(format!("{}/healthz", server.origin))
            .body(Empty::new())
            .expect("a request");
        let response = sender.send_request(request).await.expect("a response");
        assert_eq!(response.status(), 200);
        drop(response);
        connections.push((sender, connection));
    }
    tokio::time::sleep(HEADER_READ + SLACK).await;
    for (_, connection) in &connections {
        assert!(
            !connection.is_finished(),
            "closed at the header-read timeout"
        );
    }
    for (_, connection) in &mut connections {
        let ended = tokio::time::timeout(IDLE, connection).await;
        assert!(ended.is_ok(), "open past the idle timeout");
    }
    counted(&server, "idle", 4).await;
    assert_eq!(closed_for(&server, "header_timeout").await, 0);
}

/// A `POST /mcp` head announcing a 64 KiB body, asking to be told to send
/// it: the `100 Continue` says the server has begun to read the body.
const EMPTY_UPLOAD: &[u8] = b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
    Content-Length: 65536\r\nExpect: 100-continue\r\n\r\n";

#[tokio::test]
async fn empty_uploads_leave_search_and_mcp_answering_others() {
    let server = start_server_with(|c| c.body_timeout = Duration::from_secs(30)).await;
    // 256 uploads of 64 KiB announced, none sent: 16 MiB, the whole
    // default budget, had each reserved what it announced.
    let mut uploads = Vec::new();
    for _ in 0..256 {
        let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
        stream.write_all(EMPTY_UPLOAD).await.expect("send the head");
        let mut head = [0u8; 25];
        stream.read_exact(&mut head).await.expect("100 Continue");
        assert_eq!(&head, b"HTTP/1.1 100 Continue\r\n\r\n");
        uploads.push(stream);
    }
    let search = server
        .get("/search?q=insert+a+row", &[("accept", "application/json")])
        .await;
    assert_eq!(
        search.status,
        200,
        "{}",
        String::from_utf8_lossy(&search.body)
    );
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"insert a row"}}}"#;
    let answer = server
        .post("/mcp", &[("content-type", "application/json")], call)
        .await;
    assert_eq!(
        answer.status,
        200,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );
    assert!(
        answer.json()["result"]["content"].is_array(),
        "{}",
        answer.json()
    );
    drop(uploads);
}

#[tokio::test]
async fn at_the_cap_a_new_client_takes_the_slot_of_the_longest_idle() {
    let server = start_server_with(|c| {
        c.max_connections = 20;
        c.metrics_addr = Some("127.0.0.1:0".parse().expect("an address"));
    })
    .await;
    // Every slot held by a keep-alive client idle after one request, the
    // first the longest (by more than the clock's tick).
    let mut held = Vec::new();
    for turn in 0..20 {
        let after = Duration::from_millis(if turn == 1 { 50 } else { 0 });
        held.push(served_once(&server, after).await);
    }
    let newcomer = Server::client_for(&server.origin);
    let reply = tokio::time::timeout(SLACK, newcomer.get("/healthz", &[])).await;
    assert_eq!(reply.expect("served within a second").status, 200);
    assert!(
        closes_within(&mut held[0], SLACK).await,
        "the longest idle gave up its slot"
    );
    // The others are still served on their connections.
    let last = held.last_mut().expect("twenty");
    last.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("send");
    read_health(last).await;
    // Its metrics connection took a slot of the metrics listener, not the
    // site's; the site's evictions are counted.
    counted(&server, "evicted", 1).await;
}

/// `GET path` on `send`: the response head, or the error the stream got.
async fn get_h2(
    send: h2::client::SendRequest<Bytes>,
    server: &Server,
    path: &str,
) -> Result<http::Response<h2::RecvStream>, h2::Error> {
    let mut send = send.ready().await?;
    let request = http::Request::get(format!("{}{path}", server.origin))
        .body(())
        .expect("a request");
    let (response, _) = send.send_request(request, true)?;
    response.await
}

#[tokio::test]
async fn a_response_behind_a_one_byte_window_is_closed_at_the_send_timeout() {
    let send_timeout = Duration::from_secs(1);
    let server = start_server_with(|c| c.send_timeout = send_timeout).await;
    let tcp = TcpStream::connect(server.addr()).await.expect("connect");
    let (send, connection) = h2::client::Builder::new()
        .initial_window_size(1)
        .handshake::<_, Bytes>(tcp)
        .await
        .expect("an HTTP/2 handshake");
    let connection = tokio::spawn(connection);
    // hyper hands the whole body to the stream at once; a byte of it
    // leaves, the rest waits for window that never comes. The client keeps
    // the connection and the response (dropping it would cancel the
    // stream).
    let response = get_h2(send.clone(), &server, "/llms-full.txt").await;
    let response = response.expect("a response head");
    assert_eq!(response.status(), 200);
    let ended = tokio::time::timeout(send_timeout + SLACK, connection).await;
    assert!(
        ended.is_ok(),
        "a stream that never moves held its connection"
    );
    drop((send, response));
    assert_eq!(server.get("/healthz", &[]).await.status, 200);
}

#[tokio::test]
async fn streams_past_the_total_are_refused_and_others_are_served() {
    let server = start_server_with(|c| {
        c.max_streams_total = 6;
        c.send_timeout = Duration::from_secs(60);
    })
    .await;
    // Two connections, three streams each, whose responses cannot leave.
    let connections = [
        h2_connection(server.addr(), 1).await,
        h2_connection(server.addr(), 1).await,
    ];
    // The responses are kept: dropping one cancels its stream.
    let mut held = Vec::new();
    for send in connections.iter().cycle().take(6) {
        let response = get_h2(send.clone(), &server, "/openapi.json").await;
        let response = response.expect("within the total");
        assert_eq!(response.status(), 200);
        held.push(response);
    }
    let refused = get_h2(connections[0].clone(), &server, "/openapi.json")
        .await
        .expect_err("past the total");
    assert_eq!(
        refused.reason(),
        Some(h2::Reason::REFUSED_STREAM),
        "{refused}"
    );
    // HTTP/1.1 holds no stream.
    assert_eq!(server.get("/healthz", &[]).await.status, 200);
}
