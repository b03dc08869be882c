//! Configuration: the command line, declared with clap's derive (`Cli`
//! and the structs it is made of), and turned into the plain [`Config`]
//! and [`DevConfig`] the server and `refserve dev` run with. Every limit
//! has a default and a range, and `--help` shows both. [`parse`] reads no
//! state but `REFSERVE_ADDR`, which clap takes from the environment: the
//! unit tests below parse without it, tests/cli.rs tests it through the
//! binary.

use crate::access_log::Format;
use clap::builder::TypedValueParser;
use clap::parser::ValueSource;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::{OsStr, OsString};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// What the command line asks for. `--help` and `--version` are not
/// among them: [`parse`] returns them as a [`clap::Error`] whose
/// [`exit`](clap::Error::exit) prints them.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// Run the server.
    Serve(Config),
    /// Write every representation as static files under this directory.
    Export(PathBuf),
    /// Preview a content directory, re-rendered on every edit.
    Dev(DevConfig),
    /// List what each translation holds, or mark translations current.
    Translations(TranslationsConfig),
    /// Print every address served, each representation's ETags and purge tags.
    Manifest,
    /// Compare two manifests: what a CDN must drop.
    Changes(ChangesConfig),
}

/// What `refserve changes` compares, and how it prints.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ChangesConfig {
    /// The manifest of the build served until now
    #[arg(value_name = "OLD")]
    pub old: PathBuf,
    /// The manifest of the build deployed
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Print {"tags": [...], "addresses": [...]} instead
    #[arg(long)]
    pub json: bool,
}

/// What `refserve translations` does: with `mark`, record that this
/// language's translations translate the source as it is now (those of
/// `keys`, or every translated method when no key is given).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct TranslationsConfig {
    /// The content directory
    #[arg(long, value_name = "DIR", default_value = "content")]
    pub content: PathBuf,
    /// Record the source's fingerprints in this language's
    /// translations (its tag: zh-Hans), once they are up to date
    #[arg(long, verbatim_doc_comment, value_name = "LANGUAGE")]
    pub mark: Option<String>,
    /// With --mark: only these methods' translations (every one without)
    #[arg(value_name = "KEY", requires = "mark")]
    pub keys: Vec<String>,
}

/// How `refserve dev` runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevConfig {
    /// The content directory to render and watch.
    pub content: PathBuf,
    /// Address to listen on.
    pub addr: SocketAddr,
    /// Look for changes every 100 ms instead of waiting for the file
    /// system's events (for file systems that send none).
    pub poll: bool,
    /// The server's limits, with those `dev` takes (its timeouts,
    /// connection cap and `/mcp` budget) as given; the rest stay at their
    /// defaults.
    pub limits: Config,
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
    /// Bytes `/mcp` request bodies and `/mcp` and `/search` answers not
    /// yet sent may hold.
    pub memory_budget: usize,
    /// Connections served at once; further ones wait in the listen backlog.
    pub max_connections: usize,
    /// The largest request head read (HTTP/1.1 buffer, HTTP/2 header list); 431 beyond.
    pub max_header_bytes: usize,
    /// Concurrent streams per HTTP/2 connection.
    pub max_streams: u32,
    /// HTTP/2 streams held across all connections; a stream past it is
    /// refused (REFUSED_STREAM).
    pub max_streams_total: usize,
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
const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// The environment variable `--addr` falls back to.
const ADDR_VARIABLE: &str = "REFSERVE_ADDR";

/// Parse the arguments (without the program name) into a [`Command`].
/// `REFSERVE_ADDR` is read from the environment when `--addr` is not
/// given. A usage error, `--help` and `--version` come back as a
/// [`clap::Error`]: its [`exit`](clap::Error::exit) prints it (help and
/// version on standard output) and exits with its code (2 for a usage
/// error, 0 for help and version).
pub fn parse(args: impl IntoIterator<Item = impl Into<OsString>>) -> Result<Command, clap::Error> {
    parse_with(Cli::command(), args)
}

