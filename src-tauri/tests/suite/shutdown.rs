//! A signal does what Quit does: SIGTERM or SIGHUP to the desktop app while
//! a task's browser call is in flight (a page the fixture server holds for
//! 30 s) saves the tabs and the panel's layout (moved just before, so the
//! settling that saves it on its own has not run yet), ends the run
//! interrupted and resumable (paused, stop reason `interrupted`, its call's
//! placeholder kept), stops the local API, closes and reaps the browser, and
//! exits 0. The app runs below tauri-driver, so a small wrapper reports its
//! exit status.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::common::driver::{AppEnv, TauriDriver, free_port};
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::{APP, artifacts_dir, path_str, proc};

use super::e2e_shell::{RUN_TIMEOUT, UI_TIMEOUT, skip_reason};

const EXIT_TIMEOUT: Duration = Duration::from_secs(20);

#[test]
fn sigterm_saves_the_tabs_and_layout_interrupts_the_run_and_exits_0() -> Result<()> {
    quit_by_signal("TERM")
}

#[test]
fn sighup_does_what_quit_does_too() -> Result<()> {
    quit_by_signal("HUP")
}

/// A second signal while the app closes ends it at once, with 128 + the
/// signal's number: the close is held up here by a client's event stream on
/// the local API (its stop gives requests in flight 2 s).
#[test]
fn a_second_signal_during_the_close_ends_the_app_at_once() -> Result<()> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    crate::common::wait_no_app()?;
    let env = AppEnv::new()?;
    let api_port = free_port()?;
    let mut vars = env.vars()?;
    vars.push(("HALLEY_API_PORT".into(), PathBuf::from(api_port.to_string())));
    let (wrapper, status_file) = exit_status_wrapper(&env)?;
    let log = artifacts_dir(app_bin())?.join("shutdown-second-signal-driver.log");
    let mut driver = TauriDriver::start(&vars, &log)?;
    let panel = driver.launch(&wrapper, &[]).context("launching the app through tauri-driver")?;
    panel.wait_script(r#"return document.body.dataset.ready === "1";"#, UI_TIMEOUT)?;
    let app = driver.app_pid(APP)?.context("no halley-desktop process below tauri-driver")?;
    let family = proc::descendants_of(app);

    // A client listening for its calls: a stream that never ends by itself.
    let rt = halley::runtime()?;
    let token = rt.block_on(async {
        let secrets = halley::secrets::SecretStore::os()?;
        halley::secrets::token::get_or_create(&secrets, &halley::DataDir::at(env.data_dir())).await
    })?;
    let mut stream = wait_until("the local API to listen", UI_TIMEOUT, || {
        Ok(std::net::TcpStream::connect(("127.0.0.1", api_port)).ok())
    })?;
    use std::io::{Read, Write};
    write!(
        stream,
        "GET /api/v1/clients/probe/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\r\n",
        token.expose()
    )?;
    let mut head = [0u8; 64];
    let n = stream.read(&mut head)?;
    let head = String::from_utf8_lossy(&head[..n]).into_owned();
    assert!(head.starts_with("HTTP/1.1 200"), "the event stream was not opened: {head}");

    let first = Instant::now();
    run_ok(Command::new("kill").args(["-s", "TERM", &app.to_string()]))?;
    std::thread::sleep(Duration::from_millis(300));
    assert!(proc::stat_fields(app).is_some(), "the app ended before the second signal: nothing held its close");
    run_ok(Command::new("kill").args(["-s", "INT", &app.to_string()]))?;
    let status = wait_until("the app's exit status", EXIT_TIMEOUT, || {
        Ok(std::fs::read_to_string(&status_file).ok().filter(|s| s.ends_with('\n')))
    })?;
    let took = first.elapsed();
    assert_eq!(status.trim(), "130", "not ended by the second signal (SIGINT: 128 + 2)");
    assert!(took < Duration::from_millis(1900), "the second signal waited for the close: {took:?}");
    let left = proc::wait_gone(&family, EXIT_TIMEOUT);
    assert!(left.is_empty(), "still running after the second signal: {left:?}");
    let _ = panel.delete();
    driver.stop()
}

/// A script that runs the app with its arguments and writes its exit status
/// to a file: tauri-driver starts it instead of the app.
fn exit_status_wrapper(env: &AppEnv) -> Result<(PathBuf, PathBuf)> {
    let status_file = env.dir.path().join("exit-status");
    let wrapper = env.dir.path().join("halley-desktop-wrapper");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\n'{}' \"$@\"\necho $? > '{}'\n", path_str(app_bin())?, path_str(&status_file)?),
    )?;
    run_ok(Command::new("chmod").args(["+x", path_str(&wrapper)?]))?;
    Ok((wrapper, status_file))
}

fn app_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_halley-desktop"))
}

