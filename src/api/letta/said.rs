//! What a messages request says: its body, and the user text or the
//! answers to waiting client calls read from its Letta messages.

use serde::Deserialize;
use serde_json::Value;

use crate::builtin::client::ClientAnswer;

/// The body of `POST /v1/agents/{id}/messages` (the fields used here;
/// others are ignored).
#[derive(Debug, Deserialize)]
pub(super) struct MessagesBody {
    #[serde(default)]
    messages: Option<Vec<Value>>,
    /// `input`: a user message (a string or content parts).
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    pub(super) streaming: Option<bool>,
    #[serde(default)]
    pub(super) client_tools: Option<Vec<ClientToolBody>>,
    #[serde(default)]
    pub(super) max_steps: Option<u32>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ClientToolBody {
    pub(super) name: String,
    #[serde(default)]
    pub(super) description: Option<String>,
    #[serde(default)]
    pub(super) parameters: Option<Value>,
}

/// What a request's messages say: user text, or answers to waiting calls.
#[derive(Debug, Default)]
pub(super) struct Said {
    pub(super) text: Vec<String>,
    pub(super) answers: Vec<(String, ClientAnswer)>,
    /// `approval` with `approve` and no list: for every waiting call.
    pub(super) approve_all: Option<(bool, String)>,
}

pub(super) fn read_messages(body: &MessagesBody) -> Result<Said, String> {
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
