//! Lenient reading of streamed chat-completion chunks and their assembly into
//! one [`Completion`]. Real servers differ from OpenAI's spec: tool calls
//! without `index`, unknown `finish_reason`s, content and tool calls in one
//! message, arguments split over many chunks (or sent as a JSON object). A
//! chunk is read from any JSON value; what does not fit is ignored.

mod assemble;
mod chunk;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use super::raw::RawResponse;
pub use assemble::Assembler;
pub use chunk::{Chunk, Delta, ToolCallDelta};

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
