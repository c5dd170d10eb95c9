//! The real desktop app driving the agent end to end, over WebDriver, with
//! the scripted OpenAI-compatible model server and the fixture web site: a
//! task typed in the panel streams its answer and fills the timeline; a
//! purchase waits for the native confirmation dialog (Deny: the site
//! receives nothing; Approve: it receives the order once); the run's end is
//! a desktop notification on D-Bus; an API key saved in the settings is in
//! the OS keyring and nowhere in the database. Screenshots of the panel are
//! kept as test artifacts. Run under `scripts/with-session.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::agent_app::{
    App, RUN_TIMEOUT, UI_TIMEOUT, buy_script, captcha_script, desktop_or_skip, skip_reason,
};
use crate::common::dbus::NotificationMonitor;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

#[test]
fn a_task_streams_in_the_panel_and_a_purchase_waits_for_the_native_dialog() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let site = FixtureServer::start();
    let model = ModelServer::start(buy_script(&site));
    let monitor = NotificationMonitor::start()?;
    let app = App::start(&model, "agent")?;

    // Deny: the order never reaches the shop.
    app.panel.send_task("Mua laptop này cho tôi", UI_TIMEOUT)?;
    app.panel.wait_count("#timeline .call", 1, RUN_TIMEOUT)?;
    let summary = app.answer_dialog("#deny")?;
    // Written by code from the real action: the button, where the order goes.
    assert!(summary.contains("Mua ngay") && summary.contains("/checkout"), "{summary}");
    let answer = app.panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Xong"))?;
    assert!(answer.contains("câu trả lời của bạn"), "{answer}");
    let denied =
        app.panel.wait_count(r#"#timeline .call[data-tool="browser_click"][data-status="error"]"#, 1, UI_TIMEOUT)?;
    assert_eq!(denied.len(), 1);
    assert_eq!(site.hits("checkout"), 0, "a denied purchase reached the shop");
    app.screenshot("conversation")?;

    // Approve: exactly one order.
    for turn in buy_script(&site) {
        model.push(turn);
    }
    app.panel.send_task("Mua lại lần nữa", UI_TIMEOUT)?;
    app.answer_dialog("#approve")?;
    app.panel.wait_count(r#"#timeline .call[data-tool="browser_click"][data-status="ok"]"#, 1, RUN_TIMEOUT)?;
    app.panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Xong"))?;
    assert_eq!(site.hits("checkout"), 1, "an approved purchase is sent once");

    // The model was streamed the page as data and never a secret.
    let first = &model.requests()[0];
    assert_eq!(first["messages"][1]["content"], "Mua laptop này cho tôi");
    // Notifications went to the session's notification daemon.
    let seen = monitor.notifications();
    eprintln!("notifications: {seen:?}");
    assert!(
        seen.iter().any(|n| n.app_name.to_lowercase().contains("halley")),
        "no notification from Halley on D-Bus: {seen:?}"
    );
    app.screenshot("timeline")?;
    app.stop()
}

/// The payment confirmation a person can decide on (issue 29, item 4): one
/// plain sentence with the amount read from the page (21.490.000 ₫), the
/// site and the button; the reasons in plain words and the grading folded;
/// nothing cut off at the dialog's smallest size (360x400); Deny focused,
/// Approve disabled until the box is ticked, Enter on Approve never paying,
/// Enter on Deny denying: the shop receives nothing.
#[test]
fn the_payment_dialog_says_the_amount_and_site_and_deny_is_the_default() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let site = FixtureServer::start();
    let model = ModelServer::start(buy_script(&site));
    let app = App::start(&model, "payment-dialog")?;
    let s = &app.panel;
    s.send_task("Mua laptop này cho tôi", UI_TIMEOUT)?;
    let dialog = s.wait_new_window(std::slice::from_ref(&app.panel_handle), RUN_TIMEOUT)?;
    let headline = s.wait_text("#headline", UI_TIMEOUT, |t| !t.is_empty())?;
    let vi = s.execute("return document.documentElement.lang;", &[])? == json!("vi");
    let (want, plain) = if vi {
        ("Thanh toán 21.490.000 ₫ cho 127.0.0.1, bằng cách bấm “Mua ngay”.", "Bạn sẽ bị trừ tiền")
    } else {
        ("Pay 21.490.000 ₫ to 127.0.0.1, by clicking “Mua ngay”.", "Money will be charged")
    };
    assert_eq!(headline, want);
    assert_eq!(s.text(&s.find("#amount .amount-value")?)?, "21.490.000 ₫");
    let reasons = s.text(&s.find("#plain-reasons")?)?;
    assert!(reasons.contains(plain), "{reasons}");
    for technical in ["PAYMENT", "POST", "browser_click", "SUBMIT"] {
        assert!(!reasons.contains(technical) && !headline.contains(technical), "{technical} in {reasons}");
    }
    // The grading is there, folded.
    let folded = s.execute(
        r##"const body = document.querySelector(".dialog-body").innerText;
            return [document.querySelector("#technical").open, body.includes("browser_click") || body.includes("/checkout")];"##,
        &[],
    )?;
    assert_eq!(folded, json!([false, false]), "the technical details are folded");
    let all = s.execute(r#"return document.querySelector(".dialog-body").textContent;"#, &[])?;
    // The tool by the catalogue's words, not its name (#43 item 4).
    assert!(all.as_str().is_some_and(|t| t.contains("/checkout") && !t.contains("browser_click")), "{all}");

    // Deny is the default; Approve waits for the box.
    assert_eq!(s.execute("return document.activeElement.id;", &[])?, json!("deny"));
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(s.execute(r##"return document.querySelector("#approve").disabled;"##, &[])?, json!(true));

    // The smallest size: the buttons, the box and the countdown in view,
    // nothing wider than the window, the body scrolling.
    let (x, y, _, _) = s.window_rect()?;
    s.set_window_rect(x, y, 360, 400)?;
    let fits = s.execute(
        r#"const w = window.innerWidth, h = window.innerHeight;
           const out = [];
           if (w > 380 || h > 420) out.push(`window ${w}x${h}`);
           for (const id of ["headline", "amount", "deny", "approve", "confirm-pay", "countdown"]) {
             const r = document.getElementById(id).getBoundingClientRect();
             if (r.width === 0 || r.left < 0 || r.right > w + 0.5 || r.top < 0 || r.bottom > h + 0.5) out.push(`${id} ${JSON.stringify(r)}`);
           }
           const body = document.querySelector(".dialog-body");
           if (body.scrollWidth > body.clientWidth) out.push(`body ${body.scrollWidth} > ${body.clientWidth}`);
           if (getComputedStyle(body).overflowY !== "auto") out.push("the body does not scroll");
           for (const e of body.querySelectorAll("*")) {
             const r = e.getBoundingClientRect();
             if (r.width > 0 && r.right > body.getBoundingClientRect().right + 0.5) out.push(`cut: ${e.className || e.tagName}`);
           }
           return out;"#,
        &[],
    )?;
    assert_eq!(fits, json!([]), "at 360x400");
    crate::common::capture_panel(s, &app.artifacts, "confirm-payment")?;

    // Ticked, Approve is enabled; Enter on it still does not pay.
    s.click(&s.find("#confirm-pay")?)?;
    s.wait_script(r##"return !document.querySelector("#approve").disabled;"##, UI_TIMEOUT)?;
    s.execute(r##"document.querySelector("#approve").focus();"##, &[])?;
    s.press_key("\u{E007}")?;
    std::thread::sleep(Duration::from_millis(1500));
    assert!(s.window_handles()?.contains(&dialog), "Enter approved a payment");
    assert_eq!(site.hits("checkout"), 0);

    // Enter on Deny denies.
    s.execute(r##"document.querySelector("#deny").focus();"##, &[])?;
    if let Err(e) = s.press_key("\u{E007}")
        && !format!("{e:#}").contains("no such window")
    {
        return Err(e);
    }
    s.wait_for("the dialog to close", UI_TIMEOUT, |s| Ok((!s.window_handles()?.contains(&dialog)).then_some(())))?;
    s.switch_to_window(&app.panel_handle)?;
    s.wait_count(r#"#timeline .call[data-tool="browser_click"][data-status="error"]"#, 1, RUN_TIMEOUT)?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Xong"))?;
    assert_eq!(site.hits("checkout"), 0, "a denied purchase reached the shop");
    app.stop()
}

/// Answers rendered (issue 29, item 1): a model's Markdown answer shows as
/// a heading, emphasis, a list, a table, code and a link; the HTML it
/// carries shows as text and never runs; the link opens in the managed
/// browser (the fixture site receives the visit), the panel stays.
#[test]
fn an_answer_s_markdown_is_rendered_its_html_never_runs_and_links_open_in_the_browser() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let site = FixtureServer::start();
    let answer = format!(
        "## Kết quả\n\nGiá **tốt nhất**: *21.490.000 ₫*, mã `A1505VA`.\n\n- Bảo hành 24 tháng\n- Giao trong 2 giờ\n\n\
         | Shop | Giá |\n| --- | ---: |\n| GearVN | 21.490.000 ₫ |\n| Tiki | 21.990.000 ₫ |\n\n\
         <script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">\n\n\
         [Xem trang Mỹ]({}) hoặc [lạ](javascript:window.__pwned=3)",
        site.url("shop-us.html")
    );
    let model = ModelServer::start(vec![Turn::text(&answer)]);
    let app = App::start(&model, "markdown")?;
    let s = &app.panel;
    s.send_task("So sánh giá laptop", UI_TIMEOUT)?;
    s.wait_visible(".msg.assistant .markdown table", RUN_TIMEOUT)?;
    s.wait_script(r#"return !document.querySelector(".msg.assistant.streaming");"#, RUN_TIMEOUT)?;
    let read = s.execute(
        r#"const m = document.querySelector(".msg.assistant:last-of-type .markdown");
           return {
             h2: m.querySelector("h2")?.textContent,
             strong: m.querySelector("strong")?.textContent,
             em: m.querySelector("em")?.textContent,
             code: m.querySelector("code")?.textContent,
             items: [...m.querySelectorAll("ul > li")].map(li => li.textContent),
             cells: [...m.querySelectorAll("table td")].map(td => td.textContent),
             links: [...m.querySelectorAll("a")].map(a => a.textContent),
             elements: m.querySelectorAll("script, img, [onerror]").length,
             text: m.textContent,
             pwned: window.__pwned ?? null,
           };"#,
        &[],
    )?;
    assert_eq!(read["h2"], "Kết quả", "{read}");
    assert_eq!(read["strong"], "tốt nhất");
    assert_eq!(read["em"], "21.490.000 ₫");
    assert_eq!(read["code"], "A1505VA");
    assert_eq!(read["items"], json!(["Bảo hành 24 tháng", "Giao trong 2 giờ"]));
    assert_eq!(read["cells"], json!(["GearVN", "21.490.000 ₫", "Tiki", "21.990.000 ₫"]));
    assert_eq!(read["links"], json!(["Xem trang Mỹ"]), "only the http link is one");
    assert_eq!(read["elements"], 0, "no element from the answer's HTML");
    assert!(read["text"].as_str().is_some_and(|t| t.contains("<script>window.__pwned = 1</script>")), "{read}");
    assert_eq!(read["pwned"], Value::Null);
    for raw in ["##", "**", "| ---", "](http"] {
        assert!(!read["text"].as_str().unwrap_or_default().contains(raw), "{raw} left raw: {read}");
    }
    app.screenshot("markdown-answer")?;

    // The link opens in the managed browser, not in the panel.
    let panel_url = s.url()?;
    assert_eq!(site.hits("shop-us.html"), 0);
    s.click(&s.find(".msg.assistant .markdown a")?)?;
    let deadline = std::time::Instant::now() + RUN_TIMEOUT;
    while site.hits("shop-us.html") == 0 {
        if std::time::Instant::now() > deadline {
            bail!("the answer's link never reached the managed browser");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(s.url()?, panel_url, "the panel stayed on its page");
    assert_eq!(s.execute("return window.__pwned ?? null;", &[])?, Value::Null);
    app.stop()
}

/// Steps a person reads (issue 29, item 3): each step a sentence with its
/// page in the panel's language ("Opened shop-vn.html — 127.0.0.1", "Read
/// the price: 21.490.000 ₫", "Typed “1” into ..."), opened to show what it
/// was given and what it read; the purchase the user declined says so,
/// with no error.
#[test]
fn steps_read_as_sentences_open_to_what_they_read_and_a_declined_step_says_so() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_extract", json!({"schema": {"price": "number"}}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_type",
            json!({"selector": "#quantity", "text": "1", "clear_first": true}),
        )]),
        Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#buy-now"}))]),
        Turn::text("Bạn đã không đồng ý nên tôi chưa mua."),
        Turn::text("Không có gì."),
    ]);
    let app = App::start(&model, "steps")?;
    let s = &app.panel;
    s.send_task("Mua laptop này cho tôi", UI_TIMEOUT)?;
    app.answer_dialog("#deny")?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("chưa mua"))?;
    let vi = s.execute("return document.documentElement.lang;", &[])? == json!("vi");
    let step = |tool: &str| -> Result<String> {
        s.wait_text(&format!(r#"#timeline .call[data-tool="{tool}"] .step-text"#), UI_TIMEOUT, |t| !t.is_empty())
    };
    let (opened, price, typed, clicked, declined) = if vi {
        (
            "Đã mở shop-vn.html — 127.0.0.1",
            "Đã đọc giá: 21.490.000 ₫",
            "Đã nhập “1” vào",
            "Bấm “Mua ngay” — 127.0.0.1",
            "Bạn đã từ chối bước này.",
        )
    } else {
        (
            "Opened shop-vn.html — 127.0.0.1",
            "Read the price: 21.490.000 ₫",
            "Typed “1” into",
            "Click “Mua ngay” — 127.0.0.1",
            "You declined this step.",
        )
    };
    assert_eq!(step("browser_navigate")?, opened);
    assert_eq!(step("browser_extract")?, price);
    let typed_text = step("browser_type")?;
    assert!(typed_text.starts_with(typed), "{typed_text}");
    assert_eq!(step("browser_click")?, clicked);
    let click = r#"#timeline .call[data-tool="browser_click"]"#;
    assert_eq!(s.attribute(&s.find(click)?, "data-outcome")?.as_deref(), Some("declined"));
    assert_eq!(s.text(&s.find(&format!("{click} .call-declined-note"))?)?, declined);
    assert!(s.find_all(&format!(r#"{click} [role="alert"]"#))?.is_empty(), "a declined step is no error");
    let shown = s.text(&s.find(click)?)?;
    for technical in ["ERROR", "denied", "browser_click", "PAYMENT"] {
        assert!(!shown.contains(technical), "{technical} shown on a closed step: {shown}");
    }

    // Opened, a step shows what it was given and what it read.
    let nav = r#"#timeline .call[data-tool="browser_navigate"]"#;
    let open = |css: &str| -> Result<Value> {
        s.execute(&format!(r#"return document.querySelector({css:?}).closest("details").open;"#), &[])
    };
    assert_eq!(open(&format!("{nav} .step-read dl"))?, json!(false), "closed by default");
    s.click(&s.find(&format!("{nav} summary"))?)?;
    // What it found as fields and values (#43 item 4), not its JSON.
    let read = s.wait_text(&format!("{nav} .step-read dl"), UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(read.contains("shop-vn.html") && !read.contains("http_status") && !read.contains('{'), "{read}");
    let given = s.text(&s.find(&format!("{nav} .step-given"))?)?;
    assert!(given.contains("shop-vn.html"), "{given}");
    // It stays open while the timeline re-renders.
    s.send_task("Cảm ơn", UI_TIMEOUT)?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Không có gì"))?;
    assert_eq!(open(&format!("{nav} .step-read dl"))?, json!(true), "still open");
    app.screenshot("steps")?;
    app.stop()
}

/// History as it was seen (issue 29, item 2): a conversation found again by
/// a word, its site and its day, and reopened, shows the question, the
/// step as a sentence and the answer rendered, as live; the step's result
/// only inside the opened step; no fence marker, result envelope or the
/// fence's note anywhere.
#[test]
fn a_reopened_conversation_reads_as_it_was_seen_and_old_tasks_are_found() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
        Turn::text("## Giá\n\nLaptop **ASUS Vivobook 15** giá 21.490.000 ₫."),
        Turn::text("Chào bạn."),
    ]);
    let app = App::start(&model, "history")?;
    let s = &app.panel;
    s.send_task("Xem giá laptop Vivobook", UI_TIMEOUT)?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("21.490.000"))?;
    s.wait_script(r#"return !document.querySelector(".msg.assistant.streaming");"#, RUN_TIMEOUT)?;
    // Another conversation, so the search has something to leave out.
    s.click(&s.find("#new-chat")?)?;
    s.send_task("Chào", UI_TIMEOUT)?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Chào bạn"))?;

    s.click(&s.find("#conversations-open")?)?;
    let search = s.wait_visible("#conversation-search", UI_TIMEOUT)?;
    s.wait_count("#conversations .conversation", 2, UI_TIMEOUT)?;
    let today = s.execute("return new Date().toISOString().slice(0, 10);", &[])?;
    let today = today.as_str().context("today")?.to_owned();
    for query in ["vivobook", "GIÁ", "127.0.0.1", today.as_str()] {
        s.clear(&search)?;
        s.send_keys(&search, query)?;
        let wanted = if query == today { 2 } else { 1 };
        s.wait_script(
            &format!(r##"return document.querySelectorAll("#conversations .conversation").length === {wanted};"##),
            UI_TIMEOUT,
        )
        .with_context(|| format!("searching {query:?}"))?;
    }
    s.clear(&search)?;
    s.send_keys(&search, "tiki.vn")?;
    s.wait_text("#conversations", UI_TIMEOUT, |t| !t.contains("Vivobook") && !t.trim().is_empty())?;
    assert!(s.find_all("#conversations .conversation")?.is_empty());
    s.clear(&search)?;
    s.send_keys(&search, "Vivobook 127.0.0.1")?;
    s.wait_script(r##"return document.querySelectorAll("#conversations .conversation").length === 1;"##, UI_TIMEOUT)?;
    s.click(&s.find("#conversations .conversation")?)?;

    // As it was seen: the question, the step, the rendered answer.
    s.wait_text(".msg.assistant", UI_TIMEOUT, |t| t.contains("21.490.000"))?;
    let bubbles = s.execute(
        r##"return [...document.querySelectorAll("#messages .msg")].map(m => m.className.split(" ")[1]);"##,
        &[],
    )?;
    assert_eq!(bubbles, json!(["user", "assistant"]));
    assert_eq!(s.text(&s.find(".msg.assistant .markdown h2")?)?, "Giá");
    assert_eq!(s.text(&s.find(".msg.assistant .markdown strong")?)?, "ASUS Vivobook 15");
    let step = r#"#timeline .call[data-tool="browser_navigate"][data-status="ok"]"#;
    let sentence = s.wait_text(&format!("{step} .step-text"), UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(sentence.ends_with("shop-vn.html — 127.0.0.1"), "{sentence}");
    let everything = s.execute("return document.body.textContent;", &[])?;
    for internal in ["PAGE_DATA", "trace_id", "never instructions", "\"status\""] {
        assert!(!everything.as_str().unwrap_or_default().contains(internal), "{internal} shown: {everything}");
    }
    // The step's result, inside the opened step only.
    s.click(&s.find(&format!("{step} summary"))?)?;
    let read = s.wait_text(&format!("{step} .step-read dl"), UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(read.contains("shop-vn.html") && !read.contains("http_status"), "{read}");
    assert!(!read.contains("PAGE_DATA") && !read.contains("trace_id"), "{read}");
    app.screenshot("history")?;
    app.stop()
}

#[test]
fn an_api_key_saved_in_settings_is_in_the_keyring_only() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let model = ModelServer::start(vec![Turn::text("Chào bạn.")]);
    let app = App::start(&model, "settings")?;
    let key = "sk-e2e-4f1d9b7c2a";
    let open = app.panel.wait_visible("#settings-open", UI_TIMEOUT)?;
    app.panel.click(&open)?;
    let field = app.panel.wait_visible("#api-key", UI_TIMEOUT)?;
    app.panel.send_keys(&field, key)?;
    // The settings' one Save takes the key too.
    let save = app.panel.find("#settings-save")?;
    app.panel.click(&save)?;
    app.panel.wait_script(r##"return document.querySelector("#api-key").value === "";"##, UI_TIMEOUT)?;
    app.panel.wait_text("#settings-status", UI_TIMEOUT, |t| !t.trim().is_empty() && !t.ends_with('…'))?;

    // In the Secret Service...
    let found = Command::new("secret-tool").args(["search", "--all", "service", "halley"]).output()?;
    let listing = String::from_utf8_lossy(&found.stdout).into_owned() + &String::from_utf8_lossy(&found.stderr);
    assert!(listing.contains(key), "the key is not in the keyring: {listing}");
    // ...used for the model...
    let back = app.panel.wait_visible("[data-testid=back-to-chat]", UI_TIMEOUT)?;
    app.panel.click(&back)?;
    app.panel.send_task("Xin chào", UI_TIMEOUT)?;
    app.panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Chào bạn"))?;
    let auth = model.raw_requests().iter().rev().find_map(|r| r.header("authorization").map(str::to_owned));
    assert_eq!(auth.as_deref(), Some(format!("Bearer {key}").as_str()));
    // ...and in no file of the data directory.
    for entry in walk(&app.env.data_dir()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(key), "the key is in {}", entry.display());
    }
    let _ = Command::new("secret-tool").args(["clear", "service", "halley"]).status();
    app.stop()
}

#[test]
fn the_search_settings_and_the_brave_key_from_the_settings() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, "search-settings")?;
    let key = format!("BSA-e2e-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    // The settings are longer than the panel: what is clicked is scrolled to first.
    let click = |css: &str| -> Result<()> {
        app.panel.execute(
            &format!("document.querySelector({css:?}).scrollIntoView({{block: 'center', behavior: 'instant'}});"),
            &[],
        )?;
        app.panel.click(&app.panel.find(css)?)
    };
    let open = app.panel.wait_visible("#settings-open", UI_TIMEOUT)?;
    app.panel.click(&open)?;
    app.panel.wait_visible("#search-settings", UI_TIMEOUT)?;
    // The saved settings have filled the form (else they would overwrite what is typed).
    app.panel.wait_text("#brave-key-state", UI_TIMEOUT, |t| !t.trim().is_empty())?;
    app.panel.execute(r##"document.querySelector("#search-order").value = "searxng,duckduckgo";"##, &[])?;
    app.panel.send_keys(&app.panel.find("#searxng-url")?, "https://searx.example.org/")?;
    click("#settings-save")?;
    app.panel.wait_text("#settings-status", UI_TIMEOUT, |t| !t.trim().is_empty() && !t.ends_with('…'))?;
    // The Brave key goes to the keyring, and the field is cleared.
    app.panel.send_keys(&app.panel.find("#brave-key")?, &key)?;
    click("#settings-save")?;
    app.panel.wait_script(
        r##"return document.querySelector("#brave-key-state").classList.contains("saved");"##,
        UI_TIMEOUT,
    )?;
    assert_eq!(app.panel.execute(r##"return document.querySelector("#brave-key").value;"##, &[])?, "");
    app.screenshot("search-settings")?;
    let found = Command::new("secret-tool").args(["search", "--all", "service", "halley"]).output()?;
    let listing = String::from_utf8_lossy(&found.stdout).into_owned();
    assert!(listing.contains(&key) && listing.contains("search-brave:"), "the key is not in the keyring: {listing}");

    // Shown again as saved by the core after going away and back.
    app.panel.click(&app.panel.wait_visible("[data-testid=back-to-chat]", UI_TIMEOUT)?)?;
    app.panel.click(&app.panel.wait_visible("#settings-open", UI_TIMEOUT)?)?;
    app.panel.wait_script(
        r##"return document.querySelector("#searxng-url").value === "https://searx.example.org";"##,
        UI_TIMEOUT,
    )?;
    let order = app.panel.execute(r##"return document.querySelector("#search-order").value;"##, &[])?;
    assert_eq!(order, "searxng,duckduckgo");
    for entry in walk(&app.env.data_dir()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(&key), "the key is in {}", entry.display());
    }
    click("#brave-key-delete")?;
    app.panel.wait_script(
        r##"return !document.querySelector("#brave-key-state").classList.contains("saved");"##,
        UI_TIMEOUT,
    )?;
    app.stop()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with("browser-profile") {
                    out.extend(walk(&p));
                }
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn a_captcha_opens_the_hand_off_window_which_closes_when_the_challenge_is_gone() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let site = FixtureServer::start();
    // The (simulated) user solves the CAPTCHA in the browser after 6 s.
    let model = ModelServer::start(captcha_script(&site, 6000, 60000));
    let app = App::start(&model, "challenge")?;
    app.panel.send_task("Đăng nhập giúp tôi", UI_TIMEOUT)?;
    let known = vec![app.panel_handle.clone()];
    let dialog = app.panel.wait_new_window(&known, RUN_TIMEOUT).context("the hand-off window did not open")?;
    let url = app.panel.wait_text("#challenge-url", UI_TIMEOUT, |t| !t.trim().is_empty())?;
    assert!(url.contains("captcha.html"), "{url}");
    app.panel.wait_visible("#done", UI_TIMEOUT)?;
    // Never answered here: the window goes away by itself once the page
    // shows no challenge any more.
    app.panel.wait_for("the hand-off window to close", RUN_TIMEOUT, |s| {
        Ok((!s.window_handles()?.contains(&dialog)).then_some(()))
    })?;
    app.panel.switch_to_window(&app.panel_handle)?;
    app.panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("xác minh"))?;
    app.panel.wait_count(r#"#timeline .call[data-tool="human_solve_challenge"][data-status="ok"]"#, 1, UI_TIMEOUT)?;
    app.stop()
}

/// The settings' Accounts section against a real OpenID server
/// (oidc-provider): connect (the panel shows the sign-in URL; the test
/// plays the user at the provider), the account listed with its scopes and
/// its refresh token in the Secret Service only, then disconnect (revoked,
/// keyring entry gone).
#[test]
fn accounts_connect_and_disconnect_from_the_settings() -> Result<()> {
    use crate::common::oidc::{Consent, OidcServer, User, visit};
    if let Some(why) = skip_reason()? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let server = OidcServer::start(60);
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, "accounts")?;
    let login = format!("e2e{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let name = format!("oidc:{login}@example.test");
    let secret = || {
        let out = Command::new("secret-tool")
            .args(["lookup", "service", "halley", "username", &format!("oauth:{name}")])
            .output();
        out.ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };

    let open = app.panel.wait_visible("#settings-open", UI_TIMEOUT)?;
    app.panel.click(&open)?;
    app.panel.wait_text("#accounts", UI_TIMEOUT, |t| !t.trim().is_empty())?;
    app.panel.execute(r##"document.querySelector("#account-provider").value = "oidc";"##, &[])?;
    app.panel.send_keys(&app.panel.find("#account-issuer")?, &server.issuer)?;
    app.panel.send_keys(&app.panel.find("#account-client-id")?, OidcServer::CLIENT_ID)?;
    app.panel.send_keys(&app.panel.find("#account-scopes")?, "openid email offline_access")?;
    app.panel.click(&app.panel.find("#account-connect")?)?;
    app.panel.wait_script(r##"return !!document.querySelector("#accounts-status").dataset.url;"##, UI_TIMEOUT)?;
    let url =
        app.panel.attribute(&app.panel.find("#accounts-status")?, "data-url")?.context("the sign-in URL is shown")?;
    let rt = tokio::runtime::Runtime::new()?;
    let callback = rt.block_on(User::new().sign_in(&url, &login, Consent::Grant));
    let (status, page) = rt.block_on(visit(&callback)).context("the loopback listener answers")?;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("You can close this tab"), "{page}");

    let row = format!(r#".account[data-account="{name}"]"#);
    app.panel.wait_visible(&row, UI_TIMEOUT)?;
    let text = app.panel.wait_text(&row, UI_TIMEOUT, |t| t.contains("offline_access"))?;
    assert!(text.contains("connected") && text.contains("openid"), "{text}");
    app.screenshot("accounts")?;
    let refresh = secret().context("the refresh token is in the Secret Service")?;
    for entry in walk(&app.env.data_dir()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(refresh.trim()), "a token in {}", entry.display());
    }

    app.panel.click(&app.panel.find(&format!("{row} .disconnect-account"))?)?;
    app.panel.wait_text("#accounts", UI_TIMEOUT, |t| !t.contains(&name))?;
    assert_eq!(secret(), None, "the keyring entry is deleted");
    app.stop()
}

/// A returning user at a provider that remembers the sign-in and the
/// consent: Connect in the settings opens the sign-in page in the managed
/// Chromium, the provider sends it straight back to the loopback callback,
/// and the account is listed (issue 29: the panel waited for the page's load
/// while nobody answered the callback, for good).
#[test]
fn accounts_connect_completes_when_the_provider_redirects_at_once() -> Result<()> {
    use crate::common::oidc::OidcServer;
    if let Some(why) = skip_reason()? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let login = format!("e2e{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let name = format!("oidc:{login}@example.test");
    let server = OidcServer::remembering(60, &login);
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, "accounts-at-once")?;

    let open = app.panel.wait_visible("#settings-open", UI_TIMEOUT)?;
    app.panel.click(&open)?;
    app.panel.wait_text("#accounts", UI_TIMEOUT, |t| !t.trim().is_empty())?;
    app.panel.execute(r##"document.querySelector("#account-provider").value = "oidc";"##, &[])?;
    app.panel.send_keys(&app.panel.find("#account-issuer")?, &server.issuer)?;
    app.panel.send_keys(&app.panel.find("#account-client-id")?, OidcServer::CLIENT_ID)?;
    app.panel.send_keys(&app.panel.find("#account-scopes")?, "openid email offline_access")?;
    let started = std::time::Instant::now();
    app.panel.click(&app.panel.find("#account-connect")?)?;
    let row = format!(r#".account[data-account="{name}"]"#);
    let text = app.panel.wait_text(&row, RUN_TIMEOUT, |t| t.contains("offline_access"))?;
    assert!(text.contains("connected"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(40), "took {:?}", started.elapsed());
    app.panel.wait_script(r##"return !document.querySelector("#account-connect").disabled;"##, UI_TIMEOUT)?;
    app.panel.click(&app.panel.find(&format!("{row} .disconnect-account"))?)?;
    app.panel.wait_text("#accounts", UI_TIMEOUT, |t| !t.contains(&name))?;
    app.stop()
}

/// The status of `GET /api/v1/tools` on the app's local API with `token`.
fn api_status(port: u16, token: &str) -> Result<u16> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        stream,
        "GET /api/v1/tools HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.split_whitespace().nth(1).and_then(|s| s.parse().ok()).context("an HTTP status")
}

/// The settings' Local API section shows the address the app serves on and
/// the keyring's token (hidden until Show); Rotate asks first, then the
/// running API refuses the old token and accepts the new one at once. The
/// MCP servers section adds server-filesystem (tests/mcp-peers) on stdio,
/// lists its tools, and removes it after asking.
#[test]
fn the_api_token_and_an_mcp_server_from_the_settings() -> Result<()> {
    if let Some(why) = skip_reason()? {
        eprintln!("skipped: {why}");
        return Ok(());
    }
    let _desktop = crate::common::desktop()?;
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, "api-token")?;
    let old = app.api_token()?;
    app.wait_api()?;
    let open = app.panel.wait_visible("#settings-open", UI_TIMEOUT)?;
    app.panel.click(&open)?;
    let address = format!("http://127.0.0.1:{}", app.api_port);
    app.panel.wait_text("#api-address", UI_TIMEOUT, |t| t == address)?;
    // The model's status is shown above first (the working model's list
    // moves the sections below it down): clicked before, a button moves.
    app.panel.wait_text("#model-info", UI_TIMEOUT, |t| !t.is_empty())?;
    let hidden = app.panel.wait_text("#api-token", UI_TIMEOUT, |t| t.starts_with("hly_"))?;
    assert!(!hidden.contains(&old[4..12]), "hidden by default: {hidden}");
    app.panel.click(&app.panel.find("#api-token-show")?)?;
    app.panel.wait_text("#api-token", UI_TIMEOUT, |t| t == old)?;
    assert_eq!(api_status(app.api_port, &old)?, 200);

    app.panel.click(&app.panel.find("#api-token-rotate")?)?;
    app.panel.wait_text("#api-rotate-ask", UI_TIMEOUT, |t| t.contains("stop working"))?;
    app.panel.click(&app.panel.find("#api-token-rotate-confirm")?)?;
    let new = app.panel.wait_text("#api-token", UI_TIMEOUT, |t| t.starts_with("hly_") && t != old)?;
    assert_eq!(new, app.api_token()?, "the keyring holds the shown token");
    assert_eq!(api_status(app.api_port, &old)?, 401, "the old token is refused at once");
    assert_eq!(api_status(app.api_port, &new)?, 200, "the new token works at once");
    app.screenshot("api-token")?;

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let peers = Command::new(root.join("scripts/mcp-peers.sh")).output()?;
    if !peers.status.success() {
        bail!("mcp-peers.sh: {}", String::from_utf8_lossy(&peers.stderr));
    }
    let fs = root.join("tests/mcp-peers/node_modules/.bin/mcp-server-filesystem");
    let dir = app.env.data_dir();
    app.panel.send_keys(&app.panel.find("#mcp-name")?, "files")?;
    app.panel.send_keys(&app.panel.find("#mcp-command")?, &format!("\"{}\" \"{}\"", fs.display(), dir.display()))?;
    app.panel.click(&app.panel.find("#mcp-add")?)?;
    let row = r#".mcp-server[data-mcp="files"]"#;
    let text = app.panel.wait_text(row, UI_TIMEOUT, |t| t.contains("tools"))?;
    assert!(text.contains("stdio") && text.contains("mcp-server-filesystem"), "{text}");
    app.screenshot("mcp-server")?;
    let remove = format!("{row} .remove-mcp");
    app.panel.click(&app.panel.find(&remove)?)?;
    app.panel.wait_text(&remove, UI_TIMEOUT, |t| t.contains("files?"))?;
    assert!(app.panel.find_all(row)?.len() == 1, "the first click only asks");
    app.panel.click(&app.panel.find(&remove)?)?;
    app.panel.wait_text("#mcp-servers", UI_TIMEOUT, |t| !t.contains("files"))?;
    app.stop()
}

/// Done-when of the local API: a client application in a few lines of
/// Python (`tests/peers/notes_client.py`, `requests`) registers its
/// function with the running app; a task typed in the panel needs it; the
/// call is approved in the native dialog (`defaultRequiresApproval`); the
/// client's function runs with the parsed arguments and the answer streams
/// into the panel.
#[test]
fn a_python_client_function_answers_a_task_typed_in_the_panel() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let peers = Command::new(root.join("scripts/python-peers.sh")).output()?;
    if !peers.status.success() {
        bail!("python-peers.sh: {}", String::from_utf8_lossy(&peers.stderr));
    }
    let python = String::from_utf8(peers.stdout)?.trim().to_owned();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("query_local_db", json!({"query": "phở", "category": "food"}))]),
        Turn::text("Bạn có ghi chú: Phở bò Nam Định (65.000 ₫)."),
    ]);
    let app = App::start(&model, "client-tool")?;
    let token = app.api_token()?;
    let base = app.wait_api()?;
    let mut client = Command::new(&python)
        .arg(root.join("tests/peers/notes_client.py"))
        .args([&base, &token])
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(client.stdout.take().context("stdout")?));
    let ready = lines.next().context("the client said nothing")??;
    assert_eq!(ready, "listening");

    app.panel.send_task("Tìm ghi chú về phở", UI_TIMEOUT)?;
    let summary = app.answer_dialog("#approve")?;
    assert!(summary.contains("query_local_db"), "{summary}");
    let answer = app.panel.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Nam Định"))?;
    assert!(answer.contains("65.000 ₫"), "{answer}");
    app.panel.wait_count(r#"#timeline .call[data-tool="query_local_db"][data-status="ok"]"#, 1, UI_TIMEOUT)?;
    let done: serde_json::Value = serde_json::from_str(&lines.next().context("the client's report")??)?;
    assert_eq!(done["call"]["arguments"], json!({"query": "phở", "category": "food"}));
    assert_eq!(done["posted"], json!(200));
    assert!(client.wait()?.success());
    // The client's own result reached the model.
    let fed = model.requests()[1]["messages"].to_string();
    assert!(fed.contains("Phở bò Nam Định"), "{fed}");
    app.screenshot("client-tool")?;
    app.stop()
}
