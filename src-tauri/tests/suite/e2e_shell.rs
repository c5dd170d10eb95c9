//! The desktop shell end to end, as the user meets it on a desktop: the
//! real app in the test session's X display (Xvfb, no window manager), its
//! notifications clicked through the notification daemon (dunst), its tray
//! menu read and clicked over D-Bus the way a tray host does, the panel
//! moved and resized, and the app started the way `make run` starts it.
//! Run under `scripts/with-session.sh` (as `make test` does); without a
//! display it skips, inside the test session a missing tool fails it.
//!
//! The X server has no window manager: `crate::common::x11::request_close` sends
//! the `WM_DELETE_WINDOW` message a window manager's close button sends,
//! and `crate::common::tray::StatusNotifierWatcher` stands in for the panel's tray
//! host (libayatana-appindicator registers the app's item with it).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::dbus::NotificationMonitor;
use crate::common::driver::{AppEnv, TauriDriver, tauri_driver_path};
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::tray::StatusNotifierWatcher;
use crate::common::webdriver::Session;
use crate::common::x11::{self, Rect, Window};
use crate::common::{KillOnDrop, NOT_BLANK, artifacts_dir, image_deviation, no_display, path_str, proc, run};
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

const PANEL_TITLE: &str = "Halley";
const CONFIRM_TITLE: &str = "Halley: confirm";
pub(crate) const UI_TIMEOUT: Duration = Duration::from_secs(30);
pub(crate) const RUN_TIMEOUT: Duration = Duration::from_secs(60);
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);
/// The test session's screen (scripts/with-session.sh).
const SCREEN: Rect = Rect { x: 0, y: 0, width: 1920, height: 1080 };
/// The tools these tests use besides the app (packages in scripts/install-deps.sh).
const TOOLS: &[&str] = &["xwininfo", "dunstctl", "dbus-monitor", "import", "convert"];

fn app_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_halley-desktop"))
}

/// Why these tests cannot run here, if they cannot. Inside the test session
/// (`HALLEY_TEST_SESSION=1`) anything missing is an error instead.
pub(crate) fn skip_reason(webdriver: bool) -> Result<Option<String>> {
    if let Some(why) = no_display() {
        return Ok(Some(why.to_owned()));
    }
    let missing = missing_tool(webdriver);
    match missing {
        None => Ok(None),
        Some(why) if std::env::var_os("HALLEY_TEST_SESSION").is_some() => bail!("{why}"),
        Some(why) => Ok(Some(why)),
    }
}

fn missing_tool(webdriver: bool) -> Option<String> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return Some("no session bus (DBUS_SESSION_BUS_ADDRESS)".to_owned());
    }
    if let Some(tool) = TOOLS.iter().find(|t| !on_path(t)) {
        return Some(format!("{tool} is missing; run scripts/install-deps.sh (make deps)"));
    }
    if std::env::var_os("HALLEY_CHROMIUM").is_none() && !on_path("chromium") {
        return Some("chromium is missing; run scripts/install-deps.sh (make deps)".to_owned());
    }
    if webdriver && let Err(e) = tauri_driver_path() {
        return Some(format!("{e:#}"));
    }
    None
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// The app under WebDriver (tauri-driver), with its own data dir (also
/// used by `e2e_watch`).
pub(crate) struct App {
    driver: TauriDriver,
    pub(crate) panel: Session,
    pub(crate) panel_handle: String,
}

