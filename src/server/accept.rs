//! The one accept loop, which every listener of refserve runs — the site's,
//! the metrics listener's and `refserve dev`'s: connections come from one
//! or more listening sockets, at most a cap of them at a time, each served
//! on a task of its own by what the caller gives.
//!
//! - Each connection accepted takes a slot before it is served: a free one,
//!   or at the cap the slot of the connection idle the longest (silent
//!   since its accept, or between requests), once it has closed
//!   (`slots.rs`). The loop accepts no other meanwhile, so excess clients
//!   wait in the kernel's listen backlog and no listener runs out of
//!   descriptors. A client that opens connections only to hold them,
//!   however fast, only ever pushes out another such connection (see
//!   `Connections::settling`).
//! - A failed accept (out of descriptors, a connection reset before it was
//!   accepted) is logged and tried again after a pause, never spun on.
//! - Shutdown: once the loop's trigger completes, the listeners are closed
//!   (an inherited socket stays open in its supervisor, for the next
//!   process); `Connections::drain` then tells every connection, and
//!   returns once the last has closed or its bound has passed. A listener
//!   that never drains (the metrics listener, `refserve dev`) gives a
//!   trigger that never completes.
//!
//! What differs between listeners is the caller's: the cap, the
//! [`Activity`] each connection starts with (counted in the metrics or
//! not), and how a connection is served (TLS or not, which protocols,
//! which handler).

use crate::activity::Activity;
use crate::slots::Slots;
use futures_util::FutureExt as _;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// How long the loop pauses after a failed accept.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// A connection accepted, handed to the caller to serve.
pub struct Accepted {
    /// The socket, with `TCP_NODELAY` set: responses are written whole.
    pub stream: TcpStream,
    /// The client's address.
    pub peer: SocketAddr,
    /// What the connection is doing, as its watchdog and the slots read it.
    pub activity: Arc<Activity>,
    /// Turns true when the drain begins.
    pub drain: watch::Receiver<bool>,
}

/// The connections of one server: their slots and their drain.
pub struct Connections {
    /// Who accepts, for the log: `refserve`, `refserve dev`…
    name: &'static str,
    slots: Arc<Slots>,
    drain: watch::Sender<bool>,
    /// Whether the loop yields after each accept ([`Connections::settling`]).
    settles: bool,
}

impl Connections {
    /// At most `cap` connections at once; `name` signs the log lines.
    pub fn new(name: &'static str, cap: usize) -> Self {
        Connections {
            name,
            slots: Slots::new(cap),
            drain: watch::channel(false).0,
            settles: false,
        }
    }

    /// After each accept, let the new connection read a request already
    /// sent before the loop accepts again, which may push it out as silent:
    /// for a listener whose slots are few and clients may reopen silent
    /// connections as fast as they are closed (the metrics listener). The
    /// site's loop does not wait: with its many slots a newcomer is far
    /// from being the one silent the longest.
    pub(crate) fn settling(mut self) -> Self {
        self.settles = true;
        self
    }

    /// Accept connections from `listeners` until `shutdown` completes, then
    /// close the listeners. Each connection starts with an activity from
    /// `activity`, takes a slot and is served on a task of its own by the
    /// future `serve` makes of it; its slot is free once that completes.
    pub async fn accept<F>(
        &self,
        listeners: Vec<TcpListener>,
        activity: impl Fn() -> Arc<Activity>,
        serve: impl Fn(Accepted) -> F,
        shutdown: impl Future<Output = ()>,
    ) where
        F: Future<Output = ()> + Send + 'static,
    {
        tokio::pin!(shutdown);
        for turn in 0.. {
            let accepted = tokio::select! {
                accepted = accept(&listeners, turn) => accepted,
                () = &mut shutdown => break,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    eprintln!("{}: accept failed: {error}", self.name);
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                    continue;
                }
            };
            let activity = activity();
            let slot = tokio::select! {
                slot = self.slots.take(&activity) => slot,
                () = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let served = serve(Accepted {
                stream,
                peer,
                activity,
                drain: self.drain.subscribe(),
            });
            // Boxed: held in the task itself, the connection's future gave
            // tokio's poll of the task, entered on every wake, a stack frame
            // of 9 KiB; boxed, 128 bytes (`benches/README.md`, "The stack").
            // Mapped, not awaited in an `async` block: the block would hold
            // the future twice, captured and awaited (7.2 KB a connection
            // where it is 3.4).
            tokio::spawn(Box::pin(served).map(move |()| drop(slot)));
            // Tokio defers a yielding task until it has polled for I/O.
            if self.settles {
                tokio::task::yield_now().await;
            }
        }
    }

    /// Tell every connection the drain has begun, and complete once the
    /// last has closed, or after `bound`, leaving whatever is still open.
    pub(crate) async fn drain(&self, bound: Duration) {
        self.drain.send_replace(true);
        // Every connection holds a slot until it has closed.
        if tokio::time::timeout(bound, self.slots.all_free())
            .await
            .is_err()
        {
            eprintln!(
                "{}: shutdown bound of {bound:?} reached; closing remaining connections",
                self.name
            );
        }
    }
}

/// Wait for a connection on any listener, asking them in turn from `turn`
/// on.
async fn accept(
    listeners: &[TcpListener],
    turn: usize,
) -> std::io::Result<(TcpStream, SocketAddr)> {
    std::future::poll_fn(|cx| {
        let first = turn % listeners.len().max(1);
        for listener in listeners.iter().cycle().skip(first).take(listeners.len()) {
            if let Poll::Ready(accepted) = listener.poll_accept(cx) {
                return Poll::Ready(accepted);
            }
        }
        Poll::Pending
    })
    .await
}
