//! The numbers an operator scrapes (`--metrics-addr`), and their exposition.
//!
//! Every series is a plain atomic in [`Metrics`], indexed by enums fixed at
//! compile time: the request path adds to a counter it finds by index, with
//! no hashing, locking or allocation, and every series exists from the
//! start. No label takes a value from a request: protocol, method (GET,
//! HEAD, OPTIONS, POST or other), status (every code refserve answers with),
//! content coding and close reason are each a short, fixed list.
//!
//! What can be derived is not counted twice: requests in flight are the
//! requests counted less the responses timed, open connections the
//! accepted ones less the closed ones.
//!
//! The exposition is prometheus-client's OpenMetrics text (`openmetrics`),
//! or the classic Prometheus text format derived from it (`prometheus_text`).

use crate::budget::Budget;
use crate::client_class::{ClientClass, Read};
use crate::negotiate::Coding;
use http::{Method, StatusCode, Version};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The `protocol` label's values.
const PROTOCOLS: [&str; 3] = ["HTTP/1.0", "HTTP/1.1", "HTTP/2"];
/// The `method` label's values.
const METHODS: [&str; 5] = ["GET", "HEAD", "OPTIONS", "POST", "other"];
/// The status codes refserve answers with (hyper's own 400 and 431 for
/// requests it cannot parse close the connection with reason `error`): the
/// `status` label's values, then `other` for any other.
const STATUSES: [u16; 19] = [
    200, 202, 204, 303, 304, 308, 400, 403, 404, 405, 406, 408, 410, 412, 413, 414, 415, 501, 503,
];
/// Upper bounds of the response-time buckets, in seconds: from 50 µs, as a
/// precomputed answer takes microseconds, to 10 s, a client reading slowly.
const BUCKETS: [f64; 17] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0,
];

/// Every series refserve exposes (by default at zero, with `build_info`'s
/// labels empty).
#[derive(Debug, Default)]
pub struct Metrics {
    /// Requests by protocol, method and status.
    requests: [[[AtomicU64; STATUSES.len() + 1]; METHODS.len()]; PROTOCOLS.len()],
    /// Requests by client class and what they read.
    readers: [[AtomicU64; Read::ALL.len()]; ClientClass::ALL.len()],
    /// Response body bytes by content coding.
    body_bytes: [AtomicU64; Coding::ALL.len()],
    /// Response times: a count per bucket (the last one past 10 s) and
    /// their sum in nanoseconds.
    buckets: [AtomicU64; BUCKETS.len() + 1],
    duration_nanos: AtomicU64,
    connections_accepted: AtomicU64,
    connections_closed: [AtomicU64; Close::ALL.len()],
    draining: AtomicBool,
    access_log_dropped: AtomicU64,
    /// The memory budget of `/mcp`, once the server has made it.
    budget: OnceLock<Arc<Budget>>,
    /// `build_info`'s labels.
    version: &'static str,
    content: String,
}

impl Metrics {
    /// Every series at zero; `version` and `content` label `build_info`.
    pub fn new(version: &'static str, content: &str) -> Self {
        Metrics {
            version,
            content: content.to_string(),
            ..Metrics::default()
        }
    }

    /// A request answered with `status` and `body_len` bytes in `coding`,
    /// from a client of `class` that read `read`.
    pub fn request(
        &self,
        version: Version,
        method: &Method,
        status: StatusCode,
        coding: Coding,
        body_len: u64,
        (class, read): (ClientClass, Read),
    ) {
        let protocol = match version {
            Version::HTTP_10 | Version::HTTP_09 => 0,
            Version::HTTP_2 | Version::HTTP_3 => 2,
            _ => 1,
        };
        let method = match *method {
            Method::GET => 0,
            Method::HEAD => 1,
            Method::OPTIONS => 2,
            Method::POST => 3,
            _ => 4,
        };
        let status = STATUSES
            .iter()
            .position(|&code| code == status.as_u16())
            .unwrap_or(STATUSES.len());
        self.requests[protocol][method][status].fetch_add(1, Ordering::Relaxed);
        self.readers[class as usize][read as usize].fetch_add(1, Ordering::Relaxed);
        self.body_bytes[coding.index()].fetch_add(body_len, Ordering::Relaxed);
    }

    /// A response handed to its connection `elapsed` after its request began.
    pub fn request_ended(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|&bound| seconds <= bound)
            .unwrap_or(BUCKETS.len());
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.duration_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// A connection accepted.
    pub(crate) fn connection_accepted(&self) {
        self.connections_accepted.fetch_add(1, Ordering::Relaxed);
    }

