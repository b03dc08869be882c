//! The metrics listener: what it counts, that only it serves `/metrics`,
//! that bad input there harms nothing, and that real Prometheus tools read
//! it: `promtool check metrics` accepts the exposition, and a Prometheus
//! server scraping it answers a query with the requests the test sent.

use crate::stalls::{closed_unread, small_window_connection, stop_reading};
use crate::support::{percent_encode, run, start_server_with, system_tool, Reply, Scratch, Server};
use std::process::{Command, Stdio};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::task::JoinSet;

/// A server with a metrics listener.
async fn server_with_metrics() -> Server {
    start_server_with(|c| {
        c.metrics_addr = Some("127.0.0.1:0".parse().expect("an address"));
        c.send_timeout = Duration::from_secs(1);
    })
    .await
}

/// The metrics listener's answer to `GET path` with `headers`.
async fn scrape(server: &Server, path: &str, headers: &[(&str, &str)]) -> Reply {
    let addr = server.metrics_addr.as_deref().expect("a metrics listener");
    Server::client_for(&format!("http://{addr}"))
        .get(path, headers)
        .await
}

/// The value of the sample `series` (name and labels, as exposed).
fn sample(exposition: &str, series: &str) -> f64 {
    exposition
        .lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no sample {series} in\n{exposition}"))
}

fn text(reply: &Reply) -> String {
    String::from_utf8(reply.body.clone()).expect("UTF-8")
}

#[tokio::test]
async fn requests_responses_and_connections_are_counted() {
    let server = server_with_metrics().await;
    for _ in 0..3 {
        server
            .get("/api/reference/select.json", &[("accept-encoding", "br")])
            .await;
    }
    server.get("/nope", &[]).await;
    server.request(http::Method::HEAD, "/llms.txt", &[]).await;
    server.request(http::Method::DELETE, "/llms.txt", &[]).await;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    server
        .post("/mcp", &[("content-type", "application/json")], ping)
        .await;
    server.post("/mcp", &[], ping).await;
    let exposition = text(&scrape(&server, "/metrics", &[]).await);
    let requests = |method: &str, status: &str| {
        let series = format!(
            "refserve_requests_total{{protocol=\"HTTP/1.1\",method=\"{method}\",status=\"{status}\"}}"
        );
        sample(&exposition, &series)
    };
    assert_eq!(requests("GET", "200"), 3.0);
    assert_eq!(requests("GET", "404"), 1.0);
    assert_eq!(requests("HEAD", "200"), 1.0);
    assert_eq!(requests("other", "405"), 1.0);
    assert_eq!(requests("POST", "200"), 1.0);
    assert_eq!(requests("POST", "415"), 1.0);
    assert_eq!(
        sample(&exposition, "refserve_memory_budget_bytes"),
        16.0 * 1024.0 * 1024.0
    );
    assert_eq!(
        sample(&exposition, "refserve_memory_budget_held_bytes"),
        0.0
    );
    let br_bytes = server
        .get("/api/reference/select.json", &[("accept-encoding", "br")])
        .await
        .body
        .len() as f64;
    assert_eq!(
        sample(
            &exposition,
            "refserve_response_body_bytes_total{coding=\"br\"}"
        ),
        3.0 * br_bytes
    );
    assert_eq!(
        sample(&exposition, "refserve_response_duration_seconds_count"),
        8.0
    );
    assert_eq!(sample(&exposition, "refserve_requests_in_flight"), 0.0);
    assert!(sample(&exposition, "refserve_connections_accepted_total") >= 1.0);
    assert_eq!(sample(&exposition, "refserve_draining"), 0.0);
    assert!(exposition.contains(&format!(
        "refserve_build_info{{version=\"{}\",content=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION"),
        refserve::table::production().content_hash.as_str()
    )));
}

