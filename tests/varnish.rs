//! refserve behind a real shared cache: `varnishd` running
//! `deploy/varnish.vcl` in front of the server under test. Through the cache,
//! each coding and each representation is its own object, header spellings
//! that mean the same thing share one, 304s still work, errors are kept
//! no longer than their `Cache-Control` says, and `/mcp` is passed through.
//!
//! `tests/tools/install.sh` installs Varnish (Debian's `varnish`) when
//! `varnishd` is missing; if it cannot, these tests fail with its output.

use crate::support::{start_server, Reply, Scratch, Server};
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
    VARNISHD.get_or_init(|| {
        crate::support::tools();
        crate::support::system_tool("varnishd")
    })
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

/// The page URLs, and the JSON documents, the tests go through.
const PAGES: [&str; 2] = ["/", "/api/select"];
const DOCUMENTS: [&str; 2] = ["/api/reference.json", "/api/reference/select.json"];

#[tokio::test]
async fn each_coding_is_its_own_object() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for path in DOCUMENTS.into_iter().chain(PAGES) {
        let plain = server.get(path, &[]).await;
        assert_eq!(plain.header("content-encoding"), "");
        // br, gzip and identity clients, one after the other: each misses
        // the first time although the others are stored, and hits after.
        for round in ["MISS", "HIT"] {
            for (accept_encoding, coding) in [("br", "br"), ("gzip", "gzip"), ("", "")] {
                let headers: &[(&str, &str)] = if accept_encoding.is_empty() {
                    &[]
                } else {
                    &[("accept-encoding", accept_encoding)]
                };
                let direct = server.get(path, headers).await;
                let reply = varnish.get(path, headers).await;
                let what = format!("{path} {accept_encoding:?} ({round})");
                assert_eq!(reply.status, 200, "{what}");
                assert_eq!(cache_state(&reply), round, "{what}");
                assert_eq!(reply.header("content-encoding"), coding, "{what}");
                assert_eq!(reply.decoded(), plain.body, "{what}");
                // Nothing the cache could weaken or drop.
                for name in ["etag", "vary", "cache-control", "content-type"] {
                    assert_eq!(reply.header(name), direct.header(name), "{what}: {name}");
                }
                assert!(reply.header("etag").starts_with('"'), "strong: {what}");
            }
        }
    }
}

#[tokio::test]
async fn codings_are_the_ones_refserve_chooses() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for accept_encoding in [
        "br",
        "gzip",
        "identity",
        "",
        "gzip, deflate, br, zstd",
        "gzip, br",
        "br;q=0.5, gzip;q=0.9",
        "br;q=0, gzip",
        "br;q=0.",
        "BR",
        "x-gzip",
        "*",
        "*;q=0, identity",
        "gzip;q=0, br;q=0",
        "deflate",
        "br;q=nonsense, gzip;q=0.1",
        "identity;q=0.5, gzip;q=0.4",
        "br;q=0.5, identity",
        "zstd, *;q=0.1",
        "br ; q=0.9 , gzip ; Q=1",
        // Nothing acceptable: 406, through the cache too.
        "identity;q=0",
        "gzip;q=0, br;q=0, identity;q=0",
        "*;q=0",
    ] {
        for path in ["/api/reference.json", "/api/select"] {
            let headers = [("accept-encoding", accept_encoding)];
            let direct = server.get(path, &headers).await;
            let reply = varnish.get(path, &headers).await;
            let what = format!("{path} {accept_encoding:?}");
            assert_eq!(reply.status, direct.status, "{what}");
            assert_eq!(
                reply.header("content-encoding"),
                direct.header("content-encoding"),
                "{what}"
            );
            if reply.status == 406 && path.ends_with(".json") {
                assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            } else if reply.status == 406 {
                // Without Accept a page's error is JSON; the cache asked
                // as an HTML client (page URLs get a canonical Accept).
                assert_eq!(direct.header("content-type"), "application/json");
                assert_eq!(reply.header("content-type"), "text/html; charset=utf-8");
                assert_eq!(
                    reply.decoded(),
                    server
                        .get(path, &[headers[0], ("accept", "text/html")])
                        .await
                        .decoded(),
                    "{what}"
                );
            } else {
                assert_eq!(reply.header("etag"), direct.header("etag"), "{what}");
                assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            }
            assert_eq!(
                reply.header("cache-control"),
                direct.header("cache-control"),
                "{what}"
            );
        }
    }
}

