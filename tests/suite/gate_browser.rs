//! The gatekeeper on real Chromium: with nobody to approve, nothing that
//! submits, pays or leaks reaches the server; an approval covers exactly
//! the action approved; every decision is in the audit log.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use halley::core::BrowserSettings;
use halley::gate::{ConfirmationRequest, Confirmer};
use halley::tools::Registry;
use halley::tools::catalogue::safety::ConfirmResultV1;
use halley::{CallContext, Core, DataDir, FrontEnd};
use pretty_assertions::assert_eq;
use serde_json::{Map, json};

use crate::common::Halley;
use crate::common::browser::{have_browser, step};
use crate::common::fixtures::FixtureServer;

/// Answers from a script (then no), and remembers what it was asked.
#[derive(Debug, Default)]
pub(super) struct Scripted {
    pub(super) answers: Mutex<VecDeque<bool>>,
    /// Answer "always, for this session".
    pub(super) remember: bool,
    pub(super) asked: Mutex<Vec<ConfirmationRequest>>,
    /// Take this long to answer (the user reads the dialog).
    pub(super) think_ms: u64,
}

impl Scripted {
    pub(super) fn new(answers: &[bool]) -> Arc<Scripted> {
        Arc::new(Scripted { answers: Mutex::new(answers.iter().copied().collect()), ..Scripted::default() })
    }
}

impl Confirmer for Scripted {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async move {
            self.asked.lock().unwrap().push(request.clone());
            tokio::time::sleep(std::time::Duration::from_millis(self.think_ms)).await;
            let yes = self.answers.lock().unwrap().pop_front().unwrap_or(false);
            let mut user_edits = Map::new();
            if self.remember {
                user_edits.insert("remember".into(), "session".into());
            }
            ConfirmResultV1 { approved: yes, user_edits, reason: if yes { String::new() } else { "no".into() } }
        })
    }
}

/// A headless core, and the context of calls answered by `confirmer`.
pub(super) async fn core_with(dir: &std::path::Path, confirmer: Arc<Scripted>) -> (Core, CallContext) {
    let settings = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let core = halley::host::open_core_full(DataDir::at(dir.join("data")), Registry::builtin().unwrap(), settings)
        .await
        .unwrap();
    (core, CallContext::new(FrontEnd::Cli).with_confirmer(confirmer))
}

#[test]
fn with_nobody_to_approve_nothing_is_bought_submitted_or_leaked() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let set = h.call("user_profile_set", &json!({"set": {"travel.passport_no": "B1234567", "travel.seat": "cửa sổ"}}));
    assert_eq!(set.code, 0, "{}", set.stderr);
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_click", json!({"selector": "role=button[name=\"Mua ngay\"]"})),
            step("browser_press_key", json!({"selector": "#quantity", "keys": ["Enter"]})),
            step("browser_click", json!({"selector": "#add-to-cart"})),
            step("browser_navigate", json!({"url": site.url("collect?p=B1234567")})),
            step("browser_navigate", json!({"url": site.url("collect?p=QjEyMzQ1Njc=")})),
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_type", json!({"selector": "#ho_ten", "text": "An"})),
            step("browser_click", json!({"selector": "text=Gửi hồ sơ"})),
            step("browser_navigate", json!({"url": site.url("otp.html")})),
            step("browser_type", json!({"selector": "#otp", "text": "123456"})),
        ],
        &["--confirm", "deny"],
    );
    s.ok(0);
    assert_eq!(s.err(1), "denied", "buying asks, and nobody approved");
    assert_eq!(s.err(2), "denied", "Enter in the checkout form is a purchase too");
    s.ok(3);
    assert_eq!(s.err(4), "denied", "the URL carries the passport number");
    assert_eq!(s.err(5), "denied", "base64 does not hide it");
    s.ok(7);
    assert_eq!(s.err(8), "denied");
    assert_eq!(s.err(10), "denied", "Halley never types a one-time code");
    let msg = s.result(10)["error"]["message"].as_str().unwrap().to_owned();
    assert!(msg.contains("human_solve_challenge"), "{msg}");
    assert!(site.posts().is_empty(), "nothing was sent: {:?}", site.posts());
    assert_eq!(site.hits("collect"), 0);

    // Every decision is in the audit log, with both scopes and no values.
    let audit = h.run(&["audit", "--json"]);
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    let rows = audit.json();
    let rows = rows.as_array().unwrap();
    let denied: Vec<&str> =
        rows.iter().filter(|r| r["decision"] == "deny").filter_map(|r| r["tool"].as_str()).collect();
    assert_eq!(denied.len(), 6, "{rows:?}");
    assert!(!audit.stdout.contains("B1234567"), "no secret in the audit log");
    let buy = rows.iter().rev().find(|r| r["tool"] == "browser_click" && r["decision"] == "deny").unwrap();
    assert_eq!(buy["effective"], "PAYMENT", "{buy}");
}

