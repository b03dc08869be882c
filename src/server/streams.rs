//! HTTP/2 streams as the wire shows them: the frame headers going each way
//! ([`Frames`]), the streams open on one connection ([`Open`]) and how many
//! are held across the server ([`Streams`]).
//!
//! A stream costs refserve its state (hyper's and h2's, some 2.4 KiB) from
//! the client's HEADERS frame until the response has ended on the wire,
//! which behind a window the client keeps shut may be long after hyper
//! handed the body over and the request ended. So the count is kept from
//! the frames themselves (RFC 9113 §4.1, §5.1): a stream is held from the
//! client's HEADERS that opens it until the server writes its END_STREAM,
//! or either side writes RST_STREAM; its response is on the wire from the
//! server's first HEADERS without END_STREAM. Only the 9-byte frame
//! headers are read; payloads are skipped by their length.
//!
//! [`Streams`] bounds the total (`--max-streams-total`): a stream opened
//! past it is refused (RST_STREAM with REFUSED_STREAM, which tells the
//! client the request was not processed and may be sent again, RFC 9113
//! §8.7), so no number of connections holds more than the bound, however
//! long their clients keep windows shut. The per-connection bound is h2's
//! own (`--max-streams`).

use crate::activity::Activity;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The client connection preface (RFC 9113 §3.4), before its first frame.
const PREFACE_LEN: usize = 24;

/// Frame types (RFC 9113 §6).
const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const CONTINUATION: u8 = 0x9;
/// The END_STREAM flag of DATA and HEADERS.
const END_STREAM: u8 = 0x1;

/// The streams held across a server, against a bound.
#[derive(Debug)]
pub(crate) struct Streams {
    held: AtomicUsize,
    limit: usize,
}

impl Streams {
    /// At most `limit` streams held.
    pub(crate) fn new(limit: usize) -> Arc<Streams> {
        Arc::new(Streams {
            held: AtomicUsize::new(0),
            limit,
        })
    }

    /// Whether more streams are held than the bound allows: the newest is
    /// to be refused (it is counted already, from its HEADERS frame).
    pub(crate) fn over(&self) -> bool {
        self.held.load(Ordering::Relaxed) > self.limit
    }

    /// The streams held now.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }
}

/// One frame header, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FrameHead {
    /// The frame's type.
    pub kind: u8,
    /// Its flags.
    pub flags: u8,
    /// Its stream identifier (0: the connection).
    pub stream: u32,
}

/// The frame headers of one direction of an HTTP/2 connection, read as its
/// bytes pass: by default what the server writes, frames from the first
/// byte.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    /// Bytes of the client's preface still to pass before the first frame.
    preface_left: usize,
    /// The header being read, and how much of it has been.
    header: [u8; 9],
    header_len: usize,
    /// Payload bytes of the current frame still to come.
    payload_left: usize,
    /// Whether the current frame is a response's (HEADERS, CONTINUATION,
    /// DATA).
    response: bool,
}

impl Frames {
    /// What the client sends: its preface, then frames.
    pub(crate) fn input() -> Frames {
        Frames {
            preface_left: PREFACE_LEN,
            ..Frames::default()
        }
    }

