//! Letta compatibility: the part of Letta's REST API that the official
//! `letta-client` Python SDK (1.12) uses to register tools, create an agent
//! and talk to it with client-executed tools, in Letta's shapes.
//!
//! - `POST|PUT /v1/tools/` (and without the slash): a tool from its Python
//!   `source_code` (parsed, never run), named by its `def`; `GET` lists them.
//! - `POST /v1/agents/`: an agent (a row of `agents`; its `model` handle
//!   picks that model when the saved settings know it). Its runs share one
//!   conversation and use Halley's own memory and tools.
//! - `POST /v1/agents/{id}/messages` (JSON, or SSE with `streaming: true`)
//!   and `/messages/stream`: a user message starts a run; each call of a
//!   client tool (registered, or passed as `client_tools`) ends the answer
//!   with an `approval_request_message` and `stop_reason: requires_approval`,
//!   and the run waits. The next request answers it: an `approval` message
//!   (`approvals: [{type: "tool", tool_call_id, tool_return, status}]`, or
//!   `{type: "approval", approve: false}`) or a `tool_return` message; the run
//!   goes on and the answer continues. A user message while a call waits is
//!   refused 409 with `x-should-retry: false` (the SDK retries 409s
//!   otherwise); answers that do not name exactly the waiting calls, 400.
//!
//! Streams are `data:` lines only (the SDK skips events with an `event:`
//! name), ending `data: [DONE]`.

use std::collections::{BTreeSet, HashMap};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::Event as Sse;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use super::routes::Body;
use super::{Api, ApiError};
use crate::agent::ModelFlags;
use crate::builtin::client::{ClientAnswer, ClientCall, Listener};
use crate::context::FrontEnd;
use crate::error::{Error, ErrorCode};
use crate::gate::{ConfirmationRequest, Confirmer};
use crate::host::{Host, RunModel, RunRequest};
use crate::protocol::{AgentEvent, Event, RunStatus};
use crate::store::agents::{AgentPatch, AgentRow, NewAgent};
use crate::tools::catalogue::safety::ConfirmResultV1;
use crate::tools::{Executor, ResultStatus};

pub(super) fn routes() -> Router<Api> {
    Router::new()
        .route("/v1/tools", get(list_tools).post(create_tool).put(upsert_tool))
        .route("/v1/tools/", get(list_tools).post(create_tool).put(upsert_tool))
        .route("/v1/agents", post(create_agent))
        .route("/v1/agents/", post(create_agent))
        .route("/v1/agents/{id}", get(get_agent))
        .route("/v1/agents/{id}/messages", post(messages))
        .route("/v1/agents/{id}/messages/stream", post(messages_stream))
}

/// The client key of an agent's requester: every client-tool call of the
/// agent's runs goes to whoever talks to the agent.
fn agent_key(agent_id: &str) -> String {
    format!("letta:{agent_id}")
}

/// A Letta-style error: a status, `{"detail": ...}` as Letta answers, plus
/// Halley's `error` object; 409s say `x-should-retry: false`.
fn letta_error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    let message = message.into();
    let body = json!({"detail": message, "error": {"code": code.as_str(), "message": message}});
    let mut response = (status, Json(body)).into_response();
    if status == StatusCode::CONFLICT {
        response.headers_mut().insert("x-should-retry", HeaderValue::from_static("false"));
    }
    response
}

// ---------------------------------------------------------------- tools

/// The body of `POST|PUT /v1/tools/` (what the SDK sends; unknown fields
/// are ignored as Letta does).
#[derive(Debug, Deserialize)]
struct ToolBody {
    source_code: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    default_requires_approval: Option<bool>,
    #[serde(default)]
    tags: Option<Vec<String>>,
}

