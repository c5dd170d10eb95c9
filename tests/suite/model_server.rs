//! The scripted model server itself: what a client reassembles from its
//! streams, its quirks, and the request log tests assert against.
//!
//! The client here is a plain blocking HTTP/1.1 client over `TcpStream`
//! (one request per connection, `Connection: close`, read to EOF). The
//! server streams with chunked transfer-encoding, so the client decodes
//! chunks and notes whether the terminating zero-size chunk arrived.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::model_server::{ModelServer, ToolCall, Turn};

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    /// The body ended properly (the last chunk, or EOF when not chunked).
    complete: bool,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The `data:` payloads of an SSE body, in order.
    fn events(&self) -> Vec<String> {
        self.body.split("\n\n").filter_map(|e| e.strip_prefix("data: ")).map(str::to_owned).collect()
    }
}

/// Decode a chunked body; the flag says whether the zero-size chunk came.
fn dechunk(mut raw: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    while let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&raw[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return (out, true);
        }
        let data = &raw[eol + 2..];
        let take = size.min(data.len());
        out.extend_from_slice(&data[..take]);
        if take < size || data.len() < size + 2 {
            break;
        }
        raw = &data[size + 2..];
    }
    (out, false)
}

fn http(url: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let rest = url.strip_prefix("http://").unwrap();
    let (addr, path) = rest.split_at(rest.find('/').unwrap());
    let mut s = TcpStream::connect(addr).unwrap();
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    // Read to EOF; a cut answer may end with a reset instead.
    let mut raw = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    while let Ok(n @ 1..) = s.read(&mut buf) {
        raw.extend_from_slice(&buf[..n]);
    }
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(": ")).map(|(k, v)| (k.to_ascii_lowercase(), v.to_owned())).collect();
    let chunked = headers.iter().any(|(k, v)| k == "transfer-encoding" && v == "chunked");
    let (body, complete) = if chunked { dechunk(&raw[split + 4..]) } else { (raw[split + 4..].to_vec(), true) };
    Reply { status, headers, body: String::from_utf8(body).unwrap(), complete }
}

fn chat(srv: &ModelServer, body: &Value) -> Reply {
    let url = format!("{}/chat/completions", srv.base_url());
    http(&url, "POST", &[("Content-Type", "application/json"), ("Authorization", "Bearer sk-test")], &body.to_string())
}

fn streamed(stream_options: Value) -> Value {
    json!({
        "model": "scripted-model",
        "stream": true,
        "stream_options": stream_options,
        "messages": [{"role": "user", "content": "Giá laptop bao nhiêu?"}],
    })
}

/// What a client builds from a stream.
#[derive(Debug, Default, PartialEq)]
struct Message {
    content: String,
    /// (id, name, arguments text).
    calls: Vec<(String, String, String)>,
    finish: Option<String>,
    usage: Option<Value>,
    done: bool,
}

/// Reassemble chunks the way a tolerant client does: by `index` when
/// present, otherwise a delta with an `id` starts a call and the following
/// ones extend the last call.
fn reassemble(events: &[String]) -> Message {
    let mut m = Message::default();
    for e in events {
        if e == "[DONE]" {
            m.done = true;
            continue;
        }
        let c: Value = serde_json::from_str(e).unwrap();
        assert_eq!(c["object"], "chat.completion.chunk");
        if !c["usage"].is_null() {
            m.usage = Some(c["usage"].clone());
        }
        let Some(choice) = c["choices"].get(0) else { continue };
        if let Some(r) = choice["finish_reason"].as_str() {
            m.finish = Some(r.to_owned());
        }
        m.content += choice["delta"]["content"].as_str().unwrap_or("");
        for tc in choice["delta"]["tool_calls"].as_array().into_iter().flatten() {
            let i = match tc["index"].as_u64() {
                Some(i) => i as usize,
                None if tc["id"].is_string() => m.calls.len(),
                None => m.calls.len() - 1,
            };
            if m.calls.len() <= i {
                m.calls.resize(i + 1, Default::default());
            }
            let call = &mut m.calls[i];
            call.0 += tc["id"].as_str().unwrap_or("");
            call.1 += tc["function"]["name"].as_str().unwrap_or("");
            call.2 += tc["function"]["arguments"].as_str().unwrap_or("");
        }
    }
    m
}

fn deltas_with_tool_calls(events: &[String]) -> Vec<Value> {
    let parsed = events.iter().filter(|e| *e != "[DONE]").map(|e| serde_json::from_str::<Value>(e).unwrap());
    parsed.flat_map(|c| c["choices"][0]["delta"]["tool_calls"].as_array().cloned().unwrap_or_default()).collect()
}

