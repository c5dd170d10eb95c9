//! Keys, downloads, frames and shadow roots, scrolling and retries on real
//! Chromium.

use pretty_assertions::assert_eq;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::common::Halley;
use crate::common::browser::{have_browser, step};
use crate::common::fixtures::{EXPORT_CSV, FixtureServer, site_dir};

#[test]
fn keys_chords_and_enter_in_a_form() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("keys.html")})),
            step("browser_type", json!({"selector": "#keys", "text": "xin chào"})),
            step("browser_press_key", json!({"keys": ["Ctrl+A", "Backspace"], "selector": "#keys"})),
            step("browser_type", json!({"selector": "#keys", "text": "mới"})),
            step("browser_press_key", json!({"keys": ["Tab", "ArrowDown", "Shift+Tab"]})),
            step("browser_read_text", json!({"selector": "#log"})),
            step("browser_get_dom", json!({"selector": "#keys"})),
            step("browser_type", json!({"selector": "#search-q", "text": "laptop gaming"})),
            step("browser_press_key", json!({"keys": ["Enter"]})),
            step("browser_read_text", json!({"selector": "#query"})),
            step("browser_press_key", json!({"keys": ["Hyper+Q"]})),
        ],
        // Enter submits the search form: approved in advance.
        &["--yes"],
    );
    assert_eq!(s.ok(2), &json!({"pressed": 2, "navigated": false}));
    let log = s.ok(5)["text"].as_str().unwrap().to_owned();
    for key in ["Ctrl+a", "Backspace", "Tab", "ArrowDown", "Shift+Tab"] {
        assert!(log.contains(key), "{key} missing from the key log:\n{log}");
    }
    assert!(s.ok(6)["html"].as_str().unwrap().contains("id=\"keys\""));
    assert_eq!(s.ok(8), &json!({"pressed": 1, "navigated": true}));
    assert_eq!(s.result(8)["current_url"], site.url("search?q=laptop+gaming"));
    assert!(s.ok(9)["text"].as_str().unwrap().contains("laptop gaming"));
    assert_eq!(s.err(10), "invalid_arguments");
    let search = site.requests().into_iter().find(|r| r.path == "/search").unwrap();
    assert_eq!(search.query_pairs(), vec![("q".to_owned(), "laptop gaming".to_owned())]);
}

#[test]
fn ctrl_a_then_typing_replaces_the_text() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let check = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("keys.html")})),
            step("browser_type", json!({"selector": "#search-q", "text": "cũ"})),
            step("browser_press_key", json!({"keys": ["Ctrl+A"], "selector": "#search-q"})),
            step("browser_type", json!({"selector": "#search-q", "text": "mới"})),
            step("browser_press_key", json!({"keys": ["Enter"]})),
        ],
        &["--yes"],
    );
    assert_eq!(check.ok(4)["navigated"], true);
    let search = site.requests().into_iter().rfind(|r| r.path == "/search").unwrap();
    assert_eq!(search.query_pairs(), vec![("q".to_owned(), "mới".to_owned())]);
}

