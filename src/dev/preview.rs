//! The preview: what is served (the current render, or the error of the
//! last one) and whom it tells (the open pages' event streams), and the
//! answers of its own (the event stream, the script, a page before the
//! first good render).

use crate::events::event;
use crate::Body;
use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Request, Response, StatusCode};
use http_body::Frame;
use http_body_util::{BodyExt as _, StreamBody};
use hyper::body::Incoming;
use refserve_pipeline::preview::{error_response, escape_html, script_tag, EVENTS, RELOAD_SCRIPT};
use refserve_server::activity::{Activity, Open, Tracked};
use refserve_server::config::Config;
use refserve_server::handler::Handler;
use refserve_server::mcp;
use refserve_server::respond::Body as Whole;
use refserve_server::table::{Table, Tables};
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio::sync::mpsc;

/// The script every preview page loads.
const SCRIPT: &str = include_str!("reload.js");

/// What the preview serves and whom it tells.
pub(crate) struct Preview {
    /// The content directory's parent, every link resolved: files are
    /// named relative to it.
    pub(crate) root: PathBuf,
    /// The content directory's name.
    pub(crate) dir: String,
    pub(crate) base_url: String,
    /// The limits every connection is held to (the clocks, the cap).
    pub(crate) limits: Config,
    /// Answers from the first good render on, from the latest one.
    pub(crate) handler: OnceLock<Handler>,
    /// What `/mcp` is held to.
    pub(crate) mcp: Arc<mcp::Policy>,
    /// The error of the last render, if it failed.
    pub(crate) problem: Mutex<Option<String>>,
    /// The event streams of the open pages.
    pub(crate) pages: Mutex<Vec<mpsc::UnboundedSender<Bytes>>>,
}

impl Preview {
    /// Load, validate and render the content directory. What does not
    /// build is told one error a line, each [`logged`]: the content's
    /// errors quote what the directory holds (a file's name among it),
    /// and the message is logged, sent to the pages and put in a header
    /// as it is.
    pub(crate) fn render(&self) -> Result<Table, String> {
        let date = refserve_pipeline::dates::newest(&self.root, &[&self.dir]);
        let editions =
            refserve_pipeline::content::load(&self.root, &self.dir, self.base_url.clone(), date)
                .map_err(|errors| {
                    let lines: Vec<String> =
                        errors.0.iter().map(|e| logged(&e.to_string())).collect();
                    lines.join("\n")
                })?;
        let table = refserve_pipeline::preview(&editions);
        table.check().map_err(|e| logged(&e.to_string()))?;
        Ok(table)
    }

    /// Serve a render's outcome (or keep the last good table and show its
    /// error), tell every open page, and log it with the names of the
    /// `changed` files (none for the first render), [`logged`].
    pub(crate) fn apply(
        &self,
        outcome: Result<Table, String>,
        took: Duration,
        changed: Option<&str>,
    ) {
        let took = took.as_millis();
        let changed = changed
            .map(|names| format!("{} changed → ", logged(names)))
            .unwrap_or_default();
        match outcome {
            Ok(table) => {
                match self.handler.get() {
                    Some(handler) => handler.tables.replace(table),
                    None => {
                        let latest = Arc::new(std::sync::RwLock::new(Arc::new(table)));
                        let _ = self.handler.set(Handler {
                            tables: Tables::Swappable(latest),
                            mcp: Arc::clone(&self.mcp),
                        });
                    }
                }
                *lock(&self.problem) = None;
                let reloaded = pages(self.tell(&event("reload", "")));
                eprintln!("refserve dev: {changed}rendered in {took} ms → {reloaded} reloaded");
            }
            Err(message) => {
                // Content errors come one a line, escaped by `render`.
                for line in message.lines() {
                    eprintln!("error: {line}");
                }
                let shown = pages(self.tell(&event("invalid", &message)));
                *lock(&self.problem) = Some(message);
                eprintln!(
                    "refserve dev: {changed}not rendered ({took} ms) → the error shown on {shown}"
                );
            }
        }
    }

    /// Send `event` to every open page; the number that took it.
    pub(crate) fn tell(&self, event: &Bytes) -> usize {
        let mut pages = lock(&self.pages);
        pages.retain(|page| page.send(event.clone()).is_ok());
        pages.len()
    }

