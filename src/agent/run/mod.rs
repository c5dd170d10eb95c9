//! The tool-use loop: the model proposes tool calls as JSON (in
//! `tool_calls`, or written in its text: `agent::textcalls`); Halley
//! validates, gates and runs them; results go back to the model (page
//! content fenced as data); the model writes the answer, streamed. Every
//! run, step, tool call and message is recorded in the store. A run can be
//! cancelled at any point; it pauses while the user is asked and goes on
//! from there; a run cut short (the process ended) can be resumed.
//!
//! `turn.rs` is the loop itself, `guard.rs` its guard against errors in a
//! row and repeated calls, `cut.rs` what it does with a reply cut at the
//! length limit, `prompt.rs` what the model reads.

mod cut;
mod guard;
mod journal;
mod prompt;
mod turn;

use serde_json::Value;

use super::ModelClient;
use super::calls::{self, Prepared};
use crate::builtin::memory::blocks as memory;
use crate::context::CallContext;
use crate::core::Core;
use crate::error::{Error, ErrorCode, Result};
use crate::store::messages::{NewMessage, Role};
use crate::store::runs::{RunRow, RunStatus, StopReason};

pub use crate::protocol::AgentEvent;
pub(crate) use journal::Journal;
use prompt::history_message;
pub use prompt::{offered_definitions, tool_definitions};
use turn::Loop;
pub(crate) use turn::cancelled_stop;

/// Limits of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLimits {
    /// Model turns at most.
    pub max_steps: u32,
    /// Tool errors in a row before the run gives up.
    pub max_consecutive_failures: u32,
    /// The same call (tool and arguments) this many times in a row: the
    /// model is told; once more and the run stops.
    pub repeat_nudge_after: u32,
    /// Prompt tokens at most (estimated): older tool outputs are elided,
    /// then the oldest turns left out, to stay under it.
    pub context_tokens: usize,
    /// Send screenshots to the model: `None` guesses from the model's name.
    pub images: Option<bool>,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            max_steps: 20,
            max_consecutive_failures: 5,
            repeat_nudge_after: 3,
            context_tokens: 24_000,
            images: None,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub run_id: String,
    /// The conversation the run belongs to (pass it to the next run to go on).
    pub conversation_id: String,
    pub status: RunStatus,
    pub stop_reason: StopReason,
    pub answer: Option<String>,
    pub steps: u32,
}

/// Run `task` to the end, in a new conversation or, with `conversation`,
/// going on with an earlier one (its messages are the model's history), in
/// the context `cx` (who answers, cancellation, model helpers, allowed
/// origins; the run's id is set here).
#[allow(clippy::too_many_arguments)]
pub async fn run_task_with(
    core: &Core,
    client: &ModelClient,
    model: &str,
    task: &str,
    conversation: Option<&str>,
    limits: &RunLimits,
    cx: &CallContext,
    on_event: impl FnMut(AgentEvent),
) -> Result<RunOutcome> {
    let begun = begin_run(core, task, conversation).await?;
    drive_run(core, client, model, begun, limits, cx, on_event).await
}

/// A run recorded (its conversation, its row and the user's message) but
/// not driven yet: a front end can tell its ids at once, before the model
/// is even reached.
#[derive(Debug, Clone)]
pub struct BegunRun {
    pub run_id: String,
    pub conversation_id: String,
    agent_id: String,
    task: String,
    /// The conversation's messages before this task, as the model reads them.
    history: Vec<Value>,
    /// Open tabs the task is about, read before the first turn.
    tabs: Vec<String>,
}

impl BegunRun {
    /// The task is about these open tabs (the panel's "Ask about this
    /// page", `@tab`): each is read with `browser_switch_tab` and
    /// `browser_read_text` before the model's first turn, as if it had
    /// called them, so the page reaches it fenced like any page text and the
    /// user sees the reads as steps.
    pub fn about_tabs(mut self, tabs: Vec<String>) -> BegunRun {
        self.tabs = tabs;
        self
    }
}

