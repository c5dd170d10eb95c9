//! What Letta's routes of the local API ask of the host: the client tools
//! kept in the store, Letta agents (rows of `agents` marked `letta`), an
//! agent's runs, the client-call switchboard their requests follow, and a
//! run's usage.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Caller, Host, RunModel, RunRequest};
use crate::agent::ModelFlags;
use crate::builtin::client::ClientCalls;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::protocol::{LettaAgentView, Reply, Settings, StoredToolView};
use crate::store::Store;
use crate::store::agents::{AgentPatch, AgentRow, NewAgent};
use crate::store::tools::ToolRow;
use crate::tools::Executor;

/// The client key of a Letta agent's requester: every client-tool call of
/// the agent's runs goes to whoever talks to the agent.
pub fn client_key(agent_id: &str) -> String {
    format!("letta:{agent_id}")
}

impl Host {
    /// The calls of client tools waiting for their clients, and which run
    /// of a Letta agent may go on: what a client's event stream or a Letta
    /// messages request listens to and answers.
    pub fn client_calls(&self) -> &Arc<ClientCalls> {
        self.core.client_calls()
    }

    /// Whether `name` is a client tool (its calls are run by a client) in
    /// the registry now.
    pub fn is_client_tool(&self, name: &str) -> bool {
        self.core.registry().get(name).is_some_and(|t| t.executor == Executor::Client)
    }

    /// Start agent `agent_id`'s run on `text` for `caller` (its confirmer
    /// answers the run's questions): in the agent's conversation, recorded
    /// on the agent when this run made it.
    pub(super) async fn start_letta_run(
        self: &Arc<Self>,
        caller: &Caller,
        agent_id: &str,
        text: String,
        max_steps: Option<u32>,
    ) -> Result<Reply> {
        let store = self.core.store();
        let agent = letta_agent(store, agent_id).await?;
        let conversation = agent.llm_config.get("conversation_id").and_then(Value::as_str).map(str::to_owned);
        let handle = agent.llm_config.get("model").and_then(Value::as_str);
        let mut request = RunRequest {
            conversation_id: conversation.clone(),
            client: Some(client_key(&agent.id)),
            confirmer: Some(Arc::clone(&caller.confirmer)),
            allowed_origins: caller.allowed_origins.clone(),
            model: run_model(handle, &self.settings().await),
            ..RunRequest::new(caller.front_end, text)
        };
        if let Some(steps) = max_steps.filter(|s| *s > 0) {
            request.limits.max_steps = steps;
        }
        let info = self.start_run(request).await?;
        if conversation.as_deref() != Some(info.conversation_id.as_str()) {
            let mut config = agent.llm_config.clone();
            config["conversation_id"] = Value::String(info.conversation_id.clone());
            let patch = AgentPatch { llm_config: Some(config), ..AgentPatch::default() };
            store.agents().update(&agent.id, &patch).await?;
        }
        Ok(Reply::RunStarted { run_id: info.run_id, conversation_id: info.conversation_id })
    }
}

/// A tool as kept in the store, with its declaration in `core`'s registry.
fn stored_tool_view(row: ToolRow, core: &Core) -> StoredToolView {
    let spec = core.registry().get(&row.name).cloned();
    // A client tool's words are the client's: flagged as they reach the model.
    let flagged = match &spec {
        Some(s) if crate::gate::foreign::is_foreign(s) => {
            crate::gate::foreign::flags(&s.name, &s.description, &s.parameters)
        }
        _ => Vec::new(),
    };
    StoredToolView {
        flagged,
        id: row.id,
        name: row.name,
        description: row.description,
        executor: row.executor,
        source_code: row.source_code,
        requires_confirmation: row.requires_confirmation,
        created_at: row.created_at,
        updated_at: row.updated_at,
        spec,
    }
}

/// The tool named `name` in the store, if any.
pub(super) async fn stored_tool(core: &Core, name: &str) -> Result<Reply> {
    let row = core.store().tools().get_by_name(name).await?;
    Ok(Reply::StoredTool { tool: row.map(|r| stored_tool_view(r, core)) })
}

/// The client tools in the store, by name.
pub(super) async fn client_tools(core: &Core) -> Result<Reply> {
    let rows = core.store().tools().list().await?;
    let tools =
        rows.into_iter().filter(|r| r.executor == Executor::Client).map(|r| stored_tool_view(r, core)).collect();
    Ok(Reply::ClientTools { tools })
}

/// Register (or replace) a client tool from a Letta request's JSON Schema.
pub(super) async fn register_client_schema(
    core: &Core,
    name: &str,
    description: &str,
    parameters: &Value,
) -> Result<Reply> {
    let tool = core.register_client_schema(name, description, parameters, None, false).await?;
    Ok(Reply::Tool { tool })
}

fn agent_view(row: AgentRow) -> LettaAgentView {
    LettaAgentView {
        id: row.id,
        name: row.name,
        system: row.system,
        config: row.llm_config,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// A new Letta agent; Halley's own agent is made first when there is none,
/// so it stays the oldest (the one its runs use).
pub(super) async fn create_agent(
    store: &Store,
    name: Option<String>,
    model: Option<String>,
    system: Option<String>,
    tools: Option<Vec<String>>,
) -> Result<Reply> {
    crate::builtin::memory::blocks::default_agent(store).await?;
    let name = name.unwrap_or_else(|| "letta-agent".to_owned());
    let llm_config = json!({"model": model, "tools": tools.unwrap_or_default(), "letta": true});
    let new = NewAgent { system: system.unwrap_or_default(), llm_config, ..NewAgent::named(&name) };
    let row = store.agents().create(&new).await?;
    Ok(Reply::LettaAgent { agent: agent_view(row) })
}

/// Agent `id`, made over Letta's API (Halley's own agent is not one).
async fn letta_agent(store: &Store, id: &str) -> Result<AgentRow> {
    let row = store.agents().get(id).await?;
    row.filter(|r| r.llm_config.get("letta").and_then(Value::as_bool) == Some(true))
        .ok_or_else(|| Error::not_found(format!("no agent `{id}`")))
}

pub(super) async fn agent(store: &Store, id: &str) -> Result<Reply> {
    Ok(Reply::LettaAgent { agent: agent_view(letta_agent(store, id).await?) })
}

/// The tokens a run's model calls used, and how many calls it made.
pub(super) async fn run_usage(store: &Store, run_id: &str) -> Result<Reply> {
    let steps = store.steps().for_run(run_id).await?;
    let prompt_tokens = steps.iter().filter_map(|s| s.prompt_tokens).sum();
    let completion_tokens = steps.iter().filter_map(|s| s.completion_tokens).sum();
    let steps = u32::try_from(steps.len()).unwrap_or(u32::MAX);
    Ok(Reply::RunUsage { prompt_tokens, completion_tokens, steps })
}

/// The model of an agent's runs: its `model` handle (`provider/model`, or
/// a model name) when the saved settings know it (their model, or their
/// preset's provider), else the saved settings as they are.
fn run_model(handle: Option<&str>, settings: &Settings) -> RunModel {
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
