//! The agent loop beyond the happy path, through `halley run` against the
//! scripted model server: blueprints and `_reasoningForCall`, memory in the
//! prompt, provider traces, oversized arguments, the context budget,
//! screenshots for image models, READ_ONLY calls run together, cancelling,
//! pausing on the user and resuming a run cut short.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Event types in order, a run of tokens counted once.
fn types(evs: &[Value]) -> Vec<String> {
    let mut t: Vec<String> = evs.iter().map(|e| e["type"].as_str().unwrap_or_default().to_owned()).collect();
    t.dedup_by(|a, b| a == "token" && b == "token");
    t
}

/// `halley run TASK --json` against `model`, plus `extra` flags.
fn run(h: &Halley, model: &ModelServer, task: &str, extra: &[&str]) -> crate::common::Run {
    let base = model.base_url();
    let mut args = vec!["--headless", "run", task, "--json", "--base-url", &base, "--model", "m"];
    args.extend_from_slice(extra);
    h.run(&args)
}

/// The same, started in the background in its own process group.
fn spawn(h: &Halley, args: &[&str]) -> Child {
    use std::os::unix::process::CommandExt;
    Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(args)
        .current_dir(h.work_dir())
        .env_remove("HALLEY_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("spawn halley")
}

fn signal(target: &str, sig: &str) {
    let ok = Command::new("kill").args([sig, "--", target]).status().expect("kill").success();
    assert!(ok, "kill {sig} {target}");
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn show(h: &Halley, run_id: &str, extra: &[&str]) -> Value {
    let mut args = vec!["runs", "show", run_id, "--json"];
    args.extend_from_slice(extra);
    let shown = h.run(&args);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    shown.json()
}

fn last_run_id(stdout: &str) -> String {
    events(stdout)
        .iter()
        .rev()
        .find_map(|e| e["run_id"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no run id in {stdout}"))
}

const SENTIMENT: &str = r#"{
  "type": "object",
  "description": "Analyzes the sentiment of a piece of text",
  "properties": {
    "_tool": {"type": "string", "const": "sentimentAnalysis"},
    "text": {"type": "string", "description": "The text to analyze"},
    "_output": {"type": "object", "properties": {
      "sentiment": {"type": "string", "enum": ["positive", "negative", "neutral"]},
      "confidence": {"type": "number"}}, "required": ["sentiment"]}
  },
  "required": ["_tool", "text"]
}"#;

#[test]
fn blueprints_run_implicitly_or_by_their_activity_and_every_call_keeps_its_reason() {
    let h = Halley::new();
    let bp = h.write_file("sentiment.json", SENTIMENT.as_bytes());
    let reg = h.run(&["tools", "register", bp.to_str().unwrap()]);
    assert_eq!(reg.code, 0, "{}", reg.stderr);
    let prefs = json!({"description": "The user's travel preferences", "properties": {
        "_tool": {"const": "travelPrefs"}, "_activity": {"const": "user_profile_get"},
        "keys": {"type": "array", "items": {"type": "string"}}}, "required": ["keys"]});
    let prefs = h.write_file("prefs.json", prefs.to_string().as_bytes());
    assert_eq!(h.run(&["tools", "register", prefs.to_str().unwrap()]).code, 0);
    assert_eq!(h.call("user_profile_set", &json!({"set": {"travel.seat": "cửa sổ"}})).code, 0);

    let output = json!({"sentiment": "positive", "confidence": 0.93});
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "sentimentAnalysis",
            json!({"text": "Giao hàng nhanh, rất hài lòng", "_output": output,
                   "_reasoningForCall": "Người dùng hỏi cảm xúc của đánh giá"}),
        )]),
        // An output that breaks the schema goes back to the model.
        Turn::tool_calls(vec![ToolCall::new(
            "sentimentAnalysis",
            json!({"text": "x", "_output": {"sentiment": "great"}}),
        )]),
        Turn::tool_calls(vec![ToolCall::new(
            "travelPrefs",
            json!({"keys": ["travel"], "_reasoningForCall": "chỗ ngồi"}),
        )]),
        Turn::text("Đánh giá tích cực; bạn thích ghế cửa sổ."),
    ]);
    let out = run(&h, &model, "Đánh giá này tích cực không?", &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = events(&out.stdout);
    let results: Vec<&Value> = evs.iter().filter(|e| e["type"] == "tool_result").collect();
    assert_eq!(results[0]["result"]["data"], output);
    assert_eq!(results[1]["result"]["error"]["code"], "invalid_arguments");
    assert!(results[1]["result"]["error"]["message"].as_str().unwrap().contains("_output.sentiment"));
    assert_eq!(results[2]["result"]["data"]["values"]["travel.seat"], "cửa sổ", "{}", results[2]);
    let first_call = evs.iter().find(|e| e["type"] == "tool_call").unwrap();
    assert_eq!(first_call["reasoning"], "Người dùng hỏi cảm xúc của đánh giá");
    assert!(first_call["arguments"].get("_reasoningForCall").is_none());

    // The model saw the blueprint with its `_output`, and every tool offers `_reasoningForCall`.
    let tools = model.requests()[0]["tools"].as_array().unwrap().clone();
    let sentiment = tools.iter().find(|t| t["function"]["name"] == "sentimentAnalysis").unwrap();
    assert_eq!(sentiment["function"]["parameters"]["required"], json!(["text", "_output"]));
    assert!(tools.iter().all(|t| t["function"]["parameters"]["properties"].get("_reasoningForCall").is_some()));

    // The timeline keeps each call, its reason and its executor.
    let shown = show(&h, &last_run_id(&out.stdout), &[]);
    let calls: Vec<Value> = shown["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!([c["tool"], c["executor"], c["status"], c["error_code"], c["reasoning"]]))
        .collect();
    assert_eq!(
        calls,
        vec![
            json!(["sentimentAnalysis", "implicit", "ok", null, "Người dùng hỏi cảm xúc của đánh giá"]),
            json!(["sentimentAnalysis", "implicit", "error", "invalid_arguments", null]),
            json!(["travelPrefs", "builtin", "ok", null, "chỗ ngồi"]),
        ]
    );
    assert_eq!(shown["tool_calls"][2]["arguments"], json!({"keys": ["travel"]}));

    // Unregistered: gone from the next run's tools.
    assert_eq!(h.run(&["tools", "unregister", "sentimentAnalysis"]).code, 0);
    let model = ModelServer::start(vec![Turn::text("ok")]);
    assert_eq!(run(&h, &model, "hi", &[]).code, 0);
    let names: Vec<Value> =
        model.requests()[0]["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].clone()).collect();
    assert!(!names.contains(&json!("sentimentAnalysis")) && names.contains(&json!("travelPrefs")));
}

#[test]
fn core_memory_is_in_every_prompt_and_the_model_edits_it_through_a_tool() {
    let h = Halley::new();
    let set = h.run(&["memory", "set", "human", "Tên: Lan. Thích ghế cạnh cửa sổ."]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "core_memory_append",
            json!({"label": "human", "content": "Hay bay Vietnam Airlines."}),
        )]),
        Turn::text("Đã ghi nhớ."),
    ]);
    let out = run(&h, &model, "Nhớ giúp: tôi hay bay Vietnam Airlines", &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let reqs = model.requests();
    let system = |i: usize| reqs[i]["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(system(0).contains("Tên: Lan. Thích ghế cạnh cửa sổ."), "{}", system(0));
    assert!(!system(0).contains("Vietnam Airlines"));
    // Read again on the next turn: the edit is there.
    assert!(system(1).contains("Hay bay Vietnam Airlines."), "{}", system(1));
    let history = h.run(&["memory", "history", "human", "--json"]).json();
    let actors: Vec<&str> = history.as_array().unwrap().iter().filter_map(|r| r["actor"].as_str()).collect();
    assert!(actors.contains(&"agent") && actors.contains(&"user"), "{history}");
}

#[test]
fn provider_traces_are_recorded_with_secrets_redacted() {
    let h = Halley::new();
    assert_eq!(h.call("user_profile_set", &json!({"set": {"travel.passport_no": "C7654321"}})).code, 0);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({"keys": ["travel"]}))]),
        Turn::text("Số hộ chiếu của bạn đã được lưu."),
    ]);
    let base = model.base_url();
    let out = Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(["run", "Hộ chiếu của tôi?", "--json", "--base-url", &base, "--model", "m"])
        .env("OPENAI_API_KEY", "sk-test-7f3a9c1e5b")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(model.raw_requests()[0].header("authorization"), Some("Bearer sk-test-7f3a9c1e5b"));
    let shown = show(&h, &last_run_id(&stdout), &["--traces"]);
    let traces = shown["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 2);
    assert_eq!(traces.iter().map(|t| t["status"].clone()).collect::<Vec<_>>(), vec![json!(200), json!(200)]);
    assert_eq!(traces[0]["request"]["model"], "m");
    let response = traces[1]["response"].as_str().unwrap();
    assert!(response.starts_with("data: {") && response.contains("lưu.") && response.contains("[DONE]"), "{response}");
    let all = shown.to_string();
    assert!(!all.contains("sk-test-7f3a9c1e5b") && !all.contains("C7654321"));
    let db = std::fs::read(h.data_dir().join("halley.db")).unwrap();
    let db = String::from_utf8_lossy(&db);
    assert!(!db.contains("sk-test-7f3a9c1e5b"), "the API key is in the database");
}

