//! The model client: OpenAI-compatible chat completions over async-openai,
//! streamed with its `byot` methods into Halley's own lenient chunk type
//! ([`Chunk`]) and assembled into a [`Completion`]. The HTTP layer underneath
//! (retries, `Retry-After`, cut-stream detection) is [`super::transport`].
//! When the server is Ollama, chats go to its native `/api/chat` instead
//! (NDJSON, `num_ctx` sized to the request; see [`super::ollama`]), and on
//! either API a prompt the server cut is an error, never an answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use futures::StreamExt;
use serde_json::{Value, json};

use super::ollama::{self, ModelInfo, Sizing, ndjson};
use super::provider::{ENV_API_KEY, ModelApi, ModelConfig, Preset};
use super::raw::{Partial, RawResponse};
use super::served;
use super::stream::{Assembler, Chunk, Completion, StreamEvent, Usage, clip};
use super::transport::{RetryPolicy, Transport};
use crate::error::{Error, ErrorCode, Result};

/// How long to wait for a connection: a missing server is reported within seconds.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long listing the models may take in all.
const LIST_TIMEOUT: Duration = Duration::from_secs(15);
/// How long asking a server whether it is Ollama may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest `/api/show` answer read (it carries the model's template and license).
const MAX_SHOW_BYTES: usize = 4 * 1024 * 1024;

/// A client of one OpenAI-compatible endpoint (or Ollama's native API).
/// Cheap to clone (the connection pool and what Ollama said are shared).
#[derive(Clone)]
pub struct ModelClient {
    config: ModelConfig,
    unary: Client<OpenAIConfig>,
    streaming: Client<OpenAIConfig>,
    /// For Ollama's native API (no SSE guard: its streams are NDJSON).
    native: Transport,
    ollama: Arc<OllamaState>,
}

/// What the server said about itself, asked once per client.
/// Which server read a prompt, for the message when it cut it.
enum Cutter {
    /// Ollama, with how the native request was sized (`None`: its `/v1`).
    Ollama(Option<Sizing>),
    /// Another local server, with the context it said it gives the model.
    Local(Option<usize>),
}

#[derive(Debug, Default)]
struct OllamaState {
    /// Whether the server's root answers "Ollama is running" (kept once
    /// the server answered; a server not up yet is asked again).
    is_ollama: tokio::sync::OnceCell<bool>,
    /// `/api/show` by model.
    shows: Mutex<HashMap<String, ModelInfo>>,
    /// Another local server's context per model (`None`: it did not say).
    served: Mutex<HashMap<String, Option<usize>>>,
}

impl std::fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelClient").field("config", &self.config).finish_non_exhaustive()
    }
}

impl ModelClient {
    pub fn new(config: ModelConfig) -> Result<Self> {
        Self::build(config, RetryPolicy::default())
    }

    pub(crate) fn build(config: ModelConfig, retry: RetryPolicy) -> Result<Self> {
        let key = config.api_key.clone().unwrap_or_default();
        if reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).is_err() {
            return Err(Error::invalid_arguments(
                "the API key contains characters that cannot go in an HTTP header (a line break?)",
            ));
        }
        let mut http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(config.timeout)
            .user_agent(concat!("halley/", env!("CARGO_PKG_VERSION")));
        if config.is_loopback() {
            // A proxy from the environment must not capture a local server.
            http = http.no_proxy();
        }
        let http = http.build().map_err(|e| {
            Error::new(ErrorCode::Internal, "cannot set up the HTTP client for the model").with_source(e)
        })?;
        let api = OpenAIConfig::new()
            .with_api_base(config.base_url.clone())
            .with_api_key(key)
            .with_org_id("")
            .with_project_id("");
        let client = |sse: bool| {
            Client::build(http.clone(), api.clone()).with_http_service(Transport { http: http.clone(), retry, sse })
        };
        Ok(ModelClient {
            unary: client(false),
            streaming: client(true),
            native: Transport { http: http.clone(), retry, sse: false },
            ollama: Arc::default(),
            config,
        })
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The model ids the endpoint serves (`GET {base}/models`), in its order.
    pub async fn list_models(&self) -> Result<Vec<String>> {
        let listing = tokio::time::timeout(LIST_TIMEOUT, self.unary.models().list_byot::<Value>()).await;
        let value = match listing {
            Ok(answer) => answer.map_err(|e| self.error(e))?,
            Err(_) => {
                return Err(self.fail(
                    ErrorCode::ModelUnavailable,
                    format!(
                        "the model server at {} did not list its models within {} s; {}",
                        self.config.base_url,
                        LIST_TIMEOUT.as_secs(),
                        self.config.hint()
                    ),
                ));
            }
        };
        Ok(model_ids(&value))
    }

