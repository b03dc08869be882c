//! What a CDN reads: every cacheable 200 and its 304 carry a CDN's long
//! lifetime and the purge tags; errors, redirects and `no-store` answers
//! carry neither; the tags stay within what CDNs accept; and `refserve
//! manifest` and `refserve changes` say what a deploy must purge.

use crate::support::{start_server, Scratch};
use std::process::Command;

/// The headers only a CDN reads.
const FOR_THE_EDGE: [&str; 4] = [
    "cdn-cache-control",
    "surrogate-control",
    "surrogate-key",
    "cache-tag",
];

/// The purge tags of a response's `Surrogate-Key`.
fn tags(reply: &crate::support::Reply) -> Vec<String> {
    let key = reply.header("surrogate-key");
    key.split(' ').map(str::to_string).collect()
}

#[tokio::test]
async fn a_document_names_its_tags_and_a_cdns_lifetime_on_its_200_and_its_304() {
    let server = start_server().await;
    let html = [("accept", "text/html"), ("accept-language", "zh-CN")];
    let page = server.get("/api/select", &html).await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("cdn-cache-control"),
        "public, max-age=31536000, stale-while-revalidate=86400, stale-if-error=86400"
    );
    assert_eq!(
        page.header("surrogate-control"),
        "max-age=31536000, stale-while-revalidate=86400, stale-if-error=86400"
    );
    // Browsers keep their hour.
    assert_eq!(
        page.header("cache-control"),
        "public, max-age=3600, stale-while-revalidate=86400"
    );
    let named = tags(&page);
    assert!(named[0].starts_with("build:"), "{named:?}");
    assert_eq!(named[1..], ["method:select", "page", "lang:zh-hans"]);
    assert_eq!(page.header("cache-tag"), named.join(","));

    let etag = page.header("etag").to_string();
    let revalidated = [
        ("accept", "text/html"),
        ("accept-language", "zh-CN"),
        ("if-none-match", etag.as_str()),
    ];
    let not_modified = server.get("/api/select", &revalidated).await;
    assert_eq!(not_modified.status, 304);
    for name in FOR_THE_EDGE {
        assert_eq!(not_modified.header(name), page.header(name), "{name}");
    }

    // Lists name every method; the JSON reference is English.
    let json = [("accept", "application/json")];
    let collection = server.get("/api/reference.json", &json).await;
    assert_eq!(tags(&collection)[1..], ["json", "lang:en", "list"]);
    let one = server.get("/api/reference/insert.json", &json).await;
    assert_eq!(tags(&one)[1..], ["method:insert", "json", "lang:en"]);
    let search = server.get("/zh-hans/search?q=rows", &html).await;
    assert_eq!(search.status, 200);
    assert_eq!(
        tags(&search)[1..],
        ["search", "search:zh-hans", "lang:zh-hans", "list"]
    );
    // Every answer of one build names the same build.
    assert_eq!(tags(&collection)[0], tags(&page)[0]);
}

#[tokio::test]
async fn errors_redirects_and_what_is_never_stored_carry_nothing_for_a_cdn() {
    let server = start_server().await;
    let json = [("accept", "application/json")];
    for (path, headers, status) in [
        ("/api/selct", &[("accept", "text/html")][..], 404),
        ("/api/reference/nope.json", &json[..], 404),
        ("/api/reference/BAD.json", &json[..], 400),
        ("/healthz", &[][..], 200),
        ("/api/Select", &[("accept", "text/html")][..], 308),
        ("/api/select", &[("accept", "image/png")][..], 406),
    ] {
        let reply = server.get(path, headers).await;
        assert_eq!(reply.status, status, "{path}");
        for name in FOR_THE_EDGE {
            assert!(!reply.headers.contains_key(name), "{path}: {name}");
        }
    }
}

#[test]
fn the_tags_stay_within_what_cdns_accept() {
    // Cloudflare: 16 KB of tags a response, 1,024 bytes a tag; Fastly: a
    // Surrogate-Key of 16 KB, a key of 1,024 bytes.
    let manifest = refserve::manifest::manifest(refserve::table::production());
    let mut tagged = 0;
    for line in manifest.lines() {
        let tags = line.rsplit('\t').next().expect("a tags field");
        if tags == "-" {
            continue;
        }
        tagged += 1;
        assert!(tags.len() < 16 * 1024, "{line}");
        for tag in tags.split(' ') {
            assert!(!tag.is_empty() && tag.len() <= 1024, "{line}");
            assert!(
                tag.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b":.-_".contains(&b)),
                "a tag deploy/varnish.vcl purges as it is: {tag}"
            );
        }
    }
    assert!(tagged > 1000, "{tagged} tagged variants");
}

/// `refserve` run with `args`; its exit status, standard output and error.
fn refserve(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_refserve"))
        .args(args)
        .output()
        .expect("refserve runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    (
        output.status.success(),
        text(output.stdout),
        text(output.stderr),
    )
}

#[test]
fn the_manifest_lists_every_address_and_identical_builds_change_nothing() {
    let (ok, manifest, _) = refserve(&["manifest"]);
    assert!(ok);
    assert_eq!(
        manifest,
        refserve::manifest::manifest(refserve::table::production())
    );
    for address in [
        "/api/select",
        "/zh-hans/api/select.md",
        "/api/reference.json",
        "/search",
    ] {
        let prefix = format!("{address}\t");
        assert!(
            manifest.lines().any(|l| l.starts_with(&prefix)),
            "{address}"
        );
    }
    let scratch = Scratch::new("manifest");
    let file = scratch.write("a.manifest", &manifest);
    let file = file.to_str().expect("a UTF-8 path");
    let (ok, changes, _) = refserve(&["changes", file, file]);
    assert!(ok);
    assert_eq!(changes, "");
    let (ok, json, _) = refserve(&["changes", "--json", file, file]);
    assert!(ok);
    assert_eq!(json, "{\"tags\":[],\"addresses\":[]}\n");

    // One description apart: the method's tag and addresses, and the lists'.
    let edited: String = manifest
        .lines()
        .map(|line| {
            if line.starts_with("/api/reference/select.json\t") {
                let (rest, tags) = line.rsplit_once('\t').expect("fields");
                let (head, _) = rest.rsplit_once('\t').expect("fields");
                format!("{head}\t\"changed\"\t{tags}\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    let edited = scratch.write("b.manifest", &edited);
    let (ok, changes, _) = refserve(&["changes", file, edited.to_str().expect("UTF-8")]);
    assert!(ok);
    assert_eq!(changes, "/api/reference/select.json\n");
}

#[test]
fn changes_of_what_is_not_a_manifest_is_an_error_that_names_the_file_and_line() {
    let scratch = Scratch::new("manifest-bad");
    let good = scratch.write("good", "");
    let bad = scratch.write("bad", "/api\tnot a manifest\n");
    let path = |p: &std::path::Path| p.to_str().expect("UTF-8").to_string();
    let (ok, out, error) = refserve(&["changes", &path(&good), &path(&bad)]);
    assert!(!ok);
    assert_eq!(out, "");
    assert!(
        error.contains("NEW: line 1: not a manifest line"),
        "{error}"
    );
    let (ok, _, error) = refserve(&["changes", "/nonexistent/old", &path(&good)]);
    assert!(!ok);
    assert!(error.contains("cannot read /nonexistent/old"), "{error}");
}
