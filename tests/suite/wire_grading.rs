//! Requests graded by what they do, on real Chromium with hostile pages
//! of our own (`tests/fixtures/site/grading/`; issue 42, items 4 and 5):
//! the shop's own order API named without order words, an order sent
//! later to the shop's payment API on another site, a read (GET) whose
//! address places an order, the user's passport carried in a header, the
//! Referer, a host name, a fragment or split over two requests, an
//! approved order copied to another site (an "always for this session"
//! on the shop lifts nothing there), and a page whose text names another
//! amount than its form sends. With nobody to approve, the attacker's
//! server receives nothing; approved, exactly what the dialog showed,
//! once. The honest controls (an add-to-cart, analytics, a search) ask
//! nothing.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::gate_browser::{Scripted, core_with};
use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, Host, Recorded};

/// The fixture server's second listener, named `localhost`: another site
/// than the pages on 127.0.0.1.
fn elsewhere(site: &FixtureServer) -> String {
    site.other_origin().replace("127.0.0.1", "localhost")
}

/// Requests that reached `path` on `host`.
fn reached(site: &FixtureServer, host: Host, path: &str) -> Vec<Recorded> {
    site.requests().into_iter().filter(|r| r.host == host && r.path == path).collect()
}

/// What a request sent, as name and value pairs, sorted: its form, else
/// its JSON body's top-level fields.
fn sent_fields(r: &Recorded) -> Vec<(String, String)> {
    fn flatten(path: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        let join = |k: &str| if path.is_empty() { k.to_owned() } else { format!("{path}.{k}") };
        match v {
            serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| flatten(&join(k), v, out)),
            serde_json::Value::Array(items) => {
                items.iter().enumerate().for_each(|(i, v)| flatten(&join(&i.to_string()), v, out));
            }
            serde_json::Value::String(s) => out.push((path.to_owned(), s.clone())),
            other => out.push((path.to_owned(), other.to_string())),
        }
    }
    let mut out = Vec::new();
    // Form fields whose value is JSON are read as the gate reads a JSON body.
    for (k, v) in &r.form {
        match serde_json::from_str::<serde_json::Value>(v) {
            Ok(json @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => flatten(k, &json, &mut out),
            _ => out.push((k.clone(), v.clone())),
        }
    }
    if out.is_empty()
        && let Some(body) = r.body.as_deref()
        && let Ok(json) = serde_json::from_str::<serde_json::Value>(body)
    {
        flatten("", &json, &mut out);
    }
    out.sort();
    out
}

fn shown_fields(asked: &halley::gate::ConfirmationRequest) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = asked.fields.iter().map(|f| (f.name.clone(), f.value.clone())).collect();
    out.sort();
    out
}

/// The shop's own order API named without any order word (`POST
/// /api/cart/confirm` with `qty: 50`, `/gio-hang/xac-nhan`, a beacon to
/// `/api/cart` whose field says "confirm"): an order of 50 all the same,
/// asked about; refused, the shop receives nothing; approved, exactly what
/// the dialog showed, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cart_confirmed_at_the_shops_own_api_is_asked_about_as_an_order() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (v, path) in [("json", "/api/cart/confirm"), ("form", "/gio-hang/xac-nhan"), ("beacon", "/api/cart")] {
        for yes in [false, true] {
            site.clear();
            let tmp = tempfile::tempdir().unwrap();
            let confirmer = Scripted::new(&[yes]);
            let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
            let page = format!("{}?v={v}", site.url("grading/cart-confirm.html"));
            let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
            assert!(r.is_ok(), "{r:?}");
            let r = core.call_tool(&cx, "browser_click", json!({"selector": "#next"})).await;
            tokio::time::sleep(Duration::from_millis(800)).await;
            let asked = confirmer.asked.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{v} (answer {yes}): {asked:#?}");
            assert_eq!(asked[0].scope, halley::tools::PermissionScope::Payment, "{v}: {:?}", asked[0].risks);
            assert!(asked[0].destination.as_deref().unwrap_or_default().ends_with(path), "{:?}", asked[0]);
            let got = reached(&site, Host::Main, path);
            if yes {
                assert_eq!(got.len(), 1, "{v}: approved, sent once: {got:?}");
                assert_eq!(sent_fields(&got[0]), shown_fields(&asked[0]), "{v}: what the dialog showed");
            } else {
                assert_eq!(got, Vec::<Recorded>::new(), "{v}: refused, yet the shop got it");
                let told = match &r.error {
                    Some(e) => e.code.as_str() == "denied" && e.message.contains(path),
                    None => {
                        let next = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
                        next.error.as_ref().is_some_and(|e| e.message.contains(path))
                    }
                };
                assert!(told, "{v}: the model was not told: {r:?}");
            }
            core.close().await;
        }
    }
}