/// `(status, permission_scope, risk_level, error code)` of each result.
fn graded(s: &crate::common::browser::Script) -> Vec<(String, String, String, String)> {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    (0..s.results.len())
        .map(|i| {
            let r = s.result(i);
            (text(&r["status"]), text(&r["permission_scope"]), text(&r["risk_level"]), text(&r["error"]["code"]))
        })
        .collect()
}

#[test]
fn a_result_reports_the_scope_the_gate_graded_not_the_declared_one() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let row = |status: &str, scope: &str, risk: &str, code: &str| {
        (status.to_owned(), scope.to_owned(), risk.to_owned(), code.to_owned())
    };
    // Every click here is declared WRITE_NON_DESTRUCTIVE/low.
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_click", json!({"selector": "role=button[name=\"Mua ngay\"]"})),
            step("browser_retry", json!({"action": {"tool": "browser_click", "arguments": {"selector": "#buy-now"}}})),
            step("browser_click", json!({"selector": "#add-to-cart"})),
            step("browser_click", json!({"selector": "text=Chính sách bảo mật"})),
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_click", json!({"selector": "text=Gửi hồ sơ"})),
            // Never reached the gate: the declared scope.
            step("browser_click", json!({"selector": "#no-such-button"})),
        ],
        &["--confirm", "deny"],
    );
    assert_eq!(
        graded(&s),
        vec![
            row("ok", "WRITE_NON_DESTRUCTIVE", "low", ""),
            row("error", "PAYMENT", "high", "denied"),
            row("error", "PAYMENT", "high", "denied"),
            row("ok", "WRITE_NON_DESTRUCTIVE", "low", ""),
            row("ok", "WRITE_NON_DESTRUCTIVE", "low", ""),
            row("ok", "WRITE_NON_DESTRUCTIVE", "low", ""),
            row("error", "SUBMIT", "medium", "denied"),
            row("error", "WRITE_NON_DESTRUCTIVE", "low", "element_not_found"),
        ],
        "stderr:\n{}",
        s.run.stderr
    );
    assert!(site.posts().is_empty(), "nothing was sent: {:?}", site.posts());

    // Approved, the purchase runs, and its result still says what it was.
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_click", json!({"selector": "#buy-now"})),
        ],
        &["--yes"],
    );
    assert_eq!(s.ok(1)["navigated"], true);
    assert_eq!(graded(&s)[1], row("ok", "PAYMENT", "high", ""));
    assert_eq!(site.posts().len(), 1);
}

