//! What the core tells every front end: [`Event`].

use super::*;

/// A fact the core tells every front end, as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A run started (by the panel, a watch, an API or MCP client, the
    /// CLI); its events and [`Event::RunEnded`] follow.
    RunStarted { run_id: String, conversation_id: String, front_end: FrontEnd },
    /// Something the run in flight did (tokens, tool calls and results,
    /// final answer, error); `run_id` says which run.
    Agent { run_id: String, event: AgentEvent },
    /// A run ended: `status` is `completed`, `failed` or `cancelled`.
    RunEnded {
        run_id: String,
        conversation_id: String,
        status: RunStatus,
        stop_reason: StopReason,
        answer: Option<String>,
    },
    /// The user must approve or deny this action; no answer within the
    /// request's `expires_at` is a denial.
    ConfirmationWaiting { request: ConfirmationRequest },
    /// The confirmation is no longer waiting (answered, expired, cancelled).
    ConfirmationClosed { id: String, approved: bool },
    /// A CAPTCHA/OTP/2FA/login waits for the user in the browser.
    ChallengeWaiting { id: String, request: ChallengeRequest },
    /// The challenge hand-off is over (solved, given up, gone, timed out).
    ChallengeClosed { id: String },
    /// The agent was paused or unpaused.
    Paused { paused: bool },
    /// A tool was registered or unregistered: the tool list changed.
    ToolsChanged,
    /// The watches changed: the scheduler made a pass (`checked` watches),
    /// the panel called a watch tool or marked alerts read; `unread` is how
    /// many alerts nobody has read (the tray's count).
    Watches { checked: u32, unread: u32 },
    /// A routine changed: a replay of it ended (`status`: `completed`,
    /// `stopped`, `failed`), or its schedule was set, paused or removed
    /// (`status` none). The panel's Routines view reads them again.
    Routines { name: String, status: Option<String> },
    /// A sign-in started by `ConnectAccount`: the page to sign in at
    /// (opened in the managed browser too).
    AccountSignIn { provider: String, url: String },
}

/// A run going on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RunInfo {
    pub run_id: String,
    pub conversation_id: String,
    pub front_end: FrontEnd,
}
