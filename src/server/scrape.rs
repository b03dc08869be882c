//! The metrics listener (`--metrics-addr`): `GET /metrics` and nothing else,
//! on a socket apart from the site's, so no CDN ever caches or publishes it.
//!
//! - `GET` or `HEAD /metrics`: the Prometheus text format (`text/plain;
//!   version=0.0.4`), or OpenMetrics when `Accept` names
//!   `application/openmetrics-text` with a weight above zero (as Prometheus
//!   does); `Cache-Control: no-store`.
//! - Any other path: 404; any other method: 405 with `Allow: GET, HEAD`; a
//!   head over [`MAX_HEADER_BYTES`]: 431. Every error is an ErrorResponse.
//! - At most [`MAX_CONNECTIONS`] connections at once (HTTP/1.1 only),
//!   accepted by the site's accept loop (`accept.rs`) and held to the
//!   site's clocks (`--header-read-timeout`, `--idle-timeout`,
//!   `--send-timeout`) by the same watchdog, with a drain of their own
//!   that never comes: they are served until the process ends.
//! - **Nobody starves a scraper.** At the cap, a newcomer takes the slot of
//!   the connection idle the longest, silent or between requests, never of
//!   one answering: silent clients reopened as fast as they are closed only
//!   ever push out one another, and a scraper pushed out between scrapes
//!   reconnects.
//!
//! A scrape encodes the numbers then and there: the one place refserve
//! renders at run time, and never on the site's listener.

use crate::accept::{Accepted, Connections};
use crate::activity::{Activity, Open, Tracked};
use crate::config::Config;
use crate::metrics::{self, Metrics};
use crate::watchdog::supervise;
use crate::watched::{Framing, Watched};
use bytes::Bytes;
use http::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use prometheus_client::registry::Registry;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::net::TcpListener;

/// Connections the metrics listener serves at once.
const MAX_CONNECTIONS: usize = 8;
/// The largest request head read; 431 beyond.
const MAX_HEADER_BYTES: usize = 8192;

/// `Content-Type` of the Prometheus text format.
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";
/// `Content-Type` of the OpenMetrics text format.
const OPENMETRICS_TEXT: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// `Content-Type` of an ErrorResponse.
const JSON: &str = "application/json";

const NOT_FOUND: &str = r#"{"error":{"code":"not_found","message":"The metrics listener serves one path.","hint":"Scrape GET /metrics."}}"#;
const METHOD_NOT_ALLOWED: &str = r#"{"error":{"code":"method_not_allowed","message":"The metrics listener answers GET and HEAD only.","hint":"Scrape GET /metrics."}}"#;

/// Serve `metrics` on `listener`, each connection held to the clocks of
/// `config`, until the task is dropped.
pub(crate) async fn serve(listener: TcpListener, metrics: Arc<Metrics>, config: Arc<Config>) {
    let registry = Arc::new(metrics::registry(metrics));
    let mut http1 = http1::Builder::new();
    http1.max_buf_size(MAX_HEADER_BYTES);
    let serve = |accepted: Accepted| {
        let Accepted {
            stream,
            activity,
            drain,
            ..
        } = accepted;
        let (registry, requests) = (Arc::clone(&registry), Arc::clone(&activity));
        let config = Arc::clone(&config);
        let service = service_fn(move |request| {
            let open = Open::begin(&requests);
            let response = answer(&registry, &request).map(|body| Tracked::new(body, open));
            std::future::ready(Ok::<_, Infallible>(response))
        });
        let stream = Watched::new(stream, Arc::clone(&activity), Framing::Http1);
        let connection = http1.serve_connection(TokioIo::new(stream), service);
        async move {
            supervise(connection, &config, &activity, drain, Framing::Http1).await;
        }
    };
    let connections = Connections::new("refserve: metrics listener", MAX_CONNECTIONS).settling();
    let activity = || Arc::new(Activity::new(None, false));
    connections
        .accept(vec![listener], activity, serve, std::future::pending())
        .await;
}

/// The answer to one request on the metrics listener.
fn answer<B>(registry: &Registry, request: &Request<B>) -> Response<Full<Bytes>> {
    if request.uri().path() != "/metrics" {
        return respond(StatusCode::NOT_FOUND, JSON, NOT_FOUND.into());
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        let mut response = respond(
            StatusCode::METHOD_NOT_ALLOWED,
            JSON,
            METHOD_NOT_ALLOWED.into(),
        );
        let allow = HeaderValue::from_static("GET, HEAD");
        response.headers_mut().insert(ALLOW, allow);
        return response;
    }
    let openmetrics = metrics::openmetrics(registry);
    let (body, content_type) = if wants_openmetrics(request.headers()) {
        (openmetrics, OPENMETRICS_TEXT)
    } else {
        (metrics::prometheus_text(&openmetrics), PROMETHEUS_TEXT)
    };
    let length = HeaderValue::from(body.len());
    let body = match *request.method() {
        Method::HEAD => Bytes::new(),
        _ => Bytes::from(body),
    };
    let mut response = respond(StatusCode::OK, content_type, body);
    response.headers_mut().insert(CONTENT_LENGTH, length);
    response
}

/// Whether `Accept` names `application/openmetrics-text` with a weight
/// above zero (its parameters, `version` among them, are not compared).
fn wants_openmetrics(headers: &HeaderMap) -> bool {
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

/// A response of `status` with `body` in `content_type`, never to be
/// stored (an ErrorResponse: [`JSON`]).
fn respond(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
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