    /// Stream one chat completion. `request` is an OpenAI chat-completions
    /// body (messages, tools, tool_choice...); `model` defaults to the
    /// configured one, and `stream`/`stream_options` are set here. Events
    /// are emitted as they arrive; the completion is returned only when the
    /// stream ended with `[DONE]` (a cut stream is a `model_error`).
    ///
    /// The completion's [`Completion::raw`] holds the response as received
    /// (capped); a failed call's error carries what had arrived, read with
    /// [`raw_response_of`].
    pub async fn stream_chat(&self, request: Value, mut on_event: impl FnMut(StreamEvent)) -> Result<Completion> {
        let request = self.chat_body(request)?;
        let ollama = self.is_ollama().await;
        if ollama && self.config.api != ModelApi::OpenAi {
            return self.stream_native(request, &mut on_event).await;
        }
        // What a local server said of its context, if the run asked it
        // already (`prompt_budget`).
        let served = if ollama { None } else { self.served_known(request["model"].as_str().unwrap_or("")) };
        // A server that may cut a prompt too long for it without a word
        // (Ollama's /v1; LM Studio's rolling window; a local server that
        // says its context): what it read is checked against what was
        // sent. (llama.cpp and vLLM refuse such a prompt instead.)
        let may_cut =
            ollama || (self.config.is_loopback() && (self.config.preset == Some(Preset::LmStudio) || served.is_some()));
        let sent = may_cut.then(|| ollama::prompt_tokens(&request));
        let model = request["model"].as_str().unwrap_or_default().to_owned();
        let mut raw = RawResponse::default();
        let mut stream = match self.streaming.chat().create_stream_byot::<Value, Payload>(request).await {
            Ok(stream) => stream,
            Err(e) => return Err(self.failed(e, raw)),
        };
        // Only a 2xx answer becomes a stream (see `transport`).
        raw.status = Some(200);
        let mut assembler = Assembler::new();
        while let Some(item) = stream.next().await {
            match item {
                Ok(Payload(data)) => {
                    raw.push_data(data.get());
                    let chunk = match serde_json::from_str::<Chunk>(data.get()) {
                        Ok(chunk) => chunk,
                        Err(e) => {
                            tracing::warn!(error = %e, "skipping a stream event that cannot be read");
                            continue;
                        }
                    };
                    if let Err(e) = assembler.push(chunk, &mut on_event) {
                        return Err(self.fail(e.code(), e.message().to_owned()).with_source(Partial(raw)));
                    }
                }
                Err(OpenAIError::JSONDeserialize(e, data)) => {
                    raw.push_data(&data);
                    tracing::warn!(error = %e, bytes = data.len(), "skipping a stream line that is not JSON");
                }
                Err(e) => return Err(self.failed(e, raw)),
            }
        }
        raw.push_data("[DONE]");
        let mut completion = assembler.finish();
        completion.raw = raw;
        if let Some(sent) = sent {
            let server = if ollama { Cutter::Ollama(None) } else { Cutter::Local(served) };
            self.check_read(&completion, &model, sent, server)?;
        }
        Ok(completion)
    }

    /// Whether the server is Ollama: its preset, `HALLEY_MODEL_API=ollama`,
    /// or, for an endpoint no preset names with the API left to choose, a
    /// root (`GET /`) that answers "Ollama is running".
    pub async fn is_ollama(&self) -> bool {
        match (self.config.api, self.config.preset) {
            (ModelApi::Ollama, _) | (_, Some(Preset::Ollama)) => true,
            (ModelApi::Auto, None) => {
                let asked = self.ollama.is_ollama.get_or_try_init(|| self.probe()).await;
                asked.is_ok_and(|is| *is)
            }
            _ => false,
        }
    }

