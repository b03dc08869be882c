//! The integration tests: one binary, one module per concern. Every HTTP
//! test starts the real server on a free loopback port and talks to it over
//! TCP with a real HTTP client, decoding whatever coding comes back.

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
mod errors;
mod export;
mod hostile;
mod idle;
mod lifecycle;
mod limits;
mod loading;
mod mcp;
mod mcp_clients;
mod methods;
mod metrics;
mod negotiation;
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
