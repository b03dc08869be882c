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
//! - **No connection is held by a client that will not read.** The stream
//!   hyper writes to is [`Watched`]: the watchdog drops a connection that
//!   has been sending without progress for `--send-timeout` (the socket
//!   full, or HTTP/2 flow control held at zero, a response handed over
//!   still waiting for window among it; see [`crate::activity`]).
//! - **HTTP/2 streams are bounded in total.** A request on a stream opened
//!   while more than `--max-streams-total` are held across the server is
//!   refused with RST_STREAM (REFUSED_STREAM), which a client may retry
//!   (`streams.rs`).
//! - **Room at the cap.** A connection idle the longest is asked to close
//!   when a new one needs its slot (`slots.rs`): between requests it closes
//!   at once, before its first request (or TLS handshake) too.
//! - **Drain.** Once the server drains, every HTTP/1.1 response carries
//!   `Connection: close`, so a client learns of the close from the response
//!   instead of finding the connection gone under its next request. An
//!   HTTP/1.1 connection with no request open is closed once it has been idle
//!   for [`DRAIN_IDLE_GRACE`]: at once when it was idle already, otherwise
//!   after it had the chance to send the request it was about to (answered,
//!   and closed). HTTP/2 gets GOAWAY at once and finishes its open streams.
//!
//! The clocks are kept by the connection's watchdog (`watchdog.rs`).
//! Each connection ends with a [`Close`] reason, and each request is
//! counted in [`Metrics`] and written to the [`AccessLog`] when they are on.

use crate::accept::Accepted;
use crate::access_log::{AccessLog, Entry};
use crate::activity::{Activity, Tracked};
use crate::client_class::{ClientClass, Read, Remembered};
use crate::config::Config;
use crate::handler::{Answer, Answered, Handler};
use crate::mcp::{Origins, Policy};
use crate::metrics::{Close, Metrics};
use crate::streams::Streams;
use crate::table::Tables;
use crate::tls;
use crate::watchdog::{drained, supervise, CLOSE_GRACE, DRAIN_IDLE_GRACE};
use crate::watched::{Framing, Socket, Watched};
use futures_util::future::Either;
use http::header::{HeaderValue, CONNECTION, STRICT_TRANSPORT_SECURITY, USER_AGENT};
use http::uri::PathAndQuery;
use http::{Method, Request, Response, Version};
use http_body::Body as _;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::cell::RefCell;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

/// What every connection of a server shares.
pub(crate) struct Shared {
    http1: http1::Builder,
    auto: auto::Builder<TokioExecutor>,
    /// The clocks each connection is held to, among the rest.
    config: Config,
    access_log: Option<AccessLog>,
    metrics: Option<Arc<Metrics>>,
    /// What answers the requests.
    handler: Handler,
    /// Set when the drain begins; read by every response.
    draining: AtomicBool,
    /// The HTTP/2 streams held across the server.
    streams: Arc<Streams>,
}

impl Shared {
    /// The builders and limits of `config`, answering from `tables`;
    /// requests are counted in `metrics` when it is given.
    pub(crate) fn new(config: &Config, tables: Tables, metrics: Option<Arc<Metrics>>) -> Self {
        let mcp = Policy::new(config, Origins::new(&config.mcp_allow_origins));
        if let Some(metrics) = &metrics {
            metrics.watch_budget(Arc::clone(&mcp.budget));
        }
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
            config: config.clone(),
            access_log: config
                .access_log
                .map(|format| AccessLog::start(format, metrics.clone())),
            metrics,
            handler: Handler { tables, mcp },
            draining: AtomicBool::new(false),
            streams: Streams::new(config.max_streams_total),
        }
    }

    /// What a connection accepted now will be doing, as its watchdog and
    /// the slots read it.
    pub(crate) fn activity(&self) -> Arc<Activity> {
        Arc::new(Activity::new(self.metrics.clone(), self.observes()))
    }

    /// Whether requests are recorded: counted in the metrics or logged.
    fn observes(&self) -> bool {
        self.metrics.is_some() || self.access_log.is_some()
    }

    /// Mark the drain as begun: responses from now on close their connection.
    pub(crate) fn begin_drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
        if let Some(metrics) = &self.metrics {
            metrics.drain_began();
        }
    }

    /// Write out the access-log lines queued so far (blocks: for the end
    /// of the drain).
    pub(crate) fn flush_access_log(&self) {
        if let Some(log) = &self.access_log {
            log.flush();
        }
    }
}

