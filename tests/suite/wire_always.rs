//! The gate never sleeps (issue 42, item 1): a tab is watched from the
//! first call a run makes on it, not only inside an action's window, and
//! for as long as the run holds it. What a page sends by itself (as it
//! loads, when scrolled, a minute after a click, in a tab the agent left,
//! from a worker, a service worker, another site's form posted to the shop) is graded like
//! what an action set off: with nobody to approve, the shop receives
//! nothing; approved, exactly one order. An honest browse asks nothing.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::gate_browser::{Scripted, core_with};
use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, Host};

/// The orders that reached the shop (either of its listeners).
fn orders(site: &FixtureServer) -> Vec<String> {
    site.posts()
        .into_iter()
        .filter(|p| p.path == "/order")
        .map(|p| format!("{:?} {} {:?} {:?}", p.host, p.path, p.form, p.body))
        .collect()
}

/// Another site than the fixture server's `127.0.0.1` (same listener).
fn elsewhere(site: &FixtureServer, path: &str) -> String {
    site.url(path).replace("127.0.0.1", "localhost")
}

/// Whether the model was told that the page's request was blocked: in
/// the call's own result, or (it came after the call returned) in the
/// next call's on the same tab.
async fn told(core: &halley::core::Core, cx: &halley::context::CallContext, r: &halley::tools::ToolResultV2) -> bool {
    if r.error.as_ref().is_some_and(|e| e.code.as_str() == "denied") {
        return true;
    }
    let next = core.call_tool(cx, "browser_read_text", json!({})).await;
    next.error.as_ref().is_some_and(|e| e.code.as_str() == "denied" && e.message.contains("blocked"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_the_agent_only_opened_orders_nothing_unasked() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (tool, how) in [
        ("browser_navigate", "fetch"),
        ("browser_navigate", "form"),
        ("browser_navigate", "beacon"),
        ("browser_new_tab", "fetch"),
        ("browser_new_tab", "beacon"),
    ] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let url = site.url(&format!("always/load-order.html?how={how}"));
        let r = core.call_tool(&cx, tool, json!({"url": url})).await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(orders(&site), Vec::<String>::new(), "{tool} {how}: the page ordered unasked");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert!(!asked.is_empty(), "{tool} {how}: nobody was asked: {r:?} {:#?}", site.requests());
        assert!(
            asked.iter().all(|a| a.destination.as_deref().unwrap_or_default().contains("/order")),
            "{tool} {how}: the question names the order's address: {asked:#?}"
        );
        assert!(told(&core, &cx, &r).await, "{tool} {how}: the model was not told: {r:?}");
        core.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approved_the_order_a_page_sends_as_it_loads_arrives_once() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[true]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("always/load-order.html?how=fetch")})).await;
    assert!(r.is_ok(), "{r:?}");
    let got = site.wait_for("/order", Duration::from_secs(5));
    assert!(got.is_some(), "the approved order never arrived");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let sent = orders(&site);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].contains("1074500000"), "what arrived is what was asked about: {sent:?}");
    let asked = confirmer.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    core.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_sites_page_posts_no_order_to_the_shop_through_the_agents_browser() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for how in ["top", "frame"] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let url = format!("{}?shop={}&how={how}", elsewhere(&site, "always/csrf.html"), site.origin());
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(orders(&site), Vec::<String>::new(), "{how}: another site's form ordered at the shop: {r:?}");
        assert!(!confirmer.asked.lock().unwrap().is_empty(), "{how}: nobody was asked");
        core.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrolling_orders_nothing_unasked() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let scroll = ("browser_scroll", json!({"amount_px": 800}));
    // The scroll into view before a click scrolls the page too.
    let click = ("browser_click", json!({"selector": "#far"}));
    for (tool, args) in [scroll, click] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("always/scroll-order.html")})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, tool, args).await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(orders(&site), Vec::<String>::new(), "{tool}: the scroll ordered");
        assert!(told(&core, &cx, &r).await, "{tool}: the model was not told: {r:?}");
        core.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_the_agent_left_orders_nothing_while_it_works_in_another() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("always/later-order.html?ms=1500")})).await;
    assert!(r.is_ok(), "{r:?}");
    let first = r.data["url"].as_str().unwrap_or_default().to_owned();
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#next"})).await;
    assert!(r.is_ok(), "{r:?}");
    let tabs = core.call_tool(&cx, "browser_list_tabs", json!({})).await;
    let left = tabs.data["tabs"][0]["id"].as_str().unwrap_or_default().to_owned();
    // The agent goes on in a new tab; the first orders 1.5 s after the
    // click, and a second page left behind orders 1 s after it loads.
    let r = core
        .call_tool(&cx, "browser_new_tab", json!({"url": site.url("always/later-order.html?load=1&ms=1000")}))
        .await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_new_tab", json!({"url": site.url("shop-vn.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    for _ in 0..3 {
        let r = core.call_tool(&cx, "browser_scroll", json!({"amount_px": 300})).await;
        assert!(r.is_ok(), "the honest tab is not blamed: {r:?}");
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    assert_eq!(orders(&site), Vec::<String>::new(), "a tab left behind ordered");
    assert!(confirmer.asked.lock().unwrap().len() >= 2, "{:#?}", confirmer.asked.lock().unwrap());
    // Back on the first tab, the model hears what its page tried.
    let r = core.call_tool(&cx, "browser_switch_tab", json!({"tab_id": left})).await;
    assert!(told(&core, &cx, &r).await, "not told on {first}: {r:?}");
    core.close().await;
}

