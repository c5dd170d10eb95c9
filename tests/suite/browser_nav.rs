//! Navigation, tabs and waits on real Chromium.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::Halley;
use crate::common::browser::{OwnChrome, have_browser, step};
use crate::common::fixtures::FixtureServer;

#[test]
fn navigate_reports_the_page_and_its_status() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
            step("browser_navigate", json!({"url": site.url("status/404"), "wait_until": "domcontentloaded"})),
            step("browser_navigate", json!({"url": format!("http://127.0.0.1:{closed_port}/nothing-listens-here")})),
            step("browser_navigate", json!({"url": "javascript:alert(1)"})),
            step("browser_navigate", json!({"url": site.url("redirect?to=/shop-us.html")})),
        ],
        &[],
    );
    let first = s.ok(0);
    assert_eq!(first["url"], site.url("shop-vn.html"));
    assert_eq!(first["http_status"], 200);
    assert!(first["title"].as_str().unwrap().contains("Laptop"), "{first}");
    assert_eq!(s.result(0)["current_url"], site.url("shop-vn.html"));
    assert_eq!(s.ok(1)["http_status"], 404);
    assert_eq!(s.err(2), "navigation_failed");
    assert!(s.result(2)["error"]["message"].as_str().unwrap().contains("CONNECTION_REFUSED"));
    assert_eq!(s.err(3), "invalid_arguments");
    assert_eq!(s.ok(4)["url"], site.url("shop-us.html"));
    assert_eq!(s.run.code, 1, "a failed call makes the script exit 1");
}

#[test]
fn wait_until_load_waits_for_slow_resources_and_can_time_out() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            // The image takes 3 s: the HTML is parsed long before.
            step(
                "browser_navigate",
                json!({"url": site.url("slow-resource.html"), "wait_until": "domcontentloaded", "timeout_ms": 2000}),
            ),
            step(
                "browser_navigate",
                json!({"url": site.url("slow-resource.html"), "wait_until": "load", "timeout_ms": 1000}),
            ),
            step("browser_navigate", json!({"url": site.url("slow?ms=5000"), "timeout_ms": 1000})),
            step(
                "browser_navigate",
                json!({"url": site.url("slow-resource.html"), "wait_until": "networkidle", "timeout_ms": 15000}),
            ),
        ],
        &[],
    );
    s.ok(0);
    assert_eq!(s.err(1), "timeout");
    assert_eq!(s.err(2), "timeout");
    s.ok(3);
}

#[test]
fn tabs_opened_by_pages_get_ids_and_can_be_switched_and_closed() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("tabs.html")})),
            step("browser_click", json!({"selector": "#new-tab-link"})),
            step("browser_click", json!({"selector": "text=Xem giá bên Mỹ"})),
            step("browser_wait", json!({"until": "timeout", "timeout_ms": 500})),
            step("browser_list_tabs", json!({})),
            step("browser_switch_tab", json!({"tab_id": "tab-2"})),
            step("browser_read_text", json!({"selector": "h1"})),
            step("browser_close_tab", json!({"tab_id": "tab-3"})),
            step("browser_list_tabs", json!({})),
            step("browser_switch_tab", json!({"tab_id": "tab-9"})),
            step("browser_new_tab", json!({"url": site.url("shop-us.html")})),
            step("browser_list_tabs", json!({"include_favicons": true})),
        ],
        &["--yes"],
    );
    let tabs = s.ok(4)["tabs"].as_array().unwrap().clone();
    let summary: Vec<(String, String)> =
        tabs.iter().map(|t| (t["id"].as_str().unwrap().to_owned(), t["url"].as_str().unwrap().to_owned())).collect();
    assert_eq!(
        summary,
        vec![
            ("tab-1".to_owned(), site.url("tabs.html")),
            ("tab-2".to_owned(), site.url("shop-vn.html")),
            ("tab-3".to_owned(), site.url("shop-us.html")),
        ]
    );
    assert_eq!(tabs.iter().filter(|t| t["current"] == true).count(), 1);
    assert_eq!(s.ok(5)["tab"]["id"], "tab-2");
    assert!(s.ok(6)["text"].as_str().unwrap().contains("Laptop"));
    assert_eq!(s.ok(7)["closed"], "tab-3");
    let left: Vec<&str> = s.ok(8)["tabs"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(left, vec!["tab-1", "tab-2"]);
    assert_eq!(s.err(9), "tab_not_found");
    assert!(s.result(9)["error"]["message"].as_str().unwrap().contains("tab-1, tab-2"));
    assert_eq!(s.ok(10)["tab"]["id"], "tab-4");
    assert_eq!(s.ok(10)["tab"]["current"], true);
    let last = s.ok(11)["tabs"].as_array().unwrap();
    assert_eq!(last.len(), 3);
    assert!(last.iter().all(|t| t["favicon"].is_string()), "{last:?}");
}