#[tokio::test]
async fn markdown_and_html_are_separate_objects() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let agent = "text/markdown, text/html;q=0.5";
    for path in PAGES {
        let html = server.get(path, &[("accept", "text/html")]).await;
        let markdown = server.get(path, &[("accept", "text/markdown")]).await;
        assert_eq!(html.header("content-type"), "text/html; charset=utf-8");
        assert_eq!(
            markdown.header("content-type"),
            "text/markdown; charset=utf-8"
        );
        // HTML, then Markdown while HTML is stored, then each again.
        for (accept, expected, state) in [
            (browser, &html, "MISS"),
            (agent, &markdown, "MISS"),
            (browser, &html, "HIT"),
            (agent, &markdown, "HIT"),
        ] {
            for accept_encoding in ["br", "gzip"] {
                let headers = [("accept", accept), ("accept-encoding", accept_encoding)];
                let reply = varnish.get(path, &headers).await;
                let what = format!("{path} {headers:?}");
                assert_eq!(reply.status, 200, "{what}");
                assert_eq!(cache_state(&reply), state, "{what}");
                assert_eq!(
                    reply.header("content-type"),
                    expected.header("content-type"),
                    "{what}"
                );
                assert_eq!(reply.header("content-encoding"), accept_encoding, "{what}");
                assert_eq!(reply.decoded(), expected.body, "{what}");
                assert_eq!(reply.header("vary"), crate::support::PAGE_VARY, "{what}");
                assert_eq!(
                    reply.header("x-markdown-tokens"),
                    expected.header("x-markdown-tokens"),
                    "{what}"
                );
            }
        }
    }
}

#[tokio::test]
async fn page_representations_are_the_ones_refserve_chooses() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for accept in [
        None,
        Some("*/*"),
        Some("text/html"),
        Some("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
        Some("text/markdown"),
        Some("TEXT/MARKDOWN"),
        Some("text/markdown;charset=utf-8"),
        Some("text/markdown, text/html;q=0.5"),
        Some("text/html, text/markdown;q=0.1"),
        Some("text/markdown;q=0.9, text/html;q=0.8"),
        Some("text/markdown;q=0.5, text/html;q=0.5"),
        Some("text/markdown;q=0.5;ext=1, text/html;q=0.4"),
        Some("text/*"),
        Some("text/*;q=0.5, text/markdown"),
        Some("text/markdown, */*;q=0.1"),
        Some("text/plain, text/markdown;q=0.3, */*;q=0.2"),
        Some("text/html;level=1, text/markdown;q=0.5"),
        Some("nonsense"),
        // Neither HTML nor Markdown: 406, through the cache too.
        Some("application/json"),
        Some("text/plain"),
        Some("text/html;q=0, text/markdown;q=0"),
    ] {
        for path in PAGES {
            let headers: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
            let direct = server.get(path, &headers).await;
            let reply = varnish.get(path, &headers).await;
            let what = format!("{path} {accept:?}");
            assert_eq!(reply.status, direct.status, "{what}");
            assert_eq!(
                reply.header("content-type"),
                direct.header("content-type"),
                "{what}"
            );
            assert_eq!(reply.decoded(), direct.decoded(), "{what}");
        }
    }
}

