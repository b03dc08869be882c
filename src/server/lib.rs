//! refserve's server: everything but the content.
//!
//! It answers from a response table it is handed ([`table::Table`]): in
//! production the one `build.rs` wrote into the binary, in `refserve dev`
//! one rendered from `content/` in memory. At run time a request is routed,
//! negotiated and looked up — nothing is rendered, compressed or allocated
//! for a body. Holding no content, this crate is not compiled again when
//! the content changes.
//!
//! - [`negotiate`]: `Accept` and `Accept-Encoding` (RFC 9110 §12).
//! - [`conditional`]: `If-Match`, `If-None-Match` and `If-Modified-Since`
//!   (RFC 9110 §13).
//! - `route.rs`: path → resource or error.
//! - [`table`]: the response table, and the handle a server answers from.
//! - [`errors`]: error kinds, statuses and codes.
//! - `headers`: header values shared by every response of a kind.
//! - `fields.rs`: the request's header fields negotiation and preconditions
//!   read, in one pass, and what they decide.
//! - [`respond`]: the whole request → response selection, without I/O.
//! - [`handler`]: the one handler every way of serving answers through:
//!   the table's routes and `/mcp`.
//! - `message.rs`: the HTTP/1 message's rules hyper lets through
//!   (`Transfer-Encoding`, `Host`), checked before a request is routed.
//! - [`mcp`]: `/mcp`, the Model Context Protocol endpoint for agents.
//! - [`search`]: a query ranked against the table's search index, for
//!   MCP's `search` tool and `/search`.
//! - `search_page.rs`: `GET /search`, the search for people, agents and
//!   programs: its answers put together from the table's pieces.
//! - `budget.rs`: the memory a client can make refserve hold, counted.
//! - [`accept`]: the one accept loop, the site's, the metrics listener's
//!   and `refserve dev`'s; `slots.rs`: its connection cap, and room at it.
//! - [`server`] and `connection.rs`: the site's listeners and drain, each
//!   connection's protocol and timeouts; [`watchdog`]: the clocks that
//!   close a connection; `streams.rs`: HTTP/2 streams, counted from the
//!   frames, and bounded.
//! - [`activity`] and [`watched`]: what a connection's watchdog reads: its
//!   open requests and whether its responses move.
//! - [`metrics`] and `scrape.rs`: the operator's numbers and the separate
//!   listener that serves them; [`client_class`]: who reads, from
//!   `User-Agent`.
//! - [`access_log`]: request lines, written by a thread of their own.
//! - [`systemd`]: inherited sockets and readiness notifications.
//! - [`tls`]: HTTPS: the certificate and key, and their reload.
//! - [`config`]: command line and environment.
//! - [`export`]: a table as static files.
//! - [`manifest`]: what a table serves (each variant's ETag and purge
//!   tags), and what changed between two builds' manifests.
//!
//! [`errors`], `headers` and [`negotiate`] are the vocabulary crate's
//! (`src/core/`, `refserve-core`), which the pipeline (`src/pipeline/`) speaks
//! too: the tables it builds are made of their types.

pub mod accept;
pub mod access_log;
pub mod activity;
mod budget;
pub mod client_class;
pub mod conditional;
pub mod config;
mod connection;
pub mod export;
mod fields;
pub mod handler;
pub mod manifest;
pub mod mcp;
mod message;
pub mod metrics;
pub mod respond;
mod route;
mod scrape;
pub mod search;
mod search_page;
pub mod server;
mod slots;
mod streams;
pub mod systemd;
pub mod table;
pub mod tls;
pub mod watchdog;
pub mod watched;

use refserve_core::headers;
pub use refserve_core::{errors, negotiate};
