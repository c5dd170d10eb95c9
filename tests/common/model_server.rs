//! The scripted model: an OpenAI-compatible chat-completions server that
//! answers each request with the next `Turn` of a script (streamed or not,
//! with the quirks real servers have) and records every request, so a test
//! can assert what the model was shown. The model is the only fake.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::{Value, json};

/// The only model `GET /v1/models` lists; replies echo the request's `model`.
pub const MODEL_ID: &str = "scripted-model";
/// Request bodies larger than this are refused with 413.
const MAX_BODY: usize = 512 * 1024 * 1024;
/// The `created` timestamp of every reply (fixed, so replies are stable).
const CREATED: u64 = 1_700_000_000;
/// Arguments are streamed in fragments of 5 to 10 bytes, but a call never
/// takes more than this many fragments (huge arguments get bigger ones).
const MAX_FRAGMENTS: usize = 1000;

/// One function call the model makes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub arguments: Value,
}

impl ToolCall {
    pub fn new(name: &str, arguments: Value) -> ToolCall {
        ToolCall { name: name.to_owned(), arguments }
    }
}

/// One scripted answer; each chat-completions request consumes one.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// Non-zero: answer with this HTTP error instead of a completion.
    pub(super) status: u16,
    retry_after: Option<u64>,
    pub(super) text: String,
    pub(super) calls: Vec<ToolCall>,
    no_index: bool,
    pub(super) finish_reason: Option<String>,
    malformed_args: bool,
    cut: bool,
    garbage: bool,
    nameless_call: bool,
    huge_args: Option<usize>,
    pub(super) delay_ms: u64,
    stream_ms: u64,
    held: bool,
    usage: Option<(u64, u64)>,
}

impl Turn {
    /// A plain answer, streamed as one content delta per word (at least 3).
    pub fn text(text: &str) -> Turn {
        Turn { text: text.to_owned(), ..Turn::default() }
    }

    /// Several calls in one message; ids are `call_1`, `call_2`... counted
    /// across the whole script.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Turn {
        Turn { calls, ..Turn::default() }
    }

    /// An HTTP error with a JSON body (`Retry-After: secs` when given). It
    /// is consumed like any turn: `[http_error(429, Some(1)), real]` answers
    /// the first request with 429 and the retry with `real`.
    pub fn http_error(status: u16, retry_after: Option<u64>) -> Turn {
        Turn { status, retry_after, ..Turn::default() }
    }

    /// Content text sent before the tool calls of the same message.
    pub fn with_text(mut self, text: &str) -> Turn {
        self.text = text.to_owned();
        self
    }

    /// Tool-call deltas without `index`: the first chunk of each call has
    /// its id and name, the following ones only arguments.
    pub fn no_index(mut self) -> Turn {
        self.no_index = true;
        self
    }

    /// Replace the finish reason (default `stop`, or `tool_calls`).
    pub fn finish_reason(mut self, reason: &str) -> Turn {
        self.finish_reason = Some(reason.to_owned());
        self
    }

    /// Every call's arguments become the first half of their JSON text
    /// (`{"url":"https://a.b`), which does not parse.
    pub fn malformed_args(mut self) -> Turn {
        self.malformed_args = true;
        self
    }

    /// Stop after half of the chunks (never `[DONE]`) and drop the
    /// connection, without ending the chunked body: a body error for the client.
    pub fn cut(mut self) -> Turn {
        self.cut = true;
        self
    }

    /// Half-way through the stream, a `data:` line that is not JSON
    /// (`data: {"choices": [garbage`), then the rest as usual.
    pub fn garbage(mut self) -> Turn {
        self.garbage = true;
        self
    }

    /// The calls' deltas never say which function: no id, no name, only
    /// argument fragments (a malformed tool-call delta).
    pub fn nameless_call(mut self) -> Turn {
        self.nameless_call = true;
        self
    }

    /// The first call's arguments become `{"text":"xxx…"}` with `bytes`
    /// `x`s (valid JSON of `bytes + 11` bytes). Panics without a call.
    pub fn huge_args(mut self, bytes: usize) -> Turn {
        assert!(!self.calls.is_empty(), "huge_args needs a tool-call turn");
        self.huge_args = Some(bytes);
        self
    }

    /// Wait this long before the first byte (status line included).
    pub fn delay_ms(mut self, ms: u64) -> Turn {
        self.delay_ms = ms;
        self
    }

    /// Spread a streamed answer's chunks evenly over this long after the
    /// first one, as a real server generating tokens does (with
    /// [`Turn::delay_ms`] as its time to the first token).
    pub fn stream_ms(mut self, ms: u64) -> Turn {
        self.stream_ms = ms;
        self
    }

    /// Wait for [`ModelServer::release`] before the first byte: the run
    /// stays at this step until the test has done what it must do first
    /// (e.g. hide a window), wherever the request is by then.
    pub fn held(mut self) -> Turn {
        self.held = true;
        self
    }

    /// Report these token counts instead of the default estimate
    /// (ceil(bytes / 4) of the request body and of the output).
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Turn {
        self.usage = Some((prompt_tokens, completion_tokens));
        self
    }
}

