//! The agent side of Halley: the model client for OpenAI-compatible
//! endpoints (local-first: Ollama by default) and its provider presets, the
//! run loop, and the agent's memory (core blocks, archival passages).

pub mod client;
pub mod memory;
pub mod provider;
pub mod run;
pub mod stream;
mod transport;

pub use client::ModelClient;
pub use provider::{ModelConfig, ModelFlags, Preset};
pub use stream::{Completion, StreamEvent, ToolCallOut, Usage};