impl App {
    /// Starts the app with `env` (the data dir...) plus `extra` variables.
    pub(crate) fn start(env: &AppEnv, name: &str, extra: &[(&str, &str)]) -> Result<App> {
        crate::common::wait_no_app()?;
        let artifacts = artifacts_dir(app_bin())?;
        let mut vars = env.vars()?;
        vars.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), PathBuf::from(v))));
        let driver = TauriDriver::start(&vars, &artifacts.join(format!("e2e-shell-{name}-driver.log")))?;
        let panel = driver.launch(app_bin(), &[]).context("launching the app through tauri-driver")?;
        panel.wait_script(r#"return document.body.dataset.ready === "1";"#, UI_TIMEOUT)?;
        let panel_handle = panel.window_handle()?;
        Ok(App { driver, panel, panel_handle })
    }

    /// The app pointed at the scripted `model`.
    pub(crate) fn with_model(env: &AppEnv, name: &str, model: &ModelServer, extra: &[(&str, &str)]) -> Result<App> {
        let base = model.base_url();
        let mut vars = vec![("OPENAI_BASE_URL", base.as_str()), ("HALLEY_MODEL", "m"), ("OPENAI_API_KEY", "")];
        vars.extend_from_slice(extra);
        App::start(env, name, &vars)
    }

    /// The panel's X window (mapped or not).
    fn panel_window(&self) -> Result<Window> {
        x11::top_level_windows()?
            .into_iter()
            .find(|w| w.name.as_deref() == Some(PANEL_TITLE))
            .context("the panel has no X window")
    }

    /// Closes the panel as the user does (its close button): it hides, and
    /// the page knows it is hidden.
    pub(crate) fn close_panel(&self) -> Result<()> {
        let panel = self.panel_window()?;
        x11::request_close(&panel.id)?;
        x11::wait_map_state(&panel.id, "IsUnMapped", UI_TIMEOUT).context("the closed panel is still on screen")?;
        self.panel.switch_to_window(&self.panel_handle)?;
        self.panel
            .wait_script(r#"return document.visibilityState === "hidden";"#, UI_TIMEOUT)
            .context("the panel's page does not know it is hidden")
    }

    /// Waits until the panel is on screen again (mapped, and its page
    /// visible), and switches to it.
    fn wait_panel_shown(&self) -> Result<Window> {
        let panel = x11::wait_window("the panel", UI_TIMEOUT, |w| w.name.as_deref() == Some(PANEL_TITLE))?;
        self.panel.switch_to_window(&self.panel_handle)?;
        self.panel.wait_script(r#"return document.visibilityState === "visible";"#, UI_TIMEOUT)?;
        Ok(panel)
    }

    pub(crate) fn stop(self) -> Result<()> {
        let _ = self.panel.delete();
        self.driver.stop()?;
        crate::common::wait_no_app()
    }
}

/// The model's script for "buy the laptop" (held steps wait for
/// `ModelServer::release`): look, click Buy (held), then end (held).
fn buy_script(shop: &str) -> Vec<Turn> {
    vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({ "url": shop }))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_click",
            json!({ "selector": "#buy-now", "_reasoningForCall": "Người dùng muốn mua ngay" }),
        )])
        .held(),
        Turn::text("Đã dừng: bạn chưa đồng ý mua.").held(),
    ]
}

