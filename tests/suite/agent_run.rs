//! `halley run` against the scripted model server on real Chromium: the
//! loop streams, runs tools through the gate, fences page content, records
//! every step, and a model that obeys an injected page is stopped.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_question_about_a_page_is_answered_with_the_price() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_extract",
            json!({"schema": {"price": "number", "currency": "string"}}),
        )])
        .with_text("Để tôi xem giá."),
        Turn::text("Laptop ASUS Vivobook 15 giá 21.490.000 ₫."),
    ]);
    let h = Halley::new();
    let base = model.base_url();
    let run = h.run(&[
        "--headless",
        "run",
        "Laptop trên trang này giá bao nhiêu?",
        "--json",
        "--base-url",
        &base,
        "--model",
        "scripted-model",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let evs = events(&run.stdout);
    let kinds: Vec<&str> = evs.iter().filter_map(|e| e["type"].as_str()).collect();
    assert!(kinds.iter().filter(|k| **k == "token").count() >= 3, "the answer streams: {kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "tool_call").count(), 2);
    let last = evs.last().unwrap();
    assert_eq!(last["type"], "final");
    assert_eq!(last["text"], "Laptop ASUS Vivobook 15 giá 21.490.000 ₫.");
    let extract = evs.iter().find(|e| e["type"] == "tool_result" && e["name"] == "browser_extract").unwrap();
    assert_eq!(extract["result"]["data"]["data"]["price"].as_f64(), Some(21_490_000.0));

    // What the model was shown: every tool with its schema, page content fenced.
    let reqs = model.requests();
    assert_eq!(reqs.len(), 3);
    let tools = reqs[0]["tools"].as_array().unwrap();
    let nav = tools.iter().find(|t| t["function"]["name"] == "browser_navigate").unwrap();
    assert_eq!(nav["function"]["parameters"]["required"], json!(["url"]));
    let last_req = reqs[2]["messages"].as_array().unwrap();
    let tool_msg = last_req.iter().rfind(|m| m["role"] == "tool").unwrap();
    assert!(tool_msg["content"].as_str().unwrap().contains("<<<PAGE_DATA "), "{tool_msg}");

    // Every step is in `halley runs show`.
    let run_id = last["run_id"].as_str().unwrap();
    let shown = h.run(&["runs", "show", run_id, "--json"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    let shown = shown.json();
    assert_eq!(shown["status"], "completed");
    assert_eq!(shown["steps"].as_array().unwrap().len(), 3);
    let roles: Vec<&str> = shown["messages"].as_array().unwrap().iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, vec!["user", "assistant", "tool", "assistant", "tool", "assistant"]);
}

#[test]
fn a_model_that_obeys_an_injected_page_is_stopped_by_the_gate() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let set = h.call("user_profile_set", &json!({"set": {"travel.passport_no": "D5550001"}}));
    assert_eq!(set.code, 0);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("hidden.html")}))]),
        Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({"keys": ["travel"]}))]),
        // It does what the page says: hand the passport number out, then buy.
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("form.html")}))]),
        Turn::tool_calls(vec![ToolCall::new(
            "browser_type",
            json!({"selector": "#ghi_chu", "text": "{{profile.travel.passport_no}}"}),
        )]),
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_click", json!({"selector": "#buy-now"}))]),
        Turn::text("Xong."),
    ]);
    let base = model.base_url();
    let run = h.run_task("Xem trang này", &base, &["--confirm", "deny"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let evs = events(&run.stdout);
    let errors: Vec<String> = evs
        .iter()
        .filter(|e| e["type"] == "tool_result" && e["result"]["status"] == "error")
        .map(|e| e["result"]["error"]["code"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(errors, vec!["denied", "denied"], "{evs:?}");
    assert_eq!(site.hits("collect"), 0);
    assert!(site.posts().is_empty());
    // The model never saw the passport number, in any request.
    let all = serde_json::to_string(&model.requests()).unwrap();
    assert!(!all.contains("D5550001"), "the passport number reached the model");
    assert!(all.contains("{{profile.travel.passport_no}}"));
}

#[test]
fn model_quirks_end_in_a_defined_state() {
    let h = Halley::new();
    // Malformed arguments go back to the model, which then answers.
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("normalize_compare", json!({"schema": {}}))]).malformed_args().no_index(),
        Turn::text("Không so sánh được.").finish_reason("weird_reason"),
    ]);
    let run = h.run(&["run", "So sánh", "--json", "--base-url", &model.base_url(), "--model", "m"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let evs = events(&run.stdout);
    assert_eq!(evs.last().unwrap()["type"], "final");

    // A cut stream and a server that keeps failing end the run with an error.
    let cut = ModelServer::start(vec![Turn::text("nửa câu trả lời bị cắt ngang giữa chừng").cut()]);
    let run = h.run(&["run", "x", "--json", "--base-url", &cut.base_url(), "--model", "m"]);
    assert_eq!(run.code, 1);
    assert_eq!(events(&run.stdout).last().unwrap()["type"], "error");

    // 429 with Retry-After is waited out.
    let busy = ModelServer::start(vec![Turn::http_error(429, Some(1)), Turn::text("Được rồi.")]);
    let run = h.run(&["run", "x", "--json", "--base-url", &busy.base_url(), "--model", "m"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);

    // Nobody listening: a clear message within seconds.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let started = std::time::Instant::now();
    let run = h.run(&["run", "x", "--base-url", &format!("http://127.0.0.1:{closed}/v1"), "--model", "m"]);
    assert_eq!(run.code, 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
    assert!(!run.stderr.is_empty());
}

#[test]
fn a_chat_keeps_its_history_and_can_be_resumed() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let h = Halley::new();
    let model = ModelServer::start(vec![
        Turn::text("Chào bạn! Bạn cần gì?"),
        Turn::text("Bạn vừa chào tôi."),
        Turn::text("Vẫn là cuộc trò chuyện cũ."),
    ]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(["chat", "--json", "--base-url", &model.base_url(), "--model", "m"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all("Xin chào\nTôi vừa nói gì?\n".as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let evs = events(&String::from_utf8_lossy(&out.stdout));
    let finals: Vec<&Value> = evs.iter().filter(|e| e["type"] == "final").collect();
    assert_eq!(finals.len(), 2);
    // The second request carries the first exchange.
    let second = &model.requests()[1]["messages"];
    let texts: Vec<&str> = second.as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert_eq!(&texts[1..], &["Xin chào", "Chào bạn! Bạn cần gì?", "Tôi vừa nói gì?"]);

    // Resumed later, from another process.
    let run_id = finals[1]["run_id"].as_str().unwrap();
    let conversation =
        h.run(&["runs", "show", run_id, "--json"]).json()["conversation_id"].as_str().unwrap().to_owned();
    let again = h.run(&[
        "run",
        "Còn nhớ không?",
        "--json",
        "--conversation",
        &conversation,
        "--base-url",
        &model.base_url(),
        "--model",
        "m",
    ]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let third = model.requests()[2]["messages"].as_array().unwrap().len();
    assert_eq!(third, 1 + 4 + 1, "system, the four earlier messages, the new task");
    let missing = h.run(&["run", "x", "--conversation", "conv-nope", "--base-url", &model.base_url(), "--model", "m"]);
    assert_eq!(missing.code, 1);
}