/// A client tool in Letta's `Tool` shape.
fn tool_json(row: &crate::store::tools::ToolRow, spec: Option<&crate::tools::ToolSpec>) -> Value {
    let parameters = spec.map_or_else(|| json!({"type": "object", "properties": {}}), |s| s.parameters.clone());
    json!({
        "id": row.id,
        "name": row.name,
        "description": row.description,
        "tool_type": "custom",
        "source_type": "python",
        "source_code": row.source_code,
        "json_schema": {"name": row.name, "description": row.description, "parameters": parameters},
        "args_json_schema": null,
        "default_requires_approval": row.requires_confirmation,
        "enable_parallel_execution": false,
        "tags": [],
        "return_char_limit": 50000,
        "metadata_": {},
    })
}

async fn create_tool(State(api): State<Api>, Body(body): Body<ToolBody>) -> Result<Response, ApiError> {
    save_tool(&api, body, false).await
}

async fn upsert_tool(State(api): State<Api>, Body(body): Body<ToolBody>) -> Result<Response, ApiError> {
    save_tool(&api, body, true).await
}

/// Register a tool from its source: `create` refuses a name taken (409,
/// as Letta), `upsert` replaces it.
async fn save_tool(api: &Api, body: ToolBody, upsert: bool) -> Result<Response, ApiError> {
    let _ = body.tags;
    let function = crate::tools::python::parse_first_function(&body.source_code)?;
    let tools = api.host.core().store().tools();
    if !upsert && tools.get_by_name(&function.name).await?.is_some() {
        return Ok(letta_error(
            StatusCode::CONFLICT,
            ErrorCode::InvalidArguments,
            format!("a tool named `{}` exists already: upsert it (PUT /v1/tools/) to replace it", function.name),
        ));
    }
    let op = crate::protocol::Op::RegisterClientTool {
        name: function.name.clone(),
        description: body.description.unwrap_or_default(),
        source_code: body.source_code,
        requires_approval: body.default_requires_approval.unwrap_or(false),
        client: None,
        timeout_secs: None,
    };
    api.host.handle(op).await?;
    let row = tools.get_by_name(&function.name).await?.ok_or_else(|| Error::internal("the tool was not stored"))?;
    Ok(Json(tool_json(&row, api.host.core().registry().get(&row.name))).into_response())
}

/// The paging of a Letta list: the items after the id `after`, at most
/// `limit` (the SDK pages on with the last item's id until a page is empty).
#[derive(Debug, Deserialize)]
struct Page {
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

/// `GET /v1/tools/`: the client tools, as a list.
async fn list_tools(
    State(api): State<Api>,
    axum::extract::Query(page): axum::extract::Query<Page>,
) -> Result<Json<Value>, ApiError> {
    let registry = api.host.core().registry();
    let rows = api.host.core().store().tools().list().await?;
    let mut client: Vec<_> = rows.iter().filter(|r| r.executor == Executor::Client).collect();
    if let Some(after) = &page.after {
        let at = client.iter().position(|r| &r.id == after).map_or(client.len(), |i| i + 1);
        client.drain(..at);
    }
    client.truncate(page.limit.unwrap_or(usize::MAX));
    Ok(Json(client.iter().map(|r| tool_json(r, registry.get(&r.name))).collect()))
}

// ---------------------------------------------------------------- agents

#[derive(Debug, Deserialize)]
struct AgentBody {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    tools: Option<Vec<String>>,
}

/// An agent in Letta's `AgentState` shape (the fields the SDK reads).
fn agent_json(row: &AgentRow) -> Value {
    json!({
        "id": row.id,
        "name": row.name,
        "system": row.system,
        "agent_type": "letta_v1_agent",
        "model": row.llm_config.get("model").cloned().unwrap_or(Value::Null),
        "tools": row.llm_config.get("tools").cloned().unwrap_or_else(|| json!([])),
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "tags": [],
        "metadata": {},
        "memory": {"blocks": []},
        "blocks": [],
        "sources": [],
        "llm_config": {"model": row.llm_config.get("model").cloned().unwrap_or(Value::Null),
                       "model_endpoint_type": "openai", "context_window": 32000},
        "embedding_config": {"embedding_model": "none", "embedding_endpoint_type": "openai", "embedding_dim": 0},
    })
}

/// `POST /v1/agents/`: a new agent.
async fn create_agent(State(api): State<Api>, Body(body): Body<AgentBody>) -> Result<Response, ApiError> {
    let store = api.host.core().store();
    // Halley's own agent stays the oldest one (the one its runs use).
    crate::builtin::memory::blocks::default_agent(store).await?;
    let name = body.name.unwrap_or_else(|| "letta-agent".to_owned());
    let llm_config = json!({"model": body.model, "tools": body.tools.unwrap_or_default(), "letta": true});
    let new = NewAgent { system: body.system.unwrap_or_default(), llm_config, ..NewAgent::named(&name) };
    let row = store.agents().create(&new).await?;
    Ok(Json(agent_json(&row)).into_response())
}

/// `GET /v1/agents/{id}`.
async fn get_agent(State(api): State<Api>, Path(id): Path<String>) -> Result<Response, ApiError> {
    match letta_agent(&api, &id).await? {
        Some(row) => Ok(Json(agent_json(&row)).into_response()),
        None => Ok(no_agent(&id)),
    }
}

/// An agent made over this API (Halley's own agent is not one).
async fn letta_agent(api: &Api, id: &str) -> Result<Option<AgentRow>, ApiError> {
    let row = api.host.core().store().agents().get(id).await?;
    Ok(row.filter(|r| r.llm_config.get("letta").and_then(Value::as_bool) == Some(true)))
}

fn no_agent(id: &str) -> Response {
    letta_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, format!("no agent `{id}`"))
}

