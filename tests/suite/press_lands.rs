//! Probe (temporary).

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::gate_browser::{Scripted, core_with};
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;

fn bought(site: &FixtureServer) -> Vec<String> {
    site.requests()
        .into_iter()
        .filter(|r| r.path == "/order" || r.path == "/go")
        .map(|r| format!("{:?} {} {}?{}", r.host, r.method, r.path, r.query.unwrap_or_default()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let other = site.other_origin().replace("127.0.0.1", "localhost");
    let cases = std::env::var("PROBE").unwrap_or("frame-x:move:self:go".into());
    for case in cases.split(',') {
        let v: Vec<&str> = case.split(':').collect();
        site.clear();
        let tmp = tempfile::tempdir().unwrap();
        let confirmer = Scripted::new(&[]);
        let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
        let other = if v[0] == "frame-port" { site.other_origin() } else { other.clone() };
        let url = format!("{}?how={}&when={}&to={}&path={}&other={}", site.url("press/search.html"), v[0], v[1], v[2], v[3], other);
        let r = core.call_tool(&cx, "browser_navigate", json!({"url": url})).await;
        assert!(r.is_ok(), "{r:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let t = std::time::Instant::now();
        let r = core.call_tool(&cx, "browser_click", json!({"selector": "text=Tìm kiếm"})).await;
        let took = t.elapsed();
        tokio::time::sleep(Duration::from_millis(800)).await;
        let asked: Vec<_> = confirmer.asked.lock().unwrap().iter().map(|a| a.destination.clone()).collect();
        eprintln!("PROBE {case}: {:?} took {took:?} err={:?} url={:?} asked={asked:?} bought={:?}", r.is_ok(), r.error, r.data.get("url"), bought(&site));
        core.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_events() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let confirmer = Scripted::new(&[]);
    let (core, cx) = core_with(tmp.path(), Arc::clone(&confirmer)).await;
    let r = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("press/events-probe.html")})).await;
    assert!(r.is_ok(), "{r:?}");
    for sel in ["#b", "#b", "#b"] {
        let r = core.call_tool(&cx, "browser_click", json!({"selector": sel})).await;
        let t = core.call_tool(&cx, "browser_read_text", json!({})).await;
        eprintln!("PROBE {sel}: {:?} {}", r.error, t.data);
    }
    eprintln!("PROBE bought={:?}", bought(&site));
    core.close().await;
}
