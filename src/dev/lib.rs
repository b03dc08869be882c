//! `refserve dev`: a content directory served as the site will be, rendered
//! in memory and again after every edit, with every open page reloaded.
//!
//! - **Render**: the pipeline's preview ([`refserve_pipeline::preview`]):
//!   identity bodies, no compression dictionary, and on every HTML page the
//!   script `dev/reload.js`, which the page's policy allows in `dev` only.
//!   A render becomes a [`Table`] and is swapped in whole ([`Tables`]) only
//!   once it is complete; a request keeps the table it began with.
//! - **Serve**: every request but the two of the preview goes through
//!   [`respond`], the routing, negotiation and responses of production.
//!   `/_refserve/events` is a stream of Server-Sent Events (`reload`, and
//!   `invalid` with the error), `/_refserve/reload.js` the script.
//! - **Watch**: file events (`notify`; with `--poll`, a look every
//!   100 ms) that change a file's content or name — not the reads of a
//!   render, which would start another — settled until none has come for
//!   50 ms; editors' temporary and backup files are ignored
//!   ([`is_editor_file`]), and nothing is ever written in the directory.
//! - **Errors**: invalid content keeps the last good table serving, prints
//!   the message `build.rs` would (file and field) and shows it over every
//!   open page; the next good render clears it and reloads them. Started
//!   on invalid content, `dev` serves the error until the content is fixed.
//!   Files are named within the content directory's parent
//!   (`content/entries/select.json`), however `--content` was given, so no
//!   client is shown where the directory is. The pipeline reads regular
//!   files inside the directory only, of at most
//!   [`refserve_pipeline::content::MAX_FILE_BYTES`]; a FIFO, a link out of the
//!   directory or a huge file is such an error, never read.
//! - **Connections**: production's connection layer holds each to the
//!   server's `--header-read-timeout`, `--idle-timeout` and
//!   `--send-timeout` ([`supervise`]); a page's event stream is a request
//!   open for as long as the page, written to often enough never to look
//!   stalled. At most `--max-connections` at once, fewer when the
//!   open-file limit leaves less room; further clients wait in the listen
//!   backlog.
//!
//! Each change is logged as `<files> changed → rendered in N ms → M pages
//! reloaded`; the page shows the new render in place (`dev/reload.js`
//! fetches it and swaps it in, which is quicker than a reload).

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Request, Response, StatusCode};
use http_body::Frame;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use notify::event::{EventKind, MetadataKind, ModifyKind};
use notify::{RecursiveMode, Watcher};
use refserve_pipeline::preview::{script_tag, EVENTS, RELOAD_SCRIPT};
use refserve_server::activity::{Activity, Open, Tracked};
use refserve_server::config::DevConfig;
use refserve_server::connection::{supervise, Protocol, Timeouts};
use refserve_server::mcp;
use refserve_server::respond::{respond, Body as Whole};
use refserve_server::server::{raise_open_file_limit, SPARE_DESCRIPTORS};
use refserve_server::table::{Table, Tables};
use refserve_server::watched::{Framing, Watched};
use std::convert::Infallible;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};

/// The script every preview page loads.
const SCRIPT: &str = include_str!("reload.js");

/// How long an edit's file events must be quiet before it is rendered.
const SETTLE: Duration = Duration::from_millis(50);

/// How often every open page's event stream is written to, to notice
/// the closed ones (more often with a `--send-timeout` under twice it).
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// How often `--poll` looks at the files.
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// A response of the preview: a whole body, or the event stream.
pub enum Body {
    /// A body given whole (every response but the event stream).
    Whole(Whole),
    /// A page's event stream.
    Events(Events),
}

/// Serve `config.content` on `config.addr` until the process is stopped;
/// an error if the address or the directory cannot be used. Boxed, like
/// [`refserve_server::server::run`], so the binary compiles none of it.
pub fn run(config: &DevConfig) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + '_>> {
    Box::pin(serve(config))
}

