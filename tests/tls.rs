//! HTTPS at the origin: ALPN picks h2 or HTTP/1.1, only TLS 1.2 and 1.3
//! are spoken, the certificate is read again on reload (SIGHUP for the
//! binary) with the last good one kept, bad files stop the start, cleartext
//! HTTP on the TLS port is turned away, and the handshake falls under the
//! header read timeout. Certificates are made here, at test time.

use crate::support::Scratch;
use bytes::Bytes;
use http::{Request, Version};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};
use refserve::tls::{Tls, TlsFiles};
use rustls::pki_types::{CertificateDer, ServerName};
use std::io::{BufRead, BufReader};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// A self-signed certificate for `localhost` and 127.0.0.1: PEM certificate,
/// PEM key, and the certificate's DER.
struct Certificate {
    cert: String,
    key: String,
    der: Vec<u8>,
}

impl Certificate {
    fn new() -> Certificate {
        let made = rcgen::generate_simple_self_signed(vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
        ])
        .expect("a certificate");
        Certificate {
            cert: made.cert.pem(),
            key: made.key_pair.serialize_pem(),
            der: made.cert.der().to_vec(),
        }
    }

    /// Write both files into `dir` (replacing what is there).
    fn install(&self, dir: &Scratch) -> TlsFiles {
        TlsFiles {
            cert: dir.write("cert.pem", &self.cert),
            key: dir.write("key.pem", &self.key),
        }
    }
}

/// An HTTPS server on a free port, its address and its [`Tls`] (to reload).
async fn start_https_server(
    files: TlsFiles,
    change: impl FnOnce(&mut refserve::config::Config),
) -> (String, Arc<Tls>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a free port");
    let addr = listener.local_addr().expect("bound").to_string();
    let mut config = refserve::config::Config::default();
    change(&mut config);
    let tls = Arc::new(Tls::load(files).expect("the certificate loads"));
    let serving = Arc::clone(&tls);
    tokio::spawn(async move {
        refserve::server::run(
            refserve::server::Listeners {
                public: vec![listener],
                metrics: None,
            },
            refserve::table::Tables::Fixed(refserve::table::production()),
            &config,
            Some(serving),
            Box::pin(std::future::pending()),
        )
        .await;
    });
    (addr, tls)
}

/// A TLS connection to `addr` that trusts `trusted`, offering `alpn`.
async fn connect(addr: &str, trusted: &[&Certificate], alpn: &[&[u8]]) -> TlsStream<TcpStream> {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    handshake(tcp, trusted, alpn).await
}

/// TLS over `tcp`, trusting `trusted`, offering `alpn`.
async fn handshake(
    tcp: TcpStream,
    trusted: &[&Certificate],
    alpn: &[&[u8]],
) -> TlsStream<TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    for certificate in trusted {
        roots
            .add(CertificateDer::from(certificate.der.clone()))
            .expect("a root");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").expect("a name"), tcp)
        .await
        .expect("a TLS handshake")
}

/// The DER of the certificate the server presented on `stream`.
fn presented(stream: &TlsStream<TcpStream>) -> Vec<u8> {
    stream
        .get_ref()
        .1
        .peer_certificates()
        .expect("a certificate")[0]
        .to_vec()
}

/// `GET path` on an HTTP/1.1 connection: status, version, HSTS header.
async fn get_http1(
    sender: &mut hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    path: &str,
) -> (u16, Version, Option<String>) {
    let request = Request::get(path)
        .header("host", "localhost")
        .body(Empty::new())
        .expect("a request");
    let response = sender.send_request(request).await.expect("an answer");
    let hsts = response
        .headers()
        .get("strict-transport-security")
        .map(|v| v.to_str().expect("ASCII").to_string());
    let (status, version) = (response.status().as_u16(), response.version());
    response.into_body().collect().await.expect("a body");
    (status, version, hsts)
}