/// Serve a connection accepted with an activity from [`Shared::activity`]
/// until it closes, is closed by a timeout or an eviction, or the drain
/// closes it. With `tls`, the connection is HTTPS: the handshake comes
/// first, within the same `--header-read-timeout` as the first request
/// head, and ALPN picks the protocol. Returns why it closed.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    accepted: Accepted,
    tls: Option<TlsAcceptor>,
) -> Close {
    let Accepted {
        stream,
        peer,
        activity,
        mut drain,
    } = accepted;
    let mut first = [0u8; 1];
    match before_drain(stream.peek(&mut first), &shared, &activity, &mut drain).await {
        Ok(Ok(1..)) => {}
        Ok(Ok(_)) => return Close::Client,
        Ok(Err(_)) => return Close::Error,
        Err(close) => return close,
    }
    let Some(acceptor) = tls else {
        let framing = if first[0] == b'P' {
            Framing::FromPreface
        } else {
            Framing::Http1
        };
        return serve_protocol(stream, framing, shared, activity, peer, drain, false).await;
    };
    // Boxed: the handshake, the TLS stream and the buffer that turns
    // cleartext away would make every connection's task kilobytes larger,
    // cleartext ones included.
    Box::pin(serve_https(
        stream, first[0], acceptor, shared, activity, peer, drain,
    ))
    .await
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
) -> Close {
    if !tls::opens_handshake(first) {
        turn_away(stream).await;
        return Close::TlsHandshake;
    }
    let handshake = acceptor.accept(stream);
    let stream = match before_drain(handshake, &shared, &activity, &mut drain).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(_)) => return Close::TlsHandshake,
        Err(close) => return close,
    };
    let framing = match stream.get_ref().1.alpn_protocol() {
        Some(b"h2") => Framing::Http2,
        _ => Framing::Http1,
    };
    serve_protocol(stream, framing, shared, activity, peer, drain, true).await
}

/// `step` (the peek, the TLS handshake) if it completes within the header
/// read timeout since the connection was accepted, or within
/// [`DRAIN_IDLE_GRACE`] of that once the drain has begun: a connection
/// silent so far is closed like any idle one, yet a client that has just
/// connected still gets its answer. A connection evicted meanwhile closes.
async fn before_drain<F: std::future::Future>(
    step: F,
    shared: &Shared,
    activity: &Activity,
    drain: &mut watch::Receiver<bool>,
) -> Result<F::Output, Close> {
    let deadline = activity.accepted() + shared.config.header_read_timeout;
    let step = tokio::time::timeout_at(deadline.into(), step);
    tokio::pin!(step);
    tokio::select! {
        done = &mut step => done.map_err(|_| Close::HeaderTimeout),
        () = activity.evicted() => Err(Close::Evicted),
        () = drained(drain) => {
            let left = DRAIN_IDLE_GRACE.saturating_sub(activity.accepted().elapsed());
            match tokio::time::timeout(left, step).await {
                Ok(done) => done.map_err(|_| Close::HeaderTimeout),
                Err(_) => Err(Close::Drain),
            }
        }
    }
}

