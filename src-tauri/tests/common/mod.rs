//! Helpers shared by the desktop app's integration tests (and by the
//! `bench_desktop` example): artifacts, helper tools, screenshots, the
//! process tree, tauri-driver + a WebDriver client, a D-Bus notification
//! monitor, a stand-in tray host, the X11 windows. Each test crate uses a part of it.
#![allow(dead_code)]

pub mod dbus;
pub mod driver;
pub mod proc;
pub mod tray;
pub mod webdriver;
pub mod x11;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Standard deviation (0..1) of an image's pixels above which it is not blank.
pub const NOT_BLANK: f64 = 0.02;

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
