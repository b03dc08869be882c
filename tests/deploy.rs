//! The systemd units in `deploy/`: `systemd-analyze verify` accepts both,
//! `systemd-analyze security` rates the service's exposure at 2.0 or lower,
//! the service's `ExecStart=` arguments start the real binary on an inherited
//! socket, and its stop timeout and descriptor limit fit those arguments.
//!
//! `systemd-analyze` works on unit files without a running systemd; its two
//! tests run under `tests/tools/full`, after `tests/tools/install.sh`
//! installs it (Debian's `systemd`) when missing.

use crate::generations::Socket;
use crate::support::{system_tool, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

const BINARY: &str = env!("CARGO_BIN_EXE_refserve");
const SOCKET: &str = include_str!("../deploy/refserve.socket");
const SERVICE: &str = include_str!("../deploy/refserve.service");
const METRICS_SOCKET: &str = include_str!("../deploy/refserve-metrics.socket");
/// Where the service expects the binary.
const INSTALLED: &str = "/usr/local/bin/refserve";

/// The highest exposure the service may be rated (0 is best, 10 worst).
const MAX_EXPOSURE: f64 = 2.0;

/// `systemd-analyze`, with its log quiet but for warnings and errors, in
/// plain text, and without a pager.
fn systemd_analyze() -> Command {
    let mut command = Command::new(system_tool("systemd-analyze"));
    command
        .env("SYSTEMD_LOG_LEVEL", "warning")
        .env("SYSTEMD_LOG_TARGET", "console")
        .env("SYSTEMD_COLORS", "0")
        .env("SYSTEMD_PAGER", "");
    command
}

/// Run a command; whether it exited 0 and the command with all it printed.
fn run(mut command: Command) -> (bool, String, String) {
    let line = format!("{command:?}");
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot start {line}: {e}"));
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report = format!("$ {line}\n{}\n{printed}", output.status);
    (output.status.success(), printed, report)
}

/// The unit's `Key=value` lines, continuation lines joined, comments and
/// section headers left out.
fn directives(unit: &str) -> Vec<(String, String)> {
    let joined = unit.replace("\\\n", " ");
    joined
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with(['#', ';', '[']))
        .map(|line| {
            let (key, value) = line.split_once('=').expect("a Key=value line");
            (key.trim().to_string(), value.trim().to_string())
        })
        .collect()
}

/// The value of the unit's only `key=` line.
fn value(unit: &str, key: &str) -> String {
    let values: Vec<String> = directives(unit)
        .into_iter()
        .filter(|(k, _)| k == key)
        .map(|(_, v)| v)
        .collect();
    assert_eq!(values.len(), 1, "one {key}= line: {values:?}");
    values[0].clone()
}

/// The arguments `ExecStart=` gives the binary.
fn exec_start_args() -> Vec<String> {
    let exec_start = value(SERVICE, "ExecStart");
    let mut words = exec_start.split_whitespace().map(str::to_string);
    assert_eq!(words.next().as_deref(), Some(INSTALLED), "{exec_start}");
    words.collect()
}

/// The number after `flag` in `ExecStart=`.
fn flag(flag: &str) -> u64 {
    let args = exec_start_args();
    let at = args
        .iter()
        .position(|a| a == flag)
        .unwrap_or_else(|| panic!("ExecStart= sets {flag}: {args:?}"));
    args[at + 1].parse().expect("a number")
}

/// The units in a scratch directory, the service starting the binary under
/// test instead of the installed one (`verify` checks that it exists).
fn units_with_test_binary() -> (Scratch, PathBuf, PathBuf) {
    let dir = Scratch::new("deploy");
    let binary = Path::new(BINARY).to_str().expect("a UTF-8 path");
    assert!(!binary.contains(['"', '\\']), "{binary}");
    let from = format!("ExecStart={INSTALLED} ");
    assert_eq!(SERVICE.matches(&from).count(), 1, "{from}");
    // Quoted for spaces; `%` starts a specifier in unit files.
    let to = format!("ExecStart=\"{}\" ", binary.replace('%', "%%"));
    let service = dir.write("refserve.service", SERVICE.replace(&from, &to));
    let socket = dir.write("refserve.socket", SOCKET);
    dir.write("refserve-metrics.socket", METRICS_SOCKET);
    (dir, socket, service)
}

#[test]
#[ignore = "external tool: tests/tools/full"]
fn the_units_pass_systemd_analyze_verify() {
    let (dir, socket, service) = units_with_test_binary();
    let mut verify = systemd_analyze();
    verify.args(["verify", "--man=no", "--generators=no"]);
    verify.arg(&socket).arg(&service);
    verify.arg(dir.path().join("refserve-metrics.socket"));
    let (success, printed, report) = run(verify);
    // An unknown key or a value that does not parse is only a warning, with
    // exit status 0: so nothing may be printed either.
    assert!(success && printed.trim().is_empty(), "{report}");
}

#[test]
fn the_metrics_socket_is_named_for_refserve_and_on_loopback() {
    assert_eq!(
        value(METRICS_SOCKET, "FileDescriptorName"),
        refserve::systemd::METRICS_SOCKET
    );
    assert_eq!(value(METRICS_SOCKET, "Service"), "refserve.service");
    assert!(value(METRICS_SOCKET, "ListenStream").starts_with("127.0.0.1:"));
}

#[test]
#[ignore = "external tool: tests/tools/full"]
fn the_service_is_rated_at_most_2_0_by_systemd_analyze_security() {
    let mut security = systemd_analyze();
    security.args(["security", "--offline=yes", "--no-pager"]);
    security.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/refserve.service"));
    let (success, printed, report) = run(security);
    assert!(success, "{report}");
    // "→ Overall exposure level for refserve.service: 0.2 SAFE 😀"
    let exposure: f64 = printed
        .lines()
        .find_map(|line| line.split_once("Overall exposure level for refserve.service:"))
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no overall exposure level:\n{report}"));
    assert!(exposure <= MAX_EXPOSURE, "exposure {exposure}:\n{report}");
}

#[test]
fn the_service_arguments_start_refserve_on_an_inherited_socket() {
    let args = exec_start_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let socket = Socket::bind();
    // Returns once the binary said READY=1, as Type=notify waits for.
    let generation = socket.start(Path::new(BINARY), &args);
    let response = socket.get("/healthz");
    let (status, log) = generation.stop();
    assert!(
        response.starts_with(b"HTTP/1.1 200"),
        "{}\n{log}",
        String::from_utf8_lossy(&response)
    );
    assert!(status.success(), "{args:?}: {status}\n{log}");
}

#[test]
fn stop_timeout_and_descriptor_limit_fit_the_service_arguments() {
    let stop: u64 = value(SERVICE, "TimeoutStopSec").parse().expect("seconds");
    let drain = flag("--shutdown-timeout");
    assert!(
        stop > drain,
        "TimeoutStopSec={stop}, --shutdown-timeout {drain}"
    );
    // What refserve asks for at start-up (src/server.rs, reserve_descriptors);
    // one number sets the soft and the hard limit, so none needs raising.
    let files: u64 = value(SERVICE, "LimitNOFILE").parse().expect("one number");
    let connections = flag("--max-connections");
    assert!(
        files >= connections + 64,
        "LimitNOFILE={files}, --max-connections {connections}"
    );
}
