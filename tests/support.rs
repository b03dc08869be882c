//! The shared test harness: [`start_server`] and a small HTTP client.

use bytes::Bytes;
use http::{HeaderMap, Method, Request};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A server running on this test's runtime, stopped when dropped.
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub origin: String,
    /// `127.0.0.1:<port>` of the metrics listener, when the configuration
    /// has a `metrics_addr` (its port is chosen afresh).
    pub metrics_addr: Option<String>,
    client: Client<HttpConnector, Full<Bytes>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// Start refserve on a free port of 127.0.0.1.
pub async fn start_server() -> Server {
    start_server_with(|_| {}).await
}

/// Start refserve on a free port of 127.0.0.1 with a changed configuration.
pub async fn start_server_with(change: impl FnOnce(&mut refserve::config::Config)) -> Server {
    let tables = refserve::table::Tables::Fixed(refserve::table::production());
    serve(tables, change).await
}

/// Start refserve on a free port of 127.0.0.1 serving `table` (one built
/// from a content copy, with `refserve_pipeline::preview`).
pub async fn start_server_on(table: refserve::table::Table) -> Server {
    start_server_deploying(table).await.0
}

/// Start refserve on a free port of 127.0.0.1 serving `table`, with the
/// tables it answers from: their `replace` deploys another build, as a
/// redeploy does, behind the same socket.
pub async fn start_server_deploying(
    table: refserve::table::Table,
) -> (Server, refserve::table::Tables) {
    let latest = std::sync::Arc::new(std::sync::RwLock::new(std::sync::Arc::new(table)));
    let tables = refserve::table::Tables::Swappable(latest);
    (serve(tables.clone(), |_| {}).await, tables)
}

/// Start refserve on a free port of 127.0.0.1 serving `tables`, with a
/// changed configuration.
async fn serve(
    tables: refserve::table::Tables,
    change: impl FnOnce(&mut refserve::config::Config),
) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a free port");
    let origin = format!("http://{}", listener.local_addr().expect("bound"));
    let mut config = refserve::config::Config {
        addr: listener.local_addr().expect("bound"),
        ..refserve::config::Config::default()
    };
    change(&mut config);
    let metrics = match config.metrics_addr {
        Some(_) => Some(
            tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind a free port for metrics"),
        ),
        None => None,
    };
    let metrics_addr = metrics
        .as_ref()
        .map(|listener| listener.local_addr().expect("bound").to_string());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let listeners = refserve::server::Listeners {
            public: vec![listener],
            metrics,
        };
        let shutdown = Box::pin(async {
            let _ = stopped.await;
        });
        refserve::server::run(listeners, tables, &config, None, shutdown).await;
    });
    let client = Client::builder(TokioExecutor::new()).build_http();
    Server {
        origin,
        metrics_addr,
        client,
        _stop: stop,
    }
}

/// A response, its body read whole (still encoded).
#[derive(Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as received.
    pub body: Vec<u8>,
}

impl Server {
    /// A client for another server at `origin` (nothing is started or stopped).
    pub fn client_for(origin: &str) -> Server {
        let (stop, _) = tokio::sync::oneshot::channel::<()>();
        Server {
            origin: origin.to_string(),
            metrics_addr: None,
            client: Client::builder(TokioExecutor::new()).build_http(),
            _stop: stop,
        }
    }

    /// `host:port` of the server.
    pub fn addr(&self) -> &str {
        self.origin.trim_start_matches("http://")
    }

    /// Send raw bytes on a new connection and read until the server closes it.
    pub async fn raw(&self, request: &[u8]) -> Vec<u8> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(self.addr())
            .await
            .expect("connect");
        stream.write_all(request).await.expect("send");
        let _ = stream.shutdown().await;
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response).await;
        response
    }

    /// `GET path` with the given headers.
    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.request(Method::GET, path, headers).await
    }

    /// Any method.
    pub async fn request(&self, method: Method, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.send(method, path, headers, Vec::new()).await
    }

    /// `POST` of `body`.
    pub async fn post(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Vec<u8>>,
    ) -> Reply {
        self.send(Method::POST, path, headers, body.into()).await
    }

    /// Any method, with a body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Reply {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.origin));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .expect("a valid request");
        let response = self
            .client
            .request(request)
            .await
            .expect("the server answers");
        Reply::read(response).await
    }
}

