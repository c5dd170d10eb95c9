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
use super::agents::{letta_agent, no_agent};
use super::follow::{Follow, Out};
use super::said::{MessagesBody, read_messages};
use super::{agent_key, bad, letta_error};
use crate::builtin::client::ClientAnswer;
use crate::context::FrontEnd;
use crate::error::{Error, ErrorCode};
use crate::gate::{ConfirmationRequest, Confirmer};
use crate::host::{Caller, Host};
use crate::protocol::{Event, Op, Reply};
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
    if letta_agent(&api, &agent_id).await?.is_none() {
        return Ok(no_agent(&agent_id));
    }
    let said = match read_messages(&body) {
        Ok(said) => said,
        Err(message) => return Ok(letta_error(StatusCode::BAD_REQUEST, ErrorCode::InvalidArguments, message)),
    };
    for tool in body.client_tools.iter().flatten() {
        let op = Op::RegisterClientSchema {
            name: tool.name.clone(),
            description: tool.description.clone().unwrap_or_default(),
            parameters: tool.parameters.clone(),
        };
        api.host.handle(op).await?;
    }
    let calls = api.host.client_calls();
    let key = agent_key(&agent_id);
    // Listening before anything moves: no call of the run is missed.
    let listener = calls.listen(&key);
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
        let Some(run_id) = calls.run_of(&key) else {
            return Ok(bad("no run of this agent waits for tool results"));
        };
        for (id, answer) in answers {
            match calls.answer(&id, answer) {
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
        if !calls.claim_run(&key) {
            return Ok(letta_error(
                StatusCode::CONFLICT,
                ErrorCode::InvalidArguments,
                "the agent is still answering the previous message",
            ));
        }
        match start(&api, &agent_id, text, body.max_steps).await {
            Ok(run_id) => {
                calls.set_run(&key, Some(&run_id));
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
                        host.client_calls().run_ended(&key, &run_id2);
                    });
                } else {
                    calls.run_ended(&key, &run_id);
                }
                run_id
            }
            Err(e) => {
                calls.set_run(&key, None);
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

/// Start the agent's run on `text` ([`Op::StartLettaRun`]), its questions
/// asked of [`LettaConfirmer`].
async fn start(api: &Api, agent_id: &str, text: String, max_steps: Option<u32>) -> crate::error::Result<String> {
    let confirmer = Arc::new(LettaConfirmer { host: Arc::clone(&api.host) });
    let caller = Caller {
        front_end: FrontEnd::Api,
        confirmer,
        allowed_origins: Vec::new(),
        cancel: crate::context::Cancel::new(),
    };
    let op = Op::StartLettaRun { agent_id: agent_id.to_owned(), text, max_steps };
    match api.host.handle_as(&caller, op).await? {
        Reply::RunStarted { run_id, .. } => Ok(run_id),
        _ => Err(Error::internal("the host did not answer with a run")),
    }
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
            if self.host.is_client_tool(&request.tool) {
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