/// [`parse`], with `command` (the [`Cli`]'s, perhaps changed) as the parser.
fn parse_with(
    command: clap::Command,
    args: impl IntoIterator<Item = impl Into<OsString>>,
) -> Result<Command, clap::Error> {
    let program = std::iter::once(OsString::from("refserve"));
    let matches = command.try_get_matches_from(program.chain(args.into_iter().map(Into::into)))?;
    let cli = Cli::from_arg_matches(&matches)?;
    Ok(match cli.command {
        None => Command::Serve(cli.serve.into_config()),
        Some(Sub::Export { dir }) => Command::Export(dir),
        Some(Sub::Translations(config)) => Command::Translations(config),
        Some(Sub::Manifest) => Command::Manifest,
        Some(Sub::Changes(config)) => Command::Changes(config),
        Some(Sub::Dev(dev)) => Command::Dev(DevConfig {
            content: dev.content,
            addr: dev.addr,
            poll: dev.poll,
            // The server's defaults, with the limits given to `dev`.
            limits: Serve {
                limits: dev.limits,
                ..Serve::defaults()
            }
            .into_config(),
        }),
    })
}

impl Default for Config {
    /// The flags' defaults, which are written once, on the flags.
    fn default() -> Self {
        Serve::defaults().into_config()
    }
}

/// `command` with `--addr` read from the flag alone, not `REFSERVE_ADDR`.
fn without_environment(command: clap::Command) -> clap::Command {
    command.mut_arg("addr", |arg| arg.env(None::<&'static str>))
}

/// After the options of `refserve --help`.
const SERVE_NOTES: &str = include_str!("config/serve.txt").trim_ascii_end();

/// After the options of `refserve export --help`.
const EXPORT_NOTES: &str = include_str!("config/export.txt").trim_ascii_end();

/// After the options of `refserve dev --help`.
const DEV_NOTES: &str = include_str!("config/dev.txt").trim_ascii_end();

/// refserve's command line: the server's flags, or a subcommand.
#[derive(Debug, Parser)]
#[command(
    name = "refserve",
    version,
    about = "serves the precomputed method reference over HTTP/1.1 and h2c,\n\
             or over HTTPS (HTTP/1.1 and h2) with --tls-cert and --tls-key",
    help_template = "{name} {version}: {about-with-newline}\n\
                     {usage-heading} {usage}\n\n{all-args}{after-help}",
    after_help = SERVE_NOTES,
    // The server's flags are for serving: `refserve --access-log dev` is
    // refused rather than read as `refserve dev`.
    args_conflicts_with_subcommands = true,
    // A flag given twice takes its last value, as supervisors that append
    // a flag to a unit's command line expect.
    args_override_self = true
)]
struct Cli {
    /// `dev` or `export`; none to serve.
    #[command(subcommand)]
    command: Option<Sub>,
    /// The server's flags.
    #[command(flatten)]
    serve: Serve,
}