#[test]
fn a_streamed_text_turn_reassembles_to_the_text_with_usage() {
    let srv = ModelServer::start(vec![Turn::text("Giá là 21.490.000 ₫"), Turn::text("OK").usage(7, 1)]);

    let r = chat(&srv, &streamed(json!({"include_usage": true})));
    assert_eq!((r.status, r.header("content-type"), r.complete), (200, Some("text/event-stream"), true));
    let events = r.events();
    let m = reassemble(&events);
    let usage = m.usage.clone().unwrap();
    assert_eq!(
        usage["total_tokens"],
        usage["prompt_tokens"].as_u64().unwrap() + usage["completion_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        m,
        Message {
            content: "Giá là 21.490.000 ₫".into(),
            finish: Some("stop".into()),
            usage: Some(usage),
            done: true,
            ..Default::default()
        }
    );
    // role chunk + one per word + finish + usage + [DONE]
    assert_eq!(events.len(), 1 + 4 + 1 + 1 + 1);
    let first: Value = serde_json::from_str(&events[0]).unwrap();
    assert_eq!(first["choices"][0]["delta"], json!({"role": "assistant", "content": ""}));

    // A single word still comes in three pieces; no usage unless asked for.
    let events = chat(&srv, &streamed(json!(null))).events();
    let m = reassemble(&events);
    assert_eq!((m.content.as_str(), m.usage, events.len()), ("OK", None, 1 + 2 + 1 + 1));
}

#[test]
fn a_streamed_two_call_turn_reassembles_by_index_and_ids_count_across_the_script() {
    let navigate = json!({"url": "http://127.0.0.1/shop-vn.html", "note": "Giá ₫"});
    let read = json!({"selector": "#price", "max_chars": 2000});
    let srv = ModelServer::start(vec![
        Turn::tool_calls(vec![
            ToolCall::new("browser_navigate", navigate.clone()),
            ToolCall::new("browser_read", read.clone()),
        ])
        .with_text("Để tôi xem."),
        Turn::tool_calls(vec![ToolCall::new("browser_snapshot", json!({}))]),
    ]);

    let events = chat(&srv, &streamed(json!({"include_usage": false}))).events();
    let m = reassemble(&events);
    assert_eq!((m.content.as_str(), m.finish.as_deref(), m.done), ("Để tôi xem.", Some("tool_calls"), true));
    let calls: Vec<(&str, &str, Value)> = m
        .calls
        .iter()
        .map(|(id, name, args)| (id.as_str(), name.as_str(), serde_json::from_str(args).unwrap()))
        .collect();
    assert_eq!(calls, vec![("call_1", "browser_navigate", navigate), ("call_2", "browser_read", read)]);
    let deltas = deltas_with_tool_calls(&events);
    assert!(deltas.len() > 10, "arguments come in many fragments: {deltas:?}");
    for d in &deltas {
        assert!(d["index"].is_u64(), "{d}");
        assert!(d["function"]["arguments"].as_str().unwrap().len() <= 12, "{d}");
    }

    // Not streamed: one chat.completion; call ids go on from the last turn.
    let r = chat(&srv, &json!({"model": "gpt-x", "messages": []}));
    assert_eq!((r.status, r.header("content-type")), (200, Some("application/json")));
    let mut c = r.json();
    assert!(c["usage"]["total_tokens"].is_u64());
    c["usage"] = Value::Null;
    assert_eq!(
        c,
        json!({
            "id": "chatcmpl-2", "object": "chat.completion", "created": 1_700_000_000u64, "model": "gpt-x",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "call_3", "type": "function", "function": {"name": "browser_snapshot", "arguments": "{}"}}],
            }}],
            "usage": null,
        })
    );
}