#[test]
fn closing_a_tab_asks_first_and_a_refusal_keeps_it() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_new_tab", json!({"url": site.url("form.html")})),
            step("browser_close_tab", json!({"tab_id": "tab-2"})),
            step("browser_list_tabs", json!({})),
        ],
        &["--confirm", "deny"],
    );
    s.ok(0);
    assert_eq!(s.err(1), "denied");
    assert_eq!(s.ok(2)["tabs"].as_array().unwrap().len(), 2);
}

#[test]
fn waits_for_selectors_text_and_network() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let s = h.browse(
        &[
            step("browser_navigate", json!({"url": site.url("delayed-price.html"), "wait_until": "domcontentloaded"})),
            step("browser_wait", json!({"until": "selector", "selector": "#price", "timeout_ms": 10000})),
            step("browser_read_text", json!({"selector": "#price"})),
            step("browser_wait", json!({"until": "text", "text": "19.990.000", "timeout_ms": 5000})),
            step("browser_wait", json!({"until": "selector", "selector": "#never-there", "timeout_ms": 300})),
            step(
                "browser_wait",
                json!({"until": "selector", "selector": "#never-there", "state": "hidden", "timeout_ms": 300}),
            ),
            step("browser_wait", json!({"until": "networkidle", "timeout_ms": 10000})),
            step("browser_wait", json!({"until": "selector", "timeout_ms": 300})),
        ],
        &[],
    );
    assert_eq!(s.ok(1)["condition_met"], true);
    assert!(s.ok(2)["text"].as_str().unwrap().contains("19.990.000"));
    assert_eq!(s.ok(3)["condition_met"], true);
    assert_eq!(s.ok(4)["condition_met"], false);
    assert_eq!(s.ok(5)["condition_met"], true);
    assert_eq!(s.ok(6)["condition_met"], true);
    assert_eq!(s.err(7), "invalid_arguments");
}

#[test]
fn attaching_to_a_running_chrome_leaves_it_running() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let mut chrome = OwnChrome::start(&h.work_dir().join("own-chrome"));
    let endpoint = chrome.endpoint.clone();
    let script = h.write_file(
        "attach.jsonl",
        format!(
            "{}\n{}\n",
            step("browser_navigate", json!({"url": site.url("shop-us.html")})),
            step("browser_read_text", json!({"selector": "h1"}))
        )
        .as_bytes(),
    );
    let run = h.run(&["--cdp-url", &endpoint, "tools", "script", script.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("ThinkPad"), "{}", run.stdout);
    assert_eq!(chrome.child.try_wait().unwrap(), None, "Halley leaves a browser it did not start running");
    assert_eq!(site.hits("shop-us.html"), 1);

    let remote = h.run(&["--cdp-url", "http://192.0.2.1:9222", "tools", "call", "browser_list_tabs"]);
    assert_eq!(remote.code, 2, "a remote --cdp-url is a usage error");
    assert!(remote.stderr.contains("must be on this machine"), "{}", remote.stderr);
}
