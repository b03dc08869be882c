//! Generations of the real binary behind one listening socket, handed over
//! as systemd's socket activation does, and keep-alive clients that count
//! what a redeploy costs them. Shared by the redeploy tests
//! (`tests/redeploy.rs`) and the redeploy benchmark (`benches/redeploy.rs`).
//!
//! - [`Socket`] holds the listening socket for the whole run, as
//!   `refserve.socket` does, and starts each [`Generation`] with it as
//!   descriptor 3, `LISTEN_FDS=1`, `LISTEN_PID` set to the new process's id
//!   (`sh` sets it, then `exec`s the binary in its own place), and a
//!   `NOTIFY_SOCKET` of its own on which the harness waits for `READY=1`.
//! - [`client`] sends `GET` requests on a keep-alive connection, one after
//!   the other, and counts each outcome in a [`Tally`]: a response; a request
//!   that had to be sent again on a new connection because its connection
//!   closed before any byte of a response (a retry); a failure (a refused
//!   connection, a reset or truncated response, a status other than 200).

#![allow(dead_code)] // each user takes what it needs

use command_fds::{CommandFdExt, FdMapping};
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// How long a generation may take to say `READY=1` or to exit.
const PATIENCE: Duration = Duration::from_secs(60);

/// The listening socket a supervisor holds across generations.
pub struct Socket {
    listener: std::net::TcpListener,
    dir: PathBuf,
    started: AtomicUsize,
}

