//! The metrics listener (`--metrics-addr`): `GET /metrics` and nothing else,
//! on a socket apart from the site's, so no CDN ever caches or publishes it.
//!
//! - `GET` or `HEAD /metrics`: the Prometheus text format (`text/plain;
//!   version=0.0.4`), or OpenMetrics when `Accept` names
//!   `application/openmetrics-text` with a weight above zero (as Prometheus
//!   does); `Cache-Control: no-store`.
//! - Any other path: 404; any other method: 405 with `Allow: GET, HEAD`; a
//!   head over [`MAX_HEADER_BYTES`]: 431. Every error is an ErrorResponse.
//! - At most [`MAX_CONNECTIONS`] connections at once (HTTP/1.1 only), each
//!   with the site's `--header-read-timeout` for its request heads and
//!   closed after [`CONNECTION_LIFETIME`], so no scraper holds a slot for
//!   ever.
//! - **Nobody starves a scraper.** The listener always accepts. When every
//!   slot is taken, a newcomer takes the slot of the oldest connection that
//!   has not sent a complete request (a silent client, however fast it
//!   reconnects, only ever pushes out another silent client), or else of
//!   the oldest idle keep-alive connection (a scraper reconnects); never of
//!   one answering a request. When all are answering, the newcomer is
//!   closed. After each accept the loop yields, so the new connection
//!   reads a request already sent before the loop accepts again and may
//!   choose a victim. A longer head timeout or more slots alone would not
//!   do: silent clients reopened as fast as they are closed keep any
//!   number of slots.
//!
//! A scrape encodes the numbers then and there: the one place refserve
//! renders at run time, and never on the site's listener.

use crate::activity::{Activity, Open, Tracked};
use crate::metrics::{self, Metrics};
use bytes::Bytes;
use http::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::registry::Registry;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

/// Connections the metrics listener serves at once.
pub const MAX_CONNECTIONS: usize = 8;
/// The largest request head read; 431 beyond.
pub const MAX_HEADER_BYTES: usize = 8192;
/// How long a metrics connection is kept, however busy.
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);

/// `Content-Type` of the Prometheus text format.
pub const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";
/// `Content-Type` of the OpenMetrics text format.
pub const OPENMETRICS_TEXT: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

const NOT_FOUND: &str = r#"{"error":{"code":"not_found","message":"The metrics listener serves one path.","hint":"Scrape GET /metrics."}}"#;
const METHOD_NOT_ALLOWED: &str = r#"{"error":{"code":"method_not_allowed","message":"The metrics listener answers GET and HEAD only.","hint":"Scrape GET /metrics."}}"#;

/// Serve `metrics` on `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>, header_read_timeout: Duration) {
    let registry = Arc::new(metrics::registry(metrics));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .max_buf_size(MAX_HEADER_BYTES);
    let mut held: Vec<Held> = Vec::with_capacity(MAX_CONNECTIONS);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of descriptors, or a connection reset before accept.
                eprintln!("refserve: metrics listener: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        held.retain(|connection| !connection.task.is_finished());
        if held.len() >= MAX_CONNECTIONS {
            match victim(&held) {
                Some(index) => held.remove(index).task.abort(),
                // Every connection is answering a request: the newcomer
                // is closed (dropped) instead.
                None => continue,
            }
        }
        held.push(spawn(&builder, stream, &registry));
        // Let the new connection read what it was sent before the next
        // accept, which may push out a connection that has sent nothing.
        tokio::task::yield_now().await;
    }
}

/// A connection the listener holds: its task, and what it has asked.
struct Held {
    task: AbortHandle,
    activity: Arc<Activity>,
}

/// Serve `stream` on a task of its own.
fn spawn(builder: &http1::Builder, stream: TcpStream, registry: &Arc<Registry>) -> Held {
    let activity = Arc::new(Activity::new(None, false));
    let service = {
        let (registry, activity) = (Arc::clone(registry), Arc::clone(&activity));
        service_fn(move |request| {
            let open = Open::begin(&activity);
            let response = answer(&registry, &request).map(|body| Tracked::new(body, open));
            std::future::ready(Ok::<_, Infallible>(response))
        })
    };
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    let task = tokio::spawn(async move {
        let _ = tokio::time::timeout(CONNECTION_LIFETIME, connection).await;
    });
    Held {
        task: task.abort_handle(),
        activity,
    }
}

/// The connection to close for a newcomer, from `held` in accept order:
/// the oldest that has sent no complete request, or else the oldest with
/// no request open (idle between requests); none while all are answering.
fn victim(held: &[Held]) -> Option<usize> {
    held.iter()
        .position(|connection| !connection.activity.has_served())
        .or_else(|| {
            held.iter()
                .position(|connection| connection.activity.idle_since().is_some())
        })
}

