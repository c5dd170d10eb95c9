//! Doubles of the local model servers other than Ollama, as each behaves
//! where Halley can tell: where it says the context it gives a model, and
//! what it does with a prompt longer than that.
//! - llama.cpp server: `GET /props` (`default_generation_settings.n_ctx`);
//!   a longer prompt is refused, 400 `exceed_context_size_error` with
//!   `n_prompt_tokens` and `n_ctx`.
//! - vLLM: `GET /v1/models` lists `max_model_len`; a longer prompt is
//!   refused, 400 "This model's maximum context length is N tokens…".
//! - LM Studio: `GET /api/v0/models/{id}` (`loaded_context_length`,
//!   `max_context_length`); a longer prompt is cut without a word (its
//!   default "rolling window" context overflow policy), and the usage it
//!   reports is what it read.
//!
//! Tokens are counted as the Ollama double counts them (each run of
//! non-space characters costs ceil(chars / 3)), deliberately not Halley's
//! estimate. Answers stream as OpenAI-style SSE with usage.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::model_server::{Reply, Turn};
use super::ollama::tokens;

/// Which server the double is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    LlamaCpp,
    Vllm,
    LmStudio,
}

/// What the model answers when it read the whole prompt, and when the
/// question was cut out of it.
pub const ANSWERED: &str = "Đã đọc ghi chú của bạn.";
pub const CUT: &str = "Xin lỗi, tôi không thấy câu hỏi nào.";

#[derive(Clone)]
struct App {
    kind: Kind,
    model: String,
    context: usize,
    paths: Arc<Mutex<Vec<String>>>,
}

pub struct LocalServer {
    addr: SocketAddr,
    paths: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl LocalServer {
    /// A server of `kind` serving `model` with `context` tokens.
    pub fn start(kind: Kind, model: &str, context: usize) -> LocalServer {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.set_nonblocking(true).expect("nonblocking");
        let addr = l.local_addr().expect("addr");
        let paths = Arc::new(Mutex::new(Vec::new()));
        let app = App { kind, model: model.to_owned(), context, paths: Arc::clone(&paths) };
        let mut router = Router::new().route("/v1/chat/completions", post(chat)).route("/v1/models", get(models));
        router = match kind {
            Kind::LlamaCpp => router.route("/props", get(props)),
            Kind::LmStudio => router.route("/api/v0/models/{*id}", get(lmstudio_model)),
            Kind::Vllm => router,
        };
        let router = router.fallback(not_found).with_state(app);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let l = tokio::net::TcpListener::from_std(l).expect("listener");
                tokio::spawn(async move { axum::serve(l, router).await });
                let _ = stopped.await;
            });
            rt.shutdown_background();
        });
        LocalServer { addr, paths, stop: Some(stop), thread: Some(thread) }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `METHOD path` of every request so far.
    pub fn paths(&self) -> Vec<String> {
        self.paths.lock().unwrap().clone()
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn note(app: &App, req: &Request) {
    app.paths.lock().unwrap().push(format!("{} {}", req.method(), req.uri().path()));
}

async fn props(State(app): State<App>, req: Request) -> Response {
    note(&app, &req);
    axum::Json(json!({"default_generation_settings": {"n_ctx": app.context, "params": {"n_predict": -1}},
        "total_slots": 1, "model_path": format!("/models/{}.gguf", app.model), "build_info": "b6700"}))
    .into_response()
}

async fn models(State(app): State<App>, req: Request) -> Response {
    note(&app, &req);
    let mut entry = json!({"id": app.model, "object": "model", "created": 1_760_000_000, "owned_by": "local"});
    if app.kind == Kind::Vllm {
        entry["max_model_len"] = json!(app.context);
        entry["root"] = json!(app.model);
    }
    axum::Json(json!({"object": "list", "data": [entry]})).into_response()
}

async fn lmstudio_model(State(app): State<App>, Path(id): Path<String>, req: Request) -> Response {
    note(&app, &req);
    if id != app.model {
        return (StatusCode::NOT_FOUND, axum::Json(json!({"error": format!("Model \"{id}\" not found")})))
            .into_response();
    }
    axum::Json(json!({"id": app.model, "object": "model", "type": "llm", "publisher": "local", "arch": "qwen2",
        "quantization": "Q4_K_M", "state": "loaded", "max_context_length": 32768,
        "loaded_context_length": app.context}))
    .into_response()
}

async fn not_found(State(app): State<App>, req: Request) -> Response {
    note(&app, &req);
    (StatusCode::NOT_FOUND, "Not Found").into_response()
}

async fn chat(State(app): State<App>, req: Request) -> Response {
    note(&app, &req);
    let Ok(bytes) = axum::body::to_bytes(req.into_body(), 64 * 1024 * 1024).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "too large").into_response();
    };
    let Ok(body) = serde_json::from_slice::<Value>(&bytes) else {
        return (StatusCode::BAD_REQUEST, axum::Json(json!({"error": "invalid JSON"}))).into_response();
    };
    let prompt = tokens(&body["messages"].to_string()) + tokens(&body["tools"].to_string());
    let (text, read) = if prompt <= app.context {
        (ANSWERED, prompt)
    } else {
        match app.kind {
            Kind::LlamaCpp => {
                let error = json!({"error": {"code": 400, "type": "exceed_context_size_error",
                    "message": "the request exceeds the available context size, try increasing it",
                    "n_prompt_tokens": prompt, "n_ctx": app.context}});
                return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
            }
            Kind::Vllm => {
                let error = json!({"object": "error", "type": "BadRequestError", "param": null, "code": 400,
                    "message": format!("This model's maximum context length is {} tokens. However, you requested \
                        {prompt} tokens in the messages, Please reduce the length of the messages.", app.context)});
                return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
            }
            // The rolling window: the oldest part goes, silently.
            Kind::LmStudio => (CUT, app.context),
        }
    };
    let turn = Turn::text(text).usage(read as u64, tokens(text) as u64);
    let reply = Reply::new(&turn, &body, bytes.len(), 0, 0);
    let mut events: Vec<String> = reply.chunks(false, false, true).iter().map(|c| format!("data: {c}\n\n")).collect();
    events.push("data: [DONE]\n\n".to_owned());
    let items = events.into_iter().map(|e| Ok::<_, std::io::Error>(Bytes::from(e)));
    ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(futures::stream::iter(items))).into_response()
}
