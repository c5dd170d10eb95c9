//! The gate at the wire, on real Chromium with hostile pages of our own
//! (`tests/fixtures/site/hostile/`): whatever a control says ("Continue",
//! "Save", a label written with look-alike letters or split by invisible
//! ones), a field's Enter, a tick or a select that makes the page send an
//! order, the request is held and graded from what it is. With nobody to
//! approve, the shop receives nothing; approved, it receives exactly what
//! the dialog showed, and a request rewritten after the approval is asked
//! about again, shown as it really is.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::gate_browser::{Scripted, core_with};
use crate::common::Halley;
use crate::common::browser::{have_browser, step};
use crate::common::fixtures::FixtureServer;

/// Requests that reached the shop's order endpoints.
fn orders(site: &FixtureServer) -> Vec<String> {
    site.posts()
        .into_iter()
        .filter(|p| p.path == "/order" || p.path == "/api/v2/x")
        .map(|p| format!("{} {:?} {:?}", p.path, p.form, p.body))
        .collect()
}

#[test]
fn with_nobody_to_approve_no_page_script_places_an_order() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("hostile/order-div.html")})),
            step("browser_click", json!({"selector": "#next"})),
            step("browser_click", json!({"selector": "#save"})),
            step("browser_navigate", json!({"url": site.url("hostile/order-keys.html")})),
            step("browser_press_key", json!({"selector": "#note", "keys": ["Enter"]})),
            step("browser_check", json!({"selector": "#agree"})),
            step("browser_navigate", json!({"url": site.url("hostile/order-select.html")})),
            step("browser_select_option", json!({"selector": "#qty", "value": "2"})),
            step("browser_navigate", json!({"url": site.url("hostile/order-label.html")})),
            step("browser_click", json!({"selector": "#confusable"})),
            step("browser_navigate", json!({"url": site.url("hostile/order-label.html")})),
            step("browser_click", json!({"selector": "#split"})),
        ],
        &["--confirm", "deny"],
    );
    for i in [1, 2, 4, 5, 7, 9, 11] {
        assert_eq!(s.err(i), "denied", "step {i} placed an order unasked: {}", s.result(i));
    }
    let msg = s.result(1)["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert!(msg.contains("POST") && msg.contains("/order"), "the model is told what was blocked: {msg}");
    assert_eq!(orders(&site), Vec::<String>::new(), "the shop received an order");
}

#[test]
fn an_ordinary_add_to_cart_and_telemetry_ask_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_click", json!({"selector": "#add-to-cart"})),
            step("browser_scroll", json!({"amount_px": 600})),
        ],
        &["--confirm", "deny"],
    );
    s.ok(1);
    s.ok(2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_rewritten_at_click_time_is_asked_about_again_as_it_really_is() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    // The order as shown (qty 1) is approved; the rewritten one (qty 50) is not.
    let confirmer = Arc::new(Scripted { answers: Mutex::new(VecDeque::from([true, false])), ..Scripted::default() });
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("hostile/order-rewrite.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy"})).await;
    assert_eq!(r.error.as_ref().map(|e| e.code.as_str()), Some("denied"), "{r:?}");
    let asked = confirmer.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "asked again about what really leaves: {asked:#?}");
    let qty = |i: usize| asked[i].fields.iter().find(|f| f.name == "qty").map(|f| f.value.clone());
    assert_eq!(qty(0).as_deref(), Some("1"), "the first dialog showed the form as the page showed it");
    assert_eq!(qty(1).as_deref(), Some("50"), "the second showed what the page really sends");
    assert!(asked[1].destination.as_deref().unwrap_or_default().ends_with("/order"), "{:?}", asked[1]);
    assert_eq!(orders(&site), Vec::<String>::new(), "refused, nothing reached the shop");

    // Both approved: the shop receives exactly what the second dialog showed.
    let confirmer = Arc::new(Scripted { answers: Mutex::new(VecDeque::from([true, true])), ..Scripted::default() });
    let cx = cx.with_confirmer(Arc::clone(&confirmer) as Arc<dyn halley::gate::Confirmer>);
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("hostile/order-rewrite.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy"})).await;
    assert!(r.is_ok(), "{r:?}");
    let asked = confirmer.asked.lock().unwrap().clone();
    let shown: Vec<(String, String)> = asked[1].fields.iter().map(|f| (f.name.clone(), f.value.clone())).collect();
    let posts: Vec<_> = site.posts().into_iter().filter(|p| p.path == "/order").collect();
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert_eq!(posts[0].form, shown, "the shop received exactly what the dialog showed");
    core.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_form_is_sent_once_without_a_second_question() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[true]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("shop-vn.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy-now"})).await;
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(confirmer.asked.lock().unwrap().len(), 1, "the request was the one approved");
    assert_eq!(site.posts().len(), 1);
    core.close().await;
}