/// The old watch lasted 60 s after an action: an order 61 s after the
/// click went out unasked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_a_minute_after_the_click_is_still_held() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("always/later-order.html?ms=61000")})).await;
    assert!(r.is_ok(), "{r:?}");
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#next"})).await;
    assert!(r.is_ok(), "{r:?}");
    tokio::time::sleep(Duration::from_secs(63)).await;
    assert_eq!(orders(&site), Vec::<String>::new(), "the late order went out");
    assert_eq!(confirmer.asked.lock().unwrap().len(), 1, "asked once, when it was sent");
    core.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_orders_nothing_when_a_click_messages_it() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for kind in ["shared", "dedicated"] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let url = site.url(&format!("always/worker-order.html?kind={kind}"));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#search"})).await;
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert_eq!(orders(&site), Vec::<String>::new(), "{kind} worker ordered: {r:?}");
        assert!(!confirmer.asked.lock().unwrap().is_empty(), "{kind}: nobody was asked");
        core.close().await;
    }
}

/// A service worker belongs to no tab and outlives the page that
/// registered it: what it sends as it activates, when a click messages
/// it, or in answer to the page's own harmless-looking request, is graded
/// like the page's. With nobody to approve, the shop receives nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_worker_orders_nothing_unasked() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for how in ["install", "message", "proxy"] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let url = site.url(&format!("always/sw-order.html?how={how}"));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
        assert!(r.is_ok(), "{how}: {r:?}");
        let ready = json!({"until": "text", "text": "ready", "timeout_ms": 10000});
        let w = core.call_tool(&cx, "browser_wait", ready).await;
        if how != "install" {
            assert!(w.is_ok(), "{how}: the worker never got ready: {w:?}");
            let r = core.call_tool(&cx, "browser_click", json!({"selector": "#search"})).await;
            assert!(r.error.as_ref().is_none_or(|e| e.code.as_str() == "denied"), "{how}: {r:?}");
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(orders(&site), Vec::<String>::new(), "{how}: the service worker ordered unasked");
        let asked = confirmer.asked.lock().unwrap().clone();
        assert!(!asked.is_empty(), "{how}: nobody was asked: {:#?}", site.requests());
        assert!(
            asked.iter().all(|a| a.destination.as_deref().unwrap_or_default().contains("/order")),
            "{how}: the question names the order's address: {asked:#?}"
        );
        core.close().await;
    }
    // Approved, the worker's order arrives once.
    site.clear();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[true]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("always/sw-order.html?how=install")})).await;
    assert!(r.is_ok(), "{r:?}");
    assert!(site.wait_for("/order", Duration::from_secs(10)).is_some(), "the approved order never arrived");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(orders(&site).len(), 1, "{:?}", orders(&site));
    assert_eq!(confirmer.asked.lock().unwrap().len(), 1);
    core.close().await;
}

