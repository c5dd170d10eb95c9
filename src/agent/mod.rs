//! The agent side of Halley: the model client for OpenAI-compatible
//! endpoints (local-first: Ollama by default), its provider presets, the
//! run loop and the model-assisted pass of `browser_extract`.

pub mod client;
pub mod extract;
pub mod provider;
pub mod run;
pub mod stream;
mod transport;

pub use client::ModelClient;
pub use extract::ModelFieldFallback;
pub use provider::{ModelConfig, ModelFlags, Preset};
pub use stream::{Completion, StreamEvent, ToolCallOut, Usage};
