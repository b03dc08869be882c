//! Work spread over the machine's cores: the encoders' jobs (`compress.rs`)
//! and each language's pages (`site.rs`); `stored.rs` makes the MCP answers
//! on a thread of its own beside the rest of the table. A thread's panic
//! goes on in the caller.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Run `job` on every one of `jobs` on several threads (as many as cargo
/// gives a build script, `NUM_JOBS`, or the machine has cores); the outputs
/// in the jobs' order.
pub(crate) fn map<J: Copy + Sync, T: Send + Sync>(
    jobs: &[J],
    job: impl Fn(J) -> T + Sync,
) -> Vec<T> {
    let threads = std::env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let outputs: Vec<OnceLock<T>> = jobs.iter().map(|_| OnceLock::new()).collect();
    // A worker's panic is the scope's: it goes on to the caller.
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&one) = jobs.get(n) else { break };
                let _ = outputs[n].set(job(one));
            });
        }
    });
    outputs
        .into_iter()
        .map(|output| output.into_inner().expect("every job ran"))
        .collect()
}
