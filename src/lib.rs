//! refserve: a docs origin that serves a precomputed method reference.
//!
//! `build.rs` renders and compresses every response ahead of time into a
//! `phf` table; at run time a request is routed, negotiated and looked up —
//! nothing is rendered, compressed or allocated for a body.
//!
//! - [`negotiate`]: `Accept` and `Accept-Encoding` (RFC 9110 §12).
//! - [`conditional`]: `If-None-Match` and `If-Modified-Since` (RFC 9110 §13).
//! - [`route`]: path → resource or error.
//! - [`table`]: the generated response table.
//! - [`errors`]: error kinds, statuses and codes.
//! - [`headers`]: header values shared by every response of a kind.
//! - [`respond`]: the whole request → response selection, without I/O.
//! - [`service`], [`server`] and [`connection`]: hyper glue, the accept
//!   loop, each connection's timeouts, and the drain.
//! - [`activity`] and [`watched`]: what a connection's watchdog reads: its
//!   open requests and whether its responses move.
//! - [`metrics`] and [`scrape`]: the operator's numbers and the separate
//!   listener that serves them.
//! - [`access_log`]: request lines, written by a thread of their own.
//! - [`systemd`]: inherited sockets and readiness notifications.
//! - [`tls`]: HTTPS: the certificate and key, and their reload.
//! - [`config`]: command line and environment.
//! - [`export`]: the table as static files.
//!
//! [`errors`], [`headers`] and [`negotiate`] live here in `src/` and are
//! compiled by the pipeline crate (`src/build/`, `refserve-build`), which
//! `build.rs` runs: the table it builds is made of their types.

pub mod access_log;
pub mod activity;
pub mod conditional;
pub mod config;
pub mod connection;
pub mod export;
pub mod metrics;
pub mod respond;
pub mod route;
pub mod scrape;
pub mod server;
pub mod service;
pub mod systemd;
pub mod table;
pub mod tls;
pub mod watched;

// Shared with the pipeline, which compiles them (`src/build/lib.rs`): the
// table it builds is made of these types.
pub use refserve_build::{errors, headers, negotiate};
