//! The statuses and kinds the contract speaks of, defined here: the store
//! keeps them and the gate reads them, both importing them from here.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::tools::PermissionScope;

/// What a rule is keyed on; follows from which of site and tool are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type, TS)]
#[serde(rename_all = "snake_case")]
#[sqlx(rename_all = "snake_case")]
pub enum RuleKind {
    Site,
    Tool,
    SiteTool,
}

/// What the user said about the actions a rule covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type, TS)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum RuleDecision {
    /// Always allow (within the limits `gate::policy` documents).
    Allow,
    /// Always ask, even for actions that would be allowed by default.
    Ask,
    /// Never: refuse without asking.
    Never,
}

/// A standing rule, as stored and as `Reply::Rules` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GateRuleRow {
    pub id: String,
    pub kind: RuleKind,
    /// An origin (`https://shop.vn`) or a host pattern (`*.shop.vn`), normalized.
    pub site: Option<String>,
    pub tool: Option<String>,
    /// The rule covers actions of at least this effective scope; `None`: any.
    pub min_scope: Option<PermissionScope>,
    pub decision: RuleDecision,
    pub note: String,
    pub created_at: String,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type, TS)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    /// Waiting on the user (a confirmation) or on a client-executed tool.
    Paused,
    Completed,
    Failed,
    Cancelled,
}

/// Why a run stopped (or is paused), stored as its snake_case name in
/// `runs.stop_reason` and told to front ends in `Event::RunEnded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type, TS)]
#[serde(rename_all = "snake_case")]
#[sqlx(rename_all = "snake_case")]
pub enum StopReason {
    /// The model answered: the run is completed.
    EndTurn,
    /// The run used its steps up without an answer.
    MaxSteps,
    /// Too many tool calls failed in a row.
    TooManyFailures,
    /// The model kept making the same call.
    RepeatedAction,
    /// The user stopped the run (Stop, Ctrl-C, pausing the agent).
    Cancelled,
    /// The model server failed during the run (the `Error` event has its code).
    ModelError,
    /// No usable model before the run could start (endpoint down, no model,
    /// no key...: the `Error` event has its code).
    ModelUnavailable,
    /// A bug or a store failure ended the run.
    InternalError,
    /// Paused: a confirmation waits for the user.
    WaitingForConfirmation,
    /// Paused: a challenge (CAPTCHA, OTP...) waits for the user.
    WaitingForChallenge,
    /// Paused: a client application runs a call of its tool.
    WaitingForClient,
    /// Paused: Halley closed (Quit, a signal) while the run went on; it can
    /// be resumed (`halley run --resume`).
    Interrupted,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type, TS)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum ToolCallStatus {
    Ok,
    Error,
    /// The run was cancelled before the call finished.
    Cancelled,
}
