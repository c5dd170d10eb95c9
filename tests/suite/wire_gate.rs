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
use crate::common::fixtures::{FixtureServer, Host};

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

/// What a page at `other`'s port, named `localhost`, receives: another
/// site than the pages on 127.0.0.1 (a host, not a registrable domain).
fn elsewhere(site: &FixtureServer) -> String {
    site.other_origin().replace("127.0.0.1", "localhost")
}

fn collected(site: &FixtureServer, host: Host) -> Vec<String> {
    site.requests()
        .into_iter()
        .filter(|r| r.host == host && r.path == "/collect")
        .map(|r| format!("{} {:?} {:?}", r.method, r.query, r.form))
        .collect()
}

/// The user's data carried off as it is typed (issue 27, Why): the model
/// types the user's phone number, written its own way, into a field of a
/// page that sends every keystroke home and, in an image's address, to
/// another site. Typing it asks first; approved, the page's own site
/// gets what the user gave it, and the other site nothing unless the
/// user says yes to that too (the control: then it does arrive).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_typed_goes_only_where_the_user_said() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let page = format!("{}?to={}", site.url("hostile/typed-leak.html"), elsewhere(&site));
    let type_phone = json!({"selector": "#phone", "text": "090 123 4567"});
    for (answers, typed, leaked) in
        [(&[false][..], false, false), (&[true, false], true, false), (&[true, true], true, true)]
    {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(answers);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"contact.mobile": "0901234567"}})).await;
        assert!(set.is_ok(), "{set:?}");
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_type", type_phone.clone()).await;
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert!(asked[0].risks.iter().any(|w| w.contains("types your contact.mobile")), "{:#?}", asked[0]);
        let (home, away) = (collected(&site, Host::Main), collected(&site, Host::Other));
        assert_eq!(!home.is_empty(), typed, "answers {answers:?}: home got {home:?}");
        assert_eq!(!away.is_empty(), leaked, "answers {answers:?}: the other site got {away:?}");
        if typed {
            assert_eq!(asked.len(), 2, "only the other site's request asked again: {asked:#?}");
            assert!(asked[1].destination.as_deref().unwrap_or_default().starts_with("http://localhost"));
        }
        if !leaked {
            // Told in this call's result when the page sent it at once, else
            // (a busy machine: it came after the action returned, and the
            // tab's watch blocked it) at the next action on the tab.
            let told = match &r.error {
                Some(e) => e.code.as_str() == "denied",
                None => {
                    let next = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
                    next.error.as_ref().is_some_and(|e| e.message.contains("after the last action"))
                }
            };
            assert!(told, "the model was not told: {r:?}");
        }
        core.close().await;
    }
}

/// Approval for one thing, another sent (issue 27, Why): the page changes
/// the quantity while the dialog is open. The user is asked again with
/// what will really be sent, and the shop receives exactly that, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_changed_while_the_dialog_is_open_is_asked_about_again() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer =
        Arc::new(Scripted { answers: Mutex::new(VecDeque::from([true, true])), think_ms: 4500, ..Scripted::default() });
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("hostile/order-timer.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy"})).await;
    assert!(r.is_ok(), "{r:?}");
    let asked = confirmer.asked.lock().unwrap().clone();
    let qty = |i: usize| asked[i].fields.iter().find(|f| f.name == "qty").map(|f| f.value.clone());
    assert_eq!(asked.len(), 2, "{asked:#?}");
    assert_eq!((qty(0).as_deref(), qty(1).as_deref()), (Some("1"), Some("50")));
    let posts: Vec<_> = site.posts().into_iter().filter(|p| p.path == "/order").collect();
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert!(posts[0].form.contains(&("qty".into(), "50".into())), "what the second dialog showed: {posts:?}");
    core.close().await;
}

