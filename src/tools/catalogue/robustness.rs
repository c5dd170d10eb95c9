//! Robustness tools (tools.md spec 5.2): retry a flaky browser action,
//! detect the page's state, and read tables.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::Target;
use super::safety::ChallengeType;
use super::{Decl, declare};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolKind, ToolSpec};

/// The browser tools `browser_retry` may wrap: the repeatable ones up to
/// WRITE_NON_DESTRUCTIVE. Uploads (SUBMIT) and closing tabs (DESTRUCTIVE)
/// are left out so a retry never repeats an action past the user's consent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RetryableTool {
    BrowserNavigate,
    BrowserWait,
    BrowserClick,
    BrowserType,
    BrowserScroll,
    BrowserPressKey,
    BrowserSelectOption,
    BrowserCheck,
    BrowserUncheck,
    BrowserDownload,
    BrowserScreenshot,
    BrowserGetDom,
    BrowserReadText,
    BrowserExtract,
    BrowserDetectState,
    BrowserExtractTable,
}

/// The call to retry.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryAction {
    /// The browser tool to call.
    pub tool: RetryableTool,
    /// Its arguments, exactly as for a direct call (validated against that tool's schema).
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// When and how often to retry.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts in total, the first included.
    #[serde(default = "default_attempts")]
    #[schemars(range(min = 1, max = 10))]
    pub max_attempts: u8,
    /// Wait before the second attempt; doubled after each further failure.
    #[serde(default = "default_backoff_ms")]
    #[schemars(range(max = 60_000))]
    pub backoff_ms: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { max_attempts: default_attempts(), backoff_ms: default_backoff_ms() }
    }
}

fn default_attempts() -> u8 {
    3
}

fn default_backoff_ms() -> u32 {
    1_000
}

/// Arguments of `browser_retry`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserRetryArgs {
    /// The call to retry, e.g. `{"tool": "browser_click", "arguments": {"selector": "button#search"}}`.
    pub action: RetryAction,
    /// Defaults to 3 attempts, 1000 ms backoff.
    #[serde(default)]
    pub policy: RetryPolicy,
}

/// `data` of `browser_retry`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserRetryOutput {
    /// Attempts made.
    pub attempts: u8,
    /// `data` of the successful attempt.
    pub result: Value,
    /// The error messages of the failed attempts, in order.
    pub errors: Vec<String>,
}

/// Arguments of `browser_detect_state`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserDetectStateArgs {
    /// The tab to inspect; omit for the current tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<String>,
}

/// `data` of `browser_detect_state`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserDetectStateOutput {
    pub url: String,
    pub title: String,
    /// Whether the user seems signed in to this site; null when unclear.
    pub logged_in: Option<bool>,
    /// A modal or dialog covers the page (cookie banner, popup, login wall).
    pub modal_open: bool,
    /// Text of a visible error message or banner, if any.
    pub error_banner: Option<String>,
    /// A challenge the user must solve, if one is showing (hand it to `human_solve_challenge`).
    pub challenge: Option<ChallengeType>,
    /// The page is still loading.
    pub loading: bool,
    /// A form on the page has edits that were not submitted (closing the tab would lose them).
    pub unsaved_form: bool,
}

/// Arguments of `browser_extract_table`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserExtractTableArgs {
    /// The table (or the element that contains it); omit for the largest table on the page.
    #[serde(flatten)]
    pub target: Target,
    /// Stop after this many rows.
    #[serde(default = "default_max_rows")]
    #[schemars(range(min = 1, max = 5_000))]
    pub max_rows: u32,
}

fn default_max_rows() -> u32 {
    200
}

/// `data` of `browser_extract_table`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct BrowserExtractTableOutput {
    /// The table's caption, when it has one.
    pub caption: Option<String>,
    /// Column headers (empty when the table has none).
    pub headers: Vec<String>,
    /// Cell texts, row by row.
    pub rows: Vec<Vec<String>>,
    /// Rows in the table, before `max_rows`.
    pub total_rows: u32,
    pub truncated: bool,
}

pub(super) fn tools() -> Vec<ToolSpec> {
    use Risk::*;
    use Scope::*;
    let primitive = |name, scope, description| Decl {
        name,
        kind: ToolKind::Primitive,
        scope,
        risk: Low,
        confirm: false,
        needs: None,
        description,
    };
    vec![
        // The retry's effective scope is the wrapped action's; it may only
        // wrap tools up to WRITE_NON_DESTRUCTIVE, so that is its declaration,
        // and the gatekeeper classifies each wrapped call like a direct one.
        declare::<BrowserRetryArgs, BrowserRetryOutput>(primitive(
            "browser_retry",
            WriteNonDestructive,
            "Call a browser tool again when it fails for a flaky reason (element not ready, timeout, detached frame), up to `max_attempts` with growing backoff. Each attempt is gated like a direct call. Returns the successful attempt's data and the earlier errors.",
        )),
        declare::<BrowserDetectStateArgs, BrowserDetectStateOutput>(primitive(
            "browser_detect_state",
            ReadOnly,
            "Inspect the page's state: signed in or not, a modal open, an error banner, a CAPTCHA/OTP/2FA challenge, still loading. Use it when an action did not have the expected effect.",
        )),
        declare::<BrowserExtractTableArgs, BrowserExtractTableOutput>(primitive(
            "browser_extract_table",
            ReadOnly,
            "Read an HTML table (price list, spec sheet, fare table) as headers and rows of cell text. Returns the table, cut at `max_rows`.",
        )),
    ]
}
