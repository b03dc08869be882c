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
//!   ever; further clients wait in the listen backlog.
//!
//! A scrape encodes the numbers then and there: the one place refserve
//! renders at run time, and never on the site's listener.

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
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

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
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .max_buf_size(MAX_HEADER_BYTES);
    loop {
        let slot = Arc::clone(&slots)
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                eprintln!("refserve: metrics listener: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let registry = Arc::clone(&registry);
        let service = service_fn(move |request| {
            std::future::ready(Ok::<_, Infallible>(answer(&registry, &request)))
        });
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, connection).await;
            drop(slot);
        });
    }
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