#[tokio::test]
async fn header_spellings_share_one_object() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let document = "/api/reference/insert.json";
    let page = "/api/update";
    // Per group: the first spelling stores the object, the others hit it.
    let groups: [(&str, &[Headers]); 8] = [
        (
            document,
            &[
                &[("accept-encoding", "gzip, deflate, br, zstd")],
                &[("accept-encoding", "br")],
                &[("accept-encoding", "BR;q=1")],
                &[("accept-encoding", "*")],
                &[("accept-encoding", "br"), ("accept", "text/html")],
                &[("accept-encoding", "br"), ("accept", "application/json")],
            ],
        ),
        (
            document,
            &[
                &[("accept-encoding", "gzip")],
                &[("accept-encoding", "x-gzip")],
                &[("accept-encoding", "deflate, gzip")],
                &[("accept-encoding", "gzip, br;q=0")],
            ],
        ),
        (
            document,
            &[
                &[],
                &[("accept-encoding", "")],
                &[("accept-encoding", "identity")],
                &[("accept-encoding", "deflate")],
                &[("accept-encoding", "br;q=0, gzip;q=0")],
            ],
        ),
        (
            page,
            &[
                &[(
                    "accept",
                    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                )],
                &[("accept", "text/html")],
                &[("accept", "*/*")],
                &[],
                &[("accept", "text/html, text/markdown;q=0.1")],
            ],
        ),
        (
            page,
            &[
                &[("accept", "text/markdown")],
                &[("accept", "text/markdown, text/html;q=0.5")],
                &[("accept", "text/markdown;q=0.9, text/html;q=0.8")],
                &[("accept", "TEXT/MARKDOWN")],
            ],
        ),
        (
            page,
            &[
                &[
                    ("accept", "text/markdown"),
                    ("accept-encoding", "gzip, deflate, br, zstd"),
                ],
                &[
                    ("accept", "text/markdown, */*;q=0.1"),
                    ("accept-encoding", "br"),
                ],
            ],
        ),
        // The query string, which refserve ignores, and the Host.
        (
            "/api/delete",
            &[
                &[("accept-encoding", "br")],
                &[("accept-encoding", "br"), ("host", "docs.example.com")],
            ],
        ),
        (
            "/api/delete?utm_source=feed",
            &[
                &[("accept-encoding", "br")],
                &[("accept-encoding", "br;q=0.8, gzip;q=0.7")],
            ],
        ),
    ];
    for (index, (path, spellings)) in groups.iter().enumerate() {
        let mut first = None;
        for (n, headers) in spellings.iter().enumerate() {
            let reply = varnish.get(path, headers).await;
            let what = format!("{path} {headers:?}");
            assert_eq!(reply.status, 200, "{what}");
            // The `?utm_source` group finds the object the group before stored.
            let expected = if n == 0 && index != 7 { "MISS" } else { "HIT" };
            assert_eq!(cache_state(&reply), expected, "{what}");
            // The same object: its ETag and its bytes.
            let (tag, body) =
                first.get_or_insert_with(|| (reply.header("etag").to_string(), reply.decoded()));
            assert_eq!(reply.header("etag"), tag, "{what}");
            assert_eq!(&reply.decoded(), body, "{what}");
            if n == 0 {
                let direct = server.get(path, headers).await;
                assert_eq!(reply.decoded(), direct.decoded(), "{what}");
            }
        }
    }
}