/// [`run`], unboxed.
async fn serve(config: &DevConfig) -> Result<(), String> {
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
    let listener = TcpListener::bind(config.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
    let preview = Arc::new(Preview {
        root: root.to_path_buf(),
        dir: dir.to_string(),
        base_url: format!("http://{addr}"),
        timeouts: Timeouts::of(&config.limits),
        tables: OnceLock::new(),
        mcp: mcp::Policy {
            origins: mcp::Origins::default(),
            body_timeout: config.limits.body_timeout,
            budget: refserve_server::budget::Budget::new(config.limits.memory_budget),
        },
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
    let _watcher = watch(&content, config.poll, changes)?;
    let started = Instant::now();
    let first = preview.render();
    preview.apply(first, started.elapsed(), None);
    tokio::spawn(rerender(Arc::clone(&preview), changed));
    tokio::spawn(keep_alive(Arc::clone(&preview)));
    // `dev` never drains; the sender lives as long as the accept loop, as
    // a dropped one would read as a drain.
    let (_no_drain, drain) = tokio::sync::watch::channel(false);
    let slots = Arc::new(Semaphore::new(cap));
    loop {
        let slot = Arc::clone(&slots)
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of descriptors, or a connection reset before accept:
                // not fatal, but do not spin on it.
                eprintln!("refserve dev: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let (preview, drain) = (Arc::clone(&preview), drain.clone());
        tokio::spawn(async move {
            serve_connection(preview, stream, drain).await;
            drop(slot);
        });
    }
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
async fn serve_connection(
    preview: Arc<Preview>,
    stream: TcpStream,
    drain: tokio::sync::watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity::new(None));
    let stream = Watched::new(stream, Arc::clone(&activity), Framing::FromPreface);
    let timeouts = preview.timeouts;
    let service = {
        let activity = Arc::clone(&activity);
        service_fn(move |request: Request<Incoming>| {
            let preview = Arc::clone(&preview);
            // `/mcp`'s body arrives on its own clock, as in production.
            let mut open = match request.uri().path() {
                mcp::PATH => Open::receiving(&activity),
                _ => Open::begin(&activity),
            };
            async move {
                let response = preview.serve(request, || open.received()).await;
                Ok::<_, Infallible>(response.map(|body| Tracked::new(body, open)))
            }
        })
    };
    let builder = auto::Builder::new(TokioExecutor::new());
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    supervise(connection, timeouts, &activity, drain, Protocol::Auto).await;
}

/// What the preview serves and whom it tells.
struct Preview {
    /// The content directory's parent, every link resolved: files are
    /// named relative to it.
    root: PathBuf,
    /// The content directory's name.
    dir: String,
    base_url: String,
    /// What every connection is held to; `/mcp` waits for a body as long
    /// as for a head.
    timeouts: Timeouts,
    /// Set by the first good render, replaced by every later one.
    tables: OnceLock<Tables>,
    /// What `/mcp` is held to.
    mcp: mcp::Policy,
    /// The error of the last render, if it failed.
    problem: Mutex<Option<String>>,
    /// The event streams of the open pages.
    pages: Mutex<Vec<mpsc::UnboundedSender<Bytes>>>,
}

impl Preview {
    /// Load, validate and render the content directory.
    fn render(&self) -> Result<Table, String> {
        let catalog =
            refserve_pipeline::content::load(&self.root, &self.dir, self.base_url.clone(), None)
                .map_err(|e| e.to_string())?;
        let stored = refserve_pipeline::preview(&catalog).map_err(|e| e.to_string())?;
        Table::new(&stored).map_err(|e| e.to_string())
    }

    /// Serve a render's outcome (or keep the last good table and show its
    /// error), tell every open page, and log it with the names of the
    /// `changed` files (none for the first render).
    fn apply(&self, outcome: Result<Table, String>, took: Duration, changed: Option<&str>) {
        let took = took.as_millis();
        let changed = changed
            .map(|names| format!("{names} changed → "))
            .unwrap_or_default();
        match outcome {
            Ok(table) => {
                match self.tables.get() {
                    Some(tables) => tables.replace(table),
                    None => {
                        let _ =
                            self.tables
                                .set(Tables::Swappable(Arc::new(std::sync::RwLock::new(
                                    Arc::new(table),
                                ))));
                    }
                }
                *lock(&self.problem) = None;
                let reloaded = pages(self.tell(&event("reload", "")));
                eprintln!("refserve dev: {changed}rendered in {took} ms → {reloaded} reloaded");
            }
            Err(message) => {
                eprintln!("error: {message}");
                let shown = pages(self.tell(&event("invalid", &message)));
                *lock(&self.problem) = Some(message);
                eprintln!(
                    "refserve dev: {changed}not rendered ({took} ms) → the error shown on {shown}"
                );
            }
        }
    }

    /// Send `event` to every open page; the number that took it.
    fn tell(&self, event: &Bytes) -> usize {
        let mut pages = lock(&self.pages);
        pages.retain(|page| page.send(event.clone()).is_ok());
        pages.len()
    }

    /// The response to `request`: `/mcp` reads a body first (and calls
    /// `received` once it has); everything else is answered at once.
    async fn serve(&self, request: Request<Incoming>, received: impl FnOnce()) -> Response<Body> {
        match self.tables.get() {
            Some(tables) if request.uri().path() == mcp::PATH => {
                mcp::serve(tables.current(), &self.mcp, request, received)
                    .await
                    .map(Body::Whole)
            }
            _ => {
                received();
                self.answer(&request)
            }
        }
    }

    /// The response to `request`.
    fn answer<B>(&self, request: &Request<B>) -> Response<Body> {
        let path = request.uri().path();
        match path {
            EVENTS => self.subscribe(),
            RELOAD_SCRIPT => whole(
                StatusCode::OK,
                "text/javascript; charset=utf-8",
                SCRIPT.into(),
            ),
            _ => match self.tables.get() {
                Some(tables) => {
                    let table = tables.current();
                    respond(&table, request.method(), path, request.headers()).map(Body::Whole)
                }
                None => self.unrendered(request.headers()),
            },
        }
    }

    /// A new page's event stream; it is told the current error at once.
    fn subscribe(&self) -> Response<Body> {
        let (sender, receiver) = mpsc::unbounded_channel();
        if let Some(message) = lock(&self.problem).as_deref() {
            let _ = sender.send(event("invalid", message));
        }
        lock(&self.pages).push(sender);
        let mut response = Response::new(Body::Events(Events(receiver)));
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }

    /// What every path answers before the content has rendered once: the
    /// error, as a page that reloads when it is fixed, or an ErrorResponse.
    fn unrendered(&self, headers: &HeaderMap) -> Response<Body> {
        let message = lock(&self.problem).clone().unwrap_or_default();
        let wants_html = headers
            .get(header::ACCEPT)
            .and_then(|accept| accept.to_str().ok())
            .is_some_and(|accept| accept.contains("text/html"));
        if wants_html {
            let page = format!(
                "<!doctype html>\n<html lang=\"en\">\n<meta charset=\"utf-8\">\n\
                 <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
                 <title>The content does not build</title>\n<h1>The content does not build</h1>\n\
                 <pre>{}</pre>\n<p>Fix the file and save: this page updates.</p>\n{}\n",
                escape_html(&message),
                script_tag()
            );
            return whole(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/html; charset=utf-8",
                page.into(),
            );
        }
        let body = serde_json::json!({"error": {
            "code": "content_invalid",
            "message": message,
            "hint": "Fix the content file named in the message; refserve dev renders it again on save.",
        }})
        .to_string();
        whole(
            StatusCode::SERVICE_UNAVAILABLE,
            "application/json",
            body.into(),
        )
    }
}

/// Render again once the changes have settled (no change for
/// [`SETTLE`]); editors' own files change nothing.
async fn rerender(preview: Arc<Preview>, mut changes: mpsc::UnboundedReceiver<Vec<PathBuf>>) {
    while let Some(mut changed) = changes.recv().await {
        loop {
            match tokio::time::timeout(SETTLE, changes.recv()).await {
                Ok(Some(more)) => changed.extend(more),
                Ok(None) => return,
                Err(_settled) => break,
            }
        }
        changed.retain(|path| !is_editor_file(path));
        changed.sort();
        changed.dedup();
        if changed.is_empty() {
            continue;
        }
        // Named by the content files among them (not the temporary files
        // of a rename-style save, gone by now), or all if there are none.
        let json: Vec<&PathBuf> = changed
            .iter()
            .filter(|path| path.extension().is_some_and(|e| e == "json"))
            .collect();
        let shown = if json.is_empty() {
            changed.iter().collect()
        } else {
            json
        };
        // Events name files by absolute paths; the log, within the directory.
        let content = preview.root.join(&preview.dir);
        let names: Vec<String> = shown
            .iter()
            .map(|path| {
                path.strip_prefix(&content)
                    .unwrap_or(path)
                    .display()
                    .to_string()
            })
            .collect();
        let rendering = Arc::clone(&preview);
        let started = Instant::now();
        let Ok(outcome) = tokio::task::spawn_blocking(move || rendering.render()).await else {
            continue;
        };
        preview.apply(outcome, started.elapsed(), Some(&names.join(", ")));
    }
}

/// Every [`KEEP_ALIVE`], a comment to every open page: a page closed
/// without a word (a tab killed) is noticed when the write fails, and the
/// count of pages a change reaches stays true. The writes are the event
/// streams' progress, so they come at least twice per send timeout.
async fn keep_alive(preview: Arc<Preview>) {
    let mut ticks = tokio::time::interval(KEEP_ALIVE.min(preview.timeouts.send / 2));
    loop {
        ticks.tick().await;
        preview.tell(&Bytes::from_static(b": keep-alive\n\n"));
    }
}

/// Watch `dir` and everything under it, sending the paths of every event
/// that may change what renders; the watcher stops when the returned value
/// is dropped.
fn watch(
    dir: &Path,
    poll: bool,
    changes: mpsc::UnboundedSender<Vec<PathBuf>>,
) -> Result<Box<dyn Send>, String> {
    let handler = move |result: notify::Result<notify::Event>| match result {
        Ok(event) if changes_content(&event.kind) => {
            let _ = changes.send(event.paths);
        }
        Ok(_) => {}
        Err(error) => eprintln!("refserve dev: watching: {error}"),
    };
    let config = notify::Config::default().with_poll_interval(POLL_INTERVAL);
    if poll {
        start::<notify::PollWatcher>(dir, config, handler)
    } else {
        start::<notify::RecommendedWatcher>(dir, config, handler)
    }
}

/// Start a watcher of kind `W` on `dir`.
fn start<W: Watcher + Send + 'static>(
    dir: &Path,
    config: notify::Config,
    handler: impl notify::EventHandler,
) -> Result<Box<dyn Send>, String> {
    let cannot = |e: notify::Error| format!("cannot watch {}: {e}", dir.display());
    let mut watcher = W::new(handler, config).map_err(cannot)?;
    watcher
        .watch(dir, RecursiveMode::Recursive)
        .map_err(cannot)?;
    Ok(Box::new(watcher))
}

/// Whether an event of `kind` may change what renders: a file created,
/// removed, renamed, written or given a new modification time — not read,
/// opened or closed unwritten, nor given new permissions or access times.
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(_) | EventKind::Other => false,
        EventKind::Modify(ModifyKind::Metadata(metadata)) => {
            matches!(metadata, MetadataKind::WriteTime | MetadataKind::Any)
        }
        _ => true,
    }
}

/// Whether `path` is a file an editor writes beside the one edited: a
/// swap, backup, lock or temporary file (Vim's `.x.swp`, `x~` and `4913`,
/// Emacs's `#x#` and `.#x`, Helix's `.bck`, `*.tmp`). Such a save ends by
/// writing or renaming onto the file itself, which is seen.
pub fn is_editor_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return true;
    };
    name.starts_with('.')
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name == "4913"
        || [".swp", ".swo", ".swx", ".tmp", ".bck", ".bak", ".orig"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// `1 page`, `2 pages`.
fn pages(count: usize) -> String {
    match count {
        1 => "1 page".to_string(),
        n => format!("{n} pages"),
    }
}

/// A Server-Sent Event named `name` carrying `data`, one `data:` line per
/// line of it.
fn event(name: &str, data: &str) -> Bytes {
    let mut text = format!("event: {name}\n");
    for line in data.split('\n') {
        text.push_str("data: ");
        text.push_str(line);
        text.push('\n');
    }
    text.push('\n');
    text.into()
}

/// A whole response of the preview's own.
fn whole(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Body::Whole(Whole::new(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `text` with `&`, `<` and `>` escaped.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Whole(body) => Pin::new(body).poll_frame(context),
            Body::Events(events) => Pin::new(events).poll_frame(context),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Body::Whole(body) => body.is_end_stream(),
            Body::Events(events) => events.is_end_stream(),
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            Body::Whole(body) => body.size_hint(),
            Body::Events(events) => events.size_hint(),
        }
    }
}

/// A page's event stream: the events as they are told, for as long as
/// the page keeps it open.
pub struct Events(mpsc::UnboundedReceiver<Bytes>);

impl http_body::Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(context)
            .map(|event| event.map(|bytes| Ok(Frame::data(bytes))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editors_own_files_are_ignored() {
        for name in [
            ".select.json.swp",
            "select.json~",
            "4913",
            "#select.json#",
            ".#select.json",
            "select.json.bck",
            "select.json.tmp",
        ] {
            assert!(
                is_editor_file(Path::new("content/entries").join(name).as_path()),
                "{name}"
            );
        }
        for name in ["select.json", "catalog.json", "site.json"] {
            assert!(
                !is_editor_file(Path::new("content/entries").join(name).as_path()),
                "{name}"
            );
        }
    }

    #[test]
    fn only_what_may_change_content_starts_a_render() {
        use notify::event::{AccessKind, CreateKind, DataChange, RenameMode};
        assert!(
            !changes_content(&EventKind::Access(AccessKind::Any)),
            "a render's reads"
        );
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::AccessTime
        ))));
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Permissions
        ))));
        assert!(
            changes_content(&EventKind::Modify(ModifyKind::Metadata(
                MetadataKind::WriteTime
            ))),
            "--poll"
        );
        assert!(changes_content(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(
            changes_content(&EventKind::Modify(ModifyKind::Name(RenameMode::To))),
            "a rename-style save"
        );
        assert!(changes_content(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn events_carry_every_line() {
        assert_eq!(event("reload", ""), "event: reload\ndata: \n\n");
        assert_eq!(
            event("invalid", "a.json: field `x`:\nbad"),
            "event: invalid\ndata: a.json: field `x`:\ndata: bad\n\n"
        );
    }
}
