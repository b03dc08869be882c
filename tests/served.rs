//! What the production binary serves, byte for byte: every resource in
//! every media type and coding it is stored in (and, for pages, against
//! the compression dictionary), the 304s, the redirects, every kind of
//! error, a few searches and a few `/mcp` calls, each reduced to its status and the
//! SHA-256 of its headers (sorted, `date` left out) and of its body, and
//! compared with `tests/data/served.manifest`.
//!
//! The build's date (`Last-Modified`, and the sitemap's `lastmod`) is the
//! last change of the files the table is made from, so it moves with every
//! commit of them and with every edit before it: the manifest leaves it
//! out. `last-modified` is left out like `date`; a body that writes the
//! date is hashed decoded, the date blanked, without its `etag` and
//! `content-length` (and so is a search's answer, whose `etag` names the
//! table's generation); a revalidation is named without the ETag it sends;
//! the build's purge tag (`build:` and the content hash, `Surrogate-Key`,
//! `Cache-Tag`) is blanked.
//!
//! A change that alters served bytes on purpose writes the manifest again
//! in the same commit, so that every change of what clients receive shows
//! in review: `REFSERVE_MANIFEST=write cargo test --test tests served`.

use crate::support::{available_dictionary, date_forms, sha256_hex, start_server, Reply, Server};
use http::Method;
use std::fmt::Write as _;
use std::time::{Duration, UNIX_EPOCH};

/// The committed manifest.
const MANIFEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/served.manifest");

/// One request of the manifest.
struct Asked {
    method: Method,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: &'static str,
}

