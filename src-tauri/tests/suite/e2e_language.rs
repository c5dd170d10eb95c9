//! One language everywhere (#43 item 5): the real app in Vietnamese, each
//! view walked with something in it (a finished run with a step that
//! failed, the palette's search, a watch with a price, a routine replayed,
//! the memory view, the conversations, the settings, the steps expanded),
//! and on each the visible text may hold no phrase of the English table
//! (`ui/src/i18n.ts`, read by this test) and no raw code (`snake_case`
//! such as `element_not_found` or a tool's name). Run under
//! `scripts/with-session.sh` (as `make test` does).

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::common::agent_app::{App, RUN_TIMEOUT, UI_TIMEOUT, buy_script, desktop_or_skip};
use crate::common::fixtures::{FixtureServer, WatchedPage};
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::webdriver::Session;
use crate::suite::e2e_watch::{click, type_into};
use crate::suite::screenshots::choose_language;

/// The entries (`key: "value",`) of one table of `ui/src/i18n.ts`.
fn table(source: &str, start: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in source.lines() {
        if line.starts_with(start) {
            inside = true;
            continue;
        }
        if inside && line.starts_with('}') {
            break;
        }
        if !inside {
            continue;
        }
        let line = line.trim();
        let Some((key, rest)) = line.split_once(": \"") else { continue };
        let Some(value) = rest.strip_suffix("\",").or_else(|| rest.strip_suffix('"')) else { continue };
        let key = key.trim_matches('"').to_owned();
        out.push((key, value.replace("\\\"", "\"").replace("\\n", "\n").replace("\\\\", "\\")));
    }
    out
}

/// Phrases of the English table a Vietnamese view must not show: each
/// value's text between its `{placeholders}`, two words at least, and
/// found in no Vietnamese value (product names, "MCP", "URL" are shared).
fn english_phrases() -> Result<Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/i18n.ts");
    let source = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let en = table(&source, "const en = {");
    let vi = table(&source, "const vi: Table = {");
    if en.len() < 300 || vi.len() < 300 {
        bail!("the tables were not read from {}: {} and {} entries", path.display(), en.len(), vi.len());
    }
    let every_vi: String = vi.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join("\n");
    let mut phrases: Vec<String> = Vec::new();
    for (_, value) in &en {
        let mut rest = value.as_str();
        let mut pieces = Vec::new();
        while let Some(open) = rest.find('{') {
            pieces.push(&rest[..open]);
            rest = rest[open..].find('}').map_or("", |close| &rest[open + close + 1..]);
        }
        pieces.push(rest);
        for piece in pieces {
            for line in piece.split('\n') {
                let phrase = line.trim_matches(|c: char| !c.is_alphanumeric());
                let words = phrase.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
                if words >= 2 && phrase.len() >= 8 && !every_vi.contains(phrase) && !phrases.iter().any(|p| p == phrase)
                {
                    phrases.push(phrase.to_owned());
                }
            }
        }
    }
    Ok(phrases)
}

/// What the visible text of the panel (every `details` opened) holds that
/// it must not: English phrases and raw codes, each with its line.
fn leftovers(s: &Session, phrases: &[String]) -> Result<Vec<String>> {
    let found = s.execute(
        r#"const [phrases] = arguments;
        for (const d of document.querySelectorAll("details")) d.open = true;
        // Addresses and file paths are the person's, not the UI's words.
        const text = document.body.innerText.replace(/\b[a-z]+:\/\/\S+/gi, " ").replace(/(^|\s)[~.]?\/\S+/g, " ");
        const lines = text.split("\n");
        const line = (needle) => (lines.find((l) => l.includes(needle)) || "").trim().slice(0, 160);
        const out = [];
        for (const p of phrases) {
          // Whole words only: "Run now" is not inside "Running".
          const re = new RegExp("(^|[^\\p{L}\\p{N}])" + p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "($|[^\\p{L}\\p{N}])", "u");
          if (re.test(text)) out.push(`English "${p}" in: ${line(p)}`);
        }
        for (const c of new Set(text.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) || [])) {
          out.push(`code "${c}" in: ${line(c)}`);
        }
        // English sentences the table does not hold (a core's message):
        // two of the words Vietnamese never writes.
        const english = /\b(the|is|are|cannot|was|has|have|with|this|that|which|been|would|should|your|you)\b/gi;
        for (const l of lines) {
          const words = new Set((l.match(english) || []).map((w) => w.toLowerCase()));
          if (words.size >= 2) out.push(`English sentence: ${l.trim().slice(0, 160)}`);
        }
        return out;"#,
        &[json!(phrases)],
    )?;
    Ok(found.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect()).unwrap_or_default())
}

