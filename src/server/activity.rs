//! What a connection is doing, as its watchdog reads it: the requests it
//! has open, when it last had none, and whether its responses are moving.
//!
//! - A request is **open** from its head (HTTP/1.1) or HEADERS frame
//!   (HTTP/2) until its response body has been handed to the connection
//!   ([`Open`], carried by the [`Tracked`] body).
//! - A request whose body is still arriving (`/mcp`'s) is open but
//!   **receiving** (`Open::receiving`): it keeps the connection from
//!   being idle, yet it is not sending, so the send timeout does not run
//!   while a client uploads; its own clock is the body timeout, kept by
//!   whoever reads the body. It sends once `Open::received` is called.
//! - A connection is **sending** while a request that is not receiving is
//!   open, or a write has found the socket full (`Activity::blocked`). **Progress** is a byte of
//!   a response taken by the connection: for HTTP/1.1 any byte written, for
//!   HTTP/2 a byte of a HEADERS, CONTINUATION or DATA frame (a PING or a
//!   SETTINGS frame moves no response). `watched.rs` reports both.
//! - A connection **stalls** when it has been sending without progress for
//!   the send timeout: a client that will not read (the socket full) or will
//!   not grant flow-control window (HTTP/2, a stream or the connection held
//!   at zero). A slow reader makes progress with every byte it takes, so it
//!   is never stalled, however long its response takes.
//! - An HTTP/2 stream whose response has begun on the wire (its HEADERS
//!   written) and not ended (no END_STREAM or RST_STREAM yet) is
//!   **responding** (`watched.rs` reads both from the frames): hyper hands a
//!   body to its stream whole as soon as the stream has any window, and the
//!   request ends there, yet the bytes wait behind the client's window. A
//!   responding stream keeps the connection sending, so a window held shut
//!   is a stall like a full socket, and keeps it from being idle.
//! - A connection may be **evicted** (`Activity::evict`): asked to close
//!   between requests so that a new connection gets its slot
//!   (`slots.rs`); its watchdog closes it.
//!
//! Its times are read from the coarse monotonic clock (`coarse_nanos`):
//! the kernel's last tick, a few milliseconds behind at most, which costs a
//! fraction of `Instant::now` and is read twice a request on HTTP/1.1 (when it
//! begins and when it ends; the write that follows finds nothing sending); the
//! timeouts it serves are counted in seconds.
//!
//! Every field is an atomic: HTTP/2 runs each stream's body on a task of
//! its own, so the watchdog, the connection and the streams may be on
//! different threads.

use crate::metrics::Metrics;
use crate::respond::Body;
use bytes::Bytes;
use http_body::Frame;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The requests a connection has open, and the progress of its responses.
pub struct Activity {
    /// When the connection was accepted; every other time is counted from it.
    accepted: Instant,
    /// The same moment on the coarse clock.
    accepted_coarse: u64,
    /// Requests begun and not yet ended.
    open: AtomicU32,
    /// Of those, the ones whose body is still arriving.
    receiving: AtomicU32,
    /// HTTP/2 streams whose response is on the wire and not ended.
    responding: AtomicU32,
    /// Nanoseconds from `accepted` to the end of the last request; 0 before
    /// the first.
    last_end: AtomicU64,
    /// Whether the last write found the socket full (no progress since).
    blocked: AtomicBool,
    /// Nanoseconds from `accepted` to the last progress, or to the moment
    /// the connection began sending after it had nothing to send.
    moving_since: AtomicU64,
    /// Whether the socket is to be reset, not closed (see `watched.rs`).
    reset: AtomicBool,
    /// Whether the socket is closed without lingering: nothing was being
    /// answered, so no answer can be lost to a reset.
    quiet: AtomicBool,
    /// Rung when the connection is to give up its slot.
    evicted: Notify,
    /// The counters requests and responses are recorded in, when they are.
    metrics: Option<Arc<Metrics>>,
    /// Whether a request's duration is read (by the metrics or the log).
    timed: bool,
}

impl Activity {
    /// A connection accepted now; its requests are `timed` when their
    /// durations are read (the metrics, the access log).
    pub fn new(metrics: Option<Arc<Metrics>>, timed: bool) -> Self {
        Activity {
            accepted: Instant::now(),
            accepted_coarse: coarse_nanos(),
            open: AtomicU32::new(0),
            receiving: AtomicU32::new(0),
            responding: AtomicU32::new(0),
            last_end: AtomicU64::new(0),
            blocked: AtomicBool::new(false),
            moving_since: AtomicU64::new(0),
            reset: AtomicBool::new(false),
            quiet: AtomicBool::new(false),
            evicted: Notify::new(),
            metrics,
            timed,
        }
    }

    /// Reset the connection when it closes, dropping what it has not sent.
    pub(crate) fn reset_on_close(&self) {
        self.reset.store(true, Ordering::Release);
    }

    /// Ask the connection to close, to give its slot to another.
    pub(crate) fn evict(&self) {
        // A permit is kept when nobody waits yet: the watchdog's next wait
        // completes at once.
        self.evicted.notify_one();
    }

