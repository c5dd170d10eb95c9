//! The real desktop app in a real X session: the "Halley" panel window opens,
//! paints something that is not blank, and the app exits cleanly on SIGTERM
//! without leaving its webview processes behind. Run it under
//! `scripts/with-session.sh` (as `make test` does); skipped without DISPLAY.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

const TITLE: &str = "Halley";
const WINDOW_TIMEOUT: Duration = Duration::from_secs(30);
const PAINT_TIMEOUT: Duration = Duration::from_secs(30);
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);
/// Standard deviation (0..1) of the window's pixels above which it is not blank.
const NOT_BLANK: f64 = 0.02;

#[test]
fn panel_window_opens_renders_and_exits_cleanly() -> Result<()> {
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!("skipped: DISPLAY is unset; run under scripts/with-session.sh (make test does)");
        return Ok(());
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_halley-desktop"));
    let artifacts = artifacts_dir(bin)?;
    let log = File::create(artifacts.join("halley-desktop.log"))?;
    let data = tempfile::tempdir()?;
    let child = Command::new(bin)
        .env("HALLEY_DATA_DIR", data.path())
        .env("HALLEY_HEADLESS", "1")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .context("starting halley-desktop")?;
    let mut app = KillOnDrop(Some(child));

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
    let descendants = descendants_of(pid);
    run("kill", &["-TERM", &pid.to_string()])?;
    let status = app.wait_timeout(EXIT_TIMEOUT)?;
    assert!(status.success(), "halley-desktop did not exit cleanly on SIGTERM: {status}");
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

/// `<target dir>/../test-artifacts`, from `<target dir>/debug/halley-desktop`.
fn artifacts_dir(bin: &Path) -> Result<PathBuf> {
    let target = bin.parent().and_then(Path::parent).context("binary is not in <target>/<profile>/")?;
    let dir = target.parent().map_or_else(|| target.join("test-artifacts"), |p| p.join("test-artifacts"));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
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

/// Every process below `pid`, from /proc.
fn descendants_of(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| Some((p, parent_of(p)?)))
        .collect();
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

/// The fields of /proc/PID/stat after the command name: state, ppid, ...
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// Still running: present in /proc and not a zombie.
fn is_running(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| f.first().is_some_and(|s| s != "Z"))
}

fn path_str(p: &Path) -> Result<&str> {
    p.to_str().context("path is not UTF-8")
}

/// Runs a helper tool and returns its stdout; fails on a non-zero status.
fn run(program: &str, args: &[&str]) -> Result<String> {
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

/// The app process; killed and reaped if the test fails half-way.
struct KillOnDrop(Option<Child>);

impl KillOnDrop {
    fn child(&mut self) -> Result<&mut Child> {
        self.0.as_mut().context("the app was already reaped")
    }

    fn pid(&mut self) -> Result<u32> {
        Ok(self.child()?.id())
    }

    fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        Ok(self.child()?.try_wait()?)
    }

    /// Waits up to `timeout` for the app to exit and reaps it.
    fn wait_timeout(&mut self, timeout: Duration) -> Result<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.try_wait()? {
                self.0 = None;
                return Ok(status);
            }
            sleep(Duration::from_millis(100));
        }
        bail!("halley-desktop did not exit within {timeout:?}")
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
