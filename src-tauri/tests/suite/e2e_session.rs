//! What the desktop app keeps across a restart, and when it tells the user
//! a task finished: the managed browser's tabs come back after a restart
//! (same addresses, same order, the current one current), never a page
//! that answered a form; the setting turned off forgets them. The
//! "finished" notification is shown only when the panel is not in front.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::e2e_shell::{App, RUN_TIMEOUT, UI_TIMEOUT, skip_reason};
use crate::common::driver::AppEnv;
use crate::common::fixtures::FixtureServer;
use crate::common::webdriver::Session;

/// One op sent the way the panel sends it (`invoke("op")`), its reply.
pub(crate) fn op(s: &Session, op: &Value) -> Result<Value> {
    s.execute(
        r#"window.__halleyOp = undefined;
           window.__TAURI_INTERNALS__.invoke("op", { op: arguments[0] })
             .then((r) => { window.__halleyOp = { ok: r }; }, (e) => { window.__halleyOp = { err: String(e && e.message || JSON.stringify(e)) }; });
           return true;"#,
        std::slice::from_ref(op),
    )?;
    let answer = s.wait_for("the op's reply", RUN_TIMEOUT, |s| {
        let v = s.execute("return window.__halleyOp === undefined ? null : window.__halleyOp;", &[])?;
        Ok((!v.is_null()).then_some(v))
    })?;
    match (answer.get("ok"), answer.get("err")) {
        (Some(ok), _) => Ok(ok.clone()),
        (_, Some(err)) => bail!("op {op} failed: {err}"),
        _ => bail!("op {op}: {answer}"),
    }
}

/// A tool called directly by the panel (the user's call); its `data`.
pub(crate) fn call(s: &Session, name: &str, args: Value) -> Result<Value> {
    let reply = op(s, &json!({"type": "call_tool", "name": name, "args": args}))?;
    let result = reply.get("result").context("no result")?;
    if result.get("status") != Some(&json!("ok")) {
        bail!("{name} failed: {result}");
    }
    Ok(result.get("data").cloned().unwrap_or(Value::Null))
}

/// The open tabs as `browser_list_tabs` lists them: (address, current).
fn tabs(s: &Session) -> Result<Vec<(String, bool)>> {
    let data = call(s, "browser_list_tabs", json!({}))?;
    let tabs = data.get("tabs").and_then(Value::as_array).context("no tabs")?;
    Ok(tabs
        .iter()
        .map(|t| {
            let url = t.get("url").and_then(Value::as_str).unwrap_or_default().to_owned();
            (url, t.get("current") == Some(&Value::Bool(true)))
        })
        .collect())
}

