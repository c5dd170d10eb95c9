//! The client against a tiny local HTTP server that answers canned bytes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::agent::provider::{ModelFlags, Preset};
use crate::agent::stream::{ToolCallOut, Usage};

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    head: String,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

/// Serve each canned response to one connection, in order.
async fn serve(responses: Vec<Vec<u8>>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        for response in responses {
            let Ok((mut sock, _)) = listener.accept().await else { return };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            let head_end = loop {
                let n = sock.read(&mut chunk).await.unwrap();
                if n == 0 {
                    break buf.len();
                }
                buf.extend_from_slice(&chunk[..n]);
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
            };
            let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
            let len: usize = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap()))
                .unwrap_or(0);
            while buf.len() < head_end + len {
                let n = sock.read(&mut chunk).await.unwrap();
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            let body = String::from_utf8_lossy(&buf[head_end..]).into_owned();
            log.lock().unwrap().push(Seen { head, body });
            let _ = sock.write_all(&response).await;
            let _ = sock.shutdown().await;
        }
    });
    (url, seen)
}

fn http(status: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    out.into_bytes()
}

/// An SSE answer delimited by the connection closing.
fn sse(events: &[String], done: bool) -> Vec<u8> {
    let mut out = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".to_owned();
    for e in events {
        out.push_str(&format!("data: {e}\n\n"));
    }
    if done {
        out.push_str("data: [DONE]\n\n");
    }
    out.into_bytes()
}

fn chunk(delta: Value) -> String {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "qwen", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]}).to_string()
}

fn fast() -> RetryPolicy {
    RetryPolicy {
        base_delay: Duration::from_millis(10),
        connect_delay: Duration::from_millis(10),
        ..RetryPolicy::default()
    }
}

fn client(url: &str, key: Option<&str>) -> ModelClient {
    let flags = ModelFlags {
        base_url: Some(url.into()),
        model: Some("qwen".into()),
        api_key: key.map(str::to_owned),
        ..ModelFlags::default()
    };
    // These canned servers answer chat requests only: no asking what they are.
    let config = ModelConfig { api: ModelApi::OpenAi, ..ModelConfig::resolve(flags, |_| None).unwrap() };
    ModelClient::build(config, fast()).unwrap()
}

fn request() -> Value {
    json!({"messages": [{"role": "user", "content": "hi"}], "tools": []})
}

#[tokio::test]
async fn streams_text_and_tool_calls_and_sends_the_request_right() {
    let events = vec![
        chunk(json!({"role": "assistant", "content": "Looking"})),
        "not json at all".to_owned(),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "search", "arguments": "{\"q\""}}]}),
        ),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": ":\"x\"}"}}]})),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}).to_string(),
        json!({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}).to_string(),
    ];
    let (url, seen) = serve(vec![sse(&events, true)]).await;
    let mut got = Vec::new();
    let c = client(&url, Some("sk-test-key")).stream_chat(request(), |e| got.push(e)).await.unwrap();
    assert_eq!(
        c,
        Completion {
            content: "Looking".into(),
            tool_calls: vec![ToolCallOut {
                id: "call_1".into(),
                name: "search".into(),
                arguments: r#"{"q":"x"}"#.into()
            }],
            finish_reason: Some("tool_calls".into()),
            usage: Some(Usage { prompt_tokens: 7, completion_tokens: 3 }),
            model: Some("qwen".into()),
            raw: c.raw.clone(),
        }
    );
    // The raw response: every data payload as received, the line that is not JSON too.
    let raw: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    assert_eq!(c.raw.text(), format!("{raw}data: [DONE]\n\n"));
    assert_eq!(c.raw.status, Some(200));
    assert_eq!(
        got,
        vec![
            StreamEvent::Token("Looking".into()),
            StreamEvent::ToolCallStarted { index: 0, id: "call_1".into(), name: "search".into() },
        ]
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].head.starts_with("POST /v1/chat/completions "), "{}", seen[0].head);
    assert_eq!(seen[0].header("authorization").as_deref(), Some("Bearer sk-test-key"));
    assert_eq!(
        seen[0].json(),
        json!({"messages": [{"role": "user", "content": "hi"}], "tools": [], "model": "qwen", "stream": true, "stream_options": {"include_usage": true}})
    );
}

