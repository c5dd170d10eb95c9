//! The panel's Watches view end to end, in the real desktop app over
//! WebDriver with the fixture shop: a watch created in the panel's form
//! (its target price typed the Vietnamese way) alerts once, through a
//! native notification seen on D-Bus, when the shop's price drops below
//! the target; the tray's "Watches" item and the view count the unread
//! alert, marking it read clears both, the chart has one point per check,
//! the edit form changes its name, target and frequency, and deleting the
//! watch asks first (the gate's dialog). Run under `scripts/with-session.sh` (as `make test` does).

use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::dbus::NotificationMonitor;
use crate::common::driver::AppEnv;
use crate::common::fixtures::{FixtureServer, WatchedPage};
use crate::common::tray::{StatusNotifierWatcher, TrayMenu};
use crate::common::webdriver::Session;
use crate::suite::e2e_shell::{App, RUN_TIMEOUT, UI_TIMEOUT, skip_reason};
use anyhow::{Result, bail};

/// Waits until the tray's Watches item reads `label`.
fn wait_tray_label(menu: &TrayMenu, label: &str) -> Result<()> {
    let deadline = Instant::now() + UI_TIMEOUT;
    loop {
        let entries = menu.entries()?;
        if entries.iter().any(|e| e.label == label) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!("no tray entry {label:?} after {UI_TIMEOUT:?}: {entries:?}");
        }
        sleep(Duration::from_millis(100));
    }
}

/// Clicks the first element matching `css`. The view re-renders when the
/// watches change (`Event::Watches`), so an element found just before may
/// be gone by the click: it is found again then.
pub(crate) fn click(panel: &Session, css: &str) -> Result<()> {
    let deadline = Instant::now() + UI_TIMEOUT;
    loop {
        let el = panel.wait_visible(css, UI_TIMEOUT)?;
        match panel.click(&el) {
            Err(e) if gone(&format!("{e:#}")) && Instant::now() < deadline => {}
            done => return done,
        }
    }
}

/// Whether a WebDriver error says the element left the page.
fn gone(error: &str) -> bool {
    error.contains("stale element") || error.contains("no such element")
}

pub(crate) fn type_into(panel: &Session, css: &str, text: &str) -> Result<()> {
    let el = panel.wait_visible(css, UI_TIMEOUT)?;
    panel.clear(&el)?;
    panel.send_keys(&el, text)
}