impl Reply {
    /// Read a whole response.
    pub async fn read(response: http::Response<hyper::body::Incoming>) -> Reply {
        let (parts, body) = response.into_parts();
        let body = body
            .collect()
            .await
            .expect("a whole body")
            .to_bytes()
            .to_vec();
        Reply {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body,
        }
    }

    /// The HTTP/1 responses in `bytes`, all a connection sent until it
    /// closed, in order: each head parsed and its body taken by its
    /// `Content-Length` (refserve's bodies are whole; the answer to a HEAD
    /// is not read here).
    pub fn parse_all(mut bytes: &[u8]) -> Vec<Reply> {
        let mut replies = Vec::new();
        while !bytes.is_empty() {
            let end = bytes
                .windows(4)
                .position(|window| window == b"\r\n\r\n")
                .unwrap_or_else(|| panic!("a complete head in {bytes:?}"));
            let head = std::str::from_utf8(&bytes[..end]).expect("an ASCII head");
            let mut lines = head.split("\r\n");
            let status_line = lines.next().unwrap_or_default();
            let status = status_line
                .strip_prefix("HTTP/1.1 ")
                .or_else(|| status_line.strip_prefix("HTTP/1.0 "))
                .and_then(|rest| rest.get(..3))
                .and_then(|code| code.parse().ok())
                .unwrap_or_else(|| panic!("an HTTP/1 status line: {status_line:?}"));
            let mut headers = HeaderMap::new();
            for line in lines {
                let (name, value) = line
                    .split_once(':')
                    .unwrap_or_else(|| panic!("a header line: {line:?}"));
                headers.append(
                    http::HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
                    http::HeaderValue::from_str(value.trim()).expect("a header value"),
                );
            }
            let length: usize = headers.get("content-length").map_or(0, |length| {
                length
                    .to_str()
                    .ok()
                    .and_then(|l| l.parse().ok())
                    .expect("a length")
            });
            let rest = &bytes[end + 4..];
            assert!(
                rest.len() >= length,
                "a whole body of {length} bytes in {rest:?}"
            );
            replies.push(Reply {
                status,
                headers,
                body: rest[..length].to_vec(),
            });
            bytes = &rest[length..];
        }
        replies
    }

    /// `error.hint` of an ErrorResponse ("" when there is none).
    pub fn hint(&self) -> String {
        self.json()["error"]["hint"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The value of a header, or "" when absent.
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map_or("", |v| v.to_str().expect("ASCII header"))
    }

    /// Every link-value of the `Link` lines, in the order received: a line
    /// may hold several, separated by commas (RFC 8288 §3), and none of
    /// ours has a comma inside one.
    pub fn links(&self) -> Vec<String> {
        let lines = self.headers.get_all("link").iter();
        let lines = lines.map(|v| v.to_str().expect("ASCII header"));
        let values = lines.flat_map(|line| line.split(", <").enumerate());
        let values = values.map(|(i, v)| {
            if i == 0 {
                v.to_string()
            } else {
                format!("<{v}")
            }
        });
        values.collect()
    }

    /// The body with its content coding removed.
    pub fn decoded(&self) -> Vec<u8> {
        decode(self.header("content-encoding"), &self.body)
    }

    /// The decoded body as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.decoded()).expect("a UTF-8 body")
    }

