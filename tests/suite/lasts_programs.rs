//! Other programs (issue 42, item 8): the person's values in an MCP tool's
//! arguments are asked about even where an allow rule allows the tool, in
//! clear and encoded (the team's recording MCP server on the real Python
//! SDK says exactly what it received); tools a page declares (WebMCP
//! `navigator.modelContext.registerTool`) are never offered to the model.

use base64::Engine;
use serde_json::{Value, json};

use super::gate_browser::Scripted;
use super::lasts_profile::{PASSPORT, host, run};
use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, site_dir};
use crate::common::mcp;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

/// What the recording server received, one call a line.
fn received(log: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The passport as a page or a model could carry it, in the spellings
/// `gate::exfil::find_secrets` reads.
fn spellings() -> Vec<String> {
    let b64 = base64::engine::general_purpose::STANDARD;
    vec![
        PASSPORT.to_owned(),
        format!("Số hộ chiếu: {PASSPORT}"),
        b64.encode(PASSPORT),
        "B%376%35%34321".to_owned(),
        PASSPORT.chars().map(|c| c.to_string()).collect::<Vec<_>>().join(" "),
        PASSPORT.chars().map(|c| c.to_string()).collect::<Vec<_>>().join("-"),
        hex::encode(PASSPORT),
        PASSPORT.to_lowercase(),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persons_values_in_an_allowed_mcp_tools_arguments_are_asked_about_in_clear_and_encoded() {
    let h = Halley::new();
    let set = h.call("user_profile_set", &json!({"set": {"travel.passport_no": PASSPORT}}));
    assert_eq!(set.code, 0, "{}", set.stderr);
    let log = h.work_dir().join("rec.log");
    let server = site_dir().join("lasts/recorder_mcp.py");
    let python = mcp::python();
    let added =
        h.run(&["mcp", "add", "rec", "--", python.to_str().unwrap(), server.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(added.code, 0, "{}\n{}", added.stdout, added.stderr);
    // The person allows the tool for good.
    assert_eq!(h.run(&["rules", "add", "--tool", "rec__note", "allow"]).code, 0);
    let host = host(&h).await;

    // Control: an ordinary note goes through as the rule says, unasked.
    let user = Scripted::new(&[]);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("rec__note", json!({"text": "Mua vé Hà Nội - Đà Nẵng"}))]),
        Turn::text("Đã ghi."),
    ]);
    let ran = run(&host, &model, "Ghi chú trong rec: mua vé Hà Nội - Đà Nẵng", None, &user).await;
    assert!(ran.result("rec__note").is_ok(), "{:?}", ran.result("rec__note"));
    assert!(user.asked.lock().unwrap().is_empty());
    assert_eq!(received(&log), [json!({"tool": "note", "args": {"text": "Mua vé Hà Nội - Đà Nẵng"}})]);

    // The passport, however spelled: asked whatever the rule says; no: the server receives nothing.
    for text in spellings() {
        let user = Scripted::new(&[false]);
        let model = ModelServer::start(vec![
            Turn::tool_calls(vec![ToolCall::new("rec__note", json!({"text": text}))]),
            Turn::text("Không gửi."),
        ]);
        let ran = run(&host, &model, "Ghi chú trong rec", None, &user).await;
        let error = ran.result("rec__note").error.clone().unwrap_or_else(|| panic!("{text}: not refused"));
        assert_eq!(error.code.as_str(), "denied", "{text}");
        let asked = user.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{text}: asked once");
        assert!(
            asked[0].risks.iter().any(|r| r.contains("sends your travel.passport_no off this computer")),
            "{text}: {:?}",
            asked[0].risks
        );
        assert_eq!(received(&log).len(), 1, "{text}: the server received nothing");
    }

    // Approved once: exactly that call, once.
    let user = Scripted::new(&[true]);
    let encoded = base64::engine::general_purpose::STANDARD.encode(PASSPORT);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("rec__note", json!({"text": encoded}))]),
        Turn::text("Đã ghi."),
    ]);
    let ran = run(&host, &model, "Ghi chú trong rec", None, &user).await;
    assert!(ran.result("rec__note").is_ok(), "{:?}", ran.result("rec__note"));
    assert_eq!(user.asked.lock().unwrap().len(), 1);
    let got = received(&log);
    assert_eq!(got.len(), 2);
    assert_eq!(got[1], json!({"tool": "note", "args": {"text": encoded}}));
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_a_page_declares_are_never_offered_to_the_model() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let host = host(&h).await;
    let before: Vec<String> = host.core().registry().list().map(|t| t.name.clone()).collect();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("lasts/webmcp.html")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_read_text", json!({}))]),
        Turn::tool_calls(vec![ToolCall::new("place_order_now", json!({"qty": 50}))]),
        Turn::text("Xong."),
    ]);
    let user = Scripted::new(&[]);
    let ran = run(&host, &model, "Xem trang cửa hàng này", None, &user).await;
    // The page declared its tools (its script ran) ...
    let read = ran.result("browser_read_text");
    assert!(read.is_ok(), "{read:?}");
    // ... and none of them is a tool: not offered, not callable, not registered.
    let declared = ["place_order_now", "send_passport", "delete_account"];
    for request in model.requests() {
        let names: Vec<&str> =
            request["tools"].as_array().unwrap().iter().filter_map(|t| t["function"]["name"].as_str()).collect();
        for name in declared {
            assert!(!names.contains(&name), "{name} offered: {names:?}");
        }
    }
    assert_eq!(ran.result("place_order_now").error.as_ref().unwrap().code.as_str(), "unknown_tool");
    let after: Vec<String> = host.core().registry().list().map(|t| t.name.clone()).collect();
    assert_eq!(before, after, "the registry is as it was");
    assert!(site.requests().iter().all(|r| !r.path.starts_with("/lasts/order")), "nothing ordered");
    assert!(user.asked.lock().unwrap().is_empty());
    host.close().await;
}
