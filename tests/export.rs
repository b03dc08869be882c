//! `refserve export` served by nginx gives the bytes refserve sends: every
//! path, every representation with a file, every coding; and the export
//! says what it leaves out (dictionary-compressed bodies, `/mcp`) and what
//! it serves at `/search` instead (a page that links the index); each
//! language's `llms.txt`, `llms-full.txt` and feed are files like the others.

use crate::support::{start_server, system_tool, Scratch, Server};
use refserve::export::file_name;
use refserve::negotiate::Coding;
use std::process::{Child, Command, Stdio};

/// nginx, serving `root` with `benches/nginx.conf.template`; killed on drop.
struct Nginx {
    child: Child,
    origin: String,
    _prefix: Scratch,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM, not SIGKILL: the master then stops its worker too.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

/// A free loopback port (released just before nginx binds it).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn start_nginx(root: &std::path::Path) -> Nginx {
    let prefix = Scratch::new("nginx");
    let port = free_port();
    let template = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/nginx.conf.template"
    ))
    .expect("the nginx template");
    let config = template
        .replace(
            "@MODULE@",
            "load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;",
        )
        .replace("@PREFIX@", &prefix.path().display().to_string())
        .replace("@ROOT@", &root.display().to_string())
        .replace("@PORT@", &port.to_string())
        .replace("@TLS@", "");
    let config = prefix.write("nginx.conf", config);
    let child = Command::new(system_tool("nginx"))
        .arg("-p")
        .arg(prefix.path())
        .arg("-c")
        .arg(&config)
        .arg("-e")
        .arg(prefix.path().join("error.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx starts");
    let origin = format!("http://127.0.0.1:{port}");
    // nginx binds before it forks its worker; connecting is the signal.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "nginx did not start: {}",
            std::fs::read_to_string(prefix.path().join("error.log")).unwrap_or_default()
        );
        std::thread::yield_now();
    }
    Nginx {
        child,
        origin,
        _prefix: prefix,
    }
}

