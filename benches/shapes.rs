//! The server-shape experiment of `benches/shapes.sh`: refserve's request
//! handling (`refserve::service`, the real routing, negotiation and table)
//! behind one of four hyper/tokio shapes, so they can be compared under the
//! same load:
//!
//! - connection builder: hyper-util's `auto` (HTTP/1.1 and h2c, chosen by
//!   the preface) or hyper's `http1` alone (what refserve serves HTTP/1.1
//!   connections with; it keeps `auto` for connections that begin with `P`);
//! - runtime: tokio's multi-thread scheduler (what refserve ships) or
//!   `current_thread`.
//!
//! Like refserve it sets `TCP_NODELAY` and arms the header read timeout;
//! it has no connection cap, access log or graceful shutdown, which cost
//! the same in every shape.
//!
//! ```sh
//! cargo run --release --example shapes -- 127.0.0.1:8082 http1 current
//! ```

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::time::Duration;

/// hyper's header read timeout, as refserve sets it by default.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: shapes ADDR auto|http1 multi|current";
    let addr = args.next().expect(usage);
    let builder = args.next().expect(usage);
    let runtime = match args.next().as_deref() {
        Some("multi") => tokio::runtime::Builder::new_multi_thread(),
        Some("current") => tokio::runtime::Builder::new_current_thread(),
        _ => panic!("{usage}"),
    }
    .enable_all()
    .build()
    .expect("a tokio runtime");
    let http1 = match builder.as_str() {
        "auto" => false,
        "http1" => true,
        _ => panic!("{usage}"),
    };
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .expect("the address must be free");
        eprintln!("shapes: {builder} listening on http://{addr}");
        let mut auto = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
        auto.http1()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_READ_TIMEOUT);
        let mut only = hyper::server::conn::http1::Builder::new();
        only.timer(TokioTimer::new())
            .header_read_timeout(HEADER_READ_TIMEOUT);
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let io = TokioIo::new(stream);
            let service = service_fn(refserve::service::serve);
            if http1 {
                let connection = only.serve_connection(io, service);
                tokio::spawn(async move {
                    let _ = connection.await;
                });
            } else {
                let connection = auto.serve_connection(io, service).into_owned();
                tokio::spawn(async move {
                    let _ = connection.await;
                });
            }
        }
    });
}
