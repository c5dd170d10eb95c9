//! The press lands where the gate looked (issue 42, item 6), on real
//! Chromium with hostile pages of our own (`tests/fixtures/site/press/`):
//! the model clicks "Tìm kiếm" (a search: nothing to ask) while the page
//! slides something nearly invisible over it after the cover check, as
//! the pointer arrives, on the button's own pointer events, or on a timer
//! racing the click: a frame of another site whose page is a GET buy link
//! (`/order?qty=50&confirm=1`, or `/go?n=50`, an address that names
//! nothing the wire would ask about), the shop's own frame (same origin,
//! or same site on another port), a transparent link over or inside the
//! button, an overlay whose `pointer-events: none` turns to `auto`. Each
//! time neither the shop nor the other site receives the order, and the
//! model is told what happened (`not_interactable` when something lay
//! over the button before it was pressed, `denied` when the press itself
//! was diverted). The controls: honest clicks (a plain button, one that
//! adds a ripple inside itself as it is pressed, a double click, a button
//! in an open shadow root, a styled checkbox and a labelled one, a button
//! in a frame of the shop's own site the model aims at on purpose, a
//! button that moves before the press) land, ask nothing, and cost no
//! delay to measure between the pointer's arrival and the click.

use std::sync::Arc;
use std::time::Duration;

use halley::tools::ToolResultV2;
use serde_json::json;

use super::gate_browser::{Scripted, core_with};
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;

/// What reached an order address, on either listener and any site.
fn bought(site: &FixtureServer) -> Vec<String> {
    site.requests()
        .into_iter()
        .filter(|r| r.path == "/order" || r.path == "/go")
        .map(|r| format!("{:?} {} {}?{}", r.host, r.method, r.path, r.query.unwrap_or_default()))
        .collect()
}

/// The hostile search page: `how` slides over "Tìm kiếm" `when`, its
/// frame's link opening `to` (`self`/`top`) at `path` (`order`/`go`).
/// `frame-x` frames are of another site (`localhost`), `frame-port` of the
/// shop's site on its other port.
fn attack(site: &FixtureServer, how: &str, when: &str, to: &str, path: &str) -> String {
    let other =
        if how == "frame-port" { site.other_origin() } else { site.other_origin().replace("127.0.0.1", "localhost") };
    format!("{}?how={how}&when={when}&to={to}&path={path}&other={other}", site.url("press/search.html"))
}

/// One attack: open the page, let its frame load, click "Tìm kiếm".
async fn try_attack(site: &FixtureServer, url: &str, answers: &[bool]) -> (ToolResultV2, Vec<String>, Arc<Scripted>) {
    site.clear();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(answers);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
    assert!(r.is_ok(), "{url}: {r:?}");
    // The frame's page loads (a frame not yet drawn takes no press).
    tokio::time::sleep(Duration::from_millis(400)).await;
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "text=Tìm kiếm"})).await;
    // What the press would have opened has time to arrive.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let got = bought(site);
    core.close().await;
    (r, got, confirmer)
}

