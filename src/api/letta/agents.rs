//! `/v1/agents/`: Letta agents (rows of `agents` marked `letta`), their
//! `AgentState` shape, and the model their runs use.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::super::routes::Body;
use super::super::{Api, ApiError};
use super::letta_error;
use crate::agent::ModelFlags;
use crate::error::ErrorCode;
use crate::host::RunModel;
use crate::store::agents::{AgentRow, NewAgent};

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
pub(super) async fn create_agent(State(api): State<Api>, Body(body): Body<AgentBody>) -> Result<Response, ApiError> {
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
pub(super) async fn get_agent(State(api): State<Api>, Path(id): Path<String>) -> Result<Response, ApiError> {
    match letta_agent(&api, &id).await? {
        Some(row) => Ok(Json(agent_json(&row)).into_response()),
        None => Ok(no_agent(&id)),
    }
}

/// An agent made over this API (Halley's own agent is not one).
pub(super) async fn letta_agent(api: &Api, id: &str) -> Result<Option<AgentRow>, ApiError> {
    let row = api.host.core().store().agents().get(id).await?;
    Ok(row.filter(|r| r.llm_config.get("letta").and_then(Value::as_bool) == Some(true)))
}

pub(super) fn no_agent(id: &str) -> Response {
    letta_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, format!("no agent `{id}`"))
}

/// The model of an agent's runs: its `model` handle (`provider/model`, or
/// a model name) when the saved settings know it (their model, or their
/// preset's provider), else the saved settings as they are.
pub(super) fn run_model(handle: Option<&str>, settings: &crate::protocol::Settings) -> RunModel {
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
