//! The access log (`--access-log`), written off the request path.
//!
//! A worker formats its request's line and hands it to a queue of
//! [`QUEUE_LINES`] lines; a thread of the log's own takes whatever has
//! queued up and writes it to standard error in one write. A worker never
//! waits on the write: when the queue is full the line is dropped and
//! counted (`refserve_access_log_dropped_lines_total`, and a warning on
//! standard error at most every [`WARNING_INTERVAL`]), so a slow journal
//! costs lines, never requests, and the queue never grows without bound.
//!
//! Two formats, one line per request:
//!
//! - **text**: `PEER METHOD "PATH" VERSION STATUS BYTES CODING DURATIONus`,
//!   the path printed with Rust's escaping, so no input can forge a line;
//! - **json**: one object per line with the fields `time` (RFC 3339, UTC,
//!   milliseconds), `peer`, `method`, `path`, `protocol`, `status`,
//!   `bytes`, `coding` and `duration_us`, every string JSON-escaped.
//!
//! `BYTES` is the length of the body sent (0 for HEAD and 304), `CODING`
//! its content coding, `DURATION` the time refserve took to choose the
//! response (the time to deliver it is the response-time metric's).

use crate::metrics::Metrics;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Lines the queue holds before new ones are dropped.
pub const QUEUE_LINES: usize = 8192;
/// The least time between two warnings of dropped lines.
pub const WARNING_INTERVAL: Duration = Duration::from_secs(10);
/// The most bytes gathered into one write.
const BATCH_BYTES: usize = 64 * 1024;

/// How each line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Space-separated fields.
    Text,
    /// One JSON object per line.
    Json,
}

/// One request, as its line tells it.
pub struct Entry<'a> {
    /// The client's address.
    pub peer: SocketAddr,
    /// The request method.
    pub method: &'a http::Method,
    /// The request path, as received.
    pub path: &'a str,
    /// The protocol version.
    pub version: http::Version,
    /// The response status.
    pub status: u16,
    /// Body bytes sent.
    pub bytes: u64,
    /// The body's content coding.
    pub coding: &'static str,
    /// The time taken to choose the response.
    pub duration: Duration,
}

impl Entry<'_> {
    /// The line in `format`, with its newline.
    pub fn line(&self, format: Format) -> String {
        let micros = self.duration.as_micros();
        match format {
            Format::Text => format!(
                "{} {} {:?} {:?} {} {} {} {micros}us\n",
                self.peer,
                self.method,
                self.path,
                self.version,
                self.status,
                self.bytes,
                self.coding
            ),
            Format::Json => format!(
                "{{\"time\":\"{}\",\"peer\":\"{}\",\"method\":{},\"path\":{},\"protocol\":\"{:?}\",\
                 \"status\":{},\"bytes\":{},\"coding\":\"{}\",\"duration_us\":{micros}}}\n",
                humantime::format_rfc3339_millis(SystemTime::now()),
                self.peer,
                json_string(self.method.as_str()),
                json_string(self.path),
                self.version,
                self.status,
                self.bytes,
                self.coding,
            ),
        }
    }
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}

/// What the queue carries.
enum Message {
    /// A line to write.
    Line(String),
    /// Write everything queued before this, then say so.
    Flush(mpsc::Sender<()>),
}

/// The log's side the workers hold.
pub struct AccessLog {
    queue: SyncSender<Message>,
    format: Format,
    metrics: Option<Arc<Metrics>>,
    dropped: Arc<std::sync::atomic::AtomicU64>,
}

impl AccessLog {
    /// Start the writer thread, writing to standard error.
    pub fn start(format: Format, metrics: Option<Arc<Metrics>>) -> Self {
        Self::start_writing(format, metrics, QUEUE_LINES, std::io::stderr)
    }

    /// Start the writer thread with a queue of `lines`, writing to what
    /// `output` opens (tests give a slow or a recording writer).
    pub fn start_writing<W: Write>(
        format: Format,
        metrics: Option<Arc<Metrics>>,
        lines: usize,
        output: impl FnOnce() -> W + Send + 'static,
    ) -> Self {
        let (queue, received) = mpsc::sync_channel(lines);
        let dropped = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = Arc::clone(&dropped);
        std::thread::Builder::new()
            .name("access-log".to_string())
            .spawn(move || write_lines(received, output(), &counted))
            .expect("the access-log thread starts");
        AccessLog {
            queue,
            format,
            metrics,
            dropped,
        }
    }

    /// Queue `entry`'s line, or drop it when the queue is full.
    pub fn record(&self, entry: &Entry<'_>) {
        match self.queue.try_send(Message::Line(entry.line(self.format))) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(_)) => {
                self.dropped
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if let Some(metrics) = &self.metrics {
                    metrics.access_log_dropped(1);
                }
            }
        }
    }

    /// Wait until every line queued so far is written (blocks the caller:
    /// for the end of a drain, not for a worker).
    pub fn flush(&self) {
        let (done, written) = mpsc::channel();
        if self.queue.send(Message::Flush(done)).is_ok() {
            let _ = written.recv();
        }
    }
}