    /// The decoded body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.decoded()).expect("a JSON body")
    }

    /// `error.code` of an ErrorResponse, after checking the shape of 2.4.
    pub fn error_code(&self) -> String {
        let json = self.json();
        let error = json["error"].as_object().expect("an `error` object");
        assert_eq!(
            json.as_object().map(|o| o.len()),
            Some(1),
            "only `error`: {json}"
        );
        for field in ["code", "message", "hint"] {
            assert!(
                error[field].as_str().is_some_and(|s| !s.is_empty()),
                "error.{field}: {json}"
            );
        }
        assert_eq!(self.header("content-type"), "application/json");
        error["code"].as_str().unwrap_or_default().to_string()
    }
}

/// `Vary` of every page URL that negotiates its language (`/api/select`):
/// it negotiates the media type, the coding, the language and, for a
/// client holding the compression dictionary, dcb or dcz.
pub const PAGE_VARY: &str = "Accept, Accept-Encoding, Accept-Language, Available-Dictionary";

/// `Vary` of a page URL in one language (`/en/api/select`), and of an
/// error page: the same but the language.
pub const FIXED_PAGE_VARY: &str = "Accept, Accept-Encoding, Available-Dictionary";

/// `time` as bodies write a date: an HTTP date (`Sun, 22 Nov 2026
/// 00:00:00 GMT`, as `Last-Modified`) and an ISO date (`2026-11-22`, as
/// the sitemap's `lastmod`).
pub fn date_forms(time: std::time::SystemTime) -> [String; 2] {
    let http = httpdate::fmt_http_date(time);
    let words: Vec<&str> = http.split(' ').collect();
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = 1 + months.iter().position(|m| *m == words[2]).expect("a month");
    let iso = format!("{}-{month:02}-{}", words[3], words[1]);
    [http, iso]
}

/// Undo a content coding.
pub fn decode(coding: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match coding {
        "" => out.extend_from_slice(body),
        "br" => {
            brotli::Decompressor::new(body, 4096)
                .read_to_end(&mut out)
                .expect("valid brotli");
        }
        "gzip" => {
            flate2::read::GzDecoder::new(body)
                .read_to_end(&mut out)
                .expect("valid gzip");
        }
        "dcb" => {
            let (dictionary, frame) = dictionary_frame(body, &[0xff, 0x44, 0x43, 0x42]);
            brotli_decompressor::BrotliDecompressCustomDict(
                &mut &frame[..],
                &mut out,
                &mut [0; 4096],
                &mut [0; 4096],
                dictionary.to_vec(),
            )
            .expect("valid dcb");
        }
        "dcz" => {
            let magic = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];
            let (dictionary, frame) = dictionary_frame(body, &magic);
            out = zstd::bulk::Decompressor::with_dictionary(dictionary)
                .and_then(|mut decoder| decoder.decompress(frame, 1 << 20))
                .expect("valid dcz");
        }
        other => panic!("unexpected content-encoding {other:?}"),
    }
    out
}

/// The dictionary a `dcb` or `dcz` body names (RFC 9842 §4) and the
/// compressed stream after its header. The header must open with `magic`
/// and name, by SHA-256, a dictionary the server serves.
fn dictionary_frame<'a>(body: &'a [u8], magic: &[u8]) -> (&'static [u8], &'a [u8]) {
    use sha2::Digest;
    let rest = body.strip_prefix(magic).expect("the RFC 9842 magic");
    let (hash, frame) = rest.split_at(32);
    let dictionary = served_dictionary();
    assert_eq!(
        sha2::Sha256::digest(dictionary).as_slice(),
        hash,
        "the header names the served dictionary by its SHA-256"
    );
    (dictionary, frame)
}

/// The bytes of the compression dictionary, as `GET` of its path serves them.
pub fn served_dictionary() -> &'static [u8] {
    let dictionary = &refserve::table::production().dictionaries[0];
    refserve::table::production()
        .resource(&dictionary.path)
        .expect("the dictionary is served")
        .representations[0]
        .identity()
        .body
        .as_ref()
}

