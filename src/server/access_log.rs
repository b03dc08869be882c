//! The access log (`--access-log`), written off the request path.
//!
//! A worker appends its request's line to a shared buffer of at most
//! `BUFFER_BYTES` and goes on; a thread of the log's own takes the whole
//! buffer every `WRITE_INTERVAL` (or when it is half full) and writes it
//! to standard error in one write. A worker never waits on the write, nor
//! wakes the writer for a line: when the buffer is full the line is
//! dropped and counted (`refserve_access_log_dropped_lines_total`, and a
//! warning on standard error at most every `WARNING_INTERVAL`), so a slow
//! journal costs lines, never requests. The memory is bounded in bytes,
//! whatever the requests: a line holds at most `PATH_BYTES` of the path
//! (a longer one is cut, and ends in `…`), and the log holds at most two
//! buffers (the one filling, the one being written), never more than
//! `BUFFER_BYTES` each with their last line.
//!
//! Two formats, one line per request:
//!
//! - **text**: `PEER METHOD "PATH" VERSION STATUS BYTES CODING CLASS DURATIONus`,
//!   the path printed with Rust's escaping, so no input can forge a line;
//! - **json**: one object per line with the fields `time` (RFC 3339, UTC,
//!   milliseconds), `peer`, `method`, `path`, `protocol`, `status`,
//!   `bytes`, `coding`, `class` and `duration_us`, every string JSON-escaped, and
//!   every character that some reader takes for a line break or that
//!   reorders text (U+0085, U+2028, U+2029, the C1 controls, the bidi
//!   embeddings, overrides and isolates) written as `\uXXXX`.
//!
//! `BYTES` is the length of the body sent (0 for HEAD and 304), `CODING`
//! its content coding, `CLASS` the client's class (`client_class.rs`:
//! `browser`, `ai-assistant`, …), `DURATION` the time refserve took to choose the
//! response (the time to deliver it is the response-time metric's).

use crate::metrics::Metrics;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

/// Bytes the buffer holds before new lines are dropped.
const BUFFER_BYTES: usize = 2 * 1024 * 1024;
/// The most of a path a line holds.
const PATH_BYTES: usize = 1024;
/// How often the writer takes the buffer.
const WRITE_INTERVAL: Duration = Duration::from_millis(50);
/// The least time between two warnings of dropped lines.
const WARNING_INTERVAL: Duration = Duration::from_secs(10);

/// How each line is written: `--access-log-format`'s values.
// No doc comments on the variants: clap would show them in a long help
// of their own.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    // Space-separated fields.
    Text,
    // One JSON object per line.
    Json,
}

/// One request, as its line tells it.
pub struct Entry<'a> {
    /// The client's address, formatted once per connection.
    pub peer: &'a str,
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
    /// The client's class.
    pub class: &'static str,
    /// The time taken to choose the response.
    pub duration: Duration,
}

impl Entry<'_> {
    /// Append the line in `format`, with its newline, to `out`.
    pub fn write_line(&self, format: Format, out: &mut String) {
        let micros = u64::try_from(self.duration.as_micros()).unwrap_or(u64::MAX);
        let (path, cut) = cut_path(self.path);
        // Pushed piece by piece: `core::fmt` took half of a JSON line's
        // cost (`benches/observing.sh`).
        match format {
            Format::Text => {
                // Writing to a String cannot fail.
                let _ = write!(out, "{} {} {:?}", self.peer, self.method, path);
                if cut {
                    out.push('…');
                }
                out.push(' ');
                out.push_str(protocol(self.version));
                out.push(' ');
                push_number(out, self.status);
                out.push(' ');
                push_number(out, self.bytes);
                out.push(' ');
                out.push_str(self.coding);
                out.push(' ');
                out.push_str(self.class);
                out.push(' ');
                push_number(out, micros);
                out.push_str("us\n");
            }
            Format::Json => {
                out.push_str("{\"time\":\"");
                push_time(out);
                out.push_str("\",\"peer\":\"");
                out.push_str(self.peer);
                out.push_str("\",\"method\":");
                push_json_string(out, self.method.as_str());
                out.push_str(",\"path\":");
                push_json_string(out, path);
                if cut {
                    out.pop();
                    out.push_str("…\"");
                }
                out.push_str(",\"protocol\":\"");
                out.push_str(protocol(self.version));
                out.push_str("\",\"status\":");
                push_number(out, self.status);
                out.push_str(",\"bytes\":");
                push_number(out, self.bytes);
                out.push_str(",\"coding\":\"");
                out.push_str(self.coding);
                out.push_str("\",\"class\":\"");
                out.push_str(self.class);
                out.push_str("\",\"duration_us\":");
                push_number(out, micros);
                out.push_str("}\n");
            }
        }
    }

    /// The line in `format`, with its newline.
    #[cfg(test)]
    fn line(&self, format: Format) -> String {
        let mut out = String::new();
        self.write_line(format, &mut out);
        out
    }
}

