//! The agent side of Halley: the model client for OpenAI-compatible
//! endpoints (local-first: Ollama by default) and its provider presets, the
//! tool-use loop (and the tool calls local models write as text), its
//! context budget, the controls of a run, memory, provider traces and the
//! model-assisted pass of `browser_extract`.

pub mod budget;
pub mod calls;
pub mod client;
pub mod control;
pub mod extract;
pub mod ollama;
pub mod provider;
pub mod raw;
pub mod run;
pub mod served;
pub mod stream;
pub mod textcalls;
pub mod trace;
mod transport;

pub use client::{ContextInUse, Described, ModelClient, raw_response_of};
pub use control::Cancel;
pub use extract::ModelFieldFallback;
pub use provider::{ModelApi, ModelConfig, ModelFlags, Preset};
pub use raw::RawResponse;
pub use stream::{Completion, StreamEvent, ToolCallOut, Usage};