impl Socket {
    /// A listening socket on a free port of 127.0.0.1.
    pub fn bind() -> Socket {
        static SOCKETS: AtomicUsize = AtomicUsize::new(0);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
        let dir = std::env::temp_dir().join(format!(
            "refserve-generations-{}-{}",
            std::process::id(),
            SOCKETS.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for the notify sockets");
        Socket {
            listener,
            dir,
            started: AtomicUsize::new(0),
        }
    }

    /// `127.0.0.1:<port>`.
    pub fn addr(&self) -> String {
        self.listener.local_addr().expect("bound").to_string()
    }

    /// `GET path` on a new connection, over this socket, with
    /// `Connection: close`: the whole response as received.
    pub fn get(&self, path: &str) -> Vec<u8> {
        Self::get_from(&self.addr(), path)
    }

    /// `GET path` from `addr` on a connection of its own.
    pub fn get_from(addr: &str, path: &str) -> Vec<u8> {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).expect("connect");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .expect("send");
        let mut response = Vec::new();
        stream.read_to_end(&mut response).expect("a response");
        response
    }

    /// Start `binary` with `args` on this socket; returns once it has sent
    /// `READY=1`. Its standard error goes to a log file kept beside the
    /// notify socket.
    pub fn start(&self, binary: &Path, args: &[&str]) -> Generation {
        self.start_with_metrics(binary, args, None)
    }

    /// [`Socket::start`], also handing over `metrics` as the second socket,
    /// named `metrics` as `FileDescriptorName=metrics` names it.
    pub fn start_with_metrics(
        &self,
        binary: &Path,
        args: &[&str],
        metrics: Option<&std::net::TcpListener>,
    ) -> Generation {
        let number = self.started.fetch_add(1, Ordering::Relaxed);
        let notify_path = self.dir.join(format!("notify-{number}"));
        let notices = UnixDatagram::bind(&notify_path).expect("bind a notify socket");
        notices
            .set_read_timeout(Some(PATIENCE))
            .expect("a read timeout");
        let log = self.dir.join(format!("generation-{number}.log"));
        let stderr = std::fs::File::create(&log).expect("a log file");
        let fd = self.listener.try_clone().expect("a copy of the socket");
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(r#"LISTEN_PID=$$; export LISTEN_PID; exec "$0" "$@""#)
            .arg(binary)
            .args(args)
            .env("NOTIFY_SOCKET", &notify_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        let mut mappings = vec![FdMapping {
            parent_fd: fd.into(),
            child_fd: 3,
        }];
        if let Some(metrics) = metrics {
            mappings.push(FdMapping {
                parent_fd: metrics.try_clone().expect("a copy of the socket").into(),
                child_fd: 4,
            });
            command.env("LISTEN_FDNAMES", "refserve.socket:metrics");
        }
        command.env("LISTEN_FDS", mappings.len().to_string());
        command.fd_mappings(mappings).expect("distinct mappings");
        let child = command.spawn().expect("start a generation");
        let generation = Generation {
            child,
            notices,
            log,
        };
        generation.wait_for("READY=1");
        generation
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One running process of the binary.
pub struct Generation {
    child: Child,
    notices: UnixDatagram,
    log: PathBuf,
}

impl Generation {
    /// Read notifications until one holds `line`.
    fn wait_for(&self, line: &str) {
        let mut buffer = [0u8; 4096];
        loop {
            let length = self.notices.recv(&mut buffer).unwrap_or_else(|error| {
                panic!("no {line} from the generation ({error}):\n{}", self.log())
            });
            let text = String::from_utf8_lossy(&buffer[..length]);
            if text.lines().any(|l| l == line) {
                return;
            }
        }
    }

    /// What the generation wrote to standard error so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, as `systemctl stop` sends it; returns once the generation
    /// has said `STOPPING=1`.
    pub fn terminate(&mut self) {
        let signal = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(signal.success());
        self.wait_for("STOPPING=1");
    }

    /// Wait for the generation to exit; its status and log.
    pub fn wait(mut self) -> (ExitStatus, String) {
        let status = self.child.wait().expect("the generation exits");
        (status, self.log())
    }

    /// [`terminate`](Self::terminate), then [`wait`](Self::wait).
    pub fn stop(mut self) -> (ExitStatus, String) {
        self.terminate();
        self.wait()
    }
}

impl Drop for Generation {
    fn drop(&mut self) {
        // Only a generation that was not stopped is still running here.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the clients saw.
pub struct Tally {
    /// Requests answered with a whole 200 response.
    pub completed: AtomicUsize,
    /// Requests sent again on a new connection, after theirs closed
    /// before a response.
    pub retried: AtomicUsize,
    /// Requests that got no whole 200 response.
    pub failed: AtomicUsize,
    /// The longest time from a request's first write to the end of its
    /// response, retries included, in microseconds.
    pub longest_us: AtomicU64,
    /// What the first few failures and retries were.
    pub notes: Mutex<Vec<String>>,
    /// One permit per completed request, for [`Tally::wait_for`].
    done: tokio::sync::Semaphore,
    /// Set to stop the clients after their current request.
    stop: AtomicBool,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            completed: AtomicUsize::new(0),
            retried: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            longest_us: AtomicU64::new(0),
            notes: Mutex::new(Vec::new()),
            done: tokio::sync::Semaphore::new(0),
            stop: AtomicBool::new(false),
        }
    }
}

impl Tally {
    /// Wait until `count` more requests have completed.
    pub async fn wait_for(&self, count: u32) {
        self.done
            .acquire_many(count)
            .await
            .expect("never closed")
            .forget();
    }

    /// Ask the clients to stop after their current request.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn note(&self, what: String) {
        let mut notes = self.notes.lock().expect("not poisoned");
        if notes.len() < 20 {
            notes.push(what);
        }
    }
}

/// `count` keep-alive clients running [`client`] against `addr` on a runtime
/// of their own, `workers` threads, until [`Load::finish`].
pub struct Load {
    runtime: tokio::runtime::Runtime,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// What they saw so far.
    pub tally: Arc<Tally>,
}

impl Load {
    /// Start the clients; each sends `GET path` (br) one after the other.
    pub fn start(addr: &str, path: &'static str, count: u32, workers: usize) -> Load {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .expect("a runtime");
        let tally = Arc::new(Tally::default());
        let tasks = (0..count)
            .map(|_| runtime.spawn(client(addr.to_string(), path, tally.clone())))
            .collect();
        Load {
            runtime,
            tasks,
            tally,
        }
    }

    /// Block until `count` more requests have completed.
    pub fn wait_for(&self, count: u32) {
        self.runtime.block_on(self.tally.wait_for(count));
    }

    /// Stop the clients after their current request and wait for them.
    pub fn finish(self) -> Arc<Tally> {
        self.tally.stop();
        for task in self.tasks {
            self.runtime
                .block_on(task)
                .expect("a client ran to its end");
        }
        self.tally
    }
}

/// How one exchange on a connection ended.
enum Exchange {
    /// A whole 200; `close` when the response said `Connection: close`.
    Answered { close: bool },
    /// The connection ended before any byte of a response.
    ClosedFirst(String),
    /// Anything else.
    Broken(String),
}

/// Request `path` from `addr` over HTTP/1.1 keep-alive until told to stop.
pub async fn client(addr: String, path: &'static str, tally: Arc<Tally>) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept-Encoding: br\r\n\r\n");
    let mut connection: Option<BufReader<TcpStream>> = None;
    while !tally.stop.load(Ordering::Relaxed) {
        let start = Instant::now();
        let mut retries = 0;
        loop {
            let stream = match connection.as_mut() {
                Some(stream) => stream,
                None => match TcpStream::connect(&addr).await {
                    Ok(stream) => connection.insert(BufReader::new(stream)),
                    Err(error) => {
                        tally.failed.fetch_add(1, Ordering::Relaxed);
                        tally.note(format!("connect: {error}"));
                        break;
                    }
                },
            };
            match exchange(stream, request.as_bytes()).await {
                Exchange::Answered { close } => {
                    if close {
                        connection = None;
                    }
                    let micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
                    tally.longest_us.fetch_max(micros, Ordering::Relaxed);
                    tally.completed.fetch_add(1, Ordering::Relaxed);
                    tally.done.add_permits(1);
                    break;
                }
                Exchange::ClosedFirst(what) if retries < 3 => {
                    connection = None;
                    retries += 1;
                    tally.retried.fetch_add(1, Ordering::Relaxed);
                    tally.note(format!("retried: {what}"));
                }
                Exchange::ClosedFirst(what) | Exchange::Broken(what) => {
                    connection = None;
                    tally.failed.fetch_add(1, Ordering::Relaxed);
                    tally.note(format!("failed: {what}"));
                    break;
                }
            }
        }
    }
}

/// Send one request on `stream` and read its whole response.
async fn exchange(stream: &mut BufReader<TcpStream>, request: &[u8]) -> Exchange {
    if let Err(error) = stream.get_mut().write_all(request).await {
        return Exchange::ClosedFirst(format!("write: {error}"));
    }
    let mut status = String::new();
    match stream.read_line(&mut status).await {
        Ok(0) => return Exchange::ClosedFirst("end of stream".into()),
        Err(error) if status.is_empty() => return Exchange::ClosedFirst(format!("read: {error}")),
        Err(error) => return Exchange::Broken(format!("status line: {error}")),
        Ok(_) if !status.starts_with("HTTP/1.1 200") => {
            return Exchange::Broken(format!("status line {status:?}"))
        }
        Ok(_) => {}
    }
    let mut length = None;
    let mut close = false;
    loop {
        let mut line = String::new();
        match stream.read_line(&mut line).await {
            Ok(0) => return Exchange::Broken("end of stream in the head".into()),
            Err(error) => return Exchange::Broken(format!("head: {error}")),
            Ok(_) => {}
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse::<usize>().ok();
        }
        close |= lower.starts_with("connection: close");
        if line == "\r\n" {
            break;
        }
    }
    let Some(length) = length else {
        return Exchange::Broken("no Content-Length".into());
    };
    let mut body = vec![0; length];
    match stream.read_exact(&mut body).await {
        Ok(_) => Exchange::Answered { close },
        Err(error) => Exchange::Broken(format!("body: {error}")),
    }
}