#[tokio::test]
async fn a_stream_without_done_is_a_model_error() {
    let events = vec![chunk(json!({"content": "partial"}))];
    let (url, _) = serve(vec![sse(&events, false)]).await;
    let err = client(&url, None).stream_chat(request(), |_| {}).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ModelError);
    assert!(err.message().contains("cut"), "{}", err.message());
    // What had arrived stays readable for the trace; the wire message is unchanged.
    let raw = raw_response_of(&err).unwrap();
    assert_eq!((raw.status, raw.text()), (Some(200), format!("data: {}\n\n", events[0])));
    assert!(!err.to_wire().message.ends_with(": "), "{}", err.to_wire().message);

    // Cut in the middle of a declared length, too.
    let mut cut = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 500\r\n\r\n".to_vec();
    cut.extend_from_slice(format!("data: {}\n\n", chunk(json!({"content": "par"}))).as_bytes());
    let (url, _) = serve(vec![cut]).await;
    let err = client(&url, None).stream_chat(request(), |_| {}).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ModelError, "{}", err.message());
}

#[tokio::test]
async fn no_key_means_no_authorization_header_and_a_json_answer_is_read() {
    let whole = json!({"model": "qwen", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "whole"}}]});
    let (url, seen) = serve(vec![http("200 OK", &[("Content-Type", "application/json")], &whole.to_string())]).await;
    let c = client(&url, None).stream_chat(request(), |_| {}).await.unwrap();
    assert_eq!((c.content.as_str(), c.finish_reason.as_deref()), ("whole", Some("stop")));
    assert_eq!(c.raw.text(), format!("data: {whole}\n\ndata: [DONE]\n\n"));
    assert_eq!(seen.lock().unwrap()[0].header("authorization"), None);
}