    /// Completes once [`Activity::evict`] was called.
    pub(crate) async fn evicted(&self) {
        self.evicted.notified().await;
    }

    /// Whether [`Activity::reset_on_close`] was asked for.
    pub(crate) fn resets_on_close(&self) -> bool {
        self.reset.load(Ordering::Acquire)
    }

    /// Close the socket at once when the connection closes, without the
    /// staged close: it is closed idle (`watched.rs`).
    pub(crate) fn close_quietly(&self) {
        self.quiet.store(true, Ordering::Release);
    }

    /// Whether [`Activity::close_quietly`] was asked for.
    pub(crate) fn closes_quietly(&self) -> bool {
        self.quiet.load(Ordering::Acquire)
    }

    /// When the connection was accepted.
    pub(crate) fn accepted(&self) -> Instant {
        self.accepted
    }

    /// Whether a request was ever begun.
    pub(crate) fn has_served(&self) -> bool {
        self.open.load(Ordering::Acquire) > 0 || self.last_end.load(Ordering::Acquire) > 0
    }

    /// Since when no request has been open nor any response on the wire;
    /// `None` while one is.
    pub(crate) fn idle_since(&self) -> Option<Instant> {
        if self.open.load(Ordering::Acquire) > 0 || self.responding.load(Ordering::Acquire) > 0 {
            return None;
        }
        let nanos = self.last_end.load(Ordering::Acquire);
        Some(self.accepted + Duration::from_nanos(nanos))
    }

    /// Since when the connection has been sending without progress; `None`
    /// while it has nothing to send.
    pub(crate) fn stalled_since(&self) -> Option<Instant> {
        self.is_sending().then(|| {
            self.accepted + Duration::from_nanos(self.moving_since.load(Ordering::Acquire))
        })
    }

    /// The socket took bytes: it is not full, and when any of them were a
    /// response's (`response`), that is progress. With nothing left to
    /// send (the request ended as its body was handed over, before the
    /// write), the clock is not read: whatever starts sending again starts it.
    pub(crate) fn wrote(&self, response: bool) {
        self.blocked.store(false, Ordering::Release);
        if response && self.is_sending() {
            self.mark_moving();
        }
    }

    /// A write found the socket full.
    pub(crate) fn blocked(&self) {
        self.start_sending();
        self.blocked.store(true, Ordering::Release);
    }

    /// An HTTP/2 response began on the wire: the connection is sending
    /// until it ends ([`Activity::response_ended`]).
    pub(crate) fn response_began(&self) {
        self.start_sending();
        self.responding.fetch_add(1, Ordering::AcqRel);
    }

    /// An HTTP/2 response that had begun on the wire ended (END_STREAM, or a
    /// reset either way); when it was the last thing open, the connection
    /// is idle from now.
    pub(crate) fn response_ended(&self) {
        let before = self.responding.fetch_sub(1, Ordering::AcqRel);
        if before == 1 && self.open.load(Ordering::Acquire) == 0 {
            self.mark_ended();
        }
    }

    fn is_sending(&self) -> bool {
        let receiving = self.receiving.load(Ordering::Acquire);
        self.open.load(Ordering::Acquire) > receiving
            || self.responding.load(Ordering::Acquire) > 0
            || self.blocked.load(Ordering::Acquire)
    }

    /// Record now as the end of the last request or response.
    fn mark_ended(&self) {
        let nanos = self.nanos_since_accepted();
        self.last_end.store(nanos.max(1), Ordering::Release);
    }

    /// Start the stall clock now, unless the connection was sending already.
    fn start_sending(&self) {
        if !self.is_sending() {
            self.mark_moving();
        }
    }

    /// Start the stall clock again now.
    fn mark_moving(&self) {
        self.moving_since
            .store(self.nanos_since_accepted(), Ordering::Release);
    }

    /// Nanoseconds since the connection was accepted, on the coarse clock.
    fn nanos_since_accepted(&self) -> u64 {
        coarse_nanos().saturating_sub(self.accepted_coarse)
    }
}

/// How far a time read from the coarse clock may be from `Instant`'s: one
/// tick of that clock, each way.
#[cfg(test)]
pub(crate) fn coarse_tick() -> Duration {
    Duration::from_nanos(nanos(rustix::time::clock_getres(
        rustix::time::ClockId::MonotonicCoarse,
    )))
}

/// Now on `CLOCK_MONOTONIC_COARSE`, in nanoseconds: the time of the
/// kernel's last tick, read without the TSC.
fn coarse_nanos() -> u64 {
    nanos(rustix::time::clock_gettime(
        rustix::time::ClockId::MonotonicCoarse,
    ))
}

/// `time` in nanoseconds.
fn nanos(time: rustix::time::Timespec) -> u64 {
    let (seconds, nanos) = (time.tv_sec.unsigned_abs(), time.tv_nsec.unsigned_abs());
    seconds.saturating_mul(1_000_000_000).saturating_add(nanos)
}