#[test]
fn ten_megabytes_of_arguments_are_refused_and_the_run_goes_on() {
    let h = Halley::new();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({}))]).huge_args(10 * 1024 * 1024),
        Turn::text("Xin lỗi, tôi sẽ hỏi lại."),
    ]);
    let out = run(&h, &model, "Hồ sơ của tôi", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let evs = events(&out.stdout);
    let result = evs.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(result["result"]["error"]["code"], "invalid_arguments");
    assert!(out.stdout.len() < 100_000, "the arguments were echoed: {} bytes", out.stdout.len());
    // The next request carries a stand-in, not the 10 MB.
    let second = serde_json::to_string(&model.requests()[1]).unwrap();
    assert!(second.len() < 200_000, "{} bytes", second.len());
    assert!(second.contains("refused unread"));
    let shown = show(&h, &last_run_id(&out.stdout), &[]);
    assert_eq!(shown["status"], "completed");
    assert_eq!(shown["tool_calls"][0]["executor"], "none");
    // Not kept anywhere whole (the provider trace of that answer is capped at 2 MB).
    let stored: u64 = ["halley.db", "halley.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(h.data_dir().join(f)).ok())
        .map(|m| m.len())
        .sum();
    assert!(stored < 6 * 1024 * 1024, "{stored} bytes stored");
}

#[test]
fn old_tool_outputs_are_elided_to_fit_the_context_budget() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    // The tools alone cost this much; leave room for about two page texts.
    let probe = ModelServer::start(vec![Turn::text("ok")]);
    assert_eq!(run(&h, &probe, "hi", &[]).code, 0);
    let tools_tokens = serde_json::to_string(&probe.requests()[0]["tools"]).unwrap().len() / 4;
    let budget = (tools_tokens + 4_000).to_string();
    let read = || ToolCall::new("browser_read_text", json!({}));
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("catalogue?rows=80")}))]),
        Turn::tool_calls(vec![read()]),
        Turn::tool_calls(vec![ToolCall::new("browser_scroll", json!({"amount_px": 900}))]),
        Turn::tool_calls(vec![read()]),
        Turn::tool_calls(vec![ToolCall::new("browser_scroll", json!({"amount_px": 900}))]),
        Turn::tool_calls(vec![read()]),
        Turn::text("Có 200 sản phẩm."),
    ]);
    let out = run(&h, &model, "Trang có bao nhiêu sản phẩm?", &["--context-tokens", &budget]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let last = model.requests().last().unwrap().clone();
    let tool_msgs: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tool_msgs.len(), 6);
    // The first page text was elided; the newest two are whole.
    assert!(tool_msgs[1].contains("browser_read_text result") && tool_msgs[1].contains("to fit the model's context"));
    assert!(tool_msgs[5].contains("<<<PAGE_DATA") && tool_msgs[5].len() > 2000, "{}", &tool_msgs[5][..200]);
    let sent = serde_json::to_string(&last["messages"]).unwrap().len() / 4 + tools_tokens;
    assert!(sent <= tools_tokens + 4_000, "{sent} tokens sent");
}

