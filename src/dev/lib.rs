//! `refserve dev`: a content directory served as the site will be, rendered
//! in memory and again after every edit, with every open page reloaded.
//!
//! - **Render**: the pipeline's preview ([`refserve_pipeline::preview`]):
//!   identity bodies, no compression dictionary, and on every HTML page the
//!   script `reload.js`, which the page's policy allows in `dev` only.
//!   A render becomes a [`Table`] and is swapped in whole ([`Tables`]) only
//!   once it is complete; a request keeps the table it began with.
//! - **Serve**: every request but the two of the preview goes through the
//!   server's one handler (`Handler::answer`), `/mcp` included, as in
//!   production.
//!   `/_refserve/events` is a stream of Server-Sent Events (`reload`, and
//!   `invalid` with the error), `/_refserve/reload.js` the script.
//!   Every answer carries `Cache-Control: no-store`, so a browser never
//!   shows an old render from its cache, and, while the content does not
//!   build, `Refserve-Content-Error` with the first error.
//! - **Watch**: file events (`notify`; with `--poll`, a look every
//!   100 ms) that change a file's content or name — not the reads of a
//!   render, which would start another — settled until none has come for
//!   50 ms; editors' temporary and backup files are ignored
//!   (`watch.rs`), and nothing is ever written in the directory.
//! - **Errors**: invalid content keeps the last good table serving, prints
//!   the message `build.rs` would (file and field) and shows it over every
//!   open page; the next good render clears it and reloads them. Started
//!   on invalid content, `dev` serves the error until the content is fixed.
//!   Files are named within the content directory's parent
//!   (`content/methods/select.md`), however `--content` was given, so no
//!   client is shown where the directory is. The pipeline reads regular
//!   files inside the directory only, of at most
//!   [`refserve_pipeline::content::MAX_FILE_BYTES`]; a FIFO, a link out of the
//!   directory or a huge file is such an error, never read.
//! - **Connections**: production's connection layer holds each to the
//!   server's `--header-read-timeout`, `--idle-timeout` and
//!   `--send-timeout` ([`supervise`]); a page's event stream is a request
//!   open for as long as the page, written to often enough never to look
//!   stalled. The server's accept loop takes them (`accept.rs`): at most
//!   `--max-connections` at once, fewer when the open-file limit leaves
//!   less room; at the cap the connection idle the longest makes room, and
//!   further clients wait in the listen backlog.
//!
//! Each change is logged as `<files> changed → rendered in N ms → M pages
//! reloaded`, the control characters of a file's name (and of a content
//! error) escaped as Rust escapes them (`\n`, `\u{1b}`), so that no name
//! forges a line; the page shows the new render in place (`reload.js`
//! fetches it and swaps it in, which is quicker than a reload).
//!
//! One file per concern: `preview.rs` (what is served and whom it tells),
//! `watch.rs` (file events, settled, and the render they start),
//! `events.rs` (the pages' event streams); this file holds the listener
//! and each connection.

use bytes::Bytes;
use http::Request;
use http_body_util::combinators::UnsyncBoxBody;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use refserve_server::accept::{Accepted, Connections};
use refserve_server::activity::Activity;
use refserve_server::config::DevConfig;
use refserve_server::mcp;
use refserve_server::server::{raise_open_file_limit, SPARE_DESCRIPTORS};
use refserve_server::watchdog::supervise;
use refserve_server::watched::{Framing, Watched};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

mod events;
mod preview;
mod translations;
mod watch;

pub use translations::run as translations;

use preview::Preview;

/// A response of the preview: a whole body, or a page's event stream.
type Body = UnsyncBoxBody<Bytes, Infallible>;

/// Serve `config.content` on `config.addr` until the process is stopped;
/// an error if the address or the directory cannot be used. Boxed, like
/// [`refserve_server::server::run`], so the binary compiles none of it.
pub fn run(config: &DevConfig) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + '_>> {
    Box::pin(async move {
        let content = std::fs::canonicalize(&config.content)
            .map_err(|e| format!("cannot use {}: {e}", config.content.display()))?;
        let (Some(root), Some(dir)) = (content.parent(), content.file_name()) else {
            return Err(format!(
                "cannot use {} as the content directory",
                content.display()
            ));
        };
        let dir = dir
            .to_str()
            .ok_or_else(|| format!("the name of {} is not UTF-8", content.display()))?;
        let cannot_listen = |e| format!("cannot listen on {}: {e}", config.addr);
        let listener = TcpListener::bind(config.addr)
            .await
            .map_err(cannot_listen)?;
        let addr = listener.local_addr().map_err(cannot_listen)?;
        let preview = Arc::new(Preview {
            root: root.to_path_buf(),
            dir: dir.to_string(),
            base_url: format!("http://{addr}"),
            limits: config.limits.clone(),
            handler: OnceLock::new(),
            mcp: mcp::Policy::new(&config.limits, mcp::Origins::default()),
            problem: Mutex::new(None),
            pages: Mutex::new(Vec::new()),
        });
        eprintln!(
            "refserve dev: {} on http://{addr} (identity bodies, no compression dictionary, no TLS; \
             open pages update after every edit; Ctrl-C stops)",
            config.content.display()
        );
        let max_connections = config.limits.max_connections;
        let cap = connection_cap(max_connections);
        if cap < max_connections {
            eprintln!(
                "refserve dev: at most {cap} connections at once: the open-file limit allows no more"
            );
        }
        // Watched before the first render, so an edit made during it is seen.
        let (changes, changed) = mpsc::unbounded_channel();
        let _watcher = watch::watch(&content, config.poll, changes)?;
        let started = Instant::now();
        let first = preview.render();
        preview.apply(first, started.elapsed(), None);
        tokio::spawn(watch::rerender(Arc::clone(&preview), changed));
        tokio::spawn(events::keep_alive(Arc::clone(&preview)));
        let connections = Connections::new("refserve dev", cap);
        let activity = || Arc::new(Activity::new(None, false));
        let serve = |accepted| serve_connection(Arc::clone(&preview), accepted);
        // `dev` never drains: it serves until the process is stopped.
        connections
            .accept(vec![listener], activity, serve, std::future::pending())
            .await;
        Ok(())
    })
}

/// The connections served at once: `max_connections`, or fewer when the
/// open-file limit, raised as far as it may be, leaves less room.
fn connection_cap(max_connections: usize) -> usize {
    // Unknown, the limit is taken to be no limit (as without `ulimit`).
    let limit = raise_open_file_limit(max_connections).unwrap_or(u64::MAX);
    let room = usize::try_from(limit.saturating_sub(SPARE_DESCRIPTORS)).unwrap_or(usize::MAX);
    max_connections.min(room).max(1)
}

/// Serve one connection as production does ([`supervise`]): each request
/// open until its response body has been handed over, the connection held
/// to the preview's timeouts.
async fn serve_connection(preview: Arc<Preview>, accepted: Accepted) {
    let Accepted {
        stream,
        activity,
        drain,
        ..
    } = accepted;
    let framing = Framing::FromPreface;
    let stream = Watched::new(stream, Arc::clone(&activity), framing);
    let service = {
        let (preview, activity) = (Arc::clone(&preview), Arc::clone(&activity));
        service_fn(move |request: Request<Incoming>| {
            let (preview, activity) = (Arc::clone(&preview), Arc::clone(&activity));
            async move { Ok::<_, Infallible>(preview.serve(request, &activity).await) }
        })
    };
    let builder = auto::Builder::new(TokioExecutor::new());
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    supervise(connection, &preview.limits, &activity, drain, framing).await;
}
