//! Safety tools: asking the user before a sensitive action, and handing a
//! CAPTCHA/OTP/2FA/login challenge to the user.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::Money;
use super::{Decl, declare};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolKind, ToolSpec};

/// Arguments of `request_user_confirmation`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestUserConfirmationArgs {
    /// One sentence saying exactly what will happen, in the user's language
    /// (e.g. "Đặt vé HAN→NRT ngày 2026-02-10").
    #[schemars(length(min = 1, max = 500))]
    pub action_summary: String,
    /// What it will cost, e.g. `{"amount": 12500000, "currency": "VND"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_estimate: Option<Money>,
    /// The fields that will be submitted, name → value, shown to the user
    /// who may edit them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields_to_submit: Option<Map<String, Value>>,
    /// Risks to point out (non-refundable, baggage limits, data shared...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub risks: Vec<String>,
    /// How long to wait for an answer; no answer in time counts as refused.
    #[serde(default = "default_confirm_timeout_ms")]
    #[schemars(range(min = 1_000, max = 3_600_000))]
    pub timeout_ms: u32,
}

fn default_confirm_timeout_ms() -> u32 {
    300_000
}

/// ConfirmResultV1: the user's answer (`data` of `request_user_confirmation`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ConfirmResultV1 {
    /// True only on an explicit yes; a timeout or a closed dialog is false.
    pub approved: bool,
    /// Fields the user changed, name → new value; use these instead of the proposed ones.
    pub user_edits: Map<String, Value>,
    /// The user's reason, when refused (may be empty).
    pub reason: String,
}

/// The kind of challenge the user must solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, ts_rs::TS)]
pub enum ChallengeType {
    #[serde(rename = "captcha")]
    Captcha,
    #[serde(rename = "otp")]
    Otp,
    #[serde(rename = "2fa")]
    TwoFactor,
    #[serde(rename = "login")]
    Login,
}

impl ChallengeType {
    /// The name the tools and the user read: `captcha`, `otp`, `2fa`, `login`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Captcha => "captcha",
            Self::Otp => "otp",
            Self::TwoFactor => "2fa",
            Self::Login => "login",
        }
    }
}

impl std::fmt::Display for ChallengeType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Arguments of `human_solve_challenge`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HumanSolveChallengeArgs {
    /// `captcha`, `otp` (code sent by SMS/e-mail), `2fa` (authenticator or
    /// device prompt) or `login` (the user signs in themselves).
    pub challenge_type: ChallengeType,
    /// Where the user should look, e.g. "Login checkout".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_hint: Option<String>,
    /// The tab holding the challenge; omit for the current tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<String>,
    /// How long to wait for the user.
    #[serde(default = "default_challenge_timeout_ms")]
    #[schemars(range(min = 1_000, max = 1_800_000))]
    pub timeout_ms: u32,
}

fn default_challenge_timeout_ms() -> u32 {
    120_000
}

/// How a challenge hand-off ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChallengeOutcome {
    Resolved,
    Failed,
    Timeout,
}

/// `data` of `human_solve_challenge`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct HumanSolveChallengeOutput {
    /// `resolved` (continue), `failed` (the user gave up or it was rejected)
    /// or `timeout`.
    pub outcome: ChallengeOutcome,
}

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        declare::<RequestUserConfirmationArgs, ConfirmResultV1>(Decl {
            name: "request_user_confirmation",
            kind: ToolKind::Primitive,
            // It only asks; the action it asks about is gated on its own.
            scope: Scope::ReadOnly,
            risk: Risk::Low,
            confirm: false,
            needs: None,
            description: "Ask the user to approve a sensitive action (submit, publish, pay, delete) before doing it: show a summary, the cost (e.g. in VND), the fields to submit and the risks. Returns ConfirmResultV1 {approved, user_edits, reason}; proceed only when approved.",
        }),
        declare::<HumanSolveChallengeArgs, HumanSolveChallengeOutput>(Decl {
            name: "human_solve_challenge",
            kind: ToolKind::Primitive,
            scope: Scope::ReadOnly,
            risk: Risk::Low,
            confirm: false,
            needs: None,
            description: "Stop and hand a CAPTCHA, OTP, 2FA prompt or login to the user, then wait until they finish. Never try to solve these yourself. Returns the outcome: resolved, failed or timeout.",
        }),
    ]
}