#[test]
fn a_watch_created_in_the_panel_alerts_once_and_the_view_shows_it() -> Result<()> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let watcher = StatusNotifierWatcher::start()?;
    let monitor = NotificationMonitor::start()?;
    let shop = FixtureServer::start();
    let page =
        WatchedPage { name: "Laptop ASUS Vivobook 15".into(), price: 21_490_000, in_stock: true, ..Default::default() };
    shop.set_page("panel-watch", page);
    // A name no other notification in the session has.
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.subsec_nanos();
    let label = format!("Laptop {}-{stamp}", std::process::id());
    let env = AppEnv::new()?;
    // A fast scheduler: it must not alert a second time either.
    let app = App::start(&env, "watch", &[("HALLEY_WATCH_TICK_SECS", "1")])?;
    let menu = watcher.wait_item(UI_TIMEOUT)?;
    let panel = &app.panel;

    // The form: the page, a name, the target as the user writes it.
    click(panel, "#watches-open")?;
    panel.wait_visible("#watch-form", UI_TIMEOUT)?;
    type_into(panel, "#watch-url", &shop.url("watched/panel-watch"))?;
    type_into(panel, "#watch-label", &label)?;
    type_into(panel, "#watch-below", "19.990.000 ₫")?;
    click(panel, "#watch-create")?;
    let price = panel.wait_text("#watch-list .watch .watch-price", RUN_TIMEOUT, |t| t.contains("21.490.000"))?;
    assert!(price.contains('₫'), "{price}");
    let rules = panel.wait_text("#watch-list .watch .watch-rules", UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(rules.contains("19.990.000 ₫"), "{rules}");
    assert_eq!(panel.find_all("#watch-alerts .alert")?.len(), 0, "an alert above the target");

    // The price drops below the target: checked from the view, one
    // notification names the watch with the old and new price.
    shop.change_page("panel-watch", |p| p.price = 18_990_000);
    click(panel, "#watch-list .watch .watch-check")?;
    let note = monitor.wait_for(RUN_TIMEOUT, |n| n.summary == label)?;
    assert!(note.body.contains("18.990.000"), "{note:?}");
    // The tray and the view count it.
    wait_tray_label(&menu, "Watches (1 new alert)")?;
    panel.wait_count("#watch-alerts .alert[data-read='0']", 1, UI_TIMEOUT)?;
    panel.wait_text("#watches-open .unread-count", UI_TIMEOUT, |t| t == "1")?;
    panel.wait_text("#watch-list .watch .watch-price", UI_TIMEOUT, |t| t.contains("18.990.000"))?;

    // Checked again at the same price: no second alert.
    click(panel, "#watch-list .watch .watch-check")?;
    // The chart: one point per check (created, dropped, again).
    click(panel, "#watch-list .watch .watch-history")?;
    let points = panel.wait_count("#watch-list .watch-chart svg circle.point", 3, UI_TIMEOUT)?;
    assert_eq!(points.len(), 3);
    // Its axes (the highest and lowest price, the first and last check's
    // dates), the target as a line inside the plot, the check that alerted marked.
    let chart = panel.execute(
        r##"const c = document.querySelector("#watch-list .watch-chart svg");
            const txt = (sel) => (c.querySelector(sel)?.textContent ?? "").replace(/\u00a0/g, " ");
            const target = c.querySelector("line.target");
            return {
              axes: c.querySelectorAll("line.axis").length,
              high: txt(".price-high"), low: txt(".price-low"),
              first: txt(".date-first"), last: txt(".date-last"),
              target: target?.dataset.price ?? null, label: txt(".target-label"),
              inside: target ? c.getBBox().height > 0 && Number(target.getAttribute("y1")) > 0 : false,
              alerts: [...c.querySelectorAll("circle.point.alert")].map((p) => p.dataset.price),
            };"##,
        &[],
    )?;
    assert_eq!(chart["axes"], 2, "{chart}");
    assert_eq!(chart["high"], "21.490.000 ₫", "{chart}");
    assert_eq!(chart["low"], "18.990.000 ₫", "{chart}");
    let year = panel.execute("return String(new Date().getFullYear());", &[])?;
    let year = year.as_str().unwrap_or_default().to_owned();
    assert!(chart["first"].as_str().is_some_and(|d| d.contains(&year)), "{chart}");
    assert!(chart["last"].as_str().is_some_and(|d| d.contains(&year)), "{chart}");
    assert_eq!(chart["target"], "19990000", "{chart}");
    assert!(chart["label"].as_str().is_some_and(|l| l.ends_with("19.990.000 ₫")), "{chart}");
    assert_eq!(chart["inside"], true, "{chart}");
    assert_eq!(chart["alerts"], serde_json::json!(["18990000"]), "only the check that alerted: {chart}");
    let artifacts = crate::common::artifacts_dir(Path::new(env!("CARGO_BIN_EXE_halley-desktop")))?;
    crate::common::capture_panel(panel, &artifacts, "watches")?;
    sleep(Duration::from_secs(3));
    let sent = monitor.notifications().into_iter().filter(|n| n.summary == label).count();
    assert_eq!(sent, 1, "{:?}", monitor.notifications());

    // Read: the tray's count and the badge go.
    click(panel, "#alerts-read-all")?;
    panel.wait_count("#watch-alerts .alert[data-read='1']", 1, UI_TIMEOUT)?;
    wait_tray_label(&menu, "Watches")?;
    panel.wait_text("#watches-open .unread-count", UI_TIMEOUT, str::is_empty)?;

    // Edited in the panel: a new name, target and frequency, saved through
    // `watch_update`; the list shows them.
    // The cooldown is shown.
    let cooldown = panel.wait_text("#watch-list .watch .watch-cooldown", UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(!cooldown.contains("6h"), "{cooldown}");
    click(panel, "#watch-list .watch .watch-edit")?;
    // Setting a target, the current price is in view.
    let now = panel.wait_text("#watch-list .watch-edit-form .edit-current", UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(now.contains("18.990.000 ₫"), "{now}");
    let edited = format!("{label} (sửa)");
    type_into(panel, "#watch-list .watch-edit-form .edit-label", &edited)?;
    type_into(panel, "#watch-list .watch-edit-form .edit-below", "17.990.000 ₫")?;
    let every = panel.wait_visible("#watch-list .watch-edit-form .edit-frequency option[value='1d']", UI_TIMEOUT)?;
    panel.click(&every)?;
    let quiet = panel.wait_visible("#watch-list .watch-edit-form .edit-cooldown option[value='6h']", UI_TIMEOUT)?;
    panel.click(&quiet)?;
    click(panel, "#watch-list .watch-edit-form .edit-save")?;
    panel.wait_text("#watch-list .watch .watch-rules", UI_TIMEOUT, |t| t.contains("17.990.000 ₫"))?;
    panel.wait_text("#watch-list .watch .watch-name", UI_TIMEOUT, |t| t == edited)?;
    // Periods in words, in the panel's language (#43 item 5: not "mỗi 1d").
    let vi = panel.execute("return document.documentElement.lang;", &[])? == serde_json::json!("vi");
    let (day, six) = if vi { ("mỗi ngày", "6 giờ") } else { ("every day", "6 hours") };
    panel.wait_text("#watch-list .watch .watch-times", UI_TIMEOUT, |t| t.contains(day))?;
    panel.wait_text("#watch-list .watch .watch-cooldown", UI_TIMEOUT, |t| t.contains(six))?;
    assert_eq!(panel.find_all("#watch-list .watch-edit-form")?.len(), 0, "the form closes once saved");

    // Deleting is DESTRUCTIVE: the gate asks in its dialog. Denied, the
    // watch stays; approved, it is gone.
    click(panel, "#watch-list .watch .watch-delete")?;
    let summary = panel.answer_dialog(&app.panel_handle, "#deny", RUN_TIMEOUT)?;
    assert!(summary.contains("watch_delete") || summary.contains(&label), "{summary}");
    panel.wait_visible("#watches-status.error", UI_TIMEOUT)?;
    assert_eq!(panel.find_all("#watch-list .watch")?.len(), 1);
    click(panel, "#watch-list .watch .watch-delete")?;
    panel.answer_dialog(&app.panel_handle, "#approve", RUN_TIMEOUT)?;
    panel.wait_script(r##"return document.querySelector("#watch-list .watch") === null;"##, UI_TIMEOUT)?;
    app.stop()
}
