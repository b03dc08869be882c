//! One connection's life: the protocol it speaks, the requests it has open,
//! the timeouts that close it while it has none, and its part in a drain.
//!
//! - **Protocol.** The first byte, peeked, decides: the h2c preface
//!   (`PRI * HTTP/2.0`) starts with `P`, no request line of a method we
//!   serve does. Any other connection is served by hyper's HTTP/1 builder
//!   alone; one that starts with `P` goes to hyper-util's auto builder, which
//!   reads the preface and picks. Serving HTTP/1.1 through the auto builder
//!   costs about 8 KiB more per open connection (`benches/shapes.sh`).
//!   On HTTPS the first byte must open a TLS handshake (cleartext HTTP gets
//!   a 400 and is closed); the handshake must end within the header read
//!   timeout, counted from the accept like the first request head; then
//!   ALPN decides: `h2` to the auto builder, anything else to HTTP/1. Every
//!   HTTPS response carries `Strict-Transport-Security`.
//! - **No connection is held without a request.** [`Activity`] counts the
//!   requests a connection has open: one begins when its head is complete
//!   (HTTP/1.1) or its HEADERS frame arrives (HTTP/2), and ends when its
//!   response body has been handed to the connection. A watchdog closes a
//!   connection that has had none open for `--header-read-timeout` since it
//!   was accepted (a partial head, a partial preface, PINGs alone) or for
//!   `--idle-timeout` since its last response. HTTP/2 gets GOAWAY first; a
//!   connection that does not finish closing within [`CLOSE_GRACE`] is dropped.
//! - **Drain.** Once the server drains, every HTTP/1.1 response carries
//!   `Connection: close`, so a client learns of the close from the response
//!   instead of finding the connection gone under its next request. An
//!   HTTP/1.1 connection with no request open is closed once it has been idle
//!   for [`DRAIN_IDLE_GRACE`]: at once when it was idle already, otherwise
//!   after it had the chance to send the request it was about to (answered,
//!   and closed). HTTP/2 gets GOAWAY at once and finishes its open streams.

use crate::config::Config;
use crate::respond::Body;
use crate::service;
use crate::tls;
use bytes::Bytes;
use http::header::{HeaderValue, CONNECTION, STRICT_TRANSPORT_SECURITY};
use http::{Request, Response, Version};
use http_body::Frame;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulConnection;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

/// `Strict-Transport-Security` on every HTTPS response.
const HSTS: HeaderValue = HeaderValue::from_static(tls::STRICT_TRANSPORT_SECURITY);

/// How long a connection asked to close (idle, stalled) may take to do so.
pub const CLOSE_GRACE: Duration = Duration::from_millis(500);

/// In a drain, how long an HTTP/1.1 connection must have been idle to be
/// closed: a busy keep-alive client sends its next request well within it.
pub const DRAIN_IDLE_GRACE: Duration = Duration::from_millis(250);

/// What every connection of a server shares.
pub struct Shared {
    http1: http1::Builder,
    auto: auto::Builder<TokioExecutor>,
    header_read_timeout: Duration,
    idle_timeout: Duration,
    access_log: bool,
    /// Set when the drain begins; read by every response.
    draining: AtomicBool,
}

impl Shared {
    /// The builders and limits of `config`.
    pub fn new(config: &Config) -> Self {
        // The HTTP/1 builders get no header-read timer: the watchdog bounds
        // the time to a complete head for both protocols.
        let mut http1 = http1::Builder::new();
        http1.max_buf_size(config.max_header_bytes);
        let mut auto = auto::Builder::new(TokioExecutor::new());
        auto.http1().max_buf_size(config.max_header_bytes);
        auto.http2()
            .timer(TokioTimer::new())
            .max_concurrent_streams(config.max_streams)
            .max_header_list_size(u32::try_from(config.max_header_bytes).unwrap_or(u32::MAX))
            .keep_alive_interval(config.header_read_timeout)
            .keep_alive_timeout(config.header_read_timeout);
        Shared {
            http1,
            auto,
            header_read_timeout: config.header_read_timeout,
            idle_timeout: config.idle_timeout,
            access_log: config.access_log,
            draining: AtomicBool::new(false),
        }
    }

    /// Mark the drain as begun: responses from now on close their connection.
    pub fn begin_drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }
}