/// The model of an agent's runs: its `model` handle (`provider/model`, or
/// a model name) when the saved settings know it (their model, or their
/// preset's provider), else the saved settings as they are.
fn run_model(handle: Option<&str>, settings: &crate::protocol::Settings) -> RunModel {
    let Some(handle) = handle.map(str::trim).filter(|h| !h.is_empty()) else {
        return RunModel::Saved;
    };
    let (provider, model) = handle.split_once('/').map_or((None, handle), |(p, m)| (Some(p), m));
    let same_model = settings.model.as_deref() == Some(model) || settings.model.as_deref() == Some(handle);
    let same_provider = provider.is_some() && provider == settings.preset.as_deref();
    if same_model || same_provider {
        RunModel::Flags(ModelFlags { model: Some(model.to_owned()), ..ModelFlags::default() })
    } else {
        RunModel::Saved
    }
}

// ---------------------------------------------------------------- messages

/// The body of `POST /v1/agents/{id}/messages` (the fields used here;
/// others are ignored).
#[derive(Debug, Deserialize)]
struct MessagesBody {
    #[serde(default)]
    messages: Option<Vec<Value>>,
    /// `input`: a user message (a string or content parts).
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    streaming: Option<bool>,
    #[serde(default)]
    client_tools: Option<Vec<ClientToolBody>>,
    #[serde(default)]
    max_steps: Option<u32>,
}

#[derive(Debug, Deserialize)]
struct ClientToolBody {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    parameters: Option<Value>,
}

async fn messages(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(body): Body<MessagesBody>,
) -> Result<Response, ApiError> {
    let streaming = body.streaming.unwrap_or(false);
    send(api, id, body, streaming).await
}

async fn messages_stream(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(body): Body<MessagesBody>,
) -> Result<Response, ApiError> {
    send(api, id, body, true).await
}

/// What a request's messages say: user text, or answers to waiting calls.
#[derive(Debug, Default)]
struct Said {
    text: Vec<String>,
    answers: Vec<(String, ClientAnswer)>,
    /// `approval` with `approve` and no list: for every waiting call.
    approve_all: Option<(bool, String)>,
}

