//! Redaction in every spelling, and traces written to a real store.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::agent::provider::Preset;
use crate::agent::raw::Partial;
use crate::agent::stream::ToolCallOut;
use crate::error::{Error, ErrorCode};
use crate::store::steps::NewStep;
use crate::store::test_support::{agent, open_temp};

const KEY: &str = "sk-live-9f8e7d6c5b4a";

fn secrets(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn plain_text_and_overlapping_secrets() {
    let s = secrets(&["sk-abc1", "sk-abc123", "", "  ", "abc"]);
    assert_eq!(redact("keys sk-abc123 and sk-abc1; abc stays", &s), "keys [REDACTED] and [REDACTED]; abc stays");
    assert_eq!(redact("nothing here", &s), "nothing here");
    assert_eq!(redact("anything", &[]), "anything");
    // A secret saved with a stray newline is found without it too.
    assert_eq!(redact("Bearer sk-abc999", &secrets(&["sk-abc999\n"])), "Bearer [REDACTED]");
}

#[test]
fn secrets_inside_json_strings_with_escapes() {
    let secret = r#"pa"ss\wörd/1"#;
    let s = secrets(&[secret]);
    // Once inside JSON (a message's content).
    let body = json!({"messages": [{"role": "user", "content": format!("my password is {secret}")}]}).to_string();
    assert!(!body.contains(secret), "the test needs the escaped form");
    let out = redact(&body, &s);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["messages"][0]["content"], "my password is [REDACTED]");

    // Twice: tool-call arguments (a JSON text) inside a streamed chunk.
    let args = json!({"field": "password", "value": secret}).to_string();
    let chunk = json!({"choices": [{"delta": {"tool_calls": [{"function": {"arguments": args}}]}}]}).to_string();
    let out = redact(&format!("data: {chunk}\n\n"), &s);
    let v: Value = serde_json::from_str(out.trim_start_matches("data: ").trim()).unwrap();
    let args = v["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(args).unwrap(), json!({"field": "password", "value": "[REDACTED]"}));
}

#[test]
fn vietnamese_secrets_in_utf8_and_ascii_escapes() {
    let name = "Nguyễn Văn Ấn";
    let passport = "C1234567";
    let s = secrets(&[name, passport]);
    let utf8 = json!({"content": format!("Hộ chiếu của {name}: {passport}")}).to_string();
    assert_eq!(
        serde_json::from_str::<Value>(&redact(&utf8, &s)).unwrap(),
        json!({"content": "Hộ chiếu của [REDACTED]: [REDACTED]"})
    );
    // Python's json.dumps(ensure_ascii=True), as vLLM sends it; and uppercase hex.
    let python = r#"{"content": "H\u1ed9 chi\u1ebfu c\u1ee7a Nguy\u1ec5n V\u0103n \u1ea4n: C1234567"}"#;
    assert_eq!(redact(python, &s), r#"{"content": "H\u1ed9 chi\u1ebfu c\u1ee7a [REDACTED]: [REDACTED]"}"#);
    let upper = r#""Nguy\u1EC5n V\u0103n \u1EA4n""#;
    assert_eq!(redact(upper, &s), r#""[REDACTED]""#);
    // Twice escaped, as tool-call arguments in a Python server's stream.
    let twice = r#"{\"name\": \"Nguy\\u1ec5n V\\u0103n \\u1ea4n\"}"#;
    assert_eq!(redact(twice, &s), r#"{\"name\": \"[REDACTED]\"}"#);
    // Go's encoder (Ollama) escapes <, > and &.
    assert_eq!(redact(r#""tok\u003cen\u0026x""#, &secrets(&["tok<en&x"])), r#""[REDACTED]""#);
}

#[test]
fn json_values_stay_valid_json() {
    let s = secrets(&["4111111111111111", KEY, "Nguyễn Văn Ấn"]);
    let request = json!({
        "model": "m",
        "max_tokens": 4096,
        "card": 4111111111111111u64,
        "messages": [
            {"role": "user", "content": format!("use {KEY}")},
            {"role": "assistant", "tool_calls": [{"function": {"name": "fill", "arguments": json!({"name": "Nguyễn Văn Ấn"}).to_string()}}]},
        ],
        "Nguyễn Văn Ấn": true,
    });
    let out = redact_json(&request, &s);
    assert_eq!(
        out,
        json!({
            "model": "m",
            "max_tokens": 4096,
            "card": "[REDACTED]",
            "messages": [
                {"role": "user", "content": "use [REDACTED]"},
                {"role": "assistant", "tool_calls": [{"function": {"name": "fill", "arguments": "{\"name\":\"[REDACTED]\"}"}}]},
            ],
            "[REDACTED]": true,
        })
    );
}

/// A store with a run and a step.
async fn run_and_step() -> (tempfile::TempDir, Store, String, String) {
    let (dir, store) = open_temp().await;
    let agent = agent(&store).await;
    let run = store.runs().create(&agent, None).await.unwrap();
    let step = store.steps().insert(&NewStep::started(&run.id, "m")).await.unwrap();
    (dir, store, run.id, step.id)
}

/// Every file of the database (the WAL too), as text.
fn database_bytes(dir: &std::path::Path) -> String {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        all.extend(std::fs::read(entry.path()).unwrap_or_default());
    }
    String::from_utf8_lossy(&all).into_owned()
}

#[tokio::test]
async fn record_redacts_every_field_and_writes_the_row() {
    let (dir, store, run_id, step_id) = run_and_step().await;
    store.profile().apply(&[("travel.passport_no".into(), json!("B7654321"))], &[]).await.unwrap();
    let mut config = crate::agent::ModelConfig::for_preset(Preset::OpenAi);
    config.api_key = Some(KEY.into());
    let secrets = secrets_for(&store, &config).await.unwrap();
    assert_eq!(secrets, vec!["B7654321".to_owned(), KEY.to_owned()]);

    let request = json!({"model": "m", "messages": [{"role": "user", "content": "passport B7654321"}]});
    let response = format!("data: {}\n\ndata: [DONE]\n\n", json!({"choices": [{"delta": {"content": "B7654321"}}]}));
    let error = format!("Incorrect API key provided: {KEY}");
    let trace = Trace {
        run_id: &run_id,
        step_id: Some(&step_id),
        endpoint: "https://user:hunter22@api.example.com/v1/chat/completions",
        request: &request,
        response: Some(&response),
        status: Some(401),
        error: Some(&error),
    };
    assert!(!format!("{trace:?}").contains("B7654321"));
    let id = record(&store, &trace, &secrets).await.unwrap();
    let rows = store.provider_traces().for_step(&step_id).await.unwrap();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row.id, id);
    assert_eq!(row.endpoint, "https://api.example.com/v1/chat/completions");
    assert_eq!(row.request, json!({"model": "m", "messages": [{"role": "user", "content": "passport [REDACTED]"}]}));
    assert_eq!(
        row.response.as_deref(),
        Some("data: {\"choices\":[{\"delta\":{\"content\":\"[REDACTED]\"}}]}\n\ndata: [DONE]\n\n")
    );
    assert_eq!((row.status, row.error.as_deref()), (Some(401), Some("Incorrect API key provided: [REDACTED]")));
    assert!(!format!("{rows:?}").contains("B7654321"));
    store.close().await;
    // The profile holds the passport number; the key and the URL's password are nowhere.
    let bytes = database_bytes(dir.path());
    assert!(bytes.contains("[REDACTED]"));
    for leak in [KEY, "hunter22"] {
        assert!(!bytes.contains(leak), "{leak} is in the database file");
    }
}

fn client() -> ModelClient {
    let config = crate::agent::ModelConfig {
        base_url: "http://127.0.0.1:9/v1".into(),
        model: Some("m".into()),
        api_key: Some(KEY.into()),
        ..crate::agent::ModelConfig::for_preset(Preset::Ollama)
    };
    ModelClient::new(config).unwrap()
}

#[tokio::test]
async fn record_call_keeps_the_sent_body_and_the_raw_stream() {
    let (_dir, store, run_id, step_id) = run_and_step().await;
    let mut completion = Completion { content: "Xin chào".into(), ..Completion::default() };
    completion.raw.status = Some(200);
    completion.raw.push_data(r#"{"choices":[{"delta":{"content":"Xin "}}]}"#);
    completion.raw.push_data(r#"{"choices":[{"delta":{"content":"chào"}}]}"#);
    completion.raw.push_data("[DONE]");
    let request = json!({"messages": [{"role": "user", "content": "hi"}]});
    record_call(&store, &run_id, Some(&step_id), &client(), &request, &Ok(completion.clone()), &[]).await.unwrap();
    let row = store.provider_traces().for_run(&run_id).await.unwrap().remove(0);
    assert_eq!(row.endpoint, "http://127.0.0.1:9/v1/chat/completions");
    assert_eq!(
        row.request,
        json!({"messages": [{"role": "user", "content": "hi"}], "model": "m", "stream": true, "stream_options": {"include_usage": true}})
    );
    assert_eq!(row.response, Some(completion.raw.text()));
    assert_eq!((row.status, row.error), (Some(200), None));
}

#[tokio::test]
async fn record_call_of_a_failure_keeps_what_arrived_and_the_status() {
    let (_dir, store, run_id, step_id) = run_and_step().await;
    let request = json!({"messages": [{"role": "user", "content": format!("echo {KEY}")}]});
    // An error answer: the status, nothing else received.
    let mut raw = RawResponse::default();
    raw.status = Some(401);
    let err = Error::new(ErrorCode::ModelError, "the model server answered HTTP 401").with_source(Partial(raw));
    record_call(&store, &run_id, Some(&step_id), &client(), &request, &Err(err), &[]).await.unwrap();
    // A cut stream: what had arrived.
    let mut raw = RawResponse::default();
    raw.status = Some(200);
    raw.push_data(&json!({"choices": [{"delta": {"content": format!("your key is {KEY}")}}]}).to_string());
    let err = Error::new(ErrorCode::ModelError, "the model's stream was cut").with_source(Partial(raw));
    record_call(&store, &run_id, None, &client(), &request, &Err(err), &[]).await.unwrap();
    // No answer at all.
    let err = Error::new(ErrorCode::ModelUnavailable, "no model server is reachable");
    record_call(&store, &run_id, None, &client(), &request, &Err(err), &[]).await.unwrap();

    let rows = store.provider_traces().for_run(&run_id).await.unwrap();
    let summary: Vec<(Option<i64>, Option<&str>, Option<&str>)> =
        rows.iter().map(|r| (r.status, r.response.as_deref(), r.error.as_deref())).collect();
    assert_eq!(
        summary,
        vec![
            (Some(401), None, Some("the model server answered HTTP 401")),
            (
                Some(200),
                Some("data: {\"choices\":[{\"delta\":{\"content\":\"your key is [REDACTED]\"}}]}\n\n"),
                Some("the model's stream was cut")
            ),
            (None, None, Some("no model server is reachable")),
        ]
    );
    assert!(rows.iter().all(|r| r.request["messages"][0]["content"] == "echo [REDACTED]"));
}

#[tokio::test]
async fn a_secret_split_across_stream_events_is_not_kept_raw() {
    let (_dir, store, run_id, _step) = run_and_step().await;
    let mut completion = Completion {
        tool_calls: vec![ToolCallOut { id: "c1".into(), name: "fill".into(), arguments: r#"{"v":"B7654321"}"#.into() }],
        ..Completion::default()
    };
    completion.raw.push_data(r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"v\":\"B765"}}]}}]}"#);
    completion.raw.push_data(r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"4321\"}"}}]}}]}"#);
    let secrets = secrets(&["B7654321"]);
    record_call(&store, &run_id, None, &client(), &json!({}), &Ok(completion), &secrets).await.unwrap();
    let row = store.provider_traces().for_run(&run_id).await.unwrap().remove(0);
    let response = row.response.unwrap();
    assert!(response.starts_with("[halley: the raw stream is not kept"), "{response}");
    assert!(response.contains(r#"{\"v\":\"[REDACTED]\"}"#), "{response}");
    assert!(!response.contains("B765") && !response.contains("4321"), "{response}");
}

#[test]
fn huge_requests_are_cut_and_stay_json() {
    let big = json!({"messages": [{"role": "tool", "content": "x".repeat(MAX_REQUEST_BYTES)}]});
    let len = big.to_string().len();
    let out = capped_request(big);
    assert_eq!(out["bytes"].as_u64().unwrap() as usize, len);
    assert!(out["halley_note"].as_str().unwrap().starts_with("request cut"));
    assert!(out["head"].as_str().unwrap().starts_with(r#"{"messages":[{"#));
    let small = json!({"a": 1});
    assert_eq!(capped_request(small.clone()), small);
}