/// An HTTP/2 client on `stream`.
async fn h2(stream: TlsStream<TcpStream>) -> hyper::client::conn::http2::SendRequest<Empty<Bytes>> {
    let (sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("an h2 connection");
    tokio::spawn(connection);
    sender
}

/// `GET path` on an HTTP/2 connection: status, version, HSTS header.
async fn get_h2(
    sender: &mut hyper::client::conn::http2::SendRequest<Empty<Bytes>>,
    path: &str,
) -> (u16, Version, Option<String>) {
    let request = Request::get(format!("https://localhost{path}"))
        .body(Empty::<Bytes>::new())
        .expect("a request");
    let response = sender.send_request(request).await.expect("an answer");
    let hsts = response
        .headers()
        .get("strict-transport-security")
        .map(|v| v.to_str().expect("ASCII").to_string());
    (response.status().as_u16(), response.version(), hsts)
}

/// An HTTP/1.1 client on `stream`.
async fn http1(
    stream: TlsStream<TcpStream>,
) -> hyper::client::conn::http1::SendRequest<Empty<Bytes>> {
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 connection");
    tokio::spawn(connection);
    sender
}

#[tokio::test]
async fn alpn_chooses_h2_or_http1_and_every_response_carries_hsts() {
    let (dir, certificate) = (Scratch::new("tls-alpn"), Certificate::new());
    let (addr, _tls) = start_https_server(certificate.install(&dir), |_| {}).await;

    let stream = connect(&addr, &[&certificate], &[b"h2", b"http/1.1"]).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    let (status, version, hsts) = get_h2(&mut h2(stream).await, "/api/select").await;
    assert_eq!((status, version), (200, Version::HTTP_2));
    assert_eq!(hsts.as_deref(), Some("max-age=31536000"));

    let stream = connect(&addr, &[&certificate], &[b"http/1.1"]).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    let mut sender = http1(stream).await;
    for (path, expected) in [("/", 200), ("/api/reference.json", 200), ("/nope", 404)] {
        let (status, version, hsts) = get_http1(&mut sender, path).await;
        assert_eq!(version, Version::HTTP_11, "{path}");
        assert_eq!(status, expected, "{path}");
        assert_eq!(hsts.as_deref(), Some("max-age=31536000"), "{path}");
    }

    // No ALPN at all: HTTP/1.1.
    let stream = connect(&addr, &[&certificate], &[]).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), None);
    let (status, version, _) = get_http1(&mut http1(stream).await, "/").await;
    assert_eq!((status, version), (200, Version::HTTP_11));
}

#[tokio::test]
async fn cleartext_responses_carry_no_hsts() {
    let server = crate::support::start_server().await;
    let reply = server.get("/", &[]).await;
    assert_eq!(reply.status, 200);
    assert!(reply.headers.get("strict-transport-security").is_none());
}

/// A ClientHello that offers TLS 1.1 at most: legacy version 3.2 and no
/// `supported_versions` extension, with common TLS 1.0/1.1 cipher suites
/// and `signature_algorithms` (without which a server refuses before it
/// looks at the version).
fn tls11_client_hello() -> Vec<u8> {
    let mut body = vec![0x03, 0x02];
    body.extend_from_slice(&[7; 32]); // random
    body.push(0); // no session id
    let suites: [u16; 4] = [0xc013, 0xc014, 0x002f, 0x0035];
    body.extend_from_slice(&((suites.len() * 2) as u16).to_be_bytes());
    for suite in suites {
        body.extend_from_slice(&suite.to_be_bytes());
    }
    body.extend_from_slice(&[1, 0]); // null compression
                                     // Extensions: signature_algorithms (13) with ecdsa_secp256r1_sha256 and
                                     // rsa_pkcs1_sha256.
    body.extend_from_slice(&[0, 10, 0, 13, 0, 6, 0, 4, 4, 3, 4, 1]);
    let mut handshake = vec![1];
    handshake.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    handshake.extend_from_slice(&body);
    let mut record = vec![0x16, 0x03, 0x01];
    record.extend_from_slice(&(handshake.len() as u16).to_be_bytes());
    record.extend_from_slice(&handshake);
    record
}

