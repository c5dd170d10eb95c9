//! What a run reports while it goes: the contract's stream of a run.

use serde::Serialize;
use serde_json::Value;

use crate::error::ErrorCode;
use crate::protocol::{ChallengeRequest, ConfirmationRequest};
use crate::tools::ToolResultV2;

/// What a run reports while it goes (`halley run --json` prints these).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A piece of the answer, as it streams.
    Token { text: String },
    /// The model asks for a tool call (with its reason, when it gave one).
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        reasoning: Option<String>,
    },
    /// Its result (the ToolResultV2, with the scope and risk the gate
    /// graded the call: the panel's badge shows them).
    ToolResult { id: String, name: String, result: ToolResultV2, duration_ms: i64 },
    /// The run waits for the user's answer to this request.
    ConfirmationRequest { request: ConfirmationRequest },
    /// The run waits for the user to solve a challenge in the browser.
    Challenge { request: ChallengeRequest },
    /// The user answered: the run goes on.
    Resumed,
    /// The run finished with this answer.
    Final { run_id: String, text: String, steps: u32 },
    /// The run stopped on an error (or was cancelled: code `cancelled`).
    Error { run_id: String, code: ErrorCode, message: String },
}
