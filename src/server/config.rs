//! Configuration: command-line flags and environment, parsed by a pure
//! function so every rule is unit-tested. Every limit has a sane default and
//! a range; `--help` lists them all.

use crate::access_log::Format;
use std::net::SocketAddr;
use std::time::Duration;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// Run the server.
    Serve(Config),
    /// Print [`help`] and exit.
    Help,
    /// Print the version and exit.
    Version,
    /// Write every representation as static files under this directory.
    Export(std::path::PathBuf),
    /// Preview a content directory, re-rendered on every edit.
    Dev(DevConfig),
}

/// How `refserve dev` runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevConfig {
    /// The content directory to render and watch.
    pub content: std::path::PathBuf,
    /// Address to listen on.
    pub addr: SocketAddr,
    /// Look for changes every 100 ms instead of waiting for the file
    /// system's events (for file systems that send none).
    pub poll: bool,
    /// The server's limits `dev` takes ([`DEV_LIMITS`]): its timeouts,
    /// connection cap and `/mcp` budget; the rest stay at their defaults.
    pub limits: Config,
}

/// `--flag=value` as the flag and its value; any other argument as itself.
fn split_flag(arg: &str) -> (String, Option<String>) {
    match arg.split_once('=') {
        Some((flag, value)) if flag.starts_with("--") => {
            (flag.to_string(), Some(value.to_string()))
        }
        _ => (arg.to_string(), None),
    }
}

/// The server's limits `refserve dev` takes too, with the same defaults
/// and ranges.
const DEV_LIMITS: [&Limit; 6] = [
    &HEADER_READ_TIMEOUT,
    &IDLE_TIMEOUT,
    &SEND_TIMEOUT,
    &BODY_TIMEOUT,
    &MAX_CONNECTIONS,
    &MEMORY_BUDGET,
];

/// `refserve dev`'s usage.
const DEV_USAGE: &str = "usage: refserve dev [--content <DIR>] [--addr <ADDR>] [--poll] \
     [--header-read-timeout <N>] [--idle-timeout <N>] [--send-timeout <N>] [--body-timeout <N>] \
     [--max-connections <N>] [--memory-budget <N>]";

/// Read `refserve dev`'s arguments (after `dev`).
fn parse_dev(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut content: std::path::PathBuf = "content".into();
    let mut addr: SocketAddr = DEFAULT_ADDR.parse().expect("the default address is valid");
    let mut poll = false;
    // The limits are set as the server's are.
    let mut limits = Config::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = split_flag(&arg);
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or(format!("{flag} needs a value; {DEV_USAGE}"))
        };
        match flag.as_str() {
            "--content" => content = value()?.into(),
            "--addr" => {
                let text = value()?;
                addr = text.parse().map_err(|_| {
                    format!("--addr: `{text}` is not an address like 127.0.0.1:8080")
                })?;
            }
            "--poll" => poll = true,
            "-h" | "--help" => return Ok(Command::Help),
            other => {
                let Some(limit) = DEV_LIMITS.iter().find(|l| l.flag == other) else {
                    return Err(format!("unknown argument `{other}`; {DEV_USAGE}"));
                };
                (limit.set)(&mut limits, number(limit, &value()?)?);
            }
        }
    }
    Ok(Command::Dev(DevConfig {
        content,
        addr,
        poll,
        limits,
    }))
}

