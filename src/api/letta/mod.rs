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

mod agents;
mod follow;
mod messages;
mod said;
mod tools;

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use super::Api;
use crate::error::ErrorCode;
use agents::{create_agent, get_agent};
use messages::{messages, messages_stream};
use tools::{create_tool, list_tools, upsert_tool};

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
pub(super) fn agent_key(agent_id: &str) -> String {
    crate::host::letta::client_key(agent_id)
}

/// A Letta-style error: a status, `{"detail": ...}` as Letta answers, plus
/// Halley's `error` object; 409s say `x-should-retry: false`.
pub(super) fn letta_error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    let message = message.into();
    let body = json!({"detail": message, "error": {"code": code.as_str(), "message": message}});
    let mut response = (status, Json(body)).into_response();
    if status == StatusCode::CONFLICT {
        response.headers_mut().insert("x-should-retry", HeaderValue::from_static("false"));
    }
    response
}

pub(super) fn bad(message: impl Into<String>) -> Response {
    letta_error(StatusCode::BAD_REQUEST, ErrorCode::InvalidArguments, message)
}