/// An order 3.5 s after a click, to the shop's payment API on another
/// site, its address naming nothing (an amount in minor units with a
/// currency; an amount with items): after the click returned, what goes to
/// another site is graded by what it does, so it is asked about, with the
/// amount the request itself sends (99,900,000 VND: VND has no minor
/// unit); refused, the other site receives nothing; approved, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_sent_later_to_a_payment_api_on_another_site_is_asked_with_its_own_amount() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (v, amount, currency) in [("minor", 99_900_000.0, Some("VND")), ("items", 21_490_000.0, None)] {
        for yes in [false, true] {
            site.clear();
            let tmp = tempfile::tempdir().unwrap();
            let confirmer = Scripted::new(&[yes]);
            let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
            let page = format!("{}?v={v}&to={}", site.url("grading/pay-later.html"), elsewhere(&site));
            let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
            assert!(r.is_ok(), "{r:?}");
            let r = core.call_tool(&cx, "browser_click", json!({"selector": "#next"})).await;
            assert!(r.is_ok(), "the click itself sends nothing: {r:?}");
            assert!(confirmer.asked.lock().unwrap().is_empty(), "asked before the page sent anything");
            tokio::time::sleep(Duration::from_millis(5000)).await;
            let asked = confirmer.asked.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{v} (answer {yes}): the late payment was asked about: {asked:#?}");
            assert!(asked[0].destination.as_deref().unwrap_or_default().starts_with("http://localhost"));
            let shown = asked[0].amount.clone().expect("an amount shown");
            assert_eq!((shown.value, shown.currency.as_deref()), (amount, currency), "{v}: {shown:?}");
            assert_eq!(shown.source, halley::protocol::AmountSource::Request);
            let got = reached(&site, Host::Other, "/v1/x");
            assert_eq!(got.len(), usize::from(yes), "{v} (answer {yes}): {got:?}");
            if yes {
                assert_eq!(sent_fields(&got[0]), shown_fields(&asked[0]), "{v}: what the dialog showed");
            }
            core.close().await;
        }
    }
}

/// The order the user approved, copied by the page to another site 2 s
/// later: asked again, and refused it goes nowhere; "always for this
/// session" given on the shop does not lift it (approvals are the
/// destination's). Approved too (the control), the other site gets it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_order_copied_to_another_site_is_asked_again_even_always_for_this_session() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (remember, answers, copied) in
        [(false, &[true, false][..], false), (true, &[true], false), (false, &[true, true], true)]
    {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Arc::new(Scripted {
            answers: Mutex::new(answers.iter().copied().collect::<VecDeque<bool>>()),
            remember,
            ..Scripted::default()
        });
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let page = format!("{}?to={}", site.url("grading/order-copy.html"), elsewhere(&site));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#buy"})).await;
        assert!(r.is_ok(), "the approved order goes: {r:?}");
        tokio::time::sleep(Duration::from_millis(3500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 2, "remember {remember}, answers {answers:?}: {asked:#?}");
        assert!(asked[1].destination.as_deref().unwrap_or_default().starts_with("http://localhost"), "{:?}", asked[1]);
        assert_eq!(reached(&site, Host::Main, "/order").len(), 1, "the approved order reached the shop once");
        let away = reached(&site, Host::Other, "/order");
        assert_eq!(away.len(), usize::from(copied), "remember {remember}, answers {answers:?}: {away:?}");
        if copied {
            assert_eq!(sent_fields(&away[0]), shown_fields(&asked[1]), "what the second dialog showed");
        }
        core.close().await;
    }
}

/// A read that orders: an image or a fetch to the shop's own site whose
/// address places the order (`/order?qty=50&confirm=1`,
/// `/checkout/confirm?…`, `/dat-hang?so_luong=50…`) is held and asked
/// about like a POST; refused, the shop sees nothing; approved, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_whose_address_orders_is_held_and_asked_about() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (v, path) in [("img", "/order"), ("confirm", "/checkout/confirm"), ("vn", "/dat-hang")] {
        for yes in [false, true] {
            site.clear();
            let tmp = tempfile::tempdir().unwrap();
            let confirmer = Scripted::new(&[yes]);
            let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
            let page = format!("{}?v={v}", site.url("grading/order-get.html"));
            let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
            assert!(r.is_ok(), "{r:?}");
            let _ = core.call_tool(&cx, "browser_click", json!({"selector": "#more"})).await;
            tokio::time::sleep(Duration::from_millis(800)).await;
            let asked = confirmer.asked.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{v} (answer {yes}): {asked:#?}");
            assert_eq!(asked[0].scope, halley::tools::PermissionScope::Payment, "{v}: {:?}", asked[0].risks);
            let got = reached(&site, Host::Main, path);
            assert_eq!(got.len(), usize::from(yes), "{v} (answer {yes}): {got:?}");
            if yes {
                // The dialog masks what looks sensitive (a token): the rest is
                // exactly what was sent.
                let masked = |v: &str| v.chars().all(|c| c == '•');
                let sent: std::collections::BTreeSet<_> = got[0]
                    .query_pairs()
                    .into_iter()
                    .filter(|(k, _)| {
                        !asked[0].fields.iter().any(|f| f.name.trim_start_matches('?') == k && masked(&f.value))
                    })
                    .collect();
                let shown: std::collections::BTreeSet<_> = asked[0]
                    .fields
                    .iter()
                    .filter(|f| !masked(&f.value))
                    .map(|f| (f.name.trim_start_matches('?').to_owned(), f.value.clone()))
                    .collect();
                assert_eq!(sent, shown);
            }
            core.close().await;
        }
    }
}

