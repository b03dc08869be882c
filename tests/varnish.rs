//! refserve behind a real shared cache: `varnishd` running
//! `deploy/varnish.vcl` in front of the server under test. Through the cache,
//! each coding and each representation is its own object, header spellings
//! that mean the same thing share one, 304s still work, errors are kept
//! no longer than their `Cache-Control` says, and `/mcp` is passed through.
//! `varnish/objects.rs`: codings and representations as objects, and the
//! dictionary-compressed body; `varnish/keys.rs`: spellings sharing one
//! object, `/search`'s normalised query; `varnish/freshness.rs`: 304s and
//! how long answers are kept; `varnish/pass.rs`: `/mcp` passed through;
//! `varnish/languages.rs`: one object per language on the addresses that
//! negotiate it, whatever the spelling of `Accept-Language`;
//! `varnish/purge.rs`: a deploy purges what it changed and nothing else.
//!
//! These tests run under `tests/tools/full`, after `tests/tools/install.sh`
//! installs Varnish (Debian's `varnish`) when `varnishd` is missing.

mod freshness;
mod keys;
mod languages;
mod objects;
mod pass;
mod purge;

use crate::support::{Reply, Scratch, Server};
use bytes::Bytes;
use http::{Method, Request};
use http_body_util::Full;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::Duration;

/// What `varnishd -F` prints once its cache process runs (and the listening
/// socket, opened by the manager before, is served).
const STARTED: &str = "said Child starts";

/// How long `varnishd` may take to compile the VCL and start its child.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The `varnishd` binary, installed by `tests/tools/install.sh` if missing.
fn varnishd() -> &'static Path {
    static VARNISHD: OnceLock<PathBuf> = OnceLock::new();
    VARNISHD.get_or_init(|| crate::support::system_tool("varnishd"))
}

/// `deploy/varnish.vcl` pointed at `backend` (its `.port = "8080";` is
/// replaced), plus a test-only `vcl_deliver` that shows the remaining TTL
/// and grace of the object served, and whether the request was looked up
/// and found a hit-for-miss object (the mark of an unstorable answer)
/// rather than passed. VCL appends a second definition of a subroutine to
/// the first, so it runs after the file's own (which must therefore not
/// `return`).
fn vcl_for(backend: &Server) -> String {
    let vcl = include_str!("../deploy/varnish.vcl");
    let port = backend.addr().rsplit(':').next().expect("host:port");
    let default = ".port = \"8080\";";
    assert_eq!(
        vcl.matches(default).count(),
        1,
        "deploy/varnish.vcl names its backend port once"
    );
    assert!(vcl.contains(".host = \"127.0.0.1\";"));
    let mut vcl = vcl.replace(default, &format!(".port = \"{port}\";"));
    vcl.push_str(
        "\n# Added by tests/varnish.rs.\n\
         sub vcl_deliver {\n\
         \x20   set resp.http.X-Test-TTL = obj.ttl;\n\
         \x20   set resp.http.X-Test-Grace = obj.grace;\n\
         \x20   set resp.http.X-Test-Hitmiss = req.is_hitmiss;\n\
         }\n",
    );
    vcl
}

/// A `varnishd` in front of a refserve, stopped (with its cache process)
/// when dropped.
struct Varnish {
    /// `http://127.0.0.1:<port>`.
    origin: String,
    client: Client<HttpConnector, Full<Bytes>>,
    process: Child,
    /// Everything varnishd printed so far.
    output: Arc<Mutex<String>>,
    _dir: Scratch,
}

