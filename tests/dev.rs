//! `refserve dev`: a content directory served through production's
//! responses and rendered again on every edit — read over HTTP, and in
//! headless Chromium, where open pages follow edits and show content errors
//! — and kept serving whatever is put in the directory (FIFOs, links out of
//! it, huge files) and however many clients connect and stay silent.

use crate::support::{
    content_copy, date_forms, method_renamed, mkfifo, node_file, run, shipped_methods, system_tool,
    Scratch, Server,
};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, UNIX_EPOCH};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A running `refserve dev` on a copy of `content/` (`tests/lifecycle.rs`
/// starts one too).
pub(crate) struct Dev {
    child: Child,
    pub(crate) origin: String,
    /// The lines it prints, as it prints them.
    lines: Receiver<String>,
    scratch: Scratch,
}

impl Dev {
    /// Start it on a copy of `content/`, changed by `prepare` first.
    pub(crate) fn start(name: &str, prepare: impl FnOnce(&Scratch)) -> Dev {
        let scratch = content_copy(name);
        prepare(&scratch);
        let mut command = Command::new(env!("CARGO_BIN_EXE_refserve"));
        command
            .arg("dev")
            .arg("--content")
            .arg(scratch.path().join("content"))
            .args(["--addr", "127.0.0.1:0"]);
        Dev::spawn(command, scratch)
    }

    /// Start it on a copy of `content/` with `args`, allowed `files` open
    /// files (`ulimit -n`).
    fn start_with_open_files(name: &str, files: u32, args: &[&str]) -> Dev {
        let scratch = content_copy(name);
        let mut command = Command::new("sh");
        command
            .args(["-c", &format!("ulimit -n {files} && exec \"$@\""), "sh"])
            .arg(env!("CARGO_BIN_EXE_refserve"))
            .arg("dev")
            .arg("--content")
            .arg(scratch.path().join("content"))
            .args(["--addr", "127.0.0.1:0"])
            .args(args);
        Dev::spawn(command, scratch)
    }

    /// Run `command` (`refserve dev` on `scratch`) and read its address.
    fn spawn(mut command: Command, scratch: Scratch) -> Dev {
        let mut child = command
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn refserve dev");
        let stderr = BufReader::new(child.stderr.take().expect("piped"));
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut dev = Dev {
            child,
            origin: String::new(),
            lines,
            scratch,
        };
        let first = dev.line_with(" on http://");
        let origin = first
            .split(" on ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("an address in {first:?}"));
        dev.origin = origin.to_string();
        dev
    }

    /// The next line it prints that contains `text` (the lines before it
    /// are passed over); fails after 60 s (a first render in a debug
    /// build, beside other tests, takes seconds).
    fn line_with(&self, text: &str) -> String {
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(error) => panic!("no line with {text:?} from refserve dev: {error}"),
            }
        }
    }

    /// Every line it prints up to the next that contains `text`, that one
    /// included; fails as [`Dev::line_with`] does.
    fn lines_through(&self, text: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => {
                    let last = line.contains(text);
                    lines.push(line);
                    if last {
                        return lines;
                    }
                }
                Err(error) => panic!("no line with {text:?} from refserve dev: {error}"),
            }
        }
    }

    fn entry(&self, key: &str) -> PathBuf {
        self.scratch
            .path()
            .join(format!("content/methods/{key}.md"))
    }

    pub(crate) fn client(&self) -> Server {
        Server::client_for(&self.origin)
    }

    /// Put what `make` creates outside the content directory in place of
    /// the entry `key`, in one rename: one change for the watcher.
    fn replace_entry(&self, key: &str, make: impl FnOnce(&Path)) {
        let aside = self.scratch.path().join("replacement");
        make(&aside);
        std::fs::rename(&aside, self.entry(key)).expect("rename over the entry");
    }

    /// The most memory the process has held (`VmHWM`), in bytes.
    fn peak_memory(&self) -> u64 {
        crate::support::peak_kib(self.child.id()) * 1024
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The status line of `GET path` from `addr` over a new connection.
async fn status_line(addr: &str, path: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await?;
    let text = String::from_utf8_lossy(&response);
    Ok(text.lines().next().unwrap_or_default().to_string())
}

/// `text`, a method file, with its description (the body's first
/// paragraph) changed to `description`.
fn described(text: &str, description: &str) -> String {
    let (front, body) = text.split_once("\n+++\n").expect("front matter");
    let body = body.trim_start_matches('\n');
    let rest = &body[body.find("\n\n").expect("a paragraph")..];
    format!("{front}\n+++\n\n{description}{rest}")
}

/// `text` with the skills index's `sha256:` digest set aside: it is of
/// the skill with the server's own base URL in it, so it differs between
/// two servers whatever else agrees (`the_skills_index_digests_dev_s_own_skill`).
fn digest_set_aside(text: &str) -> String {
    match text.split_once("\"digest\":\"sha256:") {
        Some((before, after)) => format!("{before}\"digest\":\"sha256:…{}", &after[64..]),
        None => text.to_string(),
    }
}

#[tokio::test]
async fn the_skills_index_digests_dev_s_own_skill() {
    let dev = Dev::start("dev-skill", |_| {});
    let client = dev.client();
    let index = client
        .get("/.well-known/agent-skills/index.json", &[])
        .await
        .json();
    let skill = &index["skills"][0];
    let url = skill["url"].as_str().expect("a url");
    let served = client.get(url, &[("accept-encoding", "identity")]).await;
    assert!(String::from_utf8_lossy(&served.body).contains(&dev.origin));
    let hex = crate::support::sha256_hex(&served.body);
    assert_eq!(skill["digest"], format!("sha256:{hex}"));
}

#[tokio::test]
async fn dev_serves_the_identity_bodies_of_production_but_the_script() {
    let dev = Dev::start("dev-same", |_| {});
    dev.line_with("rendered in");
    let client = dev.client();
    let production = refserve::table::production();
    let tag = "<script src=\"/_refserve/reload.js\"></script>";
    // Each dates its resources by its own inputs' changes.
    let dev_date = client
        .get("/", &[])
        .await
        .header("last-modified")
        .to_string();
    let dev_dates = date_forms(httpdate::parse_http_date(&dev_date).expect("a date"));
    let production_dates =
        date_forms(UNIX_EPOCH + Duration::from_secs(production.last_modified_unix));
    let mut compared = 0;
    for resource in production.resources.iter() {
        if resource.id.starts_with("/dictionaries/") {
            continue; // dev compresses against no dictionary
        }
        for (media, representation) in resource.media_types.iter().zip(&resource.representations) {
            let accept = format!("{}/{}", media.kind, media.subtype);
            let reply = client
                .get(
                    &resource.id,
                    &[("accept", &accept), ("accept-encoding", "identity")],
                )
                .await;
            assert_eq!(reply.status, 200, "{} {accept}", resource.id);
            let body = String::from_utf8_lossy(&reply.body)
                .replace(tag, "")
                .replace(
                    &cursor_config(&dev.origin),
                    &cursor_config(&production.base_url),
                )
                .replace(
                    &query_value(&dev.origin),
                    &query_value(&production.base_url),
                )
                .replace(&dev.origin, &production.base_url)
                .replace(&dev_dates[0], &production_dates[0])
                .replace(&dev_dates[1], &production_dates[1]);
            let expected = String::from_utf8_lossy(&representation.identity().body);
            let (body, expected) = (digest_set_aside(&body), digest_set_aside(&expected));
            assert!(body == expected, "{} {accept} differs", resource.id);
            if accept == "text/html" {
                assert!(String::from_utf8_lossy(&reply.body).contains(tag));
                let policy = reply.header("content-security-policy");
                assert!(policy.contains("script-src 'self'"), "{policy}");
            }
            compared += 1;
        }
    }
    assert!(compared > 70, "{compared}");
    let script = client.get("/_refserve/reload.js", &[]).await;
    assert_eq!(
        script.header("content-type"),
        "text/javascript; charset=utf-8"
    );
    assert!(String::from_utf8_lossy(&script.body).contains("EventSource"));
}

#[tokio::test]
async fn an_edit_and_a_rename_style_save_are_served_once_rendered() {
    let dev = Dev::start("dev-edit", |_| {});
    dev.line_with("rendered in");
    let client = dev.client();
    let file = dev.entry("select");
    let original = std::fs::read_to_string(&file).expect("the entry");

    std::fs::write(&file, described(&original, "Edited in place.")).expect("write");
    let line = dev.line_with("changed");
    assert!(
        line.contains("methods/select.md changed → rendered in "),
        "{line}"
    );
    assert!(line.ends_with(" pages reloaded"), "none open: {line}");
    let reply = client.get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.json()["data"]["description"], "Edited in place.");

    // As editors that keep a backup do: a new file, renamed over the old.
    let temporary = file.with_file_name(".select.md.swp");
    std::fs::write(&temporary, described(&original, "Saved by rename.")).expect("write");
    std::fs::rename(&temporary, &file).expect("rename");
    dev.line_with("methods/select.md changed → rendered in ");
    let reply = client.get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.json()["data"]["description"], "Saved by rename.");
}