#[tokio::test]
async fn revalidation_gives_304_through_the_cache() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let path = "/api/reference/select.json";
    let br = [("accept-encoding", "br")];
    let stored = varnish.get(path, &br).await;
    assert_eq!(cache_state(&stored), "MISS");
    let etag = stored.header("etag");
    assert_eq!(etag, server.get(path, &br).await.header("etag"));
    for if_none_match in [etag.to_string(), format!("W/{etag}")] {
        let reply = varnish
            .get(path, &[br[0], ("if-none-match", &if_none_match)])
            .await;
        assert_eq!(reply.status, 304, "{if_none_match}");
        assert_eq!(cache_state(&reply), "HIT", "{if_none_match}");
        assert!(reply.body.is_empty());
        assert_eq!(reply.header("etag"), etag);
        assert_eq!(reply.header("vary"), stored.header("vary"));
        assert_eq!(
            reply.header("cache-control"),
            stored.header("cache-control")
        );
    }
    // Varnish 7.1 compares If-None-Match as one entity-tag, not a list: a
    // list that names the ETag gets the whole 200 (a valid answer to any
    // conditional request), still from the cache.
    let list = format!("\"nope\", {etag}");
    let reply = varnish.get(path, &[br[0], ("if-none-match", &list)]).await;
    assert!([200, 304].contains(&reply.status), "{list}: {reply:?}");
    assert_eq!(cache_state(&reply), "HIT");
    assert_eq!(reply.header("etag"), etag);
    // Another coding's ETag does not match: the gzip client gets its body.
    let gzip = varnish
        .get(
            path,
            &[("accept-encoding", "gzip"), ("if-none-match", etag)],
        )
        .await;
    assert_eq!(gzip.status, 200);
    assert_eq!(gzip.header("content-encoding"), "gzip");

    // A client revalidating what the cache does not hold yet.
    let cold = "/api/reference/update.json";
    let known = server.get(cold, &br).await;
    let reply = varnish
        .get(cold, &[br[0], ("if-none-match", known.header("etag"))])
        .await;
    assert_eq!(reply.status, 304);
    assert_eq!(cache_state(&reply), "MISS");
    assert_eq!(reply.header("etag"), known.header("etag"));

    // Pages: each representation has its ETag.
    let markdown = [("accept", "text/markdown"), ("accept-encoding", "br")];
    let html = [("accept", "text/html"), ("accept-encoding", "br")];
    let page = varnish.get("/api/select", &markdown).await;
    assert_eq!(page.status, 200);
    let tag = page.header("etag");
    let again = varnish
        .get(
            "/api/select",
            &[markdown[0], markdown[1], ("if-none-match", tag)],
        )
        .await;
    assert_eq!(again.status, 304);
    assert_eq!(cache_state(&again), "HIT");
    assert_eq!(again.header("vary"), crate::support::PAGE_VARY);
    let other = varnish
        .get("/api/select", &[html[0], html[1], ("if-none-match", tag)])
        .await;
    assert_eq!(other.status, 200);
    assert_eq!(other.header("content-type"), "text/html; charset=utf-8");

    // HEAD is answered from the stored GET.
    let head = varnish.request(Method::HEAD, path, &br).await;
    assert_eq!(head.status, 200);
    assert_eq!(cache_state(&head), "HIT");
    assert!(head.body.is_empty());
    assert_eq!(head.header("etag"), etag);
    assert_eq!(head.header("content-length"), stored.body.len().to_string());
}

#[tokio::test]
async fn errors_are_kept_no_longer_than_they_say() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;

    // Documents: an hour, then a day of stale-while-revalidate (grace).
    let html = [("accept", "text/html")];
    let page = varnish.get("/", &html).await;
    assert_eq!(cache_state(&page), "MISS");
    assert!(
        (3500.0..=3600.0).contains(&seconds(&page, "x-test-ttl")),
        "{page:?}"
    );
    assert_eq!(seconds(&page, "x-test-grace"), 86400.0, "{page:?}");

    // 405 and 406 are no-store: never a hit, however often asked.
    for (method, path, headers) in [
        (Method::POST, "/api/reference.json", &[][..]),
        (Method::DELETE, "/", &[][..]),
        (Method::GET, "/", &[("accept", "application/json")][..]),
        (
            Method::GET,
            "/api/reference.json",
            &[("accept-encoding", "identity;q=0")][..],
        ),
    ] {
        for _ in 0..3 {
            let reply = varnish.request(method.clone(), path, headers).await;
            let what = format!("{method} {path} {headers:?}");
            assert!([405, 406].contains(&reply.status), "{what}: {reply:?}");
            assert_eq!(cache_state(&reply), "PASS", "{what}");
            assert_eq!(reply.header("cache-control"), "no-store", "{what}");
            if reply.status == 405 {
                assert_eq!(reply.header("allow"), "GET, HEAD, OPTIONS", "{what}");
            }
        }
    }
    // … and they did not displace the stored page.
    let page = varnish.get("/", &html).await;
    assert_eq!((page.status, cache_state(&page)), (200, "HIT"));

    // 404, 400 and 414 may be kept 60 seconds: stored for at most that,
    // with no grace beyond, and their Cache-Control reaches the client.
    let long = format!("/{}", "a".repeat(3000));
    for (path, status, headers) in [
        ("/api/reference/nope.json", 404, &[][..]),
        (
            "/api/reference/selct.json",
            404,
            &[("accept-encoding", "br")][..],
        ),
        ("/nope", 404, &[("accept", "text/html")][..]),
        ("/api/reference/Select.json", 400, &[][..]),
        (long.as_str(), 414, &[][..]),
    ] {
        for state in ["MISS", "HIT"] {
            let reply = varnish.get(path, headers).await;
            let what = format!("{} {headers:?} ({state})", &path[..path.len().min(40)]);
            assert_eq!(reply.status, status, "{what}");
            assert_eq!(cache_state(&reply), state, "{what}");
            assert_eq!(
                reply.header("cache-control"),
                "public, max-age=60",
                "{what}"
            );
            let ttl = seconds(&reply, "x-test-ttl");
            assert!(ttl > 0.0 && ttl <= 60.0, "{what}: TTL {ttl}");
            assert_eq!(seconds(&reply, "x-test-grace"), 0.0, "{what}");
            let age: u64 = reply.header("age").parse().expect("an Age");
            assert!(age <= 60, "{what}: Age {age}");
            assert_eq!(
                reply.decoded(),
                server.get(path, headers).await.decoded(),
                "{what}"
            );
        }
    }
}

