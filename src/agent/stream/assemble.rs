//! [`Assembler`]: chunks put together into one [`Completion`], tool-call
//! fragments routed to their call (by `index`, else `id`, else the last one),
//! [`StreamEvent`]s emitted as they come, output capped at
//! [`MAX_OUTPUT_BYTES`].

use super::super::raw::RawResponse;
use super::chunk::{Chunk, ToolCallDelta};
use super::{Completion, MAX_OUTPUT_BYTES, StreamEvent, ToolCallOut, Usage, clip};
use crate::error::{Error, ErrorCode, Result};

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
