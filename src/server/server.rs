//! The accept loop and the drain: connections come from one or more
//! listening sockets, at most `max_connections` at a time, each served by
//! [`connection::serve`] on its own task.
//!
//! - Each connection accepted takes a [`Slot`] before it is served: a free
//!   one, or at the cap the slot of the connection idle the longest, once
//!   it has closed (`slots.rs`). The loop accepts no other meanwhile, so
//!   excess clients wait in the kernel's listen backlog and the server
//!   never runs out of descriptors.
//! - With [`Tls`], every connection is HTTPS, handshaking with the
//!   certificate current when it was accepted (see [`Tls::reload`]).
//! - Shutdown is a drain no client notices: the listeners are closed (an
//!   inherited socket stays open in its supervisor, for the next process),
//!   every connection is told, and the server returns once the last one has
//!   closed (see [`connection`] for how each does), or after
//!   `shutdown_timeout`, dropping whatever is still open.
//! - With a metrics listener, [`Metrics`] count every request and
//!   connection, and [`scrape`] serves them on that listener alone, until
//!   the drain has ended (so the drain itself can be watched).

use crate::config::Config;
use crate::connection::{self, Shared};
use crate::metrics::Metrics;
use crate::scrape;
use crate::slots::Slots;
use crate::table::Tables;
use crate::tls::Tls;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The sockets a server listens on.
pub struct Listeners {
    /// The site's sockets.
    pub public: Vec<TcpListener>,
    /// The socket `/metrics` is served on, if any.
    pub metrics: Option<TcpListener>,
}

/// A future of this library's, boxed.
pub type Boxed<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Serve `tables` on connections from `listeners` (HTTPS with `tls`) until
/// `shutdown` (a signal, or a test's trigger) completes, then drain.
///
/// The server comes boxed, and takes its trigger boxed: a caller polls it
/// through a pointer and instantiates none of it. Built into this library
/// once, it is not compiled again into the binary, which is rebuilt on
/// every content edit.
pub fn run<'a>(
    listeners: Listeners,
    tables: Tables,
    config: &'a Config,
    tls: Option<Arc<Tls>>,
    shutdown: Boxed<'static>,
) -> Boxed<'a> {
    Box::pin(serve(listeners, tables, config, tls, shutdown))
}

/// [`run`], unboxed.
async fn serve(
    listeners: Listeners,
    tables: Tables,
    config: &Config,
    tls: Option<Arc<Tls>>,
    shutdown: Boxed<'static>,
) {
    let Listeners {
        public: listeners,
        metrics: metrics_listener,
    } = listeners;
    let metrics = metrics_listener.is_some().then(|| {
        let content = tables.current();
        Arc::new(Metrics::new(
            env!("CARGO_PKG_VERSION"),
            content.content_hash.as_str(),
        ))
    });
    let scraping = metrics_listener
        .zip(metrics.clone())
        .map(|(listener, metrics)| {
            tokio::spawn(scrape::serve(listener, metrics, config.header_read_timeout))
        });
    let shared = Arc::new(Shared::new(config, tables, metrics.clone()));
    let slots = Slots::new(config.max_connections);
    let (drain, draining) = watch::channel(false);
    tokio::pin!(shutdown);
    for turn in 0.. {
        let accepted = tokio::select! {
            accepted = accept(&listeners, turn) => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors, or a connection reset before
                // accept: not fatal, but do not spin on it.
                eprintln!("refserve: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let activity = shared.activity();
        let slot = tokio::select! {
            slot = slots.take(&activity) => slot,
            () = &mut shutdown => break,
        };
        // Responses are written whole; do not hold small ones back.
        let _ = stream.set_nodelay(true);
        let (shared, draining) = (Arc::clone(&shared), draining.clone());
        let acceptor = tls.as_ref().map(|tls| tls.acceptor());
        let metrics = metrics.clone();
        if let Some(metrics) = &metrics {
            metrics.connection_accepted();
        }
        // Boxed: held in the task itself, the connection's future gave
        // tokio's poll of the task, entered on every wake, a stack frame of
        // 9 KiB; boxed, 128 bytes (`benches/README.md`, "The stack").
        tokio::spawn(Box::pin(async move {
            let close = connection::serve(shared, stream, peer, activity, draining, acceptor).await;
            if let Some(metrics) = metrics {
                metrics.connection_closed(close);
            }
            drop(slot);
        }));
    }
    drop(listeners);
    shared.begin_drain();
    let _ = drain.send(true);
    // Every connection holds a slot until it has closed.
    if tokio::time::timeout(config.shutdown_timeout, slots.all_free())
        .await
        .is_err()
    {
        eprintln!(
            "refserve: shutdown bound of {:?} reached; closing remaining connections",
            config.shutdown_timeout
        );
    }
    let flushing = Arc::clone(&shared);
    let _ = tokio::task::spawn_blocking(move || flushing.flush_access_log()).await;
    if let Some(scraping) = scraping {
        scraping.abort();
    }
}

/// Open files kept free of connections: the listeners, the runtime, the
/// standard streams (and, for `refserve dev`, its watcher and the files a
/// render reads).
pub const SPARE_DESCRIPTORS: u64 = 64;

/// Raise the soft limit on open descriptors as far as `max_connections`
/// needs and the hard limit allows; the limit now.
pub fn raise_open_file_limit(max_connections: usize) -> std::io::Result<u64> {
    rlimit::increase_nofile_limit(max_connections as u64 + SPARE_DESCRIPTORS)
}

/// Raise the soft limit on open descriptors so that every connection the
/// cap allows can be accepted; a warning when the hard limit forbids it.
pub fn reserve_descriptors(max_connections: usize) -> Option<String> {
    let wanted = max_connections as u64 + SPARE_DESCRIPTORS;
    match raise_open_file_limit(max_connections) {
        Ok(got) if got >= wanted => None,
        Ok(got) => Some(format!(
            "only {got} file descriptors may be open (the hard limit), fewer than \
             --max-connections {max_connections} needs: raise the limit (LimitNOFILE=) or lower the cap"
        )),
        Err(error) => Some(format!("cannot raise the limit on open files: {error}")),
    }
}

/// Wait for a connection on any listener, asking them in turn from `turn`
/// on.
async fn accept(
    listeners: &[TcpListener],
    turn: usize,
) -> std::io::Result<(TcpStream, SocketAddr)> {
    std::future::poll_fn(|cx| {
        let first = turn % listeners.len().max(1);
        for listener in listeners.iter().cycle().skip(first).take(listeners.len()) {
            if let Poll::Ready(accepted) = listener.poll_accept(cx) {
                return Poll::Ready(accepted);
            }
        }
        Poll::Pending
    })
    .await
}