#[tokio::test]
async fn a_dictionary_compressed_body_only_reaches_a_client_holding_the_dictionary() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let chrome = "gzip, deflate, br, zstd, dcb, dcz";
    let available = crate::support::available_dictionary();
    let other = format!(":{}:", crate::support::base64(&[1; 32]));
    let holding: Headers = &[
        ("accept", "text/html"),
        ("accept-encoding", chrome),
        ("available-dictionary", &available),
    ];
    let without: Headers = &[("accept", "text/html"), ("accept-encoding", chrome)];
    let another: Headers = &[
        ("accept", "text/html"),
        ("accept-encoding", chrome),
        ("available-dictionary", &other),
    ];
    let not_naming: Headers = &[
        ("accept", "text/html"),
        ("accept-encoding", "gzip, br"),
        ("available-dictionary", &available),
    ];
    for path in ["/", "/api/", "/api/select"] {
        let plain = server.get(path, &[("accept", "text/html")]).await;
        // The dictionary's holder first, so its object is in the cache
        // before anyone else asks.
        for (headers, coding, states) in [
            (holding, "dc", ["MISS", "HIT"]),
            (without, "br", ["MISS", "HIT"]),
            (another, "br", ["MISS", "HIT"]),
            (not_naming, "br", ["HIT", "HIT"]),
            (holding, "dc", ["HIT", "HIT"]),
        ] {
            for state in states {
                let reply = varnish.get(path, headers).await;
                let what = format!("{path} {headers:?}");
                assert_eq!(reply.status, 200, "{what}");
                assert!(
                    reply.header("content-encoding").starts_with(coding),
                    "{what}: {}",
                    reply.header("content-encoding")
                );
                assert_eq!(cache_state(&reply), state, "{what}");
                assert_eq!(reply.decoded(), plain.body, "{what}");
            }
        }
    }
}

/// The headers of an MCP request in the legacy era (no protocol version).
const MCP: Headers = &[
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// A JSON-RPC ping with `id`.
fn ping(id: u64) -> String {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}")
}

#[tokio::test]
async fn mcp_posts_are_passed_to_refserve_and_never_stored() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let direct = server.post("/mcp", MCP, ping(1)).await;
    assert_eq!(direct.status, 200, "{direct:?}");
    // The same message but for its id, one after the other, again, and
    // with a query string: each answered by refserve, with its own id.
    for (path, id) in [
        ("/mcp", 1),
        ("/mcp", 2),
        ("/mcp", 1),
        ("/mcp?utm_source=feed", 2),
        ("/mcp/", 1),
    ] {
        let reply = varnish.post(path, MCP, ping(id)).await;
        let what = format!("POST {path} id {id}");
        assert_eq!(reply.status, 200, "{what}: {reply:?}");
        assert_eq!(cache_state(&reply), "PASS", "{what}");
        assert_eq!(reply.header("content-type"), "application/json", "{what}");
        assert_eq!(reply.header("cache-control"), "no-store", "{what}");
        assert_eq!(
            reply.json(),
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "{what}"
        );
        if id == 1 {
            assert_eq!(reply.body, direct.body, "{what}");
        }
    }
    // At the same time: nothing coalesced either.
    let (three, four) = tokio::join!(
        varnish.post("/mcp", MCP, ping(3)),
        varnish.post("/mcp", MCP, ping(4)),
    );
    for (reply, id) in [(three, 3), (four, 4)] {
        assert_eq!(reply.status, 200, "id {id}: {reply:?}");
        assert_eq!(cache_state(&reply), "PASS", "id {id}");
        assert_eq!(reply.json()["id"], id, "{reply:?}");
    }
}