/// One HTTP request as received (any route).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRequest {
    pub method: String,
    /// Path and query (`/v1/chat/completions`).
    pub path: String,
    /// In arrival order, names lowercase, values lossy UTF-8.
    pub headers: Vec<(String, String)>,
    /// Lossy UTF-8.
    pub body: String,
}

impl RawRequest {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Chooses a turn from a chat-completions request.
type Responder = Arc<dyn Fn(&Value) -> Turn + Send + Sync>;

#[derive(Default)]
struct Shared {
    script: VecDeque<Turn>,
    /// Chat-completions bodies, parsed (a JSON string when they do not parse).
    requests: Vec<Value>,
    raw: Vec<RawRequest>,
    /// Tool calls handed out so far (ids are `call_<n>`, from 1).
    calls: usize,
    /// `responding`: the turn is chosen from the request, not popped.
    responder: Option<Responder>,
    /// Releases not yet used by a held turn.
    releases: usize,
}

type Log = Arc<Mutex<Shared>>;

fn lock(log: &Log) -> MutexGuard<'_, Shared> {
    log.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running scripted model; stops when dropped.
pub struct ModelServer {
    addr: SocketAddr,
    log: Log,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ModelServer {
    /// Serve `script` on 127.0.0.1 (a free port), on a thread with its own
    /// tokio runtime. Usable from plain and async tests.
    pub fn start(script: Vec<Turn>) -> ModelServer {
        ModelServer::serve(Shared { script: script.into(), ..Shared::default() })
    }

    /// Answer each request with `respond(request)`: a model that reads the
    /// conversation (what its calls returned) and decides, the same way
    /// from any process, so a run killed anywhere and resumed gets a
    /// sensible next turn. Tool call ids are `call_<k*100+j>`, `k` the
    /// assistant turns so far (unique within a conversation).
    pub fn responding(respond: impl Fn(&Value) -> Turn + Send + Sync + 'static) -> ModelServer {
        ModelServer::serve(Shared { responder: Some(Arc::new(respond)), ..Shared::default() })
    }

    fn serve(shared: Shared) -> ModelServer {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind model listener");
        l.set_nonblocking(true).expect("nonblocking listener");
        let addr = l.local_addr().expect("local addr");
        let log = Log::new(Mutex::new(shared));
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/models", get(models))
            .fallback(not_found)
            .with_state(log.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("model-server".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("model runtime");
                rt.block_on(async move {
                    let l = tokio::net::TcpListener::from_std(l).expect("tokio listener");
                    tokio::spawn(async move { axum::serve(l, app).await });
                    let _ = stopped.await;
                });
                // Dropping the runtime cancels in-flight (delayed) answers.
                rt.shutdown_background();
            })
            .expect("spawn model server");
        ModelServer { addr, log, stop: Some(stop), thread: Some(thread) }
    }

    /// `http://127.0.0.1:PORT/v1`, the OpenAI `base_url`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every chat-completions body so far, in order, parsed as JSON.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.log).requests.clone()
    }

    /// Every request on any route (models, unknown paths), with headers.
    pub fn raw_requests(&self) -> Vec<RawRequest> {
        lock(&self.log).raw.clone()
    }

    /// How many chat-completions requests arrived.
    pub fn request_count(&self) -> usize {
        lock(&self.log).requests.len()
    }

    /// How many turns are left in the script.
    pub fn remaining(&self) -> usize {
        lock(&self.log).script.len()
    }

    /// Let one held turn answer (the next one to arrive, if none waits yet).
    pub fn release(&self) {
        lock(&self.log).releases += 1;
    }

