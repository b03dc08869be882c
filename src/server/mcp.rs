//! `/mcp`: the Model Context Protocol over its Streamable HTTP transport,
//! stateless (no session is ever issued), every answer `application/json`.
//!
//! This file is the HTTP side: what a request must be before its body is
//! read, the body read within `MAX_BODY` bytes and the body timeout, and
//! the response around the JSON-RPC answer: the dispatch (`rpc.rs`) and the
//! tools (`tools.rs`) both answer in the words of `reply.rs` (a call, its
//! reply, the error codes).
//!
//! - `POST` carries one JSON-RPC message; `OPTIONS` is a CORS preflight;
//!   `GET`, `HEAD`, `DELETE` and the rest get 405 with `Allow` (no event
//!   stream is offered, so a client does not wait on one).
//! - `Origin`, when present, must be one, and the base URL's or one
//!   allowed with `--mcp-allow-origin`, else 403 (the specification's
//!   defence against DNS rebinding); only an allowed origin is named in
//!   `Access-Control-Allow-Origin`. `Content-Type` must be JSON (415),
//!   `Accept`, when sent, must take it (406), and the body must fit
//!   `MAX_BODY` (413) and arrive within `--body-timeout`, counted from
//!   the end of the head (408; over HTTP/1.1 with `Connection: close`).
//! - **Memory**: the body is read into one buffer, reserved in the
//!   `Budget`'s share for uploads before each time it grows: as its bytes
//!   arrive, in steps that double (from `FIRST_STEP`) up to its announced
//!   length or `MAX_BODY`, so a head announcing 64 KiB holds nothing until
//!   its bytes come. Every answer is held in the budget until the
//!   connection has sent it. A request the budget cannot take is answered
//!   `503` with `Retry-After` and `BUSY`, a static body; everything the
//!   table serves goes on being served.
//! - Errors before the body is read are JSON-RPC errors without an id,
//!   like those the specification shows for the transport.
//!
//! Answers are never stored by caches (`no-store`): they depend on the id.

mod json;
mod reply;
pub mod rpc;
mod tools;

use crate::activity::Open;
use crate::budget::Budget;
use crate::config::Config;
use crate::errors::ErrorKind;
use crate::negotiate::negotiate_media_type;
use crate::respond::{self, Body};
use crate::table::Table;
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::request::Parts;
use http::{Method, Response, StatusCode, Version};
use http_body_util::{BodyExt as _, Full};
use refserve_core::media::MediaType;
use reply::{code, error_reply, Reply};
use rpc::McpHeaders;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest request body read, in bytes: a tool call is a few hundred.
const MAX_BODY: usize = 64 * 1024;

/// The first size a body's buffer is given: a whole tool call.
const FIRST_STEP: usize = 1024;

/// The answer when the budget is full: a JSON-RPC error without an id, in
/// the range JSON-RPC leaves to servers. Static, so that answering it
/// allocates nothing; the bytes `reply::error_reply` writes (tested).
const BUSY: &str = "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"The server is answering as many /mcp requests as its memory budget allows; retry in a second.\"}}\n";

/// `Allow` on `/mcp`.
const ALLOW: &str = "POST, OPTIONS";

/// The request headers a preflight may announce.
const ALLOW_HEADERS: &str = "Content-Type, Accept, Authorization, MCP-Protocol-Version, \
     Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID";

/// The response headers a cross-origin script may read.
const EXPOSE_HEADERS: &str = "MCP-Protocol-Version, Mcp-Session-Id";

/// Which origins may call `/mcp` from a browser, besides the base URL's:
/// those of `--mcp-allow-origin`, each an origin (`scheme://host[:port]`,
/// in any case) or `*` for any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins(Vec<String>);

impl Origins {
    /// The origins of `--mcp-allow-origin`.
    pub(crate) fn new(allowed: &[String]) -> Self {
        Origins(allowed.to_vec())
    }

    /// Whether a request from `origin` may be answered, on a server whose
    /// base URL is `base_url`.
    fn allow(&self, origin: &[u8], base_url: &str) -> bool {
        let Ok(origin) = std::str::from_utf8(origin) else {
            return false;
        };
        let allows = |allowed: &str| allowed == "*" || origin.eq_ignore_ascii_case(allowed);
        allows(origin_of(base_url)) || self.0.iter().any(|allowed| allows(allowed))
    }
}

/// The origin of an absolute URL: scheme and authority.
fn origin_of(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let end = url[after_scheme..]
        .find('/')
        .map_or(url.len(), |i| after_scheme + i);
    &url[..end]
}

/// What `/mcp` is held to.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The origins it answers besides the base URL's.
    pub origins: Origins,
    /// How long a body may take to arrive, from the end of the head.
    pub body_timeout: Duration,
    /// What request bodies and answers not yet sent may hold.
    pub budget: Arc<Budget>,
}