/// refserve's subcommands.
#[derive(Debug, Subcommand)]
enum Sub {
    /// Preview a content directory, rendered again on every edit
    #[command(after_help = DEV_NOTES)]
    Dev(Dev),
    /// Write every representation as static files under DIR, and exit
    #[command(after_help = EXPORT_NOTES)]
    Export {
        /// The directory to write into; made if missing
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// List, per language, the methods translated, outdated and missing;
    /// with --mark, record that translations are current
    #[command(after_help = TRANSLATIONS_NOTES)]
    Translations(TranslationsConfig),
    /// Print what this binary serves: every address, each
    /// representation's ETags and purge tags, one variant a line
    #[command(verbatim_doc_comment, after_help = MANIFEST_NOTES)]
    Manifest,
    /// Print what changed between two builds' manifests: the purge tags
    /// and the addresses a CDN must drop, one a line
    #[command(verbatim_doc_comment, after_help = MANIFEST_NOTES)]
    Changes(ChangesConfig),
}

/// What `refserve manifest --help` and `refserve changes --help` add.
const MANIFEST_NOTES: &str = include_str!("config/manifest.txt").trim_ascii_end();

/// What `refserve translations --help` adds after the flags.
const TRANSLATIONS_NOTES: &str = include_str!("config/translations.txt").trim_ascii_end();

// The help texts are wrapped by hand (`verbatim_doc_comment`), to fit 100
// columns after the flags: clap wraps them only with a terminal-size crate.

/// The server's flags: `refserve [OPTIONS]`.
#[derive(Debug, Args)]
struct Serve {
    /// Address to listen on, unless systemd hands over sockets
    /// (LISTEN_FDS)
    #[arg(long, verbatim_doc_comment, value_name = "ADDR", env = ADDR_VARIABLE,
          default_value = DEFAULT_ADDR, value_parser = Address)]
    addr: SocketAddr,
    /// One line per request on standard error, written by a thread
    /// of its own; dropped (and counted) when it falls behind
    #[arg(long, verbatim_doc_comment)]
    access_log: bool,
    /// The access log's format (json: one object per line); turns
    /// the log on
    #[arg(long, verbatim_doc_comment, value_name = "FORMAT")]
    access_log_format: Option<Format>,
    /// Serve GET /metrics (Prometheus text; OpenMetrics when asked)
    /// on this address, never the public one; under systemd, the
    /// inherited socket named `metrics` (FileDescriptorName=metrics)
    #[arg(long, verbatim_doc_comment, value_name = "ADDR", value_parser = Address)]
    metrics_addr: Option<SocketAddr>,
    /// Let browsers at ORIGIN (scheme://host[:port], or * for any)
    /// call POST /mcp besides the base URL's origin; repeatable;
    /// another Origin gets 403
    #[arg(long = "mcp-allow-origin", verbatim_doc_comment, value_name = "ORIGIN",
          value_parser = origin)]
    mcp_allow_origins: Vec<String>,
    /// Serve HTTPS (TLS 1.2, 1.3; ALPN h2, http/1.1) with this PEM
    /// certificate chain; needs --tls-key
    #[arg(long, verbatim_doc_comment, value_name = "PATH", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert
    #[arg(long, value_name = "PATH", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The limits `refserve dev` takes too.
    #[command(flatten)]
    limits: Limits,
    /// Seconds the drain on SIGINT or SIGTERM may take
    /// [range: 1..=3600]
    #[arg(long, verbatim_doc_comment, value_name = "SECS", default_value_t = 10,
          value_parser = whole(1, 3600), help_heading = LIMITS)]
    shutdown_timeout: u64,
    /// Largest request head in bytes; a larger one gets 431
    /// [range: 8192..=1048576]
    #[arg(long, verbatim_doc_comment, value_name = "N", default_value_t = 16_384,
          value_parser = whole(8_192, 1_048_576), help_heading = LIMITS)]
    max_header_bytes: u64,
    /// Concurrent streams per HTTP/2 connection
    /// [range: 1..=10000]
    #[arg(long, verbatim_doc_comment, value_name = "N", default_value_t = 128,
          value_parser = whole(1, 10_000), help_heading = LIMITS)]
    max_streams: u64,
    /// HTTP/2 streams held across all connections, until each
    /// response has left; one more is refused (REFUSED_STREAM)
    /// [range: 1..=1000000]
    #[arg(long, verbatim_doc_comment, value_name = "N", default_value_t = 8_192,
          value_parser = whole(1, 1_000_000), help_heading = LIMITS)]
    max_streams_total: u64,
}

/// The help heading of every limit.
const LIMITS: &str = "Limits";

impl Serve {
    /// The flags' defaults: the server's command line with no argument and
    /// no `REFSERVE_ADDR`.
    fn defaults() -> Serve {
        let command = without_environment(Serve::augment_args(clap::Command::new("refserve")));
        let matches = command
            .try_get_matches_from(["refserve"])
            .expect("no argument is a valid command line");
        Serve::from_arg_matches(&matches).expect("the defaults are valid")
    }