    /// Append a turn to the script.
    pub fn push(&self, turn: Turn) {
        lock(&self.log).script.push_back(turn);
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Use up one [`ModelServer::release`], if there is one.
fn take_release(log: &Log) -> bool {
    let mut s = lock(log);
    let released = s.releases > 0;
    s.releases = s.releases.saturating_sub(1);
    released
}

/// Read the body and record the request; `None` when the body is too big.
async fn record(log: &Log, req: Request) -> Option<Bytes> {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY).await.ok()?;
    let headers = parts
        .headers
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let path = parts.uri.path_and_query().map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
    let body = String::from_utf8_lossy(&bytes).into_owned();
    lock(log).raw.push(RawRequest { method: parts.method.to_string(), path, headers, body });
    Some(bytes)
}

fn json_error(status: u16, message: &str, retry_after: Option<u64>) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"error": {"message": message, "type": "test"}});
    let mut res = (code, axum::Json(body)).into_response();
    if let Some(secs) = retry_after {
        res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    res
}

async fn models(State(log): State<Log>, req: Request) -> Response {
    let _ = record(&log, req).await;
    axum::Json(json!({
        "object": "list",
        "data": [{"id": MODEL_ID, "object": "model", "owned_by": "halley-tests"}],
    }))
    .into_response()
}

async fn not_found(State(log): State<Log>, req: Request) -> Response {
    let _ = record(&log, req).await;
    json_error(404, "no such route", None)
}

async fn chat(State(log): State<Log>, req: Request) -> Response {
    let Some(bytes) = record(&log, req).await else { return json_error(413, "body too large", None) };
    let body: Value =
        serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    let (turn, n, first_call) = {
        let mut s = lock(&log);
        s.requests.push(body.clone());
        let (turn, first_call) = if let Some(respond) = s.responder.clone() {
            let k = body["messages"].as_array().map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
            (Some(respond(&body)), k * 100 + 1)
        } else {
            let turn = s.script.pop_front();
            let first_call = s.calls + 1;
            s.calls += turn.as_ref().map_or(0, |t| t.calls.len());
            (turn, first_call)
        };
        (turn, s.requests.len(), first_call)
    };
    let Some(turn) = turn else { return json_error(500, "script exhausted", None) };
    while turn.held && !take_release(&log) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if turn.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(turn.delay_ms)).await;
    }
    if turn.status != 0 {
        return json_error(turn.status, &format!("scripted HTTP {}", turn.status), turn.retry_after);
    }
    let reply = Reply::new(&turn, &body, bytes.len(), n, first_call);
    let stream = body["stream"].as_bool().unwrap_or(false);
    let (content_type, mut parts) = if stream {
        let include_usage = body["stream_options"]["include_usage"].as_bool().unwrap_or(false);
        let mut events: Vec<String> = reply
            .chunks(turn.no_index, turn.nameless_call, include_usage)
            .iter()
            .map(|c| format!("data: {c}\n\n"))
            .collect();
        events.push("data: [DONE]\n\n".to_owned());
        if turn.garbage {
            events.insert(events.len() / 2, "data: {\"choices\": [garbage\n\n".to_owned());
        }
        ("text/event-stream", events)
    } else {
        let text = reply.completion().to_string();
        let half = (1..=text.len() / 2).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let pieces = if turn.cut { vec![text[..half].to_owned()] } else { vec![text] };
        ("application/json", pieces)
    };
    if turn.cut && stream {
        parts.truncate((parts.len() / 2).max(1));
    }
    let cut = turn.cut;
    let gap = Duration::from_millis(turn.stream_ms / u64::try_from(parts.len().max(2) - 1).unwrap_or(1));
    let paced = stream && turn.stream_ms > 0;
    let items = futures::stream::iter(parts.into_iter().enumerate()).then(move |(i, p)| async move {
        if paced && i > 0 {
            tokio::time::sleep(gap).await;
        }
        Ok::<_, std::io::Error>(Bytes::from(p))
    });
    // A cut answer pauses (so hyper flushes what was sent) and then fails,
    // which makes hyper drop the connection mid-body.
    let tail = futures::stream::iter(cut.then_some(())).then(|()| async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Err(std::io::Error::other("scripted cut"))
    });
    let body = Body::from_stream(items.chain(tail));
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// A turn made concrete for one request: the message to send and its envelope.
pub(super) struct Reply {
    id: String,
    model: String,
    text: String,
    /// (id, name, arguments as sent).
    calls: Vec<(String, String, String)>,
    finish: String,
    usage: Value,
}

