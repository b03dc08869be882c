//! The `refserve` binary: reads the configuration (and the TLS files, if
//! any), takes the sockets a supervisor handed over or binds its own, serves
//! until SIGINT or SIGTERM, then drains. SIGHUP reloads the TLS files.

use refserve::config::{self, Command, Config};
use refserve::server;
use refserve::server::Listeners;
use refserve::systemd::{self, Inherited, Notice};
use refserve::table::{self, Tables};
use refserve::tls::Tls;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};

fn main() -> ExitCode {
    let command = match config::parse(std::env::args_os().skip(1)) {
        Ok(command) => command,
        // `--help` and `--version` print to standard output and exit 0; a
        // usage error prints to standard error and exits 2.
        Err(error) => error.exit(),
    };
    let (name, outcome) = match command {
        Command::Serve(config) => ("refserve", serve(&config)),
        Command::Export(dir) => ("refserve", export(&dir)),
        Command::Dev(dev) => ("refserve dev", preview(&dev)),
        Command::Translations(config) => ("refserve translations", translations(&config)),
        Command::Manifest => ("refserve manifest", manifest()),
        Command::Changes(config) => ("refserve changes", changes(&config)),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{name}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `refserve export DIR`: every representation as static files.
fn export(dir: &Path) -> Result<(), String> {
    let files = refserve::export::export(table::production(), dir)
        .map_err(|error| format!("cannot export to {}: {error}", dir.display()))?;
    eprintln!("refserve: wrote {files} files to {}", dir.display());
    eprintln!("refserve: {}", refserve::export::DICTIONARY_NOTE);
    eprintln!("refserve: {}", refserve::export::MCP_NOTE);
    eprintln!("refserve: {}", refserve::export::SEARCH_NOTE);
    Ok(())
}

/// `refserve manifest`: what this binary serves, one variant a line.
fn manifest() -> Result<(), String> {
    print(&refserve::manifest::manifest(table::production()))
}

/// `refserve changes OLD NEW`: what a CDN must drop between two builds.
fn changes(config: &config::ChangesConfig) -> Result<(), String> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))
    };
    let changes = refserve::manifest::changes(&read(&config.old)?, &read(&config.new)?)?;
    print(&if config.json {
        changes.json()
    } else {
        changes.lines()
    })
}

/// Write `text` to standard output; a closed pipe is no error.
fn print(text: &str) -> Result<(), String> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write: {error}"))
        }
        _ => Ok(()),
    }
}

/// The runtime every command but `export` runs on.
fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))
}

/// `refserve`: serve the production table until SIGINT or SIGTERM.
fn serve(config: &Config) -> Result<(), String> {
    // Before the runtime starts threads: reading them clears the variables.
    let inherited = systemd::inherited_listeners()?;
    let tls = config.tls.clone().map(Tls::load).transpose()?.map(Arc::new);
    if let Some(warning) = server::reserve_descriptors(config.max_connections) {
        eprintln!("refserve: {warning}");
    }
    runtime()?.block_on(async {
        let scheme = if tls.is_some() { "https" } else { "http" };
        let listeners = listen(inherited, config, scheme).await?;
        tokio::spawn(reload_on_hangup(tls.clone()));
        let signalled = shutdown_signal();
        systemd::notify(Notice::Ready);
        let shutdown = Box::pin(async {
            signalled.await;
            systemd::notify(Notice::Stopping);
        });
        let tables = Tables::Fixed(table::production());
        server::run(listeners, tables, config, tls, shutdown).await;
        eprintln!("refserve: stopped");
        Ok(())
    })
}

