//! Socket activation, readiness and redeploys, with the real binary handed
//! a socket the way systemd hands it over (see `tests/generations.rs`).

use crate::generations::{Load, Socket};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::path::Path;
use std::sync::atomic::Ordering;

const BINARY: &str = env!("CARGO_BIN_EXE_refserve");

#[test]
fn an_inherited_socket_is_served_and_named_at_start_up() {
    let socket = Socket::bind();
    // `--addr` names a port in use: an inherited socket makes it moot.
    let generation = socket.start(Path::new(BINARY), &["--addr", &socket.addr()]);
    let response = socket.get("/healthz");
    assert!(response.starts_with(b"HTTP/1.1 200"), "{response:?}");
    let (status, log) = generation.stop();
    assert!(status.success(), "{status:?}: {log}");
    let line = format!("listening on http://{}", socket.addr());
    assert!(log.contains(&line), "{log}");
    assert!(
        log.contains("on socket 3 from the service manager"),
        "{log}"
    );
}

#[test]
fn the_socket_named_metrics_serves_metrics_and_the_other_the_site() {
    let socket = Socket::bind();
    let metrics = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let metrics_addr = metrics.local_addr().expect("bound").to_string();
    let generation = socket.start_with_metrics(Path::new(BINARY), &[], Some(&metrics));
    let scraped = Socket::get_from(&metrics_addr, "/metrics");
    assert!(scraped.starts_with(b"HTTP/1.1 200"), "{scraped:?}");
    assert!(String::from_utf8_lossy(&scraped).contains("refserve_build_info"));
    let site = socket.get("/metrics");
    assert!(
        site.starts_with(b"HTTP/1.1 404"),
        "the site has no /metrics"
    );
    let (status, log) = generation.stop();
    assert!(status.success(), "{status:?}: {log}");
    let line = format!("metrics on http://{metrics_addr}/metrics, on socket 4");
    assert!(log.contains(&line), "{log}");
}

#[test]
fn malformed_activation_variables_are_refused() {
    let output = std::process::Command::new("sh")
        .args(["-c", r#"LISTEN_PID=$$ LISTEN_FDS=many exec "$0""#, BINARY])
        .output()
        .expect("sh runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("LISTEN_FDS: `many`"), "{stderr}");
}

#[test]
fn ten_swaps_under_sixteen_busy_clients_cost_no_request() {
    const CLIENTS: u32 = 16;
    let socket = Socket::bind();
    let mut current = socket.start(Path::new(BINARY), &[]);
    let load = Load::start(&socket.addr(), "/api/reference.json", CLIENTS, 2);
    load.wait_for(50 * CLIENTS);
    for _ in 0..10 {
        // The next generation is serving before the current one is told to go.
        let next = socket.start(Path::new(BINARY), &[]);
        let (status, log) = current.stop();
        assert!(status.success(), "{status:?}: {log}");
        assert!(
            log.contains("stopped") && !log.contains("shutdown bound"),
            "{log}"
        );
        current = next;
        // The clients are in full swing again before the next swap.
        load.wait_for(10 * CLIENTS);
    }
    let tally = load.finish();
    let (status, log) = current.stop();
    assert!(status.success(), "{status:?}: {log}");
    let notes = tally.notes.lock().expect("not poisoned").join("\n");
    assert_eq!(tally.failed.load(Ordering::Relaxed), 0, "{notes}");
    assert_eq!(tally.retried.load(Ordering::Relaxed), 0, "{notes}");
    assert!(tally.completed.load(Ordering::Relaxed) >= 150 * CLIENTS as usize);
}

#[test]
fn an_h2_stream_in_flight_finishes_after_goaway() {
    const WINDOW: u32 = 4096;
    let socket = Socket::bind();
    let mut generation = socket.start(Path::new(BINARY), &[]);
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (mut sender, response, connection) = runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(socket.addr())
            .await
            .expect("connect");
        // A small window: the stream stays open until the client reads.
        let (mut sender, connection) =
            hyper::client::conn::http2::Builder::new(TokioExecutor::new())
                .initial_stream_window_size(WINDOW)
                .handshake::<_, Empty<Bytes>>(TokioIo::new(stream))
                .await
                .expect("an h2 handshake");
        let connection = tokio::spawn(connection);
        let request = http::Request::get(format!("http://{}/llms-full.txt", socket.addr()))
            .body(Empty::new())
            .expect("a request");
        let response = sender.send_request(request).await.expect("a response");
        (sender, response, connection)
    });
    generation.terminate();
    runtime.block_on(async {
        let length: usize = response.headers()["content-length"]
            .to_str()
            .expect("ASCII")
            .parse()
            .expect("a length");
        assert!(length > WINDOW as usize, "{length} bytes fit in one window");
        let body = response.collect().await.expect("the whole body").to_bytes();
        assert_eq!(body.len(), length);
        // GOAWAY ended the connection, and it takes no new stream.
        connection.await.expect("joined").expect("a clean end");
        assert!(sender.ready().await.is_err());
    });
    let (status, log) = generation.wait();
    assert!(status.success(), "{status:?}: {log}");
}