/// A request open on a connection, from its head to the drop of its body.
pub struct Open {
    activity: Arc<Activity>,
    /// When the request began, to time its response; read only when
    /// someone reads the time.
    began: Option<Instant>,
    /// Whether its body is still arriving.
    receiving: bool,
}

impl Open {
    /// Count a request open on `activity`.
    pub fn begin(activity: &Arc<Activity>) -> Open {
        let began = activity.timed.then(Instant::now);
        // The stall clock runs from the first request after a pause.
        activity.start_sending();
        activity.open.fetch_add(1, Ordering::AcqRel);
        Open {
            activity: Arc::clone(activity),
            began,
            receiving: false,
        }
    }

    /// Count a request open on `activity` whose body is still arriving:
    /// not sending until [`Open::received`].
    pub(crate) fn receiving(activity: &Arc<Activity>) -> Open {
        activity.receiving.fetch_add(1, Ordering::AcqRel);
        activity.open.fetch_add(1, Ordering::AcqRel);
        Open {
            activity: Arc::clone(activity),
            began: activity.timed.then(Instant::now),
            receiving: true,
        }
    }

    /// The body has arrived (or will not be read): the request is sending
    /// from now on, and the stall clock runs from now if nothing else was
    /// sending.
    pub(crate) fn received(&mut self) {
        if std::mem::take(&mut self.receiving) {
            self.activity.start_sending();
            self.activity.receiving.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// When the request began, if its connection times its requests.
    pub(crate) fn began(&self) -> Option<Instant> {
        self.began
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        if self.receiving {
            self.activity.receiving.fetch_sub(1, Ordering::AcqRel);
        }
        let activity = &self.activity;
        activity.mark_ended();
        activity.open.fetch_sub(1, Ordering::AcqRel);
        if let (Some(metrics), Some(began)) = (&activity.metrics, self.began) {
            metrics.request_ended(began.elapsed());
        }
    }
}

/// A response body that ends its request when hyper is done with it.
pub struct Tracked<B = Body> {
    body: B,
    _open: Open,
}

impl<B> Tracked<B> {
    /// `body`, ending `open` when dropped.
    pub fn new(body: B, open: Open) -> Self {
        Tracked { body, _open: open }
    }
}

impl<B: http_body::Body<Data = Bytes, Error = Infallible> + Unpin> http_body::Body for Tracked<B> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_to_send_is_no_stall() {
        let activity = Arc::new(Activity::new(None, false));
        assert_eq!(activity.stalled_since(), None);
        activity.wrote(true);
        assert_eq!(activity.stalled_since(), None);
    }

    #[test]
    fn an_open_request_is_sending_until_it_ends() {
        let activity = Arc::new(Activity::new(None, false));
        let open = Open::begin(&activity);
        let since = activity.stalled_since().expect("sending");
        assert!(activity.idle_since().is_none());
        drop(open);
        assert_eq!(activity.stalled_since(), None);
        assert!(activity.idle_since().is_some_and(|idle| idle >= since));
    }

    #[test]
    fn a_body_arriving_is_no_stall_but_keeps_the_connection_busy() {
        let activity = Arc::new(Activity::new(None, false));
        let mut open = Open::receiving(&activity);
        assert_eq!(activity.stalled_since(), None, "an upload is not sending");
        assert!(activity.idle_since().is_none(), "nor idle");
        let before = Instant::now();
        open.received();
        let since = activity.stalled_since().expect("sending its answer");
        assert!(since + coarse_tick() >= before, "the clock starts now");
        open.received();
        drop(open);
        assert_eq!(activity.stalled_since(), None);
        assert!(activity.idle_since().is_some());
    }

    #[test]
    fn a_body_never_received_ends_cleanly() {
        let activity = Arc::new(Activity::new(None, false));
        let sending = Open::begin(&activity);
        let receiving = Open::receiving(&activity);
        assert!(
            activity.stalled_since().is_some(),
            "the other request sends"
        );
        drop(receiving);
        drop(sending);
        assert_eq!(activity.stalled_since(), None);
        assert_eq!(activity.receiving.load(Ordering::Acquire), 0);
    }

    #[test]
    fn a_full_socket_is_sending_until_a_byte_goes() {
        let activity = Activity::new(None, false);
        activity.blocked();
        let since = activity.stalled_since().expect("blocked");
        // Blocked again: the clock keeps running from the first block.
        activity.blocked();
        assert_eq!(activity.stalled_since(), Some(since));
        // Bytes that are no response's (an HTTP/2 PING) empty the socket too.
        activity.wrote(false);
        assert_eq!(activity.stalled_since(), None);
    }

    #[test]
    fn progress_restarts_the_clock_of_an_open_request() {
        let activity = Arc::new(Activity::new(None, false));
        let _open = Open::begin(&activity);
        let first = activity.stalled_since().expect("sending");
        let before = Instant::now();
        activity.wrote(true);
        let second = activity.stalled_since().expect("still sending");
        assert!(first <= before + coarse_tick() && second + coarse_tick() >= before);
    }
}