#[test]
fn clicking_a_notification_opens_the_panel_on_what_waits() -> Result<()> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let site = crate::common::fixtures::FixtureServer::start();
    let model = ModelServer::start(buy_script(&site.url("shop-vn.html")));
    let monitor = NotificationMonitor::start()?;
    let env = AppEnv::new()?;
    let app = App::with_model(&env, "notify", &model, &[])?;

    // The user sends a task and puts the panel away while the agent works.
    app.panel.send_task("Mua laptop này cho tôi", UI_TIMEOUT)?;
    app.close_panel()?;
    // The first close says where Halley went.
    monitor.wait_for(UI_TIMEOUT, |n| n.summary == "Halley is running in the tray")?;
    dunst_close_all()?;

    // The purchase waits for approval: its dialog opens, and a notification
    // says so since the panel is hidden.
    model.release();
    let note = monitor.wait_for(RUN_TIMEOUT, |n| n.summary == "Halley asks before it acts")?;
    // The tool in words (the panel's), never its name.
    assert!(note.body.starts_with("“Click on the page” on 127.0.0.1"), "{note:?}");
    assert!(!note.body.contains("browser_click"), "{note:?}");
    let dialog = x11::wait_window("the confirm dialog", RUN_TIMEOUT, |w| w.name.as_deref() == Some(CONFIRM_TITLE))?;
    // The user closes the dialog unanswered: the question still waits.
    x11::request_close(&dialog.id)?;
    wait_no_window(CONFIRM_TITLE, UI_TIMEOUT)?;
    assert_eq!(x11::map_state(&app.panel_window()?.id)?, "IsUnMapped");

    // Clicking the notification opens the panel and the dialog again, in front.
    click_notification()?;
    app.wait_panel_shown().context("the notification click did not show the panel")?;
    x11::wait_window("the confirm dialog again", UI_TIMEOUT, |w| w.name.as_deref() == Some(CONFIRM_TITLE))
        .context("the notification click did not open the waiting confirmation")?;
    let known = vec![app.panel_handle.clone()];
    app.panel.wait_new_window(&known, UI_TIMEOUT)?;
    app.panel.wait_script("return document.hasFocus();", UI_TIMEOUT).context("the dialog does not have the focus")?;
    app.panel.wait_text("#headline", UI_TIMEOUT, |t| t.contains("Mua ngay"))?;
    // Where the order goes is in the folded technical details.
    let summary = app.panel.execute(r#"return document.querySelector(".dialog-body").textContent;"#, &[])?;
    assert!(summary.as_str().is_some_and(|s| s.contains("/checkout")), "{summary}");
    let deny = app.panel.wait_visible("#deny", UI_TIMEOUT)?;
    if let Err(e) = app.panel.click(&deny)
        && !format!("{e:#}").contains("no such window")
    {
        return Err(e);
    }
    wait_no_window(CONFIRM_TITLE, UI_TIMEOUT)?;
    app.panel.switch_to_window(&app.panel_handle)?;
    app.panel.wait_count(r#"#timeline .call[data-tool="browser_click"][data-status="error"]"#, 1, RUN_TIMEOUT)?;
    assert_eq!(site.hits("checkout"), 0, "a denied purchase reached the shop");

    // The run ends while the panel is closed: a click on that notification
    // opens the panel on the answer.
    app.close_panel()?;
    dunst_close_all()?;
    model.release();
    // Which task: the conversation's title, the person's words.
    monitor.wait_for(RUN_TIMEOUT, |n| n.summary == "Halley finished the task: «Mua laptop này cho tôi»")?;
    click_notification()?;
    app.wait_panel_shown().context("the notification click did not show the panel")?;
    app.panel.wait_text(".msg.assistant:last-of-type", UI_TIMEOUT, |t| t.contains("chưa đồng ý"))?;
    app.stop()
}

#[test]
fn the_tray_menu_opens_the_panel_and_pauses_the_agent() -> Result<()> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let watcher = StatusNotifierWatcher::start()?;
    let model = ModelServer::start(vec![Turn::text("Chào bạn, tôi làm tiếp đây.")]);
    let env = AppEnv::new()?;
    let app = App::with_model(&env, "tray", &model, &[])?;

    // The item registers with the tray host, with the documented menu.
    let menu = watcher.wait_item(UI_TIMEOUT)?;
    let entries = menu.entries()?;
    let labels: Vec<(&str, &str)> = entries.iter().map(|e| (e.label.as_str(), e.kind.as_str())).collect();
    assert_eq!(
        labels,
        [
            ("Open panel", "standard"),
            ("Watches", "standard"),
            ("Pause agent", "standard"),
            ("", "separator"),
            ("Quit", "standard")
        ],
        "{entries:?}"
    );
    assert_eq!(menu.entry("Pause agent")?.toggle_state, Some(0));

    // Open panel: the closed panel comes back.
    app.close_panel()?;
    menu.click("Open panel")?;
    app.wait_panel_shown().context("\"Open panel\" did not show the panel")?;
    // Watches: the panel, on its watches view.
    app.close_panel()?;
    menu.click("Watches")?;
    app.wait_panel_shown().context("\"Watches\" did not show the panel")?;
    app.panel.wait_visible("#watches", UI_TIMEOUT)?;
    let back = app.panel.wait_visible("#watches [data-testid=back-to-chat]", UI_TIMEOUT)?;
    app.panel.click(&back)?;

    // Pause agent: checked, the panel says so, and a task is refused
    // without reaching the model.
    menu.click("Pause agent")?;
    menu.wait_toggle("Pause agent", 1, UI_TIMEOUT)?;
    app.panel.wait_visible(".banner-paused", UI_TIMEOUT)?;
    app.panel.send_task("Xin chào", UI_TIMEOUT)?;
    let refused = app.panel.wait_text(".msg.error", UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(refused.contains("paused"), "{refused}");
    assert_eq!(model.request_count(), 0, "a task ran while the agent was paused");

    // Resumed from the banner's button (#43 item 5): the tray follows, and
    // the next task runs.
    let resume = app.panel.wait_visible(".banner-paused #resume-agent", UI_TIMEOUT)?;
    app.panel.click(&resume)?;
    menu.wait_toggle("Pause agent", 0, UI_TIMEOUT)?;
    app.panel.wait_script(r#"return document.querySelector(".banner-paused") === null;"#, UI_TIMEOUT)?;
    app.panel.send_task("Xin chào", UI_TIMEOUT)?;
    app.panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("làm tiếp"))?;
    assert_eq!(model.request_count(), 1);
    app.stop()
}

#[test]
fn quit_in_the_tray_menu_ends_the_app_and_its_browser() -> Result<()> {
    if let Some(why) = skip_reason(false)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let watcher = StatusNotifierWatcher::start()?;
    let env = AppEnv::new()?;
    let mut app = launch_direct(&env.vars()?, "quit")?;
    // The panel and a visible browser beside it.
    x11::wait_window("the panel", UI_TIMEOUT, |w| w.name.as_deref() == Some(PANEL_TITLE))?;
    x11::wait_window("Chromium", UI_TIMEOUT, is_chromium)?;
    let family = Family::of(app.pid()?)?;
    watcher.wait_item(UI_TIMEOUT)?.click("Quit")?;
    let status = app.wait_timeout(EXIT_TIMEOUT).context("Quit did not end the app")?;
    assert!(status.success(), "the app did not exit cleanly on Quit: {status}");
    assert_all_gone(&family, &env.data_dir())
}

#[test]
fn a_resized_and_moved_panel_is_remembered_and_the_browser_docks_beside_it() -> Result<()> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let env = AppEnv::new()?;
    let layout = env.data_dir().join("desktop.json");
    // A visible browser: the app starts it beside the panel it docks.
    let visible = [("HALLEY_HEADLESS", "0")];
    let app = App::start(&env, "dock", &visible)?;
    let panel = x11::wait_window("the panel", UI_TIMEOUT, |w| w.name.as_deref() == Some(PANEL_TITLE))?;
    assert_eq!(panel.rect, Rect { x: 1500, y: 0, width: 420, height: 1080 }, "not docked right, 420 wide");
    wait_chromium_at(Rect { x: 0, y: 0, width: 1500, height: 1080 })?;

    // The user drags the panel's left edge: 600 wide, still on the right.
    app.panel.set_window_rect(1320, 0, 600, 1080)?;
    wait_layout(&layout, "right", 600.0)?;
    wait_chromium_at(Rect { x: 0, y: 0, width: 1320, height: 1080 })?;
    // Then drags it to the left edge: the browser moves to its right.
    app.panel.set_window_rect(0, 0, 600, 1080)?;
    wait_layout(&layout, "left", 600.0)?;
    wait_chromium_at(Rect { x: 600, y: 0, width: 1320, height: 1080 })?;
    app.stop()?;

    // The next start docks it where the user left it.
    let app = App::start(&env, "dock-again", &visible)?;
    let panel = x11::wait_window("the panel", UI_TIMEOUT, |w| w.name.as_deref() == Some(PANEL_TITLE))?;
    assert_eq!(panel.rect, Rect { x: 0, y: 0, width: 600, height: 1080 }, "the remembered place was not used");
    assert_eq!(app.panel.window_rect()?, (0, 0, 600, 1080));
    wait_chromium_at(Rect { x: 600, y: 0, width: 1320, height: 1080 })?;
    app.stop()
}

