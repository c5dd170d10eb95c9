//! A scripted Gemini API (`generativelanguage.googleapis.com`'s REST
//! shape) for the real Gemini CLI, pointed at it by
//! `GOOGLE_GEMINI_BASE_URL`: `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`
//! answers server-sent events (`data: {GenerateContentResponse}` and a
//! blank line), `:generateContent` one JSON body, `:countTokens` a count.
//!
//! Its script, the same for every conversation, read from the last turn:
//! the user's question: call the offered tool whose name ends with
//! `browser_navigate` on the page given to [`GeminiServer::start`]; that
//! call's response: call the one ending with `browser_read_text`; its
//! response: answer with the first VND price in it ("Giá: 21.490.000 ₫"),
//! or say none was seen. So the answer proves the page was read through
//! Halley's tools.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

#[derive(Default)]
struct Shared {
    url: String,
    requests: Vec<(String, Value)>,
}

type Log = Arc<Mutex<Shared>>;

/// A running scripted Gemini API; stops when dropped.
pub struct GeminiServer {
    addr: SocketAddr,
    log: Log,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl GeminiServer {
    /// Serve on 127.0.0.1 (a free port): the model opens `url`.
    pub fn start(url: &str) -> GeminiServer {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind gemini listener");
        l.set_nonblocking(true).expect("nonblocking listener");
        let addr = l.local_addr().expect("local addr");
        let log: Log = Arc::new(Mutex::new(Shared { url: url.to_owned(), ..Shared::default() }));
        let app = Router::new().route("/v1beta/models/{call}", post(generate)).with_state(log.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("gemini-server".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("gemini runtime");
                rt.block_on(async move {
                    let l = tokio::net::TcpListener::from_std(l).expect("tokio listener");
                    tokio::spawn(async move { axum::serve(l, app).await });
                    let _ = stopped.await;
                });
                rt.shutdown_background();
            })
            .expect("spawn gemini server");
        GeminiServer { addr, log, stop: Some(stop), thread: Some(thread) }
    }

    /// `GOOGLE_GEMINI_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far: its `MODEL:method` and body.
    pub fn requests(&self) -> Vec<(String, Value)> {
        self.log.lock().map(|l| l.requests.clone()).unwrap_or_default()
    }
}

impl Drop for GeminiServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn generate(State(log): State<Log>, Path(call): Path<String>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        let error =
            json!({"error": {"code": 400, "message": "Invalid JSON payload received.", "status": "INVALID_ARGUMENT"}});
        return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
    };
    let url = {
        let Ok(mut l) = log.lock() else { return StatusCode::INTERNAL_SERVER_ERROR.into_response() };
        l.requests.push((call.clone(), request.clone()));
        l.url.clone()
    };
    let Some((_, method)) = call.split_once(':') else {
        return (StatusCode::NOT_FOUND, axum::Json(json!({"error": {"code": 404, "status": "NOT_FOUND"}})))
            .into_response();
    };
    if method == "countTokens" {
        return axum::Json(json!({"totalTokens": body.len() / 4})).into_response();
    }
    let part = next_part(&request, &url);
    let answer = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": body.len() / 4, "candidatesTokenCount": 12, "totalTokenCount": body.len() / 4 + 12},
        "modelVersion": "gemini-2.5-flash",
    });
    match method {
        "streamGenerateContent" => {
            ([(header::CONTENT_TYPE, "text/event-stream")], format!("data: {answer}\r\n\r\n")).into_response()
        }
        "generateContent" => axum::Json(answer).into_response(),
        _ => {
            (StatusCode::NOT_FOUND, axum::Json(json!({"error": {"code": 404, "status": "NOT_FOUND"}}))).into_response()
        }
    }
}

/// The model's next part for `request`.
fn next_part(request: &Value, url: &str) -> Value {
    let last = request["contents"].as_array().and_then(|c| c.last()).cloned().unwrap_or(Value::Null);
    let response = last["parts"].as_array().and_then(|parts| parts.iter().find_map(|p| p.get("functionResponse")));
    let offered = |suffix: &str| {
        request["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["functionDeclarations"].as_array())
            .flatten()
            .filter_map(|f| f["name"].as_str())
            .find(|n| n.ends_with(suffix))
            .map(str::to_owned)
    };
    let call = |suffix: &str, args: Value| match offered(suffix) {
        Some(name) => json!({"functionCall": {"name": name, "args": args}}),
        None => json!({"text": format!("Không có công cụ {suffix}.")}),
    };
    match response {
        None => call("browser_navigate", json!({"url": url})),
        Some(r) if r["name"].as_str().is_some_and(|n| n.ends_with("browser_navigate")) => {
            call("browser_read_text", json!({}))
        }
        Some(r) => {
            let text = r.to_string();
            match first_vnd_price(&text) {
                Some(price) => json!({"text": format!("Giá: {price}")}),
                None => json!({"text": format!("Không thấy giá nào. {}", text.chars().take(300).collect::<String>())}),
            }
        }
    }
}

/// The first `d.ddd.ddd ₫` in `text` (JSON-escaped or not).
fn first_vnd_price(text: &str) -> Option<String> {
    let text = text.replace("\\u20ab", "₫");
    let at = text.find(" ₫").or_else(|| text.find('₫'))?;
    let digits: String = text[..at].chars().rev().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let digits: String = digits.chars().rev().collect();
    let digits = digits.trim_start_matches('.');
    (!digits.is_empty()).then(|| format!("{digits} ₫"))
}
