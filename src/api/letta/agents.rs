//! `/v1/agents/`: Letta agents (rows of `agents` marked `letta`, through
//! the host's ops) in their `AgentState` shape.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::super::routes::{Body, unexpected};
use super::super::{Api, ApiError};
use super::letta_error;
use crate::error::ErrorCode;
use crate::protocol::{LettaAgentView, Op, Reply};

#[derive(Debug, Deserialize)]
pub(super) struct AgentBody {
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
fn agent_json(agent: &LettaAgentView) -> Value {
    let model = agent.config.get("model").cloned().unwrap_or(Value::Null);
    json!({
        "id": agent.id,
        "name": agent.name,
        "system": agent.system,
        "agent_type": "letta_v1_agent",
        "model": model,
        "tools": agent.config.get("tools").cloned().unwrap_or_else(|| json!([])),
        "created_at": agent.created_at,
        "updated_at": agent.updated_at,
        "tags": [],
        "metadata": {},
        "memory": {"blocks": []},
        "blocks": [],
        "sources": [],
        "llm_config": {"model": model, "model_endpoint_type": "openai", "context_window": 32000},
        "embedding_config": {"embedding_model": "none", "embedding_endpoint_type": "openai", "embedding_dim": 0},
    })
}

/// The agent a reply carries.
fn agent_of(reply: Reply) -> Result<LettaAgentView, ApiError> {
    match reply {
        Reply::LettaAgent { agent } => Ok(agent),
        _ => Err(unexpected("an agent")),
    }
}

/// `POST /v1/agents/`: a new agent.
pub(super) async fn create_agent(State(api): State<Api>, Body(body): Body<AgentBody>) -> Result<Response, ApiError> {
    let op = Op::CreateLettaAgent { name: body.name, model: body.model, system: body.system, tools: body.tools };
    let agent = agent_of(api.host.handle(op).await?)?;
    Ok(Json(agent_json(&agent)).into_response())
}

/// `GET /v1/agents/{id}`.
pub(super) async fn get_agent(State(api): State<Api>, Path(id): Path<String>) -> Result<Response, ApiError> {
    match letta_agent(&api, &id).await? {
        Some(agent) => Ok(Json(agent_json(&agent)).into_response()),
        None => Ok(no_agent(&id)),
    }
}

/// An agent made over this API (Halley's own agent is not one).
pub(super) async fn letta_agent(api: &Api, id: &str) -> Result<Option<LettaAgentView>, ApiError> {
    match api.host.handle(Op::GetLettaAgent { id: id.to_owned() }).await {
        Ok(reply) => agent_of(reply).map(Some),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

pub(super) fn no_agent(id: &str) -> Response {
    letta_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, format!("no agent `{id}`"))
}