    /// Whether chats go to Ollama's native API.
    async fn speaks_native(&self) -> bool {
        self.config.api != ModelApi::OpenAi && self.is_ollama().await
    }

    /// `GET /` of the server's root; `Err` when it did not answer at all.
    async fn probe(&self) -> std::result::Result<bool, ()> {
        let url = format!("{}/", ollama::root_url(&self.config.base_url));
        let mut request = self.native.http.get(&url).timeout(PROBE_TIMEOUT);
        if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            request = request.bearer_auth(key);
        }
        match request.send().await {
            Ok(resp) if resp.status().is_success() => {
                Ok(resp.text().await.is_ok_and(|text| ollama::is_running_text(&text)))
            }
            Ok(_) => Ok(false),
            Err(e) => {
                tracing::debug!("the model server's root did not answer: {}", root_cause(&e));
                Err(())
            }
        }
    }

    /// The most prompt tokens a run should send `model`: on Ollama's native
    /// API, what its context (capped by `HALLEY_MAX_CONTEXT`) holds with
    /// room for the answer; `None` elsewhere, or when `/api/show` fails
    /// (the chat itself then says why).
    pub async fn prompt_budget(&self, model: &str) -> Option<usize> {
        if !self.speaks_native().await {
            if self.is_ollama().await {
                return None;
            }
            return self.served_context(model).await.map(ollama::prompt_budget);
        }
        let info = self.show(model).await.ok()?;
        Some(ollama::prompt_budget(info.window(self.config.max_context)))
    }

    /// What [`ModelClient::served_context`] found for `model`, if it was asked.
    fn served_known(&self, model: &str) -> Option<usize> {
        self.ollama.served.lock().ok().and_then(|m| m.get(model).copied()).flatten()
    }

    /// The context a server on this machine other than Ollama gives
    /// `model`, where its API says it ([`served`]); asked once per model.
    pub async fn served_context(&self, model: &str) -> Option<usize> {
        if !self.config.is_loopback() || model.is_empty() {
            return None;
        }
        if let Some(known) = self.ollama.served.lock().ok().and_then(|m| m.get(model).copied()) {
            return known;
        }
        let mut found = None;
        for source in served::sources(self.config.preset) {
            let mut request = self.native.http.get(source.url(&self.config.base_url, model)).timeout(PROBE_TIMEOUT);
            if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
                request = request.bearer_auth(key);
            }
            let Ok(resp) = request.send().await else { break };
            if !resp.status().is_success() {
                continue;
            }
            let Ok(body) = resp.json::<Value>().await else { continue };
            found = source.read(&body, model);
            if found.is_some() {
                break;
            }
        }
        if let Ok(mut known) = self.ollama.served.lock() {
            known.insert(model.to_owned(), found);
        }
        found
    }

    /// The endpoint and the body a chat `request` went to, as
    /// [`ModelClient::stream_chat`] sent them (for the provider trace).
    pub fn sent(&self, request: &Value) -> (String, Value) {
        let body = self.chat_body(request.clone()).unwrap_or_else(|_| request.clone());
        let native = match (self.config.api, self.config.preset) {
            (ModelApi::OpenAi, _) => false,
            (ModelApi::Ollama, _) | (_, Some(Preset::Ollama)) => true,
            _ => self.ollama.is_ollama.get() == Some(&true),
        };
        let model = body["model"].as_str().unwrap_or_default();
        if native
            && let Some(info) = self.cached_show(model)
            && let Ok((native_body, _)) = ollama::chat_body(&body, &info, self.config.max_context, self.config.think)
        {
            return (format!("{}/api/chat", ollama::root_url(&self.config.base_url)), native_body);
        }
        (format!("{}/chat/completions", self.config.base_url), body)
    }

    fn cached_show(&self, model: &str) -> Option<ModelInfo> {
        self.ollama.shows.lock().unwrap_or_else(|e| e.into_inner()).get(model).cloned()
    }

    /// What Ollama's `/api/show` says of `model` (asked once per client).
    async fn show(&self, model: &str) -> Result<ModelInfo> {
        if let Some(info) = self.cached_show(model) {
            return Ok(info);
        }
        let url = format!("{}/api/show", ollama::root_url(&self.config.base_url));
        let body = json!({"model": model});
        let resp = match self.native.execute(|| self.native_request(&url, &body)).await {
            Ok(resp) => resp,
            Err(OpenAIError::ApiError(r)) if r.status_code.as_u16() == 404 => {
                return Err(self.not_pulled(model, &r.api_error.message));
            }
            Err(e) => return Err(self.error(e)),
        };
        let mut bytes = Vec::new();
        let mut stream = resp.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| self.transport_error(&e))?;
            bytes.extend_from_slice(&chunk);
            if bytes.len() > MAX_SHOW_BYTES {
                break;
            }
        }
        let show: Value = serde_json::from_slice(&bytes).map_err(|e| {
            self.fail(
                ErrorCode::ModelError,
                format!(
                    "the Ollama server at {} answered /api/show with something that is not JSON ({e}): {}",
                    self.config.base_url,
                    clip(&String::from_utf8_lossy(&bytes), 200)
                ),
            )
        })?;
        let info = ModelInfo::from_show(&show);
        self.ollama.shows.lock().unwrap_or_else(|e| e.into_inner()).insert(model.to_owned(), info.clone());
        Ok(info)
    }

    fn not_pulled(&self, model: &str, said: &str) -> Error {
        self.fail(
            ErrorCode::ModelUnavailable,
            format!(
                "the model `{model}` is not on the Ollama server at {} ({}): pull it with `ollama pull {model}`, \
                 or choose one that `halley models` lists",
                ollama::root_url(&self.config.base_url),
                clip(said, 200)
            ),
        )
    }

    /// A POST of `body` to a native endpoint, with the key when there is one.
    fn native_request(
        &self,
        url: &str,
        body: &Value,
    ) -> std::future::Ready<std::result::Result<reqwest::Request, OpenAIError>> {
        let mut request = self.native.http.post(url).json(body);
        if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            request = request.bearer_auth(key);
        }
        std::future::ready(request.build().map_err(OpenAIError::Reqwest))
    }

    /// One chat on Ollama's native `/api/chat`: `num_ctx` sized to the
    /// request, the NDJSON stream read into the same events and completion.
    async fn stream_native(&self, body: Value, on_event: &mut impl FnMut(StreamEvent)) -> Result<Completion> {
        let model = body["model"].as_str().unwrap_or_default().to_owned();
        let info = self.show(&model).await?;
        let (native, sizing) = ollama::chat_body(&body, &info, self.config.max_context, self.config.think)
            .map_err(|e| self.fail(e.code(), e.message().to_owned()))?;
        let url = format!("{}/api/chat", ollama::root_url(&self.config.base_url));
        let mut raw = RawResponse::default();
        let resp = match self.native.execute(|| self.native_request(&url, &native)).await {
            Ok(resp) => resp,
            Err(OpenAIError::ApiError(r)) if r.status_code.as_u16() == 404 => {
                raw.status = Some(404);
                raw.push(&r.api_error.message);
                return Err(self.not_pulled(&model, &r.api_error.message).with_source(Partial(raw)));
            }
            Err(e) => return Err(self.failed(e, raw)),
        };
        raw.status = Some(resp.status().as_u16());
        let mut lines = ndjson::Lines::default();
        let mut reader = ndjson::Reader::default();
        let mut assembler = Assembler::new();
        let mut stream = resp.bytes_stream();
        while !reader.done {
            let got = match stream.next().await {
                Some(Ok(bytes)) => lines.feed(&bytes).map_err(|e| {
                    self.fail(ErrorCode::ModelError, format!("the model's stream could not be read: {e}"))
                        .with_source(Partial(raw.clone()))
                })?,
                Some(Err(e)) => {
                    let err = if e.is_timeout() {
                        self.transport_error(&e)
                    } else {
                        self.fail(
                            ErrorCode::ModelError,
                            format!(
                                "the model's stream was cut before it finished ({}); the partial answer was dropped",
                                root_cause(&e)
                            ),
                        )
                    };
                    return Err(err.with_source(Partial(raw)));
                }
                None => match lines.finish() {
                    Some(last) => vec![last],
                    None => break,
                },
            };
            for line in got {
                if reader.done {
                    break;
                }
                raw.push(&line);
                raw.push("\n");
                if line.trim().is_empty() {
                    continue;
                }
                let value = match serde_json::from_str::<Value>(&line) {
                    Ok(v) => v,
                    Err(e) => {
                        tracing::warn!(error = %e, bytes = line.len(), "skipping a stream line that is not JSON");
                        continue;
                    }
                };
                if let Err(e) = assembler.push(reader.chunk(value), on_event) {
                    return Err(self.fail(e.code(), e.message().to_owned()).with_source(Partial(raw)));
                }
            }
        }
        if !reader.done {
            return Err(self
                .fail(
                    ErrorCode::ModelError,
                    "the model's stream was cut before it finished (no line with `done: true`); the partial answer \
                     was dropped"
                        .to_owned(),
                )
                .with_source(Partial(raw)));
        }
        let mut completion = assembler.finish();
        completion.raw = raw;
        self.check_read(&completion, &model, sizing.prompt_tokens, Cutter::Ollama(Some(sizing)))?;
        Ok(completion)
    }

    /// Fail a completion whose prompt the server read markedly less of than
    /// was sent (cut from the front: the model answered something else).
    fn check_read(&self, completion: &Completion, model: &str, sent: usize, server: Cutter) -> Result<()> {
        let Some(Usage { prompt_tokens: read, .. }) = completion.usage else { return Ok(()) };
        if !ollama::cut(sent, read) {
            return Ok(());
        }
        let base = &self.config.base_url;
        let message = match server {
            Cutter::Ollama(sizing) => ollama::cut_message(base, model, sent, read, sizing),
            Cutter::Local(context) => {
                let context = context.map_or_else(|| "not reported".to_owned(), |c| format!("{c} tokens"));
                format!(
                    "the model server at {base} read only {read} of the about {sent} prompt tokens sent for \
                     `{model}` (its context for the model: {context}): it cut the prompt, so its answer was \
                     dropped. Load the model with a larger context, or lower --context-tokens to what it holds"
                )
            }
        };
        Err(self.fail(ErrorCode::ModelError, message).with_source(Partial(completion.raw.clone())))
    }

    /// The chat-completions body as [`ModelClient::stream_chat`] sends it:
    /// `model` filled in when absent, `stream` and `stream_options` set.
    pub fn chat_body(&self, request: Value) -> Result<Value> {
        let Value::Object(mut body) = request else {
            return Err(Error::invalid_arguments("the chat request must be a JSON object"));
        };
        let has_model = body.get("model").and_then(Value::as_str).is_some_and(|m| !m.is_empty());
        if !has_model {
            let Some(model) = &self.config.model else {
                return Err(Error::invalid_arguments(format!(
                    "no model chosen: pass --model or set HALLEY_MODEL (`halley models` lists the ids served at {})",
                    self.config.base_url
                )));
            };
            body.insert("model".into(), json!(model));
        }
        body.insert("stream".into(), json!(true));
        match body.get_mut("stream_options") {
            Some(Value::Object(options)) => {
                options.insert("include_usage".into(), json!(true));
            }
            _ => {
                body.insert("stream_options".into(), json!({"include_usage": true}));
            }
        }
        Ok(Value::Object(body))
    }

    /// An async-openai error as Halley's, carrying what the call received
    /// (and the HTTP status of an error answer).
    fn failed(&self, err: OpenAIError, mut raw: RawResponse) -> Error {
        if let OpenAIError::ApiError(r) = &err {
            raw.status = Some(r.status_code.as_u16());
        }
        self.error(err).with_source(Partial(raw))
    }

    /// An async-openai error as Halley's.
    fn error(&self, err: OpenAIError) -> Error {
        let base = &self.config.base_url;
        match err {
            OpenAIError::Reqwest(e) => self.transport_error(&e),
            OpenAIError::ApiError(r) => {
                let status = r.status_code;
                let advice = match status.as_u16() {
                    401 | 403 => {
                        let env = self.config.preset.and_then(|p| p.api_key_env()).unwrap_or(ENV_API_KEY);
                        format!("; check the API key (`halley models key set`, or {env})")
                    }
                    404 => "; check the base URL and the model id (`halley models` lists the ids)".to_owned(),
                    429 => "; still rate-limited after retrying".to_owned(),
                    _ => String::new(),
                };
                let message =
                    format!("the model server at {base} answered HTTP {status}: {}{advice}", r.api_error.message);
                // The status stays readable (`raw_response_of`): the settings
                // tell a refused key from a wrong address by it.
                let mut raw = RawResponse::default();
                raw.status = Some(status.as_u16());
                self.fail(ErrorCode::ModelError, message).with_source(Partial(raw))
            }
            OpenAIError::JSONDeserialize(e, content) => self.fail(
                ErrorCode::ModelError,
                format!(
                    "the model server at {base} sent a response that is not the JSON expected ({e}): {}",
                    clip(&content, 200)
                ),
            ),
            OpenAIError::StreamError(e) => self.fail(
                ErrorCode::ModelError,
                format!("the model's stream was cut before it finished ({e}); the partial answer was dropped"),
            ),
            OpenAIError::InvalidArgument(m) => Error::invalid_arguments(m),
            other => self.fail(ErrorCode::ModelError, format!("the model request to {base} failed: {other}")),
        }
    }

    fn transport_error(&self, e: &reqwest::Error) -> Error {
        let base = &self.config.base_url;
        if e.is_connect() {
            let why = if e.is_timeout() {
                format!("no answer within {} s", CONNECT_TIMEOUT.as_secs())
            } else if io_kind(e) == Some(std::io::ErrorKind::ConnectionRefused) {
                "connection refused".to_owned()
            } else {
                root_cause(e)
            };
            return self.fail(
                ErrorCode::ModelUnavailable,
                format!("no model server is reachable at {base} ({why}); {}", self.config.hint()),
            );
        }
        if e.is_timeout() {
            return self.fail(
                ErrorCode::Timeout,
                format!(
                    "the model server at {base} sent nothing for {} s (a local model may still be loading)",
                    self.config.timeout.as_secs()
                ),
            );
        }
        self.fail(ErrorCode::ModelError, format!("the request to the model server at {base} failed: {}", root_cause(e)))
    }

    /// An error whose message never carries the API key.
    fn fail(&self, code: ErrorCode, message: String) -> Error {
        let message = match self.config.api_key.as_deref() {
            Some(key) if key.len() >= 4 => message.replace(key, "<redacted>"),
            _ => message,
        };
        Error::new(code, message)
    }
}

