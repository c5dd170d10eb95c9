//! Native notifications reach the desktop's notification service: started
//! in the tray (as the login item starts it), Halley says once that it is
//! running there, and not again on the next start. Watched on the session
//! bus with `dbus-monitor`. Run it under `scripts/with-session.sh` (dunst
//! answers there); skipped without DISPLAY or a session bus.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

const NOTIFY_TIMEOUT: Duration = Duration::from_secs(30);
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);
/// Long enough for a started app to have sent anything it sends at start.
const QUIET_TIME: Duration = Duration::from_secs(5);
const HINT: &str = "Halley is running in the tray";

#[test]
fn a_start_in_the_tray_says_so_once() -> Result<()> {
    if std::env::var_os("DISPLAY").is_none() || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        eprintln!("skipped: no DISPLAY or session bus; run under scripts/with-session.sh (make test does)");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let bin = Path::new(env!("CARGO_BIN_EXE_halley-desktop"));
    let data = tempfile::tempdir()?;
    let bus_log = data.path().join("dbus-monitor.log");
    let _monitor = Reaped(
        Command::new("dbus-monitor")
            .args(["--session", "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"])
            .stdin(Stdio::null())
            .stdout(File::create(&bus_log)?)
            .stderr(Stdio::null())
            .spawn()
            .context("starting dbus-monitor (package dbus)")?,
    );
    // dbus-monitor prints its own NameAcquired signal once it listens.
    wait_for(&bus_log, "NameAcquired", NOTIFY_TIMEOUT)?;

    let app = start_in_tray(bin, data.path(), "first")?;
    wait_for(&bus_log, HINT, NOTIFY_TIMEOUT)?;
    stop(app)?;
    let layout = std::fs::read_to_string(data.path().join("desktop.json")).context("desktop.json was not written")?;
    assert!(layout.contains("\"tray_hint_shown\": true"), "the hint is not remembered: {layout}");

    let app = start_in_tray(bin, data.path(), "second")?;
    sleep(QUIET_TIME);
    stop(app)?;
    // Leave the screen clean for the tests that take screenshots.
    let _ = Command::new("dunstctl").arg("close-all").status();
    let sent = std::fs::read_to_string(&bus_log)?.matches(HINT).count();
    assert_eq!(sent, 1, "the tray hint was sent {sent} times; see {}", bus_log.display());
    Ok(())
}

fn start_in_tray(bin: &Path, data: &Path, name: &str) -> Result<Reaped> {
    let log = File::create(data.join(format!("halley-desktop-{name}.log")))?;
    let child = Command::new(bin)
        .arg("--tray")
        .env("HALLEY_DATA_DIR", data)
        .env("HALLEY_HEADLESS", "1")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .context("starting halley-desktop")?;
    Ok(Reaped(child))
}

/// SIGTERM, then a clean exit.
fn stop(mut app: Reaped) -> Result<()> {
    let pid = app.0.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status()?;
    assert!(status.success(), "kill -TERM {pid} failed");
    let deadline = Instant::now() + EXIT_TIMEOUT;
    while Instant::now() < deadline {
        if let Some(status) = app.0.try_wait()? {
            assert_eq!(status.code(), Some(0), "halley-desktop did not exit cleanly on SIGTERM: {status}");
            return Ok(());
        }
        sleep(Duration::from_millis(100));
    }
    bail!("halley-desktop did not exit within {EXIT_TIMEOUT:?}")
}

/// Polls `file` until it contains `needle`.
fn wait_for(file: &PathBuf, needle: &str, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if std::fs::read_to_string(file).is_ok_and(|s| s.contains(needle)) {
            return Ok(());
        }
        sleep(Duration::from_millis(200));
    }
    let seen = std::fs::read_to_string(file).unwrap_or_default();
    bail!("{needle:?} did not appear on the bus within {timeout:?}; dbus-monitor saw:\n{seen}")
}

/// A child process killed and reaped when dropped.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
