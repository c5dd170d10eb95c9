//! Filling a real form: text, date, select, radio, checkboxes (a styled
//! one too), textarea, upload; what the server receives.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::Halley;
use crate::common::browser::{have_browser, step};
use crate::common::fixtures::FixtureServer;

fn passport(h: &Halley) -> std::path::PathBuf {
    h.write_file("hộ chiếu.png", b"\x89PNG\r\n\x1a\nfake passport scan")
}

#[test]
fn a_form_filled_with_every_kind_of_input_reaches_the_server_once() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let scan = passport(&h);
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_type", json!({"selector": "#ho_ten", "text": "Nguyễn Thị Thu Hà"})),
            step("browser_type", json!({"selector": "role=textbox[name=\"Email\"]", "text": "ha@example.vn"})),
            step("browser_type", json!({"selector": "role=date[name=\"Ngày sinh\"]", "text": "10/02/1990"})),
            step("browser_select_option", json!({"selector": "#quoc_tich", "label": "Nhật Bản"})),
            step("browser_check", json!({"selector": "input[value=cong_tac]"})),
            step("browser_check", json!({"selector": "#dong_y"})),
            step("browser_check", json!({"selector": "#dong_y"})),
            step("browser_check", json!({"selector": "#nhan_tin"})),
            step("browser_uncheck", json!({"selector": "#nhan_tin"})),
            step("browser_check", json!({"selector": "#nhan_tin"})),
            step("browser_type", json!({"selector": "#ghi_chu", "text": "Du lịch Tokyo, ở khách sạn Shinjuku"})),
            step("browser_type", json!({"selector": "#ghi_chu", "text": "Công tác Osaka", "clear_first": true})),
            step(
                "browser_upload_file",
                json!({"selector": "#passport", "file_ref": format!("file://{}", scan.display())}),
            ),
            step("browser_click", json!({"selector": "text=Gửi hồ sơ"})),
            step("browser_read_text", json!({})),
        ],
        &["--yes"],
    );
    assert_eq!(s.run.code, 0, "{}", s.run.stderr);
    assert_eq!(s.ok(4), &json!({"value": "jp", "label": "Nhật Bản"}));
    assert_eq!(s.ok(5), &json!({"checked": true, "changed": true}));
    assert_eq!(s.ok(7), &json!({"checked": true, "changed": false}), "checking twice is a no-op");
    assert_eq!(s.ok(8)["changed"], true, "the styled checkbox is ticked through its label");
    assert_eq!(s.ok(9), &json!({"checked": false, "changed": true}));
    assert_eq!(s.ok(13), &json!({"file_name": "hộ chiếu.png", "size": 26, "mime": "image/png"}));
    assert_eq!(s.ok(14)["navigated"], true);
    assert!(s.ok(15)["text"].as_str().unwrap().contains("Đã nhận hồ sơ"));

    let posts = site.posts();
    assert_eq!(posts.len(), 1, "{posts:?}");
    let post = &posts[0];
    assert_eq!(post.path, "/submit");
    let fields: Vec<(&str, &str)> = post.form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        fields,
        vec![
            ("ho_ten", "Nguyễn Thị Thu Hà"),
            ("email", "ha@example.vn"),
            ("ngay_sinh", "1990-02-10"),
            ("quoc_tich", "jp"),
            ("loai_visa", "cong_tac"),
            ("ghi_chu", "Công tác Osaka"),
            ("dong_y", "yes"),
            ("nhan_tin", "yes"),
        ]
    );
    assert_eq!(post.files.len(), 1);
    assert_eq!(post.files[0].field, "passport");
    assert_eq!(post.files[0].file_name, "hộ chiếu.png");
    assert_eq!(post.files[0].size, 26);
}

#[test]
fn an_upload_is_refused_without_consent_and_nothing_leaves() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let scan = passport(&h);
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_upload_file", json!({"selector": "#passport", "file_ref": scan.display().to_string()})),
            step("browser_detect_state", json!({})),
        ],
        &["--confirm", "deny"],
    );
    assert_eq!(s.err(1), "denied");
    assert_eq!(s.ok(2)["unsaved_form"], false, "no file was attached");
    assert!(site.posts().is_empty());
}

#[test]
fn form_errors_are_clear() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let stored = h.write_file("visa.pdf", b"%PDF-1.4 visa");
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_click", json!({"selector": "#no-such-button"})),
            step("browser_type", json!({"selector": "h1", "text": "x"})),
            step("browser_select_option", json!({"selector": "#quoc_tich", "label": "Pháp"})),
            step("browser_select_option", json!({"selector": "#quoc_tich"})),
            step("browser_uncheck", json!({"selector": "input[value=du_lich]"})),
            step(
                "browser_upload_file",
                json!({"selector": "#passport", "file_ref": "file:///nonexistent/passport.png"}),
            ),
            step("browser_upload_file", json!({"selector": "#ho_ten", "file_ref": stored.display().to_string()})),
            step("browser_click", json!({"ref": "e99999"})),
            step("browser_click", json!({})),
            step("files_store", json!({"file_path": stored.display().to_string()})),
        ],
        &["--yes"],
    );
    assert_eq!(s.err(1), "element_not_found");
    assert_eq!(s.err(2), "not_interactable");
    assert_eq!(s.err(3), "element_not_found");
    assert!(s.result(3)["error"]["message"].as_str().unwrap().contains("Nhật Bản"), "lists the options");
    assert_eq!(s.err(4), "invalid_arguments");
    assert_eq!(s.err(5), "not_interactable");
    assert_eq!(s.err(6), "file_not_found");
    assert_eq!(s.err(7), "not_interactable");
    assert_eq!(s.err(8), "element_not_found");
    assert_eq!(s.err(9), "invalid_arguments");
    // A stored file can be uploaded by its id.
    let id = s.ok(10)["file"]["id"].as_str().unwrap().to_owned();
    let again = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_upload_file", json!({"selector": "#passport", "file_ref": id})),
            step("browser_upload_file", json!({"selector": "#passport", "file_ref": "file-0000000000000000"})),
        ],
        &["--yes"],
    );
    assert_eq!(again.ok(1)["file_name"], "visa.pdf");
    assert_eq!(again.err(2), "file_not_found");
}

/// A page busy right after the click sends its form late, as a machine
/// under load delays a navigation's start past the click's usual window:
/// the click still waits for it (the page is asked once it has run two
/// more tasks), so the form reaches the site, once, while the action that
/// sent it is the one judging it, and the click says it navigated.
#[test]
fn a_form_sent_late_by_a_busy_page_is_the_clicks_own_navigation() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("busy-login.html")})),
            step("browser_type", json!({"selector": "#username", "text": "ha@example.vn"})),
            step("browser_click", json!({"selector": "#login-button"})),
        ],
        &["--yes"],
    );
    assert_eq!(s.run.code, 0, "{}", s.run.stderr);
    assert_eq!(s.ok(2)["navigated"], true, "{:?}", s.ok(2));
    let posts = site.posts();
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert_eq!(posts[0].path, "/login");
    assert_eq!(posts[0].field("username"), Some("ha@example.vn"));
}
