//! The routes: thin adapters over the host's ops. Their request and answer
//! types are the protocol's (and [`openapi`](super::openapi) describes them
//! from the same types).

use std::collections::HashSet;
use std::convert::Infallible;

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::response::sse::{Event as Sse, KeepAlive};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::Stream;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast::{self, error::RecvError};

use super::{Api, ApiError};
use crate::context::FrontEnd;
use crate::error::{Error, ErrorCode};
use crate::host::{Caller, RunRequest};
use crate::protocol::{Event, Op, Reply, RunInfo, StoredToolView};

pub(super) fn routes() -> Router<Api> {
    Router::new()
        .route("/api/v1/openapi.json", get(openapi))
        .route("/api/v1/tools", get(list_tools))
        .route("/api/v1/tools/{name}/call", post(call_tool))
        .route("/api/v1/runs", get(list_runs).post(start_run))
        .route("/api/v1/runs/{id}/events", get(run_events))
        .route("/api/v1/runs/{id}/stop", post(stop_run))
        .route("/api/v1/runs/{id}/resume", post(resume_run))
        .route("/api/v1/confirmations/{id}", post(answer_confirmation))
        .route("/api/letta/agents/tools", get(list_client_tools).post(register_client_tool))
        .route("/api/letta/agents/tools/{name}", axum::routing::delete(delete_client_tool))
}

/// A JSON body whose rejection (bad JSON, wrong shape, too large) is an
/// [`ApiError`] with a JSON body, like every other error.
pub(super) struct Body<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(v)) => Ok(Body(v)),
            Err(JsonRejection::BytesRejection(e)) => Err(ApiError::http(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("the body is too large (at most {} bytes): {e}", super::MAX_BODY),
            )),
            Err(e) => Err(ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::InvalidArguments, e.body_text())),
        }
    }
}

async fn openapi() -> Json<Value> {
    Json(super::openapi::document())
}

/// `GET /api/v1/tools`: every tool the model may call now.
async fn list_tools(State(api): State<Api>) -> Result<Json<Reply>, ApiError> {
    Ok(Json(api.host.handle(Op::ListTools).await?))
}

/// The body of `POST /api/v1/tools/{name}/call`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CallBody {
    /// The tool's arguments (its input schema); none: `{}`.
    #[serde(default)]
    pub args: Option<Value>,
}

/// `POST /api/v1/tools/{name}/call`: one gated call. A tool's own failure
/// is a result (`status: error` with a code), answered 200; a question
/// to the user waits for an answer (`POST /api/v1/confirmations/{id}`, or
/// the panel).
async fn call_tool(
    State(api): State<Api>,
    Path(name): Path<String>,
    Body(body): Body<CallBody>,
) -> Result<Json<Value>, ApiError> {
    let args = body.args.unwrap_or_else(|| Value::Object(Default::default()));
    // The same op as every front end's direct call (so a call that changed
    // the watches tells the panel and the tray); questions go to the panel.
    let caller = Caller { front_end: FrontEnd::Api, ..Caller::panel(&api.host) };
    let Reply::ToolResult { result } = api.host.handle_as(&caller, Op::CallTool { name, args }).await? else {
        return Err(Error::internal("the host answered a tool call with something else").into());
    };
    Ok(Json(serde_json::to_value(result).map_err(|e| Error::internal("unserializable result").with_source(e))?))
}

/// `GET /api/v1/runs`: the runs going on.
async fn list_runs(State(api): State<Api>) -> Result<Json<Reply>, ApiError> {
    Ok(Json(api.host.handle(Op::ListRuns).await?))
}

/// The body of `POST /api/v1/runs`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RunBody {
    /// The task, in the user's words.
    pub text: String,
    /// Go on with this conversation (else a new one).
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// Answer the run's events as a server-sent event stream (`data:` lines,
    /// each one JSON event, until the run ends) instead of its ids.
    #[serde(default)]
    pub stream: bool,
}