/// The user's data, whatever its key is called and however a page writes
/// it (issue 27, Why): `user_profile_get` hands the model placeholders, a
/// page's text reaches the model masked, and a navigation carrying the
/// card number asks first; with nobody to approve it goes nowhere.
#[test]
fn the_users_data_is_known_by_what_it_is() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let values = json!({
        "travel.passportNumber": "B7654321",
        "billing.cardNumber": "4111 1111 1111 1111",
        "contact.mobile": "0901234567",
        "contact.e-mail": "An.Nguyen@Example.vn",
        "dia_chi": "12 Nguyễn Huệ, Quận 1, TP. Hồ Chí Minh",
        "shopping.delivery.street": "12 Nguyễn Huệ",
    });
    let set = h.call("user_profile_set", &json!({"set": values}));
    assert_eq!(set.code, 0, "{}", set.stderr);
    let keys: Vec<&str> = values.as_object().unwrap().keys().map(String::as_str).collect();
    let s = h.browse(
        &[
            step("user_profile_get", json!({"keys": keys})),
            step("browser_navigate", json!({"url": site.url("hostile/leak-text.html")})),
            step("browser_read_text", json!({})),
            step("browser_navigate", json!({"url": site.url("collect?c=4111111111111111")})),
        ],
        &["--confirm", "deny"],
    );
    let got = s.result(0).to_string();
    for (key, value) in values.as_object().unwrap() {
        assert!(got.contains(&format!("{{{{profile.{key}}}}}")), "{key} not a placeholder: {got}");
        assert!(!got.contains(value.as_str().unwrap()), "{key} in clear: {got}");
    }
    s.ok(2);
    let text = s.result(2).to_string();
    for clear in ["B-7-6-5-4-3-2-1", "an.nguyen at example dot vn", "090 123 4567", "4111-1111-1111-1111"] {
        assert!(!text.contains(clear), "{clear} reached the model: {text}");
    }
    assert!(text.contains("21.490.000"), "the rest of the page is read: {text}");
    assert_eq!(s.err(3), "denied", "{}", s.result(3));
    assert_eq!(site.hits("/collect"), 0, "the card number left in a navigation");
}

/// An order sent later than the action (a timer, a slow chain of
/// handlers): the watch stays on the tab after the click returned, so it
/// is held and asked about all the same; refused, the shop receives
/// nothing; approved (the control), it arrives once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_sent_long_after_the_click_is_still_asked_about() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for yes in [false, true] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("hostile/order-later.html")})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#next"})).await;
        assert!(r.is_ok(), "the click itself sends nothing: {r:?}");
        assert!(confirmer.asked.lock().unwrap().is_empty(), "asked before the page sent anything");
        tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "the late order was asked about: {asked:#?}");
        assert!(asked[0].destination.as_deref().unwrap_or_default().ends_with("/order"), "{:?}", asked[0]);
        assert_eq!(orders(&site).len(), usize::from(yes), "answer {yes}: {:?}", orders(&site));
        // The model hears of it at its next action on the tab (once).
        let next = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
        if yes {
            assert!(next.is_ok(), "{next:?}");
        } else {
            let said = next.error.as_ref().map(|e| e.message.clone()).unwrap_or_default();
            assert!(said.contains("after the last action") && said.contains("/order"), "{next:?}");
            let again = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
            assert!(again.is_ok(), "told once: {again:?}");
        }
        core.close().await;
    }
}

/// A site's analytics batch to another site, sent a while after an
/// ordinary click (its field names say "message" and "order"): between
/// actions, what goes to a third party is checked for the user's values
/// only, so it asks nothing and arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analytics_sent_after_an_ordinary_click_ask_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let page = format!("{}?to={}", site.url("hostile/telemetry.html"), elsewhere(&site));
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#more"})).await;
    assert!(r.is_ok(), "{r:?}");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
    assert!(r.is_ok(), "{r:?}");
    assert!(confirmer.asked.lock().unwrap().is_empty(), "{:#?}", confirmer.asked.lock().unwrap());
    let posted: Vec<String> = collected(&site, Host::Other).into_iter().filter(|r| r.starts_with("POST")).collect();
    assert_eq!(posted.len(), 1, "the batch arrived: {posted:?}");
    core.close().await;
}