#[tokio::test]
async fn an_english_edit_makes_the_chinese_page_say_it_may_be_out_of_date() {
    let dev = Dev::start("dev-outdated", |_| {});
    dev.line_with("rendered in");
    let client = dev.client();
    let markdown = [("accept", "text/markdown")];
    let before = client.get("/zh-hans/api/select", &markdown).await;
    assert_eq!(before.status, 200);
    assert!(
        !before.text().contains("此译文可能已过时"),
        "{}",
        before.text()
    );

    let file = dev.entry("select");
    let original = std::fs::read_to_string(&file).expect("the entry");
    std::fs::write(&file, described(&original, "Edited in English only.")).expect("write");
    dev.line_with("methods/select.md changed → rendered in ");
    let after = client.get("/zh-hans/api/select", &markdown).await;
    let text = after.text();
    assert_eq!(after.status, 200);
    assert!(
        text.contains("> 此译文可能已过时") && text.contains("[阅读英文页面](/en/api/select)"),
        "{text}"
    );
    let english = client.get("/en/api/select", &markdown).await;
    assert!(english.text().contains("Edited in English only."));
}

#[tokio::test]
async fn a_method_file_added_and_one_deleted_change_every_list() {
    let dev = Dev::start("dev-grow", |_| {});
    dev.line_with("rendered in");
    let drop = std::fs::read_to_string(dev.entry("drop")).expect("drop.md");
    dev.replace_entry("truncate", |aside| {
        std::fs::write(aside, method_renamed(&drop, "drop", "truncate")).expect("write");
    });
    dev.line_with("methods/truncate.md changed → rendered in ");
    std::fs::remove_file(dev.entry("rand")).expect("remove rand.md");
    dev.line_with("methods/rand.md changed → rendered in ");

    let client = dev.client();
    let collection = client.get("/api/reference.json", &[]).await.json();
    assert_eq!(collection["meta"]["count"], shipped_methods().len());
    let keys = each(&collection["data"], "key");
    assert!(
        keys.contains(&"truncate") && !keys.contains(&"rand"),
        "{keys:?}"
    );
    let single = client.get("/api/reference/truncate.json", &[]).await;
    assert_eq!(single.json()["data"]["signature"], "truncate($table)");
    assert_eq!(
        client.get("/api/reference/rand.json", &[]).await.status,
        404
    );
    assert_eq!(client.get("/api/truncate", &[]).await.status, 200);
    for path in [
        "/",
        "/api/",
        "/api/select",
        "/sitemap.xml",
        "/llms.txt",
        "/llms-full.txt",
    ] {
        let reply = client.get(path, &[("accept-encoding", "identity")]).await;
        let text = String::from_utf8_lossy(&reply.body);
        assert!(
            text.contains("/api/truncate"),
            "{path} lists the new method"
        );
        assert!(
            !text.contains("/api/rand"),
            "{path} still lists the deleted one"
        );
    }
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_methods"}}"#;
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let answer = client.post("/mcp", &headers, list).await.json();
    let names = each(&answer["result"]["structuredContent"]["methods"], "name");
    assert!(
        names.contains(&"truncate") && !names.contains(&"rand"),
        "{names:?}"
    );
}