impl Policy {
    /// `/mcp` under `limits` (its body timeout and memory budget),
    /// answering `origins` besides the base URL's.
    pub fn new(limits: &Config, origins: Origins) -> Arc<Policy> {
        Arc::new(Policy {
            origins,
            body_timeout: limits.body_timeout,
            budget: Budget::new(limits.memory_budget),
        })
    }
}

/// Answer a request to `/mcp` (its head `parts`, its `body`) from `table`
/// under `policy`. The request, `open` as receiving, is marked received
/// once the body has arrived, or once it is clear it will not be read (it
/// is sending its answer from then on).
pub(crate) async fn serve<B>(
    table: &Table,
    policy: &Policy,
    parts: &Parts,
    body: B,
    open: &mut Open,
) -> Response<Body>
where
    B: http_body::Body<Data = Bytes> + Unpin,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let deadline = Instant::now() + policy.body_timeout;
    // Named in CORS headers only when it is one, and allowed.
    let origin = allowed_origin(&parts.headers, &policy.origins, &table.base_url);
    if let Err(refusal) = admit(&parts.method, &parts.headers, origin) {
        open.received();
        return response(refusal, origin, &policy.budget);
    }
    if parts.method == Method::OPTIONS {
        open.received();
        return preflight(origin);
    }
    let read = read_body(body, content_length(&parts.headers), policy, deadline).await;
    open.received();
    let body = match read {
        Ok(body) => body,
        Err(unread) => {
            let mut answer = match unread {
                Unread::Busy => busy(origin),
                Unread::Refused(reply) => response(reply, origin, &policy.budget),
            };
            // HTTP/1.1 cannot go on after a body left unread; HTTP/2 ends
            // the stream alone.
            if parts.version < Version::HTTP_2 {
                answer
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            return answer;
        }
    };
    let reply = rpc::answer(table, &mcp_headers(&parts.headers), &body);
    drop(body);
    response(reply, origin, &policy.budget)
}

/// Why a body was not read whole.
enum Unread {
    /// The budget could not hold it.
    Busy,
    /// Over [`MAX_BODY`], broken by the connection, or late: the refusal.
    Refused(Reply),
}

/// Read `body` into one buffer of at most [`MAX_BODY`] bytes (`length`,
/// when announced), reserved in the budget's share for uploads as it grows
/// ([`buffer_size`]); each frame is copied in and dropped, so a body sent in
/// a thousand pieces holds no more than one sent whole.
async fn read_body<B>(
    mut body: B,
    length: Option<u64>,
    policy: &Policy,
    deadline: Instant,
) -> Result<Bytes, Unread>
where
    B: http_body::Body<Data = Bytes> + Unpin,
{
    // `admit` refused an announced length over the limit.
    let limit = length.map_or(MAX_BODY, |length| {
        usize::try_from(length).map_or(MAX_BODY, |length| length.min(MAX_BODY))
    });
    let mut reservation = policy.budget.upload();
    let mut bytes = Vec::new();
    let reading = async {
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| {
                let message = "The request body could not be read.";
                Unread::Refused(refusal(StatusCode::BAD_REQUEST, message))
            })?;
            if let Ok(data) = frame.into_data() {
                let needed = bytes.len() + data.len();
                if needed > limit {
                    return Err(Unread::Refused(too_large()));
                }
                if needed > bytes.capacity() {
                    let size = buffer_size(bytes.capacity(), needed, limit);
                    if !reservation.grow_to(size) {
                        return Err(Unread::Busy);
                    }
                    bytes.reserve_exact(size - bytes.len());
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(())
    };
    match tokio::time::timeout_at(deadline.into(), reading).await {
        Ok(read) => read.map(|()| reservation.hold(bytes)),
        Err(_) => {
            let message = "The request body did not arrive in time.";
            Err(Unread::Refused(refusal(
                StatusCode::REQUEST_TIMEOUT,
                message,
            )))
        }
    }
}

/// The size a body's buffer of `capacity` grows to, to take `needed`
/// bytes of a body of at most `limit`: double, from [`FIRST_STEP`], within
/// `limit`. What is reserved is never more than twice what has arrived (or
/// [`FIRST_STEP`]), nor more than the body announced.
fn buffer_size(capacity: usize, needed: usize, limit: usize) -> usize {
    (capacity * 2).max(FIRST_STEP).max(needed).min(limit)
}

/// The announced `Content-Length`, if it is one number.
fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok())
}

/// The request's `Origin` when it is one, and one `/mcp` answers.
fn allowed_origin<'h>(
    headers: &'h HeaderMap,
    origins: &Origins,
    base_url: &str,
) -> Option<&'h HeaderValue> {
    let mut all = headers.get_all(header::ORIGIN).iter();
    match (all.next(), all.next()) {
        (Some(origin), None) if origins.allow(origin.as_bytes(), base_url) => Some(origin),
        _ => None,
    }
}