/// Serve `stream` until it closes, is closed by a timeout, or the drain
/// (`drain` turns true) closes it. With `tls`, the connection is HTTPS: the
/// handshake comes first, within the same `--header-read-timeout` as the
/// first request head, and ALPN picks the protocol.
pub async fn serve(
    shared: Arc<Shared>,
    stream: TcpStream,
    peer: SocketAddr,
    mut drain: watch::Receiver<bool>,
    tls: Option<TlsAcceptor>,
) {
    let activity = Arc::new(Activity::new());
    let mut first = [0u8; 1];
    let peeked = before_drain(stream.peek(&mut first), &shared, &activity, &mut drain).await;
    let Some(Ok(1..)) = peeked else {
        // Closed, failed, or silent for the header read timeout.
        return;
    };
    let Some(acceptor) = tls else {
        let protocol = if first[0] == b'P' {
            Protocol::Auto
        } else {
            Protocol::Http1
        };
        return serve_protocol(stream, protocol, shared, activity, peer, drain, false).await;
    };
    // Boxed: the handshake, the TLS stream and the buffer that turns
    // cleartext away would make every connection's task kilobytes larger,
    // cleartext ones included.
    Box::pin(serve_https(
        stream, first[0], acceptor, shared, activity, peer, drain,
    ))
    .await;
}

/// Cleartext turned away, or the TLS handshake and then the protocol ALPN
/// chose. `first` is the first byte the client sent.
async fn serve_https(
    stream: TcpStream,
    first: u8,
    acceptor: TlsAcceptor,
    shared: Arc<Shared>,
    activity: Arc<Activity>,
    peer: SocketAddr,
    mut drain: watch::Receiver<bool>,
) {
    if !tls::opens_handshake(first) {
        return turn_away(stream).await;
    }
    let handshake = acceptor.accept(stream);
    let Some(Ok(stream)) = before_drain(handshake, &shared, &activity, &mut drain).await else {
        return;
    };
    let protocol = match stream.get_ref().1.alpn_protocol() {
        Some(b"h2") => Protocol::Auto,
        _ => Protocol::Http1,
    };
    serve_protocol(stream, protocol, shared, activity, peer, drain, true).await;
}

/// `step` (the peek, the TLS handshake) if it completes within the header
/// read timeout since the connection was accepted, or within
/// [`DRAIN_IDLE_GRACE`] of that once the drain has begun: a connection
/// silent so far is closed like any idle one, yet a client that has just
/// connected still gets its answer.
async fn before_drain<F: std::future::Future>(
    step: F,
    shared: &Shared,
    activity: &Activity,
    drain: &mut watch::Receiver<bool>,
) -> Option<F::Output> {
    let deadline = activity.accepted + shared.header_read_timeout;
    let step = tokio::time::timeout_at(deadline.into(), step);
    tokio::pin!(step);
    tokio::select! {
        done = &mut step => done.ok(),
        () = drained(drain) => {
            let left = DRAIN_IDLE_GRACE.saturating_sub(activity.accepted.elapsed());
            tokio::time::timeout(left, step).await.ok()?.ok()
        }
    }
}

/// Serve `stream` with hyper's HTTP/1 builder, or with the auto builder
/// (HTTP/2, or HTTP/1.1 after all).
async fn serve_protocol<S>(
    stream: S,
    protocol: Protocol,
    shared: Arc<Shared>,
    activity: Arc<Activity>,
    peer: SocketAddr,
    drain: watch::Receiver<bool>,
    secure: bool,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = {
        let (shared, activity) = (Arc::clone(&shared), Arc::clone(&activity));
        service_fn(move |request| {
            std::future::ready(answer(&shared, &activity, &request, peer, secure))
        })
    };
    match protocol {
        Protocol::Http1 => {
            let connection = shared.http1.serve_connection(TokioIo::new(stream), service);
            supervise(connection, &shared, &activity, drain, protocol).await;
        }
        Protocol::Auto => {
            let connection = shared.auto.serve_connection(TokioIo::new(stream), service);
            // Boxed: the auto builder's connection is large and rare.
            Box::pin(supervise(connection, &shared, &activity, drain, protocol)).await;
        }
    }
}

/// Answer cleartext HTTP on the TLS port with [`tls::plain_http_answer`]
/// and close. What the client sent is read (briefly) before closing, so
/// the close does not reset the connection under the answer.
async fn turn_away(mut stream: TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    if stream.write_all(tls::plain_http_answer()).await.is_err() {
        return;
    }
    let _ = stream.shutdown().await;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(CLOSE_GRACE, async {
        while let Ok(1..) = stream.read(&mut sink).await {}
    })
    .await;
}

/// Completes once the drain has begun (at once if it has).
async fn drained(drain: &mut watch::Receiver<bool>) {
    // An error means the server is gone: as good as drained.
    let _ = drain.wait_for(|draining| *draining).await;
}