#[test]
fn screenshots_go_only_to_models_that_accept_images() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let script = || {
        vec![
            Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
            Turn::tool_calls(vec![ToolCall::new("browser_screenshot", json!({}))]),
            Turn::text("Tôi thấy trang sản phẩm."),
        ]
    };
    let image_parts = |model: &ModelServer| -> Vec<String> {
        let last = model.requests().last().unwrap().clone();
        last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|p| p["type"] == "image_url")
            .map(|p| p["image_url"]["url"].as_str().unwrap()[..22].to_owned())
            .collect()
    };
    let vision = ModelServer::start(script());
    assert_eq!(run(&h, &vision, "Trang trông thế nào?", &["--images", "yes"]).code, 0);
    assert_eq!(image_parts(&vision), vec!["data:image/png;base64,".to_owned()]);
    let text_only = ModelServer::start(script());
    assert_eq!(run(&h, &text_only, "Trang trông thế nào?", &["--images", "no"]).code, 0);
    assert_eq!(image_parts(&text_only), Vec::<String>::new());
}

#[test]
fn read_only_calls_of_one_turn_run_together() {
    if !have_browser() {
        return;
    }
    let h = Halley::new();
    let wait = || ToolCall::new("browser_wait", json!({"until": "timeout", "timeout_ms": 700}));
    let model = ModelServer::start(vec![Turn::tool_calls(vec![wait(), wait()]), Turn::text("xong")]);
    let out = run(&h, &model, "chờ", &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let shown = show(&h, &last_run_id(&out.stdout), &[]);
    let spans: Vec<(i64, i64)> = shown["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let start = chrono::DateTime::parse_from_rfc3339(c["started_at"].as_str().unwrap()).unwrap();
            let start = start.timestamp_millis();
            (start, start + c["duration_ms"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(spans.len(), 2);
    // Each started before the other ended: they overlapped.
    assert!(spans[0].0 < spans[1].1 && spans[1].0 < spans[0].1, "{spans:?}");
}

#[test]
fn a_cancelled_run_ends_cancelled_and_its_conversation_goes_on() {
    if !have_browser() {
        return;
    }
    let h = Halley::new();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_wait", json!({"until": "timeout", "timeout_ms": 20000}))]),
        Turn::text("Tiếp tục nhé."),
    ]);
    let base = model.base_url();
    let child = spawn(&h, &["--headless", "run", "chờ lâu", "--json", "--base-url", &base, "--model", "m"]);
    wait_until("the model's first answer", || model.request_count() >= 1);
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child.id().to_string(), "-INT");
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "cancelling took {:?}", started.elapsed());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let evs = events(&stdout);
    assert_eq!(evs.last().unwrap()["code"], "cancelled", "{evs:?}");
    let run_id = last_run_id(&stdout);
    let shown = show(&h, &run_id, &[]);
    assert_eq!((shown["status"].clone(), shown["stop_reason"].clone()), (json!("cancelled"), json!("cancelled")));
    assert_eq!(shown["tool_calls"][0]["status"], "cancelled");

    // The conversation goes on: the cancelled call has its result in the history.
    let conversation = shown["conversation_id"].as_str().unwrap().to_owned();
    let again = run(&h, &model, "tiếp đi", &["--conversation", &conversation]);
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    let msgs = model.requests().last().unwrap()["messages"].clone();
    let tool = msgs.as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap();
    assert!(tool["content"].as_str().unwrap().contains("cancelled"), "{tool}");
}