/// Orders sent unasked from another target than the tab's own page
/// (issue 27, Deliver 1): a window the page opens places the order from
/// its own script, and a frame of another site (out of process) places it
/// when the page's "Continue" tells it to. Each is held and asked about;
/// refused, the shop receives nothing and the model is told (in the
/// call's result, or at its next action on the tab when the request came
/// after the call returned); approved (the control), it arrives once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_popup_or_a_frame_of_another_site_places_no_order_unasked() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let framed = format!("{}?to={}", site.url("hostile/frame-order.html"), elsewhere(&site));
    for (page, control) in [(site.url("hostile/popup-order.html"), "#deal"), (framed, "#next")] {
        for yes in [false, true] {
            site.clear();
            let tmp = tempfile::tempdir().unwrap();
            let confirmer = Scripted::new(&[yes]);
            let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
            let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
            assert!(r.is_ok(), "{r:?}");
            // The frame of another site must have loaded before it is told.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            let r = core.call_tool(&cx, "browser_click", json!({"selector": control})).await;
            tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
            let asked = confirmer.asked.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{page} (answer {yes}): the order was asked about: {asked:#?}");
            assert!(asked[0].destination.as_deref().unwrap_or_default().ends_with("/order"), "{:?}", asked[0]);
            let got: Vec<_> = site.posts().into_iter().filter(|p| p.path == "/order").collect();
            assert_eq!(got.len(), usize::from(yes), "{page} (answer {yes}): {got:?}");
            if !yes {
                let told = match &r.error {
                    Some(e) => e.code.as_str() == "denied" && e.message.contains("/order"),
                    None => {
                        let next = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
                        next.error.as_ref().is_some_and(|e| e.message.contains("/order"))
                    }
                };
                assert!(told, "{page}: the model was not told: {r:?}");
            }
            core.close().await;
        }
    }
}

/// The user's data carried off by a window the page opens (issue 27,
/// Deliver 5): the phone number the user let the model type leaves in
/// the address of a popup to another site. That request is the popup's,
/// yet it is asked about; refused, the other site gets nothing; approved
/// (the control), it arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_popup_carries_to_another_site_is_asked_about() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let page = format!("{}?to={}", site.url("hostile/popup-leak.html"), elsewhere(&site));
    for (answers, leaked) in [(&[true, false][..], false), (&[true, true], true)] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(answers);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"contact.mobile": "0901234567"}})).await;
        assert!(set.is_ok(), "{set:?}");
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_type", json!({"selector": "#phone", "text": "0901234567"})).await;
        assert!(r.is_ok(), "{r:?}");
        let _ = core.call_tool(&cx, "browser_click", json!({"selector": "#deal"})).await;
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 2, "typing, then the popup's address: {asked:#?}");
        assert!(asked[1].destination.as_deref().unwrap_or_default().starts_with("http://localhost"), "{asked:#?}");
        let away = collected(&site, Host::Other);
        assert_eq!(!away.is_empty(), leaked, "answers {answers:?}: the other site got {away:?}");
        core.close().await;
    }
}

/// A browser Halley attached to rather than started (`--cdp-url`), its tab
/// already showing the shop: that tab was open before Halley's
/// interception was, and Chromium does not apply the browser's
/// interception there, so the tab is watched on its own session. The
/// page's script still places no order unasked.
#[test]
fn in_a_browser_halley_attached_to_no_page_script_places_an_order() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let shop = site.url("hostile/order-div.html");
    let chrome = crate::common::browser::OwnChrome::start_at(&h.work_dir().join("own-chrome"), &shop);
    let endpoint = chrome.endpoint.clone();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while site.hits("hostile/order-div.html") == 0 {
        assert!(std::time::Instant::now() < deadline, "the browser did not load the shop");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let script = h.write_file(
        "attached.jsonl",
        format!(
            "{}\n{}\n",
            step("browser_read_text", json!({"selector": "h1"})),
            step("browser_click", json!({"selector": "#next"})),
        )
        .as_bytes(),
    );
    let path = script.to_string_lossy().into_owned();
    let args = ["--cdp-url", &endpoint, "tools", "script", "--keep-going", "--confirm", "deny", &path];
    let run = h.run(&args);
    let results: Vec<serde_json::Value> = run.stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert_eq!(results.len(), 2, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(results[1]["error"]["code"], "denied", "{}", results[1]);
    assert_eq!(orders(&site), Vec::<String>::new(), "the shop received an order");
}

/// A server of another site that only listens: what reached it (the
/// first bytes of each connection, or each datagram).
struct Listening {
    port: u16,
    got: Arc<Mutex<Vec<String>>>,
}

impl Listening {
    fn tcp() -> Listening {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&got);
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                use std::io::Read as _;
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
                let mut first = vec![0u8; 512];
                let n = stream.read(&mut first).unwrap_or(0);
                into.lock().unwrap().push(String::from_utf8_lossy(&first[..n]).into_owned());
            }
        });
        Listening { port, got }
    }

    fn udp() -> Listening {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let port = socket.local_addr().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&got);
        std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while let Ok((n, _)) = socket.recv_from(&mut buf) {
                into.lock().unwrap().push(format!("{n} bytes"));
            }
        });
        Listening { port, got }
    }

    fn got(&self) -> Vec<String> {
        self.got.lock().unwrap().clone()
    }
}