#[tokio::test]
async fn rate_limit_with_retry_after_is_honoured_then_succeeds() {
    let (url, seen) = serve(vec![
        http("429 Too Many Requests", &[("Retry-After", "1")], r#"{"error": {"message": "slow down"}}"#),
        sse(&[chunk(json!({"content": "ok"}))], true),
    ])
    .await;
    let start = Instant::now();
    let c = client(&url, None).stream_chat(request(), |_| {}).await.unwrap();
    assert_eq!(c.content, "ok");
    assert!(start.elapsed() >= Duration::from_secs(1), "waited {:?}", start.elapsed());
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_three_times_then_reported() {
    let busy = || http("503 Service Unavailable", &[], "model is loading");
    let (url, seen) = serve(vec![busy(), busy(), busy(), busy()]).await;
    let err = client(&url, None).stream_chat(request(), |_| {}).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ModelError);
    assert!(err.message().contains("503") && err.message().contains("model is loading"), "{}", err.message());
    assert_eq!(seen.lock().unwrap().len(), 4);
}

#[tokio::test]
async fn an_exhausted_quota_is_not_retried() {
    let body = r#"{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}}"#;
    let (url, seen) = serve(vec![http("429 Too Many Requests", &[("Retry-After", "20")], body)]).await;
    let err = client(&url, None).stream_chat(request(), |_| {}).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ModelError);
    assert!(err.message().contains("429") && err.message().contains("quota"), "{}", err.message());
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn the_futures_can_be_spawned() {
    fn send<T: Send>(_: &T) {}
    let c = ModelClient::new(ModelConfig::for_preset(Preset::Ollama)).unwrap();
    send(&c.stream_chat(json!({}), |_| {}));
    send(&c.list_models());
    send(&c.clone());
}

#[tokio::test]
async fn client_errors_are_not_retried_and_never_show_the_key() {
    let body =
        r#"{"error": {"message": "Incorrect API key provided: sk-live-SECRET", "type": "invalid_request_error"}}"#;
    let (url, seen) = serve(vec![http("401 Unauthorized", &[("Content-Type", "application/json")], body)]).await;
    let err = client(&url, Some("sk-live-SECRET")).stream_chat(request(), |_| {}).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ModelError);
    let msg = err.to_wire().message;
    assert!(msg.contains("401") && msg.contains("Incorrect API key") && msg.contains("OPENAI_API_KEY"), "{msg}");
    assert!(!msg.contains("SECRET"), "{msg}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(raw_response_of(&err).map(|r| r.status), Some(Some(401)));

    let (url, _) = serve(vec![http("404 Not Found", &[], "<html>no such page</html>")]).await;
    let err = client(&url, None).stream_chat(request(), |_| {}).await.unwrap_err();
    assert!(err.message().contains("404") && err.message().contains("no such page"), "{}", err.message());
}

#[tokio::test]
async fn ten_megabytes_of_arguments_arrive_whole() {
    let big = "a".repeat(10 * 1024 * 1024);
    let events = vec![
        chunk(json!({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "save", "arguments": big}}]})),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}).to_string(),
    ];
    let (url, _) = serve(vec![sse(&events, true)]).await;
    let start = Instant::now();
    let c = client(&url, None).stream_chat(request(), |_| {}).await.unwrap();
    assert_eq!(c.tool_calls[0].arguments.len(), 10 * 1024 * 1024);
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());
    // The raw response is capped, with a note.
    assert!(c.raw.is_truncated());
    let raw = c.raw.text();
    assert!(raw.len() < crate::agent::raw::MAX_RAW_BYTES + 200, "{}", raw.len());
    assert!(raw.ends_with("more bytes were received and not kept]\n"), "{}", &raw[raw.len() - 100..]);
}

#[tokio::test]
async fn closed_port_is_model_unavailable_within_seconds_with_the_hint() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let start = Instant::now();
    let cfg =
        ModelConfig { base_url: format!("http://127.0.0.1:{port}/v1"), ..ModelConfig::for_preset(Preset::Ollama) };
    let err = ModelClient::new(cfg).unwrap().list_models().await.unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    assert_eq!(err.code(), ErrorCode::ModelUnavailable);
    assert!(
        err.message().contains("connection refused") && err.message().contains("ollama serve"),
        "{}",
        err.message()
    );
}

#[tokio::test]
async fn lists_model_ids() {
    let listing = json!({"object": "list", "data": [{"id": "qwen2.5:7b", "object": "model"}, {"id": "llama3.2"}]});
    let (url, seen) = serve(vec![http("200 OK", &[("Content-Type", "application/json")], &listing.to_string())]).await;
    assert_eq!(client(&url, None).list_models().await.unwrap(), vec!["qwen2.5:7b", "llama3.2"]);
    assert!(seen.lock().unwrap()[0].head.starts_with("GET /v1/models "));
    assert_eq!(model_ids(&json!({"models": [{"name": "a"}, "b", {"name": "a"}]})), vec!["a", "b"]);
}

#[tokio::test]
async fn requests_need_an_object_and_a_model() {
    let c = ModelClient::new(ModelConfig::for_preset(Preset::Ollama)).unwrap();
    let err = c.stream_chat(json!({"messages": []}), |_| {}).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArguments);
    assert!(err.message().contains("--model"));
    let err = c.stream_chat(json!([]), |_| {}).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArguments);
    let bad_key = ModelConfig { api_key: Some("sk\nx".into()), ..ModelConfig::for_preset(Preset::OpenAi) };
    assert_eq!(ModelClient::new(bad_key).unwrap_err().code(), ErrorCode::InvalidArguments);
}
