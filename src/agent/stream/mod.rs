//! Lenient reading of streamed chat-completion chunks and their assembly into
//! one [`Completion`]. Real servers differ from OpenAI's spec: tool calls
//! without `index`, unknown `finish_reason`s, content and tool calls in one
//! message, arguments split over many chunks (or sent as a JSON object). A
//! chunk is read from any JSON value; what does not fit is ignored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::raw::RawResponse;
use crate::error::{Error, ErrorCode, Result};

/// The most text (content plus tool-call arguments) one completion may
/// carry; past it the completion fails with `model_error`.
pub const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// What the stream shows as it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// A piece of the assistant's text.
    Token(String),
    /// The model started a tool call. `index` is the call's position in
    /// [`Completion::tool_calls`]; `id` is the id the completion will carry.
    ToolCallStarted { index: usize, id: String, name: String },
}

/// One finished assistant turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    pub content: String,
    pub tool_calls: Vec<ToolCallOut>,
    /// As the server sent it (`stop`, `tool_calls`, `length`, or anything else).
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
    /// The model id the server reported.
    pub model: Option<String>,
    /// The response as received, capped, for the provider trace (set by the
    /// client). Never serialized: it reaches the store only redacted,
    /// through `agent::trace`.
    #[serde(skip)]
    pub raw: RawResponse,
}

/// A tool call as the model made it. `arguments` is the raw text, possibly
/// not valid JSON: validating it is the caller's job.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallOut {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// Token counts the server reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

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

/// A tool call being assembled.
#[derive(Debug)]
struct Call {
    /// The `index` the server gave, used to route later fragments.
    index: Option<u64>,
    /// The `id` the server gave, used to route later fragments.
    server_id: Option<String>,
    /// The id the completion carries (the server's, or one made up when the
    /// call was announced without one).
    id: String,
    name: String,
    arguments: String,
    announced: bool,
}

/// Builds a [`Completion`] from chunks, emitting [`StreamEvent`]s as they come.
#[derive(Debug, Default)]
pub struct Assembler {
    content: String,
    calls: Vec<Call>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    model: Option<String>,
    bytes: usize,
}

