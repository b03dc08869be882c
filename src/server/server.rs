//! The site's server: its listeners run the one accept loop
//! ([`Connections`], `accept.rs`) with at most `max_connections` at a time,
//! each connection served by `connection::serve`.
//!
//! - With [`Tls`], every connection is HTTPS, handshaking with the
//!   certificate current when it was accepted (see [`Tls::reload`]).
//! - Shutdown is a drain no client notices: the listeners are closed (an
//!   inherited socket stays open in its supervisor, for the next process),
//!   every connection is told, and the server returns once the last one has
//!   closed (see `connection.rs` for how each does), or after
//!   `shutdown_timeout`, dropping whatever is still open.
//! - With a metrics listener, [`Metrics`] count every request and
//!   connection, and `scrape.rs` serves them on that listener alone, until
//!   the drain has ended (so the drain itself can be watched).

use crate::accept::{Accepted, Connections};
use crate::config::Config;
use crate::connection::{self, Shared};
use crate::metrics::Metrics;
use crate::scrape;
use crate::table::Tables;
use crate::tls::Tls;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::net::TcpListener;

/// The sockets a server listens on.
pub struct Listeners {
    /// The site's sockets.
    pub public: Vec<TcpListener>,
    /// The socket `/metrics` is served on, if any.
    pub metrics: Option<TcpListener>,
}

/// A future of this library's, boxed.
type Boxed<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

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
    Box::pin(async move {
        let metrics = listeners.metrics.is_some().then(|| {
            let content = tables.current();
            Arc::new(Metrics::new(
                env!("CARGO_PKG_VERSION"),
                content.content_hash.as_str(),
            ))
        });
        let scraping = listeners
            .metrics
            .zip(metrics.clone())
            .map(|(listener, metrics)| {
                tokio::spawn(scrape::serve(listener, metrics, Arc::new(config.clone())))
            });
        let shared = Arc::new(Shared::new(config, tables, metrics.clone()));
        let connections = Connections::new("refserve", config.max_connections);
        let serve = |accepted: Accepted| {
            let (shared, metrics) = (Arc::clone(&shared), metrics.clone());
            let acceptor = tls.as_ref().map(|tls| tls.acceptor());
            if let Some(metrics) = &metrics {
                metrics.connection_accepted();
            }
            async move {
                let close = connection::serve(shared, accepted, acceptor).await;
                if let Some(metrics) = metrics {
                    metrics.connection_closed(close);
                }
            }
        };
        connections
            .accept(listeners.public, || shared.activity(), serve, shutdown)
            .await;
        shared.begin_drain();
        connections.drain(config.shutdown_timeout).await;
        let flushing = Arc::clone(&shared);
        let _ = tokio::task::spawn_blocking(move || flushing.flush_access_log()).await;
        if let Some(scraping) = scraping {
            scraping.abort();
        }
    })
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
