//! The tool declaration: what the model and the gatekeeper see of a tool
//! (name, JSON Schemas, permission scope, risk level), never how it runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// What a tool may do to the world, from harmless to hard to undo
/// (tools.md "permission scopes"). Ordered: a later variant is riskier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PermissionScope {
    /// Reads only, changes no state anywhere.
    ReadOnly,
    /// Fills forms/drafts, changes browser state; never submits, publishes or pays.
    WriteNonDestructive,
    /// Submits a form or sends data off the machine.
    Submit,
    /// Posts, comments, public actions.
    Publish,
    /// Costs money.
    Payment,
    /// Deletes, cancels or changes something hard to undo.
    Destructive,
}

impl PermissionScope {
    pub const ALL: [PermissionScope; 6] =
        [Self::ReadOnly, Self::WriteNonDestructive, Self::Submit, Self::Publish, Self::Payment, Self::Destructive];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "READ_ONLY",
            Self::WriteNonDestructive => "WRITE_NON_DESTRUCTIVE",
            Self::Submit => "SUBMIT",
            Self::Publish => "PUBLISH",
            Self::Payment => "PAYMENT",
            Self::Destructive => "DESTRUCTIVE",
        }
    }

    /// Scopes from SUBMIT upward need the user's confirmation (guardrails).
    pub fn needs_confirmation(self) -> bool {
        self >= Self::Submit
    }
}

impl std::fmt::Display for PermissionScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
}

impl RiskLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

impl std::fmt::Display for RiskLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Primitive tools act once; skills are workflows over primitives; custom
/// tools are registered by the user or a client application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    Primitive,
    Skill,
    Custom,
}

/// Who runs a call: Halley itself, the client application that registered
/// the tool, the model (implicit: it produces the `_output` itself), or an
/// MCP server Halley attached (`halley mcp add`; the tool is
/// `<server>__<tool>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum Executor {
    Builtin,
    Client,
    Implicit,
    Mcp,
}

/// Whether calling the tool does something now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    Available,
    /// Declared (the model and the gatekeeper know it) but not built yet:
    /// calling it returns a `not_available` error naming what it needs.
    Planned,
}

/// A tool's declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub kind: ToolKind,
    pub executor: Executor,
    pub status: ToolStatus,
    pub permission_scope: PermissionScope,
    pub risk_level: RiskLevel,
    pub requires_confirmation: bool,
    /// JSON Schema (draft 2020-12) of the arguments.
    pub parameters: Value,
    /// JSON Schema of `data` in a successful ToolResultV2.
    pub output_schema: Value,
    /// For planned tools: what the tool needs before it can run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<String>,
    /// For blueprints executed by a program (`_activity`): the built-in
    /// tool that runs the call, or `client`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    /// A successful result carries content read from a web page: it
    /// reaches the model fenced as untrusted data.
    #[serde(default)]
    pub page_content: bool,
    /// A call changes what the model's prompt is built from (core memory,
    /// the profile's sensitive values): it is read again after the call.
    #[serde(default)]
    pub edits_memory: bool,
    /// A call puts a question to the user (a confirmation, a challenge):
    /// never two at once.
    #[serde(default)]
    pub asks_user: bool,
    /// The JSON pointer of the argument naming another tool this one runs
    /// (`browser_retry`: `/action/tool`): a call's result has that tool's
    /// declarations too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_tool_at: Option<String>,
    /// A successful call changes the user's watches or their alerts (what
    /// the Watches view and the tray show): front ends are told.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changes_watches: bool,
}

/// What a tool's executor declares about its calls beyond scope and risk
/// (the [`ToolSpec`] fields of the same names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effects {
    pub page_content: bool,
    pub edits_memory: bool,
    pub asks_user: bool,
    pub runs_tool_at: Option<&'static str>,
    pub changes_watches: bool,
}

impl ToolSpec {
    /// These declarations, as set on a spec.
    #[must_use]
    pub fn with_effects(mut self, effects: Effects) -> ToolSpec {
        self.page_content = effects.page_content;
        self.edits_memory = effects.edits_memory;
        self.asks_user = effects.asks_user;
        self.runs_tool_at = effects.runs_tool_at.map(str::to_owned);
        self.changes_watches = effects.changes_watches;
        self
    }
}
