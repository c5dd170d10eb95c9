//! Tool calls a local model writes as text, through `halley run` against
//! the scripted model: the call is run and the run ends with the real
//! answer; thinking reaches neither the user nor the history (the trace
//! keeps it); an unknown name is answered with the nearest tools; a call
//! that cannot be read is sent back once, and ends the run the second time.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

fn run(h: &Halley, model: &ModelServer, task: &str) -> crate::common::Run {
    let base = model.base_url();
    h.run(&["run", task, "--json", "--base-url", &base, "--model", "qwen3:8b"])
}

fn of_type<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["type"] == kind).collect()
}

/// What the user saw stream by.
fn streamed(evs: &[Value]) -> String {
    of_type(evs, "token").iter().filter_map(|e| e["text"].as_str()).collect()
}

#[test]
fn a_qwen_tool_call_written_as_text_is_run_and_the_run_ends_with_the_answer() {
    let h = Halley::new();
    assert_eq!(h.call("user_profile_set", &json!({"set": {"travel.seat": "cửa sổ"}})).code, 0);
    let model = ModelServer::start(vec![
        // A name no tool has: answered with the nearest offered ones.
        Turn::text(
            "<tool_call>\n{\"name\": \"user_profile_read\", \"arguments\": {\"keys\": [\"travel\"]}}\n</tool_call>",
        ),
        // Qwen3 with its thinking, then the Hermes-style call.
        Turn::text(
            "<think>\nNgười dùng hỏi chỗ ngồi, cần đọc hồ sơ.\n</think>\n\n<tool_call>\n\
             {\"name\": \"user_profile_get\", \"arguments\": {\"keys\": [\"travel\"]}}\n</tool_call>",
        ),
        Turn::text("<think>Hồ sơ ghi cửa sổ.</think>\n\nBạn thích ghế cạnh cửa sổ."),
    ]);
    let out = run(&h, &model, "Tôi thích ngồi ở đâu trên máy bay?");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();

    let calls: Vec<&str> = of_type(&evs, "tool_call").iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(calls, vec!["user_profile_read", "user_profile_get"]);
    let results = of_type(&evs, "tool_result");
    let unknown = &results[0]["result"]["error"];
    assert_eq!(unknown["code"], "unknown_tool", "{}", results[0]);
    let message = unknown["message"].as_str().unwrap();
    assert!(message.contains("`user_profile_get`") && message.contains("`user_profile_set`"), "{message}");
    assert_eq!(results[1]["result"]["data"]["values"]["travel.seat"], "cửa sổ", "{}", results[1]);

    // The answer, and all the user saw stream by: no markup, no thinking.
    let last = evs.last().unwrap();
    assert_eq!((last["type"].as_str(), last["text"].as_str()), (Some("final"), Some("Bạn thích ghế cạnh cửa sổ.")));
    assert_eq!(streamed(&evs), "Bạn thích ghế cạnh cửa sổ.");

    // The model reads its calls back as real calls, without the thinking.
    let reqs = model.requests();
    assert_eq!(reqs.len(), 3);
    let history = reqs[2]["messages"].as_array().unwrap();
    let assistant: Vec<&Value> = history.iter().filter(|m| m["role"] == "assistant").collect();
    assert_eq!(assistant.len(), 2);
    for (m, name) in assistant.iter().zip(["user_profile_read", "user_profile_get"]) {
        assert_eq!(m["content"], Value::Null, "{m}");
        assert_eq!(m["tool_calls"][0]["function"]["name"], name);
        let args: Value = serde_json::from_str(m["tool_calls"][0]["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, json!({"keys": ["travel"]}));
    }
    let tool_ids: Vec<&str> =
        history.iter().filter(|m| m["role"] == "tool").filter_map(|m| m["tool_call_id"].as_str()).collect();
    let call_ids: Vec<&str> = assistant.iter().filter_map(|m| m["tool_calls"][0]["id"].as_str()).collect();
    assert_eq!(tool_ids, call_ids);
    assert!(!reqs[2].to_string().contains("think>"), "{}", reqs[2]);

    // Stored the same way; the trace keeps the response as it came.
    let run_id = last["run_id"].as_str().unwrap();
    let shown = h.run(&["runs", "show", run_id, "--json", "--traces"]).json();
    assert_eq!(shown["status"], "completed");
    let messages = shown["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, vec!["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    assert_eq!(messages[5]["content"], "Bạn thích ghế cạnh cửa sổ.");
    assert!(!shown["messages"].to_string().contains("think>"));
    let tools: Vec<&str> = shown["tool_calls"].as_array().unwrap().iter().filter_map(|c| c["tool"].as_str()).collect();
    assert_eq!(tools, vec!["user_profile_read", "user_profile_get"]);
    let response = shown["traces"][1]["response"].as_str().unwrap();
    assert!(response.contains("<think>") && response.contains("<tool_call>"), "{response}");
}

#[test]
fn a_call_that_cannot_be_read_is_sent_back_once_then_ends_the_run() {
    let garbage = "<tool_call>\n{\"name\": \"user_profile_get\", \"arguments\": {\"keys\": }\n</tool_call>";
    // Once: the model is told and does better (a Llama 3.1 bare call).
    let h = Halley::new();
    let model = ModelServer::start(vec![
        Turn::text(garbage),
        Turn::text("{\"name\": \"user_profile_get\", \"parameters\": {\"keys\": [\"travel\"]}}"),
        Turn::text("Hồ sơ của bạn chưa có gì về du lịch."),
    ]);
    let out = run(&h, &model, "Hồ sơ du lịch của tôi?");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    assert_eq!(of_type(&evs, "tool_call").len(), 1);
    assert_eq!(evs.last().unwrap()["text"], "Hồ sơ của bạn chưa có gì về du lịch.");
    assert_eq!(streamed(&evs), "Hồ sơ của bạn chưa có gì về du lịch.");
    let reqs = model.requests();
    let second = reqs[1]["messages"].as_array().unwrap();
    let correction = second.last().unwrap();
    assert_eq!(correction["role"], "user");
    assert!(correction["content"].as_str().unwrap().starts_with("(Halley) Your last message could not be used"));
    assert_eq!(second[second.len() - 2]["content"], garbage);

    // Twice in a row: the run ends with a clear error, never the raw text.
    let h = Halley::new();
    let model = ModelServer::start(vec![Turn::text(garbage), Turn::text(garbage), Turn::text("never asked")]);
    let out = run(&h, &model, "Hồ sơ du lịch của tôi?");
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    assert_eq!(model.request_count(), 2);
    assert!(of_type(&evs, "final").is_empty() && of_type(&evs, "tool_call").is_empty(), "{evs:?}");
    assert_eq!(streamed(&evs), "");
    let errors = of_type(&evs, "error");
    assert_eq!(errors.len(), 1, "{evs:?}");
    assert_eq!(errors[0]["code"], "model_error");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("could not be used, twice in a row"), "{message}");
    assert!(!message.contains("\"keys\": }"), "the raw text is not the message: {message}");
    let shown = h.run(&["runs", "show", errors[0]["run_id"].as_str().unwrap(), "--json"]).json();
    assert_eq!((shown["status"].as_str(), shown["stop_reason"].as_str()), (Some("failed"), Some("model_error")));
    // Each step says why its reply was not used.
    let steps = shown["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for step in steps {
        let error = step["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("the reply could not be used: the JSON after <tool_call>"), "{step}");
    }
    // Nothing of it is kept as an answer.
    let roles: Vec<&str> = shown["messages"].as_array().unwrap().iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, vec!["user"]);
}

#[test]
fn native_calls_are_matched_loosely_and_an_unknown_name_gets_the_nearest_tools() {
    let h = Halley::new();
    assert_eq!(h.call("user_profile_set", &json!({"set": {"travel.seat": "lối đi"}})).code, 0);
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![
            ToolCall::new("User-Profile-Get", json!({"keys": ["travel"]})),
            ToolCall::new("profile_lookup", json!({"keys": ["travel"]})),
        ]),
        Turn::text("Bạn thích ghế lối đi."),
    ]);
    let out = run(&h, &model, "Tôi thích ghế nào?");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    let results = of_type(&evs, "tool_result");
    assert_eq!(results[0]["name"], "user_profile_get");
    assert_eq!(results[0]["result"]["data"]["values"]["travel.seat"], "lối đi", "{}", results[0]);
    assert_eq!(results[1]["result"]["error"]["code"], "unknown_tool", "{}", results[1]);
    let message = results[1]["result"]["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("unknown tool `profile_lookup`; the nearest tools offered are `user_profile_"),
        "{message}"
    );
    // The history names the real tool.
    let reqs = model.requests();
    let history = reqs[1]["messages"].as_array().unwrap();
    let calls = &history.iter().rfind(|m| m["role"] == "assistant").unwrap()["tool_calls"];
    assert_eq!(calls[0]["function"]["name"], "user_profile_get");
}