#[test]
fn no_index_calls_reassemble_by_order() {
    let srv = ModelServer::start(vec![
        Turn::tool_calls(vec![
            ToolCall::new("browser_click", json!({"ref": "e12"})),
            ToolCall::new("browser_type", json!({"ref": "e13", "text": "Nguyễn Văn A"})),
        ])
        .no_index(),
    ]);
    let events = chat(&srv, &streamed(json!({}))).events();
    let deltas = deltas_with_tool_calls(&events);
    assert!(deltas.iter().all(|d| d.get("index").is_none()), "{deltas:?}");
    // Only the first delta of each call names it.
    assert_eq!(deltas.iter().filter(|d| d["id"].is_string() && d["function"]["name"].is_string()).count(), 2);
    let m = reassemble(&events);
    assert_eq!(
        m.calls,
        vec![
            ("call_1".into(), "browser_click".into(), r#"{"ref":"e12"}"#.into()),
            ("call_2".into(), "browser_type".into(), r#"{"ref":"e13","text":"Nguyễn Văn A"}"#.into()),
        ]
    );
}

#[test]
fn a_429_is_consumed_then_the_retry_gets_the_real_turn_and_an_empty_script_answers_500() {
    let srv = ModelServer::start(vec![
        Turn::http_error(429, Some(1)),
        Turn::text("Xin chào bạn nhé"),
        Turn::http_error(500, None),
    ]);

    let r = chat(&srv, &streamed(json!({})));
    assert_eq!((r.status, r.header("retry-after")), (429, Some("1")));
    assert_eq!(r.json(), json!({"error": {"message": "scripted HTTP 429", "type": "test"}}));
    assert_eq!(reassemble(&chat(&srv, &streamed(json!({}))).events()).content, "Xin chào bạn nhé");
    let r = chat(&srv, &streamed(json!({})));
    assert_eq!((r.status, r.header("retry-after")), (500, None));
    assert_eq!(srv.remaining(), 0);
    let r = chat(&srv, &streamed(json!({})));
    assert_eq!((r.status, r.json()), (500, json!({"error": {"message": "script exhausted", "type": "test"}})));
    assert_eq!(srv.request_count(), 4);
}

#[test]
fn requests_are_recorded_as_json_with_headers_and_models_are_listed() {
    let srv = ModelServer::start(vec![Turn::text("một hai ba")]);
    let models = http(&format!("{}/models", srv.base_url()), "GET", &[("Authorization", "Bearer sk-test")], "");
    assert_eq!(
        (models.status, models.json()),
        (
            200,
            json!({"object": "list", "data": [{"id": "scripted-model", "object": "model", "owned_by": "halley-tests"}]})
        )
    );
    let body = streamed(json!({"include_usage": true}));
    chat(&srv, &body);
    assert_eq!(srv.requests(), vec![body.clone()]);
    assert_eq!(srv.request_count(), 1);
    let raw = srv.raw_requests();
    let seen: Vec<(&str, &str, Option<&str>)> =
        raw.iter().map(|r| (r.method.as_str(), r.path.as_str(), r.header("authorization"))).collect();
    assert_eq!(
        seen,
        vec![("GET", "/v1/models", Some("Bearer sk-test")), ("POST", "/v1/chat/completions", Some("Bearer sk-test"))]
    );
    assert_eq!(serde_json::from_str::<Value>(&raw[1].body).unwrap(), body);
}

#[test]
fn quirks_weird_finish_malformed_and_huge_arguments_a_cut_stream_and_a_delay() {
    let srv = ModelServer::start(vec![
        Turn::text("a b c").finish_reason("weird_reason").delay_ms(300),
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": "https://a.b/c/d"}))]).malformed_args(),
        Turn::tool_calls(vec![ToolCall::new("browser_type", json!({"text": "?"}))]).huge_args(1_000_000),
        Turn::text("một hai ba bốn năm sáu").cut(),
        Turn::text("một hai ba bốn năm sáu").cut(),
    ]);

    let t = Instant::now();
    let m = reassemble(&chat(&srv, &streamed(json!({}))).events());
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!((m.content.as_str(), m.finish.as_deref()), ("a b c", Some("weird_reason")));

    let m = reassemble(&chat(&srv, &streamed(json!({}))).events());
    assert_eq!(m.calls[0].2, r#"{"url":"http"#);
    assert!(serde_json::from_str::<Value>(&m.calls[0].2).is_err());

    let m = reassemble(&chat(&srv, &streamed(json!({}))).events());
    let args: Value = serde_json::from_str(&m.calls[0].2).unwrap();
    assert_eq!(args["text"].as_str().unwrap().len(), 1_000_000);

    let r = chat(&srv, &streamed(json!({})));
    let m = reassemble(&r.events());
    assert!(!r.complete && !m.done && m.finish.is_none(), "{}", r.body);
    assert!(!m.content.is_empty() && m.content.len() < "một hai ba bốn năm sáu".len(), "{}", r.body);

    let r = chat(&srv, &json!({"messages": []}));
    assert!(!r.complete && serde_json::from_str::<Value>(&r.body).is_err(), "{}", r.body);
}
