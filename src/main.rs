//! The `refserve` binary: reads the configuration (and the TLS files, if
//! any), takes the sockets a supervisor handed over or binds its own, serves
//! until SIGINT or SIGTERM, then drains. SIGHUP reloads the TLS files.

use refserve::config::{self, Command};
use refserve::systemd::{self, Notice};
use refserve::tls::Tls;
use refserve::{server, table};
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    let command = config::parse(std::env::args().skip(1), |name| std::env::var(name).ok());
    let config = match command {
        Ok(Command::Serve(config)) => config,
        Ok(Command::Help) => {
            print!("{}", config::help());
            return ExitCode::SUCCESS;
        }
        Ok(Command::Export(dir)) => {
            return match refserve::export::export(&dir) {
                Ok(files) => {
                    eprintln!("refserve: wrote {files} files to {}", dir.display());
                    eprintln!("refserve: {}", refserve::export::DICTIONARY_NOTE);
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("refserve: cannot export to {}: {error}", dir.display());
                    ExitCode::FAILURE
                }
            };
        }
        Ok(Command::Version) => {
            println!("refserve {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("refserve: {message}");
            return ExitCode::from(2);
        }
    };
    // Before the runtime starts threads: reading them clears the variables.
    let inherited = match systemd::inherited_listeners() {
        Ok(inherited) => inherited,
        Err(message) => {
            eprintln!("refserve: {message}");
            return ExitCode::FAILURE;
        }
    };
    let tls = match config.tls.clone().map(Tls::load).transpose() {
        Ok(tls) => tls.map(Arc::new),
        Err(message) => {
            eprintln!("refserve: {message}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(warning) = server::reserve_descriptors(config.max_connections) {
        eprintln!("refserve: {warning}");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("refserve: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let inherited_count = inherited.len();
        let listeners = match listen(inherited, config.addr).await {
            Ok(listeners) => listeners,
            Err(message) => {
                eprintln!("refserve: {message}");
                return ExitCode::FAILURE;
            }
        };
        let scheme = if tls.is_some() { "https" } else { "http" };
        for (index, listener) in listeners.iter().enumerate() {
            let addr = listener.local_addr().map_or(config.addr, |a| a);
            let source = if inherited_count > 0 {
                format!(", on socket {} from the service manager", 3 + index)
            } else {
                String::new()
            };
            eprintln!(
                "refserve {} listening on {scheme}://{addr} (base URL {}){source}",
                env!("CARGO_PKG_VERSION"),
                table::BASE_URL
            );
        }
        tokio::spawn(reload_on_hangup(tls.clone()));
        systemd::notify(Notice::Ready);
        let shutdown = async {
            shutdown_signal().await;
            systemd::notify(Notice::Stopping);
        };
        server::run(listeners, &config, tls, shutdown).await;
        eprintln!("refserve: stopped");
        ExitCode::SUCCESS
    })
}

/// The inherited sockets, or else one bound on `addr`.
async fn listen(
    inherited: Vec<std::net::TcpListener>,
    addr: std::net::SocketAddr,
) -> Result<Vec<tokio::net::TcpListener>, String> {
    if inherited.is_empty() {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|error| format!("cannot listen on {addr}: {error}"))?;
        return Ok(vec![listener]);
    }
    inherited
        .into_iter()
        .map(tokio::net::TcpListener::from_std)
        .collect::<Result<_, _>>()
        .map_err(|error| format!("cannot serve an inherited socket: {error}"))
}

/// On every SIGHUP, read the TLS files again (`systemctl reload`).
async fn reload_on_hangup(tls: Option<Arc<Tls>>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut hangups = match signal(SignalKind::hangup()) {
            Ok(hangups) => hangups,
            Err(error) => {
                eprintln!("refserve: cannot watch SIGHUP: {error}");
                return;
            }
        };
        while hangups.recv().await.is_some() {
            match &tls {
                None => eprintln!("refserve: SIGHUP: nothing to reload (no --tls-cert)"),
                Some(tls) => match tls.reload() {
                    Ok(()) => eprintln!(
                        "refserve: SIGHUP: reloaded the TLS certificate {}",
                        tls.files().cert.display()
                    ),
                    Err(message) => {
                        eprintln!("refserve: SIGHUP: {message}; keeping the last good certificate")
                    }
                },
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tls;
}

/// Completes on the first SIGINT or SIGTERM.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(error) => {
                    eprintln!("refserve: cannot watch SIGTERM: {error}");
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