#[tokio::test]
async fn invalid_content_keeps_the_last_good_table_and_names_the_file_and_field() {
    let dev = Dev::start("dev-invalid", |_| {});
    dev.line_with("rendered in");
    let file = dev.entry("select");
    let original = std::fs::read_to_string(&file).expect("the entry");
    std::fs::write(
        &file,
        original.replace("key = \"select\"", "key = \"selectx\""),
    )
    .expect("write");
    let error = dev.line_with("error: ");
    assert_eq!(
        error,
        "error: content/methods/select.md: field `name`: `select` must equal the key `selectx`",
        "the message build.rs prints, no absolute path"
    );
    dev.line_with("not rendered");
    let reply = dev.client().get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.status, 200, "the last good table still serves");
    let told = reply.header("refserve-content-error");
    assert!(
        told.starts_with(
            "content/methods/select.md: field `name`: `select` must equal the key `selectx` (and "
        ),
        "a client without the page's script is told too: {told}"
    );
    std::fs::write(&file, original).expect("write");
    dev.line_with("rendered in");
    let reply = dev.client().get("/api/reference/select.json", &[]).await;
    assert!(reply.headers.get("refserve-content-error").is_none());
}

#[tokio::test]
async fn a_file_name_cannot_forge_or_hide_a_line_of_the_log() {
    let dev = Dev::start("dev-log-names", |_| {});
    dev.line_with("rendered in");
    // A name that, printed raw, ends its line, prints one of refserve's
    // (a name holds no `/`: that of a render with no file named), and
    // erases the terminal line it is on.
    let forged = "refserve dev: rendered in 1 ms → 0 pages reloaded";
    let name = format!("x\r\n{forged}\u{1b}[2K\u{202e}.md");
    let methods = dev.scratch.path().join("content/methods");
    std::fs::write(methods.join(&name), "+++\n+++\n").expect("write");
    let lines = dev.lines_through("not rendered");
    for line in &lines {
        assert!(
            line.starts_with("error: ") || line.starts_with("refserve dev: "),
            "every line is refserve's own: {lines:#?}"
        );
        assert!(
            !line.starts_with(forged) && !line.contains(['\r', '\u{1b}', '\u{202e}']),
            "{lines:#?}"
        );
    }
    let escaped = format!("x\\r\\n{forged}\\u{{1b}}[2K\\u{{202e}}.md");
    let summary = lines.last().expect("the line of the change");
    assert!(
        summary.contains(&format!("methods/{escaped} changed → not rendered")),
        "the name, escaped as Rust escapes it: {summary}"
    );
    // The content error names the file too, and stays one line.
    let errors: Vec<&String> = lines
        .iter()
        .filter(|line| line.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let named = format!("error: content/methods/{escaped}: is not a method file");
    assert!(errors[0].starts_with(&named), "{}", errors[0]);
}

#[tokio::test]
async fn every_answer_of_dev_is_never_stored() {
    let dev = Dev::start("dev-no-store", |_| {});
    dev.line_with("rendered in");
    let client = dev.client();
    let select = client.get("/api/reference/select.json", &[]).await;
    let etag = select.header("etag").to_string();
    for reply in [
        select,
        client.get("/", &[("accept", "text/html")]).await,
        client.get("/nope", &[]).await,
        client.get("/_refserve/reload.js", &[]).await,
        client
            .get("/api/reference/select.json", &[("if-none-match", &etag)])
            .await,
        client
            .post("/mcp", &[("content-type", "application/json")], "{")
            .await,
    ] {
        assert_eq!(
            reply.header("cache-control"),
            "no-store",
            "{}",
            reply.status
        );
        // Nor for a CDN, whatever production's documents say.
        for for_the_edge in ["cdn-cache-control", "surrogate-control"] {
            assert!(!reply.headers.contains_key(for_the_edge), "{for_the_edge}");
        }
    }
}

#[tokio::test]
async fn an_edit_is_never_answered_not_modified_since_the_date_before_it() {
    // A checkout made an hour ago, edited now.
    let dev = Dev::start("dev-dates", |scratch| {
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        set_modified_under(&scratch.path().join("content"), hour_ago);
    });
    dev.line_with("rendered in");
    let client = dev.client();
    let before = client.get("/api/reference/select.json", &[]).await;
    let last_modified = before.header("last-modified").to_string();
    let file = dev.entry("select");
    let original = std::fs::read_to_string(&file).expect("the entry");
    std::fs::write(&file, described(&original, "Edited after the checkout.")).expect("write");
    dev.line_with("methods/select.md changed → rendered in ");
    let after = client
        .get(
            "/api/reference/select.json",
            &[("if-modified-since", &last_modified)],
        )
        .await;
    assert_eq!(after.status, 200, "the body changed since {last_modified}");
    assert_eq!(
        after.json()["data"]["description"],
        "Edited after the checkout."
    );
    let newer = httpdate::parse_http_date(after.header("last-modified")).expect("a date");
    assert!(newer > httpdate::parse_http_date(&last_modified).expect("a date"));
}

/// The `field` of every member of the array `list`.
fn each<'v>(list: &'v serde_json::Value, field: &str) -> Vec<&'v str> {
    let members = list.as_array().expect("an array");
    members
        .iter()
        .filter_map(|member| member[field].as_str())
        .collect()
}

