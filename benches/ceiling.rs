//! The ceiling of the load benchmark (`benches/load.sh`): a hyper server in
//! refserve's shape for HTTP/1.1 (tokio's multi-thread runtime, hyper's
//! HTTP/1 builder, `TCP_NODELAY`, one task per connection) that answers every
//! request, whatever its method, path or headers, with one response captured
//! at startup: what refserve sends for the `GET` request named on the command
//! line (status, every header, the body), by default `/api/reference.json`
//! with `Accept-Encoding: br`. load.sh starts one per measured request, so
//! each row compares refserve with this stack sending the same bytes.
//!
//! It routes, negotiates and validates nothing and arms no timer, so its
//! throughput is the most this stack can do with these bytes.
//!
//! `CEILING_RUNTIME=current-thread` runs it on tokio's current-thread
//! runtime instead (the one-core case of a runtime per core); the default,
//! `multi-thread`, is refserve's.
//!
//! ```sh
//! cargo run --release --example ceiling -- 127.0.0.1:8081
//! cargo run --release --example ceiling -- 127.0.0.1:8082 / 'Accept: text/html' 'Accept-Encoding: br'
//! CEILING_RUNTIME=current-thread cargo run --release --example ceiling -- 127.0.0.1:8083
//! ```

use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use refserve::respond::{respond, Body};
use std::convert::Infallible;
use std::time::Duration;

/// The one response, kept in parts (a `Response` is not `Clone`).
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Body,
}

impl Reply {
    fn response(&self) -> Response<Body> {
        let mut response = Response::new(self.body.clone());
        *response.status_mut() = self.status;
        *response.headers_mut() = self.headers.clone();
        response
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8081".to_string());
    let path = args
        .next()
        .unwrap_or_else(|| "/api/reference.json".to_string());
    let mut fields: Vec<String> = args.collect();
    if fields.is_empty() {
        fields.push("Accept-Encoding: br".to_string());
    }
    let mut request_headers = HeaderMap::new();
    for field in &fields {
        let (name, value) = field
            .split_once(':')
            .expect("request headers are given as 'Name: value'");
        request_headers.append(
            HeaderName::from_bytes(name.trim().as_bytes()).expect("a valid header name"),
            HeaderValue::from_str(value.trim()).expect("a valid header value"),
        );
    }
    let table = refserve::table::production();
    let (parts, body) = respond(table, &Method::GET, &path, &request_headers).into_parts();
    let reply: &'static Reply = Box::leak(Box::new(Reply {
        status: parts.status,
        headers: parts.headers,
        body,
    }));

    let mut runtime = match std::env::var("CEILING_RUNTIME").as_deref() {
        Ok("current-thread") => tokio::runtime::Builder::new_current_thread(),
        Ok("multi-thread") | Err(_) => tokio::runtime::Builder::new_multi_thread(),
        Ok(other) => panic!("CEILING_RUNTIME is current-thread or multi-thread, not {other}"),
    };
    let runtime = runtime
        .enable_all()
        .build()
        .expect("the ceiling needs a tokio runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .expect("the ceiling's address must be free");
        eprintln!(
            "ceiling listening on http://{addr} ({:?})",
            tokio::runtime::Handle::current().runtime_flavor()
        );
        let builder = http1::Builder::new();
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let service = service_fn(move |_: Request<Incoming>| async move {
                Ok::<_, Infallible>(reply.response())
            });
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::spawn(async move {
                let _ = connection.await;
            });
        }
    });
}
