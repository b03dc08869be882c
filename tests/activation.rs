//! Socket activation, readiness and redeploys, with the real binary handed
//! a socket the way systemd hands it over (see `tests/generations.rs`).

use crate::generations::{client, Socket, Tally};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

const BINARY: &str = env!("CARGO_BIN_EXE_refserve");

#[test]
fn an_inherited_socket_is_served_and_named_at_start_up() {
    let socket = Socket::bind();
    // `--addr` names a port in use: an inherited socket makes it moot.
    let generation = socket.start(Path::new(BINARY), &["--addr", &socket.addr()]);
    let mut stream = std::net::TcpStream::connect(socket.addr()).expect("connect");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("a response");
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let tally = Arc::new(Tally::default());
    let mut current = socket.start(Path::new(BINARY), &[]);
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| runtime.spawn(client(socket.addr(), "/api/reference.json", tally.clone())))
        .collect();
    runtime.block_on(tally.wait_for(50 * CLIENTS));
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
        runtime.block_on(tally.wait_for(10 * CLIENTS));
    }
    tally.stop();
    for task in clients {
        runtime.block_on(task).expect("a client ran to its end");
    }
    let (status, log) = current.stop();
    assert!(status.success(), "{status:?}: {log}");
    let notes = tally.notes.lock().expect("not poisoned").join("\n");
    assert_eq!(tally.failed.load(Ordering::Relaxed), 0, "{notes}");
    assert_eq!(tally.retried.load(Ordering::Relaxed), 0, "{notes}");
    assert!(tally.completed.load(Ordering::Relaxed) >= 150 * CLIENTS as usize);
}