/// axe-core's critical and serious findings on the page shown (the
/// script from `ui/node_modules`, put in the page once).
pub(crate) fn axe_violations(s: &Session, axe: &str) -> Result<Vec<String>> {
    if s.execute("return typeof window.axe === 'object';", &[])? != json!(true) {
        s.execute(&format!("{axe}\n;return typeof window.axe;"), &[])?;
    }
    s.execute(
        r#"window.__axe = null;
        axe.run(document, { resultTypes: ["violations"] }).then(
          // Critical and serious ones, and a window without its main landmark.
          (r) => { window.__axe = r.violations.filter((v) => v.impact === "critical" || v.impact === "serious" || v.id === "landmark-one-main")
            .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`); },
          (e) => { window.__axe = [`axe failed: ${e}`]; });
        return true;"#,
        &[],
    )?;
    let found = s.wait_for("axe-core's answer", UI_TIMEOUT, |s| {
        let r = s.execute("return window.__axe;", &[])?;
        Ok((!r.is_null()).then_some(r))
    })?;
    Ok(found.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect()).unwrap_or_default())
}

fn product(name: &str, price: u64) -> WatchedPage {
    WatchedPage { name: name.into(), price, in_stock: true, ..Default::default() }
}

#[test]
fn every_view_in_vietnamese_shows_no_english_and_no_codes() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let phrases = english_phrases()?;
    assert!(phrases.len() > 500, "{} phrases", phrases.len());
    for known in ["Save schedule", "Run every", "Test connection"] {
        assert!(phrases.iter().any(|p| p == known), "{known:?} not among the English phrases");
    }
    let site = FixtureServer::start();
    site.set_page("lang-laptop", product("Laptop ASUS Vivobook 15", 21_490_000));
    site.set_page("lang-watch", product("Tai nghe W7", 1_990_000));
    let url = site.url("watched/lang-laptop");
    let model = ModelServer::start(vec![
        // A run whose second step fails (no such element), then answers.
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": url}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#khong-co-nut-nay"}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_extract",
            json!({"schema": {"name": "string", "price": "number"}}),
        )]),
        Turn::text("Laptop **ASUS Vivobook 15** giá 21.490.000 ₫."),
    ]);
    let app = App::start_with(&model, "language-vi", &[("HALLEY_MODEL", "scripted-model")])?;
    let s = &app.panel;
    let mut found: Vec<String> = Vec::new();
    let axe_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/node_modules/axe-core/axe.min.js");
    let axe =
        std::fs::read_to_string(&axe_path).with_context(|| format!("{} (make ui installs it)", axe_path.display()))?;
    let mut check = |view: &str, s: &Session| -> Result<()> {
        for f in leftovers(s, &phrases)? {
            found.push(format!("{view}: {f}"));
        }
        for v in axe_violations(s, &axe)? {
            found.push(format!("{view}: axe {v}"));
        }
        Ok(())
    };

    choose_language(s, "vi")?;
    s.wait_text("#model-info", UI_TIMEOUT, |t| !t.is_empty())?;
    // The check finds what it looks for: a phrase, a code, a sentence.
    s.execute(
        r#"const d = document.createElement("p"); d.id = "probe"; d.textContent = "Save schedule · element_not_found · the page has no element";
        document.body.append(d);"#,
        &[],
    )?;
    let probe = leftovers(s, &phrases)?;
    s.execute(r##"document.querySelector("#probe").remove();"##, &[])?;
    assert_eq!(probe.len(), 3, "{probe:#?}");
    // A per-site rule: the tool chosen by its words, shown by them.
    s.wait_script(r##"return document.querySelectorAll("#rule-tool option").length > 20;"##, UI_TIMEOUT)?;
    type_into(s, "#rule-site", "*.shop.vn")?;
    s.execute(r##"document.querySelector("#rule-tool").value = "browser_click";"##, &[])?;
    click(s, "#rule-add")?;
    let rule = s.wait_text("#rules .rule .rule-what", UI_TIMEOUT, |t| !t.is_empty())?;
    assert_eq!(rule, "*.shop.vn · Bấm trên trang");
    check("settings", s)?;
    click(s, "#settings-view [data-testid=back-to-chat]")?;

    // The chat: a finished run, its failed step and its answer.
    s.send_task("Laptop này giá bao nhiêu?", UI_TIMEOUT)?;
    s.wait_text(".msg.assistant:last-of-type", RUN_TIMEOUT, |t| t.contains("21.490.000"))?;
    s.wait_script(r#"return !document.querySelector(".msg.assistant.streaming");"#, RUN_TIMEOUT)?;
    s.wait_visible(".msg.assistant:last-of-type .save-routine", UI_TIMEOUT)?;
    check("chat", s)?;

    // Saved as a routine and replayed from the Routines view.
    click(s, ".msg.assistant:last-of-type .save-routine")?;
    s.wait_visible("#save-routine-dialog #routine-name", UI_TIMEOUT)?;
    type_into(s, "#routine-name", "giá laptop")?;
    click(s, "#routine-save")?;
    s.wait_text("#routine-saved-params .saved-param", UI_TIMEOUT, |t| !t.is_empty())?;
    check("save as routine", s)?;
    click(s, "#routine-save-close")?;
    click(s, "#routines-open")?;
    let row = "#routine-list .routine[data-routine='giá laptop']";
    s.wait_visible(row, UI_TIMEOUT)?;
    click(s, &format!("{row} .routine-run-now"))?;
    s.wait_text(&format!("{row} .routine-result"), RUN_TIMEOUT, |t| t.contains("21.490.000"))?;
    click(s, &format!("{row} .routine-run-open"))?;
    check("routines", s)?;

    // The payment question, in its own window: its summary, amount and
    // technical details (opened) in Vietnamese; denied.
    click(s, "#routines-view [data-testid=back-to-chat]")?;
    click(s, "#new-chat")?;
    for turn in buy_script(&site) {
        model.push(turn);
    }
    s.send_task("Mua laptop này cho tôi", UI_TIMEOUT)?;
    let dialog = s.wait_new_window(std::slice::from_ref(&app.panel_handle), RUN_TIMEOUT)?;
    s.wait_text("#headline", UI_TIMEOUT, |t| !t.is_empty())?;
    check("payment dialog", s)?;
    crate::suite::screenshots::deny_and_back(&app, &dialog)?;
    check("chat after a refusal", s)?;

    // The palette, searched in Vietnamese.
    click(s, "#palette-open")?;
    let search = s.wait_visible("#palette-search", UI_TIMEOUT)?;
    s.send_keys(&search, "giá")?;
    s.wait_visible(".palette-item", UI_TIMEOUT)?;
    check("palette", s)?;
    click(s, "#palette-close")?;

    // A watch with its price.
    click(s, "#watches-open")?;
    s.wait_visible("#watch-form", UI_TIMEOUT)?;
    type_into(s, "#watch-url", &site.url("watched/lang-watch"))?;
    type_into(s, "#watch-label", "Tai nghe W7")?;
    type_into(s, "#watch-below", "1.500.000 ₫")?;
    click(s, "#watch-create")?;
    s.wait_text("#watch-list .watch .watch-price", RUN_TIMEOUT, |t| t.contains("1.990.000"))?;
    check("watches", s)?;

    // Memory, with no embedder set.
    click(s, "#memory-open")?;
    s.wait_visible("#memory-view", UI_TIMEOUT)?;
    check("memory", s)?;

    // The conversations.
    click(s, "#memory-view [data-testid=back-to-chat]")?;
    click(s, "#conversations-open")?;
    s.wait_count("#conversations .conversation", 2, UI_TIMEOUT)?;
    check("conversations", s)?;

    app.stop()?;
    drop(model);
    if !found.is_empty() {
        bail!("{} English phrase(s) or code(s) in the Vietnamese panel:\n{}", found.len(), found.join("\n"));
    }
    Ok(())
}
