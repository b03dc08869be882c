//! refserve: a docs origin that serves a precomputed method reference.
//!
//! This crate is the site: the content of `content/`, rendered and
//! compressed by `build.rs` (with the pipeline crate in `src/pipeline/`) into
//! a table compiled into the binary ([`table::production`]), and the binary
//! that serves it (`src/main.rs`) with the server crate in `src/server/`,
//! whose modules the binary, the tests, the benches and the fuzz targets
//! name are re-exported here. A content edit recompiles this crate, which
//! is little more than the table, and not the server.
//!
//! - [`table`]: the production table, tested exhaustively.
//! - [`service`]: the production table as a bare hyper service.
//! - `dev` (with the `dev` feature, the default): `refserve dev`, the
//!   crate in `src/dev/` that joins the pipeline (which renders a content
//!   directory in memory) and the server (which answers from the render).
//!   Without it (the fuzz targets) the binary compiles no renderer, encoder
//!   or watcher.
//!
//! To add a capability: a new response header is a line of
//! `src/pipeline/stored.rs`; a new field of the table is the field in
//! `src/core/table.rs` and the line of `stored.rs` that fills it; a new
//! endpoint answered at run time is the server's (`src/server/handler.rs`);
//! new content is the pipeline's (`src/pipeline/`).

pub mod service;
pub mod table;

#[cfg(feature = "dev")]
pub use refserve_dev as dev;
pub use refserve_server::{
    access_log, client_class, conditional, config, errors, export, manifest, mcp, metrics,
    negotiate, respond, server, systemd, tls,
};