#[tokio::test]
async fn each_request_is_counted_under_its_client_class_and_what_it_read() {
    use refserve::client_class::{ClientClass, Read};
    let server = server_with_metrics().await;
    let series = |class: &str, read: &str| {
        format!("refserve_reader_requests_total{{class=\"{class}\",representation=\"{read}\"}}")
    };
    // Every class and representation from the start.
    let exposition = text(&scrape(&server, "/metrics", &[]).await);
    for class in ClientClass::ALL {
        for read in Read::ALL {
            assert_eq!(
                sample(&exposition, &series(class.label(), read.label())),
                0.0
            );
        }
    }
    let chatgpt = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; \
                   ChatGPT-User/1.0; +https://openai.com/bot)";
    server
        .get("/api/select.md", &[("user-agent", chatgpt)])
        .await;
    let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                  Chrome/156.0.0.0 Safari/537.36";
    let browser = [("user-agent", chrome), ("accept", "text/html")];
    server.get("/zh-hans/api/select", &browser).await;
    server.get("/search?q=rows", &browser).await;
    server
        .get("/llms.txt", &[("user-agent", "curl/8.14.1")])
        .await;
    server
        .get("/api/reference.json", &[("user-agent", "GPTBot/1.1")])
        .await;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mcp = [("content-type", "application/json"), ("user-agent", chrome)];
    server.post("/mcp", &mcp, ping).await;
    server.get("/robots.txt", &[]).await;
    let exposition = text(&scrape(&server, "/metrics", &[]).await);
    for (class, read) in [
        ("ai-assistant", "markdown"),
        ("browser", "html"),
        ("browser", "search"),
        ("tool", "llms"),
        ("ai-crawler", "json"),
        ("mcp-client", "mcp"),
        ("other", "other"),
    ] {
        assert_eq!(
            sample(&exposition, &series(class, read)),
            1.0,
            "{class} {read}"
        );
    }
}

#[tokio::test]
async fn a_send_timeout_is_counted_as_its_own_close() {
    let server = server_with_metrics().await;
    let mut stalled = small_window_connection(server.addr()).await;
    stop_reading(&mut stalled).await;
    closed_unread(&stalled, Duration::from_secs(2)).await;
    // The count follows the close within the connection's task.
    let series = "refserve_connections_closed_total{reason=\"send_timeout\"}";
    let counted = async {
        loop {
            let exposition = text(&scrape(&server, "/metrics", &[]).await);
            if sample(&exposition, series) == 1.0 {
                return;
            }
            tokio::task::yield_now().await;
        }
    };
    assert!(tokio::time::timeout(Duration::from_secs(2), counted)
        .await
        .is_ok());
}

#[tokio::test]
async fn openmetrics_when_asked_and_the_prometheus_text_otherwise() {
    let server = server_with_metrics().await;
    let plain = scrape(&server, "/metrics", &[]).await;
    assert_eq!(plain.status, 200);
    assert_eq!(
        plain.header("content-type"),
        "text/plain; version=0.0.4; charset=utf-8"
    );
    assert_eq!(plain.header("cache-control"), "no-store");
    assert!(!text(&plain).contains("# EOF"));
    let accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";
    let open = scrape(&server, "/metrics", &[("accept", accept)]).await;
    assert!(open
        .header("content-type")
        .starts_with("application/openmetrics-text"));
    assert!(text(&open).ends_with("# EOF\n"));
}