#[tokio::test]
async fn other_methods_on_mcp_get_refserves_405() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    for (method, path) in [
        (Method::GET, "/mcp"),
        (Method::GET, "/mcp"),
        (Method::GET, "/mcp?x=1"),
        (Method::HEAD, "/mcp"),
        (Method::DELETE, "/mcp"),
        (Method::GET, "/mcp/"),
    ] {
        let direct = server.request(method.clone(), path, &[]).await;
        let reply = varnish.request(method.clone(), path, &[]).await;
        let what = format!("{method} {path}");
        assert_eq!(reply.status, 405, "{what}: {reply:?}");
        assert_eq!(cache_state(&reply), "PASS", "{what}");
        assert_eq!(reply.header("allow"), "POST, OPTIONS", "{what}");
        assert_eq!(reply.header("cache-control"), "no-store", "{what}");
        assert_eq!(reply.body, direct.body, "{what}");
        // Passed, not looked up: a GET after a GET did not find the
        // hit-for-miss object a stored 405 would leave.
        assert_eq!(reply.header("x-test-hitmiss"), "false", "{what}");
    }
}

#[tokio::test]
async fn a_search_is_kept_by_its_normalised_query() {
    let server = start_server().await;
    let varnish = Varnish::start(&server).await;
    let json = [("accept", "application/json")];
    let first = varnish.get("/search?q=Count+Rows", &json).await;
    assert_eq!((first.status, cache_state(&first)), (200, "MISS"));
    let direct = server.get("/search?q=Count+Rows", &json).await;
    assert_eq!(first.body, direct.body);
    assert_eq!(first.header("etag"), direct.header("etag"));
    // Every spelling of the query is the stored object.
    for respelled in [
        "/search?q=Count%20%20Rows",
        "/search?q=+Count%09Rows+&utm_source=mail",
        "/search?page=2&q=Count+Rows",
        "/search?q=Count+Rows&q=other",
    ] {
        let reply = varnish.get(respelled, &json).await;
        assert_eq!(
            (reply.status, cache_state(&reply)),
            (200, "HIT"),
            "{respelled}"
        );
        assert_eq!(reply.body, first.body, "{respelled}");
        assert_eq!(reply.header("etag"), first.header("etag"), "{respelled}");
    }
    // Another query, and another representation, are objects of their own.
    let other = varnish.get("/search?q=count", &json).await;
    assert_eq!(cache_state(&other), "MISS");
    // Case is kept: a word in capitals may rank otherwise.
    let lower = varnish.get("/search?q=count+rows", &json).await;
    assert_eq!(cache_state(&lower), "MISS");
    assert_ne!(other.body, first.body);
    let html = [("accept", "text/html")];
    for state in ["MISS", "HIT"] {
        let page = varnish.get("/search?q=count+rows", &html).await;
        assert_eq!((page.status, cache_state(&page)), (200, state));
        assert_eq!(page.header("content-type"), "text/html; charset=utf-8");
        assert_eq!(page.header("vary"), "Accept");
    }
    // A browser's 303 to a method's page, and a 400, are kept their max-age.
    for state in ["MISS", "HIT"] {
        let redirect = varnish.get("/search?q=Select", &html).await;
        assert_eq!((redirect.status, cache_state(&redirect)), (303, state));
        assert_eq!(redirect.header("location"), "/api/select");
        let ttl = seconds(&redirect, "x-test-ttl");
        assert!(ttl > 0.0 && ttl <= 3600.0, "TTL {ttl}");
        let empty = varnish.get("/search?q=+", &json).await;
        assert_eq!((empty.status, cache_state(&empty)), (400, state));
        assert!(empty.body.windows(13).any(|w| w == b"query_missing"));
    }
    // Without a query, refserve's 400 too.
    let none = varnish.get("/search?x=1", &json).await;
    assert_eq!(none.status, 400);
    // Revalidation through the cache.
    let etag = first.header("etag").to_string();
    let fresh = varnish
        .get(
            "/search?q=Count+Rows",
            &[("accept", "application/json"), ("if-none-match", &etag)],
        )
        .await;
    assert_eq!(fresh.status, 304);
}