    /// Read `bytes`, the next of this direction, calling `head` with each
    /// frame header completed; returns how many of them belong to HEADERS,
    /// CONTINUATION or DATA frames (their headers included).
    pub(crate) fn read(&mut self, mut bytes: &[u8], mut head: impl FnMut(FrameHead)) -> usize {
        let skipped = self.preface_left.min(bytes.len());
        self.preface_left -= skipped;
        bytes = &bytes[skipped..];
        let mut count = 0;
        while !bytes.is_empty() {
            if self.payload_left == 0 {
                let taken = (9 - self.header_len).min(bytes.len());
                self.header[self.header_len..self.header_len + taken]
                    .copy_from_slice(&bytes[..taken]);
                self.header_len += taken;
                bytes = &bytes[taken..];
                if self.header_len < 9 {
                    continue;
                }
                let [a, b, c, kind, flags, s0, s1, s2, s3] = self.header;
                self.header_len = 0;
                self.payload_left = usize::from(a) << 16 | usize::from(b) << 8 | usize::from(c);
                self.response = matches!(kind, DATA | HEADERS | CONTINUATION);
                if self.response {
                    count += 9;
                }
                // The reserved bit is not part of the identifier.
                let stream = u32::from_be_bytes([s0, s1, s2, s3]) & 0x7fff_ffff;
                head(FrameHead {
                    kind,
                    flags,
                    stream,
                });
                continue;
            }
            let taken = self.payload_left.min(bytes.len());
            self.payload_left -= taken;
            bytes = &bytes[taken..];
            if self.response {
                count += taken;
            }
        }
        count
    }
}

/// The streams held on one connection, counted in its server's
/// [`Streams`] and, while their responses are on the wire, in its
/// [`Activity`]; given back when the connection goes.
pub(crate) struct Open {
    streams: Arc<Streams>,
    /// Each stream held, and whether its response is on the wire.
    held: Vec<(u32, bool)>,
    /// The highest stream the client opened: a HEADERS frame on a stream
    /// up to it is a trailer, not a new stream.
    last_opened: u32,
}

impl Open {
    /// No stream held yet, counted in `streams`.
    pub(crate) fn new(streams: Arc<Streams>) -> Open {
        Open {
            streams,
            held: Vec::new(),
            last_opened: 0,
        }
    }

    /// A frame the client sent.
    pub(crate) fn received(&mut self, frame: FrameHead, activity: &Activity) {
        match frame.kind {
            HEADERS if frame.stream > self.last_opened => {
                self.last_opened = frame.stream;
                self.held.push((frame.stream, false));
                self.streams.held.fetch_add(1, Ordering::Relaxed);
            }
            RST_STREAM => self.end(frame.stream, activity),
            _ => {}
        }
    }

    /// A frame the server wrote.
    pub(crate) fn sent(&mut self, frame: FrameHead, activity: &Activity) {
        let ends = match frame.kind {
            HEADERS | DATA => frame.flags & END_STREAM != 0,
            RST_STREAM => true,
            _ => return,
        };
        if ends {
            self.end(frame.stream, activity);
        } else if frame.kind == HEADERS {
            let held = self.held.iter_mut().find(|(id, _)| *id == frame.stream);
            if let Some((_, responding)) = held {
                if !std::mem::replace(responding, true) {
                    activity.response_began();
                }
            }
        }
    }