#[tokio::test]
async fn tls_1_1_is_refused_with_a_protocol_version_alert() {
    let (dir, certificate) = (Scratch::new("tls-old"), Certificate::new());
    let (addr, _tls) = start_https_server(certificate.install(&dir), |_| {}).await;
    let mut stream = TcpStream::connect(&addr).await.expect("connect");
    stream.write_all(&tls11_client_hello()).await.expect("send");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("closed")
        .expect("read");
    // One alert record: level fatal (2), protocol_version (70).
    assert_eq!(answer.first(), Some(&0x15), "an alert record: {answer:?}");
    assert_eq!(&answer[answer.len() - 2..], &[2, 70], "{answer:?}");
    // The server goes on serving.
    connect(&addr, &[&certificate], &[]).await;
}

#[tokio::test]
async fn cleartext_http_on_the_tls_port_gets_an_error_and_others_are_served() {
    let (dir, certificate) = (Scratch::new("tls-plain"), Certificate::new());
    let (addr, _tls) = start_https_server(certificate.install(&dir), |_| {}).await;
    let open = connect(&addr, &[&certificate], &[]).await;
    let mut sender = http1(open).await;

    let mut plain = TcpStream::connect(&addr).await.expect("connect");
    plain
        .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .expect("send");
    let mut answer = Vec::new();
    plain.read_to_end(&mut answer).await.expect("read");
    let answer = String::from_utf8(answer).expect("text");
    assert!(
        answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{answer}"
    );
    let body = answer.split_once("\r\n\r\n").expect("a body").1;
    let error: serde_json::Value = serde_json::from_str(body).expect("JSON");
    assert_eq!(error["error"]["code"], "plain_http_on_tls_port");

    let (status, _, _) = get_http1(&mut sender, "/").await;
    assert_eq!(status, 200, "the connection open before is still served");
}

#[tokio::test]
async fn a_stalled_handshake_is_closed_after_the_header_read_timeout() {
    let (dir, certificate) = (Scratch::new("tls-stall"), Certificate::new());
    let (addr, _tls) = start_https_server(certificate.install(&dir), |c| {
        c.header_read_timeout = Duration::from_secs(1);
    })
    .await;
    let hello = tls11_client_hello();
    for partial in [&hello[..1], &hello[..5], &hello[..20]] {
        let mut stalled = TcpStream::connect(&addr).await.expect("connect");
        stalled.write_all(partial).await.expect("send");
        let mut received = Vec::new();
        let read =
            tokio::time::timeout(Duration::from_secs(2), stalled.read_to_end(&mut received)).await;
        assert!(
            read.is_ok(),
            "still open after 2 s with {} bytes",
            partial.len()
        );
    }
    connect(&addr, &[&certificate], &[]).await;
}

#[tokio::test]
async fn reload_serves_the_new_certificate_to_new_connections_only() {
    let dir = Scratch::new("tls-reload");
    let (first, second) = (Certificate::new(), Certificate::new());
    let (addr, tls) = start_https_server(first.install(&dir), |_| {}).await;
    let trusted = [&first, &second];

    let before = connect(&addr, &trusted, &[]).await;
    assert_eq!(presented(&before), first.der);
    let mut before = http1(before).await;

    second.install(&dir);
    tls.reload().expect("the new files load");
    let after = connect(&addr, &trusted, &[]).await;
    assert_eq!(presented(&after), second.der);
    let (status, _, _) = get_http1(&mut before, "/").await;
    assert_eq!(status, 200, "the connection opened before is untouched");

    // A bad file: the reload fails, naming it, and the last good stays.
    dir.write("cert.pem", "not a certificate");
    let error = tls.reload().expect_err("refused");
    assert!(
        error.contains("cert.pem") && error.contains("no certificate"),
        "{error}"
    );
    assert_eq!(presented(&connect(&addr, &trusted, &[]).await), second.der);
}