/// `path`, cut to at most [`PATH_BYTES`] on a character boundary, and
/// whether it was cut.
fn cut_path(path: &str) -> (&str, bool) {
    if path.len() <= PATH_BYTES {
        return (path, false);
    }
    let end = (0..=PATH_BYTES)
        .rev()
        .find(|&at| path.is_char_boundary(at))
        .unwrap_or(0);
    (&path[..end], true)
}

/// `number` in decimal.
fn push_number(out: &mut String, number: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(number));
}

/// The protocol version as the request line names it.
fn protocol(version: http::Version) -> &'static str {
    match version {
        http::Version::HTTP_09 => "HTTP/0.9",
        http::Version::HTTP_10 => "HTTP/1.0",
        http::Version::HTTP_2 => "HTTP/2.0",
        http::Version::HTTP_3 => "HTTP/3.0",
        _ => "HTTP/1.1",
    }
}

/// The time now, RFC 3339 in UTC with milliseconds; formatted once per
/// millisecond on each thread, as thousands of lines share one.
fn push_time(out: &mut String) {
    thread_local! {
        static LAST: std::cell::RefCell<(u128, String)> = const {
            std::cell::RefCell::new((0, String::new()))
        };
    }
    let now = SystemTime::now();
    let millis = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis());
    LAST.with_borrow_mut(|(at, text)| {
        if *at != millis || text.is_empty() {
            text.clear();
            let _ = write!(text, "{}", humantime::format_rfc3339_millis(now));
            *at = millis;
        }
        out.push_str(text);
    });
}

/// `text` as a JSON string (RFC 8259 §7): quotes, backslashes and control
/// characters escaped, and so is every character a reader may take for a
/// line break or that reorders what is shown ([`escapes_unicode`]);
/// everything else as it is.
pub(crate) fn push_json_string(out: &mut String, text: &str) {
    // The ASCII to escape, and the first bytes of what else is: C1 controls
    // and U+0085 (0xC2), U+2028–U+202E and U+2066–U+2069 (0xE2).
    let needs_look = |b: u8| b == b'"' || b == b'\\' || b < 0x20 || b == 0xC2 || b == 0xE2;
    out.push('"');
    // Most strings have nothing to escape: a pass without early exit,
    // which the compiler vectorises, says so (a third of the cost of a
    // JSON line, `benches/observing.sh`).
    if !text.bytes().fold(false, |any, b| any | needs_look(b)) {
        out.push_str(text);
        out.push('"');
        return;
    }
    for c in text.chars() {
        let _ = match c {
            '"' => out.write_str("\\\""),
            '\\' => out.write_str("\\\\"),
            '\n' => out.write_str("\\n"),
            '\r' => out.write_str("\\r"),
            '\t' => out.write_str("\\t"),
            c if c < ' ' || escapes_unicode(c) => write!(out, "\\u{:04x}", u32::from(c)),
            c => out.write_char(c),
        };
    }
    out.push('"');
}

