//! The binary itself: flags, the startup line, and shutdown on a signal.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command};

const BINARY: &str = env!("CARGO_BIN_EXE_refserve");

fn run(args: &[&str]) -> std::process::Output {
    Command::new(BINARY)
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn help_documents_every_flag() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--addr",
        "REFSERVE_ADDR",
        "--header-read-timeout",
        "--shutdown-timeout",
        "--tls-cert",
        "--access-log",
        "--version",
        "dev",
        "export",
        "REFSERVE_BASE_URL",
    ] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
    assert_eq!(run(&["-h"]).stdout, output.stdout);
}

#[test]
fn dev_help_lists_devs_options_alone() {
    let output = run(&["dev", "--help"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Usage: refserve dev [OPTIONS]"), "{text}");
    for flag in [
        "--content <DIR>",
        "--addr <ADDR>",
        "--poll",
        "--header-read-timeout <SECS>",
        "--idle-timeout <SECS>",
        "--send-timeout <SECS>",
        "--body-timeout <SECS>",
        "--max-connections <N>",
        "--memory-budget <MIB>",
    ] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
    for serve_only in [
        "--tls-cert",
        "--tls-key",
        "--access-log",
        "--metrics-addr",
        "--mcp-allow-origin",
        "--shutdown-timeout",
        "--max-header-bytes",
        "--max-streams",
        "REFSERVE_ADDR",
    ] {
        assert!(!text.contains(serve_only), "{serve_only} in:\n{text}");
    }
}

#[test]
fn export_help_says_what_export_takes() {
    let output = run(&["export", "--help"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Usage: refserve export <DIR>"), "{text}");
    assert!(text.contains("static files"), "{text}");
    assert!(!text.contains("--addr"), "{text}");
}

#[test]
fn version_prints_the_crate_version() {
    let output = run(&["--version"]);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("refserve {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn bad_flags_exit_2_with_a_message() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--addr", "nowhere"],
            "invalid value 'nowhere' for '--addr <ADDR>': not an address like",
        ),
        (
            &["--idle-timeout", "0"],
            "invalid value '0' for '--idle-timeout <SECS>': not a whole number from 1 to 3600",
        ),
        (
            &["dev", "--max-connections=abc"],
            "'abc' for '--max-connections <N>': not a whole number from 1 to 1000000",
        ),
        (&["--port", "8080"], "unexpected argument '--port'"),
        (&["export"], "<DIR>"),
    ];
    for (args, expected) in cases {
        let output = run(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn the_address_comes_from_refserve_addr_unless_the_flag_gives_it() {
    let output = Command::new(BINARY)
        .env("REFSERVE_ADDR", "nowhere")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("invalid value 'nowhere' for '--addr <ADDR>'")
            && stderr.contains("(read from REFSERVE_ADDR)"),
        "{stderr}"
    );
    // The variable alone sets the address; the flag wins over it.
    let runs: &[(&str, &[&str])] = &[
        ("127.0.0.1:0", &[]),
        ("nowhere", &["--addr", "127.0.0.1:0"]),
    ];
    for (variable, args) in runs {
        let mut command = Command::new(BINARY);
        command.env("REFSERVE_ADDR", variable).args(*args);
        let line = first_line(command);
        assert!(
            line.contains("listening on http://127.0.0.1:"),
            "{variable} {args:?}: {line}"
        );
    }
}

/// The first line `command` writes to stderr; it is stopped then.
fn first_line(command: Command) -> String {
    let (mut child, line, _) = crate::support::spawn_with_first_line(command);
    let _ = child.kill();
    let _ = child.wait();
    line
}

/// Start the binary on a free port; returns it and the address from its
/// startup line, which names the cleartext scheme.
fn spawn(extra: &[&str]) -> (Child, String, BufReader<std::process::ChildStderr>) {
    let (child, (scheme, addr), stderr) = crate::support::spawn_refserve(extra);
    assert_eq!(scheme, "http");
    (child, addr, stderr)
}

#[test]
fn serves_then_stops_on_sigterm_with_idle_and_silent_connections_open() {
    use std::io::{Read, Write};
    let (mut child, addr, mut stderr) =
        spawn(&["--shutdown-timeout", "30", "--header-read-timeout", "60"]);
    // Connected first, so accepted before the other; it never sends a byte.
    let _silent = std::net::TcpStream::connect(&addr).expect("connect");
    let mut connection = std::net::TcpStream::connect(&addr).expect("connect");
    connection
        .write_all(b"GET /api/reference/select.json HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("send");
    let mut head = [0u8; 12];
    connection.read_exact(&mut head).expect("a response");
    assert_eq!(&head, b"HTTP/1.1 200");

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    // The idle keep-alive connection is closed by the drain, and the silent
    // one is dropped, not waited out (60 s) or left to the bound (30 s).
    let exit = child.wait().expect("the server exits");
    assert!(exit.success(), "{exit:?}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).expect("log");
    assert!(rest.contains("stopped"), "{rest}");
    assert!(
        !rest.contains("shutdown bound"),
        "the drain finished within the bound: {rest}"
    );
}

#[test]
fn the_access_log_writes_one_line_per_request() {
    use std::io::{Read, Write};
    let (mut child, addr, mut stderr) = spawn(&["--access-log"]);
    let mut connection = std::net::TcpStream::connect(&addr).expect("connect");
    connection
        .write_all(b"GET /api/reference/sel%0Act.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br\r\nConnection: close\r\n\r\n")
        .expect("send");
    let mut response = Vec::new();
    connection.read_to_end(&mut response).expect("a response");
    let mut line = String::new();
    stderr.read_line(&mut line).expect("a log line");
    assert!(
        line.contains("GET \"/api/reference/sel%0Act.json\" HTTP/1.1 400"),
        "{line}"
    );
    assert_eq!(line.lines().count(), 1, "one line, whatever the path holds");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_json_access_log_writes_one_object_per_request() {
    use std::io::{Read, Write};
    let (mut child, addr, mut stderr) = spawn(&["--access-log-format", "json"]);
    let mut connection = std::net::TcpStream::connect(&addr).expect("connect");
    connection
        .write_all(b"HEAD /llms.txt HTTP/1.1\r\nHost: x\r\nUser-Agent: Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)\r\n\r\nGET /a\"b%0A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .expect("send");
    let mut response = Vec::new();
    connection
        .read_to_end(&mut response)
        .expect("the responses");
    let mut lines = [String::new(), String::new()];
    for line in &mut lines {
        stderr.read_line(line).expect("a log line");
    }
    let [head, missing] = lines.map(|line| {
        serde_json::from_str::<serde_json::Value>(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    });
    assert_eq!(
        (
            &head["method"],
            &head["path"],
            &head["status"],
            &head["bytes"]
        ),
        (&"HEAD".into(), &"/llms.txt".into(), &200.into(), &0.into())
    );
    assert_eq!(
        (&missing["path"], &missing["status"]),
        (&"/a\"b%0A".into(), &404.into())
    );
    assert_eq!(missing["protocol"], "HTTP/1.1");
    // The client's class, from its User-Agent; none is `other`.
    assert_eq!(
        (&head["class"], &missing["class"]),
        (&"ai-crawler".into(), &"other".into())
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_descriptor_limit_below_the_cap_is_reported_at_start_up() {
    let mut command = Command::new("sh");
    command.args([
        "-c",
        r#"ulimit -n 500 && exec "$0" --addr 127.0.0.1:0"#,
        BINARY,
    ]);
    let line = first_line(command);
    assert!(
        line.contains("only 500 file descriptors") && line.contains("--max-connections 4096"),
        "{line}"
    );
}
