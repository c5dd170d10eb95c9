//! The Chromium process Halley launches, tied to Halley's life.
//!
//! Halley spawns the browser itself (not through chromiumoxide's launcher)
//! so that, on Linux, the child gets a parent-death signal
//! (`PR_SET_PDEATHSIG`, SIGKILL) before it runs Chromium: however Halley
//! ends — a signal it cannot catch, a crash, the OOM killer — the kernel
//! kills the browser with it, and its helpers follow their parent. The
//! signal fires when the *thread* that spawned the child ends, so every
//! browser is spawned by one thread that lives as long as the process.
//!
//! The browser's command line carries [`OWNER_FLAG`] (the launching
//! Halley's pid; Chromium ignores flags it does not know), which lets the
//! next start tell an orphan of this data directory from a browser a live
//! Halley is using ([`super::profile_lock`]). Not the environment: Chromium
//! writes its process title over it.
//!
//! Chromium prints its DevTools address on stderr; a thread reads it and
//! then drains the rest (a full pipe would block the browser).

use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// On the browser's command line: `--halley-owner=PID`, the Halley that
/// launched it.
pub(crate) const OWNER_FLAG: &str = "--halley-owner";

/// How the DevTools address wait ended without one.
#[derive(Debug)]
pub(crate) enum NoAddress {
    /// The browser's stderr ended (it exited) first; what it printed.
    Ended(String),
    /// It said nothing usable in time; what it printed.
    Timeout(String),
}

/// A browser process Halley started. Dropped without [`Process::kill`], it
/// is killed (like chromiumoxide's `kill_on_drop`).
pub(crate) struct Process {
    child: Child,
    address: Option<oneshot::Receiver<Result<String, String>>>,
}

/// A spawn asked of the spawner thread.
type Job = (Command, oneshot::Sender<io::Result<Child>>);

impl Process {
    /// Start `exe` with `args` (each already with its leading `--`).
    pub async fn spawn(exe: &Path, args: &[String]) -> io::Result<Process> {
        let mut command = Command::new(exe);
        command
            .args(args)
            .arg(format!("{OWNER_FLAG}={}", std::process::id()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        die_with_parent(&mut command);
        let mut child = spawn_on_the_spawner(command).await?;
        let (tx, rx) = oneshot::channel();
        if let Some(stderr) = child.stderr.take() {
            let spawned =
                std::thread::Builder::new().name("halley-browser-stderr".into()).spawn(move || read_stderr(stderr, tx));
            if let Err(e) = spawned {
                tracing::warn!("cannot read the browser's output: {e}");
            }
        }
        Ok(Process { child, address: Some(rx) })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its DevTools address, once it printed it (within `limit`).
    pub async fn devtools_address(&mut self, limit: Duration) -> Result<String, NoAddress> {
        let Some(rx) = self.address.take() else { return Err(NoAddress::Ended(String::new())) };
        match tokio::time::timeout(limit, rx).await {
            Ok(Ok(Ok(address))) => Ok(address),
            Ok(Ok(Err(printed))) => Err(NoAddress::Ended(printed)),
            Ok(Err(_)) => Err(NoAddress::Ended(String::new())),
            Err(_) => Err(NoAddress::Timeout(String::new())),
        }
    }

    /// Its exit status, if it has exited (it is reaped then).
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Wait up to `limit` for it to exit; its status if it did.
    pub async fn wait(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Kill it and reap it.
    pub async fn kill(&mut self) -> Option<ExitStatus> {
        if let Some(status) = self.try_wait() {
            return Some(status);
        }
        let _ = self.child.kill();
        self.wait(Duration::from_secs(5)).await
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            // SIGKILL is not refused: the exit comes at once.
            let _ = self.child.wait();
        }
    }
}

/// Reads the browser's stderr: sends the DevTools address as soon as it is
/// printed (or, at the end of the output, everything printed), then drains
/// the rest into the debug log.
fn read_stderr(stderr: std::process::ChildStderr, tx: oneshot::Sender<Result<String, String>>) {
    let mut tx = Some(tx);
    let mut printed = String::new();
    for line in BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        if tx.is_some() {
            if let Some(address) = devtools_address(&line) {
                if let Some(tx) = tx.take() {
                    let _ = tx.send(Ok(address));
                }
                continue;
            }
            if printed.len() < 16 * 1024 {
                printed.push_str(&line);
                printed.push('\n');
            }
        } else {
            tracing::debug!(target: "halley::browser::stderr", "{line}");
        }
    }
    if let Some(tx) = tx.take() {
        let _ = tx.send(Err(printed));
    }
}

/// `DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID`.
fn devtools_address(line: &str) -> Option<String> {
    let (_, ws) = line.rsplit_once("listening on ")?;
    let ws = ws.trim();
    (ws.starts_with("ws://") && ws.contains("/devtools/browser/")).then(|| ws.to_owned())
}

/// Spawn `command` from the spawner thread, which lives as long as the
/// process: the parent-death signal is bound to the spawning thread, and a
/// tokio worker or blocking thread may end long before Halley does.
async fn spawn_on_the_spawner(command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<Option<Mutex<mpsc::Sender<Job>>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new().name("halley-browser-spawner".into()).spawn(move || {
            for (mut command, reply) in rx {
                let _ = reply.send(command.spawn());
            }
        });
        match started {
            Ok(_) => Some(Mutex::new(tx)),
            Err(e) => {
                tracing::warn!("no spawner thread ({e}): the browser is started from a worker thread");
                None
            }
        }
    });
    let (reply, answer) = oneshot::channel();
    let sent = match spawner {
        Some(tx) => match tx.lock() {
            Ok(tx) => tx.send((command, reply)).map_err(|e| e.0),
            Err(_) => Err((command, reply)),
        },
        None => Err((command, reply)),
    };
    if let Err((mut command, _)) = sent {
        return command.spawn();
    }
    answer.await.map_err(|_| io::Error::other("the browser spawner thread is gone"))?
}

