//! External validators run against the live server: the OpenAPI document
//! (openapi-spec-validator, Redocly, Schemathesis), every HTML page of the
//! sitemap (the Nu HTML checker), the sitemap (its XSD, with xmllint), the
//! Markdown bodies (markdownlint) and the HTTP behaviour of a few resources
//! (REDbot); and, without a server, the method files' front matter against
//! its JSON Schema (Python's jsonschema). They run under `tests/tools/full`,
//! after `tests/tools/install.sh` installs every tool, pinned, into
//! `<target dir>/validator-tools`.

use crate::support::{
    node_file, node_tool, python_tool, run, shipped_methods, start_server, system_tool, tools,
    Scratch, Server,
};
use std::process::Command;

/// `GET path`, which must answer 200; the decoded body.
async fn fetch(server: &Server, path: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let reply = server.get(path, headers).await;
    assert_eq!(reply.status, 200, "GET {path} {headers:?}");
    reply.decoded()
}

/// A scratch file name for a path: `/` is `index`, `/api/select` is `api_select`.
fn file_name(path: &str, extension: &str) -> String {
    let stem = path.trim_start_matches('/').replace('/', "_");
    let stem = stem.strip_suffix(extension).unwrap_or(&stem);
    let stem = if stem.is_empty() { "index" } else { stem };
    format!("{stem}{extension}")
}

