//! `/v1/agents/{id}/messages`: a user message starts the agent's run, or
//! answers go to its waiting client calls; the answer is what the run does
//! next, as JSON or an SSE stream.

use std::collections::{BTreeSet, HashMap};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::Event as Sse;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use super::super::routes::Body;
use super::super::{Api, ApiError};
use super::agents::{letta_agent, no_agent, run_model};
use super::follow::{Follow, Out};
use super::said::{MessagesBody, read_messages};
use super::{agent_key, bad, letta_error};
use crate::builtin::client::ClientAnswer;
use crate::context::FrontEnd;
use crate::error::ErrorCode;
use crate::gate::{ConfirmationRequest, Confirmer};
use crate::host::{Host, RunRequest};
use crate::protocol::Event;
use crate::store::agents::{AgentPatch, AgentRow};
use crate::tools::Executor;
use crate::tools::catalogue::safety::ConfirmResultV1;

pub(super) async fn messages(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(body): Body<MessagesBody>,
) -> Result<Response, ApiError> {
    let streaming = body.streaming.unwrap_or(false);
    send(api, id, body, streaming).await
}

pub(super) async fn messages_stream(
    State(api): State<Api>,
    Path(id): Path<String>,
    Body(body): Body<MessagesBody>,
) -> Result<Response, ApiError> {
    send(api, id, body, true).await
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