/// `Available-Dictionary` for the served dictionary: its SHA-256 as a
/// Structured Field byte sequence (RFC 8941 §3.3.5).
pub fn available_dictionary() -> String {
    use sha2::Digest;
    format!(":{}:", base64(&sha2::Sha256::digest(served_dictionary())))
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The most memory process `pid` has held (`VmHWM`), in KiB.
pub fn peak_kib(pid: u32) -> u64 {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process's /proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("VmHWM in {status}"))
}

/// Start `command` with its standard error piped; returns it with that
/// stream, its first line read.
pub fn spawn_with_first_line(
    mut command: Command,
) -> (
    std::process::Child,
    String,
    std::io::BufReader<std::process::ChildStderr>,
) {
    use std::io::BufRead;
    let mut child = command
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("piped"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("a first line");
    (child, line, stderr)
}

/// Start the binary on a free port of 127.0.0.1 with `args` besides
/// `--addr`; returns it, the scheme and address of its startup line
/// (`refserve 0.1.0 listening on https://127.0.0.1:PORT …`) and its
/// standard error after that line.
pub fn spawn_refserve<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
) -> (
    std::process::Child,
    (String, String),
    std::io::BufReader<std::process::ChildStderr>,
) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_refserve"));
    command.args(["--addr", "127.0.0.1:0"]).args(args);
    let (child, line, stderr) = spawn_with_first_line(command);
    let (scheme, rest) = line
        .split(" listening on ")
        .nth(1)
        .and_then(|rest| rest.split_once("://"))
        .unwrap_or_else(|| panic!("an address in {line:?}"));
    let addr = rest.split(' ').next().unwrap_or_default();
    (child, (scheme.to_string(), addr.to_string()), stderr)
}

/// A fresh directory under the system's temporary directory, removed on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    /// An empty directory whose name starts with `refserve-<name>`.
    pub fn new(name: &str) -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "refserve-{name}-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        Scratch(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Write `name` (a relative path) in the directory and return its path.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).expect("write a scratch file");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Make a FIFO (a named pipe) at `path`.
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// The keys of the methods `content/` ships (`methods/<key>.md`), sorted:
/// what tests of behaviour expect, where a literal count would go stale.
pub fn shipped_methods() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("content/methods");
    let mut keys: Vec<String> = std::fs::read_dir(dir)
        .expect("content/methods")
        .map(|item| {
            item.expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter_map(|name| name.strip_suffix(".md").map(str::to_string))
        .collect();
    keys.sort();
    keys
}

/// The method file `text` of method `from` rewritten as method `to`, as an
/// author copying a file would: its key, name, signatures and the example
/// calls renamed.
pub fn method_renamed(text: &str, from: &str, to: &str) -> String {
    text.replace(&format!("key = \"{from}\""), &format!("key = \"{to}\""))
        .replace(&format!("name = \"{from}\""), &format!("name = \"{to}\""))
        .replace(&format!("{from}("), &format!("{to}("))
}

/// A scratch directory holding a copy of `content/` as `content`.
pub fn content_copy(name: &str) -> Scratch {
    let scratch = Scratch::new(name);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("content");
    copy_dir(&source, &scratch.path().join("content"));
    scratch
}

/// Add front matter lines (lifecycle marks: `deprecated = { … }`) to the
/// method `key` of a content copy, right after its opening `+++`.
pub fn mark_method(scratch: &Scratch, key: &str, marks: &str) {
    let file = format!("content/methods/{key}.md");
    let text = std::fs::read_to_string(scratch.path().join(&file)).expect("a method file");
    let front = text.strip_prefix("+++\n").expect("front matter");
    scratch.write(&file, format!("+++\n{marks}\n{front}"));
}

/// A copy of `content/` whose methods have lifecycle marks
/// ([`mark_lifecycles`]).
pub fn lifecycle_copy(name: &str) -> Scratch {
    let scratch = content_copy(name);
    mark_lifecycles(&scratch);
    scratch
}

/// Give methods of a content copy lifecycle marks: `select` since 1.0,
/// `rand` deprecated in 2.0 for `select`, `last` deprecated in 2.0 and
/// removed in 3.0 for `log`, and `info` removed in 3.0 with no successor.
pub fn mark_lifecycles(scratch: &Scratch) {
    mark_method(
        scratch,
        "select",
        "since = { version = \"1.0\", date = 2024-01-15 }",
    );
    mark_method(
        scratch,
        "rand",
        "deprecated = { version = \"2.0\", date = 2026-03-01, use = \"select\" }",
    );
    mark_method(
        scratch,
        "last",
        "deprecated = { version = \"2.0\", date = 2026-03-01, use = \"log\" }\n\
         removed = { version = \"3.0\", date = \"2026-09-01\", use = \"log\" }",
    );
    mark_method(
        scratch,
        "info",
        "removed = { version = \"3.0\", date = 2026-09-01 }",
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for item in std::fs::read_dir(from).expect("read content") {
        let item = item.expect("entry");
        let target = to.join(item.file_name());
        if item.path().is_dir() {
            copy_dir(&item.path(), &target);
        } else {
            std::fs::copy(item.path(), target).expect("copy");
        }
    }
}

/// The directory `tests/tools/full` installed the external test tools in
/// (with `tests/tools/install.sh`), which it names in `REFSERVE_TEST_TOOLS`.
///
/// Plain `cargo test` installs and runs none of them: every test that drives
/// one is marked `#[ignore = "external tool: tests/tools/full"]`, and that
/// script runs exactly those. A test that reaches a tool without the mark
/// fails here, under `cargo test`, rather than on a machine without the tool.
pub fn tools() -> &'static Path {
    static TOOLS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| {
        let dir = std::env::var_os("REFSERVE_TEST_TOOLS").unwrap_or_else(|| {
            panic!(
                "this test drives an external tool: mark it \
                 #[ignore = \"external tool: tests/tools/full\"] and run it with tests/tools/full"
            )
        });
        PathBuf::from(dir)
    })
}

