//! Connections: accept on a listener, serve each connection over HTTP/1.1
//! or h2c (hyper-util's auto builder), and shut down gracefully.
//!
//! On shutdown the listener is closed first, then every open connection is
//! asked to finish its in-flight requests and close; whatever is still open
//! after the configured bound is dropped.

use crate::config::Config;
use crate::service;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use std::future::Future;
use std::time::Duration;
use tokio::net::TcpListener;

/// Serve connections from `listener` until `shutdown` completes, then drain.
pub async fn run(listener: TcpListener, config: &Config, shutdown: impl Future<Output = ()>) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors or a connection reset before
                    // accept: not fatal, but do not spin on it.
                    eprintln!("refserve: accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Responses are written whole; do not hold small ones back.
        let _ = stream.set_nodelay(true);
        let connection = builder
            .serve_connection(TokioIo::new(stream), service_fn(service::serve))
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection's error (a reset, a timeout, a protocol error) is its own.
            let _ = connection.await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(config.shutdown_timeout) => {
            eprintln!("refserve: shutdown bound of {:?} reached; closing remaining connections", config.shutdown_timeout);
        }
    }
}
