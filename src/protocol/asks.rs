//! What the user is asked: a confirmation written by code from the real
//! action (the gate writes it, `gate::confirm`), a challenge handed to them,
//! and what they answer.

use serde::Serialize;
use ts_rs::TS;

use crate::tools::{PermissionScope, RiskLevel};

/// What the user is asked to approve, written by code from the real
/// action: never the model's own description of it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ConfirmationRequest {
    pub id: String,
    pub tool: String,
    /// One sentence: what will happen, where.
    pub action_summary: String,
    /// The form fields that would be sent (sensitive values masked).
    pub fields: Vec<ConfirmField>,
    /// Where the data or the browser goes.
    pub destination: Option<String>,
    /// The page it happens on.
    pub url: Option<String>,
    pub origin: Option<String>,
    /// A price or total read from the page.
    pub page_total: Option<String>,
    /// Why it is asked: the evidence, in plain words.
    pub risks: Vec<String>,
    pub scope: PermissionScope,
    pub risk_level: RiskLevel,
    /// RFC 3339; after it, no answer is a refusal.
    pub expires_at: String,
    /// The run that asks (none: a direct call).
    pub run_id: Option<String>,
}

/// A challenge handed to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ChallengeRequest {
    /// The tab holding it (`tab-2`).
    pub tab_id: String,
    pub url: String,
    pub challenge_type: crate::tools::catalogue::safety::ChallengeType,
    /// Where to look, in the assistant's words.
    pub page_hint: Option<String>,
    /// The run that waits (none: a direct call).
    pub run_id: Option<String>,
}

/// What the user said about a challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeAnswer {
    /// They say they solved it (the page is checked).
    Done,
    /// They gave up.
    GaveUp,
}

/// One field of a form that would be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ConfirmField {
    pub name: String,
    pub label: String,
    /// The value, or `••••` and its last characters when it is sensitive.
    pub value: String,
    pub masked: bool,
}