impl Asked {
    fn get(path: &str, headers: &[(&'static str, &str)]) -> Asked {
        Asked {
            method: Method::GET,
            path: path.to_string(),
            headers: headers.iter().map(|(n, v)| (*n, v.to_string())).collect(),
            body: "",
        }
    }

    /// How the manifest names it: method, path and the headers sent.
    fn name(&self) -> String {
        let mut name = match self.path.get(..60) {
            Some(start) if self.path.len() > 60 => {
                format!("{} {start}…({} bytes)", self.method, self.path.len())
            }
            _ => format!("{} {}", self.method, self.path),
        };
        for (header, value) in &self.headers {
            let value = match *header {
                "available-dictionary" => "(the dictionary)",
                "if-none-match" => "(its ETag)",
                _ => value,
            };
            let _ = write!(name, " {header}={value}");
        }
        if !self.body.is_empty() {
            let _ = write!(name, " body={}", sha256_hex(self.body)[..16].to_owned());
        }
        name
    }

    async fn send(&self, server: &Server) -> Reply {
        let headers: Vec<(&str, &str)> =
            self.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        server
            .send(self.method.clone(), &self.path, &headers, self.body.into())
            .await
    }
}

/// The requests: derived from the production table, plus fixed ones for
/// redirects, errors and `/mcp`.
fn requests() -> Vec<Asked> {
    let table = refserve::table::production();
    let dictionary = available_dictionary();
    let mut asked = Vec::new();
    for resource in table.resources.iter() {
        let path = resource.id.to_string();
        for (media, representation) in resource.media_types.iter().zip(&resource.representations) {
            let accept = format!("{}/{}", media.kind, media.subtype);
            for variant in &representation.variants {
                let coding = variant.coding.token();
                let mut headers = vec![
                    ("accept", accept.clone()),
                    ("accept-encoding", coding.to_string()),
                ];
                if matches!(coding, "dcb" | "dcz") {
                    headers.push(("available-dictionary", dictionary.clone()));
                }
                let etag = variant.etag.to_str().unwrap_or_default().to_string();
                let mut revalidated = headers.clone();
                revalidated.push(("if-none-match", etag));
                asked.push(Asked {
                    method: Method::GET,
                    path: path.clone(),
                    headers,
                    body: "",
                });
                asked.push(Asked {
                    method: Method::GET,
                    path: path.clone(),
                    headers: revalidated,
                    body: "",
                });
            }
        }
        asked.push(Asked::get(&path, &[]));
        asked.push(Asked {
            method: Method::HEAD,
            ..Asked::get(&path, &[("accept-encoding", "br")])
        });
    }
    let long = format!("/{}", "a".repeat(3000));
    let long_name = format!("/api/reference/{}.json", "a".repeat(300));
    for (path, headers) in [
        ("/nope", &[][..]),
        ("/nope", &[("accept", "text/html")][..]),
        ("/nope", &[("accept", "text/markdown")][..]),
        ("/api/selct", &[("accept", "text/html")][..]),
        ("/zh-hans/api/selct", &[("accept", "text/html")][..]),
        ("/zh-hans/nope", &[("accept", "text/markdown")][..]),
        ("/api/reference/selct.json", &[][..]),
        ("/api/reference/Select.json", &[][..]),
        (long_name.as_str(), &[][..]),
        (long.as_str(), &[][..]),
        ("/API/Select/", &[][..]),
        ("/api", &[][..]),
        ("/api/reference.json", &[("accept", "text/html")][..]),
        ("/api/reference.json", &[("if-match", "\"nope\"")][..]),
        (
            "/api/select",
            &[("accept-encoding", "identity;q=0, *;q=0")][..],
        ),
        ("/healthz", &[][..]),
        ("/search?q=count+rows", &[("accept", "text/html")][..]),
        ("/search?q=count+rows", &[("accept", "text/markdown")][..]),
        (
            "/search?q=count+rows",
            &[("accept", "application/json")][..],
        ),
        ("/search?q=select", &[("accept", "text/html")][..]),
        ("/search?q=xyzzy", &[("accept", "text/html")][..]),
        ("/search?q=", &[][..]),
    ] {
        asked.push(Asked::get(path, headers));
    }
    asked.push(Asked {
        method: Method::POST,
        ..Asked::get("/api/reference.json", &[])
    });
    asked.push(Asked {
        method: Method::OPTIONS,
        ..Asked::get(
            "/api/reference.json",
            &[
                ("origin", "https://example.com"),
                ("access-control-request-method", "GET"),
            ],
        )
    });
    asked.push(Asked::get("/mcp", &[]));
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"manifest","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_method","arguments":{"name":"select"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":"insert many rows"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"resources/list"}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"nope"}"#,
        "{",
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_methods"}}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search","arguments":{"query":"zzzzqqq"}}}"#,
    ] {
        asked.push(Asked {
            method: Method::POST,
            body,
            ..Asked::get("/mcp", &[("content-type", "application/json")])
        });
    }
    // The 2026-07-28 era, whose results end with `resultType` and `_meta`.
    for (tool, body) in [
        (
            "list_methods",
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_methods","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
        (
            "search",
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"search","arguments":{"query":"insert many rows"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
    ] {
        asked.push(Asked {
            method: Method::POST,
            body,
            ..Asked::get(
                "/mcp",
                &[
                    ("content-type", "application/json"),
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", tool),
                ],
            )
        });
    }
    asked
}

/// The build's date as bodies write it.
fn build_dates() -> [String; 2] {
    let unix = refserve::table::production().last_modified_unix;
    date_forms(UNIX_EPOCH + Duration::from_secs(unix))
}

/// The paths of the resources whose bodies write the build's date.
fn dated_paths() -> Vec<String> {
    let dates = build_dates();
    let writes_date = |body: &[u8]| {
        let text = String::from_utf8_lossy(body);
        dates.iter().any(|date| text.contains(date.as_str()))
    };
    let table = refserve::table::production();
    table
        .resources
        .iter()
        .filter(|resource| {
            let bodies = resource.representations.iter();
            bodies
                .map(|r| &r.identity().body)
                .any(|body| writes_date(body))
        })
        .map(|resource| resource.id.to_string())
        .collect()
}

/// A header value with the build's purge tag (`build:` and the content
/// hash, which moves with the build's date) blanked.
fn without_build(value: &str) -> String {
    match value.split_once("build:") {
        Some((before, after)) => {
            let hash = after.find([' ', ',']).unwrap_or(after.len());
            format!("{before}build:(the build){}", &after[hash..])
        }
        None => value.to_string(),
    }
}

/// The manifest's line for a reply; `dated` when its resource's bodies
/// write the build's date.
fn line(name: &str, reply: &Reply, dated: bool) -> String {
    let mut body = reply.body.to_vec();
    if dated && !body.is_empty() {
        let text = String::from_utf8_lossy(&reply.decoded()).into_owned();
        let blanked = build_dates()
            .iter()
            .fold(text, |text, date| text.replace(date.as_str(), "(the date)"));
        body = blanked.into_bytes();
    }
    let left_out: &[&str] = if dated {
        &["date", "last-modified", "etag", "content-length"]
    } else {
        &["date", "last-modified"]
    };
    let mut headers: Vec<String> = reply
        .headers
        .iter()
        .filter(|(header, _)| !left_out.contains(&header.as_str()))
        .map(|(header, value)| {
            let value = without_build(&String::from_utf8_lossy(value.as_bytes()));
            format!("{header}: {value}\n")
        })
        .collect();
    headers.sort();
    let headers = sha256_hex(headers.concat());
    let length = body.len();
    let body = sha256_hex(&body);
    format!(
        "{name} → {} headers={} body={} ({} bytes)\n",
        reply.status,
        &headers[..16],
        &body[..16],
        length
    )
}

#[tokio::test]
async fn every_served_byte_is_the_manifests() {
    let table = refserve::table::production();
    if table.base_url != refserve_pipeline::DEFAULT_BASE_URL {
        println!(
            "built for {}: the manifest is the default base URL's",
            &table.base_url
        );
        return;
    }
    let server = start_server().await;
    let dated = dated_paths();
    assert!(dated.contains(&"/sitemap.xml".to_string()), "{dated:?}");
    let mut manifest = String::new();
    for asked in requests() {
        let reply = asked.send(&server).await;
        // A search's ETag names the table's generation, whose content hash
        // takes in the dated bodies: left out as theirs are.
        let of_the_date = dated.contains(&asked.path) || asked.path.starts_with("/search?");
        manifest.push_str(&line(&asked.name(), &reply, of_the_date));
    }
    if std::env::var_os("REFSERVE_MANIFEST").is_some_and(|v| v == "write") {
        std::fs::write(MANIFEST, &manifest).expect("write the manifest");
        return;
    }
    let committed = std::fs::read_to_string(MANIFEST).expect("tests/data/served.manifest");
    let changed: Vec<String> = manifest
        .lines()
        .zip(committed.lines())
        .filter(|(now, then)| now != then)
        .map(|(now, then)| format!("- {then}\n+ {now}"))
        .collect();
    assert!(
        changed.is_empty() && manifest.lines().count() == committed.lines().count(),
        "served bytes changed ({} lines now, {} in the manifest); if on purpose, \
         REFSERVE_MANIFEST=write cargo test --test tests served\n{}",
        manifest.lines().count(),
        committed.lines().count(),
        changed.join("\n")
    );
}