    /// A connection closed, and why.
    pub(crate) fn connection_closed(&self, reason: Close) {
        self.connections_closed[reason as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// The drain has begun.
    pub(crate) fn drain_began(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Access-log lines dropped because the writer fell behind.
    pub(crate) fn access_log_dropped(&self, lines: u64) {
        self.access_log_dropped.fetch_add(lines, Ordering::Relaxed);
    }

    /// Expose `budget`: its limit, what it holds, what it refused.
    pub(crate) fn watch_budget(&self, budget: Arc<Budget>) {
        let _ = self.budget.set(budget);
    }
}

fn load(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

/// The metrics in a registry of their own, prefixed `refserve_`.
pub(crate) fn registry(metrics: Arc<Metrics>) -> Registry {
    let mut registry = Registry::with_prefix("refserve");
    registry.register_collector(Box::new(Exposition(metrics)));
    registry
}

/// The OpenMetrics text exposition (`application/openmetrics-text;
/// version=1.0.0`), ending in `# EOF`.
pub(crate) fn openmetrics(registry: &Registry) -> String {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, registry)
        .expect("writing to a String cannot fail");
    text
}

/// The classic Prometheus text format (`text/plain; version=0.0.4`) of the
/// same series, from the OpenMetrics text: a counter's family is named
/// with its `_total`, an info becomes a gauge named with its `_info`, and
/// `# UNIT` and `# EOF` are left out. Samples are the same in both.
pub(crate) fn prometheus_text(openmetrics: &str) -> String {
    let mut text = String::with_capacity(openmetrics.len());
    let mut help = None;
    for line in openmetrics.lines() {
        if line.starts_with("# HELP ") {
            // Its family's name depends on the TYPE line that follows.
            help = Some(line);
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, "untyped"));
            let (suffix, kind) = match kind {
                "counter" => ("_total", "counter"),
                "info" => ("_info", "gauge"),
                other => ("", other),
            };
            if let Some(help) = help.take() {
                let text_of_help = &help["# HELP ".len() + name.len()..];
                text.push_str(&format!("# HELP {name}{suffix}{text_of_help}\n"));
            }
            text.push_str(&format!("# TYPE {name}{suffix} {kind}\n"));
        } else if !line.starts_with("# UNIT ") && line != "# EOF" {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// Encodes [`Metrics`] on each scrape.
#[derive(Debug)]
struct Exposition(Arc<Metrics>);

impl Collector for Exposition {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let m = &self.0;
        let mut family = encoder.encode_descriptor(
            "requests",
            "Requests answered, by protocol, method and status",
            None,
            MetricType::Counter,
        )?;
        let statuses = STATUSES.map(|code| code.to_string());
        let statuses = statuses.iter().map(String::as_str).chain(["other"]);
        for (protocol, by_method) in PROTOCOLS.iter().zip(&m.requests) {
            for (method, by_status) in METHODS.iter().zip(by_method) {
                for (status, count) in statuses.clone().zip(by_status) {
                    let labels = [
                        ("protocol", *protocol),
                        ("method", method),
                        ("status", status),
                    ];
                    family
                        .encode_family(&labels)?
                        .encode_counter::<NoLabelSet, _, u64>(&load(count), None)?;
                }
            }
        }

        let mut family = encoder.encode_descriptor(
            "reader_requests",
            "Requests answered, by client class (from User-Agent, or /mcp) and what they read",
            None,
            MetricType::Counter,
        )?;
        for (class, by_read) in ClientClass::ALL.iter().zip(&m.readers) {
            for (read, count) in Read::ALL.iter().zip(by_read) {
                let labels = [("class", class.label()), ("representation", read.label())];
                family
                    .encode_family(&labels)?
                    .encode_counter::<NoLabelSet, _, u64>(&load(count), None)?;
            }
        }

        let mut family = encoder.encode_descriptor(
            "response_body",
            "Response body bytes handed to connections, by content coding",
            Some(&Unit::Bytes),
            MetricType::Counter,
        )?;
        for (coding, bytes) in Coding::ALL.iter().zip(&m.body_bytes) {
            family
                .encode_family(&[("coding", coding.token())])?
                .encode_counter::<NoLabelSet, _, u64>(&load(bytes), None)?;
        }

        // Read before the requests, so in-flight is never negative.
        let counts: Vec<u64> = m.buckets.iter().map(load).collect();
        let timed: u64 = counts.iter().sum();
        let buckets: Vec<(f64, u64)> = BUCKETS
            .iter()
            .copied()
            .chain([f64::INFINITY])
            .zip(counts)
            .collect();
        encoder
            .encode_descriptor(
                "response_duration",
                "Time from a request's head to its whole response handed to the connection",
                Some(&Unit::Seconds),
                MetricType::Histogram,
            )?
            .encode_histogram::<NoLabelSet>(
                load(&m.duration_nanos) as f64 / 1e9,
                timed,
                &buckets,
                None,
            )?;
        let requests: u64 = m.requests.iter().flatten().flatten().map(load).sum();
        let in_flight = requests.saturating_sub(timed);
        gauge(
            &mut encoder,
            "requests_in_flight",
            "Requests whose response is not yet handed to the connection",
            in_flight,
        )?;

        let closed: Vec<u64> = m.connections_closed.iter().map(load).collect();
        let accepted = load(&m.connections_accepted);
        let mut family = encoder.encode_descriptor(
            "connections_accepted",
            "Connections accepted",
            None,
            MetricType::Counter,
        )?;
        family.encode_counter::<NoLabelSet, _, u64>(&accepted, None)?;
        gauge(
            &mut encoder,
            "connections_open",
            "Connections accepted and not yet closed",
            accepted.saturating_sub(closed.iter().sum()),
        )?;
        let mut family = encoder.encode_descriptor(
            "connections_closed",
            "Connections closed, by reason",
            None,
            MetricType::Counter,
        )?;
        for ((_, reason), count) in Close::ALL.iter().zip(closed) {
            family
                .encode_family(&[("reason", *reason)])?
                .encode_counter::<NoLabelSet, _, u64>(&count, None)?;
        }

        gauge(
            &mut encoder,
            "draining",
            "1 once a drain (SIGTERM, SIGINT) has begun",
            u64::from(m.draining.load(Ordering::Relaxed)),
        )?;
        let mut family = encoder.encode_descriptor(
            "access_log_dropped_lines",
            "Access-log lines dropped because the log writer fell behind",
            None,
            MetricType::Counter,
        )?;
        family.encode_counter::<NoLabelSet, _, u64>(&load(&m.access_log_dropped), None)?;
        let budget = m.budget.get();
        let limit = budget.map_or(0, |budget| budget.limit() as u64);
        let held = budget.map_or(0, |budget| budget.held() as u64);
        let refused = budget.map_or(0, |budget| budget.refused());
        for (name, help, value) in [
            (
                "memory_budget",
                "What /mcp request bodies and answers not yet sent may hold (--memory-budget)",
                limit,
            ),
            (
                "memory_budget_held",
                "What /mcp request bodies and answers not yet sent hold now",
                held,
            ),
        ] {
            encoder
                .encode_descriptor(name, help, Some(&Unit::Bytes), MetricType::Gauge)?
                .encode_gauge(&value)?;
        }
        let mut family = encoder.encode_descriptor(
            "memory_budget_refused",
            "Reservations the memory budget refused (each a 503 to /mcp)",
            None,
            MetricType::Counter,
        )?;
        family.encode_counter::<NoLabelSet, _, u64>(&refused, None)?;
        encoder
            .encode_descriptor(
                "build",
                "The running build: its version and a hash of its content",
                None,
                MetricType::Info,
            )?
            .encode_info(&[("version", m.version), ("content", &m.content)])?;
        Ok(())
    }
}

/// One gauge without labels.
fn gauge(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    value: u64,
) -> Result<(), std::fmt::Error> {
    encoder
        .encode_descriptor(name, help, None, MetricType::Gauge)?
        .encode_gauge(&value)
}

/// Why a connection closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Close {
    /// The client closed it (or finished closing it after we asked).
    Client,
    /// No request for `--idle-timeout`.
    Idle,
    /// No complete first request head (or TLS handshake) within
    /// `--header-read-timeout`.
    HeaderTimeout,
    /// A response made no progress for `--send-timeout`.
    SendTimeout,
    /// Closed by the drain.
    Drain,
    /// Closed, idle, to give its slot to a new connection when every slot
    /// was taken (`slots.rs`).
    Evicted,
    /// The TLS handshake failed (cleartext on the HTTPS port included).
    TlsHandshake,
    /// An I/O or protocol error (a malformed request among them).
    Error,
}

impl Close {
    /// Every reason with its metric label, in declaration order (`reason
    /// as usize`).
    const ALL: [(Close, &'static str); 8] = [
        (Close::Client, "client"),
        (Close::Idle, "idle"),
        (Close::HeaderTimeout, "header_timeout"),
        (Close::SendTimeout, "send_timeout"),
        (Close::Drain, "drain"),
        (Close::Evicted, "evicted"),
        (Close::TlsHandshake, "tls_handshake"),
        (Close::Error, "error"),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::ErrorKind;

    fn exposition(metrics: &Arc<Metrics>) -> String {
        openmetrics(&registry(Arc::clone(metrics)))
    }

    #[test]
    fn every_status_refserve_answers_with_has_its_label() {
        for kind in ErrorKind::ALL {
            assert!(STATUSES.contains(&kind.status()), "{kind:?}");
        }
    }

    #[test]
    fn every_series_exists_from_the_start() {
        let text = exposition(&Arc::new(Metrics::new("1.2.3", "abc")));
        let requests = text
            .lines()
            .filter(|l| l.starts_with("refserve_requests_total{"))
            .count();
        assert_eq!(
            requests,
            PROTOCOLS.len() * METHODS.len() * (STATUSES.len() + 1)
        );
        for (index, (reason, label)) in Close::ALL.into_iter().enumerate() {
            assert_eq!(reason as usize, index, "{label}: in declaration order");
            let line = format!("refserve_connections_closed_total{{reason=\"{label}\"}} 0");
            assert!(text.contains(&line), "{line}");
        }
        assert!(text.contains("refserve_build_info{version=\"1.2.3\",content=\"abc\"} 1"));
        assert!(
            text.contains("refserve_memory_budget_held_bytes 0\n"),
            "{text}"
        );
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn the_budget_shows_its_limit_what_it_holds_and_what_it_refused() {
        let metrics = Arc::new(Metrics::new("1", "c"));
        let budget = Budget::new(1000);
        metrics.watch_budget(Arc::clone(&budget));
        let _held = budget.reserve(600).expect("within the limit");
        assert!(budget.reserve(600).is_none());
        let text = exposition(&metrics);
        for line in [
            "refserve_memory_budget_bytes 1000\n",
            "refserve_memory_budget_held_bytes 600\n",
            "refserve_memory_budget_refused_total 1\n",
        ] {
            assert!(text.contains(line), "{line} in\n{text}");
        }
    }

    #[test]
    fn a_request_lands_in_its_series() {
        let metrics = Arc::new(Metrics::new("1", "c"));
        metrics.request(
            Version::HTTP_2,
            &Method::HEAD,
            StatusCode::NOT_FOUND,
            Coding::Br,
            0,
            (ClientClass::Browser, Read::Html),
        );
        metrics.request(
            Version::HTTP_11,
            &Method::GET,
            StatusCode::OK,
            Coding::Dcb,
            700,
            (ClientClass::AiAssistant, Read::Markdown),
        );
        metrics.request(
            Version::HTTP_11,
            &Method::PATCH,
            StatusCode::IM_A_TEAPOT,
            Coding::Identity,
            5,
            (ClientClass::Other, Read::Other),
        );
        metrics.request(
            Version::HTTP_2,
            &Method::POST,
            StatusCode::SERVICE_UNAVAILABLE,
            Coding::Identity,
            5,
            (ClientClass::McpClient, Read::Mcp),
        );
        metrics.request_ended(Duration::from_micros(70));
        let text = exposition(&metrics);
        for line in [
            r#"refserve_requests_total{protocol="HTTP/2",method="POST",status="503"} 1"#,
            r#"refserve_requests_total{protocol="HTTP/2",method="HEAD",status="404"} 1"#,
            r#"refserve_requests_total{protocol="HTTP/1.1",method="GET",status="200"} 1"#,
            r#"refserve_requests_total{protocol="HTTP/1.1",method="other",status="other"} 1"#,
            r#"refserve_response_body_bytes_total{coding="dcb"} 700"#,
            r#"refserve_reader_requests_total{class="ai-assistant",representation="markdown"} 1"#,
            r#"refserve_reader_requests_total{class="mcp-client",representation="mcp"} 1"#,
            r#"refserve_reader_requests_total{class="ai-crawler",representation="llms"} 0"#,
            r#"refserve_response_duration_seconds_bucket{le="0.00005"} 0"#,
            r#"refserve_response_duration_seconds_bucket{le="0.0001"} 1"#,
            r#"refserve_response_duration_seconds_count 1"#,
            "refserve_requests_in_flight 3",
        ] {
            assert!(text.contains(line), "{line} in\n{text}");
        }
    }

    #[test]
    fn connections_open_are_the_accepted_less_the_closed() {
        let metrics = Arc::new(Metrics::new("1", "c"));
        for _ in 0..3 {
            metrics.connection_accepted();
        }
        metrics.connection_closed(Close::SendTimeout);
        let text = exposition(&metrics);
        assert!(text.contains("refserve_connections_open 2\n"));
        assert!(text.contains("refserve_connections_closed_total{reason=\"send_timeout\"} 1\n"));
    }

    #[test]
    fn the_prometheus_text_names_families_as_that_format_does() {
        let text = prometheus_text(&exposition(&Arc::new(Metrics::new("1", "c"))));
        assert!(text.contains("# TYPE refserve_requests_total counter\n"));
        assert!(text.contains("# HELP refserve_requests_total Requests answered"));
        assert!(text.contains("# TYPE refserve_response_duration_seconds histogram\n"));
        assert!(text.contains("# TYPE refserve_build_info gauge\n"));
        assert!(text.contains("# TYPE refserve_draining gauge\n"));
        assert!(!text.contains("# EOF") && !text.contains("# UNIT"));
    }
}
