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

use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

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

/// A fixture site, a Halley and its recording `HALLEY_CHROMIUM` (`None`,
/// skipped, without a browser outside the test session).
fn browser_case() -> Option<(FixtureServer, Halley, PathBuf, PathBuf)> {
    if !have_browser() {
        return None;
    }
    let h = Halley::new();
    let (wrapper, pids) = recording_chromium(h.tmp.path());
    Some((FixtureServer::start(), h, wrapper, pids))
}

#[test]
fn chromium_killed_while_it_starts_fails_the_call_and_the_run_goes_on() {
    let Some((site, h, wrapper, pids)) = browser_case() else { return };
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
    let Some((site, h, wrapper, pids)) = browser_case() else { return };
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
        assert!(
            reason.contains(if fault == "cut" { "cut before it finished" } else { "HTTP 500" }),
            "{fault}: {reason}"
        );
        // Nothing lost: the call, its result and the messages are stored once.
        assert_eq!(shown["tool_calls"].as_array().unwrap().len(), 1, "{fault}: {shown}");
        let roles: Vec<&str> =
            shown["messages"].as_array().unwrap().iter().filter_map(|m| m["role"].as_str()).collect();
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

/// `halley --data-dir DATA ARGS...` as a process whose files may not grow
/// past `kib` KiB (`ulimit -f`, SIGXFSZ ignored so a write fails with
/// EFBIG instead of killing it): a full disk, without root.
fn run_with_file_limit(h: &Halley, kib: u32, args: &[&str]) -> crate::common::Run {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {}; exec \"$0\" \"$@\"", kib * 2))
        .arg(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(args)
        .current_dir(h.work_dir())
        .env_remove("HALLEY_DATA_DIR")
        .output()
        .unwrap();
    crate::common::Run::from(out)
}

/// `PRAGMA integrity_check` of the data directory's database (opening the
/// store checks it too).
async fn integrity(h: &Halley) -> String {
    let store = halley::store::Store::open(&halley::DataDir::at(h.data_dir()).db_path()).await.unwrap();
    let (verdict,): (String,) = sqlx::query_as("PRAGMA integrity_check").fetch_one(store.pool()).await.unwrap();
    store.close().await;
    verdict
}

/// The archival passages stored, by their text.
fn passages(h: &Halley, query: &str) -> usize {
    let found = h.call("archival_memory_search", &json!({"query": query, "limit": 50}));
    assert_eq!(found.code, 0, "{}", found.stderr);
    found.json()["data"]["passages"].as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_is_a_clear_error_and_work_resumes_when_space_is_back() {
    let h = Halley::new();
    let first = h.call("core_memory_append", &json!({"label": "human", "content": "Ăn chay"}));
    assert_eq!(first.code, 0, "{}", first.stderr);
    // About 11 KB of text: more than the 32 KiB the database may still grow.
    let text = "Hóa đơn tiền điện tháng 11: 1.250.000 ₫. ".repeat(220);
    let insert = json!({"content": text}).to_string();
    let args = ["tools", "call", "archival_memory_insert", "--args", insert.as_str()];
    for _ in 0..2 {
        let full = run_with_file_limit(&h, 32, &args);
        assert_eq!(full.code, 1, "{}\n{}", full.stdout, full.stderr);
        assert!(full.stderr.contains("error [disk_full]") && full.stderr.contains("full"), "{}", full.stderr);
        assert_eq!(full.result()["error"]["code"], "disk_full");
    }
    // A file to keep in the files store: its copy cannot be written either.
    let doc = h.write_file("hoa-don.pdf", &vec![7u8; 100 * 1024]);
    let store = json!({"file_path": doc}).to_string();
    let full = run_with_file_limit(&h, 32, &["tools", "call", "files_store", "--args", &store]);
    assert_eq!(full.code, 1, "{}", full.stderr);
    assert_eq!(full.result()["error"]["code"], "disk_full", "{}", full.stdout);
    assert!(crate::common::tree(&h.data_dir().join("files")).is_empty(), "no half-written copy is left");

    // Nothing half-written, nothing reported written that was not.
    assert_eq!(integrity(&h).await, "ok");
    assert_eq!(passages(&h, "điện"), 0);
    // Space is back: the same work succeeds.
    let again = h.run(&args);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let kept = h.run(&["tools", "call", "files_store", "--args", &store]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    assert_eq!(passages(&h, "điện"), 1);
    assert_eq!(integrity(&h).await, "ok");
}

/// A Python `sqlite3` process holding the database's write lock for
/// `secs` seconds; returns once it holds it.
fn hold_write_lock(h: &Halley, secs: f64) -> std::process::Child {
    let db = halley::DataDir::at(h.data_dir()).db_path();
    let script = "import sqlite3, sys, time\n\
                  c = sqlite3.connect(sys.argv[1], isolation_level=None)\n\
                  c.execute('BEGIN IMMEDIATE')\n\
                  print('locked', flush=True)\n\
                  time.sleep(float(sys.argv[2]))\n\
                  c.execute('COMMIT')\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .arg(&db)
        .arg(secs.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "locked");
    child
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_locked_by_another_program_is_waited_for_then_a_clear_error() {
    let h = Halley::new();
    assert_eq!(h.call("archival_memory_insert", &json!({"content": "Khởi tạo"})).code, 0);

    // Held longer than the busy timeout (5 s): a clear error, nothing written.
    let mut holder = hold_write_lock(&h, 9.0);
    let started = Instant::now();
    let busy = h.call("archival_memory_insert", &json!({"content": "Vé tàu Hà Nội – Huế"}));
    let waited = started.elapsed();
    assert_eq!(busy.code, 1, "{}", busy.stdout);
    assert_eq!(busy.result()["error"]["code"], "database_busy", "{}", busy.stdout);
    assert!(busy.stderr.contains("locked by another program"), "{}", busy.stderr);
    assert!(waited >= Duration::from_secs(4) && waited < Duration::from_secs(9), "waited {waited:?}");
    assert!(holder.wait().unwrap().success());
    assert_eq!(passages(&h, "Huế"), 0);

    // Released within the busy timeout: the call waits for it and succeeds.
    let mut holder = hold_write_lock(&h, 1.5);
    let started = Instant::now();
    let ok = h.call("archival_memory_insert", &json!({"content": "Vé tàu Hà Nội – Huế"}));
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(started.elapsed() >= Duration::from_secs(1), "it did wait for the lock");
    assert!(holder.wait().unwrap().success());
    assert_eq!(passages(&h, "Huế"), 1);
    assert_eq!(integrity(&h).await, "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_halley_on_the_same_data_directory_shares_it_safely() {
    let h = Halley::new();
    assert_eq!(h.call("archival_memory_insert", &json!({"content": "Khởi tạo"})).code, 0);
    // Eight CLI processes at once, each writing: all succeed, none is lost.
    let children: Vec<std::process::Child> = (0..8)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_halley"))
                .arg("--data-dir")
                .arg(h.data_dir())
                .args(["tools", "call", "archival_memory_insert", "--args"])
                .arg(json!({"content": format!("Ghi chú đồng thời số {i}")}).to_string())
                .env_remove("HALLEY_DATA_DIR")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(passages(&h, "đồng thời"), 8);
    assert_eq!(integrity(&h).await, "ok");
}