/// Date every file and directory under `dir` (and `dir`) `time`.
fn set_modified_under(dir: &Path, time: std::time::SystemTime) {
    for entry in std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry"))
    {
        if entry.path().is_dir() {
            set_modified_under(&entry.path(), time);
        } else {
            let file = std::fs::File::options()
                .write(true)
                .open(entry.path())
                .expect("open");
            file.set_modified(time).expect("set the modification time");
        }
    }
    let handle = std::fs::File::open(dir).expect("open the directory");
    handle
        .set_modified(time)
        .expect("set the modification time");
}

#[tokio::test]
async fn dev_started_on_invalid_content_serves_the_error_until_it_is_fixed() {
    let dev = Dev::start("dev-broken", |scratch| {
        let file = scratch.path().join("content/methods/select.md");
        let text = std::fs::read_to_string(&file).expect("the entry");
        std::fs::write(&file, text.replace("returns =", "return =")).expect("write");
    });
    dev.line_with("not rendered");
    let client = dev.client();
    let page = client.get("/api/select", &[("accept", "text/html")]).await;
    assert_eq!(page.status, 503);
    let text = String::from_utf8_lossy(&page.body);
    assert!(text.contains("content/methods/select.md"), "{text}");
    let scratch = dev.scratch.path().display().to_string();
    assert!(!text.contains(&scratch), "no absolute path: {text}");
    assert!(
        text.contains("/_refserve/reload.js"),
        "the page reloads when fixed"
    );
    let reply = client.get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.status, 503);
    assert_eq!(reply.error_code(), "content_invalid");

    let file = dev.entry("select");
    let text = std::fs::read_to_string(&file).expect("the entry");
    std::fs::write(&file, text.replace("return =", "returns =")).expect("write");
    dev.line_with("rendered in");
    assert_eq!(client.get("/api/select", &[]).await.status, 200);
}

