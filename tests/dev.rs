//! `refserve dev`: a content directory served through production's
//! responses and rendered again on every edit — read over HTTP, and in
//! headless Chromium, where open pages follow edits and show content errors.

use crate::support::{content_copy, node_file, run, system_tool, Scratch, Server};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// A running `refserve dev` on a copy of `content/`.
struct Dev {
    child: Child,
    origin: String,
    /// The lines it prints, as it prints them.
    lines: Receiver<String>,
    scratch: Scratch,
}

impl Dev {
    /// Start it on a copy of `content/`, changed by `prepare` first.
    fn start(name: &str, prepare: impl FnOnce(&Scratch)) -> Dev {
        let scratch = content_copy(name);
        prepare(&scratch);
        let mut child = Command::new(env!("CARGO_BIN_EXE_refserve"))
            .arg("dev")
            .arg("--content")
            .arg(scratch.path().join("content"))
            .args(["--addr", "127.0.0.1:0"])
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

    fn entry(&self, key: &str) -> PathBuf {
        self.scratch
            .path()
            .join(format!("content/entries/{key}.json"))
    }

    fn client(&self) -> Server {
        Server::client_for(&self.origin)
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` with the description of the entry changed to `description`.
fn described(text: &str, description: &str) -> String {
    let mut entry: serde_json::Value = serde_json::from_str(text).expect("an entry");
    entry["description"] = description.into();
    serde_json::to_string_pretty(&entry).expect("JSON")
}

#[tokio::test]
async fn dev_serves_the_identity_bodies_of_production_but_the_script() {
    let dev = Dev::start("dev-same", |_| {});
    dev.line_with("rendered in");
    let client = dev.client();
    let production = refserve::table::production();
    let tag = "<script src=\"/_refserve/reload.js\"></script>";
    let mut compared = 0;
    for resource in production.resources() {
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
                .replace(&dev.origin, production.base_url());
            let expected = String::from_utf8_lossy(&representation.identity().body);
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
        line.contains("entries/select.json changed → rendered in "),
        "{line}"
    );
    assert!(line.ends_with(" pages reloaded"), "none open: {line}");
    let reply = client.get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.json()["data"]["description"], "Edited in place.");

    // As editors that keep a backup do: a new file, renamed over the old.
    let temporary = file.with_file_name(".select.json.swp");
    std::fs::write(&temporary, described(&original, "Saved by rename.")).expect("write");
    std::fs::rename(&temporary, &file).expect("rename");
    dev.line_with("entries/select.json changed → rendered in ");
    let reply = client.get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.json()["data"]["description"], "Saved by rename.");
}

#[tokio::test]
async fn invalid_content_keeps_the_last_good_table_and_names_the_file_and_field() {
    let dev = Dev::start("dev-invalid", |_| {});
    dev.line_with("rendered in");
    let file = dev.entry("select");
    let original = std::fs::read_to_string(&file).expect("the entry");
    std::fs::write(
        &file,
        original.replace("\"key\": \"select\"", "\"key\": \"selectx\""),
    )
    .expect("write");
    let error = dev.line_with("error: ");
    assert!(
        error.ends_with(
            "content/entries/select.json: field `name`: `select` must equal the key `selectx`"
        ),
        "the message build.rs prints: {error}"
    );
    dev.line_with("not rendered");
    let reply = dev.client().get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.status, 200, "the last good table still serves");
    std::fs::write(&file, original).expect("write");
    dev.line_with("rendered in");
}

#[tokio::test]
async fn dev_started_on_invalid_content_serves_the_error_until_it_is_fixed() {
    let dev = Dev::start("dev-broken", |scratch| {
        let file = scratch.path().join("content/entries/select.json");
        let text = std::fs::read_to_string(&file).expect("the entry");
        std::fs::write(&file, text.replace("\"returns\"", "\"return\"")).expect("write");
    });
    dev.line_with("not rendered");
    let client = dev.client();
    let page = client.get("/api/select", &[("accept", "text/html")]).await;
    assert_eq!(page.status, 503);
    let text = String::from_utf8_lossy(&page.body);
    assert!(text.contains("content/entries/select.json"), "{text}");
    assert!(
        text.contains("/_refserve/reload.js"),
        "the page reloads when fixed"
    );
    let reply = client.get("/api/reference/select.json", &[]).await;
    assert_eq!(reply.status, 503);
    assert_eq!(reply.error_code(), "content_invalid");

    let file = dev.entry("select");
    let text = std::fs::read_to_string(&file).expect("the entry");
    std::fs::write(&file, text.replace("\"return\"", "\"returns\"")).expect("write");
    dev.line_with("rendered in");
    assert_eq!(client.get("/api/select", &[]).await.status, 200);
}

#[tokio::test]
async fn an_open_page_follows_edits_and_shows_content_errors_in_chromium() {
    let dev = Dev::start("dev-browser", |_| {});
    dev.line_with("rendered in");
    let mut command = Command::new("node");
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
