//! The memory budget: the bytes clients can make refserve hold beyond its
//! table, counted so that no client can make it hold more than it says.
//!
//! Everything the table serves costs nothing here: its bodies are the
//! binary's. What a request does allocate is `/mcp`'s: the request body,
//! read into one buffer, and the answer, held until the connection has
//! sent it (behind HTTP/2 flow control, that may be a while); and
//! `/search`'s answer, held the same way. Each is a [`Reservation`]
//! against one [`Budget`] (`--memory-budget`), taken before the bytes are
//! held (a body before it is allocated; an answer once written, without a
//! pause between) and given back when they are freed; when a reservation
//! would pass the budget it is refused, and the request is answered `503`
//! with `Retry-After` from a static body.
//!
//! The other bounded holdings are fixed, not counted here: the access
//! log's buffer (`access_log::BUFFER_BYTES`) and each
//! connection's request head (`--max-header-bytes`, times
//! `--max-connections`). The README's "Hostile input" adds them up.

use bytes::Bytes;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The bytes held for requests, against a limit.
#[derive(Debug)]
pub struct Budget {
    limit: usize,
    held: AtomicUsize,
    /// Reservations refused since the start.
    refused: AtomicU64,
}

impl Budget {
    /// A budget of `limit` bytes, nothing held.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Budget {
            limit,
            held: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
        })
    }

    /// Hold `bytes` more, or `None` (counted) when that would pass the limit.
    pub fn reserve(self: &Arc<Self>, bytes: usize) -> Option<Reservation> {
        let taken = self
            .held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|&after| after <= self.limit)
            });
        match taken {
            Ok(_) => Some(Reservation {
                budget: Arc::clone(self),
                bytes,
            }),
            Err(_) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes held now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// How many reservations were refused since the start.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}

/// Bytes held against a [`Budget`] until this is dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Reservation {
    /// Give back what `used` does not need (a body shorter than reserved).
    pub fn shrink_to(&mut self, used: usize) {
        if used < self.bytes {
            self.budget
                .held
                .fetch_sub(self.bytes - used, Ordering::AcqRel);
            self.bytes = used;
        }
    }

    /// `body` as [`Bytes`] that keep this reservation until the last
    /// handle to them is dropped: when the connection has sent them, or
    /// given up on their stream.
    pub fn hold(mut self, body: Vec<u8>) -> Bytes {
        self.shrink_to(body.capacity());
        Bytes::from_owner(Held {
            body,
            _reservation: self,
        })
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.held.fetch_sub(self.bytes, Ordering::AcqRel);
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
    fn shrinking_never_grows() {
        let budget = Budget::new(100);
        let mut reservation = budget.reserve(50).expect("within the limit");
        reservation.shrink_to(80);
        assert_eq!(budget.held(), 50);
        reservation.shrink_to(20);
        assert_eq!(budget.held(), 20);
    }
}