    /// The [`Config`] these flags ask for.
    fn into_config(self) -> Config {
        let limits = self.limits;
        Config {
            addr: self.addr,
            header_read_timeout: Duration::from_secs(limits.header_read_timeout),
            idle_timeout: Duration::from_secs(limits.idle_timeout),
            send_timeout: Duration::from_secs(limits.send_timeout),
            body_timeout: Duration::from_secs(limits.body_timeout),
            shutdown_timeout: Duration::from_secs(self.shutdown_timeout),
            memory_budget: usize::try_from(limits.memory_budget.saturating_mul(1024 * 1024))
                .unwrap_or(usize::MAX),
            max_connections: usize::try_from(limits.max_connections).unwrap_or(usize::MAX),
            max_header_bytes: usize::try_from(self.max_header_bytes).unwrap_or(usize::MAX),
            max_streams: u32::try_from(self.max_streams).unwrap_or(u32::MAX),
            max_streams_total: usize::try_from(self.max_streams_total).unwrap_or(usize::MAX),
            access_log: self
                .access_log_format
                .or(self.access_log.then_some(Format::Text)),
            metrics_addr: self.metrics_addr,
            // `requires` makes them both or neither.
            tls: self
                .tls_cert
                .zip(self.tls_key)
                .map(|(cert, key)| crate::tls::TlsFiles { cert, key }),
            mcp_allow_origins: self.mcp_allow_origins,
        }
    }
}

/// The server's limits that `refserve dev` takes too, with the same
/// defaults and ranges: flattened into both.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = LIMITS)]
struct Limits {
    /// Seconds to a new connection's first request head
    /// (h2c: preface, HEADERS) [range: 1..=3600]
    #[arg(long, verbatim_doc_comment, value_name = "SECS", default_value_t = 10,
          value_parser = whole(1, 3600))]
    header_read_timeout: u64,
    /// Seconds a connection with no request open is kept
    /// (h2c: GOAWAY) [range: 1..=3600]
    #[arg(long, verbatim_doc_comment, value_name = "SECS", default_value_t = 60,
          value_parser = whole(1, 3600))]
    idle_timeout: u64,
    /// Seconds a response may make no progress (client not reading)
    /// before closing [range: 1..=3600]
    #[arg(long, verbatim_doc_comment, value_name = "SECS", default_value_t = 10,
          value_parser = whole(1, 3600))]
    send_timeout: u64,
    /// Seconds a request body (POST /mcp) may take, from the end of
    /// its head; 408 after [range: 1..=3600]
    #[arg(long, verbatim_doc_comment, value_name = "SECS", default_value_t = 10,
          value_parser = whole(1, 3600))]
    body_timeout: u64,
    /// Connections served at once; more wait in the listen backlog
    /// [range: 1..=1000000]
    #[arg(long, verbatim_doc_comment, value_name = "N", default_value_t = 4_096,
          value_parser = whole(1, 1_000_000))]
    max_connections: u64,
    /// MiB that /mcp request bodies and /mcp and /search answers
    /// not yet sent may hold; 503 beyond [range: 1..=65536]
    #[arg(long, verbatim_doc_comment, value_name = "MIB", default_value_t = 16,
          value_parser = whole(1, 65_536))]
    memory_budget: u64,
}

/// `refserve dev`'s flags.
#[derive(Debug, Args)]
struct Dev {
    /// The content directory to render and watch
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
    /// Address to listen on
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_ADDR, value_parser = Address)]
    addr: SocketAddr,
    /// Look for changes every 100 ms, where no file events come
    /// (some network mounts, WSL, containers)
    #[arg(long, verbatim_doc_comment)]
    poll: bool,
    /// The server's limits it takes.
    #[command(flatten)]
    limits: Limits,
}

/// A whole number from `low` to `high`, inclusive: every limit's value
/// parser. Its error names the range whatever the value (clap's ranged
/// parser names it only for a number out of range).
fn whole(low: u64, high: u64) -> impl TypedValueParser<Value = u64> {
    move |text: &str| match text.parse::<u64>() {
        Ok(n) if (low..=high).contains(&n) => Ok(n),
        _ => Err(format!("not a whole number from {low} to {high}")),
    }
}

/// A socket address (`--addr`, `--metrics-addr`); a bad one read from
/// the environment names its variable.
#[derive(Debug, Clone, Copy)]
struct Address;