/// The paths of the sitemap's `<loc>`s, which all start with the base URL.
fn sitemap_paths(sitemap: &[u8]) -> Vec<String> {
    let base = &refserve::table::production().base_url;
    let sitemap = std::str::from_utf8(sitemap).expect("a UTF-8 sitemap");
    let paths: Vec<String> = sitemap
        .split("<loc>")
        .skip(1)
        .map(|rest| {
            let url = rest.split("</loc>").next().unwrap_or_default();
            let path = url
                .strip_prefix(base)
                .unwrap_or_else(|| panic!("<loc>{url}</loc> does not start with {base}"));
            path.replace("&amp;", "&")
        })
        .collect();
    assert!(!paths.is_empty(), "no <loc> in the sitemap:\n{sitemap}");
    paths
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn openapi_document_is_valid() {
    let dir = Scratch::new("openapi");
    let server = start_server().await;
    let document = dir.write("openapi.json", &fetch(&server, "/openapi.json", &[]).await);
    let mut command = python_tool("openapi-spec-validator");
    command.args(["--validation-errors", "all"]).arg(document);
    run(command).await.assert_success();
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn openapi_document_passes_redocly_lint() {
    let dir = Scratch::new("redocly");
    let server = start_server().await;
    let document = dir.write("openapi.json", &fetch(&server, "/openapi.json", &[]).await);
    let mut command = node_tool("redocly");
    command.arg("lint").arg(document).current_dir(dir.path());
    command.env("REDOCLY_TELEMETRY", "off");
    command.env("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
    run(command).await.assert_success();
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn schemathesis_finds_no_failure() {
    // Run in a scratch directory: Schemathesis and Hypothesis write their
    // caches (.schemathesis/, .hypothesis/) into the working directory.
    let dir = Scratch::new("schemathesis");
    // A well-formed `If-Match` that names no current ETag is answered 412
    // (RFC 9110 §13.1.1), as the description says: among the answers to
    // a request the schema allows, beside Schemathesis's own.
    let config = dir.write(
        "schemathesis.toml",
        "[checks.positive_data_acceptance]\n\
         expected-statuses = [\"2xx\", \"3xx\", \"401\", \"403\", \"404\", \"409\", \"412\", \"429\", \"5xx\"]\n",
    );
    let server = start_server().await;
    let mut command = python_tool("schemathesis");
    command.arg("--config-file").arg(&config);
    command.args(["--no-color", "run"]);
    command.arg(format!("{}/openapi.json", server.origin));
    command.args(["--url", &server.origin, "--checks", "all"]);
    command.args(["--max-examples", "50", "--request-timeout", "10"]);
    command
        .args(["--generation-database", "none"])
        .current_dir(dir.path());
    run(command).await.assert_success();
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn every_html_page_passes_the_nu_checker() {
    let dir = Scratch::new("vnu");
    let server = start_server().await;
    let sitemap = fetch(&server, "/sitemap.xml", &[]).await;
    let mut command = Command::new(system_tool("java"));
    command
        .arg("-jar")
        .arg(node_file("vnu-jar/build/dist/vnu.jar"));
    command.args(["--stdout", "--format", "gnu", "--html"]);
    // One run for every page: the JVM takes seconds to start. The pages go
    // in as files since the checker refuses loopback URLs.
    for path in sitemap_paths(&sitemap) {
        let page = fetch(&server, &path, &[("accept", "text/html")]).await;
        command.arg(dir.write(&file_name(&path, ".html"), &page));
    }
    // And an error page, as a browser gets it.
    let missing = server.get("/nope", &[("accept", "text/html")]).await;
    assert_eq!(missing.header("content-type"), "text/html; charset=utf-8");
    command.arg(dir.write("error.html", missing.decoded()));
    // And a Chinese one, suggesting the method meant.
    let chinese = server
        .get("/zh-hans/api/selct", &[("accept", "text/html")])
        .await;
    assert_eq!(chinese.status, 404);
    command.arg(dir.write("error-zh-hans.html", chinese.decoded()));
    // And the search's pages: results, none found, a bad query, and the
    // page an export serves instead.
    for (name, query, status) in [
        ("search.html", "q=count+rows", 200),
        ("search-nothing.html", "q=slectt+xyzzy", 200),
        ("search-error.html", "q=", 400),
    ] {
        let page = server
            .get(&format!("/search?{query}"), &[("accept", "text/html")])
            .await;
        assert_eq!(page.status, status, "{query}");
        command.arg(dir.write(name, page.decoded()));
    }
    let exported = &refserve::table::production().search[0].exported;
    let exported = &exported.representations[0].identity().body;
    command.arg(dir.write("search-exported.html", exported));
    let outcome = run(command).await;
    println!("{}", outcome.output);
    outcome.assert_success();
    assert!(!outcome.output.contains(": error:"), "{}", outcome.output);
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn sitemap_is_valid_against_the_xsd() {
    let dir = Scratch::new("sitemap");
    let server = start_server().await;
    let sitemap = dir.write("sitemap.xml", &fetch(&server, "/sitemap.xml", &[]).await);
    // The sitemap schema, and the XHTML `link` its pages' versions are
    // (tests/data/xhtml-link.xsd), in one schema for xmllint.
    let xhtml_link = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xhtml-link.xsd");
    let both = format!(
        "<?xml version=\"1.0\"?>\n<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\">\n\
         <xs:import namespace=\"http://www.sitemaps.org/schemas/sitemap/0.9\" schemaLocation=\"{}\"/>\n\
         <xs:import namespace=\"http://www.w3.org/1999/xhtml\" schemaLocation=\"{xhtml_link}\"/>\n\
         </xs:schema>\n",
        node_file("sitemap/schema/sitemap.xsd").display()
    );
    let schema = dir.write("sitemap-with-versions.xsd", both);
    let mut command = Command::new(system_tool("xmllint"));
    command.args(["--noout", "--nonet", "--schema"]);
    command.arg(schema).arg(sitemap);
    run(command).await.assert_success();
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn every_markdown_body_passes_markdownlint() {
    let dir = Scratch::new("markdownlint");
    let server = start_server().await;
    let config = br#"{"default": true, "MD013": false}"#;
    let mut command = node_tool("markdownlint-cli2");
    command.current_dir(dir.path()).arg("--config");
    command.arg(dir.write(".markdownlint.json", config));
    let mut paths = vec!["/index.md".to_string(), "/api/index.md".to_string()];
    paths.extend(
        refserve::table::production()
            .keys
            .iter()
            .map(|key| format!("/api/{key}.md")),
    );
    paths.extend(
        [
            "/llms.txt",
            "/llms-full.txt",
            "/zh-hans/llms.txt",
            "/zh-hans/llms-full.txt",
        ]
        .map(String::from),
    );
    for path in paths {
        let name = file_name(path.trim_end_matches(".txt"), ".md");
        dir.write(&name, &fetch(&server, &path, &[]).await);
        command.arg(format!(":{name}"));
    }
    // The search's answers: results, and none found.
    for (name, query) in [
        ("search.md", "q=count+the+rows+that+match"),
        ("search-nothing.md", "q=slectt+xyzzy"),
    ] {
        let path = format!("/search?{query}");
        dir.write(
            name,
            &fetch(&server, &path, &[("accept", "text/markdown")]).await,
        );
        command.arg(format!(":{name}"));
    }
    run(command).await.assert_success();
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn redbot_finds_nothing_bad() {
    let server = start_server().await;
    let mut notes = Vec::new();
    for (path, status) in [
        ("/", 200),
        ("/api/select", 200),
        ("/api/reference.json", 200),
        ("/api/reference/select.json", 200),
        ("/api/reference/nope.json", 404),
        ("/index.md", 200),
        ("/search?q=count+rows", 200),
    ] {
        notes.extend(redbot(&server, path, status).await);
    }
    let all = notes.join("\n");
    println!("{all}");
    let bad: Vec<&String> = notes.iter().filter(|n| n.contains(" bad ")).collect();
    assert!(
        bad.is_empty(),
        "REDbot's bad notes: {bad:#?}\nall notes:\n{all}"
    );
}

/// REDbot's notes on `path`, which must answer `status`, one
/// `<path>: <level> <note id>: <summary>` a note. REDbot exits 0 whatever it
/// finds, so the notes are read from its HAR output.
async fn redbot(server: &Server, path: &str, status: u16) -> Vec<String> {
    let mut command = python_tool("redbot");
    command
        .args(["-o", "har"])
        .arg(format!("{}{path}", server.origin));
    let outcome = run(command).await;
    outcome.assert_success();
    let har: serde_json::Value = serde_json::from_str(&outcome.stdout)
        .unwrap_or_else(|e| panic!("REDbot's HAR for {path}: {e}\n{}", outcome.output));
    let entry = &har["log"]["entries"][0];
    assert_eq!(
        entry["response"]["status"], status,
        "{path}: {}",
        outcome.output
    );
    let notes = entry["_red_messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let text = |note: &serde_json::Value, field: &str| {
        note[field].as_str().unwrap_or_default().to_string()
    };
    notes
        .iter()
        .map(|note| {
            let level = text(note, "level").to_lowercase();
            format!(
                "{path}: {level} {}: {}",
                text(note, "note_id"),
                text(note, "summary")
            )
        })
        .collect()
}

/// Checks `content/method.schema.json` (argv[1] is the content directory):
/// a valid JSON Schema, which every shipped front matter meets and which
/// refuses what the build refuses for its shape.
const SCHEMA_CHECK: &str = r#"
import json, pathlib, sys, tomllib
from jsonschema import Draft202012Validator
content = pathlib.Path(sys.argv[1])
schema = json.loads((content / "method.schema.json").read_text())
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
# Dates as strings, as editors' TOML tools (Taplo) give them to a schema.
front = lambda path: json.loads(json.dumps(
    tomllib.loads(path.read_text().split("+++\n", 2)[1]), default=str))
problems = []
files = sorted((content / "methods").glob("*.md"))
for path in files:
    for error in validator.iter_errors(front(path)):
        problems.append(f"{path.name}: {error.json_path}: {error.message}")
good = front(content / "methods" / "select.md")
for change in [{"weigth": 1}, {"weight": -1}, {"key": "Select"}, {"signature": 42},
               {"signature": ["select($table)"]}, {"group": {"name": "Queries"}},
               {"returns": "array"}, {"synonyms": ["a", "a"]},
               {"parameters": [{"table": "x"}, {"t": "y"}]},
               {"since": {"version": "1.2"}}, {"since": {"version": "v1", "date": "2025-03-01"}},
               {"since": {"version": "1.2", "date": "2025-03-01", "use": "get"}},
               {"deprecated": {"version": "2.0", "date": "1 Nov 2026"}},
               {"removed": {"version": "3.0", "date": "2026-11-20", "instead": "get"}}]:
    if validator.is_valid({**good, **change}):
        problems.append(f"the schema accepts {change}")
marked = {"since": {"version": "1.2", "date": "2025-03-01"},
          "deprecated": {"version": "2.0-beta.1", "date": "2026-11-01", "use": "get"},
          "removed": {"version": "3.0", "date": "2026-11-20"}}
for error in validator.iter_errors({**good, **marked}):
    problems.append(f"the schema refuses lifecycle marks: {error.json_path}: {error.message}")
print("\n".join(problems) or f"{len(files)} front matters meet the schema")
sys.exit(1 if problems or not files else 0)
"#;

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn method_files_meet_the_front_matter_schema() {
    let mut command = Command::new(tools().join("venv/bin/python"));
    command
        .args(["-c", SCHEMA_CHECK])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/content"));
    let outcome = run(command).await;
    outcome.assert_success();
    assert!(
        outcome.stdout.contains(&format!(
            "{} front matters meet the schema",
            shipped_methods().len()
        )),
        "{}",
        outcome.output
    );
}