#[tokio::test]
#[ignore = "external tool: tests/tools/full"]
async fn an_open_page_follows_edits_and_shows_content_errors_in_chromium() {
    let dev = Dev::start("dev-browser", |_| {});
    dev.line_with("rendered in");
    let mut command = Command::new(system_tool("node"));
    command
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tools/dev.cjs"))
        .args(["check", &dev.origin])
        .arg(dev.scratch.path().join("content"))
        .env("NODE_PATH", node_file(""))
        .env("CHROME_PATH", system_tool("chromium"));
    let outcome = run(command).await;
    outcome.assert_success();
    let result: serde_json::Value = serde_json::from_str(&outcome.stdout).expect("JSON");
    let steps: Vec<&str> = result["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|step| step["step"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        steps,
        ["edit", "rename", "invalid", "fixed"],
        "{}",
        outcome.output
    );
    let overlay = result["steps"][2]["overlay"].as_str().unwrap_or_default();
    assert!(overlay.contains("field `name`"), "{overlay}");
}

#[tokio::test]
async fn a_fifo_at_start_is_a_content_error_and_its_removal_renders() {
    let dev = Dev::start("dev-fifo-start", |scratch| {
        let file = scratch.path().join("content/methods/select.md");
        std::fs::rename(&file, scratch.path().join("select.md")).expect("move aside");
        mkfifo(&file);
    });
    let error = dev.line_with("error: ");
    assert_eq!(
        error,
        "error: content/methods/select.md: is a FIFO; content files must be regular files"
    );
    dev.replace_entry("select", |aside| {
        std::fs::rename(dev.scratch.path().join("select.md"), aside).expect("move back");
    });
    dev.line_with("rendered in");
    assert_eq!(dev.client().get("/api/select", &[]).await.status, 200);
}

