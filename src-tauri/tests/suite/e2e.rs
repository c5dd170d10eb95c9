//! End-to-end tests of the real desktop app over WebDriver: tauri-driver
//! (installed by `make deps`) in front of Debian's WebKitWebDriver launches
//! `halley-desktop` in the test session's X display, and the tests read and
//! drive the panel's DOM. Run under `scripts/with-session.sh` (as `make test`
//! does); skipped without DISPLAY. Screenshots and logs go to
//! `$CARGO_TARGET_DIR/../test-artifacts/e2e-*`.
//!
//! Helpers for later tests (in `common/`): `Session::send_task` types into
//! `#composer` and clicks `#send`; `wait_text(".msg.assistant", ..)` and
//! `wait_count("#timeline .call", ..)` follow a run; `NotificationMonitor`
//! collects desktop notifications from the session bus.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::dbus::NotificationMonitor;
use crate::common::driver::{AppEnv, TauriDriver, tauri_driver_path};
use crate::common::webdriver::Session;
use crate::common::{APP, NOT_BLANK, artifacts_dir, image_deviation, image_size, no_display, proc};
use anyhow::{Context, Result, bail};

const UI_TIMEOUT: Duration = Duration::from_secs(30);
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);

fn app_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_halley-desktop"))
}

/// Why this test cannot run here, if it cannot. Inside the test session
/// (`HALLEY_TEST_SESSION=1`) a missing tauri-driver is an error instead.
fn skip_reason() -> Result<Option<String>> {
    if let Some(why) = no_display() {
        return Ok(Some(why.to_owned()));
    }
    if let Err(e) = tauri_driver_path() {
        if std::env::var_os("HALLEY_TEST_SESSION").is_some() {
            return Err(e);
        }
        return Ok(Some(format!("{e:#}")));
    }
    Ok(None)
}

/// Waits for the panel's first render (`<body data-ready="1">`, set by
/// ui/src/main.ts).
fn wait_ready(session: &Session) -> Result<()> {
    session.wait_script(r#"return document.body.dataset.ready === "1";"#, UI_TIMEOUT)
}

#[test]
fn panel_loads_over_webdriver_and_app_exits_cleanly() -> Result<()> {
    if let Some(why) = skip_reason()? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let artifacts = artifacts_dir(app_bin())?;
    let env = AppEnv::new()?;
    let mut driver = TauriDriver::start(&env.vars()?, &artifacts.join("e2e-panel-driver.log"))?;
    let session = driver.launch(app_bin(), &[]).context("launching the app through tauri-driver")?;

    wait_ready(&session)?;
    assert_eq!(session.title()?, "Halley");
    let heading = session.wait_visible(".app-header h1", UI_TIMEOUT)?;
    assert_eq!(session.text(&heading)?, "Halley");
    // The composer is there, and the core answers over IPC: the `/`
    // palette lists the tools the core sends (`Op::ListTools`).
    session.wait_visible("#composer", UI_TIMEOUT)?;
    let palette = session.wait_visible("#palette-open", UI_TIMEOUT)?;
    session.click(&palette)?;
    let tools = session.wait_count("#palette-list .palette-item", 10, UI_TIMEOUT)?;
    let names: Vec<String> = tools.iter().filter_map(|t| session.attribute(t, "data-tool").ok().flatten()).collect();
    eprintln!("panel ready: {} tools in the palette", names.len());
    assert!(names.iter().any(|n| n == "browser_navigate"), "{names:?}");

    let shot = artifacts.join("e2e-panel.png");
    std::fs::write(&shot, session.screenshot()?)?;
    let (w, h) = image_size(&shot)?;
    let deviation = image_deviation(&shot)?;
    eprintln!("screenshot: {} ({w}x{h}, stddev {deviation:.3})", shot.display());
    assert!(w >= 300 && h >= 400, "the panel is too small: {w}x{h}");
    assert!(deviation > NOT_BLANK, "the panel screenshot is blank (stddev {deviation:.4}); see {}", shot.display());

    // Clean exit: SIGTERM the app (as a session logout would); it and its
    // WebKit helpers go away.
    let pid = driver.app_pid(APP)?.context("no halley-desktop process below tauri-driver")?;
    let helpers = proc::descendants_of(pid);
    let status = Command::new("kill").args(["-TERM", &pid.to_string()]).status()?;
    assert!(status.success());
    let alive = proc::wait_gone(&[pid], EXIT_TIMEOUT);
    assert!(alive.is_empty(), "halley-desktop did not exit within {EXIT_TIMEOUT:?} of SIGTERM");
    let left = proc::wait_gone(&helpers, EXIT_TIMEOUT);
    assert!(left.is_empty(), "processes left behind by halley-desktop: {left:?} (of {helpers:?})");
    // The session's browser is gone; deleting it may report that.
    let _ = session.delete();
    driver.stop()?;
    Ok(())
}

/// The notification helper itself, against the session's dunst.
#[test]
fn notification_monitor_sees_notify_calls() -> Result<()> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() || std::env::var_os("HALLEY_TEST_SESSION").is_none() {
        eprintln!("skipped: needs the test session's bus; run under scripts/with-session.sh");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let monitor = NotificationMonitor::start()?;
    let status = Command::new("notify-send")
        .args(["--app-name=halley-e2e", "Price dropped", "Halley checked: 1 250 000 ₫"])
        .status()
        .context("running notify-send (package libnotify-bin)")?;
    if !status.success() {
        bail!("notify-send failed: {status}");
    }
    let n = monitor.wait_for(Duration::from_secs(10), |n| n.app_name == "halley-e2e")?;
    assert_eq!(n.summary, "Price dropped");
    assert_eq!(n.body, "Halley checked: 1 250 000 ₫");
    Ok(())
}
