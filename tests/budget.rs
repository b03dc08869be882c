//! Memory is a budget: each attack that once made refserve hold hundreds of
//! MiB is run against the binary, and the peak of its resident memory
//! (`VmHWM`, read from the child's `/proc`) grows by at most
//! [`ALLOWED_GROWTH_KIB`] while a normal client is served. The tests take turns
//! ([`ONE_AT_A_TIME`]), so no attack shares the machine with another.

use crate::support::{shipped_methods, spawn_refserve, Server};
use bytes::Bytes;
use std::process::Child;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What any attack may add to the server's peak resident memory.
const ALLOWED_GROWTH_KIB: u64 = 64 * 1024;

/// The memory tests run one at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The server under attack: the binary, its address, and its peak before.
struct Target {
    child: Child,
    origin: String,
    before: u64,
    /// Standard error, kept open and never read once started.
    _stderr: std::io::BufReader<std::process::ChildStderr>,
}

impl Target {
    /// Start the binary with `args`, and warm it with one page and one
    /// `/mcp` call before its peak is read.
    async fn start(args: &[&str]) -> Target {
        let (child, (_, addr), stderr) = spawn_refserve(args);
        let origin = format!("http://{addr}");
        let client = Server::client_for(&origin);
        assert_eq!(client.get("/api/select", &[]).await.status, 200);
        assert_eq!(search(&client).await, 200);
        let before = crate::support::peak_kib(child.id());
        Target {
            child,
            origin,
            before,
            _stderr: stderr,
        }
    }

    fn addr(&self) -> &str {
        self.origin.trim_start_matches("http://")
    }

    /// A page is answered as usual (an attack on `/mcp` may hold its
    /// budget, and calls then get 503, as they should).
    async fn serves_a_normal_client(&self) {
        let client = Server::client_for(&self.origin);
        let page = client
            .get("/api/select", &[("accept-encoding", "br")])
            .await;
        assert_eq!(page.status, 200);
        assert!(page.decoded().starts_with(b"<!doctype html>"));
    }

    /// The peak grew by at most [`ALLOWED_GROWTH_KIB`]; printed for the record.
    fn kept_its_budget(&self, attack: &str) {
        let after = crate::support::peak_kib(self.child.id());
        let growth = after.saturating_sub(self.before);
        println!(
            "{attack}: peak RSS {} → {} KiB (+{growth} KiB)",
            self.before, after
        );
        assert!(
            growth <= ALLOWED_GROWTH_KIB,
            "{attack}: the peak grew by {growth} KiB"
        );
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A search for every method: the largest `/mcp` answer (about 11 KB).
fn search_every_method() -> String {
    let limit = shipped_methods().len();
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"rows table where insert select","limit":{limit}}}}}}}"#
    )
}

/// The status of one search over a connection of its own.
async fn search(client: &Server) -> u16 {
    client
        .post(
            "/mcp",
            &[("content-type", "application/json")],
            search_every_method(),
        )
        .await
        .status
}

