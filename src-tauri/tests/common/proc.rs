//! The process tree and memory of processes, from /proc.

use std::thread::sleep;
use std::time::{Duration, Instant};

/// Every process below `pid` (children first, then theirs).
pub fn descendants_of(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = all_pids().into_iter().filter_map(|p| Some((p, parent_of(p)?))).collect();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let current = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == current).map(|(p, _)| *p));
        i += 1;
    }
    found.remove(0);
    found
}

/// Every process id in /proc.
pub fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

/// The fields of /proc/PID/stat after the command name: state, ppid, ...
pub fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

pub fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// The short command name (`/proc/PID/comm`, at most 15 bytes).
pub fn comm(pid: u32) -> Option<String> {
    Some(std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?.trim().to_owned())
}

/// The executable's file name (from `/proc/PID/exe`), else `comm`.
pub fn exe_name(pid: u32) -> Option<String> {
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| comm(pid))
}

/// Still running: present in /proc and not a zombie.
pub fn is_running(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| f.first().is_some_and(|s| s != "Z"))
}

/// The first process below `root` whose executable is named `name`.
pub fn find_descendant(root: u32, name: &str) -> Option<u32> {
    descendants_of(root).into_iter().find(|p| exe_name(*p).as_deref() == Some(name))
}

/// Waits until none of `pids` is running; returns those still running.
pub fn wait_gone(pids: &[u32], timeout: Duration) -> Vec<u32> {
    let deadline = Instant::now() + timeout;
    let mut alive = pids.to_vec();
    loop {
        alive.retain(|p| is_running(*p));
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        sleep(Duration::from_millis(100));
    }
}

/// Proportional and resident set size of a process, in KiB, from
/// /proc/PID/smaps_rollup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    pub pss_kib: u64,
    pub rss_kib: u64,
}

pub fn memory_of(pid: u32) -> Option<Memory> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
    };
    Some(Memory { pss_kib: field("Pss:")?, rss_kib: field("Rss:")? })
}
