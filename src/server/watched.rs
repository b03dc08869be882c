//! The connection's stream as hyper sees it, reporting every write to the
//! connection's [`Activity`]: a write the socket refuses (`Pending`) means
//! the socket is full; one it takes may be progress.
//!
//! On HTTP/2 not every byte is a response's: the server also writes
//! SETTINGS, PING, WINDOW_UPDATE and GOAWAY frames, which a client that
//! grants no flow-control window still reads. The frame headers of what
//! is written and read are followed (`streams.rs`): only HEADERS,
//! CONTINUATION and DATA frames written count as progress, and the streams
//! they open and end are counted, on the connection and, given
//! `Streams`, across the server. Whether a cleartext connection speaks
//! HTTP/2 is known from its first two bytes read: the preface (`PRI *
//! HTTP/2.0…`, §3.4), not a request line (`POST`, `PUT`…).
//!
//! With TLS the wrapper sits above the TLS stream, so it sees the
//! plaintext frames; a full socket reaches it once rustls' buffer is full.
//!
//! **The staged close** (RFC 9112 §9.6): closing a socket with unread
//! bytes in it resets the connection, and a reset can destroy the answer
//! before the client reads it: a 413 or 408 given while a body is still
//! arriving, hyper's close after an unread body. So when hyper shuts the
//! stream down, the wrapper closes the writing half and then reads and
//! drops what the client still sends, until it closes its half, for at
//! most `LINGER_TIME` and `LINGER_BYTES` (nginx's `lingering_close`),
//! into a buffer on the stack. A connection its watchdog closes while idle
//! (between requests, or silent) has no answer to protect and closes at
//! once, as nginx closes its idle keep-alive connections: its slot is free
//! for another at once.
//!
//! A connection closed for making no progress is reset (`SO_LINGER` 0),
//! as nginx's `reset_timedout_connection` does: its unsent bytes are
//! dropped at once instead of lingering in the kernel behind a window the
//! client keeps shut, and the client learns of the close at once.

use crate::activity::Activity;
use crate::streams::{self, Frames, Streams};
use std::future::Future;
use std::io::IoSlice;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// The longest a closing connection reads what its client still sends.
const LINGER_TIME: Duration = Duration::from_secs(2);
/// The most a closing connection reads and drops before it closes anyway:
/// enough for a client that writes a whole 2 MB body before it reads.
const LINGER_BYTES: usize = 4 * 1024 * 1024;

/// What the connection speaks, as far as progress is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// HTTP/1.1: every byte written is a response's.
    Http1,
    /// HTTP/2: only response frames count.
    Http2,
    /// Told by the client's first two bytes (a cleartext connection whose
    /// first byte is `P`): `PR` opens the HTTP/2 preface.
    FromPreface,
}

/// A stream over a TCP socket: the socket itself, or TLS over it.
pub trait Socket {
    /// The TCP socket underneath.
    fn socket(&self) -> &TcpStream;
}

impl Socket for TcpStream {
    fn socket(&self) -> &TcpStream {
        self
    }
}

impl Socket for tokio_rustls::server::TlsStream<TcpStream> {
    fn socket(&self) -> &TcpStream {
        self.get_ref().0
    }
}

/// A stream whose writes report to an [`Activity`].
pub struct Watched<S: Socket> {
    inner: S,
    progress: Progress,
    /// Set once the writing half is closed: the staged close under way.
    linger: Option<Linger>,
}

/// What is left of a staged close.
struct Linger {
    deadline: Pin<Box<Sleep>>,
    left: usize,
}

impl<S: Socket> Watched<S> {
    /// Watch `inner`'s writes for `activity`.
    pub fn new(inner: S, activity: Arc<Activity>, framing: Framing) -> Self {
        Watched {
            inner,
            progress: Progress::new(activity, framing),
            linger: None,
        }
    }

    /// Count the HTTP/2 streams held on this connection in `streams`.
    pub(crate) fn counting(mut self, streams: Arc<Streams>) -> Self {
        self.progress.open = Some(streams::Open::new(streams));
        self
    }
}

impl<S: Socket> Drop for Watched<S> {
    fn drop(&mut self) {
        if self.progress.activity.resets_on_close() {
            // Nothing more to do if it fails: the close still closes.
            let _ = self.inner.socket().set_zero_linger();
        }
    }
}