fn read_messages(body: &MessagesBody) -> Result<Said, String> {
    let mut said = Said::default();
    if let Some(input) = &body.input {
        said.text.push(content_text(input));
    }
    for message in body.messages.iter().flatten() {
        match message.get("type").and_then(Value::as_str).unwrap_or("message") {
            "message" => {
                let role = message.get("role").and_then(Value::as_str).unwrap_or("user");
                if role != "user" {
                    return Err(format!("only user messages can be sent (not `{role}`)"));
                }
                said.text.push(content_text(message.get("content").unwrap_or(&Value::Null)));
            }
            "approval" => {
                let approvals = message.get("approvals").and_then(Value::as_array);
                match approvals {
                    Some(list) => {
                        for a in list {
                            said.answers.push(read_answer(a)?);
                        }
                    }
                    None => {
                        let approve = message.get("approve").and_then(Value::as_bool).unwrap_or(false);
                        let reason = message.get("reason").and_then(Value::as_str).unwrap_or_default();
                        said.approve_all = Some((approve, reason.to_owned()));
                    }
                }
            }
            "tool_return" => {
                let returns = message.get("tool_returns").and_then(Value::as_array);
                for r in returns.into_iter().flatten() {
                    said.answers.push(read_answer(r)?);
                }
            }
            other => return Err(format!("message type `{other}` is not supported")),
        }
    }
    Ok(said)
}

/// Text of a Letta content: a string, or parts with `text`.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// One approval or tool return: the call it answers and the answer.
fn read_answer(a: &Value) -> Result<(String, ClientAnswer), String> {
    let id = a.get("tool_call_id").and_then(Value::as_str).ok_or("an approval without `tool_call_id`")?.to_owned();
    let kind = a.get("type").and_then(Value::as_str).unwrap_or(if a.get("tool_return").is_some() {
        "tool"
    } else {
        "approval"
    });
    let answer = if kind == "approval" {
        let approve = a.get("approve").and_then(Value::as_bool).unwrap_or(false);
        if approve {
            return Err(format!(
                "`{id}` is a client-side tool: Halley does not run it; send its result as a `tool` approval \
                 (tool_return and status) or a `tool_return` message"
            ));
        }
        ClientAnswer::Denied(a.get("reason").and_then(Value::as_str).unwrap_or_default().to_owned())
    } else {
        let value = match a.get("tool_return") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => content_text(other),
            None => return Err(format!("the tool return of `{id}` has no `tool_return`")),
        };
        let result = serde_json::from_str(&value).unwrap_or(Value::String(value));
        match a.get("status").and_then(Value::as_str) {
            Some("error") => ClientAnswer::Error(match result {
                Value::String(s) => s,
                other => other.to_string(),
            }),
            _ => ClientAnswer::Result(result),
        }
    };
    Ok((id, answer))
}