/// The attack failed: nothing reached an order address, nobody was asked
/// about one, and either the click was refused telling the model what lay
/// under the pointer (`lay` in its message), or (a slide that came too
/// late for the press) "Tìm kiếm" itself was clicked and searched.
fn held(case: &str, site: &FixtureServer, r: &ToolResultV2, got: &[String], asked: &Scripted, lay: &str) -> bool {
    assert_eq!(got, &[] as &[String], "{case}: the press bought: {r:?}");
    let asked = asked.asked.lock().unwrap().clone();
    assert!(
        asked.iter().all(|a| !a.destination.as_deref().unwrap_or_default().contains("/order")),
        "{case}: an order was even asked about (the press reached the link): {asked:#?}"
    );
    match &r.error {
        Some(e) => {
            assert!(
                matches!(e.code.as_str(), "not_interactable" | "denied"),
                "{case}: refused with another code: {e:?}"
            );
            assert!(e.message.contains("Tìm kiếm") && e.message.contains("not clicked"), "{case}: {}", e.message);
            assert!(e.message.contains(lay), "{case}: the model is not told what lay there ({lay}): {}", e.message);
            true
        }
        None => {
            assert!(site.hits("search") >= 1, "{case}: the click returned ok but did not search: {r:?}");
            false
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_of_another_site_slid_over_search_takes_no_click() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    // (when, to, path, must be refused): the slide after the cover check
    // (as the page scrolls the button into view), as the pointer arrives,
    // on the button's pointerover, on its pointerdown (the frame takes the
    // release), on a timer started by the pointer's arrival, flapping
    // every millisecond or every frame. A race the press wins clicks
    // "Tìm kiếm" itself, which is no harm.
    for (when, to, path, must) in [
        ("scroll", "self", "order", true),
        ("scroll", "top", "order", true),
        ("move", "self", "go", true),
        ("move", "top", "go", true),
        ("over", "self", "go", true),
        ("down", "self", "go", true),
        ("down", "top", "order", true),
        ("t0", "top", "go", false),
        ("t1", "self", "go", false),
        ("t5", "self", "go", false),
        ("t5", "top", "order", false),
        ("flap", "self", "go", false),
        ("frame", "top", "go", false),
    ] {
        let case = format!("frame-x {when} {to} {path}");
        let (r, got, asked) = try_attack(&site, &attack(&site, "frame-x", when, to, path), &[]).await;
        let refused = held(&case, &site, &r, &got, &asked, "iframe of localhost");
        assert!(refused || !must, "{case}: the click was not refused: {r:?}");
    }
    // A frame as big as the window (wherever a release could go).
    for when in ["move", "down"] {
        let url = format!("{}&big=1", attack(&site, "frame-x", when, "self", "go"));
        let (r, got, asked) = try_attack(&site, &url, &[]).await;
        let case = format!("big frame {when}");
        assert!(held(&case, &site, &r, &got, &asked, "not clicked"), "{case}: {r:?}");
    }
}

/// The model clicks a button inside the shop's own coupon frame, on
/// purpose; the page slides a frame of another site over that frame as
/// the pointer arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_slid_over_a_button_in_a_frame_takes_no_click() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let other = site.other_origin().replace("127.0.0.1", "localhost");
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let url = format!("{}?slide={other}", site.url("press/honest.html"));
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
    assert!(r.is_ok(), "{r:?}");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let r = core.call_tool(&cx, "browser_click", json!({"selector": "#apply", "frame": "#inner"})).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(bought(&site), Vec::<String>::new(), "{r:?}");
    let e = r.error.clone().unwrap_or_else(|| panic!("the click was not refused: {r:?}"));
    assert_eq!(e.code.as_str(), "not_interactable", "{e:?}");
    assert!(e.message.contains("Áp mã") && e.message.contains("iframe of localhost"), "{}", e.message);
    let text = core.call_tool(&cx, "browser_read_text", json!({})).await;
    assert!(!text.data["text"].as_str().unwrap_or_default().contains("coupon applied"), "{text:?}");
    assert!(confirmer.asked.lock().unwrap().is_empty());
    core.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shops_own_frame_slid_over_search_takes_no_click() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (how, when, to, lay, must) in [
        // Same origin: the page runtime reaches the frame's link.
        ("frame-same", "scroll", "self", "Mua 50 chiếc", true),
        ("frame-same", "move", "top", "Mua 50 chiếc", true),
        ("frame-same", "over", "self", "Mua 50 chiếc", true),
        ("frame-same", "down", "self", "Mua 50 chiếc", true),
        ("frame-same", "t5", "self", "Mua 50 chiếc", false),
        // Same site, another port: the runtime cannot read it.
        ("frame-port", "scroll", "self", "iframe of 127.0.0.1", true),
        ("frame-port", "move", "top", "iframe of 127.0.0.1", true),
        ("frame-port", "down", "self", "iframe of 127.0.0.1", true),
        ("frame-port", "t1", "top", "iframe of 127.0.0.1", false),
        ("frame-port", "flap", "self", "iframe of 127.0.0.1", false),
    ] {
        for path in ["order", "go"] {
            let case = format!("{how} {when} {to} {path}");
            let (r, got, asked) = try_attack(&site, &attack(&site, how, when, to, path), &[]).await;
            let refused = held(&case, &site, &r, &got, &asked, lay);
            assert!(refused || !must, "{case}: the click was not refused: {r:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transparent_link_slid_over_or_into_search_takes_no_click() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (how, when, must) in [
        ("link", "scroll", true),
        ("link", "move", true),
        ("link", "over", true),
        ("link", "down", true),
        ("link", "t0", false),
        ("link", "t5", false),
        ("link", "flap", false),
        ("link", "frame", false),
        // Put inside the button itself (a link in a button takes its click).
        ("inside", "move", true),
        ("inside", "over", true),
        ("inside", "down", false),
        // A real "Mua ngay" button moved under the pointer.
        ("button", "move", true),
        ("button", "down", true),
    ] {
        for path in ["order", "go"] {
            let case = format!("{how} {when} {path}");
            let (r, got, asked) = try_attack(&site, &attack(&site, how, when, "self", path), &[]).await;
            let lay = if how == "button" { "Mua ngay" } else { "link to" };
            let refused = held(&case, &site, &r, &got, &asked, lay);
            assert!(refused || !must, "{case}: the click was not refused: {r:?}");
        }
    }
}

/// A link laid over "Tìm kiếm" from the start with `pointer-events:
/// none` (the cover check looks through it) turns to `auto` as the
/// pointer arrives, on the button's pointerover, or on its pointerdown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overlay_whose_pointer_events_turn_on_takes_no_click() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for when in ["move", "over", "down"] {
        for path in ["order", "go"] {
            let case = format!("events {when} {path}");
            let (r, got, asked) = try_attack(&site, &attack(&site, "events", when, "self", path), &[]).await;
            assert!(held(&case, &site, &r, &got, &asked, "link to"), "{case}: not refused: {r:?}");
        }
    }
}

/// "Tìm kiếm" submits a form here, so the gate asks, and the user
/// approves the search; a frame of another site then slides over it. The
/// approval covers the search, never what the press would land on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_search_slid_over_buys_nothing() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    for (how, when) in [("frame-x", "move"), ("link", "over"), ("frame-x", "down")] {
        let url = format!("{}&form=1", attack(&site, how, when, "top", "go"));
        let (r, got, asked) = try_attack(&site, &url, &[true]).await;
        let case = format!("approved {how} {when}");
        assert!(held(&case, &site, &r, &got, &asked, if how == "link" { "link to" } else { "iframe" }), "{r:?}");
        let asked = asked.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{case}: only the search was asked about: {asked:#?}");
        assert!(asked[0].destination.as_deref().unwrap_or_default().contains("/search"), "{asked:#?}");
        assert_eq!(site.hits("search"), 0, "{case}: the press went nowhere, not even to the search");
    }
}

