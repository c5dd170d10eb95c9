//! The processes of a browser Halley started: the main one and everything
//! below it (zygotes, renderers, GPU and utility processes). Closing the
//! browser reaps the main process; the rest normally follow it within a
//! moment, and whatever is still there after [`LINGER`] is killed.
//!
//! Processes are named by pid *and* start time (from `/proc`), so a pid the
//! system gave to someone else meanwhile is never touched. Linux only;
//! elsewhere nothing is tracked beyond the main process.

use std::time::{Duration, Instant};

/// How long the children of a closed browser may take to exit on their own.
pub(crate) const LINGER: Duration = Duration::from_secs(2);

/// One process: its pid and when it started (clock ticks since boot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Proc {
    pid: u32,
    started: u64,
}

/// Every process below a browser's main process, seen at one moment.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    below: Vec<Proc>,
}

impl Tree {
    /// The processes below `main` now.
    pub fn of(main: u32) -> Tree {
        let all: Vec<(Proc, u32)> = all_pids().into_iter().filter_map(stat).collect();
        let mut below: Vec<Proc> = Vec::new();
        let mut parents = vec![main];
        while let Some(parent) = parents.pop() {
            for (p, ppid) in &all {
                if *ppid == parent && !below.contains(p) {
                    below.push(*p);
                    parents.push(p.pid);
                }
            }
        }
        Tree { below }
    }

    /// Wait up to `linger` for the processes to exit on their own, then kill
    /// those left. Returns how many had to be killed.
    pub async fn reap(self, linger: Duration) -> usize {
        let deadline = Instant::now() + linger;
        let mut left = self.below;
        loop {
            left.retain(|p| running(*p));
            if left.is_empty() || Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for p in &left {
            tracing::warn!("browser process {} outlived the browser; killing it", p.pid);
            kill(p.pid);
        }
        left.len()
    }
}

/// Resolves once process `pid` has exited (a zombie counts as exited),
/// polled every 100 ms from `/proc`. Elsewhere than Linux it never
/// resolves: the closing of the DevTools socket tells the browser's end.
pub(crate) async fn exited(pid: u32) {
    if !cfg!(target_os = "linux") {
        return std::future::pending().await;
    }
    let Some((me, _)) = stat(pid) else { return };
    while running(me) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[cfg(target_os = "linux")]
fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn all_pids() -> Vec<u32> {
    Vec::new()
}

/// A process and its parent, from `/proc/PID/stat`; `None` once it has
/// exited (a zombie has exited: only its parent's wait is missing).
fn stat(pid: u32) -> Option<(Proc, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: the
    // fields that follow start after its last `)`.
    let rest = text.get(text.rfind(')')? + 1..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // fields[0] is field 3 (state), fields[1] field 4 (ppid), fields[19] field 22 (starttime).
    if matches!(fields.first(), Some(&"Z" | &"X")) {
        return None;
    }
    let ppid = fields.get(1)?.parse().ok()?;
    let started = fields.get(19)?.parse().ok()?;
    Some((Proc { pid, started }, ppid))
}

/// Still the same process, and not exited.
fn running(p: Proc) -> bool {
    stat(p.pid).is_some_and(|(now, _)| now == p)
}

/// The parent of process `pid`, while it runs (not a zombie).
pub(crate) fn parent_of(pid: u32) -> Option<u32> {
    stat(pid).map(|(_, ppid)| ppid)
}

/// Whether process `pid` runs (a zombie has exited).
pub(crate) fn alive(pid: u32) -> bool {
    stat(pid).is_some()
}

/// Process `pid`'s command line, its arguments split.
pub(crate) fn cmdline(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    raw.split(|b| *b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into_owned()).collect()
}

/// Ask process `pid` to end (SIGTERM), wait up to `grace` for it to exit,
/// then kill it; its processes below follow, or are killed after
/// [`LINGER`]. Whether it is gone.
pub(crate) async fn end(pid: u32, grace: Duration) -> bool {
    let Some((me, _)) = stat(pid) else { return true };
    let tree = Tree::of(pid);
    terminate(pid);
    let deadline = Instant::now() + grace;
    while running(me) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if running(me) {
        kill(pid);
        let deadline = Instant::now() + Duration::from_secs(2);
        while running(me) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    tree.reap(LINGER).await;
    !running(me)
}

#[cfg(unix)]
fn send(pid: u32, signal: rustix::process::Signal) {
    let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else { return };
    let _ = rustix::process::kill_process(pid, signal);
}

#[cfg(unix)]
fn kill(pid: u32) {
    send(pid, rustix::process::Signal::KILL);
}

#[cfg(unix)]
fn terminate(pid: u32) {
    send(pid, rustix::process::Signal::TERM);
}

#[cfg(not(unix))]
fn kill(_pid: u32) {}

#[cfg(not(unix))]
fn terminate(_pid: u32) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_child_left_behind_is_killed_and_a_gone_one_is_not_counted() {
        // sh starts a long sleep and a short one, then waits: both are
        // below it.
        let mut sh = tokio::process::Command::new("sh")
            .args(["-c", "sleep 60 & sleep 0.5 & wait"])
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let main = sh.id().unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let tree = loop {
            let tree = Tree::of(main);
            if tree.below.len() == 2 || Instant::now() >= deadline {
                break tree;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(tree.below.len(), 2, "{tree:?}");
        let long = tree.below.iter().copied().find(|p| running(*p)).unwrap();
        assert_eq!(tree.reap(Duration::from_secs(2)).await, 1);
        // The killed sleep ends, so the shell's wait returns.
        let status = tokio::time::timeout(Duration::from_secs(5), sh.wait()).await.unwrap().unwrap();
        assert!(status.success(), "{status}");
        assert!(!running(long));
    }

    #[test]
    fn a_pid_taken_by_another_process_is_not_the_same_process() {
        let me = stat(std::process::id()).unwrap().0;
        assert!(running(me));
        assert!(!running(Proc { started: me.started + 1, ..me }));
    }
}