/// Handle one messages request: start a run or answer its waiting calls,
/// then answer with what the run does until it ends or waits again.
async fn send(api: Api, agent_id: String, body: MessagesBody, streaming: bool) -> Result<Response, ApiError> {
    let Some(agent) = letta_agent(&api, &agent_id).await? else {
        return Ok(no_agent(&agent_id));
    };
    let said = match read_messages(&body) {
        Ok(said) => said,
        Err(message) => return Ok(letta_error(StatusCode::BAD_REQUEST, ErrorCode::InvalidArguments, message)),
    };
    let core = api.host.core();
    for tool in body.client_tools.iter().flatten() {
        let parameters = tool.parameters.clone().unwrap_or(Value::Null);
        core.register_client_schema(&tool.name, tool.description.as_deref().unwrap_or(""), &parameters, None, false)
            .await?;
    }
    let key = agent_key(&agent_id);
    // Listening before anything moves: no call of the run is missed.
    let listener = core.client_calls().listen(&key);
    let events = api.host.subscribe();
    let waiting: BTreeSet<String> = listener.waiting.iter().map(|c| c.tool_call_id.clone()).collect();
    let answering = !said.answers.is_empty() || said.approve_all.is_some();
    // The client calls answered now, by tool name: their results carry the
    // ids the client knows.
    let mut handed: HashMap<String, Vec<String>> = HashMap::new();
    let run_id = if answering {
        if !said.text.is_empty() {
            return Ok(bad("send either a user message or the answers to the waiting tool calls, not both"));
        }
        let answers: Vec<(String, ClientAnswer)> = match said.approve_all {
            Some((false, reason)) => {
                waiting.iter().map(|id| (id.clone(), ClientAnswer::Denied(reason.clone()))).collect()
            }
            Some((true, _)) => {
                return Ok(bad(
                    "these are client-side tools: send each result (approvals of type `tool`, or a tool_return message)",
                ));
            }
            None => said.answers,
        };
        let given: BTreeSet<String> = answers.iter().map(|(id, _)| id.clone()).collect();
        if given != waiting || given.len() != answers.len() {
            return Ok(bad(format!(
                "the answers must name each waiting tool call once: waiting {waiting:?}, answered {:?}",
                answers.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>()
            )));
        }
        let Some(run_id) = core.client_calls().run_of(&key) else {
            return Ok(bad("no run of this agent waits for tool results"));
        };
        for (id, answer) in answers {
            match core.client_calls().answer(&id, answer) {
                Ok(call) => handed.entry(call.name).or_default().push(id),
                Err(refused) => return Ok(bad(refused.error(&id).message().to_owned())),
            }
        }
        run_id
    } else {
        if !waiting.is_empty() {
            return Ok(letta_error(
                StatusCode::CONFLICT,
                ErrorCode::InvalidArguments,
                format!(
                    "the agent waits for the results of {waiting:?}: answer them (an approval or tool_return \
                     message) before sending a new message"
                ),
            ));
        }
        let text = said.text.join("\n");
        if text.trim().is_empty() {
            return Ok(bad("no message: send a user message (`messages` or `input`)"));
        }
        if !core.client_calls().claim_run(&key) {
            return Ok(letta_error(
                StatusCode::CONFLICT,
                ErrorCode::InvalidArguments,
                "the agent is still answering the previous message",
            ));
        }
        match start(&api, &agent, text, body.max_steps).await {
            Ok(run_id) => {
                core.client_calls().set_run(&key, Some(&run_id));
                // Given back when the run ends, whoever follows it then.
                let (host, key, run_id2, mut ended) =
                    (Arc::clone(&api.host), key.clone(), run_id.clone(), api.host.subscribe());
                if api.host.runs_going().iter().any(|r| r.run_id == run_id) {
                    tokio::spawn(async move {
                        loop {
                            match ended.recv().await {
                                Ok(Event::RunEnded { run_id, .. }) if run_id == run_id2 => break,
                                Err(broadcast::error::RecvError::Closed) => break,
                                _ => {}
                            }
                        }
                        host.core().client_calls().run_ended(&key, &run_id2);
                    });
                } else {
                    core.client_calls().run_ended(&key, &run_id);
                }
                run_id
            }
            Err(e) => {
                core.client_calls().set_run(&key, None);
                return Err(e.into());
            }
        }
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let follow = Follow { api: api.clone(), agent_id, run_id, listener, events, out: tx, handed };
    tokio::spawn(follow.run());
    if streaming {
        let stream = futures::stream::unfold(rx, |mut rx| async move {
            let item = rx.recv().await?;
            let data = match item {
                Out::Message(v) => v.to_string(),
                Out::Done => "[DONE]".to_owned(),
            };
            Some((Ok::<_, Infallible>(Sse::default().data(data)), rx))
        });
        let stream: Pin<Box<dyn futures::Stream<Item = Result<Sse, Infallible>> + Send>> = Box::pin(stream);
        return Ok(axum::response::Sse::new(stream).into_response());
    }
    let mut rx = rx;
    let mut messages = Vec::new();
    let mut stop = json!({"message_type": "stop_reason", "stop_reason": "error"});
    let mut usage = json!({"message_type": "usage_statistics"});
    while let Some(Out::Message(m)) = rx.recv().await {
        match m.get("message_type").and_then(Value::as_str) {
            Some("stop_reason") => stop = m,
            Some("usage_statistics") => usage = m,
            _ => messages.push(m),
        }
    }
    Ok(Json(json!({"messages": messages, "stop_reason": stop, "usage": usage})).into_response())
}

fn bad(message: impl Into<String>) -> Response {
    letta_error(StatusCode::BAD_REQUEST, ErrorCode::InvalidArguments, message)
}

/// Start the agent's run on `text`, in its conversation (the first run
/// makes it).
async fn start(api: &Api, agent: &AgentRow, text: String, max_steps: Option<u32>) -> crate::error::Result<String> {
    let conversation = agent.llm_config.get("conversation_id").and_then(Value::as_str).map(str::to_owned);
    let settings = api.host.settings().await;
    let handle = agent.llm_config.get("model").and_then(Value::as_str);
    let mut request = RunRequest {
        conversation_id: conversation.clone(),
        client: Some(agent_key(&agent.id)),
        confirmer: Some(Arc::new(LettaConfirmer { host: Arc::clone(&api.host) })),
        model: run_model(handle, &settings),
        ..RunRequest::new(FrontEnd::Api, text)
    };
    if let Some(steps) = max_steps.filter(|s| *s > 0) {
        request.limits.max_steps = steps;
    }
    let info = api.host.start_run(request).await?;
    if conversation.as_deref() != Some(info.conversation_id.as_str()) {
        let mut config = agent.llm_config.clone();
        config["conversation_id"] = Value::String(info.conversation_id.clone());
        let patch = AgentPatch { llm_config: Some(config), ..AgentPatch::default() };
        api.host.core().store().agents().update(&agent.id, &patch).await?;
    }
    Ok(info.run_id)
}

/// Who answers a Letta agent's questions: a client tool's call is asked of
/// the Letta client itself, in its approval request (so the gate's question
/// is answered yes here, and the client's `approve: false` is the refusal);
/// anything else is asked in Halley's panel.
#[derive(Debug)]
struct LettaConfirmer {
    host: Arc<Host>,
}

impl Confirmer for LettaConfirmer {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn std::future::Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async move {
            let registry = self.host.core().registry();
            if registry.get(&request.tool).is_some_and(|t| t.executor == Executor::Client) {
                return ConfirmResultV1 {
                    approved: true,
                    user_edits: Default::default(),
                    reason: "asked of the Letta client in its approval request".to_owned(),
                };
            }
            self.host.panel_confirmer().confirm(request).await
        })
    }
}