#[tokio::test]
async fn only_the_metrics_listener_serves_metrics_and_it_explains_the_rest() {
    let server = server_with_metrics().await;
    assert_eq!(server.get("/metrics", &[]).await.status, 404);
    let missing = scrape(&server, "/", &[]).await;
    assert_eq!(
        (missing.status, missing.error_code().as_str()),
        (404, "not_found")
    );
    let addr = server.metrics_addr.as_deref().expect("a metrics listener");
    let post = Server::client_for(&format!("http://{addr}"))
        .request(http::Method::POST, "/metrics", &[])
        .await;
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), "GET, HEAD");
    assert_eq!(post.error_code(), "method_not_allowed");
    let huge = format!(
        "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Padding: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    let answer = Server::client_for(&format!("http://{addr}"))
        .raw(huge.as_bytes())
        .await;
    assert!(
        answer.starts_with(b"HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );
    let garbage = Server::client_for(&format!("http://{addr}"))
        .raw(b"\x16\x03\x01garbage\r\n\r\n")
        .await;
    assert!(
        garbage.starts_with(b"HTTP/1.1 400"),
        "{:?}",
        String::from_utf8_lossy(&garbage)
    );
    assert_eq!(scrape(&server, "/metrics", &[]).await.status, 200);
}

/// Hold `count` connections to `addr` that send nothing, each opened again
/// as soon as it is closed, until the returned set is dropped; returns once
/// every one has been opened.
async fn hold_silent(addr: &str, count: usize) -> JoinSet<()> {
    let mut holders = JoinSet::new();
    let (opened, mut first_opens) = tokio::sync::mpsc::channel(count);
    for _ in 0..count {
        let (addr, mut opened) = (addr.to_string(), Some(opened.clone()));
        holders.spawn(async move {
            while let Ok(mut stream) = tokio::net::TcpStream::connect(&addr).await {
                if let Some(opened) = opened.take() {
                    let _ = opened.send(()).await;
                }
                // Returns once the server has closed it.
                let _ = stream.read(&mut [0; 1]).await;
            }
        });
    }
    for _ in 0..count {
        first_opens.recv().await.expect("every holder connects");
    }
    holders
}

#[tokio::test]
async fn silent_connections_reopened_as_they_close_cannot_starve_the_scrapes() {
    let server = server_with_metrics().await;
    let addr = server.metrics_addr.as_deref().expect("a metrics listener");
    let _silent = hold_silent(addr, 40).await;
    // Five times the listener's slots (scrape::MAX_CONNECTIONS), each held
    // for the default header read timeout (10 s) unless it is closed to
    // make room: a scrape answered sooner got its slot from a silent one.
    for _ in 0..4 {
        let reply = tokio::time::timeout(Duration::from_secs(8), scrape(&server, "/metrics", &[]))
            .await
            .expect("a scrape is answered before any silent connection times out");
        assert_eq!(reply.status, 200);
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn promtool_accepts_the_exposition() {
    let server = server_with_metrics().await;
    server.get("/", &[]).await;
    let exposition = scrape(&server, "/metrics", &[]).await.body;
    let checked = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut promtool = Command::new(system_tool("promtool"))
            .args(["check", "metrics"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("promtool starts");
        promtool
            .stdin
            .take()
            .expect("piped")
            .write_all(&exposition)
            .expect("promtool reads the exposition");
        promtool.wait_with_output().expect("promtool ends")
    })
    .await
    .expect("the promtool thread");
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn the_deploy_scrape_configuration_and_alert_rules_are_valid() {
    // `check config` checks the rule files it names too.
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/deploy/prometheus/prometheus.yml"
    );
    let mut command = Command::new(system_tool("promtool"));
    command.args(["check", "config", config]);
    let checked = run(command).await;
    checked.assert_success();
    assert!(
        checked.output.contains("7 rules found"),
        "{}",
        checked.output
    );
}

/// A Prometheus server scraping `target` every 200 ms, its data in
/// `dir`; stopped when dropped.
struct Prometheus {
    child: std::process::Child,
    api: String,
}

impl Prometheus {
    fn start(target: &str, dir: &Scratch) -> Prometheus {
        let config = dir.write(
            "prometheus.yml",
            format!(
                "global:\n  scrape_interval: 200ms\n  scrape_timeout: 200ms\n\
                 scrape_configs:\n  - job_name: refserve\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(system_tool("prometheus"))
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus starts");
        Prometheus {
            child,
            api: format!("http://127.0.0.1:{port}"),
        }
    }

    /// The value of an instant query's first sample, if it has one yet.
    async fn query(&self, expression: &str) -> Option<f64> {
        let url = format!(
            "{}/api/v1/query?query={}",
            self.api,
            percent_encode(expression)
        );
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<http_body_util::Empty<bytes::Bytes>>();
        let response = client.get(url.parse().ok()?).await.ok()?;
        let reply = Reply::read(response).await;
        // Until it is ready, Prometheus answers 503 in plain text.
        let answer: serde_json::Value = serde_json::from_slice(&reply.body).ok()?;
        answer["data"]["result"][0]["value"][1]
            .as_str()?
            .parse()
            .ok()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` with every byte but unreserved ones percent-encoded.
#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_prometheus_server_scrapes_the_requests_the_test_sent() {
    let server = server_with_metrics().await;
    for _ in 0..7 {
        assert_eq!(server.get("/api/select", &[]).await.status, 200);
    }
    let dir = Scratch::new("prometheus");
    let prometheus = Prometheus::start(server.metrics_addr.as_deref().expect("metrics"), &dir);
    let expression = r#"refserve_requests_total{method="GET",status="200"}"#;
    // Prometheus starts, scrapes every 200 ms, and answers once it has.
    let answered = async {
        loop {
            if let Some(value) = prometheus.query(&format!("sum({expression})")).await {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let value = tokio::time::timeout(Duration::from_secs(60), answered)
        .await
        .expect("Prometheus answered within a minute");
    assert_eq!(value, 7.0);
    // It scraped OpenMetrics, as it asks for, and found the target up.
    let up = prometheus.query(r#"up{job="refserve"}"#).await;
    assert_eq!(up, Some(1.0));
}
