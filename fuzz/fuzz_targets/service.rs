//! Fuzz the real hyper service: the input is the raw bytes a client sends
//! on one connection.
//!
//! The server side is what `refserve::server` runs for each connection
//! (hyper-util's auto builder, HTTP/1.1 or h2c, around
//! `service_fn(refserve::service::serve)`) minus the timers, plus
//! `half_close(true)` (see [`builder`]): with no timer set, hyper ignores
//! its header read timeout, so nothing here depends on the clock.
//!
//! The connection is a `tokio::io::duplex` pipe (sized in [`PIPE`]); the
//! client writes the input, shuts down its write half (the server sees EOF
//! and finishes) and reads whatever comes back, concurrently, until the
//! server closes. At most [`KEEP`] bytes of the answer are kept; the rest is
//! read and dropped.
//!
//! Properties: nothing panics, the exchange ends, and an input that starts
//! with a well-formed HTTP/1.1 request line and has a complete header
//! section gets an answer starting with `HTTP/1.1 ` (unless it also holds
//! the HTTP/2 preface: see [`is_http11_request`]).

#![no_main]

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::runtime::Runtime;

/// The pipe's buffer in each direction: more than all the answers to one
/// input of at most `-max_len=4096` bytes can hold (at most ~150 pipelined
/// HTTP/1.1 requests for the largest body, 32 KB), so a write of the server
/// never waits for the client, as on loopback TCP, whose kernel buffers take
/// any one of refserve's responses at once. A small pipe makes hyper 1.12
/// hit its own `debug_assert!(self.can_write_head())` (`proto/h1/conn.rs`):
/// when the head after a request with a chunked body is malformed while
/// that request's response is only partly flushed, hyper writes its 400
/// into the middle of the unsent body (a bug in hyper, not refserve; see
/// the findings in fuzz/README.md). `tokio::io::duplex` allocates as it goes.
const PIPE: usize = 8 * 1024 * 1024;
/// How much the client reads at once.
const CHUNK: usize = 64 * 1024;
/// How often the client lets the server run before it half-closes.
const YIELDS: usize = 16;
/// How much of the answer is kept for the checks.
const KEEP: usize = 64 * 1024;

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
    })
}

fn builder() -> &'static auto::Builder<TokioExecutor> {
    static BUILDER: OnceLock<auto::Builder<TokioExecutor>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut builder = auto::Builder::new(TokioExecutor::new());
        // The client half-closes once it has sent everything. Without this,
        // hyper takes that EOF for a client gone away and drops a response
        // not yet written (refserve's own server keeps hyper's default:
        // real clients keep their write half open until they are answered).
        builder.http1().half_close(true);
        builder
    })
}

/// `FUZZ_SHOW=1`: print each answer (to look at what a seed gets).
fn show() -> bool {
    static SHOW: OnceLock<bool> = OnceLock::new();
    *SHOW.get_or_init(|| std::env::var_os("FUZZ_SHOW").is_some())
}

fuzz_target!(|data: &[u8]| {
    let answer = runtime().block_on(exchange(data));
    if show() {
        eprintln!("{}", String::from_utf8_lossy(&answer).escape_debug());
    }
    if is_http11_request(data) {
        assert!(
            answer.starts_with(b"HTTP/1.1 "),
            "no HTTP/1.1 answer to {:?}: {:?}",
            String::from_utf8_lossy(data),
            String::from_utf8_lossy(&answer)
        );
    }
});

/// Send `request` on a fresh connection and read the answer until the server closes.
async fn exchange(request: &[u8]) -> Vec<u8> {
    let (client, server) = tokio::io::duplex(PIPE);
    let connection =
        builder().serve_connection(TokioIo::new(server), service_fn(refserve::service::serve));
    let (mut read, mut write) = tokio::io::split(client);
    let send = async move {
        // The server may close before reading everything: not an error here.
        let _ = write.write_all(request).await;
        // Let the server run before the EOF: h2 answers from spawned tasks,
        // and an h2 connection that reads EOF first ends without them. The
        // runtime is single-threaded, so this is deterministic.
        for _ in 0..YIELDS {
            tokio::task::yield_now().await;
        }
        let _ = write.shutdown().await;
        // Keep the write half (and so the pipe) until the exchange is over.
        write
    };
    let receive = async move {
        let mut answer = Vec::new();
        let mut chunk = vec![0u8; CHUNK];
        loop {
            match read.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = KEEP.saturating_sub(answer.len());
                    answer.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
        }
        answer
    };
    // The server ends on the client's EOF (or on an error); its end of the
    // pipe is then dropped, and the client reads to EOF.
    let serve = async move {
        let _ = connection.await;
    };
    let ((), _, answer) = tokio::join!(serve, send, receive);
    answer
}

/// The HTTP/2 connection preface.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether `data` starts with `token SP /target SP HTTP/1.1 CRLF` and has a
/// complete header section: hyper answers such a request, or refuses its
/// head with a 4xx, either way with an HTTP/1.1 status line.
///
/// Except when the HTTP/2 preface follows a head hyper refuses: hyper then
/// takes the client for an HTTP/2 one and closes without a 400 (its
/// `on_parse_error`), so inputs holding the preface are not held to this.
fn is_http11_request(data: &[u8]) -> bool {
    let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
        return false;
    };
    let line = &data[..end];
    let mut parts = line.split(|&b| b == b' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let tchar = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    !method.is_empty()
        && method.iter().all(tchar)
        && target.first() == Some(&b'/')
        && target.iter().all(|b| (0x21..=0x7e).contains(b))
        && version == b"HTTP/1.1"
        && data.windows(4).any(|w| w == b"\r\n\r\n")
        && !data.windows(H2_PREFACE.len()).any(|w| w == H2_PREFACE)
}
