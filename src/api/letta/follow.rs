//! Following a run for one messages request: its events as Letta messages,
//! the approval requests of waiting client calls, the stop reason and usage.

use std::collections::HashMap;

use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use super::super::Api;
use super::agent_key;
use crate::builtin::client::{ClientCall, Listener};
use crate::protocol::{AgentEvent, Event, Op, Reply, RunStatus};
use crate::tools::ResultStatus;

pub(super) enum Out {
    Message(Value),
    Done,
}

/// Follows one run for one request: its events become Letta messages
/// until it ends (`end_turn`, `error`, `cancelled`) or a client call waits
/// (`requires_approval`). Runs to that point even when the requester has
/// gone, so the agent's state stays right.
pub(super) struct Follow {
    pub(super) api: Api,
    pub(super) agent_id: String,
    pub(super) run_id: String,
    pub(super) listener: Listener,
    pub(super) events: broadcast::Receiver<Event>,
    pub(super) out: mpsc::UnboundedSender<Out>,
    pub(super) handed: HashMap<String, Vec<String>>,
}

impl Follow {
    fn emit(&self, message: Value) {
        let _ = self.out.send(Out::Message(message));
    }

    pub(super) async fn run(mut self) {
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
                        waiting = self.api.host.client_calls().waiting_for(&agent_key(&self.agent_id));
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
                    self.api.host.client_calls().run_ended(&agent_key(&self.agent_id), &self.run_id);
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
        let usage = self.api.host.handle(Op::RunUsage { run_id: self.run_id.clone() }).await;
        let (prompt, completion, steps) = match usage {
            Ok(Reply::RunUsage { prompt_tokens, completion_tokens, steps }) => {
                (prompt_tokens, completion_tokens, steps)
            }
            _ => (0, 0, 0),
        };
        self.emit(json!({
            "message_type": "usage_statistics",
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "step_count": steps,
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
        let is_client = |name: &str| self.api.host.is_client_tool(name);
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