impl Assembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one chunk. Fails on an error reported in the stream, or when the
    /// output passes [`MAX_OUTPUT_BYTES`].
    pub fn push(&mut self, chunk: Chunk, on_event: &mut impl FnMut(StreamEvent)) -> Result<()> {
        if let Some(message) = chunk.error {
            return Err(Error::new(
                ErrorCode::ModelError,
                format!("the model server reported an error in the stream: {}", clip(&message, 500)),
            ));
        }
        if chunk.model.is_some() {
            self.model = chunk.model;
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        let Some(delta) = chunk.delta else { return Ok(()) };
        if delta.finish_reason.is_some() {
            self.finish_reason = delta.finish_reason;
        }
        if let Some(text) = delta.content {
            self.grow(text.len(), "content")?;
            self.content.push_str(&text);
            on_event(StreamEvent::Token(text));
        }
        for call in delta.tool_calls {
            self.push_call(call, on_event)?;
        }
        Ok(())
    }

    fn grow(&mut self, len: usize, what: &str) -> Result<()> {
        self.bytes = self.bytes.saturating_add(len);
        if self.bytes > MAX_OUTPUT_BYTES {
            return Err(Error::new(
                ErrorCode::ModelError,
                format!(
                    "the model's {what} is too large (more than {} MB in one response)",
                    MAX_OUTPUT_BYTES / (1024 * 1024)
                ),
            ));
        }
        Ok(())
    }

    fn push_call(&mut self, delta: ToolCallDelta, on_event: &mut impl FnMut(StreamEvent)) -> Result<()> {
        let pos = self.route(&delta);
        let pos = match pos {
            Some(pos) => pos,
            // A fragment with neither a name nor arguments (`{"index": 0}`,
            // an id alone) starts no call: a call that stayed empty would be
            // dropped by `finish`, moving the calls after it away from the
            // index their `ToolCallStarted` announced.
            None if delta.name.is_none() && delta.arguments.is_none() => return Ok(()),
            None => {
                self.calls.push(Call {
                    index: delta.index,
                    server_id: None,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                    announced: false,
                });
                self.calls.len() - 1
            }
        };
        if let Some(args) = &delta.arguments {
            self.grow(args.len(), "tool-call arguments")?;
        }
        let Some(call) = self.calls.get_mut(pos) else { return Ok(()) };
        if call.server_id.is_none() {
            call.server_id = delta.id;
        }
        if let Some(name) = delta.name {
            // Some servers repeat the name in every fragment; a few split it.
            if name != call.name {
                call.name.push_str(&name);
            }
        }
        if let Some(args) = delta.arguments {
            call.arguments.push_str(&args);
        }
        if !call.announced && !call.name.is_empty() {
            call.announced = true;
            call.id = call.server_id.clone().unwrap_or_else(new_call_id);
            on_event(StreamEvent::ToolCallStarted { index: pos, id: call.id.clone(), name: call.name.clone() });
        }
        Ok(())
    }

    /// Which call a fragment continues: by `index` when present, else by `id`,
    /// else the last call; `None` starts a new call.
    fn route(&self, delta: &ToolCallDelta) -> Option<usize> {
        let new_id = |call: &Call| match (&delta.id, &call.server_id) {
            (Some(new), Some(old)) => new != old,
            _ => false,
        };
        if let Some(index) = delta.index {
            // The latest call with this index, unless the fragment carries a
            // different id and a name: some servers reuse index 0 for every call.
            let pos = self.calls.iter().rposition(|c| c.index == Some(index))?;
            let call = self.calls.get(pos)?;
            return (!(new_id(call) && delta.name.is_some())).then_some(pos);
        }
        let last = self.calls.len().checked_sub(1);
        if let Some(id) = &delta.id {
            let known = self.calls.iter().rposition(|c| c.server_id.as_deref() == Some(id.as_str()));
            // An id arriving late for a call that started without one.
            let late = last.filter(|&l| {
                delta.name.is_none() && self.calls.get(l).is_some_and(|c| c.server_id.is_none() && c.index.is_none())
            });
            return known.or(late);
        }
        let last = last?;
        let call = self.calls.get(last)?;
        // A fragment with a name and no index or id starts a new call, unless
        // the last call has no name yet.
        match &delta.name {
            Some(name) if !call.name.is_empty() && *name != call.name => None,
            _ => Some(last),
        }
    }

    /// The completion. Calls with neither a name nor arguments are dropped
    /// (none exists: such a fragment starts no call).
    pub fn finish(self) -> Completion {
        let tool_calls = self
            .calls
            .into_iter()
            .filter(|c| !c.name.is_empty() || !c.arguments.is_empty())
            .map(|c| {
                let id = if c.id.is_empty() { c.server_id.unwrap_or_else(new_call_id) } else { c.id };
                ToolCallOut { id, name: c.name, arguments: c.arguments }
            })
            .collect();
        Completion {
            content: self.content,
            tool_calls,
            finish_reason: self.finish_reason,
            usage: self.usage,
            model: self.model,
            raw: RawResponse::default(),
        }
    }
}

fn new_call_id() -> String {
    format!("call_{}", uuid::Uuid::new_v4().simple())
}