/// Every way out is checked (issue 27, item 5): a search query, a watch's
/// URL and an alert's link that carry the user's phone or passport number,
/// in any spelling, ask first; with nobody to approve, nothing leaves.
#[test]
fn the_users_values_do_not_leave_in_a_query_a_watch_or_an_alert() {
    let site = FixtureServer::start();
    let h = Halley::new();
    let set = h.call(
        "user_profile_set",
        &json!({"set": {"contact.mobile": "0901234567", "travel.passportNumber": "B7654321"}}),
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let searx = h.run(&["search", "settings", "--searxng-url", &site.url("searxng")]);
    assert_eq!(searx.code, 0, "{}", searx.stderr);
    let calls = [
        ("web_search", "contact.mobile", json!({"query": "ai có số 090 123 4567"})),
        (
            "watch_create",
            "travel.passportNumber",
            json!({"target": {"url": site.url("watched/x?p=B-7-6-5-4-3-2-1")}, "trigger_rules": [{"op": "changed"}], "frequency": "6h"}),
        ),
        (
            "notify_send",
            "contact.mobile",
            json!({"channel": "in-app", "title": "Xong", "message": "ok", "url": site.url("collect?m=%2B84901234567")}),
        ),
    ];
    for (tool, key, args) in calls {
        let r = h.run(&["tools", "call", tool, "--args", &args.to_string(), "--confirm", "deny"]);
        assert_ne!(r.code, 0, "{tool} went out unasked: {}", r.stdout);
        let said = format!("{}\n{}", r.stdout, r.stderr);
        assert!(said.contains("denied") && said.contains(&format!("your {key}")), "{tool}: {said}");
        assert!(!r.stdout.contains("0901234567") && !r.stderr.contains("B7654321"), "{tool} echoed the value");
    }
    assert_eq!(site.hits("/searxng/search"), 0, "the query reached the search provider");
    assert_eq!(site.hits("/watched/x"), 0, "the watch's URL was fetched");
}

/// A call dropped while its page's order waits for the user (a cancelled
/// run): the order is never sent, and the tab is not left holding its
/// requests (the next call on it works).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_dropped_while_the_user_is_asked_sends_nothing_and_frees_the_tab() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer =
        Arc::new(Scripted { answers: Mutex::new(VecDeque::from([true])), think_ms: 3000, ..Scripted::default() });
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("hostile/order-div.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let click = core.call_tool(&cx, "browser_click", json!({"selector": "#next"}));
    assert!(tokio::time::timeout(std::time::Duration::from_millis(1500), click).await.is_err(), "not asked");
    assert_eq!(confirmer.asked.lock().unwrap().len(), 1, "the order was held and asked about");
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert_eq!(orders(&site), Vec::<String>::new(), "the dropped call's order went out");
    let again = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("shop-vn.html")}));
    let again = tokio::time::timeout(std::time::Duration::from_secs(20), again).await.expect("the tab hangs");
    assert!(again.is_ok(), "{again:?}");
    core.close().await;
}