/// What a request must be before its body is read: a `POST` or a
/// preflight, from no origin or an allowed one (`origin`, from
/// [`allowed_origin`]), of JSON, from a client that takes JSON, not over
/// [`MAX_BODY`].
fn admit(method: &Method, headers: &HeaderMap, origin: Option<&HeaderValue>) -> Result<(), Reply> {
    if *method != Method::POST && *method != Method::OPTIONS {
        return Err(refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            "/mcp takes POST (one JSON-RPC message per request); it offers no event stream.",
        ));
    }
    let sent = headers.get_all(header::ORIGIN).iter().count();
    if origin.is_none() && sent > 0 {
        let problem = match sent {
            1 => "This origin may not call /mcp (the server allows its own and those given with --mcp-allow-origin).",
            _ => "A request carries one Origin; this one carries several.",
        };
        return Err(refusal(StatusCode::FORBIDDEN, problem));
    }
    if *method == Method::OPTIONS {
        return Ok(());
    }
    // `application/json`, with any parameters.
    let essence = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.as_bytes().split(|&b| b == b';').next());
    if !essence.is_some_and(|essence| {
        essence
            .trim_ascii()
            .eq_ignore_ascii_case(b"application/json")
    }) {
        return Err(refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "The body must be sent as Content-Type: application/json.",
        ));
    }
    let accept = headers.get_all(header::ACCEPT);
    if accept.iter().next().is_some() && negotiate_media_type(&accept, &[MediaType::JSON]).is_none()
    {
        return Err(refusal(
            StatusCode::NOT_ACCEPTABLE,
            "Every answer is application/json, which Accept does not take.",
        ));
    }
    if content_length(headers).is_some_and(|length| length > MAX_BODY as u64) {
        return Err(too_large());
    }
    Ok(())
}

fn too_large() -> Reply {
    const _: () = assert!(MAX_BODY == 65_536, "the message below names the limit");
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        "The body is over 65536 bytes; one JSON-RPC message is far smaller.",
    )
}

/// An HTTP-level refusal: a JSON-RPC error without an id.
fn refusal(status: StatusCode, message: &str) -> Reply {
    error_reply(status, None, code::INVALID_REQUEST, message, None)
}

/// The MCP headers of a request, as text.
fn mcp_headers(headers: &HeaderMap) -> McpHeaders<'_> {
    // A value that is not UTF-8 is compared as a string no body holds.
    let text = |name: &str| {
        headers
            .get(name)
            .map(|value| value.to_str().unwrap_or("\u{fffd}"))
    };
    McpHeaders {
        protocol_version: text("mcp-protocol-version"),
        method: text("mcp-method"),
        name: text("mcp-name"),
    }
}

/// The response carrying `reply`, readable by `origin` (an allowed one);
/// its body is held in `budget` until sent, or the answer is [`busy`].
fn response(reply: Reply, origin: Option<&HeaderValue>, budget: &Arc<Budget>) -> Response<Body> {
    let Some(reservation) = budget.reserve(reply.body.capacity()) else {
        return busy(origin);
    };
    let body = reservation.hold(reply.body);
    answer(reply.status, Full::new(body), origin)
}

/// `503` with `Retry-After` (a busy `/search`'s): the budget is full. Its
/// body is static, so it costs the budget nothing.
fn busy(origin: Option<&HeaderValue>) -> Response<Body> {
    let body = Full::new(Bytes::from_static(BUSY.as_bytes()));
    let mut response = answer(StatusCode::SERVICE_UNAVAILABLE, body, origin);
    if let Some(seconds) = ErrorKind::Busy.retry_after() {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static(seconds));
    }
    response
}

/// A response of `/mcp` with `body`: JSON (but a 202's, which has none),
/// never stored, never sniffed.
fn answer(status: StatusCode, body: Body, origin: Option<&HeaderValue>) -> Response<Body> {
    let mut response = respond::response(status, HeaderMap::new(), body);
    let headers = response.headers_mut();
    if status != StatusCode::ACCEPTED {
        let json = HeaderValue::from_static("application/json");
        headers.insert(header::CONTENT_TYPE, json);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static(crate::headers::NOSNIFF),
    );
    if status == StatusCode::METHOD_NOT_ALLOWED {
        headers.insert(header::ALLOW, HeaderValue::from_static(ALLOW));
    }
    cors(headers, origin);
    response
}