/// What the writes and reads of one connection tell its [`Activity`].
struct Progress {
    activity: Arc<Activity>,
    framing: Framing,
    /// What is written and read, on HTTP/2.
    output: Frames,
    input: Frames,
    /// The streams held, when they are counted.
    open: Option<streams::Open>,
    /// The first two bytes read, while the framing is told by them.
    first: Vec<u8>,
}

impl Progress {
    fn new(activity: Arc<Activity>, framing: Framing) -> Self {
        Progress {
            activity,
            framing,
            output: Frames::default(),
            input: Frames::input(),
            open: None,
            first: Vec::new(),
        }
    }

    /// Note the bytes a read brought: while they tell the framing, and on
    /// HTTP/2 the streams they open and reset.
    #[inline(never)]
    fn read(&mut self, read: &[u8]) {
        if self.framing == Framing::FromPreface {
            let wanted = 2 - self.first.len();
            self.first
                .extend_from_slice(&read[..wanted.min(read.len())]);
            if self.first.len() == 2 {
                self.framing = if self.first == b"PR" {
                    Framing::Http2
                } else {
                    Framing::Http1
                };
            }
        }
        if self.framing == Framing::Http1 {
            return;
        }
        // Still `FromPreface`: what was read is the preface's start,
        // which the input's frames pass over.
        let Progress {
            input,
            open,
            activity,
            ..
        } = self;
        input.read(read, |frame| {
            if let Some(open) = open {
                open.received(frame, activity);
            }
        });
    }

    /// Report a write of `bufs` of which the socket took `written` bytes.
    fn wrote(&mut self, bufs: &[IoSlice<'_>], written: usize) {
        let response = match self.framing {
            Framing::Http2 => {
                let Progress {
                    output,
                    open,
                    activity,
                    ..
                } = self;
                let mut left = written;
                let mut response = false;
                for buf in bufs {
                    let taken = left.min(buf.len());
                    let bytes = output.read(&buf[..taken], |frame| {
                        if let Some(open) = open.as_mut() {
                            open.sent(frame, activity);
                        }
                    });
                    response |= bytes > 0;
                    left -= taken;
                }
                response
            }
            Framing::Http1 | Framing::FromPreface => written > 0,
        };
        self.activity.wrote(response);
    }

    /// Report the outcome of a write.
    fn report(&mut self, outcome: &Poll<std::io::Result<usize>>, bufs: &[IoSlice<'_>]) {
        match outcome {
            Poll::Pending => self.activity.blocked(),
            Poll::Ready(Ok(written)) if *written > 0 => self.wrote(bufs, *written),
            Poll::Ready(_) => {}
        }
    }
}

impl<S: Socket + AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let outcome = Pin::new(&mut this.inner).poll_read(cx, buf);
        // HTTP/1.1 reads tell nothing: the common case pays one comparison.
        if this.progress.framing != Framing::Http1 {
            this.progress.read(&buf.filled()[before..]);
        }
        outcome
    }
}