/// Record the start of a run on `task`, in a new conversation or going on
/// with `conversation` (`not_found` when there is no such conversation).
pub async fn begin_run(core: &Core, task: &str, conversation: Option<&str>) -> Result<BegunRun> {
    let store = core.store();
    let agent_id = memory::default_agent(store).await?;
    let (conversation, history) = match conversation {
        Some(id) => {
            let found = store.conversations().get(id).await?.ok_or_else(|| {
                Error::new(ErrorCode::NotFound, format!("no conversation `{id}`; `halley runs list` shows recent ones"))
            })?;
            (found, history_of(core, id).await?)
        }
        None => {
            let title: String = task.chars().take(80).collect();
            (store.conversations().create(&agent_id, &title).await?, Vec::new())
        }
    };
    let run = store.runs().create(&agent_id, Some(&conversation.id)).await?;
    store
        .messages()
        .append(&NewMessage {
            conversation_id: conversation.id.clone(),
            run_id: Some(run.id.clone()),
            role: Role::User,
            content: Some(task.to_owned()),
            tool_calls: None,
            tool_call_id: None,
            tool_name: None,
        })
        .await?;
    Ok(BegunRun {
        run_id: run.id,
        conversation_id: conversation.id,
        agent_id,
        task: task.to_owned(),
        history,
        tabs: Vec::new(),
    })
}

/// Drive a run [`begin_run`] recorded to its end, in the context `cx`.
pub async fn drive_run(
    core: &Core,
    client: &ModelClient,
    model: &str,
    begun: BegunRun,
    limits: &RunLimits,
    cx: &CallContext,
    mut on_event: impl FnMut(AgentEvent),
) -> Result<RunOutcome> {
    let BegunRun { run_id, conversation_id, agent_id, task, history, tabs } = begun;
    let ids = (run_id, conversation_id, agent_id);
    let mut loop_ = Loop::start(core, client, model, limits, cx, ids, history);
    loop_.push_task(&task);
    loop_.read_tabs(&tabs, &mut on_event).await?;
    loop_.drive(&mut on_event).await
}