/// A service worker outlives its page: the tab that registered it is
/// closed, and no tab of the browser is watched any more, when the worker
/// orders (1.5 s after a click's message, after a Background Sync the
/// click registered, after the message the page sent as it went). The
/// closed tab's watch keeps judging its site's workers: with nobody to
/// approve, the shop receives nothing; approved, the order arrives once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_worker_orders_nothing_after_its_tab_closed() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (how, approve) in [("later", false), ("sync", false), ("pagehide", false), ("later", true)] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        // Closing the person's tab is asked first: yes.
        let confirmer = Scripted::new(&[true, approve]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let url = site.url(&format!("always/sw-order.html?how={how}"));
        let r = core.call_tool(&cx, "browser_new_tab", json!({"url": url})).await;
        assert!(r.is_ok(), "{how}: {r:?}");
        let tab = r.data["tab"]["id"].as_str().unwrap_or_default().to_owned();
        let ready = json!({"until": "text", "text": "ready", "timeout_ms": 10000});
        let w = core.call_tool(&cx, "browser_wait", ready).await;
        assert!(w.is_ok(), "{how}: the worker never got ready: {w:?}");
        if how != "pagehide" {
            let r = core.call_tool(&cx, "browser_click", json!({"selector": "#search"})).await;
            assert!(r.is_ok(), "{how}: the click itself sends nothing: {r:?}");
        }
        let r = core.call_tool(&cx, "browser_close_tab", json!({"tab_id": tab})).await;
        assert!(r.is_ok(), "{how}: {r:?}");
        core.browser().release(cx.run_id.as_deref().unwrap_or_default()).await;
        let asked_order = || {
            confirmer
                .asked
                .lock()
                .unwrap()
                .iter()
                .filter(|a| a.destination.as_deref().unwrap_or_default().contains("/order"))
                .count()
        };
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while asked_order() == 0 && std::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert_eq!(asked_order(), 1, "{how}: the worker's order is asked once: {:#?}", site.requests());
        let sent = orders(&site);
        if approve {
            assert_eq!(sent.len(), 1, "{how}: approved, the order arrives once: {sent:#?}");
        } else {
            assert_eq!(sent, Vec::<String>::new(), "{how}: the worker ordered with its tab closed");
        }
        core.close().await;
    }
}

/// Controls: an ordinary browse (a shop page opened, scrolled, read, its
/// add-to-cart clicked, a new tab) asks nothing and is not blocked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_honest_browse_asks_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    for (tool, args) in [
        ("browser_navigate", json!({"url": site.url("shop-vn.html")})),
        ("browser_scroll", json!({"amount_px": 600})),
        ("browser_read_text", json!({})),
        ("browser_click", json!({"selector": "#add-to-cart"})),
        ("browser_new_tab", json!({"url": site.url("hostile/telemetry.html")})),
        ("browser_scroll", json!({"amount_px": 400})),
        ("browser_navigate", json!({"url": elsewhere(&site, "shop-vn.html")})),
    ] {
        let r = core.call_tool(&cx, tool, args).await;
        assert!(r.is_ok(), "{tool}: {r:?}");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(confirmer.asked.lock().unwrap().len(), 0, "{:#?}", confirmer.asked.lock().unwrap());
    assert!(site.requests().iter().any(|r| r.host == Host::Main), "the pages loaded");
    core.close().await;
}

