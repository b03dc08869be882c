//! Connections: accept on a listener, serve each connection over HTTP/1.1
//! or h2c, within the configured limits, and shut down gracefully.
//!
//! - The protocol is told by the connection's first byte, peeked: the h2c
//!   preface (`PRI * HTTP/2.0`) starts with `P`, no request line of a
//!   method we serve does. A connection that starts otherwise is served by
//!   hyper's HTTP/1 builder alone; one that starts with `P` goes to
//!   hyper-util's auto builder, which reads the preface and picks. Serving
//!   HTTP/1.1 through the auto builder costs about 8 KiB more per open
//!   connection (measured by `benches/shapes.sh`), so the common case skips it.
//! - At most `max_connections` connections are served at once: the accept
//!   loop takes a permit before it accepts, so excess clients wait in the
//!   kernel's listen backlog and the server never runs out of descriptors.
//! - A request head must arrive within `header_read_timeout` (slowloris),
//!   and fit in `max_header_bytes` (hyper answers 431 beyond it).
//! - On shutdown the listener is closed first, then every open connection
//!   is asked to finish its in-flight requests and close (one that has not
//!   sent its first byte yet is dropped at once); whatever is still open
//!   after `shutdown_timeout` is dropped.

use crate::config::Config;
use crate::respond::Body;
use crate::service;
use http::{Request, Response};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};

/// Serve connections from `listener` until `shutdown` completes, then drain.
pub async fn run(listener: TcpListener, config: &Config, shutdown: impl Future<Output = ()>) {
    let builders = Arc::new(Builders::new(config));
    let graceful = GracefulShutdown::new();
    let permits = Arc::new(Semaphore::new(config.max_connections));
    // Dropped when shutdown begins, which ends the wait for a first byte.
    let (closing, closed) = watch::channel(());
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = accept(&listener, &permits) => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer, permit) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors, or a connection reset before
                // accept: not fatal, but do not spin on it.
                eprintln!("refserve: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Responses are written whole; do not hold small ones back.
        let _ = stream.set_nodelay(true);
        let connection = Connection {
            builders: Arc::clone(&builders),
            watcher: graceful.watcher(),
            closed: closed.clone(),
            first_byte_timeout: config.header_read_timeout,
            access_log: config.access_log,
        };
        tokio::spawn(async move {
            connection.serve(stream, peer).await;
            drop(permit);
        });
    }
    drop(listener);
    drop(closing);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(config.shutdown_timeout) => {
            eprintln!(
                "refserve: shutdown bound of {:?} reached; closing remaining connections",
                config.shutdown_timeout
            );
        }
    }
}

/// What a connection's task needs to serve it.
struct Connection {
    builders: Arc<Builders>,
    watcher: Watcher,
    closed: watch::Receiver<()>,
    first_byte_timeout: Duration,
    access_log: bool,
}

impl Connection {
    /// Serve `stream` with the builder its first byte calls for, until it
    /// closes (or shutdown closes it).
    async fn serve(mut self, stream: TcpStream, peer: SocketAddr) {
        let log = self.access_log;
        let service = service_fn(move |request| serve(request, peer, log));
        let mut first = [0u8; 1];
        let peeked = tokio::select! {
            peeked = tokio::time::timeout(self.first_byte_timeout, stream.peek(&mut first)) => peeked,
            _ = self.closed.changed() => return,
        };
        // A connection's error (a reset, a timeout, a protocol error) is its own.
        match peeked {
            Ok(Ok(1..)) if first[0] != b'P' => {
                let connection = self
                    .builders
                    .http1
                    .serve_connection(TokioIo::new(stream), service);
                let _ = self.watcher.watch(connection).await;
            }
            Ok(Ok(1..)) => {
                let connection = self
                    .builders
                    .auto
                    .serve_connection(TokioIo::new(stream), service);
                let _ = self.watcher.watch(connection.into_owned()).await;
            }
            // Closed, failed, or silent for the header read timeout.
            _ => {}
        }
    }
}

/// The connection builders, with the limits applied.
struct Builders {
    /// HTTP/1.1 only.
    http1: http1::Builder,
    /// HTTP/1.1 or h2c, by the connection preface.
    auto: auto::Builder<TokioExecutor>,
}

impl Builders {
    fn new(config: &Config) -> Self {
        let mut http1 = http1::Builder::new();
        http1
            .timer(TokioTimer::new())
            .header_read_timeout(config.header_read_timeout)
            .max_buf_size(config.max_header_bytes);
        let mut auto = auto::Builder::new(TokioExecutor::new());
        auto.http1()
            .timer(TokioTimer::new())
            .header_read_timeout(config.header_read_timeout)
            .max_buf_size(config.max_header_bytes);
        auto.http2()
            .timer(TokioTimer::new())
            .max_concurrent_streams(config.max_streams)
            .max_header_list_size(u32::try_from(config.max_header_bytes).unwrap_or(u32::MAX))
            .keep_alive_interval(config.header_read_timeout)
            .keep_alive_timeout(config.header_read_timeout);
        Builders { http1, auto }
    }
}

/// Wait for a connection slot, then for a connection.
async fn accept(
    listener: &TcpListener,
    permits: &Arc<Semaphore>,
) -> std::io::Result<(
    tokio::net::TcpStream,
    SocketAddr,
    tokio::sync::OwnedSemaphorePermit,
)> {
    let permit = Arc::clone(permits)
        .acquire_owned()
        .await
        .expect("the semaphore is never closed");
    let (stream, peer) = listener.accept().await?;
    Ok((stream, peer, permit))
}

/// Answer one request, with an access-log line if asked for.
async fn serve<B>(
    request: Request<B>,
    peer: SocketAddr,
    log: bool,
) -> Result<Response<Body>, Infallible> {
    if !log {
        return Ok(service::handle(&request));
    }
    let start = Instant::now();
    let response = service::handle(&request);
    let coding = response
        .headers()
        .get(http::header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("identity");
    let length = response
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("0");
    // The path is printed with Rust's escaping, so no input can forge a line.
    eprintln!(
        "{peer} {} {:?} {:?} {} {length} {coding} {}us",
        request.method(),
        request.uri().path(),
        request.version(),
        response.status().as_u16(),
        start.elapsed().as_micros()
    );
    Ok(response)
}