/// 204 to a preflight from an allowed origin.
fn preflight(origin: Option<&HeaderValue>) -> Response<Body> {
    let mut response = respond::response(StatusCode::NO_CONTENT, HeaderMap::new(), Body::default());
    let headers = response.headers_mut();
    for (name, value) in [
        (header::ALLOW, ALLOW),
        (header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW),
        (header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOW_HEADERS),
        (
            header::ACCESS_CONTROL_MAX_AGE,
            crate::headers::PREFLIGHT_MAX_AGE,
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    cors(headers, origin);
    response
}

/// `Access-Control-Allow-Origin` for an allowed origin (any other gets
/// none, whatever the answer), and `Vary: Origin` always: the answer
/// depends on it.
fn cors(headers: &mut HeaderMap, origin: Option<&HeaderValue>) {
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::header::HeaderName;

    #[test]
    fn a_bodys_buffer_grows_by_doubling_within_its_announced_length() {
        assert_eq!(buffer_size(0, 200, MAX_BODY), FIRST_STEP);
        assert_eq!(buffer_size(0, 200, 300), 300, "the announced length");
        assert_eq!(
            buffer_size(FIRST_STEP, FIRST_STEP + 1, MAX_BODY),
            2 * FIRST_STEP
        );
        assert_eq!(buffer_size(2048, 9000, MAX_BODY), 9000, "a large frame");
        assert_eq!(buffer_size(40_000, 40_001, MAX_BODY), MAX_BODY);
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    HeaderName::from_static(name),
                    HeaderValue::from_static(value),
                )
            })
            .collect()
    }

    const BASE: &str = "https://docs.example.com";

    fn status(method: Method, pairs: &[(&'static str, &'static str)]) -> Option<StatusCode> {
        let (headers, origins) = (
            headers(pairs),
            Origins::new(&["http://localhost:6274".into()]),
        );
        let origin = allowed_origin(&headers, &origins, BASE);
        admit(&method, &headers, origin)
            .err()
            .map(|reply| reply.status)
    }

    #[test]
    fn the_static_busy_answer_is_what_serde_would_write() {
        let message = "The server is answering as many /mcp requests as its memory budget \
                       allows; retry in a second.";
        let written = error_reply(StatusCode::SERVICE_UNAVAILABLE, None, -32000, message, None);
        assert_eq!(String::from_utf8_lossy(&written.body), BUSY);
    }

    #[test]
    fn only_post_and_preflights_are_taken() {
        let json = [("content-type", "application/json")];
        assert_eq!(status(Method::POST, &json), None);
        assert_eq!(status(Method::OPTIONS, &[]), None);
        for method in [Method::GET, Method::HEAD, Method::DELETE, Method::PUT] {
            assert_eq!(status(method, &json), Some(StatusCode::METHOD_NOT_ALLOWED));
        }
    }

    #[test]
    fn an_origin_must_be_the_base_urls_or_allowed() {
        let with = |origin: &'static str| {
            status(
                Method::POST,
                &[("content-type", "application/json"), ("origin", origin)],
            )
        };
        assert_eq!(with("https://docs.example.com"), None);
        assert_eq!(with("HTTPS://DOCS.EXAMPLE.COM"), None);
        assert_eq!(with("http://localhost:6274"), None);
        assert_eq!(with("https://evil.example"), Some(StatusCode::FORBIDDEN));
        assert_eq!(with("null"), Some(StatusCode::FORBIDDEN));
        let any = Origins::new(&["*".into()]);
        assert!(any.allow(b"https://anywhere.example", BASE));
    }

    #[test]
    fn the_body_must_be_json_for_a_client_that_takes_json() {
        assert_eq!(
            status(Method::POST, &[]),
            Some(StatusCode::UNSUPPORTED_MEDIA_TYPE)
        );
        assert_eq!(
            status(Method::POST, &[("content-type", "text/plain")]),
            Some(StatusCode::UNSUPPORTED_MEDIA_TYPE)
        );
        assert_eq!(
            status(
                Method::POST,
                &[("content-type", "application/json; charset=utf-8")]
            ),
            None
        );
        assert_eq!(
            status(
                Method::POST,
                &[
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream")
                ]
            ),
            None
        );
        assert_eq!(
            status(
                Method::POST,
                &[
                    ("content-type", "application/json"),
                    ("accept", "text/event-stream")
                ]
            ),
            Some(StatusCode::NOT_ACCEPTABLE)
        );
        assert_eq!(
            status(
                Method::POST,
                &[
                    ("content-type", "application/json"),
                    ("content-length", "70000")
                ]
            ),
            Some(StatusCode::PAYLOAD_TOO_LARGE)
        );
    }

    #[test]
    fn an_origin_is_scheme_and_authority() {
        assert_eq!(
            origin_of("https://docs.example.com"),
            "https://docs.example.com"
        );
        assert_eq!(
            origin_of("http://127.0.0.1:8080/base"),
            "http://127.0.0.1:8080"
        );
    }
}
