//! Helpers shared by the desktop app's integration tests (and by the
//! `bench_desktop` example): artifacts, helper tools, screenshots, the
//! process tree, tauri-driver + a WebDriver client, a D-Bus notification
//! monitor, a stand-in tray host, the X11 windows. Each test crate uses a part of it.
#![allow(dead_code)]

pub mod agent_app;
pub mod dbus;
pub mod driver;
pub mod embedder;
#[allow(dead_code, clippy::expect_used, clippy::unwrap_used)]
#[path = "../../../tests/common/fixtures.rs"]
pub mod fixtures;
#[allow(dead_code, clippy::expect_used, clippy::unwrap_used)]
#[path = "../../../tests/common/model_server.rs"]
pub mod model_server;
#[allow(dead_code, clippy::expect_used, clippy::unwrap_used)]
#[path = "../../../tests/common/oidc.rs"]
pub mod oidc;
#[allow(dead_code, clippy::expect_used, clippy::unwrap_used)]
#[path = "../../../tests/common/ollama.rs"]
pub mod ollama;
pub mod proc;
pub mod tray;
pub mod webdriver;
pub mod x11;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Standard deviation (0..1) of an image's pixels above which it is not blank.
pub const NOT_BLANK: f64 = 0.02;

/// The app's executable name.
pub const APP: &str = "halley-desktop";

/// The test session's desktop: its display, notification daemon, session
/// bus names and the single app instance it allows are shared, so the
/// tests that use them take turns (inside one test binary tests run in
/// parallel threads).
static DESKTOP: Mutex<()> = Mutex::new(());

/// Take the desktop for one test: wait for the tests before it, then for
/// their app to be gone (a second instance would only show the first).
/// Held until dropped.
pub fn desktop() -> Result<MutexGuard<'static, ()>> {
    let turn = DESKTOP.lock().unwrap_or_else(PoisonError::into_inner);
    wait_no_app()?;
    Ok(turn)
}

/// Why a test that needs a display does nothing, or `None` when it can run.
pub fn no_display() -> Option<&'static str> {
    std::env::var_os("DISPLAY")
        .is_none()
        .then_some("DISPLAY is unset; run under scripts/with-session.sh (make test does)")
}

/// `<target dir>/../test-artifacts`, from `<target dir>/<profile>/halley-desktop`.
pub fn artifacts_dir(bin: &Path) -> Result<PathBuf> {
    let target = bin.parent().and_then(Path::parent).context("binary is not in <target>/<profile>/")?;
    let dir = target.parent().map_or_else(|| target.join("test-artifacts"), |p| p.join("test-artifacts"));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

pub fn path_str(p: &Path) -> Result<&str> {
    p.to_str().context("path is not UTF-8")
}

/// Runs a helper tool and returns its stdout; fails on a non-zero status.
pub fn run(program: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {program} (see scripts/install-deps.sh)"))?;
    if !out.status.success() {
        bail!("{program} {args:?} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Standard deviation (0..1) of all the pixels of an image (ImageMagick).
pub fn image_deviation(image: &Path) -> Result<f64> {
    let out = run("convert", &[path_str(image)?, "-format", "%[fx:standard_deviation]", "info:"])?;
    out.trim().parse::<f64>().with_context(|| format!("convert printed {out:?}"))
}

/// Saves a PNG of the panel as the user sees it on screen (its window's
/// part of the display) as the artifact `e2e-{name}.png` and checks it is
/// not blank.
pub fn capture_panel(panel: &webdriver::Session, artifacts: &Path, name: &str) -> Result<PathBuf> {
    let shot = artifacts.join(format!("e2e-{name}.png"));
    let (x, y, width, height) = panel.window_rect()?;
    x11::capture(&x11::Rect { x, y, width, height }, &shot)?;
    let deviation = image_deviation(&shot)?;
    eprintln!("screenshot: {} (stddev {deviation:.3})", shot.display());
    if deviation <= NOT_BLANK {
        bail!("the panel screenshot is blank (stddev {deviation:.4}); see {}", shot.display());
    }
    Ok(shot)
}

/// Width and height of an image (ImageMagick).
pub fn image_size(image: &Path) -> Result<(u32, u32)> {
    let out = run("identify", &["-format", "%w %h", path_str(image)?])?;
    let mut it = out.split_whitespace().map(str::parse::<u32>);
    match (it.next(), it.next()) {
        (Some(Ok(w)), Some(Ok(h))) => Ok((w, h)),
        _ => bail!("identify printed {out:?}"),
    }
}

/// A process we started; killed and reaped if the test fails half-way.
pub struct KillOnDrop(pub Option<Child>);

impl KillOnDrop {
    pub fn child(&mut self) -> Result<&mut Child> {
        self.0.as_mut().context("the process was already reaped")
    }

    pub fn pid(&mut self) -> Result<u32> {
        Ok(self.child()?.id())
    }

    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        Ok(self.child()?.try_wait()?)
    }

    /// Waits up to `timeout` for the process to exit and reaps it.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Result<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.try_wait()? {
                self.0 = None;
                return Ok(status);
            }
            sleep(Duration::from_millis(100));
        }
        bail!("the process did not exit within {timeout:?}")
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits until no halley-desktop runs in this session (an earlier test's
/// app may still be shutting down; a second instance would only show it).
/// Apps of other sessions on the machine (their own bus) do not count.
pub fn wait_no_app() -> Result<()> {
    let bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default();
    let ours = |pid: &u32| {
        std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
            env.split(|b| *b == 0).any(|var| var == format!("DBUS_SESSION_BUS_ADDRESS={bus}").as_bytes())
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let running: Vec<u32> = proc::all_pids()
            .into_iter()
            .filter(|p| proc::exe_name(*p).as_deref() == Some(APP) && proc::is_running(*p) && ours(p))
            .collect();
        if running.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            // Say what it is, for the next one to look at: its parent, its
            // state and arguments, and what its threads are doing.
            let about: Vec<String> = running
                .iter()
                .map(|p| {
                    let read = |f: &str| std::fs::read_to_string(format!("/proc/{p}/{f}")).unwrap_or_default();
                    let status_file = read("status");
                    let status: Vec<&str> = status_file
                        .lines()
                        .filter(|l| l.starts_with("State") || l.starts_with("PPid") || l.starts_with("Threads"))
                        .map(str::trim)
                        .collect();
                    format!("{p}: {} [{}] {}", read("cmdline").replace('\0', " "), status.join(", "), read("wchan"))
                })
                .collect();
            bail!("a halley-desktop is still running in this session: {about:?}");
        }
        sleep(Duration::from_millis(200));
    }
}