/// One stream event's data, exactly as received (parsed into a [`Chunk`]
/// after it is kept for the trace).
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct Payload(Box<serde_json::value::RawValue>);

/// What a failed [`ModelClient::stream_chat`] had received before it failed
/// (empty when nothing arrived), with the HTTP status of an error answer.
pub fn raw_response_of(err: &Error) -> Option<&RawResponse> {
    std::error::Error::source(err)?.downcast_ref::<Partial>().map(|p| &p.0)
}

/// The deepest cause's message (reqwest's own is "error sending request").
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        cause = c.source();
    }
    None
}

/// Model ids from a listing: OpenAI's `{"data": [{"id"}]}`, a bare array,
/// or `{"models": [{"name"}]}`; entries may also be plain strings.
fn model_ids(listing: &Value) -> Vec<String> {
    let entries = listing
        .get("data")
        .and_then(Value::as_array)
        .or_else(|| listing.get("models").and_then(Value::as_array))
        .or_else(|| listing.as_array());
    let mut ids: Vec<String> = Vec::new();
    for entry in entries.into_iter().flatten() {
        let id = match entry {
            Value::String(s) => Some(s.as_str()),
            other => ["id", "name", "model"].iter().find_map(|k| other.get(*k).and_then(Value::as_str)),
        };
        if let Some(id) = id.filter(|id| !id.is_empty())
            && !ids.iter().any(|known| known == id)
        {
            ids.push(id.to_owned());
        }
    }
    ids
}

#[path = "client_models.rs"]
mod models;
pub use models::{ContextInUse, Described};

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