#[test]
fn approved_once_it_runs_once() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_click", json!({"selector": "#buy-now"})),
        ],
        &["--yes"],
    );
    assert_eq!(s.ok(1)["navigated"], true);
    let posts = site.posts();
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].path, "/checkout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_that_changes_its_action_after_approval_asks_again() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    // Approve the order, but take a while to read it; then refuse the
    // changed one.
    let confirmer =
        Arc::new(Scripted { answers: Mutex::new(VecDeque::from([true, false])), think_ms: 900, ..Scripted::default() });
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("switch-action.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#place-order"})).await;
    assert_eq!(r.error.as_ref().map(|e| e.code.as_str()), Some("denied"), "{r:?}");
    let asked = confirmer.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "asked again when the action changed");
    assert!(asked[0].destination.as_deref().unwrap().ends_with("/checkout"), "{:?}", asked[0]);
    assert!(asked[1].destination.as_deref().unwrap().ends_with("/collect"), "{:?}", asked[1]);
    assert!(asked[0].action_summary.contains("Đặt hàng"), "{}", asked[0].action_summary);
    assert_eq!(asked[0].page_total.as_deref(), Some("Tổng cộng: 21.490.000 ₫"));
    assert!(site.posts().is_empty(), "nothing was sent: {:?}", site.posts());
    core.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_confirmation_shows_the_fields_with_secrets_masked() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    // Typing the passport number is asked about (yes), the submit too (no).
    let confirmer = Arc::new(Scripted { answers: Mutex::new(VecDeque::from([true, false])), ..Scripted::default() });
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"travel.passport_no": "B7654321"}})).await;
    assert!(set.is_ok(), "{set:?}");
    for (tool, args) in [
        ("browser_navigate", json!({"url": site.url("form.html")})),
        ("browser_type", json!({"selector": "#ho_ten", "text": "Trần Bình"})),
        ("browser_type", json!({"selector": "#ghi_chu", "text": "Hộ chiếu B7654321"})),
    ] {
        let r = core.call_tool(&cx, tool, args).await;
        assert!(r.is_ok(), "{r:?}");
    }
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#submit"})).await;
    assert_eq!(r.error.as_ref().map(|e| e.code.as_str()), Some("denied"));
    let asked = confirmer.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:#?}");
    assert!(asked[0].risks.iter().any(|r| r.contains("types your travel.passport_no")), "{:?}", asked[0].risks);
    assert!(!serde_json::to_string(&asked[0]).unwrap().contains("B7654321"), "{:#?}", asked[0]);
    let req = &asked[1];
    let field = |name: &str| req.fields.iter().find(|f| f.name == name).unwrap().clone();
    assert_eq!(field("ho_ten").value, "Trần Bình");
    assert!(field("ghi_chu").masked, "a field carrying the passport number is masked");
    assert!(!serde_json::to_string(req).unwrap().contains("B7654321"));
    assert!(req.risks.iter().any(|r| r.contains("travel.passport_no")), "{:?}", req.risks);
    assert!(site.posts().is_empty());
    core.close().await;
}

#[test]
fn a_challenge_is_handed_to_the_user_and_the_run_goes_on_once_it_is_gone() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            // The (simulated) user solves the CAPTCHA 1.5 s after it shows.
            step("browser_navigate", json!({"url": site.url("captcha.html?solve_after=1500")})),
            step("browser_detect_state", json!({})),
            step(
                "human_solve_challenge",
                json!({"challenge_type": "captcha", "page_hint": "Xác minh", "timeout_ms": 20000}),
            ),
            step("browser_detect_state", json!({})),
            // Nobody solves this one.
            step("browser_navigate", json!({"url": site.url("captcha.html")})),
            step("human_solve_challenge", json!({"challenge_type": "captcha", "timeout_ms": 1500})),
            step("browser_click", json!({"selector": ".g-recaptcha iframe"})),
            // No challenge at all: nothing to wait for.
            step("browser_navigate", json!({"url": site.url("shop-us.html")})),
            step("human_solve_challenge", json!({"challenge_type": "otp", "timeout_ms": 5000})),
            step("human_solve_challenge", json!({"challenge_type": "otp", "tab_id": "tab-9"})),
        ],
        &["--confirm", "deny"],
    );
    assert_eq!(s.ok(1)["challenge"], "captcha");
    assert_eq!(s.ok(2), &json!({"outcome": "resolved"}));
    assert_eq!(s.ok(3)["challenge"], serde_json::Value::Null);
    assert_eq!(s.ok(5), &json!({"outcome": "timeout"}));
    assert_eq!(s.err(6), "denied", "Halley never clicks into a CAPTCHA");
    assert_eq!(s.ok(8), &json!({"outcome": "resolved"}));
    assert_eq!(s.err(9), "tab_not_found");
}

