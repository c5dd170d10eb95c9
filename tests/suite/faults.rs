//! Faults, each with its defined outcome (ARCHITECTURE.md, "Faults"):
//! Chromium killed while it starts and during a slow navigation, the model
//! server failing mid-answer, the disk full under the data directory, the
//! database locked by another process, and a second Halley on the same
//! data directory.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::Halley;

/// A `HALLEY_CHROMIUM` that records its pid in `pids` and becomes the real
/// browser (same pid), so a test can kill the browser Halley launched.
fn recording_chromium(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let real = halley::browser::find_chromium(None).unwrap();
    let pids = dir.join("chromium.pids");
    let script = dir.join("chromium-wrapper");
    std::fs::write(&script, format!("#!/bin/sh\necho $$ >> '{}'\nexec '{}' \"$@\"\n", pids.display(), real.display()))
        .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, pids)
}

/// The `n`th pid the wrapper recorded, waited for (polled every 2 ms).
fn nth_pid(pids: &Path, n: usize, timeout: Duration) -> u32 {
    let deadline = Instant::now() + timeout;
    loop {
        let text = std::fs::read_to_string(pids).unwrap_or_default();
        if let Some(pid) = text.lines().nth(n).and_then(|l| l.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < deadline, "no browser #{n} was launched within {timeout:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn kill9(pid: u32) {
    let ok = Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap().success();
    assert!(ok, "kill -9 {pid}");
}

/// A JSON event of `halley run --json` and when it was printed.
struct Seen {
    at: Instant,
    event: Value,
}

/// `halley --headless run TASK --json` against `model` with `env`, its
/// events timestamped as they are printed.
fn run_live(h: &Halley, task: &str, model: &ModelServer, env: &[(&str, &Path)]) -> (i32, Vec<Seen>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_halley"));
    cmd.arg("--data-dir")
        .arg(h.data_dir())
        .args(["--headless", "run", task, "--json", "--base-url", &model.base_url(), "--model", "m"])
        .current_dir(h.work_dir())
        .env_remove("HALLEY_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut seen = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if line.starts_with('{') {
            seen.push(Seen { at: Instant::now(), event: serde_json::from_str(&line).unwrap() });
        }
    }
    let code = child.wait().unwrap().code().unwrap_or(-1);
    (code, seen, err.join().unwrap())
}

fn tool_results(seen: &[Seen]) -> Vec<&Seen> {
    seen.iter().filter(|s| s.event["type"] == "tool_result").collect()
}

fn error_code(result: &Value) -> Option<&str> {
    result["result"]["error"]["code"].as_str()
}

#[test]
fn chromium_killed_while_it_starts_fails_the_call_and_the_run_goes_on() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let (wrapper, pids) = recording_chromium(h.tmp.path());
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("shop-vn.html")}))]),
        Turn::text("Trang đã mở lại."),
    ]);
    // The first browser is killed as soon as it exists: during its launch.
    let killer = {
        let pids = pids.clone();
        std::thread::spawn(move || {
            let pid = nth_pid(&pids, 0, Duration::from_secs(30));
            kill9(pid);
        })
    };
    let started = Instant::now();
    let (code, seen, stderr) = run_live(&h, "Mở trang", &model, &[("HALLEY_CHROMIUM", &wrapper)]);
    killer.join().unwrap();
    assert_eq!(code, 0, "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(40), "the run took {:?}", started.elapsed());
    let results = tool_results(&seen);
    assert_eq!(results.len(), 2, "{stderr}");
    assert_eq!(error_code(&results[0].event), Some("browser_crashed"), "{}", results[0].event);
    assert!(results[1].event["result"]["status"] == "ok", "{}", results[1].event);
    assert_eq!(seen.last().unwrap().event["type"], "final");
    // The model was told, and the second call launched a second browser.
    let told = model.requests()[1].to_string();
    assert!(told.contains("browser_crashed"), "{told}");
    assert_eq!(std::fs::read_to_string(&pids).unwrap().lines().count(), 2);
}

#[test]
fn chromium_killed_during_a_slow_navigation_is_noticed_at_once() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let (wrapper, pids) = recording_chromium(h.tmp.path());
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url("slow?ms=20000")}))]),
        Turn::text("Trình duyệt đã dừng; tôi không mở được trang."),
    ]);
    // One second into the navigation (the page stalls for 20 s), the
    // browser is killed.
    let (killed_at, (code, seen, stderr)) = std::thread::scope(|s| {
        let killer = s.spawn(|| {
            let pid = nth_pid(&pids, 0, Duration::from_secs(30));
            assert!(site.wait_for("/slow", Duration::from_secs(30)).is_some(), "the navigation never reached the site");
            std::thread::sleep(Duration::from_secs(1));
            kill9(pid);
            Instant::now()
        });
        let ran = run_live(&h, "Mở trang chậm", &model, &[("HALLEY_CHROMIUM", &wrapper)]);
        (killer.join().unwrap(), ran)
    });
    assert_eq!(code, 0, "{stderr}");
    let results = tool_results(&seen);
    assert_eq!(results.len(), 1, "{stderr}");
    assert_eq!(error_code(&results[0].event), Some("browser_crashed"), "{}", results[0].event);
    let noticed = results[0].at.saturating_duration_since(killed_at);
    assert!(noticed < Duration::from_secs(3), "the crash was noticed after {noticed:?}");
    let last = &seen.last().unwrap().event;
    assert_eq!(last["type"], "final");
    assert_eq!(last["text"], "Trình duyệt đã dừng; tôi không mở được trang.");
    // Stored once, as it happened; the navigation was not repeated.
    let shown = h.run(&["runs", "show", last["run_id"].as_str().unwrap(), "--json"]).json();
    assert_eq!(shown["status"], "completed");
    assert_eq!(site.hits("slow"), 1);
}