/// `Accept-Encoding` that makes both servers pick `coding`; `None` for the
/// dictionary codings, which are not exported.
fn accept_encoding(coding: Coding) -> Option<&'static str> {
    match coding {
        Coding::Br => Some("br"),
        Coding::Gzip => Some("gzip"),
        Coding::Identity => Some("identity"),
        Coding::Dcb | Coding::Dcz => None,
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn nginx_serving_the_export_sends_the_same_bytes() {
    let server = start_server().await;
    let export = Scratch::new("export");
    let status = Command::new(env!("CARGO_BIN_EXE_refserve"))
        .arg("export")
        .arg(export.path())
        .stderr(Stdio::null())
        .status()
        .expect("refserve export runs");
    assert!(status.success());
    let nginx = start_nginx(export.path());
    let nginx_client = Server::client_for(&nginx.origin);
    let mut compared = 0;
    for resource in refserve::table::production().resources.iter() {
        let path = &resource.id;
        for (index, representation) in resource.representations.iter().enumerate() {
            if file_name(path, resource, index).is_none() {
                continue;
            }
            let media = resource.media_types[index];
            let accept = format!("{}/{}", media.kind, media.subtype);
            for variant in &representation.variants {
                let Some(accept_encoding) = accept_encoding(variant.coding) else {
                    continue;
                };
                let headers = [
                    ("accept", accept.as_str()),
                    ("accept-encoding", accept_encoding),
                ];
                let ours = server.get(path, &headers).await;
                let theirs = nginx_client.get(path, &headers).await;
                assert_eq!(ours.status, 200, "{path} {accept} {:?}", variant.coding);
                assert_eq!(
                    theirs.status, 200,
                    "nginx {path} {accept} {:?}",
                    variant.coding
                );
                assert_eq!(
                    ours.header("content-encoding"),
                    theirs.header("content-encoding"),
                    "{path}"
                );
                assert!(
                    ours.body == theirs.body,
                    "{path} {accept} {:?}: bodies differ",
                    variant.coding
                );
                assert_eq!(
                    ours.body, variant.body,
                    "{path}: refserve sends the table's bytes"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "{compared} bodies compared");
}

/// Run `refserve export` into a new scratch directory: the directory and
/// what the command said on standard error.
fn export_into(name: &str) -> (Scratch, String) {
    let export = Scratch::new(name);
    let output = Command::new(env!("CARGO_BIN_EXE_refserve"))
        .arg("export")
        .arg(export.path())
        .output()
        .expect("refserve export runs");
    assert!(output.status.success());
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    (export, said)
}

#[tokio::test]
async fn the_export_says_what_it_leaves_out_for_dictionaries() {
    let (export, said) = export_into("export-dictionary");
    assert!(
        said.contains("dictionary-compressed bodies (dcb, dcz) are not exported"),
        "{said}"
    );
    // The dictionary itself is a file like any other; no body needs it.
    let dictionary = &refserve::table::production().dictionaries[0]
        .path
        .trim_start_matches('/');
    assert!(export.path().join(dictionary).is_file());
    // One file per stored document's body that has a file name (`/search`'s
    // page among them), none for dcb or dcz.
    let expected: usize = refserve::table::production()
        .stored()
        .filter(|resource| resource.error.is_none())
        .flat_map(|resource| {
            let path = &resource.id;
            resource
                .representations
                .iter()
                .enumerate()
                .filter(move |&(index, _)| file_name(path, resource, index).is_some())
                .flat_map(|(_, representation)| representation.variants.iter())
        })
        .filter(|variant| !variant.coding.needs_dictionary())
        .count();
    assert!(
        said.contains(&format!("wrote {expected} files")),
        "{expected} files: {said}"
    );
}

#[tokio::test]
async fn the_export_says_mcp_needs_the_running_server() {
    let (export, said) = export_into("export-mcp");
    let note = "/mcp is not exported: a static host cannot answer POST requests";
    assert_eq!(said.matches(note).count(), 1, "{said}");
    assert!(
        said.contains("agents must use the running server"),
        "{said}"
    );
    // No file stands for /mcp, whatever its suffix: `mcp` is the directory
    // of the server card (`/mcp/server-card`) and holds nothing else.
    let names = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("a directory of the export")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    let root = names(export.path());
    assert!(
        !root.iter().any(|name| name.starts_with("mcp.")),
        "{root:?}"
    );
    let mcp = export.path().join("mcp");
    assert!(mcp.is_dir(), "{root:?}");
    let cards = names(&mcp);
    assert!(cards.iter().any(|name| name == "server-card"), "{cards:?}");
    for name in &cards {
        let coding = name.strip_prefix("server-card");
        assert!(
            matches!(coding, Some("" | ".br" | ".gz")),
            "one body, in its stored codings: {cards:?}"
        );
    }
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn a_static_host_answers_search_with_a_page_that_links_the_index() {
    let (export, said) = export_into("export-search");
    assert!(
        said.contains("each language's search (/en/search, …) is exported as a page that says search needs the running server"),
        "{said}"
    );
    let exported = &refserve::table::production().search[0].exported;
    let page = &exported.representations[0];
    let html = String::from_utf8(page.identity().body.to_vec()).expect("UTF-8");
    assert!(
        html.contains("href=\"/en/api/\">index of methods</a>"),
        "{html}"
    );
    assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
    let nginx = start_nginx(export.path());
    let client = Server::client_for(&nginx.origin);
    for variant in &page.variants {
        let Some(accept_encoding) = accept_encoding(variant.coding) else {
            continue;
        };
        for path in ["/en/search", "/en/search?q=count+rows"] {
            let reply = client
                .get(path, &[("accept-encoding", accept_encoding)])
                .await;
            assert_eq!(reply.status, 200, "{path} {accept_encoding}");
            assert_eq!(reply.header("content-type"), "text/html; charset=utf-8");
            assert_eq!(reply.body, variant.body, "{path} {accept_encoding}");
        }
    }
}

#[test]
fn every_language_s_documents_for_agents_are_exported() {
    let (export, _) = export_into("export-languages");
    let table = refserve::table::production();
    for path in [
        "/llms.txt",
        "/llms-full.txt",
        "/changes.atom",
        "/en/llms.txt",
        "/en/changes.atom",
        "/zh-hans/llms.txt",
        "/zh-hans/llms-full.txt",
        "/zh-hans/changes.atom",
    ] {
        let resource = table.resource(path).expect(path);
        let name = file_name(path, resource, 0).expect(path);
        let file = export.path().join(&name);
        let written = std::fs::read(&file).expect(path);
        assert_eq!(
            written,
            resource.representations[0].identity().body,
            "{path}"
        );
        // Each stored coding beside it.
        for variant in &resource.representations[0].variants {
            let suffix = match variant.coding {
                Coding::Br => ".br",
                Coding::Gzip => ".gz",
                _ => continue,
            };
            let coded = export.path().join(format!("{name}{suffix}"));
            assert_eq!(std::fs::read(&coded).expect(path), variant.body, "{path}");
        }
    }
    let chinese = std::fs::read_to_string(export.path().join("zh-hans/llms.txt")).expect("read");
    assert!(chinese.contains("阅读方式："), "{chinese}");
}