impl Reply {
    pub(super) fn new(turn: &Turn, request: &Value, request_bytes: usize, n: usize, first_call: usize) -> Reply {
        let mut calls: Vec<(String, String, String)> = turn
            .calls
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("call_{}", first_call + i), c.name.clone(), c.arguments.to_string()))
            .collect();
        if let (Some(bytes), Some(first)) = (turn.huge_args, calls.first_mut()) {
            first.2 = format!("{{\"text\":\"{}\"}}", "x".repeat(bytes));
        }
        if turn.malformed_args {
            for c in &mut calls {
                let half = (1..=c.2.len() / 2).rev().find(|&i| c.2.is_char_boundary(i)).unwrap_or(0);
                c.2.truncate(half.max(1));
            }
        }
        let default_finish = if calls.is_empty() { "stop" } else { "tool_calls" };
        let output = turn.text.len() + calls.iter().map(|c| c.1.len() + c.2.len()).sum::<usize>();
        let (prompt, completion) =
            turn.usage.unwrap_or((request_bytes.div_ceil(4).max(1) as u64, output.div_ceil(4).max(1) as u64));
        Reply {
            id: format!("chatcmpl-{n}"),
            model: request["model"].as_str().unwrap_or(MODEL_ID).to_owned(),
            text: turn.text.clone(),
            calls,
            finish: turn.finish_reason.clone().unwrap_or_else(|| default_finish.to_owned()),
            usage: json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}),
        }
    }

    /// The non-streamed answer: one `chat.completion`.
    pub(super) fn completion(&self) -> Value {
        let mut message = json!({"role": "assistant", "content": self.content()});
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .iter()
                .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
                .collect();
            message["tool_calls"] = Value::Array(calls);
        }
        json!({
            "id": self.id, "object": "chat.completion", "created": CREATED, "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish}],
            "usage": self.usage,
        })
    }

    fn content(&self) -> Value {
        if self.text.is_empty() && !self.calls.is_empty() { Value::Null } else { Value::String(self.text.clone()) }
    }

    /// The streamed answer: `chat.completion.chunk` objects, in order.
    pub(super) fn chunks(&self, no_index: bool, nameless: bool, include_usage: bool) -> Vec<Value> {
        let chunk = |choices: Value| json!({"id": self.id, "object": "chat.completion.chunk", "created": CREATED, "model": self.model, "choices": choices});
        let delta = |d: Value| chunk(json!([{"index": 0, "delta": d, "finish_reason": null}]));
        let mut out = vec![delta(json!({"role": "assistant", "content": self.content().as_str().map(|_| "")}))];
        out.extend(text_pieces(&self.text).into_iter().map(|p| delta(json!({"content": p}))));
        for (i, (id, name, args)) in self.calls.iter().enumerate() {
            let mut head = json!({"id": id, "type": "function", "function": {"name": name, "arguments": ""}});
            let mut frags: Vec<Value> =
                fragments(args).into_iter().map(|f| json!({"function": {"arguments": f}})).collect();
            if !no_index {
                head["index"] = json!(i);
                frags.iter_mut().for_each(|f| f["index"] = json!(i));
            }
            if !nameless {
                out.push(delta(json!({"tool_calls": [head]})));
            }
            out.extend(frags.into_iter().map(|f| delta(json!({"tool_calls": [f]}))));
        }
        out.push(chunk(json!([{"index": 0, "delta": {}, "finish_reason": self.finish}])));
        if include_usage {
            let mut last = chunk(json!([]));
            last["usage"] = self.usage.clone();
            out.push(last);
        }
        out
    }
}

/// Content deltas: one per word (trailing space kept); text of fewer than
/// three words is cut into three pieces on character boundaries instead.
pub(super) fn text_pieces(text: &str) -> Vec<&str> {
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    if words.len() >= 3 || text.is_empty() {
        return words;
    }
    let chars = text.chars().count();
    let at = |k: usize| text.char_indices().nth(k * chars / 3).map_or(text.len(), |(i, _)| i);
    let (a, b) = (at(1), at(2));
    [&text[..a], &text[a..b], &text[b..]].into_iter().filter(|p| !p.is_empty()).collect()
}

/// Argument fragments of 5 to 10 bytes (cycling), larger for huge
/// arguments, always cut on character boundaries.
fn fragments(args: &str) -> Vec<&str> {
    let floor = args.len().div_ceil(MAX_FRAGMENTS);
    let mut out = Vec::new();
    let mut rest = args;
    while !rest.is_empty() {
        let mut end = (5 + out.len() % 6).max(floor).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (head, tail) = rest.split_at(end);
        out.push(head);
        rest = tail;
    }
    out
}