/// A click that builds a page of its own (a frame the script writes, a
/// `blob:` page in a frame or a popup), which orders 1.5 s later, after
/// the click returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_a_click_builds_orders_nothing_later() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for how in ["srcdoc", "blob-frame", "blob-popup"] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let url = site.url(&format!("always/inserted-order.html?how={how}"));
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
        assert!(r.is_ok(), "{r:?}");
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#search"})).await;
        // The built page orders 1.5 s after it loads, which on a loaded
        // machine is a while after the click: wait for its question.
        let until = std::time::Instant::now() + Duration::from_secs(15);
        while confirmer.asked.lock().unwrap().is_empty() && std::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(orders(&site), Vec::<String>::new(), "{how}: the built page ordered: {r:?}");
        assert!(!confirmer.asked.lock().unwrap().is_empty(), "{how}: nobody was asked");
        core.close().await;
    }
}

/// A page the agent left keeps being judged after its run ended (done,
/// or stopped by the person): its timer's order is asked about, and
/// refused, the shop gets nothing; approved, it arrives once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_the_agent_left_orders_nothing_after_its_run_ended() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (how, stopped, approve) in [
        ("a timer after load", false, false),
        ("a timer after load, the run stopped", true, false),
        ("a timer after a click", false, false),
        ("approved", false, true),
    ] {
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[approve]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let cx = cx.with_run("run-left");
        let page = if how.contains("click") {
            "always/later-order.html?ms=2500"
        } else {
            "always/later-order.html?load=1&ms=2500"
        };
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url(page)})).await;
        assert!(r.is_ok(), "{how}: {r:?}");
        if how.contains("click") {
            let r = core.call_tool(&cx, "browser_click", json!({"selector": "#next"})).await;
            assert!(r.is_ok(), "{how}: {r:?}");
        }
        if stopped {
            cx.cancel.cancel();
        }
        // The run is over: its tab stays open, the person's now.
        core.browser().release("run-left").await;
        assert!(confirmer.asked.lock().unwrap().is_empty(), "{how}: asked before the page sent anything");
        let mut waited = 0;
        while confirmer.asked.lock().unwrap().is_empty() && waited < 100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            waited += 1;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let asked = confirmer.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{how}: the left page's order is asked once: {asked:#?}");
        assert!(asked[0].destination.as_deref().unwrap_or_default().contains("/order"), "{how}: {asked:#?}");
        let sent = orders(&site);
        if approve {
            assert_eq!(sent.len(), 1, "{how}: approved, the order arrives once: {sent:#?}");
        } else {
            assert_eq!(sent, Vec::<String>::new(), "{how}: the left page ordered unasked");
        }
        core.close().await;
    }
}

/// A run that takes a tab another run left judges it as its own: the
/// question is the new run's, not the ended one's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_takes_a_left_tab_judges_it_itself() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let first = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&first)).await;
    let a = cx.clone().with_run("run-a");
    let r = core
        .call_tool(&a, "browser_navigate", json!({"url": site.url("always/later-order.html?load=1&ms=3000")}))
        .await;
    assert!(r.is_ok(), "{r:?}");
    core.browser().release("run-a").await;
    let second = Scripted::new(&[]);
    let b = halley::CallContext::new(halley::FrontEnd::Cli)
        .with_confirmer(Arc::clone(&second) as Arc<dyn halley::gate::Confirmer>)
        .with_run("run-b");
    // Run b only reads the tab: from now on its page is b's to judge.
    let r = core.call_tool(&b, "browser_read_text", json!({})).await;
    assert!(r.is_ok(), "{r:?}");
    let mut waited = 0;
    while second.asked.lock().unwrap().is_empty() && waited < 60 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += 1;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(orders(&site), Vec::<String>::new(), "the order went out");
    assert!(first.asked.lock().unwrap().is_empty(), "the ended run was asked: {:#?}", first.asked.lock().unwrap());
    assert_eq!(second.asked.lock().unwrap().len(), 1, "{:#?}", second.asked.lock().unwrap());
    let r = core.call_tool(&b, "browser_read_text", json!({})).await;
    assert!(r.error.as_ref().is_some_and(|e| e.code.as_str() == "denied"), "run b is told: {r:?}");
    core.close().await;
}
