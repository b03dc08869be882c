//! A deploy behind the cache: build A is served through `deploy/varnish.vcl`
//! and every document of its manifest is cached, in both languages and
//! every coding; build B, one method's description apart, replaces it
//! behind the same socket; `refserve changes` between their manifests,
//! fed to `deploy/purge varnish`, drops exactly what changed. The next
//! request for a changed document is fetched again and has B's bytes; every
//! other one is still a hit.

use super::{cache_state, Varnish};
use crate::support::{content_copy, start_server_deploying, Reply, Scratch};
use refserve::manifest;
use refserve::table::Table;
use refserve_pipeline::{content, Cache, CDN_MAX_AGE, DEFAULT_BASE_URL};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The method whose description build B changes (not `select`, whose page,
/// the longest, is the compression dictionary: changing it changes every
/// page's `dcb` body).
const CHANGED: &str = "count";

/// Build the content of `scratch` as build.rs does (every body compressed,
/// through the cache in `cache`), dated alike whatever the files' times.
fn build(scratch: &Scratch, cache: &Path) -> Table {
    let editions = content::load(scratch.path(), "content", DEFAULT_BASE_URL.into(), 0)
        .expect("the content builds");
    let cache = Cache {
        dir: cache.to_path_buf(),
        salt: Vec::new(),
    };
    refserve_pipeline::build(&editions, Some(cache), CDN_MAX_AGE)
}

/// One cached document of a manifest: the request that reaches it, and its
/// ETag (search's answers: the fingerprint they are made from).
#[derive(Debug)]
struct Document {
    path: String,
    headers: Vec<(&'static str, String)>,
    etag: String,
}

/// The documents of `manifest` a cache keeps, keyed by their line (but the
/// ETag and tags): every tagged variant a client without a dictionary can
/// be sent. Search's answers are asked with a query.
fn documents(manifest: &str) -> BTreeMap<String, Document> {
    let mut documents = BTreeMap::new();
    for line in manifest.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [address, media, language, coding, etag, tags] = fields[..] else {
            panic!("a manifest line: {line}");
        };
        if tags == "-" || coding.starts_with("dc") {
            continue;
        }
        let mut headers = vec![("accept", media.to_string())];
        headers.push(("accept-encoding", coding.to_string()));
        if language != "-" {
            headers.push(("accept-language", language.to_string()));
        }
        let path = if address.ends_with("search") {
            format!("{address}?q=rows")
        } else {
            address.to_string()
        };
        let key = format!("{address}\t{media}\t{language}\t{coding}");
        let etag = etag.to_string();
        documents.insert(
            key,
            Document {
                path,
                headers,
                etag,
            },
        );
    }
    documents
}

/// `document` through `varnish`.
async fn fetch(varnish: &Varnish, document: &Document) -> Reply {
    let headers: Vec<(&str, &str)> = (document.headers.iter())
        .map(|(name, value)| (*name, value.as_str()))
        .collect();
    let reply = varnish.get(&document.path, &headers).await;
    assert_eq!(reply.status, 200, "{document:?}: {reply:?}");
    reply
}

/// What `deploy/purge varnish` prints, fed `changes`, sending its purges
/// to the Varnish at `origin`; it must succeed.
fn purge(origin: &str, changes: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/purge");
    let mut child = Command::new("bash")
        .arg(script)
        .args(["varnish", origin])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run deploy/purge");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(changes.as_bytes())
        .expect("the changes written");
    let output = child.wait_with_output().expect("deploy/purge ran");
    let printed = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "deploy/purge failed: {printed}");
    printed
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_deploy_purges_what_it_changed_and_every_other_object_stays_a_hit() {
    let scratch = content_copy("purge");
    let cache = scratch.path().join("compressed");
    let a = build(&scratch, &cache);
    let old = manifest::manifest(&a);

    // A build of the same content changes nothing.
    let again = manifest::manifest(&build(&scratch, &cache));
    let nothing = manifest::changes(&old, &again).expect("two manifests");
    assert_eq!(nothing, manifest::Changes::default());

    let file = format!("content/methods/{CHANGED}.md");
    let text = std::fs::read_to_string(scratch.path().join(&file)).expect("the method file");
    let from = "Counts the rows of a table";
    assert!(text.contains(from), "{file} starts its description so");
    scratch.write(
        &file,
        text.replacen(from, "Counts the records of a table", 1),
    );
    let b = build(&scratch, &cache);
    let new = manifest::manifest(&b);
    let changes = manifest::changes(&old, &new).expect("two manifests");

    // What changed: the method, in every form and language, and the lists
    // that hold its description; nothing else.
    assert!(
        changes.tags.contains(&format!("method:{CHANGED}")),
        "{changes:?}"
    );
    for address in [
        "/api/count",
        "/api/count.md",
        "/en/api/count",
        "/zh-hans/api/count",
        "/zh-hans/api/count.md",
        "/api/reference/count.json",
        "/api/reference.json",
        "/en/api/",
        "/en/llms-full.txt",
    ] {
        assert!(
            changes.addresses.iter().any(|a| a == address),
            "{address}: {changes:?}"
        );
    }
    for unchanged in [
        "/api/insert",
        "/en/api/insert",
        "/zh-hans/api/insert",
        "/robots.txt",
    ] {
        assert!(
            !changes.addresses.iter().any(|a| a == unchanged),
            "{unchanged}"
        );
    }
    for tag in &changes.tags {
        assert!(
            !tag.starts_with("build:") && tag != "page" && !tag.starts_with("lang:"),
            "{tag}"
        );
    }

    let (server, tables) = start_server_deploying(a).await;
    let varnish = Varnish::start(&server).await;
    let before = documents(&old);
    let after = documents(&new);
    for document in before.values() {
        fetch(&varnish, document).await;
    }
    for document in before.values() {
        let reply = fetch(&varnish, document).await;
        assert_eq!(cache_state(&reply), "HIT", "{document:?}");
    }

    tables.replace(b);
    let (origin, lines) = (varnish.origin.clone(), changes.lines());
    let printed = tokio::task::spawn_blocking(move || purge(&origin, &lines))
        .await
        .expect("deploy/purge's thread");
    assert!(printed.contains("deploy/purge: done"), "{printed}");

    let mut fetched = 0;
    for (key, document) in &before {
        let address = key.split('\t').next().expect("an address");
        let reply = fetch(&varnish, document).await;
        let changed = changes.addresses.iter().any(|a| a == address);
        let is_search = document.path.contains('?');
        if changed {
            fetched += 1;
            assert_eq!(cache_state(&reply), "MISS", "{document:?}");
            if !is_search {
                assert_eq!(reply.header("etag"), after[key].etag, "{document:?}");
            }
        } else {
            assert_eq!(cache_state(&reply), "HIT", "{document:?}");
            if !is_search {
                assert_eq!(reply.header("etag"), document.etag, "{document:?}");
            }
        }
    }
    assert!(
        fetched > 0 && fetched < before.len(),
        "{fetched} of {}",
        before.len()
    );
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_purge_names_refserves_tags_alone() {
    let server = crate::support::start_server().await;
    let varnish = Varnish::start(&server).await;
    let purge = http::Method::from_bytes(b"PURGE").expect("a method");
    let bad = varnish
        .request(purge.clone(), "/", &[("purge-tag", "method:select|.*")])
        .await;
    assert_eq!(bad.status, 400, "{bad:?}");
    let fine = varnish
        .request(purge, "/", &[("purge-tag", "method:select")])
        .await;
    assert_eq!(fine.status, 200, "{fine:?}");
}
