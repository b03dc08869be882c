//! The memory budget: the bytes clients can make refserve hold beyond its
//! table, counted so that no client can make it hold more than it says.
//!
//! Everything the table serves costs nothing here: its bodies are the
//! binary's. What a request does allocate is `/mcp`'s: the request body,
//! read into one buffer, and the answer, held until the connection has
//! sent it (behind HTTP/2 flow control, that may be a while); and
//! `/search`'s answer, held the same way. Each is a [`Reservation`]
//! against one [`Budget`] (`--memory-budget`), taken before the bytes are
//! held (an answer once written, without a pause between) and given back
//! when they are freed; when a reservation would pass the budget it is
//! refused, and the request is answered `503` with `Retry-After` from a
//! static body.
//!
//! **Uploads cannot lock answers out.** A body still arriving holds what
//! has arrived, not what its head announces: its reservation starts empty
//! ([`Budget::upload`]) and grows before its buffer does
//! ([`Reservation::grow_to`]), never past its own body's announced
//! length. Uploads together hold at most half the budget
//! ([`UPLOAD_SHARE`]), so however many bodies are arriving, or stalled
//! part-way, the other half is there for answers: `/search` and calls
//! whose body has arrived go on being answered.
//!
//! The other bounded holdings are fixed, not counted here: the access
//! log's buffer (`access_log::BUFFER_BYTES`) and each
//! connection's request head (`--max-header-bytes`, times
//! `--max-connections`). The README's "Hostile input" adds them up.

use bytes::Bytes;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The share of the budget request bodies still arriving may hold
/// together: one half (the other is kept for answers).
const UPLOAD_SHARE: usize = 2;

/// The bytes held for requests, against a limit.
#[derive(Debug, Default)]
pub struct Budget {
    limit: usize,
    held: AtomicUsize,
    /// Of `held`, what uploads hold.
    uploads: AtomicUsize,
    /// Reservations refused since the start.
    refused: AtomicU64,
}

impl Budget {
    /// A budget of `limit` bytes, nothing held.
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Budget {
            limit,
            ..Budget::default()
        })
    }

    /// Hold `bytes` more, or `None` (counted) when that would pass the limit.
    pub(crate) fn reserve(self: &Arc<Self>, bytes: usize) -> Option<Reservation> {
        let mut reservation = Reservation {
            budget: Arc::clone(self),
            bytes: 0,
            upload: false,
        };
        reservation.grow_to(bytes).then_some(reservation)
    }

    /// Nothing held yet, for a request body about to arrive: the
    /// reservation grows with it, within the uploads' share.
    pub(crate) fn upload(self: &Arc<Self>) -> Reservation {
        Reservation {
            budget: Arc::clone(self),
            bytes: 0,
            upload: true,
        }
    }

    /// Add `bytes` to `counter` unless that passes `limit`.
    fn take(counter: &AtomicUsize, bytes: usize, limit: usize) -> bool {
        counter
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|&after| after <= limit)
            })
            .is_ok()
    }

    /// The limit, in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes held now.
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// How many reservations were refused since the start.
    pub(crate) fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}

/// Bytes held against a [`Budget`] until this is dropped.
#[derive(Debug)]
pub(crate) struct Reservation {
    budget: Arc<Budget>,
    bytes: usize,
    /// Whether it holds a request body, in the uploads' share.
    upload: bool,
}

impl Reservation {
    /// Hold `bytes` in all, when the budget (and for an upload, the
    /// uploads' share) has room; whether it had (refusals are counted).
    pub(crate) fn grow_to(&mut self, bytes: usize) -> bool {
        let Some(more) = bytes.checked_sub(self.bytes).filter(|&more| more > 0) else {
            return true;
        };
        let budget = &self.budget;
        let in_share =
            !self.upload || Budget::take(&budget.uploads, more, budget.limit / UPLOAD_SHARE);
        if in_share && Budget::take(&budget.held, more, budget.limit) {
            self.bytes = bytes;
            return true;
        }
        if in_share {
            budget.uploads.fetch_sub(more, Ordering::AcqRel);
        }
        budget.refused.fetch_add(1, Ordering::Relaxed);
        false
    }

    /// Give back what `used` does not need (a body shorter than reserved).
    fn shrink_to(&mut self, used: usize) {
        if used < self.bytes {
            self.give_back(self.bytes - used);
            self.bytes = used;
        }
    }

    fn give_back(&self, bytes: usize) {
        self.budget.held.fetch_sub(bytes, Ordering::AcqRel);
        if self.upload {
            self.budget.uploads.fetch_sub(bytes, Ordering::AcqRel);
        }
    }

    /// `body` as [`Bytes`] that keep this reservation until the last
    /// handle to them is dropped: when the connection has sent them, or
    /// given up on their stream.
    pub(crate) fn hold(mut self, body: Vec<u8>) -> Bytes {
        self.shrink_to(body.capacity());
        Bytes::from_owner(Held {
            body,
            _reservation: self,
        })
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.give_back(self.bytes);
    }
}

/// A body and the reservation that pays for it.
struct Held {
    body: Vec<u8>,
    _reservation: Reservation,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reservation_is_refused_past_the_limit_and_given_back_when_dropped() {
        let budget = Budget::new(100);
        let first = budget.reserve(60).expect("within the limit");
        assert!(budget.reserve(41).is_none());
        assert_eq!(budget.refused(), 1);
        let second = budget.reserve(40).expect("exactly the limit");
        assert_eq!(budget.held(), 100);
        drop(first);
        assert_eq!(budget.held(), 40);
        drop(second);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn held_bytes_keep_their_reservation_until_the_last_handle_goes() {
        let budget = Budget::new(1024);
        let reservation = budget.reserve(1024).expect("within the limit");
        let mut body = Vec::with_capacity(10);
        body.extend_from_slice(b"0123456789");
        let bytes = reservation.hold(body);
        assert_eq!(budget.held(), 10, "shrunk to the body");
        let clone = bytes.slice(2..4);
        drop(bytes);
        assert_eq!(budget.held(), 10);
        assert_eq!(&clone[..], b"23");
        drop(clone);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn uploads_hold_half_the_budget_and_answers_the_whole() {
        let budget = Budget::new(100);
        let mut first = budget.upload();
        assert_eq!(budget.held(), 0, "nothing before a byte arrives");
        assert!(first.grow_to(30));
        let mut second = budget.upload();
        assert!(!second.grow_to(21), "past the uploads' half");
        assert!(second.grow_to(20));
        assert_eq!(budget.held(), 50);
        let answer = budget.reserve(50).expect("the other half is for answers");
        assert!(!first.grow_to(31), "the budget is full");
        assert_eq!(budget.held(), 100, "a refused growth holds nothing more");
        drop(second);
        assert!(first.grow_to(50), "room in the share again");
        drop((first, answer));
        assert_eq!(budget.held(), 0);
        assert_eq!(budget.uploads.load(Ordering::Acquire), 0);
    }

    #[test]
    fn shrinking_never_grows() {
        let budget = Budget::new(100);
        let mut reservation = budget.reserve(50).expect("within the limit");
        reservation.shrink_to(80);
        assert_eq!(budget.held(), 50);
        reservation.shrink_to(20);
        assert_eq!(budget.held(), 20);
    }
}
