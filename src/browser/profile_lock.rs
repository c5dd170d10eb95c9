//! Who holds the profile, before Halley launches a browser on it.
//!
//! Chromium marks a profile in use with a `SingletonLock` symlink naming
//! `HOST-PID`. A second Chromium on the same profile hands its command line
//! to the first and exits, so Halley cannot browse while another browser
//! holds its data directory's profile. Before each launch:
//! - no lock, a lock from another host, or one whose process is gone:
//!   Chromium sorts it out itself;
//! - the holder is a browser Halley launched for this data directory
//!   ([`super::process::OWNER_FLAG`] on its command line) whose Halley is
//!   gone (an orphan, left by a Halley killed before browsers died with it):
//!   it is closed, with a note in the log, and the launch goes on;
//! - the holder's Halley still runs: it is given [`HANDOVER`] to let go (a
//!   Halley whose client just ended it is closing its browser while the
//!   client's next session starts), then the launch is refused with
//!   `browser_unavailable`, naming that Halley; a browser something else
//!   started is named at once.
//!
//! Linux only (it reads `/proc`); elsewhere Chromium's own answer stands.

use std::path::Path;
use std::time::Duration;

use super::process::OWNER_FLAG;
use super::reap;
use crate::error::{Error, ErrorCode, Result};

/// How long an orphan may take to close on SIGTERM before it is killed.
const ORPHAN_GRACE: Duration = Duration::from_secs(3);

/// How long a profile held by a live Halley is waited for: one that is
/// ending (its client went away, and the next session starts at once)
/// releases it within this.
const HANDOVER: Duration = Duration::from_secs(8);

/// The files Chromium keeps beside the lock.
const SINGLETON_FILES: [&str; 3] = ["SingletonLock", "SingletonSocket", "SingletonCookie"];

/// What holds a profile.
#[derive(Debug, PartialEq, Eq)]
enum Holder {
    /// Nothing Halley needs to act on.
    Free,
    /// A browser Halley launched whose Halley is gone.
    Orphan { pid: u32, owner: Option<u32> },
    /// A browser some live process runs: `starter` started it.
    InUse { pid: u32, starter: u32, by_halley: bool },
}

/// Clear `profile` of an orphan browser of this data directory, or refuse
/// the launch when a live process holds it.
pub(crate) async fn recover(profile: &Path) -> Result<()> {
    if !cfg!(target_os = "linux") {
        return Ok(());
    }
    let deadline = std::time::Instant::now() + HANDOVER;
    let mut held = holder(profile);
    while matches!(held, Holder::InUse { by_halley: true, .. }) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        held = holder(profile);
    }
    match held {
        Holder::Free => Ok(()),
        Holder::Orphan { pid, owner } => {
            let whose = owner.map_or_else(|| "a Halley".to_owned(), |o| format!("Halley (pid {o})"));
            tracing::warn!(
                "closing the browser (pid {pid}) left running on this data directory's profile by {whose} that is \
                 gone"
            );
            if !reap::end(pid, ORPHAN_GRACE).await {
                return Err(Error::new(
                    ErrorCode::BrowserUnavailable,
                    format!(
                        "a browser left behind (pid {pid}) holds this data directory's profile and would not close"
                    ),
                ));
            }
            remove_stale_files(profile, pid);
            Ok(())
        }
        Holder::InUse { pid, starter, by_halley } => {
            let command = reap::cmdline(starter).join(" ");
            let command = if command.is_empty() { String::new() } else { format!(": `{command}`") };
            let who = if by_halley {
                format!("another Halley (pid {starter}{command})")
            } else {
                format!("a browser (pid {pid}) started by pid {starter}{command}")
            };
            Err(Error::new(
                ErrorCode::BrowserUnavailable,
                format!(
                    "this data directory's browser profile is in use by {who}: close it, or give this Halley another \
                     --data-dir, or attach to a running Chrome with --cdp-url"
                ),
            ))
        }
    }
}

fn holder(profile: &Path) -> Holder {
    let Some(pid) = lock_pid(profile) else { return Holder::Free };
    if pid == std::process::id() || !reap::alive(pid) {
        return Holder::Free;
    }
    let cmdline = reap::cmdline(pid);
    if !uses_profile(&cmdline, profile) {
        // The pid went to another process since: the lock is stale.
        return Holder::Free;
    }
    let parent = reap::parent_of(pid).unwrap_or(1);
    let owner = owner_of(&cmdline);
    match owner {
        // Launched by a Halley: orphaned once that Halley is not its parent
        // any more (it died and the browser was handed to a reaper).
        Some(owner) if parent == owner && reap::alive(owner) => Holder::InUse { pid, starter: owner, by_halley: true },
        Some(owner) => Holder::Orphan { pid, owner: Some(owner) },
        // Started with this profile by something else: an orphan only
        // when its starter is gone (it belongs to init now).
        None if parent <= 1 => Holder::Orphan { pid, owner: None },
        None => Holder::InUse { pid, starter: parent, by_halley: false },
    }
}

