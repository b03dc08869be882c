//! The connection slots: at most `--max-connections` connections are served
//! at once, and a new one is never kept out by connections that are doing
//! nothing.
//!
//! - A connection holds a [`Slot`] from its accept to its close; further
//!   clients wait in the kernel's listen backlog, so the server never runs
//!   out of descriptors (one accepted connection at most waits for a slot).
//! - **Room at the cap.** When every slot is taken, the connection silent
//!   the longest since its accept (no complete request yet), or else the
//!   one idle the longest between requests (no request open, no response
//!   on the wire), is asked to close ([`Activity::evict`]), and the new
//!   connection takes its slot once it has (nginx drains its reusable
//!   connections alike). Silent clients, however fast they reconnect, only
//!   ever push out one another while there are any, not a keep-alive client
//!   about to send its next request. One that is answering is never
//!   chosen; a request that arrives while it closes is answered first.
//!   When every connection is busy, the newcomer waits for the first slot
//!   to come free, looking again for an idle connection every
//!   [`LOOK_AGAIN`].
//! - There is no limit per client address: behind a CDN, a few addresses
//!   carry every reader's connections, and a per-address cap would turn
//!   readers away exactly where traffic is heaviest. A client that opens
//!   connections only to hold them is closed by the clocks of
//!   `watchdog.rs`, and meanwhile its connections are the idle ones that
//!   newcomers push out.

use crate::activity::Activity;
use slab::Slab;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// With every slot taken and no connection idle, how often to look again.
const LOOK_AGAIN: Duration = Duration::from_millis(50);

/// How long a newcomer waits for the connection it evicted to close before
/// choosing another: past the longest an evicted connection may take
/// (`watchdog::CLOSE_GRACE`).
const EVICTION_WAIT: Duration = Duration::from_secs(1);

/// The slots of one server.
pub(crate) struct Slots {
    permits: Arc<Semaphore>,
    count: u32,
    /// What each held slot's connection is doing, for choosing the one to
    /// evict; `None` where its connection was evicted.
    held: Mutex<Slab<Option<Arc<Activity>>>>,
}

/// A connection's slot, given back when dropped.
pub(crate) struct Slot {
    slots: Arc<Slots>,
    index: usize,
    _permit: OwnedSemaphorePermit,
}

impl Slots {
    /// `count` slots, all free.
    pub(crate) fn new(count: usize) -> Arc<Slots> {
        let count = u32::try_from(count).expect("the cap's range fits in u32");
        Arc::new(Slots {
            permits: Arc::new(Semaphore::new(count as usize)),
            count,
            held: Mutex::new(Slab::new()),
        })
    }

    /// A slot for the connection `activity` describes: at once while one is
    /// free, else the slot of the connection idle the longest, once it has
    /// closed.
    pub(crate) async fn take(self: &Arc<Self>, activity: &Arc<Activity>) -> Slot {
        loop {
            if let Ok(permit) = Arc::clone(&self.permits).try_acquire_owned() {
                return self.register(permit, activity);
            }
            let wait = if self.evict_longest_idle() {
                EVICTION_WAIT
            } else {
                LOOK_AGAIN
            };
            let permit = Arc::clone(&self.permits).acquire_owned();
            if let Ok(Ok(permit)) = tokio::time::timeout(wait, permit).await {
                return self.register(permit, activity);
            }
        }
    }

    /// Completes once every slot is free (every connection has closed).
    pub(crate) async fn all_free(&self) {
        let _ = self.permits.acquire_many(self.count).await;
    }

    fn register(self: &Arc<Self>, permit: OwnedSemaphorePermit, activity: &Arc<Activity>) -> Slot {
        let index = self.lock().insert(Some(Arc::clone(activity)));
        Slot {
            slots: Arc::clone(self),
            index,
            _permit: permit,
        }
    }

