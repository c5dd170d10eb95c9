//! A watch reads its page without letting the page act (issue 42, item 7):
//! the page's scripts still run in the watch's background tab (a
//! script-rendered price is read), but what they send is held to the gate
//! and, with nobody to ask, failed: an order POSTed by `fetch` at load, a
//! GET that orders, a form the script submits, a beacon, an order a second
//! later. The shop receives none of them, at creation and at every check.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;

fn ok_json(run: &crate::common::Run) -> Value {
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    run.json()
}

/// What reached the shop's order endpoints.
fn orders(site: &FixtureServer) -> Vec<String> {
    site.requests()
        .iter()
        .filter(|r| r.path.starts_with("/lasts/order"))
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

#[test]
fn a_watched_page_whose_scripts_order_at_load_orders_nothing_and_is_still_read() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let url = site.url("lasts/watch-order.html");
    let created = ok_json(&h.run(&["--headless", "watch", "create", &url, "--below", "1000000", "--json"]));
    assert_eq!(
        (&created["check"]["price"], &created["check"]["method"]),
        (&json!(1_290_000.0), &json!("browser")),
        "the script-rendered price is read in the browser: {created}"
    );
    let id = created["watch_id"].as_str().unwrap().to_owned();
    // The page's own reads went (its HTML, loaded in the tab), its orders did not.
    assert!(site.hits("lasts/watch-order.html") >= 2, "fetched, then loaded in the tab");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(orders(&site), Vec::<String>::new(), "the shop received no order at creation");

    // Every check alike.
    for _ in 0..2 {
        let checked = ok_json(&h.run(&["--headless", "watch", "poll", &id, "--json"]));
        assert_eq!(checked["checks"][0]["price"], json!(1_290_000.0), "{checked}");
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(orders(&site), Vec::<String>::new(), "the shop received no order at a check");
    }
    // A pass over every due watch, in its own tab pool: the same.
    let second = ok_json(&h.run(&["--headless", "watch", "create", &url, "--below", "1000000", "--json"]));
    assert_eq!(second["check"]["price"], json!(1_290_000.0), "{second}");
    assert_eq!(orders(&site), Vec::<String>::new());
}