impl Drop for Varnish {
    fn drop(&mut self) {
        // The cache process exits when its manager's pipe closes.
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// How a `varnishd` start ended.
enum Start {
    Running(Box<Varnish>),
    /// The port was taken between choosing it and varnishd binding it.
    PortTaken(String),
    /// Anything else: what went wrong, with all varnishd printed.
    Failed(String),
}

impl Varnish {
    /// Start `varnishd` in front of `backend` and wait until it answers.
    async fn start(backend: &Server) -> Varnish {
        let vcl = vcl_for(backend);
        let varnishd = varnishd();
        let mut last = String::new();
        for _ in 0..3 {
            let vcl = vcl.clone();
            let start = tokio::task::spawn_blocking(move || Varnish::spawn(varnishd, &vcl))
                .await
                .expect("the thread starting varnishd");
            match start {
                Start::Running(varnish) => {
                    // It must answer, through to refserve, right away.
                    let reply = varnish.get("/robots.txt", &[]).await;
                    assert_eq!(reply.status, 200, "{}", varnish.output());
                    return *varnish;
                }
                Start::PortTaken(output) => last = output,
                Start::Failed(message) => panic!("{message}"),
            }
        }
        panic!("varnishd found its port taken three times:\n{last}");
    }

    /// Run `varnishd -F` on a free port and read what it prints until its
    /// cache process has started, or it has exited.
    fn spawn(varnishd: &Path, vcl: &str) -> Start {
        let dir = Scratch::new("varnish");
        let vcl = dir.write("refserve.vcl", vcl);
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let mut command = Command::new(varnishd);
        command
            .arg("-F")
            .arg("-n")
            .arg(dir.path().join("work"))
            .args(["-a", &format!("127.0.0.1:{port}")])
            .arg("-f")
            .arg(&vcl)
            .args(["-p", "http_gzip_support=off"])
            .args(["-s", "malloc,32m"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let line = format!("{command:?}");
        let mut process = match command.spawn() {
            Ok(process) => process,
            Err(e) => return Start::Failed(format!("cannot start {line}: {e}")),
        };
        let output = Arc::new(Mutex::new(format!("$ {line}\n")));
        let (lines, started) = mpsc::channel::<String>();
        let stdout = process.stdout.take().expect("piped stdout");
        let stderr = process.stderr.take().expect("piped stderr");
        forward(stdout, Arc::clone(&output), lines.clone());
        forward(stderr, Arc::clone(&output), lines);
        let printed =
            |output: &Arc<Mutex<String>>| output.lock().expect("varnishd's output").clone();
        // Event-driven: each line varnishd prints wakes this loop up; both
        // pipes closing (varnishd exited) ends it.
        let deadline = std::time::Instant::now() + START_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match started.recv_timeout(left) {
                Ok(line) if line.contains(STARTED) => break,
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = process.kill();
                    let _ = process.wait();
                    return Start::Failed(format!(
                        "varnishd did not start in {START_TIMEOUT:?}:\n{}",
                        printed(&output)
                    ));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = process
                        .wait()
                        .map_or_else(|e| e.to_string(), |status| status.to_string());
                    let printed = printed(&output);
                    if printed.contains("Address already in use") {
                        return Start::PortTaken(printed);
                    }
                    return Start::Failed(format!("varnishd exited ({status}):\n{printed}"));
                }
            }
        }
        let client = Client::builder(TokioExecutor::new())
            // A new connection per request: no request ever meets a
            // keep-alive connection that varnishd has just timed out.
            .pool_max_idle_per_host(0)
            .build_http();
        Start::Running(Box::new(Varnish {
            origin: format!("http://127.0.0.1:{port}"),
            client,
            process,
            output,
            _dir: dir,
        }))
    }

    fn output(&self) -> String {
        self.output.lock().expect("varnishd's output").clone()
    }

    /// `GET path` through the cache.
    async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.request(Method::GET, path, headers).await
    }

    /// Any method through the cache.
    async fn request(&self, method: Method, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.send(method, path, headers, Vec::new()).await
    }

    /// `POST` of `body` through the cache.
    async fn post(&self, path: &str, headers: &[(&str, &str)], body: String) -> Reply {
        self.send(Method::POST, path, headers, body.into()).await
    }

    /// Any method, with a body, through the cache.
    async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Reply {
        let mut request = Request::builder()
            .method(method.clone())
            .uri(format!("{}{path}", self.origin));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .expect("a valid request");
        let response = match self.client.request(request).await {
            Ok(response) => response,
            Err(e) => panic!("{method} {path} through varnishd: {e:?}\n{}", self.output()),
        };
        Reply::read(response).await
    }
}

/// Copy each line `from` prints into `output` and to `lines`.
fn forward(
    from: impl Read + Send + 'static,
    output: Arc<Mutex<String>>,
    lines: mpsc::Sender<String>,
) {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let mut all = output.lock().expect("varnishd's output");
            all.push_str(&line);
            all.push('\n');
            drop(all);
            // Nobody listens once varnishd has started.
            let _ = lines.send(line);
        }
    });
}

/// `HIT`, `MISS` or `PASS`, from the VCL's `X-Cache`, checked against
/// Varnish's own `X-Varnish` (two transaction ids on a hit, one otherwise).
#[track_caller]
fn cache_state(reply: &Reply) -> &str {
    let state = reply.header("x-cache");
    let ids = reply.header("x-varnish").split_whitespace().count();
    match state {
        "HIT" => assert_eq!(ids, 2, "a hit names the object's transaction: {reply:?}"),
        "MISS" | "PASS" => assert_eq!(ids, 1, "{reply:?}"),
        other => panic!("X-Cache {other:?}: {reply:?}"),
    }
    state
}

/// A duration header of the test's `vcl_deliver`, in seconds.
#[track_caller]
fn seconds(reply: &Reply, name: &str) -> f64 {
    reply
        .header(name)
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {e}: {reply:?}"))
}

/// Request headers, as [`Server::get`] takes them.
type Headers<'a> = &'a [(&'a str, &'a str)];