    /// The response to `request`: the preview's own paths, then the
    /// current render's answer ([`Handler::answer`]: its routes and `/mcp`).
    /// It is counted open on `activity` until its body is dropped, and never
    /// to be stored: a browser shows the current render, not its cache.
    /// While the content does not build, every answer says so in
    /// [`CONTENT_ERROR`], for clients that run no script (curl, agents).
    pub(crate) async fn serve(
        &self,
        request: Request<Incoming>,
        activity: &Arc<Activity>,
    ) -> Response<Tracked<Body>> {
        let own = |response: Response<Body>| {
            let open = Open::begin(activity);
            response.map(|body| Tracked::new(body, open))
        };
        let mut response = match (request.uri().path(), self.handler.get()) {
            (EVENTS, _) => own(self.subscribe()),
            (RELOAD_SCRIPT, _) => own(whole(
                StatusCode::OK,
                "text/javascript; charset=utf-8",
                SCRIPT.into(),
            )),
            (_, None) => own(self.unrendered(request.headers())),
            (_, Some(handler)) => {
                let answered = handler.answer(request, activity).answered().await;
                let open = answered.open;
                let body = |body: Whole| Tracked::new(body.boxed_unsync(), open);
                answered.response.map(body)
            }
        };
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        // Nor kept by a CDN for the year the table gives production's
        // documents.
        for for_the_edge in ["cdn-cache-control", "surrogate-control"] {
            headers.remove(for_the_edge);
        }
        if let Some(problem) = lock(&self.problem).as_deref() {
            headers.insert(CONTENT_ERROR, content_error(problem));
        }
        response
    }

    /// A new page's event stream, the events as they are told for as long
    /// as the page keeps it open; it is told the current error at once.
    fn subscribe(&self) -> Response<Body> {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        if let Some(message) = lock(&self.problem).as_deref() {
            let _ = sender.send(event("invalid", message));
        }
        lock(&self.pages).push(sender);
        let events = futures_util::stream::poll_fn(move |cx| {
            let event = receiver.poll_recv(cx);
            event.map(|event| event.map(|bytes| Ok::<_, Infallible>(Frame::data(bytes))))
        });
        let mut response = Response::new(StreamBody::new(events).boxed_unsync());
        let event_stream = HeaderValue::from_static("text/event-stream");
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, event_stream);
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
        let hint =
            "Fix the content file named in the message; refserve dev renders it again on save.";
        let body = error_response("content_invalid", &message, hint);
        whole(
            StatusCode::SERVICE_UNAVAILABLE,
            "application/json",
            body.into(),
        )
    }
}

/// The header every answer carries while the content does not build.
pub(crate) const CONTENT_ERROR: header::HeaderName =
    header::HeaderName::from_static("refserve-content-error");

/// [`CONTENT_ERROR`]'s value: the first error of `problem` (one a line),
/// with how many follow, in visible ASCII (others shown as `?`).
fn content_error(problem: &str) -> HeaderValue {
    let mut lines = problem.lines();
    let first: String = lines
        .next()
        .unwrap_or("the content does not build")
        .chars()
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '?'
            }
        })
        .collect();
    let value = match lines.count() {
        0 => first,
        more => format!("{first} (and {more} more)"),
    };
    HeaderValue::try_from(value).expect("visible ASCII and spaces make a header value")
}

/// `text` as one line of the log: every character Rust's `escape_debug`
/// escapes (control characters, line and paragraph separators, bidi
/// controls, a backslash) written as it writes them (`\n`, `\u{1b}`), but
/// quotes, which are harmless in a line. The names of the files changed
/// and the content errors (which quote names and values) are the content
/// directory's, which anything may write in: so no name can end a line of
/// the log and begin one that looks like refserve's, move the cursor over
/// one or reorder what a terminal shows.
fn logged(text: &str) -> String {
    let mut line = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\'' => line.push(c),
            c => line.extend(c.escape_debug()),
        }
    }
    line
}

/// `1 page`, `2 pages`.
fn pages(count: usize) -> String {
    match count {
        1 => "1 page".to_string(),
        n => format!("{n} pages"),
    }
}

/// A whole response of the preview's own.
fn whole(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Whole::new(body).boxed_unsync());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_log_writes_of_a_name_is_one_line_of_visible_text() {
        assert_eq!(
            logged("methods/a\r\nrefserve dev: b\u{1b}[2K\u{202e}\\'\".md"),
            "methods/a\\r\\nrefserve dev: b\\u{1b}[2K\\u{202e}\\\\'\".md"
        );
        assert_eq!(
            logged("content/methods/select.md: field `name`"),
            "content/methods/select.md: field `name`"
        );
        assert_eq!(logged("é"), "é");
    }
}