#[test]
fn make_run_opens_the_panel_beside_a_visible_chromium() -> Result<()> {
    if let Some(why) = skip_reason(false)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let artifacts = artifacts_dir(app_bin())?;
    // `make run` execs the binary with the user's environment: no data dir
    // variable (the OS data dir, here in the temp XDG_DATA_HOME), a visible browser.
    let env = AppEnv::new()?;
    let mut vars = env.vars()?;
    vars.retain(|(k, _)| k != "HALLEY_DATA_DIR");
    let data_dir = env.dir.path().join("home/.local/share/halley");
    let mut app = launch_direct(&vars, "make-run")?;

    // Docked: at the right edge, full height.
    let panel = x11::wait_window("the panel docked at the right edge", UI_TIMEOUT, |w| {
        w.name.as_deref() == Some(PANEL_TITLE)
            && w.rect.right() == SCREEN.right()
            && (w.rect.y, w.rect.height) == (0, SCREEN.height)
    })?;
    // The browser gets the rest of the screen, on the panel's left.
    let rest = Rect { x: 0, y: 0, width: panel.rect.x, height: SCREEN.height };
    let chromium = wait_chromium_at(rest)?;
    eprintln!("panel {:?}, chromium {:?}", panel.rect, chromium.rect);
    assert!(!chromium.rect.overlaps(&panel.rect), "{:?} overlaps {:?}", chromium.rect, panel.rect);
    // The data (and the browser's profile) are in the OS data dir.
    assert!(data_dir.join("browser-profile").is_dir(), "no browser profile in {}", data_dir.display());

    // What the user sees: the screen is not blank.
    let shot = artifacts.join("e2e-shell-make-run.png");
    let deadline = Instant::now() + UI_TIMEOUT;
    let deviation = loop {
        run("import", &["-window", "root", path_str(&shot)?])?;
        let deviation = image_deviation(&shot)?;
        if deviation > NOT_BLANK || Instant::now() >= deadline {
            break deviation;
        }
        sleep(Duration::from_millis(500));
    };
    eprintln!("screenshot: {} (stddev {deviation:.3})", shot.display());
    assert!(deviation > NOT_BLANK, "the screen is blank (stddev {deviation:.4}); see {}", shot.display());

    // One browser window: Chromium opened no start window of its own on top
    // of the docked one (given a moment to do so).
    sleep(Duration::from_secs(1));
    let browsers: Vec<Window> =
        x11::top_level_windows()?.into_iter().filter(|w| is_chromium(w) && x11::is_viewable(&w.id)).collect();
    assert_eq!(browsers.len(), 1, "more than the docked browser window: {browsers:?}");

    // SIGTERM (a logout): a clean exit, the browser gone with the app.
    let pid = app.pid()?;
    let family = Family::of(pid)?;
    run("kill", &["-TERM", &pid.to_string()])?;
    let status = app.wait_timeout(EXIT_TIMEOUT).context("SIGTERM did not end the app")?;
    // A clean exit through the exit path, with the status a shell gives SIGTERM.
    assert_eq!(status.code(), Some(0), "the app did not exit cleanly on SIGTERM: {status}");
    assert_all_gone(&family, &data_dir)
}

