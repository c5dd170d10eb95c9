//! The supervisor: a killed browser is relaunched with its tabs, the call
//! in flight fails clearly, and nothing is left running.

use std::time::{Duration, Instant};

use halley::core::BrowserSettings;
use halley::tools::Registry;
use halley::{CallContext, FrontEnd};
use halley::{Core, DataDir};
use serde_json::json;

use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;

fn alive(pid: u32) -> bool {
    // A zombie still has a /proc entry: look at its state too.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

async fn headless_core(dir: &std::path::Path) -> Core {
    let settings = BrowserSettings { headless: true, ..BrowserSettings::default() };
    halley::host::open_core_full(DataDir::at(dir.join("data")), Registry::builtin().unwrap(), settings).await.unwrap()
}

/// The context of a call made from the command line, with nobody to ask.
fn cli() -> CallContext {
    CallContext::new(FrontEnd::Cli)
}

fn kill(pid: u32) {
    let ok = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap().success();
    assert!(ok, "kill {pid}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_browser_is_relaunched_with_its_tabs_and_nothing_is_replayed() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let core = headless_core(tmp.path()).await;

    let r = core.call_tool(&cli(), "browser_navigate", json!({"url": site.url("shop-vn.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cli(), "browser_new_tab", json!({"url": site.url("form.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let first = core.browser().pid().await.unwrap();

    // A call in flight when the browser dies fails with browser_crashed.
    let cx = cli();
    let (in_flight, ()) = tokio::join!(
        core.call_tool(&cx, "browser_wait", json!({"until": "selector", "selector": "#never", "timeout_ms": 5000})),
        async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            kill(first);
        }
    );
    assert_eq!(in_flight.error.as_ref().map(|e| e.code.as_str()), Some("browser_crashed"), "{in_flight:?}");
    assert!(in_flight.error.unwrap().message.contains("not repeated"));

    // The next call relaunches and succeeds, with both tabs back.
    let started = Instant::now();
    let tabs = core.call_tool(&cli(), "browser_list_tabs", json!({})).await;
    assert!(tabs.is_ok(), "{tabs:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "relaunch took {:?}", started.elapsed());
    let listed: Vec<(String, String)> = tabs.data["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].as_str().unwrap().to_owned(), t["url"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(
        listed,
        vec![("tab-1".to_owned(), site.url("shop-vn.html")), ("tab-2".to_owned(), site.url("form.html"))]
    );
    assert_eq!(core.browser().launches().await, 2);
    assert!(!alive(first), "the killed browser was reaped");

    // Its pages work again (a reopened tab may still be loading: wait for it).
    let loaded = core
        .call_tool(&cli(), "browser_wait", json!({"until": "selector", "selector": "h1", "timeout_ms": 15000}))
        .await;
    assert!(loaded.is_ok(), "{loaded:?}");
    let text = core.call_tool(&cli(), "browser_read_text", json!({"selector": "h1"})).await;
    assert!(text.data["text"].as_str().unwrap_or_default().contains("Đơn xin thị thực"), "{text:?}");
    let second = core.browser().pid().await.unwrap();
    assert_ne!(first, second);

    core.close().await;
    assert!(!alive(second), "closing leaves no browser process behind");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_browser_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let settings = BrowserSettings {
        chromium: Some(tmp.path().join("no-such-chrome")),
        headless: true,
        ..BrowserSettings::default()
    };
    let core =
        halley::host::open_core_full(DataDir::at(tmp.path().join("data")), Registry::builtin().unwrap(), settings)
            .await
            .unwrap();
    let r = core.call_tool(&cli(), "browser_navigate", json!({"url": "http://127.0.0.1:9/"})).await;
    let err = r.error.unwrap();
    assert_eq!(err.code.as_str(), "browser_unavailable");
    assert!(err.message.contains("no-such-chrome"), "{}", err.message);
    core.close().await;
}

/// Every process below `pid` whose command line says it is a renderer.
fn renderers_of(pid: u32) -> Vec<u32> {
    let mut family = vec![pid];
    let mut found = Vec::new();
    // A few passes pick up grandchildren (the zygote's children).
    for _ in 0..4 {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(p) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
            let Some(ppid) =
                stat.rsplit(')').next().and_then(|r| r.split_whitespace().nth(1)).and_then(|x| x.parse::<u32>().ok())
            else {
                continue;
            };
            if family.contains(&ppid) && !family.contains(&p) {
                family.push(p);
                let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                if String::from_utf8_lossy(&cmd).contains("--type=renderer") {
                    found.push(p);
                }
            }
        }
    }
    found
}

/// A headless core with the shop page open, and its browser's PID.
async fn core_on_shop(dir: &std::path::Path, site: &FixtureServer) -> (Core, u32) {
    let core = headless_core(dir).await;
    let r = core.call_tool(&cli(), "browser_navigate", json!({"url": site.url("shop-vn.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let pid = core.browser().pid().await.unwrap();
    (core, pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_tab_is_reloaded_on_the_next_call() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let (core, pid) = core_on_shop(tmp.path(), &site).await;
    let renderers = renderers_of(pid);
    assert!(!renderers.is_empty(), "no renderer found under {pid}");
    for r in renderers {
        kill(r);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The next call finds the tab reloaded, in the same browser.
    let text = core.call_tool(&cli(), "browser_read_text", json!({"selector": "h1"})).await;
    assert!(text.data["text"].as_str().unwrap_or_default().contains("Vivobook"), "{text:?}");
    assert_eq!(core.browser().launches().await, 1);
    assert_eq!(core.browser().pid().await, Some(pid));
    core.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_gets_halleys_flags_as_written() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let (core, pid) = core_on_shop(tmp.path(), &site).await;
    // Chromium rewrites its command line into one line of its switches.
    let cmd = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap()).replace('\0', " ");
    for flag in ["--no-startup-window", "--disable-background-networking", "--no-first-run", "--disable-sync"] {
        assert!(cmd.split(' ').any(|a| a == flag), "{flag} is not on the command line: {cmd}");
    }
    assert!(!cmd.contains("----"), "a flag Chromium ignores (----): {cmd}");
    core.close().await;
}

/// The browser's own host rules hold through the relay it connects by
/// (issue 27): Chromium sends names, not addresses, through SOCKS5, so
/// the relay resolves them as the browser was told to. A name mapped to
/// the fixture site loads it; a name mapped to `~NOTFOUND` fails at once,
/// named as Chromium names it, with no lookup of the real name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browsers_host_rules_hold_through_its_relay() {
    if !have_browser() {
        return;
    }
    let site = crate::common::fixtures::FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let chromium = halley::browser::find_chromium(None).unwrap();
    let wrapper = tmp.path().join("chromium");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' --host-resolver-rules=\"MAP shop.test 127.0.0.1, MAP *.gone.test ~NOTFOUND\" \"$@\"\n",
            chromium.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let settings = BrowserSettings { chromium: Some(wrapper), headless: true, ..BrowserSettings::default() };
    let core =
        halley::host::open_core_full(DataDir::at(tmp.path().join("data")), Registry::builtin().unwrap(), settings)
            .await
            .unwrap();
    let mapped = site.url("shop-vn.html").replace("127.0.0.1", "shop.test");
    let r = core.call_tool(&cli(), "browser_navigate", json!({"url": mapped})).await;
    assert!(r.is_ok(), "{r:?}");
    let text = core.call_tool(&cli(), "browser_read_text", json!({"selector": "h1"})).await;
    assert!(!text.data["text"].as_str().unwrap_or_default().is_empty(), "{text:?}");
    let began = std::time::Instant::now();
    let r = core.call_tool(&cli(), "browser_navigate", json!({"url": "http://www.gone.test/"})).await;
    let err = r.error.expect("a name mapped to ~NOTFOUND does not load");
    assert!(err.message.contains("ERR_NAME_NOT_RESOLVED"), "{}", err.message);
    assert!(began.elapsed() < std::time::Duration::from_secs(5), "not at once: {:?}", began.elapsed());
    core.close().await;
}