/// The answer to one request on the metrics listener.
pub fn answer<B>(registry: &Registry, request: &Request<B>) -> Response<Full<Bytes>> {
    if request.uri().path() != "/metrics" {
        return error(StatusCode::NOT_FOUND, NOT_FOUND);
    }
    let head = match *request.method() {
        Method::GET => false,
        Method::HEAD => true,
        _ => {
            let mut response = error(StatusCode::METHOD_NOT_ALLOWED, METHOD_NOT_ALLOWED);
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return response;
        }
    };
    let openmetrics = metrics::openmetrics(registry);
    let (body, content_type) = if wants_openmetrics(request.headers()) {
        (openmetrics, OPENMETRICS_TEXT)
    } else {
        (metrics::prometheus_text(&openmetrics), PROMETHEUS_TEXT)
    };
    let length = body.len();
    let mut response = Response::new(if head {
        Full::default()
    } else {
        Full::new(Bytes::from(body))
    });
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(http::header::CONTENT_LENGTH, HeaderValue::from(length));
    response
}

/// Whether `Accept` names `application/openmetrics-text` with a weight
/// above zero (its parameters, `version` among them, are not compared).
pub fn wants_openmetrics(headers: &HeaderMap) -> bool {
    headers
        .get_all(http::header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|member| {
            let mut parts = member.split(';').map(str::trim);
            let range = parts.next().unwrap_or_default();
            let zero = parts.any(|parameter| {
                parameter
                    .strip_prefix("q=")
                    .or_else(|| parameter.strip_prefix("Q="))
                    .and_then(|q| q.parse::<f32>().ok())
                    == Some(0.0)
            });
            range.eq_ignore_ascii_case("application/openmetrics-text") && !zero
        })
}

/// An ErrorResponse.
fn error(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_str(value).expect("a value"),
        );
        headers
    }

    #[test]
    fn openmetrics_only_when_asked_for() {
        assert!(!wants_openmetrics(&HeaderMap::new()));
        assert!(!wants_openmetrics(&accept("*/*")));
        assert!(!wants_openmetrics(&accept("text/plain;version=0.0.4")));
        assert!(wants_openmetrics(&accept(
            "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
        )));
        assert!(wants_openmetrics(&accept("Application/OpenMetrics-Text")));
        assert!(!wants_openmetrics(&accept(
            "application/openmetrics-text;q=0"
        )));
    }

    /// How far a held connection of a test has got.
    enum Asked {
        Nothing,
        Answered,
        Answering,
    }

    /// A connection held by a task that never ends.
    fn held(runtime: &tokio::runtime::Runtime, asked: Asked) -> Held {
        let activity = Arc::new(Activity::new(None, false));
        match asked {
            Asked::Nothing => {}
            Asked::Answered => drop(Open::begin(&activity)),
            // Its request stays open: the Open is never dropped.
            Asked::Answering => std::mem::forget(Open::begin(&activity)),
        }
        let task = runtime.spawn(std::future::pending::<()>()).abort_handle();
        Held { task, activity }
    }

    #[test]
    fn the_oldest_silent_connection_makes_room_then_the_oldest_idle_one() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let held = |asked| held(&runtime, asked);
        assert_eq!(
            victim(&[
                held(Asked::Answering),
                held(Asked::Answered),
                held(Asked::Nothing),
                held(Asked::Nothing)
            ]),
            Some(2)
        );
        assert_eq!(
            victim(&[
                held(Asked::Answering),
                held(Asked::Answered),
                held(Asked::Answered)
            ]),
            Some(1)
        );
        assert_eq!(
            victim(&[held(Asked::Answering), held(Asked::Answering)]),
            None
        );
    }

    #[test]
    fn the_listener_answers_metrics_and_explains_the_rest() {
        let registry = metrics::registry(Arc::new(Metrics::new("1", "c")));
        let request = |method: Method, path: &str| {
            Request::builder()
                .method(method)
                .uri(path)
                .body(())
                .expect("a request")
        };
        let ok = answer(&registry, &request(Method::GET, "/metrics"));
        assert_eq!(ok.status(), StatusCode::OK);
        assert_eq!(ok.headers()[CONTENT_TYPE], PROMETHEUS_TEXT);
        let head = answer(&registry, &request(Method::HEAD, "/metrics"));
        assert_eq!(
            head.headers()[http::header::CONTENT_LENGTH],
            ok.headers()[http::header::CONTENT_LENGTH]
        );
        let missing = answer(&registry, &request(Method::GET, "/"));
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        let post = answer(&registry, &request(Method::POST, "/metrics"));
        assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(post.headers()[ALLOW], "GET, HEAD");
        for body in [NOT_FOUND, METHOD_NOT_ALLOWED] {
            let json: serde_json::Value = serde_json::from_str(body).expect("JSON");
            assert!(json["error"]["code"].is_string() && json["error"]["hint"].is_string());
        }
    }
}