/// Starts the app binary directly (no WebDriver) with `vars` added to the
/// environment, less `HALLEY_HEADLESS` and any `HALLEY_DATA_DIR` not in
/// `vars`; its output goes to an artifact log.
fn launch_direct(vars: &[(String, PathBuf)], name: &str) -> Result<KillOnDrop> {
    crate::common::wait_no_app()?;
    let log = File::create(artifacts_dir(app_bin())?.join(format!("e2e-shell-{name}.log")))?;
    let mut cmd = Command::new(app_bin());
    cmd.env_remove("HALLEY_HEADLESS")
        .env_remove("HALLEY_DATA_DIR")
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    Ok(KillOnDrop(Some(cmd.spawn().context("starting halley-desktop")?)))
}

/// Chromium's browser window (not its hidden helper windows).
fn is_chromium(w: &Window) -> bool {
    w.class.iter().any(|c| c.eq_ignore_ascii_case("chromium")) && w.rect.width > 100 && w.rect.height > 100
}

/// Waits until Chromium's browser window is on screen at `rect`.
fn wait_chromium_at(rect: Rect) -> Result<Window> {
    x11::wait_window(&format!("Chromium at {rect:?}"), UI_TIMEOUT, |w| is_chromium(w) && w.rect == rect)
}

/// Waits until desktop.json says the panel is on `side`, `width` wide.
fn wait_layout(path: &Path, side: &str, width: f64) -> Result<Value> {
    let deadline = Instant::now() + UI_TIMEOUT;
    loop {
        let saved: Value =
            std::fs::read(path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or(Value::Null);
        if saved["side"] == side && saved["width"].as_f64() == Some(width) {
            return Ok(saved);
        }
        if Instant::now() >= deadline {
            bail!("{} says {saved}, not side {side} width {width}", path.display());
        }
        sleep(Duration::from_millis(100));
    }
}

/// The app's processes while it runs: all of them, and the browser it
/// started (its direct `chromium` child).
struct Family {
    all: Vec<u32>,
    browser: Vec<u32>,
}

impl Family {
    fn of(app: u32) -> Result<Family> {
        let all = proc::descendants_of(app);
        let browser: Vec<u32> = all
            .iter()
            .copied()
            .filter(|p| proc::parent_of(*p) == Some(app) && proc::exe_name(*p).as_deref() == Some("chromium"))
            .collect();
        if browser.is_empty() {
            bail!("no Chromium started by the app among {all:?}");
        }
        Ok(Family { all, browser })
    }
}

/// After the app's exit: none of its processes runs any more, none uses its
/// data dir (the browser's profile), and the browser it started was waited
/// for and reaped by the app itself (no trace of it in /proc, not even a
/// zombie). Helpers that exit after the app (WebKit's, Chromium's zygotes)
/// are orphans of init, which reaps them on a desktop; the test container's
/// PID 1 does not, so such zombies are listed but allowed.
fn assert_all_gone(family: &Family, data_dir: &Path) -> Result<()> {
    let alive = proc::wait_gone(&family.all, EXIT_TIMEOUT);
    assert!(alive.is_empty(), "processes left behind: {alive:?} (of {:?})", family.all);
    let unreaped: Vec<u32> = family.browser.iter().copied().filter(|p| proc::stat_fields(*p).is_some()).collect();
    assert!(unreaped.is_empty(), "the app did not reap its browser: {unreaped:?} still in /proc");
    let orphans: Vec<String> = family
        .all
        .iter()
        .filter_map(|p| {
            let f = proc::stat_fields(*p)?;
            Some(format!("{p} {} (state {}, parent {})", proc::comm(*p).unwrap_or_default(), f[0], f[1]))
        })
        .collect();
    let held: Vec<&String> = orphans.iter().filter(|o| !o.ends_with("parent 1)")).collect();
    assert!(held.is_empty(), "exited processes not reaped by anyone: {held:?}");
    if !orphans.is_empty() {
        eprintln!("exited helpers left to init: {orphans:?}");
    }
    let needle = path_str(data_dir)?;
    let users: Vec<u32> = proc::all_pids()
        .into_iter()
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect();
    assert!(users.is_empty(), "processes still using {needle}: {users:?}");
    Ok(())
}

/// Closes every notification on screen.
fn dunst_close_all() -> Result<()> {
    run("dunstctl", &["close-all"]).map(drop)
}

/// Clicks the notification on screen the way the user does: dunst's default
/// action (its left click), which dunst reports to the app as
/// `ActionInvoked(id, "default")`.
fn click_notification() -> Result<()> {
    let deadline = Instant::now() + UI_TIMEOUT;
    loop {
        let shown = run("dunstctl", &["count", "displayed"])?;
        if shown.trim() == "1" {
            break;
        }
        if Instant::now() >= deadline {
            bail!("dunst shows {} notifications, not 1", shown.trim());
        }
        sleep(Duration::from_millis(100));
    }
    run("dunstctl", &["action", "0"]).map(drop)
}

/// Waits until no viewable window is titled `title`.
fn wait_no_window(title: &str, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let open =
            x11::top_level_windows()?.into_iter().any(|w| w.name.as_deref() == Some(title) && x11::is_viewable(&w.id));
        if !open {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!("the {title:?} window is still open after {timeout:?}");
        }
        sleep(Duration::from_millis(100));
    }
}