/// Whether a JSON line writes `c` as `\uXXXX`: the C1 controls (U+0085,
/// NEL, among them), the line and paragraph separators, the bidi
/// embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
fn escapes_unicode(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The lines waiting for the writer.
#[derive(Default)]
struct Buffer {
    text: String,
    /// Lines dropped since the start.
    dropped: u64,
    /// Set when the log is dropped: the writer writes what is left and ends.
    closed: bool,
}

/// What the workers and the writer share: the buffer and the output.
struct Lines {
    buffer: Mutex<Buffer>,
    /// Wakes the writer early (half full, a flush, the close).
    wake: Condvar,
    /// Held while a batch is taken and written, so batches keep their order.
    output: Mutex<Box<dyn Write + Send>>,
    /// Bytes the buffer holds before lines are dropped.
    capacity: usize,
}

impl Lines {
    fn buffer(&self) -> MutexGuard<'_, Buffer> {
        self.buffer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Write out everything buffered so far; whether the log is closed.
    fn write_batch(&self, spare: &mut String) -> bool {
        let mut output = self.output.lock().unwrap_or_else(PoisonError::into_inner);
        let closed = {
            let mut buffer = self.buffer();
            std::mem::swap(&mut buffer.text, spare);
            buffer.closed
        };
        if !spare.is_empty() {
            // Nothing more to do with a failed write to standard error.
            let _ = output.write_all(spare.as_bytes());
            let _ = output.flush();
            spare.clear();
        }
        closed
    }

    /// Add `entry`'s line in `format`; whether there was room for it.
    fn append(&self, format: Format, entry: &Entry<'_>) -> bool {
        let mut buffer = self.buffer();
        let before = buffer.text.len();
        if before >= self.capacity {
            buffer.dropped += 1;
            return false;
        }
        entry.write_line(format, &mut buffer.text);
        let half = self.capacity / 2;
        if before < half && buffer.text.len() >= half {
            self.wake.notify_one();
        }
        true
    }
}

/// The log's side the workers hold.
pub(crate) struct AccessLog {
    shared: Arc<Lines>,
    format: Format,
    metrics: Option<Arc<Metrics>>,
}

impl AccessLog {
    /// Start the writer thread, writing to standard error.
    pub(crate) fn start(format: Format, metrics: Option<Arc<Metrics>>) -> Self {
        Self::start_writing(format, metrics, BUFFER_BYTES, std::io::stderr())
    }

    /// Start the writer thread with a buffer of `bytes`, writing to
    /// `output` (tests give a slow or a recording writer).
    fn start_writing(
        format: Format,
        metrics: Option<Arc<Metrics>>,
        bytes: usize,
        output: impl Write + Send + 'static,
    ) -> Self {
        let shared = Arc::new(Lines {
            buffer: Mutex::new(Buffer {
                text: String::with_capacity(bytes),
                ..Buffer::default()
            }),
            wake: Condvar::new(),
            output: Mutex::new(Box::new(output)),
            capacity: bytes,
        });
        let writer = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("access-log".to_string())
            .spawn(move || write_lines(&writer))
            .expect("the access-log thread starts");
        AccessLog {
            shared,
            format,
            metrics,
        }
    }

    /// Add `entry`'s line, or drop it when the buffer is full.
    pub(crate) fn record(&self, entry: &Entry<'_>) {
        if !self.shared.append(self.format, entry) {
            if let Some(metrics) = &self.metrics {
                metrics.access_log_dropped(1);
            }
        }
    }

    /// Write out every line added so far (blocks the caller: for the end of
    /// a drain, not for a worker).
    pub(crate) fn flush(&self) {
        self.shared.write_batch(&mut String::new());
    }
}

impl Drop for AccessLog {
    fn drop(&mut self) {
        self.shared.buffer().closed = true;
        self.shared.wake.notify_one();
    }
}

/// The writer thread: every [`WRITE_INTERVAL`], or when woken, write what
/// the workers added; warn of dropped lines now and then; end once closed.
fn write_lines(shared: &Lines) {
    let mut spare = String::new();
    let (mut warned_at, mut warned_total) = (Instant::now(), 0);
    loop {
        let dropped = {
            let buffer = shared.buffer();
            let (buffer, _) = shared
                .wake
                .wait_timeout_while(buffer, WRITE_INTERVAL, |b| {
                    !b.closed && b.text.len() < shared.capacity / 2
                })
                .unwrap_or_else(PoisonError::into_inner);
            buffer.dropped
        };
        if shared.write_batch(&mut spare) {
            return;
        }
        if dropped > warned_total && warned_at.elapsed() >= WARNING_INTERVAL {
            eprintln!(
                "refserve: the access log fell behind: {} lines dropped in the last {}s",
                dropped - warned_total,
                warned_at.elapsed().as_secs()
            );
            (warned_at, warned_total) = (Instant::now(), dropped);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{self, Receiver};

    fn entry(path: &str) -> Entry<'_> {
        Entry {
            peer: "127.0.0.1:4000",
            method: &http::Method::GET,
            path,
            version: http::Version::HTTP_11,
            status: 200,
            bytes: 1234,
            coding: "br",
            class: "browser",
            duration: Duration::from_micros(17),
        }
    }

    /// A writer whose bytes the test reads.
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
            "127.0.0.1:4000 GET \"/a\\n\\\"b\" HTTP/1.1 200 1234 br browser 17us\n"
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
        assert_eq!(object["class"], "browser");
        assert_eq!(object["duration_us"], 17);
        assert_eq!(object["peer"], "127.0.0.1:4000");
        let time = object["time"].as_str().expect("a time");
        assert!(humantime::parse_rfc3339(time).is_ok(), "{time}");
        assert_eq!(object.as_object().map(|o| o.len()), Some(10));
    }

    #[test]
    fn line_breaking_and_reordering_characters_are_escaped_in_json() {
        let path = "/a\u{85}b\u{2028}c\u{2029}d\u{202e}e\u{9b}f\u{2066}g\u{7f}é€";
        let line = entry(path).line(Format::Json);
        for escaped in [
            "\\u0085", "\\u2028", "\\u2029", "\\u202e", "\\u009b", "\\u2066",
        ] {
            assert!(line.contains(escaped), "{escaped} in {line}");
        }
        assert!(
            line.is_ascii() || !line.chars().any(escapes_unicode),
            "{line}"
        );
        // What a reader splitting on any Unicode line break sees: one line.
        assert_eq!(line.trim_end_matches('\n').lines().count(), 1);
        assert!(!line.contains(['\u{85}', '\u{2028}', '\u{2029}']));
        let object: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(object["path"], path, "escaped, not changed");
    }

    #[test]
    fn the_text_line_escapes_them_too() {
        let line = entry("/a\u{85}b\u{2028}c\u{202e}d").line(Format::Text);
        assert!(!line.contains(['\u{85}', '\u{2028}', '\u{202e}']), "{line}");
    }

    #[test]
    fn a_long_path_is_cut_in_the_line() {
        let path = format!("/{}", "é".repeat(4000));
        for format in [Format::Text, Format::Json] {
            let line = entry(&path).line(format);
            assert!(line.len() < PATH_BYTES + 200, "{} bytes", line.len());
            assert!(line.contains('…'), "{line}");
        }
        let object: serde_json::Value =
            serde_json::from_str(&entry(&path).line(Format::Json)).expect("JSON");
        let logged = object["path"].as_str().expect("a path");
        assert!(logged.ends_with('…') && path.starts_with(logged.trim_end_matches('…')));
        let short = entry("/select").line(Format::Json);
        assert!(!short.contains('…'));
    }

    #[test]
    fn queued_lines_are_written_in_order() {
        let recorder = Recorder::default();
        let output = recorder.clone();
        let log = AccessLog::start_writing(Format::Text, None, 64 * 1024, output);
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
        // Room for four lines of "/" (each line begins below the limit).
        let line = entry("/").line(Format::Json).len();
        let log = AccessLog::start_writing(
            Format::Json,
            Some(Arc::clone(&metrics)),
            3 * line + 1,
            Held(writing, held),
        );
        log.record(&entry("/first"));
        // The writer takes it within its interval, and is held writing it.
        entered
            .recv()
            .expect("the writer is writing the first line");
        // The writer is held: the buffer takes four lines, the other 96 are
        // dropped at once.
        for _ in 0..100 {
            log.record(&entry("/"));
        }
        let text = crate::metrics::openmetrics(&crate::metrics::registry(metrics));
        assert!(
            text.contains("refserve_access_log_dropped_lines_total 96\n"),
            "{text}"
        );
        drop(release);
    }
}
