//! Crash points: named places (every database commit, and just before and
//! after each side effect) where the crash-point harness
//! (`tests/suite/crashpoints.rs`, `make crashpoints`) has the process
//! SIGKILL itself, to prove that nothing is lost, half-written or done
//! twice when Halley dies at any instant.
//!
//! Always compiled in, inert unless `HALLEY_CRASH_AT` or `HALLEY_CRASH_LOG`
//! is set when the process starts: off, a point costs one atomic load, and
//! the store installs no SQLite hooks at all.
//!
//! - `HALLEY_CRASH_LOG=FILE`: every point reached is appended to FILE as
//!   `N<TAB>NAME` (N counts from 1 in this process), so a first run counts
//!   a scenario's points and names them.
//! - `HALLEY_CRASH_AT=N`: at the N-th point the process sends itself
//!   SIGKILL (a real one: no destructor, no flush, no exit handler runs),
//!   after logging the point when a log is set.

use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Set once the environment asked for crash points (read at the first
/// point, or by [`enabled`]).
static ON: AtomicBool = AtomicBool::new(false);
/// Points reached so far in this process.
static COUNT: AtomicU64 = AtomicU64::new(0);

struct Config {
    at: Option<u64>,
    log: Option<std::path::PathBuf>,
}

fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let at = std::env::var("HALLEY_CRASH_AT").ok().and_then(|v| v.trim().parse().ok());
        let log = std::env::var_os("HALLEY_CRASH_LOG").filter(|v| !v.is_empty()).map(Into::into);
        let config = Config { at, log };
        ON.store(config.at.is_some() || config.log.is_some(), Ordering::SeqCst);
        config
    })
}

/// Whether crash points are armed in this process (reads the environment
/// once). The store asks when it opens, to install its commit hooks.
pub fn enabled() -> bool {
    config();
    ON.load(Ordering::Relaxed)
}

/// A crash point, its name (e.g. `commit: INSERT tool_calls`, `before side
/// effect: tool browser_click`) built only when armed. Inert unless armed.
pub fn point_with(name: impl FnOnce() -> String) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    hit(&name());
}

#[cold]
fn hit(name: &str) {
    let config = config();
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(path) = &config.log
        && let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path)
    {
        // One write per line: lines of concurrent points never interleave.
        let _ = f.write_all(format!("{n}\t{name}\n").as_bytes());
    }
    if config.at == Some(n) {
        kill_self();
    }
}

#[cfg(unix)]
fn kill_self() {
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    // SIGKILL is not blocked or handled; the process is gone before this.
    loop {
        std::thread::park();
    }
}

#[cfg(not(unix))]
fn kill_self() {
    // TerminateProcess is the nearest thing: nothing runs after it either.
    std::process::exit(137);
}

/// Arm crash points in this process when the environment asks; called
/// early by the CLI so a point reached before the store opens counts too.
pub fn init() {
    config();
}