enum Out {
    Message(Value),
    Done,
}

/// Follows one run for one request: its events become Letta messages
/// until it ends (`end_turn`, `error`, `cancelled`) or a client call waits
/// (`requires_approval`). Runs to that point even when the requester has
/// gone, so the agent's state stays right.
struct Follow {
    api: Api,
    agent_id: String,
    run_id: String,
    listener: Listener,
    events: broadcast::Receiver<Event>,
    out: mpsc::UnboundedSender<Out>,
    handed: HashMap<String, Vec<String>>,
}

impl Follow {
    fn emit(&self, message: Value) {
        let _ = self.out.send(Out::Message(message));
    }

    async fn run(mut self) {
        let mut seq = 0u64;
        let mut handed = std::mem::take(&mut self.handed);
        let mut waiting: Vec<ClientCall> = Vec::new();
        let stop = loop {
            let event = tokio::select! {
                call = self.listener.next() => match call {
                    Some(call) => {
                        // What the run did before the call is told first.
                        while let Ok(event) = self.events.try_recv() {
                            if let Event::Agent { run_id, event } = event
                                && run_id == self.run_id
                            {
                                seq += 1;
                                if let Some(m) = self.message(event, seq, &mut handed) {
                                    self.emit(m);
                                }
                            }
                        }
                        // Every call waiting for this agent now (the first
                        // one included) is asked.
                        waiting = self.api.host.core().client_calls().waiting_for(&agent_key(&self.agent_id));
                        if waiting.is_empty() {
                            waiting.push(call);
                        }
                        break "requires_approval";
                    }
                    None => break "error",
                },
                event = self.events.recv() => match event {
                    Ok(e) => e,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break "error",
                },
            };
            match event {
                Event::Agent { run_id, event } if run_id == self.run_id => {
                    seq += 1;
                    if let Some(m) = self.message(event, seq, &mut handed) {
                        self.emit(m);
                    }
                }
                Event::RunEnded { run_id, status, .. } if run_id == self.run_id => {
                    self.api.host.core().client_calls().run_ended(&agent_key(&self.agent_id), &self.run_id);
                    break match status {
                        RunStatus::Completed => "end_turn",
                        RunStatus::Cancelled => "cancelled",
                        _ => "error",
                    };
                }
                _ => {}
            }
        };
        for call in &waiting {
            seq += 1;
            let tool_call =
                json!({"name": call.name, "arguments": call.arguments.to_string(), "tool_call_id": call.tool_call_id});
            self.emit(json!({
                "id": format!("message-{}", call.tool_call_id),
                "date": crate::store::now(),
                "message_type": "approval_request_message",
                "tool_call": tool_call,
                "tool_calls": [tool_call],
                "run_id": self.run_id,
                "seq_id": seq,
            }));
        }
        self.emit(json!({"message_type": "stop_reason", "stop_reason": stop}));
        let steps = self.api.host.core().store().steps().for_run(&self.run_id).await.unwrap_or_default();
        let prompt: i64 = steps.iter().filter_map(|s| s.prompt_tokens).sum();
        let completion: i64 = steps.iter().filter_map(|s| s.completion_tokens).sum();
        self.emit(json!({
            "message_type": "usage_statistics",
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "step_count": steps.len(),
            "run_ids": [self.run_id],
        }));
        let _ = self.out.send(Out::Done);
    }

