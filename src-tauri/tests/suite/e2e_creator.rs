//! The creator skills in the real desktop app over WebDriver, with the
//! scripted model and the fixture studio: `creator_schedule_post` asked for
//! by the model goes past the studio's 2FA step in the hand-off window,
//! each step that sends something waits for the gate's native dialog (the
//! publish question names title, channel, visibility and time), and the
//! studio receives exactly one draft and one scheduled publish; denied, it
//! receives nothing. The creator views open in the panel from the `/`
//! palette: the calendar's week and month grids, the research notes
//! rendered from the files store with their citations, and the triage
//! table whose approved rows alone are applied, each asked by the gate. Run under
//! `scripts/with-session.sh` (as `make test` does).

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::common::driver::AppEnv;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::suite::e2e_shell::{App, RUN_TIMEOUT, UI_TIMEOUT, skip_reason};
use anyhow::{Context, Result};
use serde_json::{Value, json};

const TITLE: &str = "Trình duyệt AI: 5 điều bạn chưa biết";
const WHEN: &str = "2026-12-15T19:00:00+07:00";

/// The app pointed at `model`.
fn start(env: &AppEnv, name: &str, model: &ModelServer) -> Result<App> {
    let base = model.base_url();
    App::start(env, name, &[("OPENAI_BASE_URL", base.as_str()), ("HALLEY_MODEL", "m"), ("OPENAI_API_KEY", "")])
}

/// The model asks for the skill on the studio (its 2FA solved by the
/// simulated user 5 s after the page opens), then says it is done.
/// The two creator scenarios drive a desktop app and a Chromium each
/// through several dialogs: run side by side on a loaded 2-core machine
/// their dialogs outwait the timeouts, so they take turns.
static ONE_APP_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_app_at_a_time() -> MutexGuard<'static, ()> {
    ONE_APP_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner)
}

fn post_script(site: &FixtureServer, video: &Path) -> Vec<Turn> {
    let args = json!({"channel": "youtube", "title": TITLE, "description": "Tập 12 của series build-in-public.",
        "media_refs": [format!("file://{}", video.display())], "schedule_time": WHEN,
        "studio_url": site.url("creator/studio.html?solve_after=5000")});
    vec![Turn::tool_calls(vec![ToolCall::new("creator_schedule_post", args)]), Turn::text("Xong phần lên lịch video.")]
}

/// The 2FA hand-off window: it names the studio; the test says "done"
/// (the page decides: the simulated user typed the code meanwhile) and the
/// window goes.
fn hand_off(app: &App) -> Result<()> {
    let panel = &app.panel;
    let window =
        panel.wait_new_window(std::slice::from_ref(&app.panel_handle), RUN_TIMEOUT).context("no hand-off window")?;
    let url = panel.wait_text("#challenge-url", UI_TIMEOUT, |t| !t.trim().is_empty())?;
    assert!(url.contains("creator/studio.html"), "{url}");
    let done = panel.wait_visible("#done", UI_TIMEOUT)?;
    // The page may be solved (and the window closed) before the click lands.
    if let Err(e) = panel.click(&done) {
        let e = format!("{e:#}");
        assert!(e.contains("no such window") || e.contains("stale"), "{e}");
    }
    panel.wait_for("the hand-off window to close", RUN_TIMEOUT, |s| {
        Ok((!s.window_handles()?.contains(&window)).then_some(()))
    })?;
    panel.switch_to_window(&app.panel_handle)
}

/// This test's turn on the session's desktop, the fixture site and the
/// app's own dirs; none (the reason printed) when these tests cannot run here.
fn prepare() -> Result<Option<(std::sync::MutexGuard<'static, ()>, FixtureServer, AppEnv)>> {
    if let Some(why) = skip_reason(true)? {
        eprintln!("skipped: {why}");
        return Ok(None);
    }
    let desktop = crate::common::desktop()?;
    Ok(Some((desktop, FixtureServer::start(), AppEnv::new()?)))
}

