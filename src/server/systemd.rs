//! The service manager's side of the process, as systemd defines it:
//!
//! - **Socket activation** (`sd_listen_fds(3)`): a supervisor that holds the
//!   listening sockets passes them as descriptors 3, 4, … and names the
//!   process they are meant for in `LISTEN_PID` and their count in
//!   `LISTEN_FDS`. The socket outlives each process, so a redeploy never
//!   refuses a connection: clients wait in the backlog for the next one.
//!   Each socket may be named (`FileDescriptorName=`, listed in
//!   `LISTEN_FDNAMES`): the one named [`METRICS_SOCKET`] is the metrics
//!   listener, every other one serves the site.
//! - **Readiness** (`sd_notify(3)`): `READY=1` once the sockets are served,
//!   `STOPPING=1` when the drain begins, sent to `NOTIFY_SOCKET`.
//!
//! The protocol's details are left to maintained crates: `listenfd` turns a
//! descriptor into a checked `TcpListener`, `sd-notify` writes the datagram.

use std::net::TcpListener;

/// How many sockets `LISTEN_PID` and `LISTEN_FDS` hand to the process `pid`:
/// 0 when they are absent or meant for another process (a supervisor's
/// variables seen by a child of it), an error when they are malformed.
fn activation(
    listen_pid: Option<&str>,
    listen_fds: Option<&str>,
    pid: u32,
) -> Result<usize, String> {
    let Some(listen_pid) = listen_pid else {
        return Ok(0);
    };
    let named: u32 = listen_pid
        .trim()
        .parse()
        .map_err(|_| format!("LISTEN_PID: `{listen_pid}` is not a process id"))?;
    if named != pid {
        return Ok(0);
    }
    let text = listen_fds.unwrap_or_default();
    match text.trim().parse::<usize>() {
        Ok(count @ 1..=64) => Ok(count),
        _ => Err(format!(
            "LISTEN_FDS: `{text}` is not a number of inherited sockets from 1 to 64"
        )),
    }
}

/// The `FileDescriptorName=` of the socket that serves `/metrics`.
pub const METRICS_SOCKET: &str = "metrics";

/// The sockets a supervisor handed over, by use.
#[derive(Debug, Default)]
pub struct Inherited {
    /// The sockets that serve the site, with their descriptor numbers.
    pub public: Vec<(usize, TcpListener)>,
    /// The socket named [`METRICS_SOCKET`], if any.
    pub metrics: Option<(usize, TcpListener)>,
}

/// Whether each of `count` inherited sockets is the metrics socket, by the
/// colon-separated names in `LISTEN_FDNAMES` (absent: none is; a name
/// missing at the end is no name).
fn is_metrics_socket(names: Option<&str>, count: usize) -> Vec<bool> {
    let mut names = names.unwrap_or_default().split(':');
    (0..count)
        .map(|_| names.next() == Some(METRICS_SOCKET))
        .collect()
}

/// The listening sockets a supervisor handed to this process (none when
/// none were), ready for tokio. Call before any thread is started: the
/// variables are removed from the environment once read.
pub fn inherited_listeners() -> Result<Inherited, String> {
    let var = |name| std::env::var(name).ok();
    let count = activation(
        var("LISTEN_PID").as_deref(),
        var("LISTEN_FDS").as_deref(),
        std::process::id(),
    )?;
    let kinds = is_metrics_socket(var("LISTEN_FDNAMES").as_deref(), count);
    let mut fds = listenfd::ListenFd::from_env();
    let mut inherited = Inherited::default();
    for (index, is_metrics) in kinds.into_iter().enumerate() {
        let fd = 3 + index;
        let listener = fds
            .take_tcp_listener(index)
            .map_err(|error| format!("inherited socket {fd}: {error}"))?
            .ok_or(format!("inherited socket {fd} is missing"))?;
        listener
            .set_nonblocking(true)
            .map_err(|error| format!("inherited socket {fd}: {error}"))?;
        if !is_metrics {
            inherited.public.push((fd, listener));
        } else if inherited.metrics.replace((fd, listener)).is_some() {
            return Err(format!(
                "inherited socket {fd}: a second socket named `{METRICS_SOCKET}`"
            ));
        }
    }
    if inherited.public.is_empty() && inherited.metrics.is_some() {
        return Err("the service manager handed over a metrics socket and no other".to_string());
    }
    Ok(inherited)
}

/// A state change the supervisor is told of: `Ready` once the sockets
/// are served, `Stopping` when the drain begins.
pub use sd_notify::NotifyState as Notice;

/// Tell the supervisor, if there is one (`NOTIFY_SOCKET`); a failure is
/// logged, never fatal.
pub fn notify(notice: Notice<'_>) {
    if let Err(error) = sd_notify::notify(std::slice::from_ref(&notice)) {
        eprintln!("refserve: cannot notify the service manager ({notice:?}): {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::{activation, is_metrics_socket};

    #[test]
    fn the_socket_named_metrics_is_told_apart() {
        assert_eq!(is_metrics_socket(None, 2), [false, false]);
        assert_eq!(is_metrics_socket(Some("web:metrics"), 2), [false, true]);
        assert_eq!(is_metrics_socket(Some("metrics:web"), 2), [true, false]);
        assert_eq!(is_metrics_socket(Some("metrics"), 3), [true, false, false]);
        assert_eq!(is_metrics_socket(Some("refserve.socket"), 1), [false]);
    }

    #[test]
    fn sockets_are_taken_only_when_named_for_this_process() {
        assert_eq!(activation(None, None, 42), Ok(0));
        assert_eq!(activation(None, Some("2"), 42), Ok(0));
        assert_eq!(activation(Some("41"), Some("2"), 42), Ok(0));
        assert_eq!(activation(Some("42"), Some("1"), 42), Ok(1));
        assert_eq!(activation(Some("42"), Some("3"), 42), Ok(3));
    }

    #[test]
    fn malformed_variables_are_explained() {
        let refused = |pid, fds| activation(pid, fds, 42).expect_err("refused");
        assert!(refused(Some("x"), Some("1")).starts_with("LISTEN_PID: `x`"));
        assert!(refused(Some("42"), None).starts_with("LISTEN_FDS: ``"));
        assert!(refused(Some("42"), Some("0")).contains("from 1 to 64"));
        assert!(refused(Some("42"), Some("-1")).contains("from 1 to 64"));
    }
}
