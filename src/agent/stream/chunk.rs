//! One streamed chunk read leniently from any JSON value: choice 0's delta
//! (content, tool-call fragments, finish reason), usage, the model id and an
//! error the server reported in the stream.

use serde::Deserialize;
use serde_json::Value;

use super::Usage;

/// One streamed chunk, read leniently from any JSON value (`byot` type for
/// async-openai's stream). A whole non-streamed response (`message` instead
/// of `delta`) reads the same way.
#[derive(Debug, Default, Deserialize)]
#[serde(from = "Value")]
pub struct Chunk {
    pub model: Option<String>,
    /// The delta of choice 0 (other choices are ignored), if the chunk has one.
    pub delta: Option<Delta>,
    pub usage: Option<Usage>,
    /// An error the server reported inside the stream.
    pub error: Option<String>,
}

#[derive(Debug, Default)]
pub struct Delta {
    pub content: Option<String>,
    pub tool_calls: Vec<ToolCallDelta>,
    pub finish_reason: Option<String>,
}

#[derive(Debug, Default)]
pub struct ToolCallDelta {
    pub index: Option<u64>,
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: Option<String>,
}

impl From<Value> for Chunk {
    fn from(mut v: Value) -> Self {
        let error = v.get("error").filter(|e| !e.is_null()).map(error_text);
        let model = text(v.get("model"));
        let usage = v.get("usage").and_then(usage);
        let choice = match v.get_mut("choices") {
            Some(Value::Array(choices)) => {
                let pos = choices.iter().position(|c| c.get("index").and_then(number).unwrap_or(0) == 0);
                pos.map(|i| choices.swap_remove(i))
            }
            _ => None,
        };
        Chunk { model, delta: choice.map(delta), usage, error }
    }
}

fn delta(mut choice: Value) -> Delta {
    let finish_reason = text(choice.get("finish_reason"));
    let mut body = match choice.get_mut("delta").filter(|d| d.is_object()) {
        Some(d) => d.take(),
        None => choice.get_mut("message").map(Value::take).unwrap_or(Value::Null),
    };
    let content = match body.get_mut("content").map(Value::take) {
        Some(Value::String(s)) => Some(s),
        // Content parts: keep their text.
        Some(Value::Array(parts)) => {
            Some(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<String>())
        }
        _ => None,
    };
    let mut tool_calls: Vec<ToolCallDelta> = match body.get_mut("tool_calls").map(Value::take) {
        Some(Value::Array(calls)) => calls.into_iter().map(tool_call_delta).collect(),
        Some(call @ Value::Object(_)) => vec![tool_call_delta(call)],
        _ => Vec::new(),
    };
    // The legacy single `function_call` field.
    if let Some(f) = body.get_mut("function_call").filter(|f| f.is_object()) {
        tool_calls.push(ToolCallDelta {
            index: None,
            id: None,
            name: text(f.get("name")),
            arguments: f.get_mut("arguments").map(Value::take).and_then(arguments_text),
        });
    }
    Delta { content: content.filter(|c| !c.is_empty()), tool_calls, finish_reason }
}

fn tool_call_delta(mut call: Value) -> ToolCallDelta {
    let (name, arguments) = match call.get_mut("function") {
        Some(f) => (text(f.get("name")), f.get_mut("arguments").map(Value::take).and_then(arguments_text)),
        None => (text(call.get("name")), call.get_mut("arguments").map(Value::take).and_then(arguments_text)),
    };
    ToolCallDelta { index: call.get("index").and_then(number), id: text(call.get("id")), name, arguments }
}

/// Arguments are text; a server that sends a JSON object gets it serialized.
fn arguments_text(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// A non-empty string, or a number/bool written as text.
fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A non-negative integer, also when sent as a string or a float.
fn number(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn usage(v: &Value) -> Option<Usage> {
    if !v.is_object() {
        return None;
    }
    let count = |k: &str| v.get(k).and_then(number).unwrap_or(0);
    Some(Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens") })
}

fn error_text(e: &Value) -> String {
    let msg = match e {
        Value::String(s) => Some(s.clone()),
        other => text(other.get("message")).or_else(|| Some(other.to_string())),
    };
    msg.unwrap_or_default()
}