/// Run `run_id` and its conversation, when it can be resumed: it exists,
/// has not ended and belongs to a conversation.
pub async fn resumable(core: &Core, run_id: &str) -> Result<(RunRow, String)> {
    let run = core
        .store()
        .runs()
        .get(run_id)
        .await?
        .ok_or_else(|| Error::not_found(format!("no run `{run_id}`; `halley runs list` shows them")))?;
    if run.status.is_terminal() {
        return Err(Error::invalid_arguments(format!(
            "run {run_id} has already ended ({}); go on with its conversation instead: --conversation {}",
            serde_json::to_value(run.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            run.conversation_id.as_deref().unwrap_or("?")
        )));
    }
    let conversation_id = run
        .conversation_id
        .clone()
        .ok_or_else(|| Error::invalid_arguments(format!("run {run_id} has no conversation to resume")))?;
    Ok((run, conversation_id))
}

/// Go on with a run that was cut short (the process ended while it ran or
/// waited for the user): calls the model had asked for and that never ran
/// are run now (and gated again), then the loop goes on.
pub async fn resume_run(
    core: &Core,
    client: &ModelClient,
    model: &str,
    run_id: &str,
    limits: &RunLimits,
    cx: &CallContext,
    mut on_event: impl FnMut(AgentEvent),
) -> Result<RunOutcome> {
    let store = core.store();
    let (run, conversation_id) = resumable(core, run_id).await?;
    store.runs().set_status(run_id, RunStatus::Running, None).await?;
    let rows = store.messages().for_conversation(&conversation_id).await?;
    let steps = store.steps().for_run(run_id).await?;
    let ids = (run.id.clone(), conversation_id.clone(), run.agent_id.clone());
    settle_interrupted(core, run_id, &rows, &steps).await?;
    let history = rows.iter().map(history_message);
    let mut loop_ = Loop::start(core, client, model, limits, cx, ids, history);
    loop_.steps = u32::try_from(steps.len()).unwrap_or(0);
    // The model's answer was stored, the process ended before the run was
    // marked completed: that answer ends it (asked again, the model could
    // act again on a task already done).
    if let Some(answer) = final_answer(&rows, run_id) {
        return loop_.finish((RunStatus::Completed, StopReason::EndTurn), Some(answer), &mut on_event).await;
    }
    // The calls of the last assistant turn that have no result yet.
    let pending: Vec<Prepared> = match rows.iter().rposition(|m| m.role == Role::Assistant) {
        Some(i) => {
            let answered: Vec<&str> = rows[i + 1..].iter().filter_map(|m| m.tool_call_id.as_deref()).collect();
            let calls = rows[i].tool_calls.as_ref().and_then(Value::as_array).cloned().unwrap_or_default();
            calls
                .iter()
                .filter_map(|c| {
                    let out = super::ToolCallOut {
                        id: c.get("id")?.as_str()?.to_owned(),
                        name: c.pointer("/function/name")?.as_str()?.to_owned(),
                        arguments: c.pointer("/function/arguments")?.as_str()?.to_owned(),
                    };
                    (!answered.contains(&out.id.as_str())).then(|| calls::prepare(&out))
                })
                .collect()
        }
        None => Vec::new(),
    };
    if !pending.is_empty() {
        let step_id = steps.last().map(|s| s.id.clone());
        if let Some(stop) = loop_.run_calls(pending, step_id.as_deref(), &mut on_event).await? {
            return loop_.finish(stop, None, &mut on_event).await;
        }
    }
    loop_.drive(&mut on_event).await
}

/// The run's final answer when it is the conversation's last message: an
/// assistant message of this run that calls no tool.
fn final_answer(rows: &[crate::store::messages::MessageRow], run_id: &str) -> Option<String> {
    let last = rows.last()?;
    let done = last.role == Role::Assistant
        && last.run_id.as_deref() == Some(run_id)
        && last.tool_calls.as_ref().and_then(Value::as_array).is_none_or(Vec::is_empty);
    done.then(|| last.content.clone().unwrap_or_default())
}

/// What the process was doing when it ended, recorded before a run goes
/// on: a step cut short failed; a call that may change something and left
/// only its placeholder result (see `turn::interrupted_result`) gets its
/// row in the timeline as interrupted (`cancelled`), and is not run again.
async fn settle_interrupted(
    core: &Core,
    run_id: &str,
    rows: &[crate::store::messages::MessageRow],
    steps: &[crate::store::steps::StepRow],
) -> Result<()> {
    use crate::store::steps::{StepOutcome, StepStatus};
    use crate::store::tool_calls::{NewToolCall, ToolCallStatus};
    let store = core.store();
    for step in steps.iter().filter(|s| s.status == StepStatus::Running) {
        let outcome = StepOutcome {
            status: StepStatus::Failed,
            prompt_tokens: None,
            completion_tokens: None,
            latency_ms: None,
            error: Some("Halley stopped (its process ended) during this step".to_owned()),
        };
        store.steps().finish(&step.id, &outcome).await?;
    }
    let Some(i) = rows.iter().rposition(|m| m.role == Role::Assistant) else { return Ok(()) };
    let recorded = store.tool_calls().for_run(run_id).await?;
    let registry = core.registry();
    let step_id = steps.last().map(|s| s.id.as_str());
    let calls = rows[i].tool_calls.as_ref().and_then(Value::as_array).cloned().unwrap_or_default();
    for answered in rows[i + 1..].iter().filter(|m| m.role == Role::Tool) {
        let Some(call_id) = answered.tool_call_id.as_deref() else { continue };
        if recorded.iter().any(|r| r.call_id == call_id) {
            continue;
        }
        let Some(call) = calls.iter().find(|c| c.get("id").and_then(Value::as_str) == Some(call_id)) else { continue };
        let name = answered.tool_name.clone().unwrap_or_default();
        let arguments = call
            .pointer("/function/arguments")
            .and_then(Value::as_str)
            .and_then(|a| serde_json::from_str(a).ok())
            .unwrap_or(Value::Null);
        let executor = registry.get(&name).map_or("none", |s| calls::executor_name(s.executor));
        store
            .tool_calls()
            .insert(&NewToolCall {
                run_id,
                step_id,
                call_id,
                tool: &name,
                arguments: &arguments,
                reasoning: None,
                executor,
                status: ToolCallStatus::Cancelled,
                error_code: Some(ErrorCode::Cancelled),
                duration_ms: 0,
                started_at: &answered.created_at,
            })
            .await?;
    }
    Ok(())
}

/// A conversation's stored messages as the model reads them again.
async fn history_of(core: &Core, conversation: &str) -> Result<Vec<Value>> {
    Ok(core.store().messages().for_conversation(conversation).await?.iter().map(history_message).collect())
}