    /// One run event as a Letta message (none: not one Letta shows).
    fn message(&self, event: AgentEvent, seq: u64, handed: &mut HashMap<String, Vec<String>>) -> Option<Value> {
        let base = |kind: &str, id: &str| {
            json!({"id": format!("message-{id}"), "date": crate::store::now(), "message_type": kind,
                   "run_id": self.run_id, "seq_id": seq})
        };
        let registry = self.api.host.core().registry();
        let is_client = |name: &str| registry.get(name).is_some_and(|t| t.executor == Executor::Client);
        match event {
            AgentEvent::ToolCall { id, name, arguments, .. } if !is_client(&name) => {
                let mut m = base("tool_call_message", &id);
                let call = json!({"name": name, "arguments": arguments.to_string(), "tool_call_id": id});
                m["tool_call"] = call.clone();
                m["tool_calls"] = json!([call]);
                Some(m)
            }
            AgentEvent::ToolResult { id, name, result, .. } => {
                let call_id = if is_client(&name) {
                    handed.get_mut(&name).and_then(|ids| (!ids.is_empty()).then(|| ids.remove(0))).unwrap_or(id.clone())
                } else {
                    id.clone()
                };
                let mut m = base("tool_return_message", &format!("{id}-return"));
                let ok = result.status == ResultStatus::Ok;
                let text = if ok {
                    result.data.to_string()
                } else {
                    result.error.as_ref().map_or_else(String::new, |e| e.message.clone())
                };
                m["name"] = json!(name);
                m["tool_call_id"] = json!(call_id);
                m["status"] = json!(if ok { "success" } else { "error" });
                m["tool_return"] = json!(text);
                Some(m)
            }
            AgentEvent::Final { text, .. } => {
                let mut m = base("assistant_message", &format!("{}-final", self.run_id));
                m["content"] = json!(text);
                Some(m)
            }
            AgentEvent::Error { code, message, .. } => {
                let mut m = base("error_message", &format!("{}-error", self.run_id));
                m["error_type"] = json!(code.as_str());
                m["message"] = json!(message);
                Some(m)
            }
            _ => None,
        }
    }
}