impl<S: Socket + AsyncRead + AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.progress.report(&outcome, &[IoSlice::new(buf)]);
        outcome
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.progress.report(&outcome, bufs);
        outcome
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.inner).poll_flush(cx);
        if outcome.is_pending() {
            // TLS: the records rustls holds do not fit in the socket.
            this.progress.activity.blocked();
        }
        outcome
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let linger = match &mut this.linger {
            Some(linger) => linger,
            None => {
                ready!(Pin::new(&mut this.inner).poll_shutdown(cx))?;
                let activity = &this.progress.activity;
                if activity.resets_on_close() || activity.closes_quietly() {
                    // A connection that stalled is reset, not lingered over;
                    // one closed idle has no answer a reset could destroy.
                    return Poll::Ready(Ok(()));
                }
                this.linger.insert(Linger {
                    deadline: Box::pin(tokio::time::sleep(LINGER_TIME)),
                    left: LINGER_BYTES,
                })
            }
        };
        // Read and drop what the client sends until it closes its half, or
        // the linger's time or bytes run out.
        let mut sink = [0u8; 8192];
        while linger.left > 0 {
            if linger.deadline.as_mut().poll(cx).is_ready() {
                break;
            }
            let mut buf = ReadBuf::new(&mut sink);
            match ready!(Pin::new(&mut this.inner).poll_read(cx, &mut buf)) {
                Ok(()) if !buf.filled().is_empty() => {
                    linger.left = linger.left.saturating_sub(buf.filled().len());
                }
                // Closed, or failed: nothing more to wait for.
                _ => break,
            }
        }
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of `kind` with `len` payload bytes, on stream 1.
    fn frame(kind: u8, len: usize) -> Vec<u8> {
        crate::streams::tests::frame(kind, 0, 1, len)
    }

    #[test]
    fn a_ping_alone_is_no_progress_but_empties_the_socket() {
        let activity = Arc::new(Activity::new(None, false));
        let _open = crate::activity::Open::begin(&activity);
        let mut watched = Progress::new(Arc::clone(&activity), Framing::Http2);
        let since = activity.stalled_since().expect("a request is open");
        let ping = frame(0x6, 8);
        watched.report(&Poll::Ready(Ok(ping.len())), &[IoSlice::new(&ping)]);
        assert_eq!(activity.stalled_since(), Some(since));
        // The watchdog's clock moves a tick at a time: let two pass.
        let tick = crate::activity::coarse_tick();
        while since.elapsed() < 2 * tick {
            std::hint::spin_loop();
        }
        let data = frame(0x0, 8);
        watched.report(&Poll::Ready(Ok(data.len())), &[IoSlice::new(&data)]);
        let restarted = activity.stalled_since().expect("still open");
        assert!(restarted > since, "a DATA frame restarts the clock");
    }

    #[test]
    fn the_preface_tells_http2_from_a_request_line() {
        let activity = Arc::new(Activity::new(None, false));
        for (read, framing) in [
            (&[&b"PRI * HTTP/2.0"[..]][..], Framing::Http2),
            (&[b"P", b"RI"], Framing::Http2),
            (&[b"POST / HTTP/1.1"], Framing::Http1),
            (&[b"P", b"", b"UT"], Framing::Http1),
            (&[b"P"], Framing::FromPreface),
        ] {
            let mut progress = Progress::new(Arc::clone(&activity), Framing::FromPreface);
            for bytes in read {
                progress.read(bytes);
            }
            assert_eq!(progress.framing, framing, "{read:?}");
        }
    }

    #[test]
    fn a_response_behind_a_shut_window_keeps_sending_after_its_request_ended() {
        let activity = Arc::new(Activity::new(None, false));
        let streams = Streams::new(10);
        let mut progress = Progress::new(Arc::clone(&activity), Framing::FromPreface);
        progress.open = Some(crate::streams::Open::new(Arc::clone(&streams)));
        let request = [
            &b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"[..],
            &crate::streams::tests::frame(0x1, 0x5, 1, 12),
        ]
        .concat();
        progress.read(&request[..1]);
        progress.read(&request[1..]);
        assert_eq!(streams.held(), 1, "the client's HEADERS open a stream");
        let open = crate::activity::Open::begin(&activity);
        // hyper hands the whole body over: the request ends, the HEADERS
        // and one byte of DATA go out, the rest waits for window.
        drop(open);
        let head = crate::streams::tests::frame(0x1, 0x4, 1, 30);
        let data = crate::streams::tests::frame(0x0, 0, 1, 1);
        for bytes in [&head, &data] {
            progress.report(&Poll::Ready(Ok(bytes.len())), &[IoSlice::new(bytes)]);
        }
        assert!(activity.stalled_since().is_some(), "still sending");
        assert!(activity.idle_since().is_none(), "not idle");
        let last = crate::streams::tests::frame(0x0, 0x1, 1, 0);
        progress.report(&Poll::Ready(Ok(last.len())), &[IoSlice::new(&last)]);
        assert!(activity.stalled_since().is_none());
        assert_eq!(streams.held(), 0);
    }

    #[test]
    fn a_vectored_write_counts_only_what_was_taken() {
        let activity = Arc::new(Activity::new(None, false));
        let mut watched = Progress::new(activity, Framing::Http2);
        let (settings, data) = (frame(0x4, 6), frame(0x0, 10));
        // The socket took the SETTINGS frame and nothing of the DATA frame.
        let bufs = [IoSlice::new(&settings), IoSlice::new(&data)];
        watched.report(&Poll::Ready(Ok(settings.len())), &bufs);
        assert_eq!(watched.output.read(&data, |_| {}), 19);
    }
}