/// An HTTP/2 connection (prior knowledge, h2's client, which tells the
/// reason of a reset) whose streams grant the server a window of `window`
/// bytes, driven by a task of its own.
pub async fn h2_connection(addr: &str, window: u32) -> h2::client::SendRequest<Bytes> {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    let (send, connection) = h2::client::Builder::new()
        .initial_window_size(window)
        .handshake(tcp)
        .await
        .expect("an HTTP/2 handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    send
}

/// A `POST /mcp` head for HTTP/2, with `length` announced if given.
fn mcp_request(addr: &str, length: Option<usize>) -> http::Request<()> {
    let mut request = http::Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json");
    if let Some(length) = length {
        request = request.header("content-length", length);
    }
    request.body(()).expect("a request")
}

/// A stream of `/mcp` requests, its response to come.
type Stream = (h2::client::ResponseFuture, h2::SendStream<Bytes>);

/// 128 `POST /mcp` streams on a new HTTP/2 connection granting `window`,
/// each sending `body` (and ending there if `end`; otherwise announcing
/// one byte more than it sends).
async fn open_streams(
    addr: &str,
    window: u32,
    body: Bytes,
    end: bool,
) -> (h2::client::SendRequest<Bytes>, Vec<Stream>) {
    let mut send = h2_connection(addr, window).await;
    let length = if end { body.len() } else { body.len() + 1 };
    let mut streams = Vec::new();
    for _ in 0..128 {
        send = send.ready().await.expect("a stream");
        let (response, mut stream) = send
            .send_request(mcp_request(addr, Some(length)), false)
            .expect("send a request");
        // A stream already refused takes no more data.
        let _ = stream.send_data(body.clone(), end);
        streams.push((response, stream));
    }
    (send, streams)
}

#[tokio::test]
async fn a_stalled_access_log_holds_bytes_not_lines() {
    let _turn = ONE_AT_A_TIME.lock().await;
    // Standard error is a pipe nobody reads, as a wedged journal is.
    let target = Target::start(&["--access-log-format", "json"]).await;
    let head = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(16_000));
    // 20,000 requests with 16,000-byte paths (each a 414), on 8 connections.
    let floods = (0..8).map(|_| {
        let (addr, head) = (target.addr().to_string(), head.clone());
        tokio::spawn(async move {
            let stream = TcpStream::connect(&addr).await.expect("connect");
            let (mut reading, mut writing) = stream.into_split();
            let reader = tokio::spawn(async move {
                let mut answers = Vec::new();
                let _ = reading.read_to_end(&mut answers).await;
                answers
            });
            for _ in 0..2_499 {
                writing.write_all(head.as_bytes()).await.expect("send");
            }
            let last = head.replace("Host: x\r\n", "Host: x\r\nConnection: close\r\n");
            writing.write_all(last.as_bytes()).await.expect("send");
            let answers = reader.await.expect("the reader");
            String::from_utf8_lossy(&answers)
                .matches("HTTP/1.1 414")
                .count()
        })
    });
    let mut answered = 0;
    for flood in floods {
        answered += flood.await.expect("a flood");
    }
    assert_eq!(answered, 20_000);
    target.serves_a_normal_client().await;
    target.kept_its_budget("20,000 logged 16 KB paths, standard error stalled");
}

#[tokio::test]
async fn mcp_answers_behind_a_closed_window_are_held_in_the_budget() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let target = Target::start(&[]).await;
    // 100 connections, each with 128 searches whose answers may not move:
    // every stream's window is one byte. Past `--max-streams-total` (8,192)
    // streams are refused, which is no answer to hold.
    let attacks = (0..100).map(|_| {
        let addr = target.addr().to_string();
        tokio::spawn(async move {
            let body = Bytes::from(search_every_method());
            let (send, streams) = open_streams(&addr, 1, body, true).await;
            let mut held = Vec::new();
            for (answer, _) in streams {
                let answer = match answer.await {
                    Ok(answer) => answer,
                    Err(error) => {
                        assert_eq!(error.reason(), Some(h2::Reason::REFUSED_STREAM));
                        continue;
                    }
                };
                let retry = answer.headers().contains_key("retry-after");
                held.push((answer.status().as_u16(), retry, answer.into_body()));
            }
            (send, held)
        })
    });
    let mut held = Vec::new();
    for attack in attacks {
        held.push(attack.await.expect("an attack"));
    }
    let statuses: Vec<(u16, bool)> = held
        .iter()
        .flat_map(|(_, streams)| streams.iter().map(|(status, retry, _)| (*status, *retry)))
        .collect();
    let busy = statuses.iter().filter(|(status, _)| *status == 503).count();
    assert!(busy > 0, "8,192 answers of 11 KB fill a 16 MiB budget");
    assert!(statuses
        .iter()
        .all(|&(status, retry)| status == 200 || (status == 503 && retry)));
    target.serves_a_normal_client().await;
    let client = Server::client_for(&target.origin);
    assert_eq!(search(&client).await, 503, "the budget is full");
    target.kept_its_budget("12,800 /mcp answers behind one-byte windows");
    drop(held);
    // Given back once the connections are gone.
    let mut status = 0;
    for _ in 0..100 {
        status = search(&client).await;
        if status == 200 {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(status, 200, "the budget given back");
}

#[tokio::test]
async fn unfinished_http2_bodies_are_held_in_the_budget() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let target = Target::start(&["--body-timeout", "3"]).await;
    // 8 connections × 128 streams, each announcing 65,000 bytes and sending
    // all but the last.
    let attacks = (0..8).map(|_| {
        let addr = target.addr().to_string();
        tokio::spawn(async move {
            let body = Bytes::from(vec![b' '; 64_999]);
            let (_send, streams) = open_streams(&addr, 65_535, body, false).await;
            let mut statuses = Vec::new();
            for (response, _body) in streams {
                statuses.push(response.await.map_or(0, |r| r.status().as_u16()));
            }
            statuses
        })
    });
    let attacks: Vec<_> = attacks.collect();
    target.serves_a_normal_client().await;
    let mut statuses = Vec::new();
    for attack in attacks {
        statuses.extend(attack.await.expect("an attack"));
    }
    assert!(
        statuses.iter().all(|status| [408, 503].contains(status)),
        "{statuses:?}"
    );
    target.serves_a_normal_client().await;
    target.kept_its_budget("1,024 unfinished 65,000-byte HTTP/2 bodies");
}

