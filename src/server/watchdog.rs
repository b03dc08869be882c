//! The clocks a connection is held to, and the watchdog that keeps them:
//! it closes a connection that has had no request open for too long, drops
//! one whose client will not read, and closes it in a drain (see
//! `connection.rs` for what each clock means to a client).
//!
//! The watchdog runs on the connection's own task, beside the connection,
//! but it is polled only when one of its own wakers fired (a deadline, the
//! drain): a request wakes the connection's task several times, and a
//! `select!` would poll every clock on each of those wakes, re-reading
//! time and re-registering wakers for deadlines seconds away. `Gated`
//! gives the watchdog a waker of its own instead, so a request costs it
//! one atomic swap.

use crate::activity::Activity;
use crate::config::Config;
use crate::metrics::Close;
use crate::watched::Framing;
use futures_util::future::Either;
use futures_util::task::AtomicWaker;
use hyper_util::server::graceful::GracefulConnection;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// How long a connection asked to close (idle, stalled) may take to do so.
pub(crate) const CLOSE_GRACE: Duration = Duration::from_millis(500);

/// In a drain, how long an HTTP/1.1 connection must have been idle to be
/// closed: a busy keep-alive client sends its next request well within it.
pub(crate) const DRAIN_IDLE_GRACE: Duration = Duration::from_millis(250);

/// Run `connection` to its end under the watchdog, which holds it to the
/// clocks of `config` (`--header-read-timeout`, `--idle-timeout`,
/// `--send-timeout`) and closes it in a drain; returns why it ended. `framing`
/// tells which builder serves it: in a drain, the watchdog closes a
/// connection of hyper's HTTP/1 builder ([`Framing::Http1`]) once it is
/// idle, and tells one of hyper-util's auto builder (HTTP/2, or HTTP/1.1
/// that starts with `P`) to go away at once.
pub async fn supervise<C: GracefulConnection>(
    connection: C,
    config: &Config,
    activity: &Activity,
    mut drain: watch::Receiver<bool>,
    framing: Framing,
) -> Close {
    tokio::pin!(connection);
    let draining = AtomicBool::new(false);
    let watchdog = watch(config, activity, &mut drain, framing, &draining);
    tokio::pin!(watchdog);
    let close = match Gated::new(connection.as_mut(), watchdog).await {
        // The drain's `Connection: close` ended it.
        Either::Left(Ok(())) if draining.load(Ordering::Relaxed) => return Close::Drain,
        Either::Left(Ok(())) => return Close::Client,
        Either::Left(Err(_)) => return Close::Error,
        // The client will not read: dropped now, not asked to close.
        Either::Right(Close::SendTimeout) => return Close::SendTimeout,
        Either::Right(close) => close,
    };
    connection.as_mut().graceful_shutdown();
    if activity.idle_since().is_some() {
        activity.close_quietly();
        let _ = tokio::time::timeout(CLOSE_GRACE, connection).await;
    } else {
        // HTTP/2 in a drain: its open streams finish, within the server's
        // shutdown bound, unless they stall.
        tokio::select! {
            _ = connection => {}
            () = stalled(activity, config.send_timeout) => return Close::SendTimeout,
        }
    }
    close
}

/// The watchdog: completes with the reason the connection is to close
/// ([`Close::SendTimeout`]: it is to be dropped at once). `draining` turns
/// true once it has seen the drain begin.
///
/// The limit that applies is read again each time the watchdog wakes, not
/// kept from before it slept: a connection whose first request arrived
/// while it slept on the header-read limit is held to the idle limit from
/// the end of that request (on the coarse clock the end may even read as
/// the moment of the accept).
async fn watch(
    config: &Config,
    activity: &Activity,
    drain: &mut watch::Receiver<bool>,
    framing: Framing,
    draining: &AtomicBool,
) -> Close {
    loop {
        let (limit, reason) = if draining.load(Ordering::Relaxed) {
            (DRAIN_IDLE_GRACE, Close::Drain)
        } else if activity.has_served() {
            (config.idle_timeout, Close::Idle)
        } else {
            (config.header_read_timeout, Close::HeaderTimeout)
        };
        let idle_since = activity.idle_since();
        if idle_since.is_some_and(|since| since.elapsed() >= limit) {
            return reason;
        }
        // With a request open, look again in `limit`: it cannot end sooner.
        // Before the first request, look again within the idle timeout too,
        // which applies as soon as one has been served and may be shorter.
        let now = Instant::now();
        let deadline = idle_since
            .map_or(now + limit, |since| since + limit)
            .min(now + config.idle_timeout);
        tokio::select! {
            () = tokio::time::sleep_until(deadline.into()) => {}
            // A client that will not read gets no grace to close.
            () = stalled(activity, config.send_timeout) => return Close::SendTimeout,
            () = drained(drain), if !draining.load(Ordering::Relaxed) => {
                draining.store(true, Ordering::Relaxed);
                if framing != Framing::Http1 {
                    return Close::Drain;
                }
            }
            // Another connection takes the slot (`slots.rs`); a request that
            // came in meanwhile is answered before the close.
            () = activity.evicted() => return Close::Evicted,
        }
    }
}

