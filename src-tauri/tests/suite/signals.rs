//! Signals close the app's browser: SIGTERM, SIGINT or SIGHUP to the
//! desktop app while a task's browser call is in flight (a page the
//! fixture server holds for 30 s) ends the app through its exit path, which
//! stops the run, closes the managed Chromium and reaps it: none of the
//! browser's processes is left, none uses the data dir. SIGKILL leaves the
//! app no exit path: its browser dies with it (the parent-death signal
//! Halley gives it), nothing of it left a second later.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::common::driver::{AppEnv, TauriDriver, tauri_driver_path};
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::{APP, artifacts_dir, no_display, path_str, proc};

const UI_TIMEOUT: Duration = Duration::from_secs(30);
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);

#[test]
fn sigterm_mid_call_closes_the_apps_browser() -> Result<()> {
    signal_mid_call("TERM")
}

#[test]
fn sigint_mid_call_closes_the_apps_browser() -> Result<()> {
    signal_mid_call("INT")
}

#[test]
fn sighup_mid_call_closes_the_apps_browser() -> Result<()> {
    signal_mid_call("HUP")
}

#[test]
fn sigkill_mid_call_takes_the_apps_browser_with_it() -> Result<()> {
    signal_mid_call("KILL")
}

/// What the issue promises after SIGKILL: no Chromium of the profile a
/// second later.
const KILL_GONE_WITHIN: Duration = Duration::from_secs(1);

fn app_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_halley-desktop"))
}

/// Why this test cannot run here, if it cannot. Inside the test session a
/// missing tauri-driver or browser is an error instead.
fn skip_reason() -> Result<Option<String>> {
    if let Some(why) = no_display() {
        return Ok(Some(why.to_owned()));
    }
    let in_session = std::env::var_os("HALLEY_TEST_SESSION").is_some();
    if let Err(e) = tauri_driver_path() {
        if in_session {
            return Err(e);
        }
        return Ok(Some(format!("{e:#}")));
    }
    if let Err(e) = halley::browser::find_chromium(None) {
        if in_session {
            bail!("the test session has no browser: {}", e.message());
        }
        return Ok(Some(e.message().to_owned()));
    }
    Ok(None)
}

fn signal_mid_call(signal: &str) -> Result<()> {
    if let Some(why) = skip_reason()? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("slow?ms=30000")}))]),
        Turn::text("never reached"),
    ]);
    let env = AppEnv::new()?;
    let mut vars = env.vars()?;
    vars.push(("OPENAI_BASE_URL".into(), PathBuf::from(model.base_url())));
    vars.push(("HALLEY_MODEL".into(), PathBuf::from("m")));
    vars.push(("OPENAI_API_KEY".into(), PathBuf::new()));
    let log = artifacts_dir(app_bin())?.join(format!("signals-sig{}-driver.log", signal.to_lowercase()));
    let mut driver = TauriDriver::start(&vars, &log)?;
    let panel = driver.launch(app_bin(), &[]).context("launching the app through tauri-driver")?;
    panel.wait_script(r#"return document.body.dataset.ready === "1";"#, UI_TIMEOUT)?;

    panel.send_task("open the slow page", UI_TIMEOUT)?;
    site.wait_for("slow", RUN_TIMEOUT).context("the browser never asked for the slow page")?;
    let app = driver.app_pid(APP)?.context("no halley-desktop process below tauri-driver")?;
    let family = proc::descendants_of(app);
    let browser: Vec<u32> = family
        .iter()
        .copied()
        .filter(|p| proc::parent_of(*p) == Some(app) && proc::exe_name(*p).as_deref() == Some("chromium"))
        .collect();
    if browser.is_empty() {
        bail!("no Chromium started by the app among {family:?}");
    }
    let renderers = family.iter().filter(|p| cmdline(**p).contains("--type=renderer")).count();
    assert!(renderers > 0, "the browser has no renderer yet: {family:?}");

    let needle = path_str(&env.data_dir())?.to_owned();
    let sent = Command::new("kill").args(["-s", signal, &app.to_string()]).status()?;
    assert!(sent.success(), "kill -s {signal} {app} failed");
    let alive = proc::wait_gone(&[app], EXIT_TIMEOUT);
    assert!(alive.is_empty(), "halley-desktop did not exit within {EXIT_TIMEOUT:?} of SIG{signal}");
    if signal == "KILL" {
        // No exit path ran: the kernel ended the browser with the app.
        let chromium: Vec<u32> = family.iter().copied().filter(|p| cmdline(*p).contains(&needle)).collect();
        let left = proc::wait_gone(&chromium, KILL_GONE_WITHIN);
        assert!(left.is_empty(), "the browser outlived the killed app: {}", describe(&left));
        let left = proc::wait_gone(&family, EXIT_TIMEOUT);
        assert!(left.is_empty(), "still running after SIGKILL: {}", describe(&left));
        let users: Vec<u32> =
            proc::all_pids().into_iter().filter(|p| proc::is_running(*p) && cmdline(*p).contains(&needle)).collect();
        assert!(users.is_empty(), "still using {needle}: {}", describe(&users));
        let _ = panel.delete();
        return driver.stop();
    }

    // Everything below the app is gone: nothing runs, and no exited process
    // waits for a live parent to reap it. (The test container's PID 1 does
    // not reap the orphans it adopts, as init does on a desktop: those are
    // allowed.) The browser itself was reaped by the app.
    let left = proc::wait_gone(&family, EXIT_TIMEOUT);
    assert!(left.is_empty(), "still running after SIG{signal}: {}", describe(&left));
    let deadline = Instant::now() + EXIT_TIMEOUT;
    let held = loop {
        let held: Vec<u32> = family.iter().copied().filter(|p| held_zombie(*p)).collect();
        if held.is_empty() || Instant::now() >= deadline {
            break held;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(held.is_empty(), "exited but not reaped: {}", describe(&held));
    let unreaped: Vec<u32> = browser.iter().copied().filter(|p| proc::stat_fields(*p).is_some()).collect();
    assert!(unreaped.is_empty(), "the app did not reap its browser: {}", describe(&unreaped));
    let users: Vec<u32> = proc::all_pids().into_iter().filter(|p| cmdline(*p).contains(&needle)).collect();
    assert!(users.is_empty(), "still using {needle}: {}", describe(&users));
    assert_eq!(model.request_count(), 1, "the run went on after SIG{signal}");

    let _ = panel.delete();
    driver.stop()
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .unwrap_or_default()
}

/// A zombie whose parent is alive and not init.
fn held_zombie(pid: u32) -> bool {
    proc::stat_fields(pid).is_some_and(|f| f.first().is_some_and(|s| s == "Z") && f.get(1).is_some_and(|pp| pp != "1"))
}

fn describe(pids: &[u32]) -> String {
    let about: Vec<String> = pids
        .iter()
        .map(|p| {
            let f = proc::stat_fields(*p).unwrap_or_default();
            let state = f.first().cloned().unwrap_or_default();
            let parent = f.get(1).cloned().unwrap_or_default();
            format!("{p} [{state}] parent {parent}: {}", cmdline(*p))
        })
        .collect();
    about.join("\n")
}