/// The addresses `tabs.json` keeps now.
fn kept(data_dir: &Path) -> Vec<(String, bool)> {
    let Ok(bytes) = std::fs::read(data_dir.join("tabs.json")) else { return Vec::new() };
    let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    v.get("tabs")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|t| {
                    let url = t.get("url").and_then(Value::as_str).unwrap_or_default().to_owned();
                    (url, t.get("current") == Some(&Value::Bool(true)))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn wait_until<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Result<Option<T>>) -> Result<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f()? {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            bail!("timed out waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_tabs_come_back_after_a_restart_but_never_a_page_that_answered_a_form() -> Result<()> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let site = FixtureServer::start();
    let env = AppEnv::new()?;
    let app = App::start(&env, "tabs", &[])?;
    let s = &app.panel;

    // The user's browsing: a product page, a cart line sent by a page's
    // form (its answer page), a login whose form redirects, a blank tab, the
    // tabs page; then back to the product page.
    let product = site.url("shop-vn.html");
    let other = site.url("tabs.html");
    call(s, "browser_navigate", json!({"url": product}))?;
    call(s, "browser_new_tab", json!({"url": site.url("session/post-on-load.html")}))?;
    call(s, "browser_new_tab", json!({"url": site.url("session/post-on-load.html?to=login")}))?;
    call(s, "browser_new_tab", json!({"url": "about:blank"}))?;
    call(s, "browser_new_tab", json!({"url": other}))?;
    wait_until("the cart line and the login to be sent", UI_TIMEOUT, || {
        Ok((site.hits("shop/vn/cart") == 1 && site.hits("account.html") == 1).then_some(()))
    })?;
    let open = tabs(s)?;
    assert_eq!(open.len(), 5, "{open:?}");
    let product_tab = call(s, "browser_list_tabs", json!({}))?["tabs"][0]["id"].clone();
    call(s, "browser_switch_tab", json!({"tab_id": product_tab}))?;

    // While the app runs, the tabs are kept: the web pages opened by their
    // address only, the current one marked.
    let want = vec![(product.clone(), true), (other.clone(), false)];
    let data_dir = env.data_dir();
    wait_until("tabs.json to keep the two pages", UI_TIMEOUT, || Ok((kept(&data_dir) == want).then_some(())))?;
    let file = std::fs::read_to_string(data_dir.join("tabs.json"))?;
    assert!(!file.contains("cart") && !file.contains("account.html"), "{file}");
    app.stop()?;

    // Started again: the same tabs, in the same order, the product page
    // current; nothing was sent again.
    let posts = site.posts().len();
    let app = App::start(&env, "tabs-again", &[])?;
    let s = &app.panel;
    let back = wait_until("the tabs to be reopened", UI_TIMEOUT, || {
        let now = tabs(s)?;
        Ok((now.len() == 2 && now.iter().all(|(u, _)| !u.is_empty() && u != "about:blank")).then_some(now))
    })?;
    assert_eq!(back, want);
    assert_eq!(site.posts().len(), posts, "a form was sent again: {:?}", site.posts());
    assert_eq!(site.hits("shop/vn/cart"), 1);
    assert_eq!(site.hits("account.html"), 1);

    // Turned off in the settings: the kept tabs are forgotten, and the next
    // start opens none.
    let reply = op(s, &json!({"type": "get_settings"}))?;
    assert_eq!(reply["settings"].get("reopen_tabs"), Some(&Value::Bool(true)), "{reply}");
    s.click(&s.wait_visible("#settings-open", UI_TIMEOUT)?)?;
    // The saved settings have filled the form (else they would overwrite the choice).
    s.wait_text("#api-key-state", UI_TIMEOUT, |t| !t.trim().is_empty())?;
    assert_eq!(s.execute(r##"return document.querySelector("#reopen-tabs").checked;"##, &[])?, json!(true));
    s.execute(r##"document.querySelector("#reopen-tabs").scrollIntoView({block: "center"});"##, &[])?;
    s.click(&s.find("#reopen-tabs")?)?;
    s.click(&s.find("#settings-save")?)?;
    s.wait_script(r##"return document.querySelector("#settings-status").classList.contains("ok");"##, UI_TIMEOUT)?;
    let reply = op(s, &json!({"type": "get_settings"}))?;
    assert_eq!(reply["settings"].get("reopen_tabs"), Some(&Value::Bool(false)), "{reply}");
    wait_until("tabs.json to be removed", UI_TIMEOUT, || Ok((!data_dir.join("tabs.json").exists()).then_some(())))?;
    app.stop()?;
    let hits = site.hits("shop-vn.html");
    let app = App::start(&env, "tabs-off", &[])?;
    std::thread::sleep(Duration::from_secs(3));
    let fresh = tabs(&app.panel)?;
    assert!(fresh.iter().all(|(u, _)| u == "about:blank"), "{fresh:?}");
    assert_eq!(site.hits("shop-vn.html"), hits);
    app.stop()
}

/// Gives the focus to window `id` (none: to no window) until the panel's
/// `script` says it is where it should be, again every 2 s as a user clicks
/// again: a window mapped meanwhile (the browser starting) takes it.
fn focus_until(s: &Session, id: Option<&str>, script: &str) -> Result<()> {
    let until = Instant::now() + UI_TIMEOUT;
    loop {
        match id {
            Some(id) => crate::common::x11::focus(id)?,
            None => crate::common::x11::focus_nothing()?,
        }
        match s.wait_script(script, Duration::from_secs(2)) {
            Ok(_) => return Ok(()),
            Err(e) if Instant::now() >= until => return Err(e),
            Err(_) => {}
        }
    }
}

/// Item 11b: "Halley finished the task" only when the panel is not in
/// front: not while the user is in the panel or in the managed browser
/// docked beside it; yes when the user went to another program (the panel
/// still on screen), and when the panel is hidden.
#[test]
fn the_end_of_a_task_is_notified_only_when_the_panel_is_not_in_front() -> Result<()> {
    use crate::common::dbus::NotificationMonitor;
    use crate::common::model_server::{ModelServer, Turn};
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let model = ModelServer::start(vec![
        Turn::text("Một: xong.").held(),
        Turn::text("Bốn: xong.").held(),
        Turn::text("Hai: xong.").held(),
        Turn::text("Ba: xong.").held(),
    ]);
    let monitor = NotificationMonitor::start()?;
    let env = AppEnv::new()?;
    // A visible browser, docked beside the panel.
    let app = App::with_model(&env, "finished", &model, &[("HALLEY_HEADLESS", "0")])?;
    let s = &app.panel;
    let finished = |n: &crate::common::dbus::Notification| n.summary.starts_with("Halley finished the task");

    // In front: the user is in the panel when the task ends (the session
    // has no window manager to focus it on a click: the test does).
    s.send_task("một", UI_TIMEOUT)?;
    let panel = crate::common::x11::wait_window("the panel", UI_TIMEOUT, |w| w.name.as_deref() == Some("Halley"))?;
    focus_until(s, Some(&panel.id), "return document.hasFocus();").context("the panel does not have the focus")?;
    model.release();
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Một"))?;
    std::thread::sleep(Duration::from_secs(3));
    let told: Vec<_> = monitor.notifications().into_iter().filter(|n| finished(n)).collect();
    assert!(told.is_empty(), "notified while the panel was in front: {told:?}");

    // Still in front: the user is in the managed browser beside the panel.
    s.send_task("bốn", UI_TIMEOUT)?;
    let browser = crate::common::x11::wait_window("the browser's window", UI_TIMEOUT, |w| {
        w.class.iter().any(|c| c.eq_ignore_ascii_case("chromium")) && w.rect.width > 100
    })?;
    focus_until(s, Some(&browser.id), "return !document.hasFocus();").context("the panel kept the focus")?;
    model.release();
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Bốn"))?;
    std::thread::sleep(Duration::from_secs(3));
    let told: Vec<_> = monitor.notifications().into_iter().filter(|n| finished(n)).collect();
    assert!(told.is_empty(), "notified while the user was in the browser beside the panel: {told:?}");

    // On screen, but the user went to another program.
    s.send_task("hai", UI_TIMEOUT)?;
    focus_until(s, None, "return !document.hasFocus();").context("the panel kept the focus")?;
    model.release();
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Hai"))?;
    monitor.wait_for(RUN_TIMEOUT, finished).context("not notified while the user was elsewhere")?;

    // Hidden.
    let before = monitor.notifications().into_iter().filter(|n| finished(n)).count();
    s.send_task("ba", UI_TIMEOUT)?;
    app.close_panel()?;
    model.release();
    wait_until("a second notification", RUN_TIMEOUT, || {
        Ok((monitor.notifications().into_iter().filter(|n| finished(n)).count() > before).then_some(()))
    })?;
    app.stop()
}