/// The inherited sockets, or else one bound on `--addr`; the metrics
/// socket inherited, or else bound on `--metrics-addr` when given. Once
/// all are, each is announced on standard error (serving `scheme`).
async fn listen(inherited: Inherited, config: &Config, scheme: &str) -> Result<Listeners, String> {
    let adopt = |(fd, listener): (usize, std::net::TcpListener)| {
        TcpListener::from_std(listener)
            .map(|listener| (Some(fd), listener))
            .map_err(|error| format!("cannot serve inherited socket {fd}: {error}"))
    };
    let public = if inherited.public.is_empty() {
        vec![(None, bind(config.addr).await?)]
    } else {
        inherited
            .public
            .into_iter()
            .map(adopt)
            .collect::<Result<_, _>>()?
    };
    let metrics = match (inherited.metrics, config.metrics_addr) {
        (Some(socket), _) => Some(adopt(socket)?),
        (None, Some(addr)) => Some((None, bind(addr).await?)),
        (None, None) => None,
    };
    for (fd, listener) in &public {
        let addr = listener.local_addr().map_or(config.addr, |a| a);
        eprintln!(
            "refserve {} listening on {scheme}://{addr} (base URL {}){}",
            env!("CARGO_PKG_VERSION"),
            &table::production().base_url,
            from_service_manager(*fd)
        );
    }
    if let Some((fd, listener)) = &metrics {
        if let Ok(addr) = listener.local_addr() {
            eprintln!(
                "refserve: metrics on http://{addr}/metrics{}",
                from_service_manager(*fd)
            );
        }
    }
    Ok(Listeners {
        public: public.into_iter().map(|(_, listener)| listener).collect(),
        metrics: metrics.map(|(_, listener)| listener),
    })
}

async fn bind(addr: std::net::SocketAddr) -> Result<TcpListener, String> {
    TcpListener::bind(addr)
        .await
        .map_err(|error| format!("cannot listen on {addr}: {error}"))
}

/// `refserve dev`: preview a content directory until stopped.
#[cfg(feature = "dev")]
fn preview(dev: &config::DevConfig) -> Result<(), String> {
    runtime()?.block_on(refserve::dev::run(dev))
}

/// `refserve translations`: what each translation holds, or mark some.
#[cfg(feature = "dev")]
fn translations(config: &config::TranslationsConfig) -> Result<(), String> {
    refserve::dev::translations(config)
}

/// `refserve translations` in a binary built without `dev`.
#[cfg(not(feature = "dev"))]
fn translations(_: &config::TranslationsConfig) -> Result<(), String> {
    Err("this binary was built without the `dev` feature".to_string())
}

/// `refserve dev` in a binary built without it.
#[cfg(not(feature = "dev"))]
fn preview(_: &config::DevConfig) -> Result<(), String> {
    Err("this binary was built without the `dev` feature".to_string())
}

/// `, on socket N from the service manager` for an inherited socket.
fn from_service_manager(fd: Option<usize>) -> String {
    fd.map(|fd| format!(", on socket {fd} from the service manager"))
        .unwrap_or_default()
}

/// On every SIGHUP, read the TLS files again (`systemctl reload`). SIGHUP
/// is watched from this call on, before `READY=1` is sent: a signal sent as
/// soon as the service manager sees it is handled, not fatal.
fn reload_on_hangup(tls: Option<Arc<Tls>>) -> impl std::future::Future<Output = ()> {
    let hangups = signal(SignalKind::hangup());
    async move {
        let Ok(mut hangups) =
            hangups.inspect_err(|error| eprintln!("refserve: cannot watch SIGHUP: {error}"))
        else {
            return;
        };
        while hangups.recv().await.is_some() {
            match &tls {
                None => eprintln!("refserve: SIGHUP: nothing to reload (no --tls-cert)"),
                Some(tls) => match tls.reload() {
                    Ok(()) => eprintln!(
                        "refserve: SIGHUP: reloaded the TLS certificate {}",
                        tls.files.cert.display()
                    ),
                    Err(message) => {
                        eprintln!("refserve: SIGHUP: {message}; keeping the last good certificate")
                    }
                },
            }
        }
    }
}

/// Completes on the first SIGINT or SIGTERM. Both are watched from this
/// call on (see [`reload_on_hangup`]).
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    let watched = signal(SignalKind::interrupt())
        .and_then(|interrupt| Ok((interrupt, signal(SignalKind::terminate())?)));
    async move {
        match watched {
            Ok((mut interrupt, mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(error) => {
                eprintln!("refserve: cannot watch SIGINT and SIGTERM: {error}");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}