/// Which builder serves a connection.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// hyper's HTTP/1 builder.
    Http1,
    /// hyper-util's auto builder: HTTP/2, or HTTP/1.1 that starts with `P`.
    Auto,
}

/// Run `connection` to its end under the watchdog.
async fn supervise<C: GracefulConnection>(
    connection: C,
    shared: &Shared,
    activity: &Activity,
    mut drain: watch::Receiver<bool>,
    protocol: Protocol,
) {
    tokio::pin!(connection);
    let mut draining = false;
    loop {
        let limit = if draining {
            DRAIN_IDLE_GRACE
        } else if activity.has_served() {
            shared.idle_timeout
        } else {
            shared.header_read_timeout
        };
        // With a request open, look again in `limit`: it cannot end sooner.
        // Before the first request, look again within the idle timeout too,
        // which applies as soon as one has been served and may be shorter.
        let now = Instant::now();
        let deadline = activity
            .idle_since()
            .map_or(now + limit, |since| since + limit)
            .min(now + shared.idle_timeout);
        tokio::select! {
            _ = &mut connection => return,
            () = tokio::time::sleep_until(deadline.into()) => {
                if activity.idle_since().is_some_and(|since| since.elapsed() >= limit) {
                    break;
                }
            }
            () = drained(&mut drain), if !draining => {
                draining = true;
                if protocol == Protocol::Auto {
                    break;
                }
            }
        }
    }
    connection.as_mut().graceful_shutdown();
    if activity.idle_since().is_some() {
        let _ = tokio::time::timeout(CLOSE_GRACE, connection).await;
    } else {
        // HTTP/2 in a drain: its open streams finish, within the server's
        // shutdown bound.
        let _ = connection.await;
    }
}

/// Answer one request, tracked by `activity`, with an access-log line if
/// asked for.
fn answer<B>(
    shared: &Shared,
    activity: &Arc<Activity>,
    request: &Request<B>,
    peer: SocketAddr,
    secure: bool,
) -> Result<Response<Tracked>, Infallible> {
    let open = Open::begin(activity);
    let start = shared.access_log.then(Instant::now);
    let mut response = service::handle(request);
    if secure {
        response
            .headers_mut()
            .insert(STRICT_TRANSPORT_SECURITY, HSTS);
    }
    if shared.draining.load(Ordering::Relaxed) && request.version() < Version::HTTP_2 {
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    if let Some(start) = start {
        log(request, &response, peer, start);
    }
    Ok(response.map(|body| Tracked { body, _open: open }))
}

/// One access-log line on standard error.
fn log<B>(request: &Request<B>, response: &Response<Body>, peer: SocketAddr, start: Instant) {
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let coding = header(http::header::CONTENT_ENCODING).unwrap_or("identity");
    let length = header(http::header::CONTENT_LENGTH).unwrap_or("0");
    // The path is printed with Rust's escaping, so no input can forge a line.
    eprintln!(
        "{peer} {} {:?} {:?} {} {length} {coding} {}us",
        request.method(),
        request.uri().path(),
        request.version(),
        response.status().as_u16(),
        start.elapsed().as_micros()
    );
}

/// The requests a connection has open, and when it last had none.
pub struct Activity {
    /// When the connection was accepted.
    accepted: Instant,
    /// Requests begun and not yet ended.
    open: AtomicU32,
    /// Nanoseconds from `accepted` to the end of the last request; 0 before
    /// the first.
    last_end: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Activity {
            accepted: Instant::now(),
            open: AtomicU32::new(0),
            last_end: AtomicU64::new(0),
        }
    }

    /// Whether a request was ever begun.
    fn has_served(&self) -> bool {
        self.open.load(Ordering::Acquire) > 0 || self.last_end.load(Ordering::Acquire) > 0
    }

    /// Since when no request has been open; `None` while one is.
    fn idle_since(&self) -> Option<Instant> {
        if self.open.load(Ordering::Acquire) > 0 {
            return None;
        }
        let nanos = self.last_end.load(Ordering::Acquire);
        Some(self.accepted + Duration::from_nanos(nanos))
    }
}

/// A request open on a connection, from its head to the drop of its body.
struct Open(Arc<Activity>);

impl Open {
    fn begin(activity: &Arc<Activity>) -> Open {
        activity.open.fetch_add(1, Ordering::AcqRel);
        Open(Arc::clone(activity))
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        let nanos = u64::try_from(self.0.accepted.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.0.last_end.store(nanos.max(1), Ordering::Release);
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that ends its request when hyper is done with it.
pub struct Tracked {
    body: Body,
    _open: Open,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