/// A program installed system-wide by `tests/tools/install.sh` (chromium,
/// node, java, php, xmllint, varnishd, nginx, ...): on PATH, or in the
/// `sbin` directories Debian puts daemons in (not always on PATH). Only
/// under `tests/tools/full`, as [`tools`].
pub fn system_tool(name: &str) -> PathBuf {
    tools();
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed (tests/tools/install.sh installs it)"))
}

/// A program of the Python venv.
pub fn python_tool(name: &str) -> Command {
    Command::new(tools().join("venv/bin").join(name))
}

/// A program of the npm packages.
pub fn node_tool(name: &str) -> Command {
    Command::new(tools().join("node/node_modules/.bin").join(name))
}

/// A file shipped by one of the npm packages.
pub fn node_file(path: &str) -> PathBuf {
    tools().join("node/node_modules").join(path)
}

/// What a tool did: whether it exited 0, its standard output, and the
/// command with all it printed.
pub struct Outcome {
    /// Whether it exited 0.
    pub success: bool,
    /// Its standard output.
    pub stdout: String,
    /// The command line, its status and all it printed.
    pub output: String,
}

impl Outcome {
    #[track_caller]
    pub fn assert_success(&self) {
        assert!(self.success, "{}", self.output);
    }
}

/// Run a command to its end off this runtime's thread, which the server
/// under test shares.
pub async fn run(mut command: Command) -> Outcome {
    let line = format!("{command:?}");
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("the command's thread")
        .unwrap_or_else(|e| panic!("cannot start {line}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    Outcome {
        success: output.status.success(),
        output: format!(
            "$ {line}\n{}\n{stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
        stdout,
    }
}

/// Call MCP tool `tool` with `arguments` (protocol 2025-11-25, as the
/// tests' clients speak it); its `result`, after checking the call got 200.
pub async fn mcp_call(
    server: &Server,
    tool: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments },
    });
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let reply = server.post("/mcp", &headers, body.to_string()).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    reply.json()["result"].clone()
}

/// The lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes.as_ref())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `text` percent-encoded as a URL's query or path segment: every byte but
/// the unreserved characters (RFC 3986 §2.3) escaped.
pub fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}