/// Controls: honest clicks land, ask nothing, and the checks around the
/// press add no delay to measure between the pointer's arrival and the
/// click (the page times it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn honest_clicks_land_where_aimed_with_no_question_and_no_delay() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("press/honest.html?shift=1")})).await;
    assert!(r.is_ok(), "{r:?}");
    let mut took = Vec::new();
    for _ in 0..12 {
        let t = std::time::Instant::now();
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "#plain"})).await;
        took.push(t.elapsed());
        assert!(r.is_ok(), "{r:?}");
    }
    for (tool, args) in [
        ("browser_click", json!({"selector": "#ripple"})),
        ("browser_click", json!({"selector": "#twice", "click_count": 2})),
        ("browser_click", json!({"selector": "role=button[name=\"Lưu ghi chú\"]"})),
        ("browser_check", json!({"selector": "#gift"})),
        ("browser_check", json!({"selector": "#invoice"})),
        ("browser_click", json!({"selector": "#apply", "frame": "#inner"})),
        ("browser_click", json!({"selector": "#size"})),
        ("browser_click", json!({"selector": "#day"})),
        ("browser_click", json!({"selector": "#more"})),
        // Moves down as the pointer arrives: pressed where it is now.
        ("browser_click", json!({"selector": "#shift"})),
    ] {
        let r = core.call_tool(&cx, tool, args.clone()).await;
        assert!(r.is_ok(), "{tool} {args}: {r:?}");
    }
    let text = core.call_tool(&cx, "browser_read_text", json!({})).await;
    let text = text.data["text"].as_str().unwrap_or_default().to_owned();
    // The log reads as one line of words.
    for said in ["ripple", "twice dblclick", "note saved", "coupon applied", "shift"] {
        assert!(text.contains(said), "{said} missing: {text}");
    }
    assert!(!text.contains("buy"), "the button that took Search's place was clicked: {text}");
    let checked = |sel: &str| {
        let (core, cx) = (&core, &cx);
        let sel = sel.to_owned();
        async move {
            let r = core.call_tool(cx, "browser_check", json!({"selector": sel})).await;
            r.data["changed"] == json!(false) && r.data["checked"] == json!(true)
        }
    };
    assert!(checked("#gift").await && checked("#invoice").await, "the boxes were ticked");
    assert!(confirmer.asked.lock().unwrap().is_empty(), "{:#?}", confirmer.asked.lock().unwrap());
    // From the pointer's arrival to the click, as the page saw it.
    let mut page_ms: Vec<f64> = text.split_whitespace().filter_map(|w| w.strip_prefix("took:")?.parse().ok()).collect();
    assert_eq!(text.matches("plain trusted").count(), 12, "every click landed, trusted: {text}");
    assert_eq!(page_ms.len(), 12, "{text}");
    page_ms.sort_by(f64::total_cmp);
    took.sort();
    let median = page_ms[page_ms.len() / 2];
    eprintln!("press: pointer to click {page_ms:?} ms (median {median}); whole calls {took:?}");
    // No wait to measure is added between the pointer's arrival and the
    // press (a settle of its own would be hundreds of ms): the bound is
    // loose because this machine's load alone moves it from 10 to 60 ms;
    // the figure itself is printed above.
    assert!(median < 200.0, "the press took {median} ms from the pointer's arrival to the click: {page_ms:?}");
    core.close().await;
}
