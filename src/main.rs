//! The `refserve` binary: reads the configuration, binds, serves until
//! SIGINT or SIGTERM.

use refserve::config::{self, Command};
use refserve::{server, table};
use std::process::ExitCode;

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
        let listener = match tokio::net::TcpListener::bind(config.addr).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("refserve: cannot listen on {}: {error}", config.addr);
                return ExitCode::FAILURE;
            }
        };
        let addr = listener.local_addr().map_or(config.addr, |a| a);
        eprintln!(
            "refserve {} listening on http://{addr} (base URL {})",
            env!("CARGO_PKG_VERSION"),
            table::BASE_URL
        );
        server::run(listener, &config, shutdown_signal()).await;
        eprintln!("refserve: stopped");
        ExitCode::SUCCESS
    })
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
