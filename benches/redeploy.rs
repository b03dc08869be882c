//! The redeploy benchmark: generations of the release binary swapped under
//! keep-alive load, one listening socket held across them as systemd holds
//! `refserve.socket` (the harness is `tests/generations.rs`, which the
//! tests use too). Reports, for N swaps, the requests answered, failed and
//! retried, and the longest response time seen during a swap against the
//! longest seen in steady load.
//!
//! Two ways to swap:
//! - `overlap`: start the next generation, wait for its `READY=1`, then
//!   SIGTERM the current one (two processes accept from the socket for a
//!   moment);
//! - `restart`: SIGTERM the current generation, wait for it to exit, then
//!   start the next, as `systemctl restart refserve.service` does; clients
//!   that connect meanwhile wait in the socket's backlog.
//!
//! Usage: redeploy BINARY [SWAPS] [CLIENTS] [MODE] (defaults: 10 16 overlap)

#[path = "../tests/generations.rs"]
mod generations;

use generations::{Load, Socket};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: redeploy BINARY [SWAPS] [CLIENTS] [overlap|restart]";
    let binary = PathBuf::from(args.next().expect(usage));
    let number = |arg: Option<String>, default| arg.map_or(default, |a| a.parse().expect(usage));
    let swaps: u32 = number(args.next(), 10);
    let clients: u32 = number(args.next(), 16);
    let mode = args.next().unwrap_or_else(|| "overlap".to_string());
    assert!(mode == "overlap" || mode == "restart", "{usage}");

    let socket = Socket::bind();
    let mut current = Some(socket.start(&binary, &[]));
    let load = Load::start(&socket.addr(), "/api/reference.json", clients, 1);
    let tally = load.tally.clone();

    // Steady load first, for the longest response time without a swap.
    let between = 200 * clients;
    load.wait_for(between);
    tally.longest_us.store(0, Ordering::Relaxed);
    let steady_start = Instant::now();
    load.wait_for(between * 5);
    let steady_longest = tally.longest_us.swap(0, Ordering::Relaxed);
    let steady_rate = f64::from(between * 5) / steady_start.elapsed().as_secs_f64();

    let started = Instant::now();
    let completed_before = tally.completed.load(Ordering::Relaxed);
    let mut swap_longest = 0;
    let mut swap_time = Duration::ZERO;
    for _ in 0..swaps {
        let swap_start = Instant::now();
        let old = current.take().expect("a generation runs");
        let (status, log) = if mode == "overlap" {
            current = Some(socket.start(&binary, &[]));
            old.stop()
        } else {
            let stopped = old.stop();
            current = Some(socket.start(&binary, &[]));
            stopped
        };
        assert!(status.success(), "a generation failed: {status:?}\n{log}");
        swap_time = swap_time.max(swap_start.elapsed());
        // The swap is over once every client has been answered again.
        load.wait_for(between);
        swap_longest = swap_longest.max(tally.longest_us.swap(0, Ordering::Relaxed));
    }
    let elapsed = started.elapsed();
    load.finish();
    if let Some(generation) = current {
        let (status, log) = generation.stop();
        assert!(status.success(), "{status:?}\n{log}");
    }

    let completed = tally.completed.load(Ordering::Relaxed) - completed_before;
    let micros = |us: u64| format!("{:.1} ms", us as f64 / 1000.0);
    println!(
        "| {mode} | {swaps} | {clients} | {completed} | {} | {} | {} | {} | {} | {:.0} | {:.0} |",
        tally.failed.load(Ordering::Relaxed),
        tally.retried.load(Ordering::Relaxed),
        micros(swap_longest),
        micros(steady_longest),
        format_args!("{:.0} ms", swap_time.as_secs_f64() * 1000.0),
        completed as f64 / elapsed.as_secs_f64(),
        steady_rate,
    );
    let notes = tally.notes.lock().expect("not poisoned");
    for note in notes.iter() {
        eprintln!("redeploy: {note}");
    }
}
