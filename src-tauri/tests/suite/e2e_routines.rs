//! Routines in the panel (issue 31, item 4), in the real desktop app over
//! WebDriver with the scripted model and the fixture shop: a task's
//! finished answer is saved as a routine from the chat ("Save as
//! routine": its name asked, the parameters proposed shown); the model
//! server is stopped; the Routines view runs it now (its parameter in the
//! form) and shows the page's current price; a schedule set in the view
//! replays it in the app's host (the watch scheduler's pass) and the
//! result reaches the inbox; pause holds it. Run under
//! `scripts/with-session.sh` (as `make test` does).

use anyhow::Result;

use crate::common::agent_app::{App, RUN_TIMEOUT, UI_TIMEOUT, desktop_or_skip};
use crate::common::fixtures::{FixtureServer, WatchedPage};
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::suite::e2e_watch::{click, type_into};
use serde_json::json;

const NAME: &str = "giá laptop";

#[test]
fn a_run_saved_from_the_panel_replays_without_the_model_and_on_a_schedule() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let site = FixtureServer::start();
    let page =
        WatchedPage { name: "Laptop ASUS Vivobook 15".into(), price: 21_490_000, in_stock: true, ..Default::default() };
    site.set_page("routine-laptop", page);
    let url = site.url("watched/routine-laptop");
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": url}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_extract",
            json!({"schema": {"name": "string", "price": "number"}}),
        )]),
        Turn::text("Laptop **ASUS Vivobook 15** giá 21.490.000 ₫."),
    ]);
    // A fast scheduler: the scheduled replay runs within a second or so.
    let app = App::start_with(&model, "routines", &[("HALLEY_WATCH_TICK_SECS", "1")])?;
    let s = &app.panel;
    s.send_task("Laptop này giá bao nhiêu?", UI_TIMEOUT)?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("21.490.000"))?;
    assert_eq!(model.request_count(), 3);
    drop(model); // the model server is stopped: nothing answers there any more

    // Saved from the finished answer: the name asked, the parameters shown.
    click(s, ".msg.assistant:last-of-type .save-routine")?;
    s.wait_visible("#save-routine-dialog #routine-name", UI_TIMEOUT)?;
    type_into(s, "#routine-name", NAME)?;
    click(s, "#routine-save")?;
    let param = s.wait_text("#routine-saved-params .saved-param[data-param='url']", UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(param.contains(&url), "{param}");
    click(s, "#routine-save-close")?;

    // Run now from the Routines view, the page's price changed meanwhile.
    site.change_page("routine-laptop", |p| p.price = 19_990_000);
    click(s, "#routines-open")?;
    let row = format!("#routine-list .routine[data-routine='{NAME}']");
    s.wait_visible(&row, UI_TIMEOUT)?;
    assert_eq!(s.attribute(&s.find(&row)?, "data-scheduled")?.as_deref(), Some("0"));
    // The form, for changing values: the parameter named for a person.
    click(s, &format!("{row} .routine-run-open"))?;
    let input = s.wait_visible(&format!("{row} .routine-run-form input.param-input[data-param='url']"), UI_TIMEOUT)?;
    let shown = s.execute("return arguments[0].value;", &[input.to_json()])?;
    assert_eq!(shown, json!(url), "the parameter's default in the form");
    let label = s.execute(
        &format!(r#"return document.querySelector("{row} .routine-run-form label").textContent + " | " + document.querySelector("{row} .routine-run-form .hint").textContent;"#),
        &[],
    )?;
    let vi = s.execute("return document.documentElement.lang;", &[])? == json!("vi");
    assert_eq!(label, json!(if vi { "Địa chỉ trang | Dùng ở bước 1" } else { "Page address | Used in step 1" }));
    // Run now: one click, with the last values.
    click(s, &format!("{row} .routine-run-now"))?;
    let result = s.wait_text(&format!("{row} .routine-result"), RUN_TIMEOUT, |t| t.contains("19.990.000"))?;
    assert_eq!(result.trim(), "Laptop ASUS Vivobook 15 giá 19.990.000 ₫.");
    // Markdown rendered, in the result and the last result alike.
    for part in [".routine-result", ".routine-last"] {
        let bold =
            s.execute(&format!(r#"return document.querySelector("{row} {part} strong")?.textContent ?? null;"#), &[])?;
        assert_eq!(bold, json!("ASUS Vivobook 15"), "{part}");
    }
    let last = s.wait_text(&format!("{row} .routine-last"), UI_TIMEOUT, |t| t.contains("19.990.000"))?;
    assert!(!last.contains("**"), "{last}");

    // Scheduled every day from the view: due at once, replayed by the
    // app's scheduler with the model stopped, its result in the inbox.
    site.change_page("routine-laptop", |p| p.price = 18_990_000);
    // Every day, picked: a count and a unit.
    type_into(s, &format!("{row} .schedule-count"), "1")?;
    s.execute(&format!(r#"document.querySelector("{row} .schedule-unit").value = "d";"#), &[])?;
    click(s, &format!("{row} .schedule-save"))?;
    s.wait_script(&format!(r#"return document.querySelector("{row}")?.dataset.scheduled === "1";"#), UI_TIMEOUT)?;
    s.wait_text(&format!("{row} .routine-last"), RUN_TIMEOUT, |t| t.contains("18.990.000"))?;
    s.wait_text(&format!("{row} .routine-next"), UI_TIMEOUT, |t| !t.is_empty())?;
    let every = s.wait_text(&format!("{row} .routine-schedule"), UI_TIMEOUT, |t| !t.is_empty())?;
    assert_eq!(every, if vi { "Mỗi ngày" } else { "Every day" });
    click(s, &format!("{row} .routine-history summary"))?;
    s.wait_count(&format!("{row} .replay[data-trigger='schedule']"), 1, UI_TIMEOUT)?;
    app.screenshot("routines")?;
    click(s, "#watches-open")?;
    let alert = s.wait_text("#watch-alerts .alert", UI_TIMEOUT, |t| t.contains("18.990.000"))?;
    assert!(alert.contains(NAME), "{alert}");

    // Paused from the view: it says so, no next run.
    click(s, "#routines-open")?;
    click(s, &format!("{row} .routine-pause"))?;
    s.wait_script(&format!(r#"return document.querySelector("{row}")?.dataset.paused === "1";"#), UI_TIMEOUT)?;
    s.wait_text(&format!("{row} .routine-next"), UI_TIMEOUT, str::is_empty)?;

    // At a time of day: shown in words, next due then (not at once).
    s.execute(&format!(r#"document.querySelector("{row} .schedule-at").value = "08:00";"#), &[])?;
    click(s, &format!("{row} .schedule-save"))?;
    let every = s.wait_text(&format!("{row} .routine-schedule"), UI_TIMEOUT, |t| t.contains("08:00"))?;
    assert_eq!(every, if vi { "Mỗi ngày lúc 08:00" } else { "Every day at 08:00" });
    s.wait_text(&format!("{row} .routine-next"), UI_TIMEOUT, |t| !t.is_empty())?;
    let replays = s.execute(&format!(r#"return document.querySelectorAll("{row} .replay").length;"#), &[])?;
    std::thread::sleep(std::time::Duration::from_secs(3));
    let after = s.execute(&format!(r#"return document.querySelectorAll("{row} .replay").length;"#), &[])?;
    assert_eq!(replays, after, "a schedule at 08:00 is not due at once");
    app.stop()
}