#[tokio::test]
async fn a_fifo_made_while_running_is_a_content_error_and_its_removal_renders() {
    let dev = Dev::start("dev-fifo", |_| {});
    dev.line_with("rendered in");
    let original = std::fs::read_to_string(dev.entry("select")).expect("the entry");
    dev.replace_entry("select", mkfifo);
    let error = dev.line_with("error: ");
    assert_eq!(
        error,
        "error: content/methods/select.md: is a FIFO; content files must be regular files"
    );
    assert_eq!(dev.client().get("/api/select", &[]).await.status, 200);
    dev.replace_entry("select", |aside| {
        std::fs::write(aside, original).expect("write");
    });
    dev.line_with("rendered in");
}

#[tokio::test]
async fn a_link_out_of_the_content_directory_is_a_content_error() {
    let dev = Dev::start("dev-link", |_| {});
    dev.line_with("rendered in");
    let outside = dev.scratch.path().join("select.md");
    std::fs::copy(dev.entry("select"), &outside).expect("copy the entry outside");
    dev.replace_entry("select", |aside| {
        std::os::unix::fs::symlink(&outside, aside).expect("symlink");
    });
    let error = dev.line_with("error: ");
    assert_eq!(
        error,
        "error: content/methods/select.md: leads outside the content directory \
         (a symbolic link); content files must be inside it"
    );
    assert_eq!(dev.client().get("/api/select", &[]).await.status, 200);
}

#[tokio::test]
async fn a_content_file_over_the_cap_is_refused_unread() {
    let dev = Dev::start("dev-huge", |_| {});
    dev.line_with("rendered in");
    let started = dev.peak_memory();
    let original = std::fs::read_to_string(dev.entry("select")).expect("the entry");
    dev.replace_entry("select", |aside| {
        let huge = described(&original, &"x".repeat(50 << 20));
        std::fs::write(aside, huge).expect("write");
    });
    let error = dev.line_with("error: ");
    assert_eq!(
        error,
        "error: content/methods/select.md: is larger than 1 MiB (1048576 bytes), \
         the most a content file may hold"
    );
    assert_eq!(dev.client().get("/api/select", &[]).await.status, 200);
    let peak = dev.peak_memory();
    assert!(
        peak < started + (64 << 20),
        "peak {peak} bytes, {started} after the first render"
    );
}

#[tokio::test]
async fn silent_connections_beyond_the_open_file_limit_wait_their_turn_and_are_closed() {
    let dev = Dev::start_with_open_files("dev-files", 256, &["--header-read-timeout", "1"]);
    dev.line_with("rendered in");
    let addr = dev.origin.trim_start_matches("http://");
    let mut silent = Vec::new();
    for _ in 0..370 {
        silent.push(TcpStream::connect(addr).await.expect("connect"));
    }
    // Asked again, a second apart, should a connection fail.
    let answered = async {
        loop {
            match status_line(addr, "/api/select").await {
                Ok(line) if !line.is_empty() => return line,
                _ => tokio::time::sleep(Duration::from_secs(1)).await,
            }
        }
    };
    let line = tokio::time::timeout(Duration::from_secs(30), answered)
        .await
        .expect("a GET is answered within 30 s");
    assert_eq!(line, "HTTP/1.1 200 OK");
    let all_closed = async {
        for stream in &mut silent {
            while let Ok(1..) = stream.read(&mut [0; 64]).await {}
        }
    };
    tokio::time::timeout(Duration::from_secs(30), all_closed)
        .await
        .expect("every silent connection is closed within 30 s");
}

/// `origin` as the page actions write it in a query value (an origin's
/// `:` and `/` percent-encoded).
fn query_value(origin: &str) -> String {
    origin.replace(':', "%3A").replace('/', "%2F")
}

/// The page actions' Cursor install config for the MCP server of `origin`:
/// its JSON in base64, as a query value.
fn cursor_config(origin: &str) -> String {
    use base64::Engine;
    let json = format!("{{\"url\":\"{origin}/mcp\"}}");
    base64::engine::general_purpose::STANDARD
        .encode(json)
        .replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D")
}