/// The writer thread: batch what has queued up, write it, and warn of
/// dropped lines now and then; ends when every sender is gone.
fn write_lines(
    received: Receiver<Message>,
    mut output: impl Write,
    dropped: &std::sync::atomic::AtomicU64,
) {
    let mut batch = String::with_capacity(BATCH_BYTES);
    let mut flushes = Vec::new();
    let (mut warned_at, mut warned_total) = (Instant::now(), 0);
    loop {
        match received.recv_timeout(WARNING_INTERVAL) {
            Ok(message) => {
                let mut next = Some(message);
                while let Some(message) = next.take() {
                    match message {
                        Message::Line(line) => batch.push_str(&line),
                        Message::Flush(done) => flushes.push(done),
                    }
                    if batch.len() < BATCH_BYTES {
                        next = received.try_recv().ok();
                    }
                }
                // Nothing else to do with a failed write to standard error.
                let _ = output.write_all(batch.as_bytes());
                let _ = output.flush();
                batch.clear();
                for done in flushes.drain(..) {
                    let _ = done.send(());
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let total = dropped.load(std::sync::atomic::Ordering::Relaxed);
        if total > warned_total && warned_at.elapsed() >= WARNING_INTERVAL {
            eprintln!(
                "refserve: the access log fell behind: {} lines dropped in the last {}s",
                total - warned_total,
                warned_at.elapsed().as_secs()
            );
            (warned_at, warned_total) = (Instant::now(), total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn entry(path: &str) -> Entry<'_> {
        Entry {
            peer: "127.0.0.1:4000".parse().expect("an address"),
            method: &http::Method::GET,
            path,
            version: http::Version::HTTP_11,
            status: 200,
            bytes: 1234,
            coding: "br",
            duration: Duration::from_micros(17),
        }
    }

    /// A writer whose bytes the test reads, and that can be held shut.
    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<u8>>>);

    impl Write for Recorder {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .expect("not poisoned")
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_text_line_escapes_the_path() {
        let line = entry("/a\n\"b").line(Format::Text);
        assert_eq!(
            line,
            "127.0.0.1:4000 GET \"/a\\n\\\"b\" HTTP/1.1 200 1234 br 17us\n"
        );
    }

    #[test]
    fn the_json_line_is_one_object_with_the_documented_fields() {
        let line = entry("/a\n\"b\u{1}").line(Format::Json);
        assert_eq!(line.lines().count(), 1);
        let object: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(object["path"], "/a\n\"b\u{1}");
        assert_eq!(object["method"], "GET");
        assert_eq!(object["protocol"], "HTTP/1.1");
        assert_eq!(object["status"], 200);
        assert_eq!(object["bytes"], 1234);
        assert_eq!(object["coding"], "br");
        assert_eq!(object["duration_us"], 17);
        assert_eq!(object["peer"], "127.0.0.1:4000");
        let time = object["time"].as_str().expect("a time");
        assert!(humantime::parse_rfc3339(time).is_ok(), "{time}");
        assert_eq!(object.as_object().map(|o| o.len()), Some(9));
    }

    #[test]
    fn queued_lines_are_written_in_order() {
        let recorder = Recorder::default();
        let output = recorder.clone();
        let log = AccessLog::start_writing(Format::Text, None, 64, move || output);
        for path in ["/one", "/two", "/three"] {
            log.record(&entry(path));
        }
        log.flush();
        let written = String::from_utf8(recorder.0.lock().expect("not poisoned").clone());
        let paths: Vec<String> = written
            .expect("UTF-8")
            .lines()
            .map(|line| line.split(' ').nth(2).unwrap_or_default().to_string())
            .collect();
        assert_eq!(paths, ["\"/one\"", "\"/two\"", "\"/three\""]);
    }

    #[test]
    fn a_full_queue_drops_and_counts_instead_of_waiting() {
        /// A writer that says when it is writing, then waits to be let go.
        struct Held(mpsc::Sender<()>, Receiver<()>);
        impl Write for Held {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                let _ = self.0.send(());
                let _ = self.1.recv();
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let metrics = Arc::new(Metrics::new("1", "c"));
        let ((writing, entered), (release, held)) = (mpsc::channel(), mpsc::channel());
        let log =
            AccessLog::start_writing(Format::Json, Some(Arc::clone(&metrics)), 4, move || {
                Held(writing, held)
            });
        log.record(&entry("/first"));
        entered
            .recv()
            .expect("the writer is writing the first line");
        // The writer is held: the queue takes four lines, the other 96 are
        // dropped at once.
        for _ in 0..100 {
            log.record(&entry("/"));
        }
        assert_eq!(log.dropped.load(std::sync::atomic::Ordering::Relaxed), 96);
        let text = crate::metrics::openmetrics(&crate::metrics::registry(metrics));
        assert!(
            text.contains("refserve_access_log_dropped_lines_total 96\n"),
            "{text}"
        );
        drop(release);
    }
}