#[test]
fn downloads_land_in_the_files_store() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("download.html")})),
            step("browser_download", json!({"url": site.url("files/booking.pdf")})),
            step("browser_download", json!({"selector": "#export-button", "save_as": "đơn hàng.csv"})),
            step("browser_download", json!({"selector": "#pdf-link"})),
            step("files_get", json!({"tags": ["download"]})),
            step("browser_download", json!({"url": site.other_url("shop-us.html"), "timeout_ms": 3000})),
            step("browser_download", json!({})),
        ],
        &[],
    );
    let pdf = std::fs::read(site_dir().join("files/booking.pdf")).unwrap();
    let first = s.ok(1);
    assert_eq!(first["file_name"], "booking.pdf");
    assert_eq!(first["size"], pdf.len());
    assert_eq!(first["mime"], "application/pdf");
    assert_eq!(first["sha256"], hex::encode(Sha256::digest(&pdf)));
    assert_eq!(s.result(1)["artifacts"][0]["type"], "download");
    let saved = url::Url::parse(first["ref"].as_str().unwrap()).unwrap().to_file_path().unwrap();
    assert_eq!(std::fs::read(saved).unwrap(), pdf);

    let csv = s.ok(2);
    assert_eq!(csv["file_name"], "đơn hàng.csv");
    let saved = url::Url::parse(csv["ref"].as_str().unwrap()).unwrap().to_file_path().unwrap();
    assert_eq!(std::fs::read_to_string(saved).unwrap(), EXPORT_CSV);
    assert_eq!(s.ok(3)["id"], first["id"], "the same file is stored once");
    assert_eq!(s.ok(4)["files"].as_array().unwrap().len(), 2);
    assert_eq!(s.err(5), "timeout", "a page on another site opens, it does not download");
    assert_eq!(s.err(6), "invalid_arguments");
    assert!(!h.data_dir().join("downloads").read_dir().unwrap().any(|e| e.is_ok()), "no leftovers");

    // The downloads went into memory's "Downloads" source, read there.
    let listed = h.run(&["source", "files", "Downloads", "--json"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let names: Vec<String> =
        listed.json().as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, vec!["booking.pdf", "đơn hàng.csv"]);
    let embed = h.run(&["memory", "embed"]);
    assert!(embed.stdout.contains("read 2 file(s)"), "{}\n{}", embed.stdout, embed.stderr);
    let found = h.run(&["memory", "search", "HLY-2024-0815", "--json"]);
    let first = found.json()[0].clone();
    assert_eq!(
        (&first["file"], &first["page"], &first["source"]),
        (&json!("booking.pdf"), &json!(1), &json!("Downloads"))
    );
}

#[test]
fn frames_shadow_roots_and_role_selectors() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("frames.html")})),
            step("browser_type", json!({"selector": "#coupon", "text": "TET2026", "frame": "iframe#inner"})),
            step("browser_click", json!({"selector": "role=button[name=\"Xác nhận\"]", "frame": "#inner"})),
            step("browser_read_text", json!({"selector": "#result", "frame": "#inner"})),
            // Without `frame`, same-origin frames and open shadow roots are searched too.
            step("browser_type", json!({"selector": "#qty", "text": "3", "clear_first": true})),
            step("browser_click", json!({"selector": "text=Thêm vào giỏ"})),
            step("browser_snapshot", json!({})),
            step("browser_read_text", json!({})),
            step("browser_click", json!({"selector": "text=CLOSED_SHADOW_TEXT"})),
            step("browser_click", json!({"selector": "div[[broken"})),
        ],
        &[],
    );
    assert_eq!(s.ok(3)["text"].as_str().unwrap().trim(), "Đã áp dụng mã TET2026");
    let snap = s.ok(6)["text"].as_str().unwrap().to_owned();
    assert!(snap.contains("Đã thêm 3 sản phẩm"), "{snap}");
    assert!(snap.contains("Xác nhận"), "the iframe is in the snapshot:\n{snap}");
    let text = s.ok(7)["text"].as_str().unwrap().to_owned();
    assert!(text.contains("Đã áp dụng mã TET2026") && text.contains("Đã thêm 3 sản phẩm"), "{text}");
    assert!(!text.contains("CLOSED_SHADOW_TEXT"), "closed shadow roots stay closed");
    assert_eq!(s.err(8), "element_not_found");
    assert!(matches!(s.err(9).as_str(), "invalid_arguments" | "element_not_found"));
}