fn quit_by_signal(signal: &str) -> Result<()> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    crate::common::wait_no_app()?;
    let site = FixtureServer::start();
    let kept_page = site.url("shop-vn.html");
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": kept_page}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_new_tab", json!({"url": site.url("slow?ms=30000")}))]),
        Turn::text("never reached"),
    ]);
    let env = AppEnv::new()?;
    let data_dir = env.data_dir();
    let api_port = free_port()?;
    let mut vars = env.vars()?;
    vars.push(("OPENAI_BASE_URL".into(), PathBuf::from(model.base_url())));
    vars.push(("HALLEY_MODEL".into(), PathBuf::from("m")));
    vars.push(("OPENAI_API_KEY".into(), PathBuf::new()));
    vars.push(("HALLEY_API_PORT".into(), PathBuf::from(api_port.to_string())));

    let (wrapper, status_file) = exit_status_wrapper(&env)?;

    let artifacts = artifacts_dir(app_bin())?;
    let log = artifacts.join(format!("shutdown-sig{}-driver.log", signal.to_lowercase()));
    let mut driver = TauriDriver::start(&vars, &log)?;
    let panel = driver.launch(&wrapper, &[]).context("launching the app through tauri-driver")?;
    panel.wait_script(r#"return document.body.dataset.ready === "1";"#, UI_TIMEOUT)?;

    panel.send_task("open the shop, then the slow page", UI_TIMEOUT)?;
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
    wait_until("the local API to listen", UI_TIMEOUT, || {
        Ok(std::net::TcpStream::connect(("127.0.0.1", api_port)).is_ok().then_some(()))
    })?;

    // The person drags the panel to the left edge, 600 wide, and the signal
    // comes before the move settles (the settling saves it 400 ms later).
    let layout = data_dir.join("desktop.json");
    let before = std::fs::read_to_string(&layout).unwrap_or_default();
    panel.set_window_rect(0, 0, 600, 1080)?;
    let sent = Command::new("kill").args(["-s", signal, &app.to_string()]).status()?;
    assert!(sent.success(), "kill -s {signal} {app} failed");

    // Exit 0, as Quit in the tray.
    let status = wait_until("the app's exit status", EXIT_TIMEOUT, || {
        Ok(std::fs::read_to_string(&status_file).ok().filter(|s| s.ends_with('\n')))
    })?;
    assert_eq!(status.trim(), "0", "halley-desktop did not exit 0 on SIG{signal}");
    // Nothing of it left: the browser reaped, nothing uses the data dir.
    let left = proc::wait_gone(&family, EXIT_TIMEOUT);
    assert!(left.is_empty(), "still running after SIG{signal}: {left:?}");
    let unreaped: Vec<u32> = browser.iter().copied().filter(|p| proc::stat_fields(*p).is_some()).collect();
    assert!(unreaped.is_empty(), "the app did not reap its browser: {unreaped:?}");
    let needle = path_str(&data_dir)?.to_owned();
    let users: Vec<u32> = proc::all_pids()
        .into_iter()
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(&needle))
        })
        .collect();
    assert!(users.is_empty(), "still using {needle}: {users:?}");
    assert!(std::net::TcpStream::connect(("127.0.0.1", api_port)).is_err(), "the local API still answers");

    // The layout as the person left it.
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(&layout)
            .with_context(|| format!("no {} after the signal (before: {before:?})", layout.display()))?,
    )?;
    assert_eq!(saved["side"], json!("left"), "{saved}");
    assert_eq!(saved["width"], json!(600.0), "{saved}");

    // The tabs kept for the next start: the shop's page.
    let tabs: Value = serde_json::from_str(&std::fs::read_to_string(data_dir.join("tabs.json"))?)?;
    let urls: Vec<&str> = tabs["tabs"].as_array().into_iter().flatten().filter_map(|t| t["url"].as_str()).collect();
    assert!(urls.contains(&kept_page.as_str()), "the shop's tab was not kept: {tabs}");

    // The run: interrupted, resumable; the call in flight kept its
    // placeholder; the model was not asked again.
    let rt = halley::runtime()?;
    let (run_status, reason, calls) = rt.block_on(async {
        let store = halley::store::Store::open(&data_dir.join("halley.db")).await?;
        let runs = store.runs().list(10).await?;
        let run = runs.first().context("no run recorded")?.clone();
        let steps = store.steps().for_run(&run.id).await?;
        store.close().await;
        anyhow::Ok((run.status, run.stop_reason, steps.len()))
    })?;
    assert_eq!(run_status, halley::store::runs::RunStatus::Paused, "the run was not left resumable");
    assert_eq!(reason.as_deref(), Some("interrupted"));
    assert!(calls >= 2, "the run's steps are missing: {calls}");
    assert_eq!(model.request_count(), 2, "the model was asked again after SIG{signal}");
    eprintln!("SIG{signal}: exit {}, layout {saved}, tabs {urls:?}, run {run_status:?} ({reason:?})", status.trim());

    let _ = panel.delete();
    driver.stop()
}

fn run_ok(cmd: &mut Command) -> Result<()> {
    let status = cmd.status()?;
    if !status.success() {
        bail!("{cmd:?}: {status}");
    }
    Ok(())
}

fn wait_until<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Result<Option<T>>) -> Result<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f()? {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            bail!("timed out after {timeout:?} waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