/// The binary with `extra` and `--tls-cert`/`--tls-key` on a free port: the
/// child, its address and its standard error after the startup line.
fn spawn_https(
    files: &TlsFiles,
    extra: &[&str],
) -> (
    std::process::Child,
    String,
    BufReader<std::process::ChildStderr>,
) {
    let mut args: Vec<std::ffi::OsString> = extra.iter().map(Into::into).collect();
    args.extend(["--tls-cert".into(), files.cert.clone().into()]);
    args.extend(["--tls-key".into(), files.key.clone().into()]);
    let (child, (scheme, addr), stderr) = crate::support::spawn_refserve(&args);
    assert_eq!(scheme, "https");
    (child, addr, stderr)
}

/// Send `signal` to `child`.
fn signal(child: &std::process::Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[tokio::test]
async fn sighup_reloads_the_binarys_certificate_and_keeps_the_last_good_one() {
    let dir = Scratch::new("tls-sighup");
    let (first, second) = (Certificate::new(), Certificate::new());
    let (mut child, addr, mut stderr) = spawn_https(&first.install(&dir), &[]);
    let trusted = [&first, &second];
    assert_eq!(presented(&connect(&addr, &trusted, &[]).await), first.der);

    second.install(&dir);
    signal(&child, "-HUP");
    let mut line = String::new();
    stderr.read_line(&mut line).expect("a log line");
    assert!(line.contains("reloaded the TLS certificate"), "{line}");
    assert_eq!(presented(&connect(&addr, &trusted, &[]).await), second.der);

    dir.write("key.pem", first.key.as_bytes());
    signal(&child, "-HUP");
    line.clear();
    stderr.read_line(&mut line).expect("a log line");
    assert!(
        line.contains("key.pem: the key does not match the certificate")
            && line.contains("keeping the last good certificate"),
        "{line}"
    );
    assert_eq!(presented(&connect(&addr, &trusted, &[]).await), second.der);

    signal(&child, "-TERM");
    assert!(child.wait().expect("exits").success());
}

#[tokio::test]
async fn https_composes_with_the_access_log_the_cap_and_the_drain() {
    let (dir, certificate) = (Scratch::new("tls-compose"), Certificate::new());
    let (mut child, addr, mut stderr) = spawn_https(
        &certificate.install(&dir),
        &[
            "--access-log",
            "--max-connections",
            "2",
            "--max-streams",
            "4",
        ],
    );
    let mut busy = h2(connect(&addr, &[&certificate], &[b"h2"]).await).await;
    let (status, ..) = get_h2(&mut busy, "/llms.txt").await;
    assert_eq!(status, 200);
    let mut line = String::new();
    stderr.read_line(&mut line).expect("an access-log line");
    assert!(line.contains("GET \"/llms.txt\" HTTP/2.0 200"), "{line}");

    // A second, idle HTTP/1.1 connection is served within the cap of two
    // (what beyond the cap waits is tests/limits.rs's concern); the drain
    // closes both and the process exits 0.
    let mut idle = http1(connect(&addr, &[&certificate], &[]).await).await;
    let (status, _, _) = get_http1(&mut idle, "/healthz").await;
    assert_eq!(status, 200);
    signal(&child, "-TERM");
    assert!(child.wait().expect("exits").success());
}

#[tokio::test]
async fn an_https_client_that_never_reads_is_closed() {
    use crate::stalls::{closed_unread, small_window_connection};
    let (dir, certificate) = (Scratch::new("tls-stall"), Certificate::new());
    let (addr, _tls) = start_https_server(certificate.install(&dir), |c| {
        c.send_timeout = Duration::from_secs(1);
    })
    .await;
    let tcp = small_window_connection(&addr).await;
    let mut stalled = handshake(tcp, &[&certificate], &[b"http/1.1"]).await;
    let request = b"GET /openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n";
    stalled.write_all(&request.repeat(400)).await.expect("send");
    let mut other = http1(connect(&addr, &[&certificate], &[]).await).await;
    assert_eq!(get_http1(&mut other, "/healthz").await.0, 200);
    closed_unread(stalled.get_ref().0, Duration::from_secs(2)).await;
}

#[test]
fn bad_files_stop_the_start_and_are_named() {
    let dir = Scratch::new("tls-bad");
    let (one, other) = (Certificate::new(), Certificate::new());
    let cert = dir.write("cert.pem", &one.cert);
    let key = dir.write("key.pem", &one.key);
    let other_key = dir.write("other-key.pem", &other.key);
    let garbage = dir.write("garbage.pem", "hello");
    let missing = dir.path().join("missing.pem");
    let unreadable = dir.path().to_path_buf(); // a directory: read fails

    // The certificate, the key, the file at fault and what is wrong with it.
    for (cert, key, culprit, problem) in [
        (&missing, &key, &missing, "no such certificate file"),
        (&cert, &missing, &missing, "no such key file"),
        (
            &unreadable,
            &key,
            &unreadable,
            "cannot read the certificate file",
        ),
        (&garbage, &key, &garbage, "no certificate in it"),
        (&cert, &garbage, &garbage, "no private key in it"),
        (
            &cert,
            &other_key,
            &other_key,
            "the key does not match the certificate",
        ),
    ] {
        let expected = format!("{}: {problem}", culprit.display());
        let output = Command::new(env!("CARGO_BIN_EXE_refserve"))
            .args(["--addr", "127.0.0.1:0", "--tls-cert"])
            .arg(cert)
            .arg("--tls-key")
            .arg(key)
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{expected}: started");
        assert!(stderr.contains(&expected), "{expected}\n{stderr}");
        assert!(!stderr.contains("listening"), "{stderr}");
    }
}

#[tokio::test]
async fn https_serves_a_socket_handed_over_by_the_service_manager() {
    let (dir, certificate) = (Scratch::new("tls-activation"), Certificate::new());
    let files = certificate.install(&dir);
    let (cert, key) = (files.cert.to_string_lossy(), files.key.to_string_lossy());
    let socket = crate::generations::Socket::bind();
    let generation = socket.start(
        std::path::Path::new(env!("CARGO_BIN_EXE_refserve")),
        &["--tls-cert", &cert, "--tls-key", &key],
    );
    let stream = connect(&socket.addr(), &[&certificate], &[]).await;
    assert_eq!(presented(&stream), certificate.der);
    let (status, _, hsts) = get_http1(&mut http1(stream).await, "/healthz").await;
    assert_eq!((status, hsts.is_some()), (200, true));
    let (status, log) = generation.stop();
    assert!(status.success(), "{log}");
    assert!(
        log.contains("listening on https://") && log.contains("on socket 3"),
        "{log}"
    );
}

#[tokio::test]
async fn an_https_keep_alive_connection_is_held_to_the_idle_timeout() {
    let (dir, certificate) = (Scratch::new("tls-keep-alive"), Certificate::new());
    let (addr, _) = start_https_server(certificate.install(&dir), |c| {
        c.header_read_timeout = Duration::from_secs(1);
        c.idle_timeout = Duration::from_secs(4);
    })
    .await;
    // The request follows the handshake at once, on HTTP/1.1 and on h2.
    let stream = connect(&addr, &[&certificate], &[]).await;
    let (mut one, one_connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 connection");
    let one_connection = tokio::spawn(one_connection);
    assert_eq!(get_http1(&mut one, "/healthz").await.0, 200);
    let stream = connect(&addr, &[&certificate], &[b"h2"]).await;
    let (mut two, two_connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("an h2 connection");
    let two_connection = tokio::spawn(two_connection);
    assert_eq!(get_h2(&mut two, "/healthz").await.0, 200);
    // Past the header-read timeout and a second of slack, both are open…
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(!one_connection.is_finished() && !two_connection.is_finished());
    // …and the idle timeout closes both.
    for connection in [one_connection, two_connection] {
        let closed = tokio::time::timeout(Duration::from_secs(4), connection).await;
        assert!(closed.is_ok(), "open past the idle timeout");
    }
}