#[test]
fn the_model_can_ask_through_the_same_channel() {
    let h = Halley::new();
    let ask = json!({
        "action_summary": "Đặt vé HAN→NRT ngày 2026-02-10",
        "cost_estimate": {"amount": 12500000, "currency": "VND"},
        "fields_to_submit": {"name": "Nguyễn An", "passport_no": "B1234567"},
        "risks": ["Không hoàn tiền"]
    });
    let yes = h.run(&["tools", "call", "request_user_confirmation", "--yes", "--args", &ask.to_string()]);
    assert_eq!(yes.code, 0, "{}", yes.stderr);
    assert_eq!(yes.result()["data"]["approved"], true);
    let no = h.run(&["tools", "call", "request_user_confirmation", "--confirm", "deny", "--args", &ask.to_string()]);
    assert_eq!(no.code, 0, "an answer, even a no, is a result");
    assert_eq!(no.result()["data"]["approved"], false);
    let audit = h.run(&["audit", "--json"]);
    let rows = audit.json();
    let asked: Vec<&serde_json::Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["tool"] == "request_user_confirmation" && r["answered_by"] != "policy")
        .collect();
    assert_eq!(asked.len(), 2, "{rows}");
    assert!(!audit.stdout.contains("B1234567"));
}

#[test]
fn injected_text_is_flagged_and_a_model_that_obeys_it_is_stopped() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let set = h.call("user_profile_set", &json!({"set": {"travel.passport_no": "C7777777", "travel.seat": "cửa sổ"}}));
    assert_eq!(set.code, 0);
    // The model only ever sees the placeholder.
    let get = h.call("user_profile_get", &json!({"keys": ["travel"]}));
    let data = get.result()["data"].clone();
    assert_eq!(data["values"]["travel.passport_no"], "{{profile.travel.passport_no}}");
    assert_eq!(data["values"]["travel.seat"], "cửa sổ");
    assert_eq!(data["masked"], json!(["travel.passport_no"]));
    assert!(!get.stdout.contains("C7777777"));

    // A worst-case model reads the page and does what the hidden text says.
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("hidden.html")})),
            step("browser_snapshot", json!({})),
            step("browser_read_text", json!({})),
            step("browser_navigate", json!({"url": site.url("collect?passport=C7777777")})),
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_type", json!({"selector": "#ghi_chu", "text": "Hộ chiếu {{profile.travel.passport_no}}"})),
        ],
        &["--confirm", "deny"],
    );
    let snap = s.ok(1);
    let flagged: Vec<&str> = snap["flagged"].as_array().unwrap().iter().filter_map(|l| l.as_str()).collect();
    assert!(flagged.iter().any(|l| l.contains("INJECT_ARIA_LABEL")), "{flagged:?}");
    let text = snap["text"].as_str().unwrap();
    // Injections the page shows (alt text, a URL) are flagged; a 1-pixel
    // image is not shown at all.
    for marker in ["INJECT_ALT", "IGNORE+PREVIOUS"] {
        if text.contains(marker) {
            assert!(flagged.iter().any(|l| l.contains(marker)), "{marker} not flagged: {flagged:?}");
        }
    }
    assert!(
        s.ok(2).get("flagged").is_none_or(|f| f
            .as_array()
            .unwrap()
            .iter()
            .all(|l| !l.as_str().unwrap().contains("HIDDEN_")))
    );
    assert_eq!(s.err(3), "denied", "the passport number may not leave in a URL");
    assert_eq!(s.err(5), "denied", "filling the passport number into a page asks first");
    assert_eq!(site.hits("collect"), 0);
    assert!(site.posts().is_empty());

    // Approved, the real value is filled in; the model never saw it.
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_type", json!({"selector": "#ghi_chu", "text": "Hộ chiếu {{profile.travel.passport_no}}"})),
            step("browser_type", json!({"selector": "#ho_ten", "text": "{{profile.travel.no_such_key}}"})),
            step("browser_snapshot", json!({})),
        ],
        &["--yes"],
    );
    s.ok(1);
    assert_eq!(s.err(2), "invalid_arguments");
    let snap = s.ok(3)["text"].as_str().unwrap().to_owned();
    assert!(
        snap.contains("Hộ chiếu {{profile.travel.passport_no}}"),
        "the field holds the real value, the model sees the placeholder:\n{snap}"
    );
    assert!(!s.run.stdout.contains("C7777777"));
}