#[test]
fn scrolling_pages_and_inner_lists() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("scroll.html")})),
            step("browser_scroll", json!({"amount_px": 1200})),
            step("browser_scroll", json!({"amount_px": -200})),
            step("browser_scroll", json!({"selector": "#bottom"})),
            step("browser_scroll", json!({"selector": "ul#inner", "amount_px": 100000})),
            step("browser_click", json!({"selector": "#bottom-button"})),
            step("browser_scroll", json!({})),
        ],
        &[],
    );
    assert_eq!(s.ok(1)["scroll_y"].as_f64(), Some(1200.0));
    assert_eq!(s.ok(2)["scroll_y"].as_f64(), Some(1000.0));
    assert!(s.ok(3)["scroll_y"].as_f64().unwrap() > 3000.0);
    assert_eq!(s.ok(4)["at_end"], true);
    s.ok(5);
    assert_eq!(s.err(6), "invalid_arguments");
}

#[test]
fn retry_waits_out_a_late_element_and_gives_up_clearly() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("delayed-price.html"), "wait_until": "domcontentloaded"})),
            step("browser_retry", json!({"action": {"tool": "browser_read_text", "arguments": {"selector": "#price"}}, "policy": {"max_attempts": 5, "backoff_ms": 500}})),
            step("browser_retry", json!({"action": {"tool": "browser_click", "arguments": {"selector": "#never"}}, "policy": {"max_attempts": 2, "backoff_ms": 10}})),
            step("browser_retry", json!({"action": {"tool": "browser_click", "arguments": {"selector": 5}}})),
        ],
        &[],
    );
    let ok = s.ok(1);
    assert!(ok["result"]["text"].as_str().unwrap().contains("19.990.000"), "{ok}");
    assert_eq!(s.err(2), "element_not_found");
    assert!(s.result(2)["error"]["message"].as_str().unwrap().contains("after 2 attempt"));
    assert_eq!(s.err(3), "invalid_arguments");
    // Uploads (and other calls past WRITE_NON_DESTRUCTIVE) cannot be wrapped.
    let run = h.call("browser_retry", &json!({"action": {"tool": "browser_upload_file", "arguments": {}}}));
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn every_tool_fails_clearly_on_bad_targets() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("login.html")})),
            step("browser_new_tab", json!({"url": "file:///etc/passwd"})),
            step("browser_close_tab", json!({"tab_id": "tab-42"})),
            step("browser_get_dom", json!({"selector": "#missing"})),
            step("browser_read_text", json!({"selector": "#missing"})),
            step("browser_extract_table", json!({})),
            step("browser_snapshot", json!({"page": 99})),
            step("browser_find", json!({"query": "không có trên trang"})),
            step("browser_select_option", json!({"selector": "button", "value": "x"})),
            step("browser_check", json!({"selector": "button"})),
            step("browser_scroll", json!({"selector": "#missing"})),
            step("browser_press_key", json!({"keys": ["Enter"], "selector": "#missing"})),
            step("browser_get_dom", json!({"max_chars": 100})),
            step("browser_list_tabs", json!({})),
        ],
        &["--yes"],
    );
    assert_eq!(s.err(1), "invalid_arguments");
    assert_eq!(s.err(2), "tab_not_found");
    assert_eq!(s.err(3), "element_not_found");
    assert_eq!(s.err(4), "element_not_found");
    assert_eq!(s.err(5), "element_not_found", "a page without a table");
    let past_end = s.result(6);
    assert!(past_end["status"] == "error" || past_end["data"]["pages"].as_u64() < Some(99), "{past_end}");
    assert_eq!(s.ok(7)["total"], 0);
    assert_eq!(s.err(8), "not_interactable");
    assert_eq!(s.err(9), "not_interactable", "a button is not a checkbox");
    assert_eq!(s.err(10), "element_not_found");
    assert_eq!(s.err(11), "element_not_found");
    let cut = s.ok(12);
    assert_eq!(cut["truncated"], true);
    let html = cut["html"].as_str().unwrap();
    assert!(html.contains("<!-- truncated"), "the cut says so: {cut}");
    assert!((html.chars().count() as u64) < cut["total_chars"].as_u64().unwrap());
    assert_eq!(s.ok(13)["tabs"].as_array().unwrap().len(), 1, "the bad new tab was never opened");
}
