//! Ollama's native stream: one JSON object a line. Each line's
//! `message.content` is text, `message.thinking` the model's thinking (kept
//! in the trace, out of the answer), `message.tool_calls` whole calls with
//! `function.arguments` as an object; the last line has `done: true`,
//! `done_reason` (`stop`, `length`...), `prompt_eval_count` and
//! `eval_count`. Lines become the [`Chunk`]s the OpenAI stream gives, so one
//! assembler builds the completion.

use serde_json::Value;

use super::super::stream::{Chunk, Delta, ToolCallDelta, Usage};
use crate::agent::transport::MAX_LINE_BYTES;

/// Splits a byte stream into lines, refusing one longer than [`MAX_LINE_BYTES`].
#[derive(Debug, Default)]
pub struct Lines {
    pending: Vec<u8>,
}

// Only the new bytes are searched for a newline: a long line arriving in
// many pieces is not rescanned each time.

impl Lines {
    /// The complete lines in what has arrived so far (without their `\n`).
    pub fn feed(&mut self, bytes: &[u8]) -> std::io::Result<Vec<String>> {
        let mut lines = Vec::new();
        let mut rest = bytes;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            let mut line = std::mem::take(&mut self.pending);
            line.extend_from_slice(&rest[..i]);
            lines.push(String::from_utf8_lossy(&line).trim_end_matches('\r').to_owned());
            rest = &rest[i + 1..];
        }
        self.pending.extend_from_slice(rest);
        if self.pending.len() > MAX_LINE_BYTES {
            return Err(std::io::Error::other(format!(
                "a line of the stream is larger than {} MB",
                MAX_LINE_BYTES / (1024 * 1024)
            )));
        }
        Ok(lines)
    }

    /// What is left after the last newline.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        let rest = String::from_utf8_lossy(&rest).trim().to_owned();
        (!rest.is_empty()).then_some(rest)
    }
}

/// Reads stream lines into chunks, numbering the tool calls (each line
/// carries whole calls, possibly of the same tool twice in a row).
#[derive(Debug, Default)]
pub struct Reader {
    calls: u64,
    /// Whether the `done: true` line has been read.
    pub done: bool,
}

impl Reader {
    pub fn chunk(&mut self, mut line: Value) -> Chunk {
        let error = match line.get("error") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let model = line["model"].as_str().filter(|m| !m.is_empty()).map(str::to_owned);
        let mut message = line.get_mut("message").map(Value::take).unwrap_or(Value::Null);
        let content = message["content"].as_str().filter(|c| !c.is_empty()).map(str::to_owned);
        let mut tool_calls = Vec::new();
        if let Some(Value::Array(calls)) = message.get_mut("tool_calls").map(Value::take) {
            for mut call in calls {
                let id = call["id"].as_str().filter(|i| !i.is_empty()).map(str::to_owned);
                let f = call.get_mut("function").map(Value::take).unwrap_or(Value::Null);
                let arguments = match &f["arguments"] {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                };
                tool_calls.push(ToolCallDelta {
                    index: Some(self.calls),
                    id,
                    name: f["name"].as_str().map(str::to_owned),
                    arguments,
                });
                self.calls += 1;
            }
        }
        let done = line["done"].as_bool() == Some(true);
        let mut finish_reason = None;
        let mut usage = None;
        if done {
            self.done = true;
            finish_reason = Some(line["done_reason"].as_str().unwrap_or("stop").to_owned());
            let count = |k: &str| line[k].as_u64();
            if count("prompt_eval_count").is_some() || count("eval_count").is_some() {
                usage = Some(Usage {
                    prompt_tokens: count("prompt_eval_count").unwrap_or(0),
                    completion_tokens: count("eval_count").unwrap_or(0),
                });
            }
        }
        Chunk { model, delta: Some(Delta { content, tool_calls, finish_reason }), usage, error }
    }
}