/// At most `max` bytes of `s` (on a char boundary), with an ellipsis when cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// Feed JSON chunks; return the completion and the events.
    fn assemble(chunks: &[Value]) -> (Result<Completion>, Vec<StreamEvent>) {
        let mut events = Vec::new();
        let mut asm = Assembler::new();
        for c in chunks {
            let chunk: Chunk = serde_json::from_value(c.clone()).unwrap();
            if let Err(e) = asm.push(chunk, &mut |e| events.push(e)) {
                return (Err(e), events);
            }
        }
        (Ok(asm.finish()), events)
    }

    fn delta(d: Value) -> Value {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m1", "choices": [{"index": 0, "delta": d, "finish_reason": null}]})
    }

    fn finish(reason: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    }

    fn call(id: &str, name: &str, args: &str) -> ToolCallOut {
        ToolCallOut { id: id.into(), name: name.into(), arguments: args.into() }
    }

    #[test]
    fn an_empty_fragment_moves_no_announced_call() {
        // Found by `make fuzz`: a first call whose `function` key was
        // garbled (an id, no name, no arguments) was dropped at the end, so
        // the second call was announced at index 1 but ended at index 0.
        let (c, events) = assemble(&[delta(json!({"tool_calls": [
            {"index": 0, "id": "function-call-1", "type": "function", "fun'ction": {"name": "normalize_compare"}},
            {"index": 1, "id": "function-call-2", "type": "function", "function": {"name": "files_list", "arguments": {}}}
        ]}))]);
        let c = c.unwrap();
        assert_eq!(c.tool_calls, vec![call("function-call-2", "files_list", "{}")]);
        assert_eq!(
            events,
            vec![StreamEvent::ToolCallStarted { index: 0, id: "function-call-2".into(), name: "files_list".into() }]
        );
    }

    #[test]
    fn text_with_usage() {
        let (c, events) = assemble(&[
            delta(json!({"role": "assistant", "content": ""})),
            delta(json!({"content": "Hel"})),
            delta(json!({"content": "lo"})),
            finish("stop"),
            json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}}),
        ]);
        assert_eq!(
            c.unwrap(),
            Completion {
                content: "Hello".into(),
                tool_calls: vec![],
                finish_reason: Some("stop".into()),
                usage: Some(Usage { prompt_tokens: 12, completion_tokens: 2 }),
                model: Some("m1".into()),
                raw: RawResponse::default(),
            }
        );
        assert_eq!(events, vec![StreamEvent::Token("Hel".into()), StreamEvent::Token("lo".into())]);
    }

    #[test]
    fn parallel_calls_keyed_by_index() {
        let (c, events) = assemble(&[
            delta(
                json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "search", "arguments": ""}}]}),
            ),
            delta(
                json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "open", "arguments": "{\"u"}}]}),
            ),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"q\":"}}]})),
            delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": "rl\":1}"}}]})),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"x\"}"}}]})),
            finish("tool_calls"),
        ]);
        let c = c.unwrap();
        assert_eq!(
            c.tool_calls,
            vec![call("call_a", "search", r#"{"q":"x"}"#), call("call_b", "open", r#"{"url":1}"#)]
        );
        assert_eq!(
            events,
            vec![
                StreamEvent::ToolCallStarted { index: 0, id: "call_a".into(), name: "search".into() },
                StreamEvent::ToolCallStarted { index: 1, id: "call_b".into(), name: "open".into() },
            ]
        );
    }

    #[test]
    fn calls_without_index_keyed_by_id_or_appended() {
        let (c, _) = assemble(&[
            // by id
            delta(json!({"tool_calls": [{"id": "a", "function": {"name": "one", "arguments": "{"}}]})),
            delta(json!({"tool_calls": [{"id": "b", "function": {"name": "two", "arguments": "["}}]})),
            delta(json!({"tool_calls": [{"id": "a", "function": {"arguments": "}"}}]})),
            // no id, no index: the last call
            delta(json!({"tool_calls": [{"function": {"arguments": "]"}}]})),
            // a new name without index or id: a new call
            delta(json!({"tool_calls": [{"function": {"name": "three", "arguments": "{}"}}]})),
        ]);
        let c = c.unwrap();
        assert_eq!(c.tool_calls.len(), 3);
        assert_eq!((c.tool_calls[0].id.as_str(), c.tool_calls[0].arguments.as_str()), ("a", "{}"));
        assert_eq!((c.tool_calls[1].id.as_str(), c.tool_calls[1].arguments.as_str()), ("b", "[]"));
        assert_eq!((c.tool_calls[2].name.as_str(), c.tool_calls[2].arguments.as_str()), ("three", "{}"));
        assert!(c.tool_calls[2].id.starts_with("call_"), "made-up id: {}", c.tool_calls[2].id);
        assert_eq!(c.finish_reason, None);
    }

    #[test]
    fn whole_call_in_one_chunk_without_index_and_reused_index() {
        // Ollama style: whole calls, no index, arguments as an object.
        let (c, _) = assemble(&[delta(json!({"tool_calls": [
            {"id": "c1", "function": {"name": "a", "arguments": {"x": 1}}},
            {"id": "c2", "function": {"name": "b", "arguments": "{}"}}
        ]}))]);
        assert_eq!(c.unwrap().tool_calls, vec![call("c1", "a", r#"{"x":1}"#), call("c2", "b", "{}")]);
        // Every call with index 0 but its own id and name.
        let (c, _) = assemble(&[
            delta(json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "a", "arguments": "{}"}}]})),
            delta(json!({"tool_calls": [{"index": 0, "id": "c2", "function": {"name": "b", "arguments": "{}"}}]})),
        ]);
        assert_eq!(c.unwrap().tool_calls, vec![call("c1", "a", "{}"), call("c2", "b", "{}")]);
    }

    #[test]
    fn content_and_tool_calls_in_one_message_both_kept() {
        let (c, events) = assemble(&[
            delta(
                json!({"content": "Let me look.", "tool_calls": [{"index": 0, "id": "k", "function": {"name": "look", "arguments": "{}"}}]}),
            ),
            finish("tool_calls"),
        ]);
        let c = c.unwrap();
        assert_eq!((c.content.as_str(), c.tool_calls.clone()), ("Let me look.", vec![call("k", "look", "{}")]));
        assert_eq!(events.len(), 2);
        // A whole non-streamed message reads the same way.
        let whole = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "x", "tool_calls": [{"id": "k", "type": "function", "function": {"name": "look", "arguments": "{}"}}]}}]});
        let (c, _) = assemble(&[whole]);
        let c = c.unwrap();
        assert_eq!(
            (c.content.as_str(), c.tool_calls, c.finish_reason),
            ("x", vec![call("k", "look", "{}")], Some("tool_calls".into()))
        );
    }

    #[test]
    fn arguments_split_in_many_fragments() {
        let args = r#"{"query": "flights from Lisbon to Tokyo", "max": 5, "note": "ünïcödé ✈"}"#;
        let mut chunks = vec![delta(json!({"tool_calls": [{"index": 0, "id": "s", "function": {"name": "search"}}]}))];
        for ch in args.chars() {
            chunks.push(delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": ch.to_string()}}]})));
        }
        let (c, events) = assemble(&chunks);
        assert_eq!(c.unwrap().tool_calls, vec![call("s", "search", args)]);
        assert_eq!(events.len(), 1);
    }

    #[test]
    fn unknown_finish_reason_and_fields_are_kept_or_ignored() {
        let (c, _) = assemble(&[
            json!({"weird": true, "choices": [{"index": "0", "delta": {"content": "a", "reasoning_content": "hmm"}, "logprobs": {"x": 1}}]}),
            json!({"choices": [{"delta": null, "finish_reason": "eos_token"}]}),
            json!({"choices": "not a list"}),
            json!([1, 2, 3]),
            json!("text"),
        ]);
        let c = c.unwrap();
        assert_eq!((c.content.as_str(), c.finish_reason.as_deref()), ("a", Some("eos_token")));
    }

    #[test]
    fn malformed_arguments_are_kept_raw() {
        let (c, _) = assemble(&[delta(
            json!({"tool_calls": [{"index": 0, "id": "m", "function": {"name": "f", "arguments": "{\"a\": tru"}}]}),
        )]);
        assert_eq!(c.unwrap().tool_calls, vec![call("m", "f", "{\"a\": tru")]);
    }

    #[test]
    fn error_in_stream_is_a_model_error() {
        let (c, _) = assemble(&[delta(json!({"content": "a"})), json!({"error": {"message": "overloaded"}})]);
        let err = c.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ModelError);
        assert!(err.message().contains("overloaded"));
    }

    #[test]
    fn ten_megabytes_of_arguments_pass_and_more_than_the_cap_fails() {
        let ten_mb = "x".repeat(10 * 1024 * 1024);
        let (c, _) = assemble(&[
            delta(json!({"tool_calls": [{"index": 0, "id": "big", "function": {"name": "f", "arguments": "\""}}]})),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": ten_mb}}]})),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\""}}]})),
        ]);
        assert_eq!(c.unwrap().tool_calls[0].arguments.len(), 10 * 1024 * 1024 + 2);

        let eight_mb = "y".repeat(8 * 1024 * 1024);
        let piece =
            delta(json!({"tool_calls": [{"index": 0, "id": "big", "function": {"name": "f", "arguments": eight_mb}}]}));
        let (c, _) = assemble(&[piece.clone(), piece.clone(), piece]);
        let err = c.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ModelError);
        assert!(err.message().contains("too large"), "{}", err.message());
    }

    #[test]
    fn clip_respects_char_boundaries() {
        assert_eq!(clip("héllo", 2), "h…");
        assert_eq!(clip("abc", 5), "abc");
    }
}
