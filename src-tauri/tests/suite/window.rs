//! The real desktop app in a real X session: the "Halley" panel window opens,
//! paints something that is not blank, and the app exits cleanly on SIGTERM
//! without leaving its webview processes behind. Run it under
//! `scripts/with-session.sh` (as `make test` does); skipped without DISPLAY.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::proc::{descendants_of, is_running};
use crate::common::{KillOnDrop, NOT_BLANK, artifacts_dir, no_display, path_str, run};
use anyhow::{Context, Result, bail};

const TITLE: &str = "Halley";
const WINDOW_TIMEOUT: Duration = Duration::from_secs(30);
const PAINT_TIMEOUT: Duration = Duration::from_secs(30);
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);

#[test]
fn panel_window_opens_renders_and_exits_cleanly() -> Result<()> {
    let Some((_desktop, artifacts, data)) = desktop_case()? else { return Ok(()) };
    let mut app = launch(&[], data.path(), &[], &artifacts.join("halley-desktop.log"))?;

    let window = wait_for_window(&mut app, TITLE, WINDOW_TIMEOUT)?;
    let geometry = window_geometry(&window)?;
    assert!(geometry.width >= 300 && geometry.height >= 400, "the panel is too small: {geometry:?}");

    // The webview paints a moment after the window maps: poll until the
    // window's part of the screen is not a single colour.
    let shot = artifacts.join("window-panel.png");
    let deadline = Instant::now() + PAINT_TIMEOUT;
    let mut deviation = 0.0;
    while Instant::now() < deadline {
        sleep(Duration::from_millis(500));
        run("import", &["-window", "root", path_str(&shot)?])?;
        deviation = crop_deviation(&shot, &geometry)?;
        if deviation > NOT_BLANK {
            break;
        }
    }
    eprintln!("screenshot: {} (window {} {geometry:?}, stddev {deviation:.3})", shot.display(), window);
    assert!(deviation > NOT_BLANK, "the panel window stayed blank (stddev {deviation:.4}); see {}", shot.display());

    let pid = app.pid()?;
    // The panel renders in software (src/webview.rs): the app restarted
    // itself, same PID, with WebKit's compositing mode off, and its web
    // process inherited that.
    let environ = std::fs::read(format!("/proc/{pid}/environ"))?;
    assert!(
        environ.split(|b| *b == 0).any(|kv| kv == b"WEBKIT_DISABLE_COMPOSITING_MODE=1"),
        "halley-desktop runs without WEBKIT_DISABLE_COMPOSITING_MODE=1"
    );
    let descendants = descendants_of(pid);
    run("kill", &["-TERM", &pid.to_string()])?;
    let status = app.wait_timeout(EXIT_TIMEOUT)?;
    // Its exit path ran, as Quit in the tray: exit 0.
    assert_eq!(status.code(), Some(0), "halley-desktop did not exit cleanly on SIGTERM: {status}");
    // Its webview helpers go with it (an exited one may linger as a zombie
    // until init reaps it; that is not a leak).
    let deadline = Instant::now() + EXIT_TIMEOUT;
    let mut alive: Vec<u32> = descendants.clone();
    while Instant::now() < deadline {
        alive.retain(|p| is_running(*p));
        if alive.is_empty() {
            break;
        }
        sleep(Duration::from_millis(200));
    }
    assert!(alive.is_empty(), "processes left behind by halley-desktop: {alive:?} (of {descendants:?})");
    Ok(())
}

/// A second launch of the app (the desktop app twice, on the same data
/// directory) hands over to the first: the first shows its panel, the
/// second exits 0 at once without opening the data directory's API port or
/// a window of its own.
#[test]
fn a_second_launch_shows_the_first_apps_panel_and_exits() -> Result<()> {
    let Some((_desktop, artifacts, data)) = desktop_case()? else { return Ok(()) };
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port().to_string();
    let env = [("HALLEY_API_PORT", port.as_str())];
    // The first starts in the tray (no window) and takes the session's
    // single-instance name.
    let mut first = launch(&["--tray"], data.path(), &env, &artifacts.join("second-launch-first.log"))?;
    let deadline = Instant::now() + WINDOW_TIMEOUT;
    loop {
        if let Some(status) = first.try_wait()? {
            bail!("the first app exited: {status}");
        }
        let names = run(
            "dbus-send",
            &[
                "--session",
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.ListNames",
            ],
        )?;
        if names.contains("app.halley.desktop.SingleInstance") {
            break;
        }
        if Instant::now() > deadline {
            bail!("the first app never took its single-instance name");
        }
        sleep(Duration::from_millis(100));
    }
    // The second hands over and exits; the first shows its panel.
    let mut second = launch(&[], data.path(), &env, &artifacts.join("second-launch-second.log"))?;
    let status = second.wait_timeout(EXIT_TIMEOUT)?;
    assert!(status.success(), "the second launch did not exit cleanly: {status}");
    let window = wait_for_window(&mut first, TITLE, WINDOW_TIMEOUT)?;
    let windows = run("xwininfo", &["-root", "-children"])?;
    let panels = windows
        .lines()
        .filter(|l| l.contains(&format!("\"{TITLE}\":")))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| is_viewable(id))
        .count();
    assert_eq!(panels, 1, "one panel, the first app's ({window}):\n{windows}");
    let pid = first.pid()?;
    run("kill", &["-TERM", &pid.to_string()])?;
    assert_eq!(first.wait_timeout(EXIT_TIMEOUT)?.code(), Some(0), "the first app did not exit cleanly");
    Ok(())
}

