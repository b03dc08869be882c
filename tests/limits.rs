//! Limits and operations: the health check, oversized heads, slow clients,
//! the connection cap — and the server keeps serving everyone else.

use crate::stalls::{small_window_connection, stop_reading};
use crate::support::{start_server, start_server_with};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test]
async fn healthz_is_never_cached_nor_listed() {
    let server = start_server().await;
    let reply = server.get("/healthz", &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("cache-control"), "no-store");
    assert_eq!(reply.decoded(), b"ok\n");
    let sitemap =
        String::from_utf8(server.get("/sitemap.xml", &[]).await.decoded()).expect("UTF-8");
    assert!(!sitemap.contains("healthz"));
}

#[tokio::test]
async fn an_oversized_head_gets_431_and_others_are_served() {
    let server = start_server().await;
    let huge = format!(
        "GET /api/reference.json HTTP/1.1\r\nHost: x\r\nX-Padding: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    let response = server.raw(huge.as_bytes()).await;
    assert!(
        response.starts_with(b"HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&response[..response.len().min(80)])
    );
    assert_eq!(server.get("/api/reference.json", &[]).await.status, 200);
}

#[tokio::test]
async fn a_slow_client_is_cut_off_and_others_are_served() {
    let server = start_server_with(|c| c.header_read_timeout = Duration::from_secs(1)).await;
    let mut slow = TcpStream::connect(server.addr()).await.expect("connect");
    slow.write_all(b"GET /api/reference.json HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("send");
    // Meanwhile everyone else is served.
    assert_eq!(
        server.get("/api/reference/select.json", &[]).await.status,
        200
    );
    // The head never completes: the server closes the connection (a read of
    // 0 bytes, or a reset), without answering the half-sent request.
    let mut buffer = Vec::new();
    let _ = slow.read_to_end(&mut buffer).await;
    assert!(
        !buffer.starts_with(b"HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&buffer)
    );
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_while_every_slot_is_answering() {
    let server = start_server_with(|c| {
        c.max_connections = 2;
        c.send_timeout = Duration::from_secs(60);
    })
    .await;
    // Both slots are taken by connections in the middle of answering: their
    // clients read nothing of 400 requests' answers. (Idle ones would give
    // up their slots: tests/fairness.rs.)
    let mut first = small_window_connection(server.addr()).await;
    stop_reading(&mut first).await;
    let mut second = small_window_connection(server.addr()).await;
    stop_reading(&mut second).await;
    // A third client connects and sends a request that cannot be served yet.
    let mut third = TcpStream::connect(server.addr()).await.expect("connect");
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("send");
    let mut head = [0u8; 12];
    let early = tokio::time::timeout(Duration::from_millis(300), third.read_exact(&mut head)).await;
    assert!(early.is_err(), "served while both slots were answering");
    // A slot frees up: the waiting client is served.
    drop(first);
    third
        .read_exact(&mut head)
        .await
        .expect("a response once a slot is free");
    assert_eq!(&head, b"HTTP/1.1 200");
    drop(second);
}
