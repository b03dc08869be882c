//! Configuration: command-line flags and environment, parsed by a pure
//! function so every rule is unit-tested.

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
}

/// How the server runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// How long a client may take to send a request head.
    pub header_read_timeout: Duration,
    /// How long a shutdown waits for in-flight requests.
    pub shutdown_timeout: Duration,
}

/// The address used when neither `--addr` nor `REFSERVE_ADDR` is given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
const DEFAULT_HEADER_READ_TIMEOUT: u64 = 10;
const DEFAULT_SHUTDOWN_TIMEOUT: u64 = 10;

/// The `--help` text.
pub fn help() -> String {
    format!(
        "refserve {version}: serves the precomputed method reference over HTTP/1.1 and h2c.

Usage: refserve [OPTIONS]
       refserve export <DIR>   write every representation as static files (index.html,
                               api/reference.json, api/reference.json.br, ….gz) and exit

Options:
  --addr <ADDR>                   address to listen on [env: REFSERVE_ADDR] [default: {DEFAULT_ADDR}]
  --header-read-timeout <SECS>    time a client has to send a request head [default: {DEFAULT_HEADER_READ_TIMEOUT}]
  --shutdown-timeout <SECS>       on SIGINT/SIGTERM, time in-flight requests have to finish [default: {DEFAULT_SHUTDOWN_TIMEOUT}]
  -h, --help                      print this help
  -V, --version                   print the version

The public base URL the documents link to is fixed at build time:
REFSERVE_BASE_URL=https://docs.example.com cargo build --release
",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// Parse the arguments (without the program name); `env` reads an
/// environment variable. Flags win over the environment.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Command, String> {
    let mut addr = env("REFSERVE_ADDR").map(|a| (a, "REFSERVE_ADDR"));
    let mut header_read_timeout = None;
    let mut shutdown_timeout = None;
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|a| a == "export") {
        args.next();
        return match (args.next(), args.next()) {
            (Some(dir), None) if !dir.starts_with('-') => Ok(Command::Export(dir.into())),
            _ => Err("usage: refserve export <DIR>".to_string()),
        };
    }
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_string(), Some(value.to_string()))
            }
            _ => (arg.clone(), None),
        };
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
            "--header-read-timeout" => {
                header_read_timeout = Some(seconds(
                    "--header-read-timeout",
                    &value("--header-read-timeout")?,
                )?)
            }
            "--shutdown-timeout" => {
                shutdown_timeout = Some(seconds(
                    "--shutdown-timeout",
                    &value("--shutdown-timeout")?,
                )?)
            }
            other => return Err(format!("unknown argument `{other}` (see --help)")),
        }
    }
    let addr = match addr {
        Some((text, source)) => text.parse().map_err(|_| {
            format!("{source}: `{text}` is not an address like {DEFAULT_ADDR} or [::1]:8080")
        })?,
        None => DEFAULT_ADDR.parse().expect("the default address parses"),
    };
    Ok(Command::Serve(Config {
        addr,
        header_read_timeout: header_read_timeout
            .unwrap_or(Duration::from_secs(DEFAULT_HEADER_READ_TIMEOUT)),
        shutdown_timeout: shutdown_timeout.unwrap_or(Duration::from_secs(DEFAULT_SHUTDOWN_TIMEOUT)),
    }))
}

fn seconds(flag: &str, text: &str) -> Result<Duration, String> {
    match text.parse::<u64>() {
        Ok(secs) if secs > 0 && secs <= 3600 => Ok(Duration::from_secs(secs)),
        _ => Err(format!(
            "{flag}: `{text}` is not a whole number of seconds from 1 to 3600"
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

    fn addr(command: Result<Command, String>) -> String {
        match command {
            Ok(Command::Serve(config)) => config.addr.to_string(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let Ok(Command::Serve(config)) = run(&[], None) else {
            panic!("serves")
        };
        assert_eq!(config.addr.to_string(), DEFAULT_ADDR);
        assert_eq!(config.header_read_timeout, Duration::from_secs(10));
        assert_eq!(config.shutdown_timeout, Duration::from_secs(10));
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
        assert!(help().contains("--addr") && help().contains("REFSERVE_ADDR"));
    }

    #[test]
    fn bad_input_is_explained() {
        assert!(run(&["--addr"], None)
            .expect_err("refused")
            .contains("needs a value"));
        assert!(run(&["--addr", "localhost"], None)
            .expect_err("refused")
            .contains("`localhost` is not an address"));
        assert!(run(&[], Some("nope"))
            .expect_err("refused")
            .starts_with("REFSERVE_ADDR"));
        assert!(run(&["--port", "1"], None)
            .expect_err("refused")
            .contains("unknown argument `--port`"));
        assert!(run(&["--shutdown-timeout", "0"], None)
            .expect_err("refused")
            .contains("1 to 3600"));
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
    fn timeouts() {
        let Ok(Command::Serve(config)) = run(
            &["--header-read-timeout", "3", "--shutdown-timeout=7"],
            None,
        ) else {
            panic!("serves")
        };
        assert_eq!(config.header_read_timeout, Duration::from_secs(3));
        assert_eq!(config.shutdown_timeout, Duration::from_secs(7));
    }
}