/// The session's desktop, taken for this test, the artifacts folder and a
/// fresh data directory; `None` (skipped, with the reason) without a display.
fn desktop_case() -> Result<Option<(std::sync::MutexGuard<'static, ()>, std::path::PathBuf, tempfile::TempDir)>> {
    if let Some(why) = no_display() {
        eprintln!("skipped: {why}");
        return Ok(None);
    }
    let desktop = crate::common::desktop()?;
    let artifacts = artifacts_dir(Path::new(env!("CARGO_BIN_EXE_halley-desktop")))?;
    Ok(Some((desktop, artifacts, tempfile::tempdir()?)))
}

/// Start the app with `args` on data directory `data` (headless browser),
/// with `env` set and its output in `log`.
fn launch(args: &[&str], data: &Path, env: &[(&str, &str)], log: &Path) -> Result<KillOnDrop> {
    let log = File::create(log)?;
    let child = Command::new(env!("CARGO_BIN_EXE_halley-desktop"))
        .args(args)
        .env("HALLEY_DATA_DIR", data)
        .env("HALLEY_HEADLESS", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .context("starting halley-desktop")?;
    Ok(KillOnDrop(Some(child)))
}

/// Polls `xwininfo -root -children` for a top-level window named `title`.
fn wait_for_window(app: &mut KillOnDrop, title: &str, timeout: Duration) -> Result<String> {
    let deadline = Instant::now() + timeout;
    let needle = format!("\"{title}\":");
    while Instant::now() < deadline {
        if let Some(status) = app.try_wait()? {
            bail!("halley-desktop exited before opening a window: {status}");
        }
        let tree = run("xwininfo", &["-root", "-children"])?;
        let found = tree
            .lines()
            .map(str::trim)
            .filter(|l| l.contains(&needle))
            .filter_map(|l| l.split_whitespace().next())
            .find(|id| is_viewable(id));
        if let Some(id) = found {
            return Ok(id.to_owned());
        }
        sleep(Duration::from_millis(250));
    }
    bail!("no window titled {title:?} appeared within {timeout:?}")
}

fn is_viewable(id: &str) -> bool {
    run("xwininfo", &["-id", id]).is_ok_and(|info| info.contains("IsViewable"))
}

#[derive(Debug)]
struct Geometry {
    x: i64,
    y: i64,
    width: i64,
    height: i64,
}

fn window_geometry(id: &str) -> Result<Geometry> {
    let info = run("xwininfo", &["-id", id])?;
    let field = |name: &str| -> Result<i64> {
        info.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(str::trim)
            .with_context(|| format!("xwininfo printed no {name:?}"))?
            .parse::<i64>()
            .with_context(|| format!("xwininfo {name:?} is not a number"))
    };
    Ok(Geometry {
        x: field("Absolute upper-left X:")?,
        y: field("Absolute upper-left Y:")?,
        width: field("Width:")?,
        height: field("Height:")?,
    })
}

/// Standard deviation (0..1) of the pixels of `g` in the screenshot.
fn crop_deviation(shot: &Path, g: &Geometry) -> Result<f64> {
    let crop = format!("{}x{}+{}+{}", g.width, g.height, g.x.max(0), g.y.max(0));
    let out =
        run("convert", &[path_str(shot)?, "-crop", &crop, "+repage", "-format", "%[fx:standard_deviation]", "info:"])?;
    out.trim().parse::<f64>().with_context(|| format!("convert printed {out:?}"))
}