/// How the server runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// How long a new connection may take to send its first complete request
    /// head (HTTP/1.1), or the HTTP/2 preface and a first HEADERS frame.
    pub header_read_timeout: Duration,
    /// How long a connection with no request open is kept: an idle HTTP/1.1
    /// keep-alive connection, an HTTP/2 connection with no open stream.
    pub idle_timeout: Duration,
    /// How long a response may make no progress (the client reads
    /// nothing, or grants no HTTP/2 window) before its connection is closed.
    pub send_timeout: Duration,
    /// How long a request body may take to arrive, from the end of its head.
    pub body_timeout: Duration,
    /// How long a shutdown waits for in-flight requests.
    pub shutdown_timeout: Duration,
    /// Bytes `/mcp` request bodies and answers not yet sent may hold.
    pub memory_budget: usize,
    /// Connections served at once; further ones wait in the listen backlog.
    pub max_connections: usize,
    /// The largest request head read (HTTP/1.1 buffer, HTTP/2 header list); 431 beyond.
    pub max_header_bytes: usize,
    /// Concurrent streams per HTTP/2 connection.
    pub max_streams: u32,
    /// One line per request on standard error, in this format.
    pub access_log: Option<Format>,
    /// Serve `GET /metrics` on a listener of its own at this address.
    pub metrics_addr: Option<SocketAddr>,
    /// Serve HTTPS with this certificate and key; cleartext without.
    pub tls: Option<crate::tls::TlsFiles>,
    /// Origins a browser may call `/mcp` from besides the base URL's (`*`: any).
    pub mcp_allow_origins: Vec<String>,
}

/// The address used when neither `--addr` nor `REFSERVE_ADDR` is given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// A numeric flag: its name, what it sets, its default and its range.
struct Limit {
    flag: &'static str,
    help: &'static str,
    default: u64,
    range: (u64, u64),
    set: fn(&mut Config, u64),
}

const HEADER_READ_TIMEOUT: Limit = Limit {
    flag: "--header-read-timeout",
    help: "seconds to a new connection's first request head (h2c: preface, HEADERS)",
    default: 10,
    range: (1, 3600),
    set: |c, n| c.header_read_timeout = Duration::from_secs(n),
};
const IDLE_TIMEOUT: Limit = Limit {
    flag: "--idle-timeout",
    help: "seconds a connection with no request open is kept (h2c: GOAWAY)",
    default: 60,
    range: (1, 3600),
    set: |c, n| c.idle_timeout = Duration::from_secs(n),
};
const SEND_TIMEOUT: Limit = Limit {
    flag: "--send-timeout",
    help: "seconds a response may make no progress (client not reading) before closing",
    default: 10,
    range: (1, 3600),
    set: |c, n| c.send_timeout = Duration::from_secs(n),
};
const BODY_TIMEOUT: Limit = Limit {
    flag: "--body-timeout",
    help: "seconds a request body (POST /mcp) may take, from the end of its head; 408 after",
    default: 10,
    range: (1, 3600),
    set: |c, n| c.body_timeout = Duration::from_secs(n),
};
const MEMORY_BUDGET: Limit = Limit {
    flag: "--memory-budget",
    help: "MiB that /mcp request bodies and answers not yet sent may hold; 503 beyond",
    default: 16,
    range: (1, 65_536),
    set: |c, n| c.memory_budget = n as usize * 1024 * 1024,
};
const SHUTDOWN_TIMEOUT: Limit = Limit {
    flag: "--shutdown-timeout",
    help: "seconds the drain on SIGINT/SIGTERM may take",
    default: 10,
    range: (1, 3600),
    set: |c, n| c.shutdown_timeout = Duration::from_secs(n),
};
const MAX_CONNECTIONS: Limit = Limit {
    flag: "--max-connections",
    help: "connections served at once; more wait in the listen backlog",
    default: 4_096,
    range: (1, 1_000_000),
    set: |c, n| c.max_connections = n as usize,
};
const MAX_HEADER_BYTES: Limit = Limit {
    flag: "--max-header-bytes",
    help: "largest request head in bytes; a larger one gets 431",
    default: 16_384,
    range: (8_192, 1_048_576),
    set: |c, n| c.max_header_bytes = n as usize,
};
const MAX_STREAMS: Limit = Limit {
    flag: "--max-streams",
    help: "concurrent streams per HTTP/2 connection",
    default: 128,
    range: (1, 10_000),
    set: |c, n| c.max_streams = n as u32,
};
const LIMITS: [&Limit; 9] = [
    &HEADER_READ_TIMEOUT,
    &IDLE_TIMEOUT,
    &SEND_TIMEOUT,
    &BODY_TIMEOUT,
    &SHUTDOWN_TIMEOUT,
    &MEMORY_BUDGET,
    &MAX_CONNECTIONS,
    &MAX_HEADER_BYTES,
    &MAX_STREAMS,
];