/// Completes once the connection has been sending without progress for
/// `timeout` (see [`Activity::stalled_since`]), and marks it to be reset.
async fn stalled(activity: &Activity, timeout: Duration) {
    loop {
        let deadline = activity
            .stalled_since()
            .map_or(Instant::now() + timeout, |since| since + timeout);
        tokio::time::sleep_until(deadline.into()).await;
        if activity
            .stalled_since()
            .is_some_and(|since| since.elapsed() >= timeout)
        {
            activity.reset_on_close();
            return;
        }
    }
}

/// Completes once the drain has begun (at once if it has).
pub(crate) async fn drained(drain: &mut watch::Receiver<bool>) {
    // An error means the server is gone: as good as drained.
    let _ = drain.wait_for(|draining| *draining).await;
}

/// The connection and its watchdog, run together: the connection is polled
/// on every wake of the task, the watchdog only after a waker it was given
/// fired (and on the first poll). Completes with the output of the first
/// to finish: the connection's on the left, the watchdog's on the right.
struct Gated<'a, C, W> {
    connection: Pin<&'a mut C>,
    watchdog: Pin<&'a mut W>,
    alarm: Arc<Alarm>,
    /// The watchdog's waker: rings `alarm`.
    waker: Waker,
}

/// Whether the watchdog is to be polled, and the task to wake when it is.
struct Alarm {
    rang: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Alarm {
    fn wake(self: Arc<Self>) {
        self.rang.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<'a, C: Future, W: Future> Gated<'a, C, W> {
    fn new(connection: Pin<&'a mut C>, watchdog: Pin<&'a mut W>) -> Self {
        let alarm = Arc::new(Alarm {
            rang: AtomicBool::new(true),
            task: AtomicWaker::new(),
        });
        let waker = Waker::from(Arc::clone(&alarm));
        Gated {
            connection,
            watchdog,
            alarm,
            waker,
        }
    }
}

impl<C: Future, W: Future> Future for Gated<'_, C, W> {
    type Output = Either<C::Output, W::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        // Registered before the alarm is read: one that rings from here on
        // wakes this task again.
        this.alarm.task.register(cx.waker());
        if this.alarm.rang.swap(false, Ordering::AcqRel) {
            let mut watchdog_cx = Context::from_waker(&this.waker);
            if let Poll::Ready(verdict) = this.watchdog.as_mut().poll(&mut watchdog_cx) {
                return Poll::Ready(Either::Right(verdict));
            }
        }
        this.connection.as_mut().poll(cx).map(Either::Left)
    }
}

#[cfg(test)]
mod tests {
    use super::{Either, Gated};
    use std::cell::RefCell;
    use std::future::{poll_fn, Future};
    use std::pin::pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Waker};

    #[test]
    fn the_watchdog_is_polled_first_and_then_only_when_woken() {
        let polls = AtomicUsize::new(0);
        let woken_by: RefCell<Option<Waker>> = RefCell::new(None);
        let mut connection = pin!(std::future::pending::<()>());
        let mut watchdog = pin!(poll_fn(|cx: &mut Context| {
            let count = polls.fetch_add(1, Ordering::Relaxed) + 1;
            *woken_by.borrow_mut() = Some(cx.waker().clone());
            if count == 2 {
                Poll::Ready("closed")
            } else {
                Poll::Pending
            }
        }));
        let mut gated = pin!(Gated::new(connection.as_mut(), watchdog.as_mut()));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(gated.as_mut().poll(&mut cx).is_pending());
        assert!(gated.as_mut().poll(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::Relaxed), 1, "not woken: not polled");
        woken_by.take().expect("the watchdog kept its waker").wake();
        assert!(matches!(
            gated.as_mut().poll(&mut cx),
            Poll::Ready(Either::Right("closed"))
        ));
    }

    #[test]
    fn the_connection_ending_ends_it() {
        let mut connection = pin!(std::future::ready(7));
        let mut watchdog = pin!(std::future::pending::<()>());
        let mut gated = pin!(Gated::new(connection.as_mut(), watchdog.as_mut()));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(matches!(
            gated.as_mut().poll(&mut cx),
            Poll::Ready(Either::Left(7))
        ));
    }
}