/// The user's passport number, known to the page, sent to another site in
/// what a check of the address and body alone would skip: a header, the
/// Referer, a host name (`b7654321.localhost`), the fragment of a
/// navigation, or split over an EventSource and an image. Each is asked
/// about, naming the passport; refused, the other site never gets it;
/// approved (the control, where the request can arrive), it does, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_passport_does_not_leave_in_a_header_the_referer_a_host_name_a_fragment_or_in_halves() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let cases = [
        ("header", false),
        ("header", true),
        ("referer", false),
        ("referer", true),
        ("host", false),
        ("fragment", false),
        ("split", false),
        ("split", true),
    ];
    for (v, yes) in cases {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let set = core.call_tool(&cx, "user_profile_set", json!({"set": {"travel.passportNumber": "B7654321"}})).await;
        assert!(set.is_ok(), "{set:?}");
        let page = format!("{}?v={v}&to={}", site.url("grading/leak-parts.html"), elsewhere(&site));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
        assert!(r.is_ok(), "{r:?}");
        let _ = core.call_tool(&cx, "browser_click", json!({"selector": "#more"})).await;
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{v} (answer {yes}): {asked:#?}");
        assert!(asked[0].risks.iter().any(|w| w.contains("your travel.passportNumber")), "{v}: {:?}", asked[0].risks);
        if v == "split" {
            assert!(asked[0].risks.iter().any(|w| w.contains("split")), "{:?}", asked[0].risks);
        }
        if v == "host" {
            // Shown with the value masked, as every value of the person's is.
            let to = asked[0].destination.as_deref().unwrap_or_default();
            assert!(to.contains("{{profile.travel.passportNumber}}.localhost"), "{asked:#?}");
        }
        let away: Vec<Recorded> = site.requests().into_iter().filter(|r| r.host == Host::Other).collect();
        let carried = |r: &Recorded| {
            v == "host"
                || r.query.as_deref().unwrap_or_default().contains("b=4321")
                || r.referer.as_deref().unwrap_or_default().contains("B7654321")
                || r.path == "/collect" && v != "split"
        };
        let leaked: Vec<&Recorded> = away.iter().filter(|r| carried(r)).collect();
        assert_eq!(leaked.len(), usize::from(yes), "{v} (answer {yes}): the other site got {leaked:?}");
        if v == "split" {
            // The first half went, carrying nothing whole.
            assert!(away.iter().any(|r| r.query.as_deref() == Some("a=B765")), "{away:?}");
        }
        core.close().await;
    }
}

/// "Pay 10 USD" over a form that charges `charge_minor=99900000` in VND:
/// the dialog's amount is the form's (99,900,000 VND, read from the
/// request), and the page's contradicting total is not shown; refused,
/// nothing is sent; approved, exactly the form, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dialog_shows_the_amount_the_form_sends_not_the_pages_text() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for yes in [false, true] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[yes]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("grading/pay-heading.html")})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#pay"})).await;
        assert_eq!(r.is_ok(), yes, "{r:?}");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:#?}");
        let shown = asked[0].amount.clone().expect("an amount shown");
        assert_eq!((shown.value, shown.currency.as_deref()), (99_900_000.0, Some("VND")), "{shown:?}");
        assert_eq!(shown.source, halley::protocol::AmountSource::Request);
        assert_eq!(asked[0].page_total, None, "the page's 10 USD is not shown against the form's amount");
        assert!(!asked[0].action_summary.contains("10 USD"), "{}", asked[0].action_summary);
        let got = reached(&site, Host::Main, "/api/pay");
        assert_eq!(got.len(), usize::from(yes), "{got:?}");
        if yes {
            assert_eq!(sent_fields(&got[0]), shown_fields(&asked[0]));
        }
        core.close().await;
    }
}

/// The honest controls: an add-to-cart with a price and a quantity, the
/// shop's analytics event to another site with a value, a currency and
/// items, a search read, an image with a query, and a search for "order
/// status": nothing asks, everything arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_add_to_cart_analytics_and_a_search_ask_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let page = format!("{}?to={}", site.url("grading/honest.html"), elsewhere(&site));
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#add"})).await;
    assert!(r.is_ok(), "{r:?}");
    let page = format!("{}?v=search", site.url("grading/order-get.html"));
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": page})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#more"})).await;
    assert!(r.is_ok(), "{r:?}");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "h1"})).await;
    assert!(r.is_ok(), "{r:?}");
    assert!(confirmer.asked.lock().unwrap().is_empty(), "{:#?}", confirmer.asked.lock().unwrap());
    assert_eq!(reached(&site, Host::Main, "/cart/add").len(), 1, "the add-to-cart arrived");
    assert_eq!(reached(&site, Host::Other, "/collect").len(), 1, "the analytics event arrived");
    assert_eq!(reached(&site, Host::Main, "/search").len(), 2, "both searches arrived");
    assert_eq!(reached(&site, Host::Main, "/img/x15.png").len(), 2, "both images were loaded");
    core.close().await;
}
