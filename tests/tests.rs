//! The integration tests: one binary, one module per concern. Every HTTP
//! test starts the real server on a free loopback port and talks to it over
//! TCP with a real HTTP client, decoding whatever coding comes back.
//!
//! What they check: every entry against the specification's catalog; the
//! negotiation matrices, 304, HEAD, redirects, CORS and every error; every
//! example with `php -l`; a crawl of every link; each ecosystem's validators
//! (OpenAPI, HTML, sitemap XSD, Markdown, REDbot); hostile, slow, silent and
//! idle clients and the memory they can make refserve hold; Prometheus
//! scraping the metrics; redeploys under load; the `deploy/` units, nginx
//! serving an export, and `deploy/varnish.vcl` in varnishd.
//!
//! Two commands run them. `cargo test` needs Rust and a C compiler only: it
//! runs every test that needs nothing but the server and Rust crates, and
//! lists the others as ignored. Those drive an external tool (a browser, a
//! validator, varnishd, nginx, php, Prometheus, systemd-analyze, an MCP
//! SDK) and are marked `#[ignore = "external tool: tests/tools/full"]`;
//! `tests/tools/full` installs the tools (`tests/tools/install.sh`) and runs
//! exactly them. A test reaches a tool only through `support::tools` and
//! `support::system_tool`, which fail it outside `tests/tools/full`, so a
//! missing mark shows under `cargo test`. `#[ignore]` means nothing else.
//!
//! `tests/served.rs`
//! pins every served byte in `tests/data/served.manifest`; a change that
//! alters them on purpose writes it again in the same commit
//! (`REFSERVE_MANIFEST=write cargo test --test tests served`), so it shows in
//! review.

mod generations;
mod support;

mod activation;
mod browser;
mod budget;
mod catalog;
mod catalog_facts;
mod cli;
mod conditional;
mod crawl;
mod deploy;
mod dev;
mod dictionary;
mod discovery;
mod edge;
mod errors;
mod export;
mod fairness;
mod hostile;
mod idle;
mod language_documents;
mod languages;
mod lifecycle;
mod limits;
mod loading;
mod mcp;
mod mcp_clients;
mod methods;
mod metrics;
mod negotiation;
mod page_actions;
mod pages;
mod reading;
mod search;
mod served;
mod stalls;
mod tls;
mod uploads;
mod validation;
mod validators;
mod varnish;