/// An order sent over a WebSocket to another site (issue 27, Deliver 1):
/// `Fetch` never pauses a socket's handshake, so the connection itself is
/// held, at the browser's relay, and asked about, plain (`ws://`) or over
/// TLS (`wss://`). Refused, the socket's server receives nothing at all
/// (not even the handshake) and the model is told; approved (the
/// control), the handshake arrives (with the order in its address; over
/// TLS, its ClientHello: the test's server speaks no TLS). The same when
/// a worker of the page opens the socket, or a frame of another site (out
/// of process) does. The browser's own connections (to its vendor's
/// servers) are not asked about.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_sent_over_a_websocket_to_another_site_is_asked_about() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let frame = format!("&via=frame&to={}", elsewhere(&site));
    let cases = [
        ("ws", false, ""),
        ("ws", true, ""),
        ("wss", false, ""),
        ("wss", true, ""),
        ("ws", false, "&via=worker"),
        ("ws", true, "&via=worker"),
        ("ws", false, frame.as_str()),
        ("ws", true, frame.as_str()),
    ];
    for (scheme, yes, via) in cases {
        let socket = Listening::tcp();
        let page = format!("{}?ws={scheme}://localhost:{}{via}", site.url("hostile/socket-order.html"), socket.port);
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        // The frame of another site must have loaded before it is told.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#save"})).await;
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{scheme}{via}, answer {yes}: the socket was asked about: {asked:#?}");
        let to = asked[0].destination.clone().unwrap_or_default();
        assert!(to.contains(&format!("localhost:{}", socket.port)), "{:?}", asked[0]);
        let got = socket.got();
        if yes {
            let handshake = |g: &String| match scheme {
                "ws" => g.starts_with("GET /live?order=laptop-abc"),
                _ => g.starts_with('\u{16}'),
            };
            assert!(got.iter().any(handshake), "{scheme}{via}, approved: {got:?}");
        } else {
            assert!(got.is_empty(), "{scheme}{via}: refused, yet the socket's server got {got:?}");
            let told = match &r.error {
                Some(e) => e.code.as_str() == "denied" && e.message.contains("CONNECT"),
                None => {
                    let next = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
                    next.error.as_ref().is_some_and(|e| e.code.as_str() == "denied")
                }
            };
            assert!(told, "{scheme}{via}: the model was not told: {r:?}");
        }
        core.close().await;
    }
}

/// A call to another site's servers (issue 27, Deliver 1): the page's
/// WebRTC connection never goes straight out over UDP (the STUN server
/// gets nothing), and its relay over TCP (TURN) is held and asked about:
/// refused, the TURN server gets nothing; approved (the control), the
/// call's first message reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_to_another_sites_servers_is_asked_about() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for yes in [false, true] {
        let (turn, stun) = (Listening::tcp(), Listening::udp());
        let page =
            format!("{}?turn=localhost:{}&stun=localhost:{}", site.url("hostile/call-leak.html"), turn.port, stun.port);
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        let _ = core.call_tool(&cx, "browser_click", json!({"selector": "#call"})).await;
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert!(
            asked.iter().any(|a| a.destination.as_deref().unwrap_or_default().contains(&format!(":{}", turn.port))),
            "answer {yes}: the call's relay was asked about: {asked:#?}"
        );
        assert!(stun.got().is_empty(), "UDP went straight out: {:?}", stun.got());
        assert_eq!(!turn.got().is_empty(), yes, "answer {yes}: the TURN server got {:?}", turn.got());
        core.close().await;
    }
}
