//! Uploads have their own clock, and every early answer is read: a slow
//! `/mcp` body is answered however long the send and header timeouts are,
//! a late one gets `408` (only its stream, on HTTP/2), and a client that
//! writes its whole body before it reads gets the status, not a reset
//! (the staged close of RFC 9112 §9.6).

use crate::support::{start_server_with, Server};
use bytes::Bytes;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PING: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;

/// A server whose send and header timeouts are a second, and whose body
/// timeout is `body_timeout`.
async fn server(body_timeout: Duration) -> Server {
    start_server_with(|config| {
        config.send_timeout = Duration::from_secs(1);
        config.header_read_timeout = Duration::from_secs(1);
        config.body_timeout = body_timeout;
    })
    .await
}

/// The head of a `POST /mcp` announcing `length` bytes.
fn head(length: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\n\r\n"
    )
}

/// Everything the server sends until it closes, kept when a reset ends it.
async fn read_all(stream: &mut (impl AsyncReadExt + Unpin)) -> String {
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(read @ 1..) = stream.read(&mut buf).await {
        answer.extend_from_slice(&buf[..read]);
    }
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_body_sent_slowly_is_answered_not_reset() {
    let server = server(Duration::from_secs(10)).await;
    let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
    stream
        .write_all(head(PING.len()).as_bytes())
        .await
        .expect("send the head");
    // Three pieces, 1.5 s apart: past the send and header timeouts.
    for piece in PING.chunks(PING.len() / 3 + 1) {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        stream.write_all(piece).await.expect("send a piece");
    }
    let mut answer = [0u8; 1024];
    let read = stream
        .read(&mut answer)
        .await
        .expect("an answer, not a reset");
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""id":7"#), "{answer}");
}

#[tokio::test]
async fn a_body_late_past_the_body_timeout_gets_408_and_a_clean_close() {
    let server = server(Duration::from_secs(1)).await;
    let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
    stream
        .write_all(format!("{}{{\"jsonrpc\"", head(100)).as_bytes())
        .await
        .expect("send the head and a little");
    // The client goes on sending, a byte at a time, after the deadline.
    let (mut reading, mut writing) = stream.into_split();
    let sender = tokio::spawn(async move {
        for _ in 0..40 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if writing.write_all(b" ").await.is_err() {
                break;
            }
        }
    });
    let answer = read_all(&mut reading).await;
    let _ = sender.await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(answer.contains("did not arrive in time"), "{answer}");
}

#[tokio::test]
async fn a_client_that_writes_2_mb_before_reading_gets_the_413() {
    let server = server(Duration::from_secs(10)).await;
    let addr = server.addr().to_string();
    // A blocking client, as Python's urllib is: all of the body, then read.
    let answer = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).expect("connect");
        let body = vec![b' '; 2 * 1024 * 1024];
        stream
            .write_all(head(body.len()).as_bytes())
            .expect("send the head");
        stream.write_all(&body).expect("the whole body is taken");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    })
    .await
    .expect("the client");
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
}

#[tokio::test]
async fn a_get_with_a_large_body_gets_its_page() {
    let server = server(Duration::from_secs(10)).await;
    let mut stream = TcpStream::connect(server.addr()).await.expect("connect");
    let body = vec![b'x'; 1024 * 1024];
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
        .await
        .expect("send the head");
    let (mut reading, mut writing) = stream.into_split();
    let sender = tokio::spawn(async move { writing.write_all(&body).await });
    let mut answer = [0u8; 1024];
    let read = reading.read(&mut answer).await.expect("an answer");
    assert!(String::from_utf8_lossy(&answer[..read]).starts_with("HTTP/1.1 200"));
    let _ = sender.await;
}

#[tokio::test]
async fn over_http2_a_late_body_ends_its_stream_alone() {
    let server = server(Duration::from_secs(3)).await;
    let tcp = TcpStream::connect(server.addr()).await.expect("connect");
    let (send, connection) = h2::client::handshake(tcp).await.expect("h2c");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let request = || {
        http::Request::post(format!("{}/mcp", server.origin))
            .header("content-type", "application/json")
            .body(())
            .expect("a request")
    };
    // One stream sends part of its body and stops; another sends its body
    // over two seconds, past the send timeout.
    let mut send = send.ready().await.expect("ready");
    let (late, mut late_body) = send.send_request(request(), false).expect("send");
    late_body
        .send_data(Bytes::from_static(&PING[..10]), false)
        .expect("a piece");
    let mut send = send.ready().await.expect("ready");
    let (slow, mut slow_body) = send.send_request(request(), false).expect("send");
    for piece in PING.chunks(PING.len() / 3 + 1) {
        slow_body
            .send_data(Bytes::from_static(piece), false)
            .expect("a piece");
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    slow_body.send_data(Bytes::new(), true).expect("the end");
    let late = late.await.expect("an answer on the late stream");
    assert_eq!(late.status(), 408);
    let slow = slow.await.expect("an answer on the slow stream");
    assert_eq!(slow.status(), 200);
    let mut body = slow.into_body();
    let mut text = Vec::new();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.expect("data");
        let _ = body.flow_control().release_capacity(chunk.len());
        text.extend_from_slice(&chunk);
    }
    assert!(String::from_utf8_lossy(&text).contains(r#""id":7"#));
    // The connection serves on.
    let mut send = send.ready().await.expect("still open");
    let (page, _) = send
        .send_request(
            http::Request::get(format!("{}/healthz", server.origin))
                .body(())
                .expect("a request"),
            true,
        )
        .expect("send");
    assert_eq!(page.await.expect("an answer").status(), 200);
}