impl Default for Config {
    fn default() -> Self {
        let mut config = Config {
            addr: DEFAULT_ADDR.parse().expect("the default address parses"),
            header_read_timeout: Duration::ZERO,
            idle_timeout: Duration::ZERO,
            send_timeout: Duration::ZERO,
            body_timeout: Duration::ZERO,
            shutdown_timeout: Duration::ZERO,
            memory_budget: 0,
            max_connections: 0,
            max_header_bytes: 0,
            max_streams: 0,
            access_log: None,
            metrics_addr: None,
            tls: None,
            mcp_allow_origins: Vec::new(),
        };
        for limit in LIMITS {
            (limit.set)(&mut config, limit.default);
        }
        config
    }
}

/// The `--help` text.
pub fn help() -> String {
    let mut limits = String::new();
    for limit in LIMITS {
        let (low, high) = limit.range;
        limits.push_str(&format!(
            "  {:<28}{} [default: {}] [{low}..={high}]\n",
            format!("{} <N>", limit.flag),
            limit.help,
            limit.default
        ));
    }
    format!(
        "refserve {version}: serves the precomputed method reference over HTTP/1.1 and h2c,
or over HTTPS (HTTP/1.1 and h2) with --tls-cert and --tls-key.

Usage: refserve [OPTIONS]
       refserve export <DIR>   write every representation as static files (index.html,
                               api/reference.json, api/reference.json.br, ….gz) and exit
       refserve dev [--content <DIR>] [--addr <ADDR>] [--poll]
                    [--header-read-timeout <N>] [--idle-timeout <N>]
                    [--send-timeout <N>] [--body-timeout <N>]
                    [--max-connections <N>] [--memory-budget <N>]
                               preview DIR (default: content) at ADDR (default:
                               {DEFAULT_ADDR}), rendered in memory and again on every edit;
                               open pages reload, content errors show on them; --poll
                               looks for changes every 100 ms where no file events come;
                               the limits as below (connections: no more than the
                               open-file limit allows)

Options:
  --addr <ADDR>               address to listen on, unless sockets are inherited
                              (systemd socket activation: LISTEN_FDS, LISTEN_PID)
                              [env: REFSERVE_ADDR] [default: {DEFAULT_ADDR}]
{limits}  --access-log                one line per request on standard error, written by a
                              thread of its own; dropped (and counted) when it falls
                              behind [default: off]
  --access-log-format <F>     `text` or `json` (one object per line); turns the log on
                              [default: text]
  --metrics-addr <ADDR>       serve GET /metrics (Prometheus text; OpenMetrics when
                              asked) on this separate address, never the public one;
                              under systemd, the inherited socket named `metrics`
                              (FileDescriptorName=metrics) [default: off]
  --mcp-allow-origin <ORIGIN> let browsers at ORIGIN (scheme://host[:port], or * for
                              any) call POST /mcp; repeatable. Requests with another
                              Origin get 403 [default: the base URL's origin only]
  --tls-cert <PATH>           serve HTTPS (TLS 1.2, 1.3; ALPN h2, http/1.1) with this PEM
                              certificate chain; needs --tls-key [default: cleartext]
  --tls-key <PATH>            the PEM private key of --tls-cert
  -h, --help                  print this help
  -V, --version               print the version

On SIGHUP refserve reads the --tls-cert and --tls-key files again: new connections
get the new certificate; a bad file is logged and the last good one stays.
On SIGINT or SIGTERM refserve drains: it stops accepting, answers the requests in
flight with `Connection: close` (h2c: GOAWAY), closes idle connections and exits 0.
Under systemd it tells NOTIFY_SOCKET READY=1 and STOPPING=1 (Type=notify).

The public base URL the documents link to is fixed at build time:
REFSERVE_BASE_URL=https://docs.example.com cargo build --release
",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// `scheme://host[:port]`: an origin as browsers send it.
fn is_origin(text: &str) -> bool {
    let Some((scheme, authority)) = text.split_once("://") else {
        return false;
    };
    !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        && !authority.is_empty()
        && !authority.contains(['/', '?', '#', ' '])
}

/// Parse the arguments (without the program name); `env` reads an
/// environment variable. Flags win over the environment.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Command, String> {
    let mut config = Config::default();
    let mut addr = env("REFSERVE_ADDR").map(|a| (a, "REFSERVE_ADDR"));
    let (mut cert, mut key) = (None, None);
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|a| a == "dev") {
        args.next();
        return parse_dev(args);
    }
    if args.peek().is_some_and(|a| a == "export") {
        args.next();
        return match (args.next(), args.next()) {
            (Some(dir), None) if !dir.starts_with('-') => Ok(Command::Export(dir.into())),
            _ => Err("usage: refserve export <DIR>".to_string()),
        };
    }
    while let Some(arg) = args.next() {
        let (flag, inline) = split_flag(&arg);
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or(format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "--addr" => addr = Some((value("--addr")?, "--addr")),
            "--access-log" => {
                config.access_log.get_or_insert(Format::Text);
            }
            "--access-log-format" => {
                config.access_log = Some(match value("--access-log-format")?.as_str() {
                    "text" => Format::Text,
                    "json" => Format::Json,
                    other => {
                        return Err(format!(
                            "--access-log-format: `{other}` is not `text` or `json`"
                        ))
                    }
                });
            }
            "--metrics-addr" => {
                let text = value("--metrics-addr")?;
                config.metrics_addr = Some(text.parse().map_err(|_| {
                    format!("--metrics-addr: `{text}` is not an address like 127.0.0.1:9090")
                })?);
            }
            "--mcp-allow-origin" => {
                let origin = value("--mcp-allow-origin")?;
                if origin != "*" && !is_origin(&origin) {
                    return Err(format!(
                        "--mcp-allow-origin: `{origin}` is not an origin like https://app.example.com or *"
                    ));
                }
                config.mcp_allow_origins.push(origin);
            }
            "--tls-cert" => cert = Some(value("--tls-cert")?),
            "--tls-key" => key = Some(value("--tls-key")?),
            _ => {
                let Some(limit) = LIMITS.iter().find(|l| l.flag == flag) else {
                    return Err(format!("unknown argument `{flag}` (see --help)"));
                };
                (limit.set)(&mut config, number(limit, &value(limit.flag)?)?);
            }
        }
    }
    config.tls = match (cert, key) {
        (Some(cert), Some(key)) => Some(crate::tls::TlsFiles {
            cert: cert.into(),
            key: key.into(),
        }),
        (None, None) => None,
        (Some(_), None) => return Err("--tls-cert needs --tls-key (both or neither)".to_string()),
        (None, Some(_)) => return Err("--tls-key needs --tls-cert (both or neither)".to_string()),
    };
    if let Some((text, source)) = addr {
        config.addr = text.parse().map_err(|_| {
            format!("{source}: `{text}` is not an address like {DEFAULT_ADDR} or [::1]:8080")
        })?;
    }
    Ok(Command::Serve(config))
}

fn number(limit: &Limit, text: &str) -> Result<u64, String> {
    let (low, high) = limit.range;
    match text.parse::<u64>() {
        Ok(n) if (low..=high).contains(&n) => Ok(n),
        _ => Err(format!(
            "{}: `{text}` is not a whole number from {low} to {high}",
            limit.flag
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str], env: Option<&str>) -> Result<Command, String> {
        parse(args.iter().map(|a| a.to_string()), |name| {
            (name == "REFSERVE_ADDR")
                .then(|| env.map(str::to_string))
                .flatten()
        })
    }

    fn config(args: &[&str]) -> Config {
        match run(args, None) {
            Ok(Command::Serve(config)) => config,
            other => panic!("{other:?}"),
        }
    }

    fn addr(command: Result<Command, String>) -> String {
        match command {
            Ok(Command::Serve(config)) => config.addr.to_string(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let config = config(&[]);
        assert_eq!(config, Config::default());
        assert_eq!(config.addr.to_string(), DEFAULT_ADDR);
        assert_eq!(config.header_read_timeout, Duration::from_secs(10));
        assert_eq!(config.idle_timeout, Duration::from_secs(60));
        assert_eq!(config.shutdown_timeout, Duration::from_secs(10));
        assert_eq!(config.send_timeout, Duration::from_secs(10));
        assert_eq!(config.body_timeout, Duration::from_secs(10));
        assert_eq!(config.memory_budget, 16 * 1024 * 1024);
        assert_eq!(config.access_log, None);
        assert_eq!(config.metrics_addr, None);
    }

    #[test]
    fn flag_wins_over_environment() {
        assert_eq!(addr(run(&[], Some("127.0.0.1:9000"))), "127.0.0.1:9000");
        assert_eq!(
            addr(run(&["--addr", "127.0.0.1:9001"], Some("127.0.0.1:9000"))),
            "127.0.0.1:9001"
        );
        assert_eq!(addr(run(&["--addr=[::1]:0"], None)), "[::1]:0");
    }

    #[test]
    fn help_and_version() {
        assert_eq!(run(&["--help"], None), Ok(Command::Help));
        assert_eq!(run(&["-V"], None), Ok(Command::Version));
        for limit in LIMITS {
            assert!(help().contains(limit.flag), "{}", limit.flag);
        }
        assert!(help().contains("REFSERVE_ADDR") && help().contains("--access-log"));
    }

    #[test]
    fn bad_input_is_explained() {
        let refused = |args: &[&str], env| run(args, env).expect_err("refused");
        assert!(refused(&["--addr"], None).contains("needs a value"));
        assert!(refused(&["--addr", "localhost"], None).contains("`localhost` is not an address"));
        assert!(refused(&[], Some("nope")).starts_with("REFSERVE_ADDR"));
        assert!(refused(&["--port", "1"], None).contains("unknown argument `--port`"));
        assert!(refused(&["--shutdown-timeout", "0"], None).contains("from 1 to 3600"));
        assert!(refused(&["--max-header-bytes", "100"], None).contains("from 8192"));
        assert!(refused(&["--tls-cert", "c.pem"], None).contains("both or neither"));
        assert!(refused(&["--tls-key", "k.pem"], None).contains("both or neither"));
        assert!(refused(&["--tls-cert"], None).contains("--tls-cert needs a value"));
        assert!(refused(&["--access-log-format", "xml"], None).contains("`xml` is not"));
        assert!(refused(&["--metrics-addr", "9090"], None).contains("--metrics-addr: `9090`"));
        assert!(refused(&["--send-timeout", "0"], None).contains("from 1 to 3600"));
    }

    #[test]
    fn tls_takes_both_files() {
        assert_eq!(config(&[]).tls, None);
        let files = config(&["--tls-cert", "c.pem", "--tls-key=k.pem"]).tls;
        assert_eq!(
            files,
            Some(crate::tls::TlsFiles {
                cert: "c.pem".into(),
                key: "k.pem".into()
            })
        );
        assert!(help().contains("--tls-cert") && help().contains("SIGHUP"));
    }

    #[test]
    fn limits_and_switches() {
        let config = config(&[
            "--header-read-timeout",
            "3",
            "--idle-timeout=30",
            "--shutdown-timeout=7",
            "--max-connections",
            "50",
            "--max-header-bytes=65536",
            "--max-streams",
            "8",
            "--send-timeout=4",
            "--access-log",
            "--metrics-addr",
            "127.0.0.1:9100",
        ]);
        assert_eq!(config.header_read_timeout, Duration::from_secs(3));
        assert_eq!(config.idle_timeout, Duration::from_secs(30));
        assert_eq!(config.shutdown_timeout, Duration::from_secs(7));
        assert_eq!(config.max_connections, 50);
        assert_eq!(config.max_header_bytes, 65_536);
        assert_eq!(config.max_streams, 8);
        assert_eq!(config.send_timeout, Duration::from_secs(4));
        assert_eq!(config.access_log, Some(Format::Text));
        assert_eq!(config.metrics_addr, "127.0.0.1:9100".parse().ok());
    }

    #[test]
    fn the_access_log_format_turns_the_log_on() {
        let json = Some(Format::Json);
        assert_eq!(config(&["--access-log-format", "json"]).access_log, json);
        assert_eq!(
            config(&["--access-log-format=json", "--access-log"]).access_log,
            json
        );
        assert_eq!(
            config(&["--access-log", "--access-log-format=json"]).access_log,
            json
        );
        assert_eq!(
            config(&["--access-log-format=text"]).access_log,
            Some(Format::Text)
        );
    }

    #[test]
    fn export_takes_one_directory() {
        assert_eq!(
            run(&["export", "out"], None),
            Ok(Command::Export("out".into()))
        );
        assert!(run(&["export"], None).is_err());
        assert!(run(&["export", "a", "b"], None).is_err());
    }

    #[test]
    fn dev_takes_a_directory_an_address_and_poll() {
        let Ok(Command::Dev(dev)) = run(&["dev"], None) else {
            panic!("dev parses");
        };
        assert_eq!(dev.content, std::path::PathBuf::from("content"));
        assert_eq!(dev.addr.to_string(), DEFAULT_ADDR);
        assert!(!dev.poll);
        let Ok(Command::Dev(dev)) = run(
            &[
                "dev",
                "--content",
                "docs",
                "--addr=127.0.0.1:9000",
                "--poll",
            ],
            None,
        ) else {
            panic!("dev parses");
        };
        assert_eq!(dev.content, std::path::PathBuf::from("docs"));
        assert_eq!(dev.addr.to_string(), "127.0.0.1:9000");
        assert!(dev.poll);
        assert!(run(&["dev", "--addr", "nowhere"], None).is_err());
        assert!(run(&["dev", "--content"], None).is_err());
        assert!(run(&["dev", "--tls-cert", "x"], None).is_err());
    }

    #[test]
    fn dev_takes_the_servers_timeouts_and_cap_with_their_defaults_and_ranges() {
        let dev = |args: &[&str]| match run(args, None) {
            Ok(Command::Dev(dev)) => dev,
            other => panic!("{other:?}"),
        };
        assert_eq!(dev(&["dev"]).limits, Config::default());
        let set = dev(&[
            "dev",
            "--header-read-timeout",
            "1",
            "--idle-timeout=2",
            "--send-timeout",
            "3",
            "--body-timeout=4",
            "--max-connections=5",
            "--memory-budget",
            "6",
        ])
        .limits;
        assert_eq!(set.header_read_timeout, Duration::from_secs(1));
        assert_eq!(set.idle_timeout, Duration::from_secs(2));
        assert_eq!(set.send_timeout, Duration::from_secs(3));
        assert_eq!(set.body_timeout, Duration::from_secs(4));
        assert_eq!(set.max_connections, 5);
        assert_eq!(set.memory_budget, 6 * 1024 * 1024);
        let refused = |args: &[&str]| run(args, None).expect_err("refused");
        assert!(refused(&["dev", "--idle-timeout", "0"]).contains("from 1 to 3600"));
        assert!(refused(&["dev", "--max-connections", "0"]).contains("from 1 to 1000000"));
        assert!(refused(&["dev", "--send-timeout"]).contains("needs a value"));
        assert!(refused(&["dev", "--shutdown-timeout", "5"]).contains("unknown argument"));
        for limit in DEV_LIMITS {
            let usage = format!("[{} <N>]", limit.flag);
            assert!(DEV_USAGE.contains(&usage), "{usage}");
            assert!(help().contains(&usage), "{usage}");
        }
    }
}