/// On Linux: the child gets SIGKILL when the spawning thread (so Halley)
/// ends, and does not start at all if Halley is already gone.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    let hook = move || -> io::Result<()> {
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
        // Halley died between the fork and the line above: the signal
        // was missed, so do not start an orphan.
        if rustix::process::getppid() != Some(parent) {
            return Err(rustix::io::Errno::SRCH.into());
        }
        Ok(())
    };
    // The one `unsafe` in Halley. `pre_exec` is unsafe because the hook runs
    // in the forked child before exec, where only async-signal-safe work is
    // allowed. This hook makes two raw system calls through rustix (prctl
    // and getppid: no allocation, no lock, no libc state) and, on its
    // error path, builds an `io::Error` from an errno, which allocates
    // nothing. Nothing else can give a child a parent-death signal:
    // `std::process::Command` has no safe way to.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(hook);
    }
}

/// Elsewhere: no parent-death signal (macOS has none; see ARCHITECTURE.md).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn die_with_parent(_command: &mut Command) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_devtools_address_is_read_from_its_line() {
        assert_eq!(
            devtools_address("DevTools listening on ws://127.0.0.1:39123/devtools/browser/1b2c\n").as_deref(),
            Some("ws://127.0.0.1:39123/devtools/browser/1b2c")
        );
        assert_eq!(devtools_address("[1:2:ERROR] listening on nothing"), None);
        assert_eq!(devtools_address("Opening in existing browser session."), None);
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_process_dies_with_its_parent_even_when_the_caller_thread_is_gone() {
        // A child of this test process spawned from a short-lived thread's
        // runtime: it must outlive that thread (the spawner thread is its
        // parent thread) and die only with the process.
        let handle = std::thread::spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
            rt.block_on(Process::spawn(Path::new("/bin/sh"), &["-c".to_owned(), "sleep 30".to_owned()]))
                .map_err(|e| e.to_string())
        });
        let mut process = handle.join().map_err(|_| "thread panicked").and_then(|r| r.map_err(|_| "spawn")).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(process.try_wait(), None, "the browser died with the thread that asked for it");
        let cmdline = std::fs::read(format!("/proc/{}/cmdline", process.pid())).unwrap();
        let owner = format!("{OWNER_FLAG}={}", std::process::id());
        assert!(cmdline.split(|b| *b == 0).any(|v| v == owner.as_bytes()), "no owner on its command line");
        assert!(process.kill().await.is_some());
    }
}