/// Serve `stream`, [`Watched`], with hyper's HTTP/1 builder when it speaks
/// HTTP/1.1 (`framing`), or else with the auto builder (HTTP/2, or
/// HTTP/1.1 after all).
async fn serve_protocol<S>(
    stream: S,
    framing: Framing,
    shared: Arc<Shared>,
    activity: Arc<Activity>,
    peer: SocketAddr,
    drain: watch::Receiver<bool>,
    secure: bool,
) -> Close
where
    S: Socket + tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let stream =
        Watched::new(stream, Arc::clone(&activity), framing).counting(Arc::clone(&shared.streams));
    let service = {
        let (shared, activity) = (Arc::clone(&shared), Arc::clone(&activity));
        // Formatted once per connection, and only for the log.
        let peer = match shared.access_log {
            Some(_) => peer.to_string(),
            None => String::new(),
        };
        let remembered = RefCell::new(Remembered::default());
        service_fn(move |request: Request<Incoming>| {
            let asked = Asked::of(&request, &shared, &remembered);
            if asked.version == Version::HTTP_2 && shared.streams.over() {
                // hyper resets the stream with the error's reason.
                let refused = h2::Error::from(h2::Reason::REFUSED_STREAM);
                return Either::Left(std::future::ready(Err(refused)));
            }
            match shared.handler.answer(request, &activity) {
                Answer::Now(answered) => Either::Left(std::future::ready(deliver(
                    &shared, answered, &asked, &peer, secure,
                ))),
                // `answering` is boxed already: this future is smaller
                // than the common answer's.
                Answer::Later(answering) => {
                    let (shared, peer) = (Arc::clone(&shared), peer.clone());
                    Either::Right(async move {
                        deliver(&shared, answering.await, &asked, &peer, secure)
                    })
                }
            }
        })
    };
    match framing {
        Framing::Http1 => {
            let connection = shared.http1.serve_connection(TokioIo::new(stream), service);
            supervise(connection, &shared.config, &activity, drain, framing).await
        }
        Framing::Http2 | Framing::FromPreface => {
            let connection = shared.auto.serve_connection(TokioIo::new(stream), service);
            // Boxed: the auto builder's connection is large and rare.
            Box::pin(supervise(
                connection,
                &shared.config,
                &activity,
                drain,
                framing,
            ))
            .await
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

/// What the last steps read of a request, taken before the handler owns
/// it, so that the answer need not carry the request's head (a larger
/// answer costs every request data-cache lines: `benches/README.md`, "The
/// stack").
struct Asked {
    version: Version,
    /// For the metrics and the access log; `None` when both are off.
    method: Option<Method>,
    /// For the access log; `None` when it is off.
    target: Option<PathAndQuery>,
    /// For the metrics and the access log: the client's class, by its
    /// `User-Agent`; `None` when both are off.
    class: Option<ClientClass>,
}

impl Asked {
    #[inline(always)]
    fn of<B>(request: &Request<B>, shared: &Shared, remembered: &RefCell<Remembered>) -> Self {
        Asked {
            version: request.version(),
            method: shared.observes().then(|| request.method().clone()),
            target: shared
                .access_log
                .as_ref()
                .and_then(|_| request.uri().path_and_query().cloned()),
            class: shared.observes().then(|| {
                let agent = request.headers().get(USER_AGENT);
                remembered
                    .borrow_mut()
                    .class(agent.map(HeaderValue::as_bytes))
            }),
        }
    }
}

/// The last steps of every answer: HSTS over HTTPS, `Connection: close` in
/// a drain, the request counted and logged, and the body tracked until it
/// has been handed over.
#[inline(always)]
fn deliver(
    shared: &Shared,
    answered: Answered,
    asked: &Asked,
    peer: &str,
    secure: bool,
) -> Result<Response<Tracked>, h2::Error> {
    let Answered {
        mut response,
        coding,
        read,
        open,
    } = answered;
    if secure {
        response
            .headers_mut()
            .insert(STRICT_TRANSPORT_SECURITY, tls::HSTS);
    }
    if shared.draining.load(Ordering::Relaxed) && asked.version < Version::HTTP_2 {
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    if let Some(method) = &asked.method {
        let bytes = response.body().size_hint().exact().unwrap_or(0);
        // Whoever speaks MCP is an MCP client, whatever its header.
        let class = match read {
            Read::Mcp => ClientClass::McpClient,
            _ => asked.class.unwrap_or_default(),
        };
        if let Some(metrics) = &shared.metrics {
            let status = response.status();
            metrics.request(asked.version, method, status, coding, bytes, (class, read));
        }
        if let Some(log) = &shared.access_log {
            log.record(&Entry {
                peer,
                method,
                path: asked.target.as_ref().map_or("", PathAndQuery::path),
                version: asked.version,
                status: response.status().as_u16(),
                bytes,
                coding: coding.token(),
                class: class.label(),
                duration: open
                    .began()
                    .map(|began| began.elapsed())
                    .unwrap_or_default(),
            });
        }
    }
    Ok(response.map(|body| Tracked::new(body, open)))
}