    fn end(&mut self, stream: u32, activity: &Activity) {
        let Some(index) = self.held.iter().position(|(id, _)| *id == stream) else {
            return;
        };
        let (_, responding) = self.held.swap_remove(index);
        self.streams.held.fetch_sub(1, Ordering::Relaxed);
        if responding {
            activity.response_ended();
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.streams
            .held
            .fetch_sub(self.held.len(), Ordering::Relaxed);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A frame of `kind` with `flags`, on `stream`, with `len` payload bytes.
    pub(crate) fn frame(kind: u8, flags: u8, stream: u32, len: usize) -> Vec<u8> {
        let mut frame = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
        frame.extend_from_slice(&stream.to_be_bytes());
        frame.resize(9 + len, 0xAB);
        frame
    }

    fn response_bytes(frames: &mut Frames, bytes: &[u8]) -> usize {
        frames.read(bytes, |_| {})
    }

    #[test]
    fn only_response_frames_count() {
        let mut frames = Frames::default();
        assert_eq!(
            response_bytes(&mut frames, &frame(0x4, 0, 0, 6)),
            0,
            "SETTINGS"
        );
        assert_eq!(response_bytes(&mut frames, &frame(0x6, 0, 0, 8)), 0, "PING");
        assert_eq!(
            response_bytes(&mut frames, &frame(0x8, 0, 0, 4)),
            0,
            "WINDOW_UPDATE"
        );
        assert_eq!(
            response_bytes(&mut frames, &frame(0x7, 0, 0, 8)),
            0,
            "GOAWAY"
        );
        assert_eq!(response_bytes(&mut frames, &frame(HEADERS, 4, 1, 20)), 29);
        assert_eq!(
            response_bytes(&mut frames, &frame(CONTINUATION, 0, 1, 3)),
            12
        );
        assert_eq!(response_bytes(&mut frames, &frame(DATA, 0, 1, 100)), 109);
        assert_eq!(
            response_bytes(&mut frames, &frame(DATA, 1, 1, 0)),
            9,
            "empty DATA"
        );
    }

    #[test]
    fn frames_split_anywhere_are_read_alike() {
        let output: Vec<u8> = [
            frame(0x4, 0, 0, 6),
            frame(HEADERS, 4, 3, 20),
            frame(0x6, 0, 0, 8),
            frame(DATA, 1, 3, 300),
        ]
        .concat();
        for size in [1, 2, 5, 9, 10, 17, 64, output.len()] {
            let mut frames = Frames::default();
            let mut heads = Vec::new();
            let counted: usize = output
                .chunks(size)
                .map(|chunk| frames.read(chunk, |head| heads.push(head)))
                .sum();
            assert_eq!(counted, 29 + 309, "written {size} bytes at a time");
            let last = heads.last().copied();
            assert_eq!(heads.len(), 4);
            assert_eq!(
                last,
                Some(FrameHead {
                    kind: DATA,
                    flags: 1,
                    stream: 3
                })
            );
        }
    }

    #[test]
    fn the_clients_preface_is_passed_over() {
        let input: Vec<u8> = [
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec(),
            frame(0x4, 0, 0, 0),
            frame(HEADERS, 5, 1, 10),
        ]
        .concat();
        let mut frames = Frames::input();
        let mut heads = Vec::new();
        for chunk in input.chunks(7) {
            frames.read(chunk, |head| heads.push(head.kind));
        }
        assert_eq!(heads, [0x4, HEADERS]);
    }

    /// A stream opened, answered behind a shut window, then ended by each
    /// way a stream ends.
    #[test]
    fn a_stream_is_held_from_its_headers_to_its_end() {
        let head = |kind, flags, stream| FrameHead {
            kind,
            flags,
            stream,
        };
        let streams = Streams::new(2);
        let activity = Activity::new(None, false);
        let mut open = Open::new(Arc::clone(&streams));
        for id in [1, 3, 5] {
            open.received(head(HEADERS, 5, id), &activity);
        }
        assert_eq!(streams.held(), 3);
        assert!(streams.over(), "the third is past a bound of 2");
        // Trailers on a stream already open are no new stream.
        open.received(head(HEADERS, 5, 3), &activity);
        assert_eq!(streams.held(), 3);
        // Stream 1's response begins: the connection is sending, not idle.
        open.sent(head(HEADERS, 4, 1), &activity);
        assert!(activity.stalled_since().is_some());
        assert!(activity.idle_since().is_none());
        open.sent(head(DATA, 0, 1), &activity);
        open.sent(head(DATA, 1, 1), &activity);
        assert!(activity.stalled_since().is_none(), "ended: nothing to send");
        assert!(activity.idle_since().is_some());
        // Stream 3: reset by the client; stream 5: by the server.
        open.received(head(RST_STREAM, 0, 3), &activity);
        open.sent(head(RST_STREAM, 0, 5), &activity);
        assert_eq!(streams.held(), 0);
        open.received(head(HEADERS, 5, 7), &activity);
        assert_eq!(streams.held(), 1);
        drop(open);
        assert_eq!(streams.held(), 0, "given back with the connection");
    }
}
