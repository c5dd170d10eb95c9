//! Small requests: the first request offers the core set; the task's words,
//! the loader (`tools_load`) and a call of a tool not offered yet bring the
//! rest, which stays offered for the conversation; junk sent to the loader
//! is answered with a coded error; MCP tools are reachable.

use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::mcp;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

fn events(stdout: &str) -> Vec<Value> {
    stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// `halley run TASK --json` against `model`, plus `extra` flags; its events.
fn run(h: &Halley, model: &ModelServer, task: &str, extra: &[&str]) -> Vec<Value> {
    let base = model.base_url();
    let mut args = vec!["--headless", "run", task, "--json", "--confirm", "deny", "--base-url", &base, "--model", "m"];
    args.extend_from_slice(extra);
    let out = h.run(&args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    events(&out.stdout)
}

/// The tools request `n` offered, by name.
fn names(model: &ModelServer, n: usize) -> Vec<String> {
    model.requests()[n]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

fn results<'a>(evs: &'a [Value], name: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["type"] == "tool_result" && e["name"] == name).map(|e| &e["result"]).collect()
}

#[test]
fn the_first_request_offers_the_small_core_set() {
    let h = Halley::new();
    let model = ModelServer::start(vec![Turn::text("21.490.000 ₫")]);
    run(&h, &model, "Laptop ASUS Vivobook 15 giá bao nhiêu?", &[]);
    let offered = names(&model, 0);
    for core in ["browser_navigate", "browser_snapshot", "browser_click", "browser_type", "web_search"] {
        assert!(offered.contains(&core.to_owned()), "{core}: {offered:?}");
    }
    for tool in ["human_solve_challenge", "request_user_confirmation", "tools_load"] {
        assert!(offered.contains(&tool.to_owned()), "{tool}: {offered:?}");
    }
    assert!(offered.len() <= 12, "{offered:?}");
    assert!(!offered.iter().any(|n| n.starts_with("watch_") || n.starts_with("creator_")), "{offered:?}");
    // About 4 bytes a token: the whole request far under Ollama's 4,096 tokens.
    let bytes = model.requests()[0].to_string().len();
    assert!(bytes < 13_000, "{bytes} bytes");
}

#[test]
fn theo_doi_gia_in_the_task_brings_the_watch_tools() {
    let h = Halley::new();
    let model = ModelServer::start(vec![Turn::text("Vâng.")]);
    run(&h, &model, "Theo dõi giá laptop này giúp tôi", &[]);
    let offered = names(&model, 0);
    for tool in ["watch_create", "watch_list", "shopping_track_price"] {
        assert!(offered.contains(&tool.to_owned()), "{tool}: {offered:?}");
    }
}

#[test]
fn the_loader_loads_a_group_for_the_next_request_and_the_conversation_keeps_it() {
    let h = Halley::new();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("tools_load", json!({"group": "memory"}))]),
        Turn::text("Đã sẵn sàng."),
    ]);
    let evs = run(&h, &model, "Chào bạn", &[]);
    let loaded = results(&evs, "tools_load");
    assert_eq!(loaded[0]["status"], "ok", "{}", loaded[0]);
    assert!(loaded[0]["data"]["loaded"].as_array().unwrap().contains(&json!("core_memory_append")));
    assert!(!names(&model, 0).contains(&"core_memory_append".to_owned()));
    assert!(names(&model, 1).contains(&"archival_memory_search".to_owned()));

    // The next turn of the conversation still offers them.
    let run_id = evs.iter().rev().find_map(|e| e["run_id"].as_str()).unwrap().to_owned();
    let shown = h.run(&["runs", "show", &run_id, "--json"]).json();
    let conversation = shown["conversation_id"].as_str().unwrap().to_owned();
    let next = ModelServer::start(vec![Turn::text("Vâng.")]);
    run(&h, &next, "tiếp đi", &["--conversation", &conversation]);
    assert!(names(&next, 0).contains(&"core_memory_append".to_owned()), "{:?}", names(&next, 0));
}

#[test]
fn a_known_tool_not_offered_yet_runs_when_called_and_is_offered_from_then_on() {
    let h = Halley::new();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({"keys": ["name"]}))]),
        Turn::text("Xong."),
    ]);
    let evs = run(&h, &model, "Tên tôi là gì?", &[]);
    assert_eq!(results(&evs, "user_profile_get")[0]["status"], "ok");
    assert!(!names(&model, 0).contains(&"user_profile_get".to_owned()));
    assert!(names(&model, 1).contains(&"user_profile_get".to_owned()));
}

/// A small model sends the loader anything: each gets an error with a code
/// and the groups there are; the run goes on to its answer.
#[test]
fn junk_sent_to_the_loader_is_a_coded_error_never_a_crash() {
    let h = Halley::new();
    // Four: five errors in a row would stop the run.
    let junk =
        [json!({"group": 5}), json!("not json at all"), json!({"group": "không có", "rm": 1}), json!({"query": "]]]"})];
    let mut script: Vec<Turn> =
        junk.iter().map(|args| Turn::tool_calls(vec![ToolCall::new("tools_load", args.clone())])).collect();
    script.push(Turn::text("Xin lỗi."));
    let model = ModelServer::start(script);
    let evs = run(&h, &model, "Chào", &["--max-steps", "10"]);
    let got = results(&evs, "tools_load");
    assert_eq!(got.len(), junk.len(), "{evs:?}");
    for result in got {
        assert_eq!(result["status"], "error", "{result}");
        let code = result["error"]["code"].as_str().unwrap();
        assert!(["invalid_arguments", "not_found"].contains(&code), "{result}");
    }
    assert_eq!(evs.last().unwrap()["type"], "final", "{evs:?}");
}

#[test]
fn an_mcp_servers_tools_are_loaded_by_their_group() {
    let h = Halley::new();
    let fs = mcp::bin("mcp-server-filesystem");
    let root = h.work_dir();
    let added = h.run(&["mcp", "add", "fs", "--", fs.to_str().unwrap(), root.to_str().unwrap()]);
    assert_eq!(added.code, 0, "{}\n{}", added.stdout, added.stderr);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("tools_load", json!({"group": "fs"}))]),
        Turn::text("Vâng."),
    ]);
    let evs = run(&h, &model, "Đọc ghi chú của tôi", &[]);
    assert_eq!(results(&evs, "tools_load")[0]["status"], "ok", "{evs:?}");
    // The loader's description names the server's group.
    let loader = model.requests()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "tools_load")
        .cloned()
        .unwrap();
    assert!(loader["function"]["description"].as_str().unwrap().contains("fs"), "{loader}");
    assert!(!names(&model, 0).contains(&"fs__read_text_file".to_owned()));
    assert!(names(&model, 1).contains(&"fs__read_text_file".to_owned()), "{:?}", names(&model, 1));
}