impl TypedValueParser for Address {
    type Value = SocketAddr;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<SocketAddr, clap::Error> {
        self.parse_ref_(command, arg, value, ValueSource::CommandLine)
    }

    fn parse_ref_(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
        source: ValueSource,
    ) -> Result<SocketAddr, clap::Error> {
        let from = match (source, arg.and_then(clap::Arg::get_env)) {
            (ValueSource::EnvVariable, Some(name)) => {
                format!(" (read from {})", name.to_string_lossy())
            }
            _ => String::new(),
        };
        let address = move |text: &str| {
            text.parse::<SocketAddr>()
                .map_err(|_| format!("not an address like {DEFAULT_ADDR} or [::1]:8080{from}"))
        };
        address.parse_ref(command, arg, value)
    }
}

/// `--mcp-allow-origin`'s value: `*`, or `scheme://host[:port]`, an
/// origin as browsers send it.
fn origin(text: &str) -> Result<String, String> {
    let is_origin = text.split_once("://").is_some_and(|(scheme, authority)| {
        !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
            && !authority.is_empty()
            && !authority.contains(['/', '?', '#', ' '])
    });
    if text == "*" || is_origin {
        Ok(text.to_string())
    } else {
        Err("not an origin like https://app.example.com, or *".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse `args` as [`parse`] does, without the environment.
    fn run(args: &[&str]) -> Result<Command, clap::Error> {
        parse_with(without_environment(Cli::command()), args)
    }

    fn config(args: &[&str]) -> Config {
        match run(args) {
            Ok(Command::Serve(config)) => config,
            other => panic!("{other:?}"),
        }
    }

    fn dev(args: &[&str]) -> DevConfig {
        match run(args) {
            Ok(Command::Dev(dev)) => dev,
            other => panic!("{other:?}"),
        }
    }

    /// The message `args` are refused with, checked to be a usage error
    /// (exit code 2).
    fn refused(args: &[&str]) -> String {
        let error = run(args).expect_err("refused");
        assert_eq!(error.exit_code(), 2, "{error}");
        error.to_string()
    }

    /// What `args` print on standard output (`--help`, `--version`).
    fn printed(args: &[&str]) -> String {
        let error = run(args).expect_err("printed");
        assert_eq!((error.exit_code(), error.use_stderr()), (0, false));
        error.to_string()
    }

    /// Every flag of `command` whose help shows a range, with the range;
    /// each is checked to show a default too.
    fn ranges(command: &clap::Command) -> Vec<(String, u64, u64)> {
        command
            .get_arguments()
            .filter_map(|arg| {
                let help = arg.get_help()?.to_string();
                let range = help.split("[range: ").nth(1)?.split(']').next()?;
                let (low, high) = range.split_once("..=")?;
                let flag = format!("--{}", arg.get_long()?);
                assert_eq!(arg.get_default_values().len(), 1, "{flag}: a default");
                Some((flag, low.parse().ok()?, high.parse().ok()?))
            })
            .collect()
    }

    /// `refserve dev`'s command.
    fn dev_command() -> clap::Command {
        Cli::command()
            .find_subcommand("dev")
            .expect("dev is a subcommand")
            .clone()
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
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
        assert_eq!(config.max_connections, 4_096);
        assert_eq!(config.max_header_bytes, 16_384);
        assert_eq!(config.max_streams, 128);
        assert_eq!(config.max_streams_total, 8_192);
        assert_eq!(config.access_log, None);
        assert_eq!(config.metrics_addr, None);
        assert_eq!(config.tls, None);
        assert!(config.mcp_allow_origins.is_empty());
    }

    #[test]
    fn the_address_takes_both_spellings_and_the_last_wins() {
        assert_eq!(config(&["--addr=[::1]:0"]).addr.to_string(), "[::1]:0");
        let twice = config(&["--addr", "127.0.0.1:1", "--addr", "127.0.0.1:2"]);
        assert_eq!(twice.addr.to_string(), "127.0.0.1:2");
        // The environment's name is on the flag (tests/cli.rs runs it).
        let command = Cli::command();
        let addr = command.get_arguments().find(|arg| arg.get_id() == "addr");
        assert_eq!(
            addr.and_then(clap::Arg::get_env),
            Some(OsStr::new(ADDR_VARIABLE))
        );
    }

    #[test]
    fn help_and_version() {
        let help = printed(&["--help"]);
        assert_eq!(printed(&["-h"]), help);
        for flag in [
            "--addr <ADDR>",
            "--access-log ",
            "--access-log-format <FORMAT>",
            "[possible values: text, json]",
            "--metrics-addr <ADDR>",
            "--mcp-allow-origin <ORIGIN>",
            "--tls-cert <PATH>",
            "--tls-key <PATH>",
            "-V, --version",
            "dev ",
            "export ",
            "SIGHUP",
            "REFSERVE_BASE_URL",
        ] {
            assert!(help.contains(flag), "{flag} missing from:\n{help}");
        }
        let version = format!("refserve {}\n", env!("CARGO_PKG_VERSION"));
        assert_eq!(printed(&["-V"]), version);
        assert_eq!(printed(&["--version"]), version);
    }

    #[test]
    fn every_limit_shows_its_default_and_range_and_keeps_to_it() {
        let limits = ranges(&Cli::command());
        let flags: Vec<&str> = limits.iter().map(|(flag, ..)| flag.as_str()).collect();
        assert_eq!(
            flags,
            [
                "--header-read-timeout",
                "--idle-timeout",
                "--send-timeout",
                "--body-timeout",
                "--max-connections",
                "--memory-budget",
                "--shutdown-timeout",
                "--max-header-bytes",
                "--max-streams",
                "--max-streams-total",
            ]
        );
        let help = printed(&["--help"]);
        for (flag, low, high) in limits {
            let shown = format!("[range: {low}..={high}] [default: ");
            assert!(help.contains(&shown), "{flag} {shown}:\n{help}");
            for n in [low, high] {
                let n = n.to_string();
                assert!(run(&[flag.as_str(), n.as_str()]).is_ok(), "{flag} {n}");
            }
            for bad in [low - 1, high + 1] {
                let bad = bad.to_string();
                let message = refused(&[&format!("{flag}={bad}")]);
                assert!(
                    message.contains(&format!("invalid value '{bad}' for '{flag} <"))
                        && message.contains(&format!("not a whole number from {low} to {high}")),
                    "{message}"
                );
            }
            let message = refused(&[flag.as_str(), "abc"]);
            assert!(
                message.contains(&format!("from {low} to {high}")),
                "{message}"
            );
        }
    }

    #[test]
    fn bad_input_is_explained() {
        let cases: &[(&[&str], &str)] = &[
            (&["--addr"], "a value is required for '--addr <ADDR>'"),
            (
                &["--addr", "localhost"],
                "invalid value 'localhost' for '--addr <ADDR>': not an address like 127.0.0.1:8080",
            ),
            (&["--port", "1"], "unexpected argument '--port'"),
            (
                &["--max-conections", "1"],
                "similar argument exists: '--max-connections'",
            ),
            (&["--tls-cert", "c.pem"], "--tls-key <PATH>"),
            (&["--tls-key", "k.pem"], "--tls-cert <PATH>"),
            (
                &["--tls-cert"],
                "a value is required for '--tls-cert <PATH>'",
            ),
            (
                &["--access-log-format", "xml"],
                "invalid value 'xml' for '--access-log-format <FORMAT>'",
            ),
            (
                &["--metrics-addr", "9090"],
                "invalid value '9090' for '--metrics-addr <ADDR>'",
            ),
            (
                &["--mcp-allow-origin", "app.example.com"],
                "not an origin like https://app.example.com, or *",
            ),
            (
                &["--access-log=yes"],
                "unexpected value 'yes' for '--access-log'",
            ),
        ];
        for (args, expected) in cases {
            let message = refused(args);
            assert!(message.contains(expected), "{args:?}: {message}");
        }
        let both = "the following required arguments were not provided";
        assert!(refused(&["--tls-cert", "c.pem"]).contains(both));
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
            "--body-timeout",
            "5",
            "--memory-budget=2",
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
        assert_eq!(config.body_timeout, Duration::from_secs(5));
        assert_eq!(config.memory_budget, 2 * 1024 * 1024);
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
    fn mcp_origins_are_repeatable() {
        let origins = config(&[
            "--mcp-allow-origin",
            "https://app.example.com",
            "--mcp-allow-origin=http://localhost:3000",
            "--mcp-allow-origin",
            "*",
        ])
        .mcp_allow_origins;
        assert_eq!(
            origins,
            ["https://app.example.com", "http://localhost:3000", "*"]
        );
        for bad in ["https://", "://x", "https://a/b", "ht tp://a", "a b"] {
            assert!(
                refused(&["--mcp-allow-origin", bad]).contains("not an origin"),
                "{bad}"
            );
        }
    }

    #[test]
    fn export_takes_one_directory() {
        assert_eq!(
            run(&["export", "out"]).ok(),
            Some(Command::Export("out".into()))
        );
        assert!(refused(&["export"]).contains("<DIR>"));
        assert!(refused(&["export", "a", "b"]).contains("unexpected argument 'b'"));
        assert!(refused(&["export", "--addr", "x"]).contains("unexpected argument '--addr'"));
        let help = printed(&["export", "--help"]);
        assert!(help.contains("Usage: refserve export <DIR>"), "{help}");
        assert!(help.contains("static files"), "{help}");
    }

    #[test]
    fn dev_takes_a_directory_an_address_and_poll() {
        let defaults = dev(&["dev"]);
        assert_eq!(defaults.content, PathBuf::from("content"));
        assert_eq!(defaults.addr.to_string(), DEFAULT_ADDR);
        assert!(!defaults.poll);
        let set = dev(&[
            "dev",
            "--content",
            "docs",
            "--addr=127.0.0.1:9000",
            "--poll",
        ]);
        assert_eq!(set.content, PathBuf::from("docs"));
        assert_eq!(set.addr.to_string(), "127.0.0.1:9000");
        assert!(set.poll);
        assert!(refused(&["dev", "--addr", "nowhere"]).contains("'nowhere' for '--addr <ADDR>'"));
        assert!(refused(&["dev", "--content"]).contains("a value is required"));
        // The server's own flags are the server's, before or after `dev`.
        let servers: &[&[&str]] = &[
            &["dev", "--tls-cert", "x"],
            &["dev", "--access-log"],
            &["dev", "--shutdown-timeout", "5"],
            &["dev", "--max-streams", "5"],
            &["dev", "--metrics-addr", "127.0.0.1:9100"],
        ];
        for args in servers {
            let message = refused(args);
            assert!(
                message.contains(&format!("unexpected argument '{}'", args[1])),
                "{message}"
            );
        }
        let message = refused(&["--access-log", "dev"]);
        assert!(
            message.contains("the subcommand 'dev' cannot be used with '--access-log'"),
            "{message}"
        );
    }

    #[test]
    fn dev_takes_the_servers_timeouts_and_cap_with_their_defaults_and_ranges() {
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
        assert!(refused(&["dev", "--idle-timeout", "0"]).contains("from 1 to 3600"));
        assert!(refused(&["dev", "--max-connections", "0"]).contains("from 1 to 1000000"));
        assert!(refused(&["dev", "--send-timeout"]).contains("a value is required"));
        // Its help lists its own flags and the limits it takes, with the
        // server's ranges, and nothing of the server's own.
        let help = printed(&["dev", "--help"]);
        let limits = ranges(&dev_command());
        assert_eq!(limits, ranges(&Cli::command())[..6], "{help}");
        for flag in ["--content <DIR>", "--addr <ADDR>", "--poll", "ulimit -n"] {
            assert!(help.contains(flag), "{flag} missing from:\n{help}");
        }
        for flag in [
            "--tls-cert",
            "--access-log",
            "--shutdown-timeout",
            "REFSERVE_ADDR",
        ] {
            assert!(!help.contains(flag), "{flag} in:\n{help}");
        }
        assert_eq!(printed(&["help", "dev"]), help);
    }
}