fn posted(site: &FixtureServer) -> Vec<(String, Vec<(String, String)>)> {
    site.posts().into_iter().map(|p| (p.path, p.form)).collect()
}

#[test]
fn a_post_is_scheduled_from_the_panel_past_the_2fa_window_once_approved_and_denied_sends_nothing() -> Result<()> {
    let _turn = one_app_at_a_time();
    let Some((_desktop, site, env)) = prepare()? else {
        return Ok(());
    };
    let video = env.dir.path().join("video.mp4");
    std::fs::write(&video, b"\x00\x00\x00\x18ftypmp42 fixture video bytes")?;
    let model = ModelServer::start(post_script(&site, &video));
    let app = start(&env, "creator-post", &model)?;
    let panel = &app.panel;

    // Denied at the first step that sends something (the upload): nothing
    // reaches the studio.
    panel.send_task("Lên lịch video mới lúc 19h ngày 15/12", UI_TIMEOUT)?;
    hand_off(&app)?;
    let upload = panel.answer_dialog(&app.panel_handle, "#deny", RUN_TIMEOUT)?;
    // The tool by the catalogue's words (#43 item 4), in either language.
    let says = |text: &str, en: &str, vi: &str| text.contains(en) || text.contains(vi);
    assert!(says(&upload, "Upload a file", "Tải tệp lên") && !upload.contains("browser_upload_file"), "{upload}");
    panel.wait_count(r#"#timeline .call[data-tool="creator_schedule_post"][data-status="ok"]"#, 1, RUN_TIMEOUT)?;
    panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Xong"))?;
    assert_eq!(posted(&site), vec![], "a denied upload reached the studio");

    // Approved: the upload, the draft's form, the publish question with the
    // post's details, the publish click; one draft and one publish.
    for turn in post_script(&site, &video) {
        model.push(turn);
    }
    panel.send_task("Lên lịch lại, lần này đồng ý", UI_TIMEOUT)?;
    hand_off(&app)?;
    let mut asked = Vec::new();
    for _ in 0..4 {
        asked.push(panel.answer_dialog(&app.panel_handle, "#approve", RUN_TIMEOUT)?);
    }
    assert!(says(&asked[0], "Upload a file", "Tải tệp lên"), "{}", asked[0]);
    let publish = &asked[2];
    for want in [TITLE, "youtube", "public", WHEN] {
        assert!(publish.contains(want), "{want:?} not in the publish question: {publish}");
    }
    assert!(says(publish, "Ask you first", "Hỏi bạn trước"), "{publish}");
    assert!(says(&asked[3], "Click on the page", "Bấm trên trang"), "{}", asked[3]);
    panel.wait_count(r#"#timeline .call[data-tool="creator_schedule_post"][data-status="ok"]"#, 2, RUN_TIMEOUT)?;
    panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Xong"))?;
    let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    assert_eq!(
        posted(&site),
        vec![
            (
                "/creator/studio/draft".to_owned(),
                vec![pair("title", TITLE), pair("description", "Tập 12 của series build-in-public.")]
            ),
            (
                "/creator/studio/publish".to_owned(),
                vec![pair("draft_id", "d-1"), pair("visibility", "public"), pair("publish_at", WHEN)]
            ),
        ]
    );
    let artifacts = crate::common::artifacts_dir(Path::new(env!("CARGO_BIN_EXE_halley-desktop")))?;
    crate::common::capture_panel(panel, &artifacts, "creator-post")?;
    app.stop()
}

/// Runs `tool` with `args` from the `/` palette; waits for its result.
fn palette_call(app: &App, tool: &str, args: &Value) -> Result<()> {
    let panel = &app.panel;
    let open = panel.wait_visible("#palette-open", UI_TIMEOUT)?;
    panel.click(&open)?;
    let search = panel.wait_visible("#palette-search", UI_TIMEOUT)?;
    panel.send_keys(&search, tool)?;
    let item = panel.wait_visible(&format!(r#"#palette-list .palette-item[data-tool="{tool}"]"#), UI_TIMEOUT)?;
    panel.click(&item)?;
    // The JSON arguments are the advanced view (the form is the default).
    panel.click(&panel.wait_visible("#palette-mode-json", UI_TIMEOUT)?)?;
    let text = panel.wait_visible("#palette-args", UI_TIMEOUT)?;
    // The arguments replace the template, as a paste does.
    panel.execute("arguments[0].value = arguments[1];", &[text.to_json(), json!(args.to_string())])?;
    let run = panel.wait_visible("#palette-run", UI_TIMEOUT)?;
    panel.click(&run)?;
    let status = panel.wait_text(r#"[data-testid="palette-status"]"#, RUN_TIMEOUT, |s| !s.is_empty());
    let shown = || panel.execute("return document.querySelector('#palette-result').innerText;", &[]);
    match status {
        // Shown in capitals (CSS): the text is the result's status.
        Ok(s) if s.eq_ignore_ascii_case("ok") => Ok(()),
        Ok(s) => anyhow::bail!("{tool} ended {s}: {}", shown()?),
        Err(e) => Err(e.context(format!("the palette shows: {}", shown()?))),
    }
}

#[test]
fn the_creator_views_open_in_the_panel_and_only_approved_triage_rows_are_applied() -> Result<()> {
    let _turn = one_app_at_a_time();
    let Some((_desktop, site, env)) = prepare()? else {
        return Ok(());
    };
    let model = ModelServer::start(vec![]);
    let app = start(&env, "creator-views", &model)?;
    let panel = &app.panel;

    // The calendar (a direct call: no model, the titles name their pillar):
    // the first week with its slots at their local time, then the month.
    let args = json!({"channels": ["youtube"], "cadence": "3_per_week", "pillars": ["<b>tech</b>"],
        "start_date": "2026-11-30", "weeks": 2, "time_of_day": "20:30"});
    palette_call(&app, "creator_plan_calendar", &args)?;
    // The panel speaks the session's language: English, or Vietnamese.
    let label = panel.wait_text("#palette-result .calendar-label", UI_TIMEOUT, |t| !t.is_empty())?;
    let vi = label == "30/11 – 6/12/2026";
    assert!(vi || label == "30 Nov – 6 Dec 2026", "{label}");
    let slots = panel.wait_count("#palette-result .calendar-week .slot", 3, UI_TIMEOUT)?;
    let first = panel.text(&slots[0])?;
    assert!(first.contains("20:30") && first.contains("youtube") && first.contains("<b>tech</b>"), "{first}");
    let next = panel.wait_visible("#palette-result .calendar-next", UI_TIMEOUT)?;
    panel.click(&next)?;
    panel.wait_text("#palette-result .calendar-label", UI_TIMEOUT, |t| {
        t == if vi { "7/12 – 13/12/2026" } else { "7 Dec – 13 Dec 2026" }
    })?;
    let month = panel.wait_visible(r#"#palette-result .calendar-toggle button[data-mode="month"]"#, UI_TIMEOUT)?;
    panel.click(&month)?;
    panel.wait_text("#palette-result .calendar-label", UI_TIMEOUT, |t| {
        t == if vi { "Tháng 12/2026" } else { "December 2026" }
    })?;
    let in_month = panel.wait_count("#palette-result .calendar-month td .slot", 6, UI_TIMEOUT)?;
    assert_eq!(in_month.len(), 6);
    let artifacts = crate::common::artifacts_dir(Path::new(env!("CARGO_BIN_EXE_halley-desktop")))?;
    crate::common::capture_panel(panel, &artifacts, "creator-calendar")?;
    // Nothing from the result became markup.
    assert_eq!(panel.find_all("#palette-result .creator-view b")?.len(), 0);

    // The research notes: read from the files store and rendered, the
    // pages' links open in the managed browser, never in the panel.
    let research = json!({"topic": "Trình duyệt AI", "max_sources": 2,
        "sources": [site.url("creator/article-1.html"), site.other_url("creator/article-2.html")]});
    let close = panel.wait_visible("#palette-close", UI_TIMEOUT)?;
    panel.click(&close)?;
    palette_call(&app, "creator_collect_research", &research)?;
    let title = panel.wait_text("#palette-result .notes-doc h3", RUN_TIMEOUT, |t| !t.is_empty())?;
    assert_eq!(title, "Research: Trình duyệt AI");
    let links = panel.wait_count("#palette-result .notes-doc ol a.source-link", 2, UI_TIMEOUT)?;
    let href = panel.execute("return arguments[0].getAttribute('href');", &[links[0].to_json()])?;
    assert_eq!(href, json!(site.url("creator/article-1.html")));
    crate::common::capture_panel(panel, &artifacts, "creator-views")?;

    // The triage (a direct call: no model, so no class and no reply
    // suggested): one row per comment; the user writes c1's reply and
    // approves it, changes c4 to "hide" and approves it, skips c2, leaves
    // c3. Apply asks the gate for each approved row: the reply is approved,
    // the hide denied; only the reply reaches the site.
    let close = panel.wait_visible("#palette-close", UI_TIMEOUT)?;
    panel.click(&close)?;
    palette_call(&app, "creator_triage_inbox", &json!({"thread_urls": [site.url("creator/thread/1")]}))?;
    let rows = panel.wait_count("#palette-result table.triage-table tbody tr", 4, RUN_TIMEOUT)?;
    assert_eq!(rows.len(), 4);
    let row = |id: &str, inner: &str| format!(r#"#palette-result tr[data-comment="{id}"] {inner}"#);
    let click = |css: &str| -> Result<()> { panel.click(&panel.wait_visible(css, UI_TIMEOUT)?) };
    click(&row("c1", ".triage-edit"))?;
    let text = panel.wait_visible(&row("c1", ".triage-text"), UI_TIMEOUT)?;
    panel.send_keys(&text, REPLY)?;
    click(&row("c1", ".triage-approve"))?;
    // The user picks "hide" in the row's action list (the change the list sends).
    let action = panel.wait_visible(&row("c4", ".triage-action"), UI_TIMEOUT)?;
    panel.execute(
        "arguments[0].value = 'hide'; arguments[0].dispatchEvent(new Event('change'));",
        &[action.to_json()],
    )?;
    click(&row("c4", ".triage-approve"))?;
    click(&row("c2", ".triage-skip"))?;
    let decisions = panel.execute(
        "return [...document.querySelectorAll('#palette-result tr[data-comment]')].map(r => r.dataset.decision);",
        &[],
    )?;
    assert_eq!(decisions, json!(["approved", "skipped", "pending", "approved"]));
    click("#palette-result .triage-apply")?;
    let reply = panel.answer_dialog(&app.panel_handle, "#approve", RUN_TIMEOUT)?;
    assert!(reply.contains(REPLY) || reply.contains("PUBLISH") || reply.contains("Trả lời"), "{reply}");
    panel.answer_dialog(&app.panel_handle, "#deny", RUN_TIMEOUT)?;
    panel.wait_visible("#palette-result .triage-status .form-status.error", RUN_TIMEOUT)?;
    let outcomes = panel.execute(
        "return [...document.querySelectorAll('#palette-result .triage-outcome')].map(o => o.className);",
        &[],
    )?;
    assert_eq!(
        outcomes,
        json!(["triage-outcome status-ok", "triage-outcome", "triage-outcome", "triage-outcome status-error"])
    );
    crate::common::capture_panel(panel, &artifacts, "creator-triage")?;
    assert_eq!(
        posted(&site),
        vec![("/creator/comments/c1/reply".to_owned(), vec![("reply".to_owned(), REPLY.to_owned())])]
    );
    std::thread::sleep(Duration::from_millis(200));
    app.stop()
}

const REPLY: &str = "Chào Lan, mình dùng micro Rode NT-USB nhé!";