#[test]
fn a_run_waiting_for_the_user_is_paused_then_goes_on() {
    let h = Halley::new();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "request_user_confirmation",
            json!({"action_summary": "Đặt vé HAN→NRT ngày 2026-02-10", "cost_estimate": {"amount": 12500000, "currency": "VND"}}),
        )]),
        Turn::text("Bạn đã từ chối, tôi không đặt vé."),
    ]);
    let out = run(&h, &model, "Đặt vé cho tôi", &["--confirm", "deny"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = events(&out.stdout);
    assert_eq!(types(&evs), vec!["tool_call", "confirmation_request", "resumed", "tool_result", "token", "final"]);
    let asked = &evs[1]["request"];
    assert_eq!(asked["tool"], "request_user_confirmation");
    assert!(asked["action_summary"].as_str().unwrap().contains("HAN→NRT"), "{asked}");
    assert_eq!(evs[3]["result"]["data"]["approved"], false);
}

#[test]
fn a_run_cut_short_is_resumed_where_it_stopped() {
    if !have_browser() {
        return;
    }
    let h = Halley::new();
    let model = ModelServer::start(vec![Turn::tool_calls(vec![ToolCall::new(
        "browser_wait",
        json!({"until": "timeout", "timeout_ms": 20000, "_reasoningForCall": "đợi trang"}),
    )])]);
    let base = model.base_url();
    let child = spawn(&h, &["--headless", "run", "đợi rồi trả lời", "--json", "--base-url", &base, "--model", "m"]);
    wait_until("the model's first answer", || model.request_count() >= 1);
    std::thread::sleep(Duration::from_millis(1500));
    // The whole process group (Halley and its browser) dies at once.
    signal(&format!("-{}", child.id()), "-KILL");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), None, "it was killed");
    let listed = h.run(&["runs", "list", "--json"]).json();
    let run_id = listed[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(listed[0]["status"], "running");

    let model = ModelServer::start(vec![Turn::text("Đã đợi xong.")]);
    let base = model.base_url();
    let resumed = h.run(&["--headless", "run", "--resume", &run_id, "--json", "--base-url", &base, "--model", "m"]);
    assert_eq!(resumed.code, 0, "{}\n{}", resumed.stdout, resumed.stderr);
    // The pending call ran (once), then the model answered.
    assert_eq!(types(&events(&resumed.stdout)), vec!["tool_call", "tool_result", "token", "final"]);
    let shown = show(&h, &run_id, &[]);
    assert_eq!(shown["status"], "completed");
    let roles: Vec<&str> = shown["messages"].as_array().unwrap().iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, vec!["user", "assistant", "tool", "assistant"]);
    assert_eq!(shown["tool_calls"].as_array().unwrap().len(), 1);
    assert_eq!(shown["tool_calls"][0]["reasoning"], "đợi trang");
    // A finished run cannot be resumed.
    let again = h.run(&["run", "--resume", &run_id, "--base-url", &base, "--model", "m"]);
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("has already ended"), "{}", again.stderr);
}