/// The `human` memory block's text.
fn human_block(h: &Halley) -> String {
    let run = h.run(&["memory", "blocks", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let blocks = run.json();
    let human = blocks.as_array().unwrap().iter().find(|b| b["label"] == "human").cloned().unwrap_or(Value::Null);
    human["value"].as_str().or(human["content"].as_str()).unwrap_or_default().to_owned()
}

#[test]
fn the_model_server_failing_mid_answer_fails_the_run_with_nothing_lost_or_done_twice() {
    let faults: Vec<(&str, Vec<Turn>)> = vec![
        ("cut", vec![Turn::text("Tôi đã ghi nhớ điều đó cho bạn rồi nhé.").cut()]),
        ("HTTP 500", vec![Turn::http_error(500, Some(0)); 4]),
    ];
    for (fault, failing) in faults {
        let h = Halley::new();
        let mut script = vec![Turn::tool_calls(vec![ToolCall::new(
            "core_memory_append",
            json!({"label": "human", "content": "Ăn chay"}),
        )])];
        script.extend(failing);
        let model = ModelServer::start(script);
        let run = h.run(&["run", "Nhớ rằng tôi ăn chay", "--json", "--base-url", &model.base_url(), "--model", "m"]);
        assert_eq!(run.code, 1, "{fault}: {}\n{}", run.stdout, run.stderr);
        assert_eq!(model.remaining(), 0, "{fault}: every retry was used");
        let evs = run.events();
        let last = evs.last().unwrap();
        assert_eq!(last["type"], "error", "{fault}: {last}");
        let run_id = evs.iter().find_map(|e| e["run_id"].as_str()).unwrap().to_owned();
        let shown = h.run(&["runs", "show", &run_id, "--json"]);
        let shown = shown.json();
        assert_eq!(shown["status"], "failed", "{fault}: {shown}");
        assert_eq!(human_block(&h).matches("Ăn chay").count(), 1, "{fault}");

        assert_eq!(shown["stop_reason"], "model_error", "{fault}: {shown}");
        let reason = shown["steps"][1]["error"].as_str().unwrap_or_default();
        assert!(reason.contains(if fault == "cut" { "cut before it finished" } else { "HTTP 500" }), "{fault}: {reason}");
        // Nothing lost: the call, its result and the messages are stored once.
        assert_eq!(shown["tool_calls"].as_array().unwrap().len(), 1, "{fault}: {shown}");
        let roles: Vec<&str> = shown["messages"].as_array().unwrap().iter().filter_map(|m| m["role"].as_str()).collect();
        assert_eq!(roles, ["user", "assistant", "tool"], "{fault}");
        // The conversation goes on with everything that was done (the
        // call's result is in its history), and the call is not made again.
        let conversation = shown["conversation_id"].as_str().unwrap();
        let model = ModelServer::start(vec![Turn::text("Đã ghi nhớ: bạn ăn chay.")]);
        let again = h.run(&[
            "run",
            "Tiếp tục",
            "--conversation",
            conversation,
            "--json",
            "--base-url",
            &model.base_url(),
            "--model",
            "m",
        ]);
        assert_eq!(again.code, 0, "{fault}: {}\n{}", again.stdout, again.stderr);
        assert_eq!(again.events().last().unwrap()["type"], "final", "{fault}");
        assert!(again.events().iter().all(|e| e["type"] != "tool_call"), "{fault}: a call was made again");
        assert_eq!(human_block(&h).matches("Ăn chay").count(), 1, "{fault}");
        let messages = model.requests()[0]["messages"].clone();
        let tools = messages.as_array().unwrap().iter().filter(|m| m["role"] == "tool").count();
        assert_eq!(tools, 1, "{fault}: {messages}");
    }
}

#[test]
fn garbage_from_the_model_server_never_runs_a_call_it_did_not_name() {
    let h = Halley::new();
    let model = ModelServer::start(vec![
        // A call whose deltas never name the function.
        Turn::tool_calls(vec![ToolCall::new("core_memory_append", json!({"label": "human", "content": "Ăn chay"}))])
            .nameless_call(),
        // A `data:` line that is not JSON in the middle of an answer.
        Turn::text("Xin lỗi, tôi chưa ghi nhớ được điều đó.").garbage(),
    ]);
    let run = h.run(&["run", "Nhớ rằng tôi ăn chay", "--json", "--base-url", &model.base_url(), "--model", "m"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let evs = run.events();
    let result = evs.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(result["result"]["error"]["code"], "unknown_tool", "{result}");
    assert!(run.stderr.contains("not JSON"), "the skipped line is logged: {}", run.stderr);
    let last = evs.last().unwrap();
    assert_eq!(last["text"], "Xin lỗi, tôi chưa ghi nhớ được điều đó.");
    assert_eq!(human_block(&h).matches("Ăn chay").count(), 0, "nothing ran");
    // The model was told which call failed.
    let told = model.requests()[1]["messages"].to_string();
    assert!(told.contains("unknown tool"), "{told}");
}