/// Whether a command line has `--user-data-dir=<profile>`. Chromium
/// rewrites its own command line (its process title) as one string of
/// arguments joined by spaces, so the flag is looked for as a word.
fn uses_profile(cmdline: &[String], profile: &Path) -> bool {
    let flag = format!("--user-data-dir={}", profile.display());
    let joined = cmdline.join(" ");
    joined.match_indices(&flag).any(|(at, _)| {
        let before = joined[..at].chars().next_back();
        let after = joined[at + flag.len()..].chars().next();
        before.is_none_or(|c| c == ' ') && after.is_none_or(|c| c == ' ')
    })
}

/// The Halley named by `--halley-owner=PID` on a command line.
fn owner_of(cmdline: &[String]) -> Option<u32> {
    let prefix = format!("{OWNER_FLAG}=");
    cmdline.iter().flat_map(|a| a.split(' ')).find_map(|word| word.strip_prefix(&prefix)?.parse().ok())
}

/// The pid in `SingletonLock` (`HOST-PID`), when the host is this one.
fn lock_pid(profile: &Path) -> Option<u32> {
    let target = std::fs::read_link(profile.join("SingletonLock")).ok()?;
    let target = target.to_str()?;
    let (host, pid) = target.rsplit_once('-')?;
    (host == hostname()?).then_some(())?;
    pid.parse().ok()
}

fn hostname() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    Some(name.trim().to_owned())
}

/// After the orphan `pid` was killed: its lock files, if they still name it.
fn remove_stale_files(profile: &Path, pid: u32) {
    if lock_pid(profile) != Some(pid) {
        return;
    }
    for name in SINGLETON_FILES {
        let _ = std::fs::remove_file(profile.join(name));
    }
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    fn lock(profile: &Path, pid: u32) {
        let host = hostname().unwrap();
        std::os::unix::fs::symlink(format!("{host}-{pid}"), profile.join("SingletonLock")).unwrap();
    }

    /// A stand-in holder: `sh` whose command line carries the profile flag
    /// and the owner's (`sh -c 'sleep 30' --user-data-dir=... --halley-owner=N`).
    fn holder_process(profile: &Path, owner: Option<u32>) -> std::process::Child {
        let mut command = Command::new("sh");
        command
            .args(["-c", "sleep 30", &format!("--user-data-dir={}", profile.display())])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(owner) = owner {
            command.arg(format!("{OWNER_FLAG}={owner}"));
        }
        let child = command.spawn().unwrap();
        // Until it has exec'd, its command line is this test's.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !uses_profile(&reap::cmdline(child.id()), profile) {
            assert!(std::time::Instant::now() < deadline, "the stand-in never ran");
            std::thread::sleep(Duration::from_millis(5));
        }
        child
    }

    #[test]
    fn no_lock_a_stale_lock_and_another_host_leave_the_profile_alone() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(holder(dir.path()), Holder::Free);
        // A pid that cannot exist.
        lock(dir.path(), 4_194_304);
        assert_eq!(holder(dir.path()), Holder::Free);
        let other = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(format!("elsewhere-{}", std::process::id()), other.path().join("SingletonLock"))
            .unwrap();
        assert_eq!(lock_pid(other.path()), None);
    }

    #[test]
    fn the_profile_flag_is_found_in_a_rewritten_command_line_as_a_word() {
        let profile = Path::new("/d/browser-profile");
        let one = |s: &str| vec![s.to_owned()];
        assert!(uses_profile(
            &one("/usr/lib/chromium/chromium --headless --user-data-dir=/d/browser-profile x"),
            profile
        ));
        assert!(uses_profile(&["chromium".into(), "--user-data-dir=/d/browser-profile".into()], profile));
        assert!(!uses_profile(&one("chromium --user-data-dir=/d/browser-profile2"), profile));
        assert!(!uses_profile(&one("chromium --user-data-dir=/x/d/browser-profile"), profile));
    }

    #[test]
    fn a_process_that_is_not_using_the_profile_does_not_hold_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut other = Command::new("sleep").arg("30").spawn().unwrap();
        lock(dir.path(), other.id());
        assert_eq!(holder(dir.path()), Holder::Free);
        let _ = other.kill();
        let _ = other.wait();
    }

    #[test]
    fn a_live_halley_holds_its_browser_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        // This test process is the "Halley": the holder's parent and owner.
        let mut child = holder_process(dir.path(), Some(std::process::id()));
        lock(dir.path(), child.id());
        assert_eq!(holder(dir.path()), Holder::InUse { pid: child.id(), starter: std::process::id(), by_halley: true });
        let err = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(recover(dir.path()))
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::BrowserUnavailable);
        assert!(err.message().contains(&format!("another Halley (pid {}", std::process::id())), "{}", err.message());
        let _ = child.kill();
        let _ = child.wait();
    }

    #[tokio::test]
    async fn an_orphan_whose_halley_is_gone_is_closed_and_its_lock_cleared() {
        let dir = tempfile::tempdir().unwrap();
        // Owned by a Halley that is not its parent (gone).
        let mut child = holder_process(dir.path(), Some(4_194_304));
        let pid = child.id();
        lock(dir.path(), pid);
        std::fs::write(dir.path().join("SingletonCookie"), "1").unwrap();
        assert_eq!(holder(dir.path()), Holder::Orphan { pid, owner: Some(4_194_304) });
        recover(dir.path()).await.unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "{status}");
        assert!(std::fs::symlink_metadata(dir.path().join("SingletonLock")).is_err(), "the lock was left");
        assert!(!dir.path().join("SingletonCookie").exists());
    }
}