#[tokio::test]
async fn chunked_bodies_in_one_byte_chunks_are_held_in_one_buffer() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let target = Target::start(&["--body-timeout", "10"]).await;
    // 100 connections, each a body of one-byte chunks, each chunk written
    // on its own (so each may arrive in a read of its own), never ended.
    let attacks = (0..100).map(|_| {
        let addr = target.addr().to_string();
        tokio::spawn(async move {
            let mut stream = TcpStream::connect(&addr).await.expect("connect");
            stream.set_nodelay(true).expect("TCP_NODELAY");
            stream
                .write_all(
                    b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                      Transfer-Encoding: chunked\r\n\r\n",
                )
                .await
                .expect("send the head");
            for _ in 0..CHUNKS {
                if stream.write_all(b"1\r\n \r\n").await.is_err() {
                    break;
                }
            }
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer).await;
            answer
        })
    });
    let attacks: Vec<_> = attacks.collect();
    target.serves_a_normal_client().await;
    for attack in attacks {
        let answer = attack.await.expect("an attack");
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.starts_with("HTTP/1.1 408") || answer.starts_with("HTTP/1.1 503"),
            "{answer}"
        );
    }
    target.kept_its_budget("100 chunked bodies in one-byte chunks written one by one");
}

/// The chunks each connection of the chunked attack writes.
const CHUNKS: usize = 15_000;

#[tokio::test]
async fn window_starved_http2_streams_are_bounded_in_total() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let target = Target::start(&[]).await;
    // 1,000 connections, each with an upload kept arriving (so that it is
    // never idle) and 127 pages whose answers may not move: every
    // stream's window is one byte.
    let attacks = (0..1_000).map(|_| {
        let addr = target.addr().to_string();
        tokio::spawn(async move {
            let mut send = h2_connection(&addr, 1).await;
            let (busy, mut upload) = send
                .send_request(mcp_request(&addr, Some(1_000)), false)
                .expect("send a request");
            let _ = upload.send_data(Bytes::from_static(b"{"), false);
            let mut held = Vec::new();
            let mut refused = 0;
            for _ in 0..127 {
                let Ok(ready) = send.clone().ready().await else {
                    break;
                };
                send = ready;
                let request = http::Request::get(format!("http://{addr}/llms-full.txt"))
                    .body(())
                    .expect("a request");
                let Ok((response, _)) = send.send_request(request, true) else {
                    break;
                };
                match response.await {
                    Ok(response) => held.push(response),
                    Err(error) if error.reason() == Some(h2::Reason::REFUSED_STREAM) => {
                        refused += 1;
                    }
                    // The connection reset at the send timeout.
                    Err(_) => break,
                }
            }
            (send, busy, upload, held, refused)
        })
    });
    let attacks: Vec<_> = attacks.collect();
    let mut held = Vec::new();
    let mut refused = 0;
    for attack in attacks {
        let attack = attack.await.expect("an attack");
        refused += attack.4;
        held.push(attack);
    }
    assert!(refused > 0, "127,000 streams are past the total");
    target.serves_a_normal_client().await;
    target.kept_its_budget("1,000 h2c connections × 127 window-starved streams");
    drop(held);
}