    /// Ask the connection silent the longest, or else idle the longest, to
    /// close; whether there was one.
    fn evict_longest_idle(&self) -> bool {
        let mut held = self.lock();
        let longest = held
            .iter()
            .filter_map(|(index, entry)| {
                let activity = entry.as_ref()?;
                let since: Instant = activity.idle_since()?;
                Some((activity.has_served(), since, index))
            })
            .min();
        let Some((_, _, index)) = longest else {
            return false;
        };
        // Out of the choice from now on; the slot stays taken until the
        // connection has closed.
        if let Some(activity) = held[index].take() {
            activity.evict();
        }
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slab<Option<Arc<Activity>>>> {
        // A panic elsewhere cannot leave the list half-changed: every
        // change is one assignment or push.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.lock().try_remove(self.index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::Open;

    /// Three slots, each taken by a connection, in the order accepted.
    async fn three_taken() -> (Arc<Slots>, Vec<Arc<Activity>>, Vec<Slot>) {
        let slots = Slots::new(3);
        let activities: Vec<_> = (0..3)
            .map(|_| Arc::new(Activity::new(None, false)))
            .collect();
        let mut taken = Vec::new();
        for activity in &activities {
            taken.push(slots.take(activity).await);
        }
        (slots, activities, taken)
    }

    #[tokio::test]
    async fn a_free_slot_is_taken_at_once_and_given_back() {
        let slots = Slots::new(1);
        let first = Arc::new(Activity::new(None, false));
        let slot = slots.take(&first).await;
        assert_eq!(slots.permits.available_permits(), 0);
        drop(slot);
        assert_eq!(slots.permits.available_permits(), 1);
        assert!(slots.lock().is_empty());
    }

    #[tokio::test]
    async fn the_longest_idle_is_evicted_and_a_busy_one_never() {
        let (slots, activities, _taken) = three_taken().await;
        // The first is answering; the second has been idle longer than the
        // third (accepted before it).
        let _open = Open::begin(&activities[0]);
        assert!(slots.evict_longest_idle());
        let evicted = tokio::time::timeout(Duration::from_millis(100), activities[1].evicted());
        assert!(evicted.await.is_ok(), "the second was asked to close");
        assert!(slots.evict_longest_idle());
        let evicted = tokio::time::timeout(Duration::from_millis(100), activities[2].evicted());
        assert!(evicted.await.is_ok(), "then the third");
        assert!(!slots.evict_longest_idle(), "the busy one is left alone");
    }

    #[tokio::test]
    async fn silent_connections_go_before_one_idle_between_requests() {
        let (slots, activities, _taken) = three_taken().await;
        // The first has been idle the longest, but after a request: a
        // keep-alive client. The two after it have sent nothing.
        drop(Open::begin(&activities[0]));
        for expected in [1, 2, 0] {
            assert!(slots.evict_longest_idle());
            let evicted = activities[expected].evicted();
            let evicted = tokio::time::timeout(Duration::from_millis(100), evicted);
            assert!(evicted.await.is_ok(), "connection {expected} is next");
        }
        assert!(!slots.evict_longest_idle(), "none is left to ask");
    }

    #[tokio::test]
    async fn a_newcomer_at_the_cap_gets_the_evicted_slot() {
        let slots = Slots::new(1);
        let idle = Arc::new(Activity::new(None, false));
        let slot = slots.take(&idle).await;
        let newcomer = Arc::new(Activity::new(None, false));
        let taking = tokio::spawn({
            let slots = Arc::clone(&slots);
            async move {
                let _slot = slots.take(&newcomer).await;
            }
        });
        // The idle connection is asked to close, and closes.
        let asked = tokio::time::timeout(Duration::from_secs(5), idle.evicted()).await;
        assert!(asked.is_ok(), "the idle connection was asked to close");
        drop(slot);
        let taken = tokio::time::timeout(Duration::from_secs(5), taking).await;
        assert!(
            matches!(taken, Ok(Ok(()))),
            "the newcomer got the evicted slot"
        );
    }
}