/// `POST /api/v1/runs`: start a run on the saved model settings. Its
/// questions go to whoever answers first: this client
/// (`POST /api/v1/confirmations/{id}`) or the panel.
async fn start_run(State(api): State<Api>, Body(body): Body<RunBody>) -> Result<Response, ApiError> {
    let request = RunRequest { conversation_id: body.conversation_id, ..RunRequest::new(FrontEnd::Api, body.text) };
    // Subscribed before the start: no event of the run is missed.
    let events = api.host.subscribe();
    let info = api.host.start_run(request).await?;
    if body.stream {
        return Ok(sse(events, info.run_id).into_response());
    }
    Ok((StatusCode::CREATED, Json(info)).into_response())
}

/// `POST /api/v1/runs/{id}/resume`: go on with a run cut short (the process
/// serving it ended while it ran or waited), as `halley run --resume` does:
/// its steps cut short are failed, a call that may have taken effect keeps
/// its "interrupted" result and is not run again (the model is told), the
/// calls that never started run now, and the run goes on. 201 with its ids;
/// 404 for no such run, 400 for one that has ended.
async fn resume_run(State(api): State<Api>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let request = RunRequest { resume: Some(id), ..RunRequest::new(FrontEnd::Api, "") };
    let info = api.host.start_run(request).await?;
    Ok((StatusCode::CREATED, Json(info)).into_response())
}

/// `GET /api/v1/runs/{id}/events`: the run's events from now on, as
/// server-sent events, until it ends.
async fn run_events(State(api): State<Api>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let events = api.host.subscribe();
    let going = match api.host.handle(Op::ListRuns).await? {
        Reply::Runs { runs } => runs.iter().any(|r: &RunInfo| r.run_id == id),
        _ => false,
    };
    if !going {
        return Err(ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, format!("no run `{id}` is going on")));
    }
    Ok(sse(events, id).into_response())
}

/// `POST /api/v1/runs/{id}/stop`: cancel that run only.
async fn stop_run(State(api): State<Api>, Path(id): Path<String>) -> Result<Json<Reply>, ApiError> {
    Ok(Json(api.host.handle(Op::Stop { run_id: Some(id) }).await?))
}

/// The body of `POST /api/v1/confirmations/{id}`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct AnswerBody {
    pub approved: bool,
    /// Changed arguments the user approved instead (the tool's own fields).
    #[serde(default)]
    pub user_edits: serde_json::Map<String, Value>,
    /// Why (shown in the audit).
    #[serde(default)]
    pub reason: String,
}

/// `POST /api/v1/confirmations/{id}`: answer a question of a run.
async fn answer_confirmation(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(body): Body<AnswerBody>,
) -> Result<Json<Reply>, ApiError> {
    let op = Op::AnswerConfirmation { id, approved: body.approved, user_edits: body.user_edits, reason: body.reason };
    Ok(Json(api.host.handle(op).await?))
}

/// The body of `POST /api/letta/agents/tools`, as the user's document
/// writes it.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RegisterBody {
    /// The function's name: the `def` in the source.
    pub name: String,
    /// What the tool does, for the model (empty: the docstring's summary).
    #[serde(default)]
    pub description: String,
    /// Python source of one function with type hints and a Google-style
    /// docstring (`Args:`). Parsed, never run.
    pub source_code: String,
    /// Each call is approved before the client runs it.
    #[serde(default)]
    pub default_requires_approval: bool,
    /// How long a call waits for the client's answer (default 120 s).
    #[serde(default)]
    pub timeout_seconds: Option<u32>,
}

/// A registered client tool, as the registration endpoints answer it;
/// `flagged`: the lines of its description and its parameters' that
/// address the assistant (withheld from the model).
fn client_tool_json(tool: &StoredToolView) -> Value {
    let spec = tool.spec.as_ref();
    serde_json::json!({
        "id": tool.id,
        "name": tool.name,
        "description": tool.description,
        "json_schema": spec.map_or(Value::Null, |s| s.parameters.clone()),
        "source_code": tool.source_code,
        "default_requires_approval": tool.requires_confirmation,
        "status": spec.map(|s| s.status),
        "flagged": tool.flagged,
        "created_at": tool.created_at,
        "updated_at": tool.updated_at,
    })
}

/// The tool named `name` in the store, if any ([`Op::StoredTool`]).
pub(super) async fn stored_tool(api: &Api, name: &str) -> Result<Option<StoredToolView>, ApiError> {
    match api.host.handle(Op::StoredTool { name: name.to_owned() }).await? {
        Reply::StoredTool { tool } => Ok(tool),
        _ => Err(unexpected("a stored tool")),
    }
}