#[test]
fn the_users_rules_allow_a_site_or_forbid_a_tool() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let allow = h.run(&["rules", "add", "--site", &site.origin(), "allow", "--note", "my visa agency"]);
    assert_eq!(allow.code, 0, "{}", allow.stderr);
    let never = h.run(&["rules", "add", "--tool", "browser_upload_file", "never"]);
    assert_eq!(never.code, 0, "{}", never.stderr);
    let scan = h.write_file("scan.png", b"\x89PNG\r\n\x1a\nscan");
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("form.html")})),
            step("browser_upload_file", json!({"selector": "#passport", "file_ref": scan.display().to_string()})),
            step("browser_navigate", json!({"url": site.url("login.html")})),
            step("browser_type", json!({"selector": "#username", "text": "an"})),
            step("browser_type", json!({"selector": "#password", "text": "mật khẩu"})),
            step("browser_click", json!({"selector": "#login-button"})),
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_click", json!({"selector": "#buy-now"})),
        ],
        // Even approved in advance, `never` wins; nobody is asked for what
        // the site rule allows.
        &["--yes"],
    );
    assert_eq!(s.err(1), "denied", "a `never` rule beats --yes");
    assert_eq!(s.ok(5)["navigated"], true, "the site rule allows submitting there");
    s.ok(7);
    let posts: Vec<String> = site.posts().iter().map(|p| p.path.clone()).collect();
    assert_eq!(posts, vec!["/login".to_owned(), "/checkout".to_owned()]);
    let audit = h.run(&["audit", "--json"]).json();
    let by: Vec<(String, String)> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["tool"] == "browser_click")
        .map(|r| (r["effective"].as_str().unwrap().to_owned(), r["answered_by"].as_str().unwrap().to_owned()))
        .collect();
    // Newest first: the purchase was still put to the user (approved in
    // advance), the submit was allowed by the rule.
    assert_eq!(by, vec![("PAYMENT".to_owned(), "preapproved".to_owned()), ("SUBMIT".to_owned(), "rule".to_owned())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_for_this_session_covers_the_same_action_only() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Arc::new(Scripted {
        answers: Mutex::new(VecDeque::from([true, false])),
        remember: true,
        ..Scripted::default()
    });
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    for _ in 0..2 {
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("shop-vn.html")})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy-now"})).await;
        assert!(r.is_ok(), "{r:?}");
    }
    assert_eq!(confirmer.asked.lock().unwrap().len(), 1, "the second purchase on the same site was covered");
    assert_eq!(site.posts().len(), 2);
    // Another scope on the same site is asked about again (and refused).
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("form.html")})).await;
    assert!(r.is_ok());
    let scan = tmp.path().join("scan.png");
    std::fs::write(&scan, b"scan").unwrap();
    let r = core
        .call_tool(&cx, "browser_upload_file", json!({"selector": "#passport", "file_ref": scan.display().to_string()}))
        .await;
    assert_eq!(r.error.map(|e| e.code.as_str().to_owned()), Some("denied".to_owned()));
    assert_eq!(confirmer.asked.lock().unwrap().len(), 2);
    core.close().await;
}

#[test]
fn leaving_the_tasks_sites_asks_first() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_navigate", json!({"url": site.other_url("shop-us.html")})),
            step("browser_read_text", json!({"selector": "h1"})),
        ],
        &["--confirm", "deny", "--allow-origin", &site.origin()],
    );
    s.ok(0);
    assert_eq!(s.err(1), "denied");
    assert!(s.ok(2)["text"].as_str().unwrap().contains("Vivobook"), "still on the allowed site");
    assert_eq!(site.hits("shop-us.html"), 0);
}
