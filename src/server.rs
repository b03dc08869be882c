//! Connections: accept on a listener, serve each connection over HTTP/1.1
//! or h2c (hyper-util's auto builder), within the configured limits, and
//! shut down gracefully.
//!
//! - At most `max_connections` connections are served at once: the accept
//!   loop takes a permit before it accepts, so excess clients wait in the
//!   kernel's listen backlog and the server never runs out of descriptors.
//! - A request head must arrive within `header_read_timeout` (slowloris),
//!   and fit in `max_header_bytes` (hyper answers 431 beyond it).
//! - On shutdown the listener is closed first, then every open connection
//!   is asked to finish its in-flight requests and close; whatever is still
//!   open after `shutdown_timeout` is dropped.

use crate::config::Config;
use crate::respond::Body;
use crate::service;
use http::{Request, Response};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Serve connections from `listener` until `shutdown` completes, then drain.
pub async fn run(listener: TcpListener, config: &Config, shutdown: impl Future<Output = ()>) {
    let builder = builder(config);
    let graceful = GracefulShutdown::new();
    let permits = Arc::new(Semaphore::new(config.max_connections));
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
        let log = config.access_log;
        let service = service_fn(move |request| serve(request, peer, log));
        let connection = builder
            .serve_connection(TokioIo::new(stream), service)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection's error (a reset, a timeout, a protocol error) is its own.
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
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

/// The connection builder, with the limits applied.
fn builder(config: &Config) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout)
        .max_buf_size(config.max_header_bytes);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(config.max_streams)
        .max_header_list_size(u32::try_from(config.max_header_bytes).unwrap_or(u32::MAX))
        .keep_alive_interval(config.header_read_timeout)
        .keep_alive_timeout(config.header_read_timeout);
    builder
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