/// The client tools in the store ([`Op::ListClientTools`]).
pub(super) async fn client_tools(api: &Api) -> Result<Vec<StoredToolView>, ApiError> {
    match api.host.handle(Op::ListClientTools).await? {
        Reply::ClientTools { tools } => Ok(tools),
        _ => Err(unexpected("the client tools")),
    }
}

/// The host answered an op with another reply than the op documents.
pub(super) fn unexpected(what: &str) -> ApiError {
    Error::internal(format!("the host did not answer with {what}")).into()
}

/// `POST /api/letta/agents/tools`: register a client tool from its Python
/// source, or replace the one of that name. 400 names what is wrong with
/// the source. Its calls go to the client named by `X-Halley-Client`
/// (none: `default`), on `GET /api/v1/clients/{client}/events`.
async fn register_client_tool(
    State(api): State<Api>,
    headers: axum::http::HeaderMap,
    Body(body): Body<RegisterBody>,
) -> Result<Response, ApiError> {
    let client = super::client_tools::client_key(&headers)?;
    let existed = stored_tool(&api, &body.name).await?.is_some();
    let op = Op::RegisterClientTool {
        name: body.name.clone(),
        description: body.description,
        source_code: body.source_code,
        requires_approval: body.default_requires_approval,
        client: Some(client),
        timeout_secs: body.timeout_seconds,
    };
    api.host.handle(op).await?;
    let tool = stored_tool(&api, &body.name).await?.ok_or_else(|| Error::internal("the tool was not stored"))?;
    let status = if existed { StatusCode::OK } else { StatusCode::CREATED };
    Ok((status, Json(client_tool_json(&tool))).into_response())
}

/// `GET /api/letta/agents/tools`: the client tools registered.
async fn list_client_tools(State(api): State<Api>) -> Result<Json<Value>, ApiError> {
    let tools: Vec<Value> = client_tools(&api).await?.iter().map(client_tool_json).collect();
    Ok(Json(serde_json::json!({"tools": tools})))
}

/// `DELETE /api/letta/agents/tools/{name}`.
async fn delete_client_tool(State(api): State<Api>, Path(name): Path<String>) -> Result<Json<Reply>, ApiError> {
    Ok(Json(api.host.handle(Op::UnregisterTool { name }).await?))
}

/// The events of run `run_id` as server-sent events: one JSON event per
/// `data:` line (no `event:` names, which some clients skip), ending with
/// the run's end.
fn sse(
    events: broadcast::Receiver<Event>,
    run_id: String,
) -> axum::response::Sse<impl Stream<Item = Result<Sse, Infallible>>> {
    let state = Some((events, run_id, HashSet::<String>::new()));
    let stream = futures::stream::unfold(state, |state| async move {
        let (mut events, run_id, mut asked) = state?;
        loop {
            let event = match events.recv().await {
                Ok(e) => e,
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!("api: a client missed {n} events of run {run_id}");
                    continue;
                }
                Err(RecvError::Closed) => return None,
            };
            let (mine, last) = match &event {
                Event::Agent { run_id: r, .. } => (r == &run_id, false),
                Event::RunEnded { run_id: r, .. } => (r == &run_id, r == &run_id),
                Event::ConfirmationWaiting { request } => {
                    let mine = request.run_id.as_deref() == Some(run_id.as_str());
                    if mine {
                        asked.insert(request.id.clone());
                    }
                    (mine, false)
                }
                Event::ConfirmationClosed { id, .. } => (asked.remove(id), false),
                Event::ChallengeWaiting { request, .. } => (request.run_id.as_deref() == Some(run_id.as_str()), false),
                _ => (false, false),
            };
            if !mine {
                continue;
            }
            let data = serde_json::to_string(&event).unwrap_or_else(|_| "{}".to_owned());
            let next = if last { None } else { Some((events, run_id, asked)) };
            return Some((Ok(Sse::default().data(data)), next));
        }
    });
    axum::response::Sse::new(stream).keep_alive(KeepAlive::default())
}
