//! The one contract between Halley's core and a long-lived front end (the
//! desktop panel now, the local API later): [`Op`]s come in, [`Event`]s go
//! out. Each `Op` says what answers it: a direct [`Reply`] and/or events.
//! Serialised as JSON with a `type` tag in snake_case; statuses, reasons,
//! roles and codes are enums. The UI's TypeScript types
//! (`ui/src/protocol.gen.ts`) are generated from these types by
//! [`typescript::render`]: after changing anything reachable from `Op`,
//! `Reply` or `Event`, run `make protocol` (a unit test fails while the
//! committed file is stale).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

pub use crate::error::ErrorCode;
// The contract's vocabulary, defined here; the store keeps it, the gate
// and the agent produce it.
pub use crate::tools::catalogue::watches::WatchAlert;
pub use crate::tools::{PermissionScope, ToolResultV2, ToolSpec};
pub use agent::AgentEvent;
pub use asks::{ChallengeAnswer, ChallengeRequest, ConfirmField, ConfirmationRequest};
pub use status::{GateRuleRow, Role, RuleDecision, RuleKind, RunStatus, StopReason, ToolCallStatus};

mod agent;
mod asks;
pub mod status;
pub mod typescript;

/// Who started a run (or made a direct call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FrontEnd {
    /// The desktop side panel.
    #[default]
    Panel,
    /// The `halley` command line.
    Cli,
    /// A background run (a watch): its questions go to the panel and a
    /// notification; it never takes the user's focus.
    Background,
    /// A client of the local HTTP API.
    Api,
    /// An MCP client.
    Mcp,
}

impl FrontEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            FrontEnd::Panel => "panel",
            FrontEnd::Cli => "cli",
            FrontEnd::Background => "background",
            FrontEnd::Api => "api",
            FrontEnd::Mcp => "mcp",
        }
    }

    /// Whether runs of this front end act in front of the user: they start
    /// on the tab the user looks at and may bring their tabs forward. The
    /// others open their own tabs in the background.
    pub fn in_foreground(self) -> bool {
        matches!(self, FrontEnd::Panel | FrontEnd::Cli)
    }
}

impl std::fmt::Display for FrontEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request from a front end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Op {
    /// Start a run on `text`, going on with `conversation_id` or in a new
    /// conversation. Replies [`Reply::RunStarted`] at once; then
    /// [`Event::Agent`]s stream and [`Event::RunEnded`] closes the run.
    /// Refused (`invalid_arguments`) while another run goes or while the
    /// agent is paused.
    SendMessage {
        text: String,
        #[serde(default)]
        #[ts(optional = nullable)]
        conversation_id: Option<String>,
    },
    /// Cancel run `run_id`, or (without one) every run the panel started;
    /// no other run is touched. Replies [`Reply::Done`] (`not_found` for a
    /// `run_id` that is not going on); each run then ends with
    /// [`Event::RunEnded`] status `cancelled`.
    Stop {
        #[serde(default)]
        #[ts(optional = nullable)]
        run_id: Option<String>,
    },
    /// The runs going on now, whoever started them. Replies [`Reply::Runs`].
    ListRuns,
    // [ops: Letta's routes]
    /// A tool kept in the store, by name (whatever runs it), with its
    /// declaration as registered now. Replies [`Reply::StoredTool`] (none:
    /// no tool of that name).
    StoredTool { name: String },
    /// The client tools kept in the store (registered from Python source or
    /// a Letta request's `client_tools`), by name. Replies
    /// [`Reply::ClientTools`].
    ListClientTools,
    /// Register (or replace, by name) a client tool from its JSON Schema
    /// `parameters` (a Letta request's `client_tools`; none: no arguments):
    /// no source, no approval asked, its calls go to the client of the run
    /// that makes them. Replies [`Reply::Tool`] (no [`Event::ToolsChanged`]).
    RegisterClientSchema {
        name: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        description: String,
        #[serde(default)]
        #[ts(optional)]
        parameters: Option<Value>,
    },
    /// Make a Letta agent (`POST /v1/agents/`): `name` (none:
    /// `letta-agent`), its `model` handle (`provider/model` or a model name:
    /// its runs use it when the saved settings know it), `system` and
    /// `tools` kept as given. Halley's own agent stays the oldest. Replies
    /// [`Reply::LettaAgent`].
    CreateLettaAgent {
        #[serde(default)]
        #[ts(optional = nullable)]
        name: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        model: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        system: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        tools: Option<Vec<String>>,
    },
    /// A Letta agent by id. Replies [`Reply::LettaAgent`]; `not_found` for
    /// no such agent (Halley's own agent is not one).
    GetLettaAgent { id: String },
    /// Start a Letta agent's run on `text`, as [`Op::SendMessage`] does but
    /// for the sender (its front end and allowed origins; its confirmer
    /// answers the run's questions): in the agent's one conversation (its
    /// first run makes it), on the agent's model when the saved settings
    /// know it, at most `max_steps` model calls (none or 0: the default);
    /// its client-tool calls go to the agent's requester (client key
    /// `letta:<agent_id>`). Replies [`Reply::RunStarted`]; `not_found` for
    /// no such agent, `invalid_arguments` for an empty text, while paused or
    /// while the conversation has a run going on.
    StartLettaRun {
        agent_id: String,
        text: String,
        #[serde(default)]
        #[ts(optional = nullable)]
        max_steps: Option<u32>,
    },
    /// The tokens run `run_id`'s model calls used so far, and how many
    /// calls it made (none for an unknown run). Replies [`Reply::RunUsage`].
    RunUsage { run_id: String },
    /// Register a tool blueprint (docs/blueprints.md) or replace the one
    /// of the same name. Every run offers it to the model from its next
    /// turn. Replies [`Reply::Tool`], then [`Event::ToolsChanged`].
    RegisterTool { blueprint: Value },
    /// Remove a registered tool: new calls are refused (`not_found`); a
    /// call already running finishes. Replies [`Reply::Done`], then
    /// [`Event::ToolsChanged`].
    UnregisterTool { name: String },
    /// Register (or replace, by name) a tool the client application runs
    /// itself, from its Python source (parsed for its signature and
    /// docstring, never run); answers `Tool`. Its calls go to `client` (a
    /// client key; none: `default`), which answers each within
    /// `timeout_secs` (none: 120) with [`Op::AnswerClientCall`].
    RegisterClientTool {
        name: String,
        description: String,
        source_code: String,
        requires_approval: bool,
        #[serde(default)]
        #[ts(optional)]
        client: Option<String>,
        #[serde(default)]
        #[ts(optional)]
        timeout_secs: Option<u32>,
    },
    /// A client's answer to a call of one of its tools: `result` (any
    /// JSON) or `error` (a message for the model), exactly one. Replies
    /// [`Reply::Done`]; an unknown call is `not_found`, one already
    /// answered (or timed out) `invalid_arguments`: nothing twice.
    /// `sensitive`: the result's values (strings, numbers) are kept in the
    /// core's memory only, for the call's run (at most 1 h), and everything
    /// else (the model, the database, traces, events) gets placeholders
    /// `{{secret.<tool_call_id>.<path>}}`, which `browser_type` fills in.
    /// `sensitive` with an `error`, or with more than 256 values, is
    /// `invalid_arguments` and the call still waits for an answer.
    AnswerClientCall {
        tool_call_id: String,
        /// (Over JSON, a `null` result reads as none: the API's
        /// `/api/v1/tool_results` keeps it.)
        #[serde(default)]
        #[ts(optional)]
        result: Option<Value>,
        #[serde(default)]
        #[ts(optional)]
        error: Option<String>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        sensitive: bool,
    },
    /// Answer a waiting confirmation ([`Event::ConfirmationWaiting`]).
    /// Replies [`Reply::Done`]; `not_found` when it is no longer waiting
    /// (answered elsewhere, expired). Then [`Event::ConfirmationClosed`].
    AnswerConfirmation {
        id: String,
        approved: bool,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        user_edits: Map<String, Value>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        reason: String,
    },
    /// Answer a waiting challenge hand-off ([`Event::ChallengeWaiting`]):
    /// `done` (the user says they solved it: the page is checked) or not
    /// (they gave up). Replies [`Reply::Done`], then [`Event::ChallengeClosed`].
    AnswerChallenge { id: String, done: bool },
    /// Bring the browser window and the challenge's tab to the front.
    /// Replies [`Reply::Done`].
    ShowChallenge { id: String },
    /// Recent conversations, newest first. Replies [`Reply::Conversations`].
    ListConversations {
        #[serde(default = "default_limit")]
        #[ts(as = "Option<_>", optional)]
        limit: u32,
    },
    /// One conversation's messages, to show it again and go on with it.
    /// Replies [`Reply::Conversation`].
    OpenConversation { id: String },
    /// One run's tool calls (the timeline), for a conversation opened again.
    /// Replies [`Reply::Timeline`].
    RunTimeline { run_id: String },
    /// Every tool with its declaration. Replies [`Reply::Tools`].
    ListTools,
    /// Call one tool without the model (the `/` palette); gated like any
    /// call. Replies [`Reply::ToolResult`] when it is done.
    CallTool { name: String, args: Value },
    /// The settings (never the API key itself). Replies [`Reply::Settings`].
    GetSettings,
    /// Save the settings. Replies [`Reply::Settings`] (as saved).
    SaveSettings { settings: Settings },
    /// Save the API key of the configured endpoint in the OS keyring
    /// (never in the database). Replies [`Reply::Settings`] (with
    /// `api_key_saved: true`); `keyring` error when there is no keyring.
    SaveApiKey { key: String },
    /// Forget the endpoint's API key. Replies [`Reply::Settings`].
    DeleteApiKey,
    /// Save the Brave Search API key (`web_search`) in the OS keyring.
    /// Replies [`Reply::Settings`] (with `search_key_saved: true`).
    SaveSearchKey { key: String },
    /// Forget the Brave Search API key. Replies [`Reply::Settings`].
    DeleteSearchKey,
    /// Whether the configured model endpoint answers, and its models.
    /// Replies [`Reply::ModelStatus`].
    CheckModel,
    /// The user's standing gate rules. Replies [`Reply::Rules`].
    ListRules,
    /// Add (or replace) a rule: `site` an origin or host pattern, `tool` a
    /// tool name (one or both); `min_scope`: only for actions of at least
    /// this effective scope. Replies [`Reply::Rules`].
    AddRule {
        #[serde(default)]
        #[ts(optional = nullable)]
        site: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        tool: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        min_scope: Option<PermissionScope>,
        decision: RuleDecision,
        /// Why (shown with the rule).
        #[serde(default)]
        #[ts(optional = nullable)]
        note: Option<String>,
    },
    /// Remove a rule by id. Replies [`Reply::Rules`].
    RemoveRule { id: String },
    /// A file a result points at (a screenshot's `file://` ref), for the
    /// panel to show: only files inside the data directory. Replies
    /// [`Reply::Artifact`].
    ReadArtifact { reference: String },
    /// Pause the agent (the tray's "Pause agent"): the run in flight is
    /// stopped and new messages are refused until unpaused. Replies
    /// [`Reply::Done`] and emits [`Event::Paused`].
    SetPaused { paused: bool },
    /// The page in the user's current browser tab (the panel's "Watch this
    /// page"), without starting the browser. Replies [`Reply::CurrentTab`].
    CurrentTab,
    /// The watches' alert inbox: the latest `limit` alerts (of every watch,
    /// and `notify_send`'s), unread first. Replies [`Reply::Alerts`].
    ListAlerts {
        #[serde(default = "default_limit")]
        #[ts(as = "Option<_>", optional)]
        limit: u32,
    },
    /// Mark alerts read: `ids`, or all of them when none is given. Replies
    /// [`Reply::Alerts`] (the inbox as it is now, `limit` 50) and emits
    /// [`Event::Watches`] with the new unread count (the tray's).
    MarkAlertsRead {
        #[serde(default)]
        #[ts(optional = nullable)]
        ids: Option<Vec<i64>>,
    },
    // [ops: the CLI's tools, watch, auth and mcp commands]
    /// Connect an OAuth account as `halley auth connect` does: the caller
    /// is asked first (as for the tool `auth_oauth_connect`: SUBMIT, high
    /// risk), then [`Event::AccountSignIn`] carries the sign-in URL, which
    /// this op does not open ([`Op::OpenSignInPage`] does); replies
    /// [`Reply::AccountConnected`] once the user signed in, an error (and
    /// nothing stored) when the sign-in failed or took over `timeout_secs`.
    SignInAccount {
        /// `google`, `github`, `microsoft` or `oidc`.
        provider: String,
        #[serde(default)]
        #[ts(optional = nullable)]
        issuer: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        client_id: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        client_secret: Option<String>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        scopes: Vec<String>,
        /// How long to wait for the sign-in, in seconds (at least 1).
        timeout_secs: u32,
    },
    /// Open a sign-in page (the `url` of an [`Event::AccountSignIn`]: http
    /// or https) in a new tab of the managed browser, where the user's own
    /// logins are; the browser starts if it does not run. Replies
    /// [`Reply::Done`].
    OpenSignInPage { url: String },
    /// Who an account is signed in as, asked of the provider with a fresh
    /// access token (refreshed when due; a refresh the provider refuses
    /// marks the account `needs_reconnect`). Replies [`Reply::AccountUserInfo`].
    CheckAccount { name: String },
    /// Disconnect an account as [`Op::DisconnectAccount`] does, but reply
    /// [`Reply::AccountDisconnected`]: whether the provider revoked it.
    SignOutAccount { name: String },
    /// The connected OAuth accounts as stored (provider, issuer, client id,
    /// endpoints, scopes asked for and granted, status, dates; never a
    /// token), as `halley auth list --json` prints them. Replies
    /// [`Reply::AccountRecords`].
    ListAccountRecords,
    /// Attach an MCP server as [`Op::AddMcpServer`] does, but reply
    /// [`Reply::McpServerAttached`]: its tools in the order the server
    /// listed them.
    AttachMcpServer { name: String, url: Option<String>, headers: Vec<String>, command: Vec<String> },
    /// The attached MCP servers as stored (transport, header names, every
    /// tool with its schema and annotations as the server listed it), as
    /// `halley mcp list --json` prints them. Replies [`Reply::McpServerRecords`].
    ListMcpServerRecords,
    /// The connected OAuth accounts (never a token). Replies [`Reply::Accounts`].
    ListAccounts,
    /// Connect an OAuth account with the user's own client (or the one saved
    /// for the provider): [`Event::AccountSignIn`] carries the sign-in URL,
    /// also opened in the managed browser; replies [`Reply::Accounts`] once
    /// the user signed in (an error, and nothing stored, when it failed).
    ConnectAccount {
        /// `google`, `github`, `microsoft` or `oidc`.
        provider: String,
        #[serde(default)]
        #[ts(optional = nullable)]
        issuer: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        client_id: Option<String>,
        #[serde(default)]
        #[ts(optional = nullable)]
        client_secret: Option<String>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        scopes: Vec<String>,
    },
    /// Disconnect an account (revoked at the provider when it offers it,
    /// keyring entry deleted). Replies [`Reply::Accounts`].
    DisconnectAccount { name: String },
    /// The local API's address (when it is served) and its bearer token
    /// (from the OS keyring, made on first use). Replies [`Reply::ApiInfo`].
    ApiInfo,
    /// A new API token in the keyring; the running API accepts only the new
    /// one from now on. Replies [`Reply::ApiInfo`].
    RotateApiToken,
    /// The attached MCP servers. Replies [`Reply::McpServers`].
    ListMcpServers,
    /// Attach an MCP server as `halley mcp add` does: `url` with `headers`
    /// (`K:V`, values kept in the OS keyring) or `command` (program and
    /// arguments). Replies [`Reply::McpServers`].
    AddMcpServer { name: String, url: Option<String>, headers: Vec<String>, command: Vec<String> },
    /// Detach an MCP server (its header values leave the keyring). Replies
    /// [`Reply::McpServers`].
    RemoveMcpServer { name: String },
    // [ops: run history, audit and memory]
    /// The latest `limit` runs kept in the store (ended ones too, whoever
    /// started them), newest first. Replies [`Reply::RunHistory`].
    RunHistory {
        #[serde(default = "default_limit")]
        #[ts(as = "Option<_>", optional)]
        limit: u32,
    },
    /// One run from the store: its steps (model, tokens, latency), tool
    /// calls and messages, and with `traces` its provider traces (each
    /// model call's request and raw response, as stored: secrets
    /// redacted). Replies [`Reply::RunDetail`]; `not_found` for an unknown
    /// run.
    ShowRun {
        run_id: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        traces: bool,
    },
    /// The audit trail, newest first: the latest `limit` entries (every
    /// gate decision, and every skill's own call). Replies
    /// [`Reply::AuditLog`].
    AuditLog {
        #[serde(default = "default_limit")]
        #[ts(as = "Option<_>", optional)]
        limit: u32,
    },
    /// The agent's core memory blocks (always in the model's prompt).
    /// Replies [`Reply::MemoryBlocks`].
    MemoryBlocks,
    /// Set a core memory block's whole value, creating the block (with
    /// `limit` characters, else 2000; an existing block keeps its limit
    /// unless one is given); recorded as changed by `user`. Replies
    /// [`Reply::MemoryBlockSet`]; `invalid_arguments` for a bad label, a
    /// bad limit or a value over the limit.
    SetMemoryBlock {
        label: String,
        value: String,
        #[serde(default)]
        #[ts(optional = nullable)]
        limit: Option<i64>,
    },
    /// The latest `limit` changes to the core memory blocks (only block
    /// `label`'s when given), newest first. Replies
    /// [`Reply::MemoryHistory`]; `invalid_arguments` for an unknown block
    /// (naming the blocks there are).
    MemoryHistory {
        #[serde(default)]
        #[ts(optional = nullable)]
        label: Option<String>,
        #[serde(default = "default_limit")]
        #[ts(as = "Option<_>", optional)]
        limit: u32,
    },
    /// Search archival memory (case and diacritics do not matter): at most
    /// `limit` passages (1 to 100), only those carrying every tag of
    /// `tags`, best first. Replies [`Reply::ArchivalHits`];
    /// `invalid_arguments` when `query` has no word.
    SearchArchival {
        query: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        tags: Vec<String>,
        #[serde(default = "default_limit")]
        #[ts(as = "Option<_>", optional)]
        limit: u32,
    },
    /// Store a passage in archival memory, with `tags` to find it by.
    /// Replies [`Reply::ArchivalAdded`]; `invalid_arguments` for an empty
    /// text.
    AddArchival {
        text: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        tags: Vec<String>,
    },
}

fn default_limit() -> u32 {
    50
}

/// The direct answer to an [`Op`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Done,
    RunStarted {
        run_id: String,
        conversation_id: String,
    },
    Conversations {
        conversations: Vec<ConversationSummary>,
    },
    Conversation {
        id: String,
        title: String,
        messages: Vec<ChatMessage>,
    },
    Timeline {
        calls: Vec<TimelineCall>,
    },
    Tools {
        tools: Vec<ToolSpec>,
    },
    Tool {
        tool: ToolSpec,
    },
    Runs {
        runs: Vec<RunInfo>,
    },
    // [replies: Letta's routes]
    /// A tool kept in the store; none: no tool of that name.
    StoredTool {
        tool: Option<StoredToolView>,
    },
    /// The client tools kept in the store, by name.
    ClientTools {
        tools: Vec<StoredToolView>,
    },
    /// An agent made over Letta's API.
    LettaAgent {
        agent: LettaAgentView,
    },
    /// What a run's model calls used: tokens, and `steps` (the calls).
    RunUsage {
        prompt_tokens: i64,
        completion_tokens: i64,
        steps: u32,
    },
    ToolResult {
        result: ToolResultV2,
    },
    Settings {
        settings: Settings,
        api_key_saved: bool,
        /// Whether a Brave Search API key is saved.
        search_key_saved: bool,
    },
    ModelStatus {
        status: ModelStatus,
    },
    Rules {
        rules: Vec<GateRuleRow>,
    },
    /// `data` is base64 of the file's bytes.
    Artifact {
        mime: String,
        data: String,
    },
    /// The user's current tab; both `None` when no browser runs.
    CurrentTab {
        url: Option<String>,
        title: Option<String>,
    },
    /// The alert inbox, unread first; `unread` counts every unread alert.
    Alerts {
        alerts: Vec<WatchAlert>,
        unread: u32,
    },
    // [replies: the CLI's tools, watch, auth and mcp commands]
    /// An account connected ([`Op::SignInAccount`]), with the scopes granted
    /// and those asked for but not granted (a partial consent).
    AccountConnected {
        name: String,
        provider: String,
        account: String,
        scopes_granted: Vec<String>,
        scopes_missing: Vec<String>,
        status: crate::tools::catalogue::data::AccountStatus,
    },
    /// What the provider's user info endpoint says about account `name`.
    AccountUserInfo {
        name: String,
        userinfo: Value,
    },
    /// An account disconnected; `revoked`: `true` at the provider, `false`
    /// the provider refused or could not be reached, none: it offers no
    /// revocation.
    AccountDisconnected {
        name: String,
        revoked: Option<bool>,
    },
    /// The accounts as stored, each a JSON object (never a token).
    AccountRecords {
        accounts: Vec<Value>,
    },
    /// An MCP server attached, with its tools as the model sees them
    /// (`server__tool`), in the order the server listed them.
    McpServerAttached {
        name: String,
        tools: Vec<String>,
    },
    /// The attached MCP servers as stored, each a JSON object (header
    /// names, never their values).
    McpServerRecords {
        servers: Vec<Value>,
    },
    Accounts {
        accounts: Vec<AccountView>,
    },
    McpServers {
        servers: Vec<McpServerView>,
    },
    /// The local API: `http://127.0.0.1:PORT` while served, and its token.
    ApiInfo {
        address: Option<String>,
        token: String,
    },
    // [replies: run history, audit and memory]
    /// Runs kept in the store, newest first.
    RunHistory {
        runs: Vec<RunRecord>,
    },
    /// One run kept in the store; `traces` only when asked for.
    RunDetail {
        run: RunRecord,
        steps: Vec<RunStep>,
        tool_calls: Vec<RunToolCall>,
        messages: Vec<RunMessage>,
        traces: Option<Vec<RunTrace>>,
    },
    /// Audit entries, newest first.
    AuditLog {
        entries: Vec<AuditEntry>,
    },
    /// The core memory blocks.
    MemoryBlocks {
        blocks: Vec<MemoryBlockView>,
    },
    /// The block as set; `created` when it is new.
    MemoryBlockSet {
        block: MemoryBlockView,
        created: bool,
    },
    /// Changes to the core memory blocks, newest first.
    MemoryHistory {
        changes: Vec<MemoryChange>,
    },
    /// Archival passages found, best first.
    ArchivalHits {
        hits: Vec<ArchivalHitView>,
    },
    /// The archival passage stored.
    ArchivalAdded {
        id: String,
    },
}

/// A run kept in the store (running, or how it ended).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RunRecord {
    pub id: String,
    pub conversation_id: Option<String>,
    pub status: RunStatus,
    /// Why the loop stopped: a [`StopReason`]'s name (runs recorded by
    /// older versions may hold other words).
    pub stop_reason: Option<String>,
    pub started_at: String,
    pub ended_at: Option<String>,
}

/// One model call of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RunStep {
    /// 0, 1, 2, ... within the run.
    pub idx: i64,
    pub model: String,
    /// `running`, `completed`, `failed` or `cancelled`.
    pub status: String,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub latency_ms: Option<i64>,
    pub error: Option<String>,
}

/// One tool call of a run, as executed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RunToolCall {
    pub call_id: String,
    /// The step (model call) that asked for it.
    pub step_idx: Option<i64>,
    pub tool: String,
    pub arguments: Value,
    pub reasoning: Option<String>,
    /// What ran it (`builtin`, `mcp`, `client`, ...).
    pub executor: String,
    pub status: ToolCallStatus,
    pub error_code: Option<ErrorCode>,
    pub duration_ms: i64,
    pub started_at: String,
}

/// One message a run added to its conversation, in OpenAI chat form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RunMessage {
    /// 1, 2, 3, ... within the conversation.
    pub seq: i64,
    pub role: Role,
    pub content: Option<String>,
    /// The assistant's `tool_calls` array, as the model sent it.
    pub tool_calls: Option<Value>,
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
}

/// One model call's request and raw response, as stored (redacted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RunTrace {
    pub id: i64,
    pub step_id: Option<String>,
    pub step_idx: Option<i64>,
    /// The URL called.
    pub endpoint: String,
    /// The HTTP status; none when there was no answer.
    pub status: Option<i64>,
    pub error: Option<String>,
    /// The request body as sent.
    pub request: Value,
    /// The response as received (SSE text or a body); none when nothing came.
    pub response: Option<String>,
    pub created_at: String,
}

/// An audit entry: the gate decision's fields lifted out of the stored
/// detail (null for other events); a skill's own call (`skill_call`) adds
/// `call_id`, `status`, `error_code` and `outcome`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AuditEntry {
    pub id: i64,
    pub at: String,
    /// `gate_decision`, `skill_call`, `confirmation_answered`, ...
    pub event: String,
    pub tool: Option<String>,
    /// The scope the tool declares.
    pub declared: Value,
    /// The scope of the action as the gate classified it.
    pub effective: Option<PermissionScope>,
    /// `allow`, `ask` or `deny`.
    pub decision: Option<String>,
    /// Who acted or answered: `agent`, `user`, `gate`, a client, ...
    pub answered_by: String,
    pub origin: Value,
    pub run_id: Option<String>,
    pub args_hash: Value,
    pub reason: Value,
    pub reasons: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub call_id: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub status: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error_code: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub outcome: Option<Value>,
}

/// A core memory block as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MemoryBlockView {
    pub label: String,
    pub value: String,
    /// Characters used.
    pub chars: i64,
    pub char_limit: i64,
    pub updated_at: String,
}

/// A change to a core memory block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MemoryChange {
    pub label: String,
    /// `user`, `agent` or `system`.
    pub actor: String,
    pub at: String,
    /// `null` when the change created the block.
    pub old_value: Option<String>,
    pub new_value: String,
}

/// An archival passage found by a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ArchivalHitView {
    pub id: String,
    pub agent_id: String,
    pub text: String,
    pub tags: Vec<String>,
    pub created_at: String,
    /// The best-matching part of the text, matches in `[` `]`, cuts as `…`.
    pub snippet: String,
    /// bm25 score: lower (more negative) is a better match.
    pub score: f64,
}

/// An attached MCP server as the panel shows it (header names, never values).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct McpServerView {
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The command line, or the URL.
    pub target: String,
    pub header_names: Vec<String>,
    /// Its tools as the model sees them (`server__tool`).
    pub tools: Vec<String>,
    /// It runs now; else it starts on the next call.
    pub running: bool,
}

/// A connected OAuth account as the panel shows it (never a token).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AccountView {
    /// `provider:account`, what `DisconnectAccount` takes.
    pub name: String,
    pub provider: String,
    pub account: String,
    pub status: crate::tools::catalogue::data::AccountStatus,
    pub scopes_granted: Vec<String>,
}

/// A tool as the store keeps it, with its declaration as the registry has
/// it now (none: not registered now).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StoredToolView {
    pub id: String,
    pub name: String,
    pub description: String,
    pub executor: crate::tools::Executor,
    /// A client tool's Python source, as registered.
    pub source_code: Option<String>,
    pub requires_confirmation: bool,
    pub created_at: String,
    pub updated_at: String,
    pub spec: Option<ToolSpec>,
}

/// An agent made over Letta's API, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct LettaAgentView {
    pub id: String,
    pub name: String,
    pub system: String,
    /// What the agent was made with: `model` (its handle, or null),
    /// `tools` (names), `letta: true`, and `conversation_id` once a run
    /// made its conversation.
    pub config: Value,
    pub created_at: String,
    pub updated_at: String,
}

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

/// What a front end can change (no secrets: the API key is in the keyring).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct Settings {
    /// `ollama`, `openai`, `lmstudio`, `vllm`, `openrouter`, `gemini`, or none.
    #[serde(default)]
    pub preset: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// The browser executable; none: found on the machine.
    #[serde(default)]
    pub chromium: Option<String>,
    /// `en` or `vi`; none: the system's.
    #[serde(default)]
    pub language: Option<String>,
    /// Start Halley (in the tray) when the user logs in.
    #[serde(default)]
    pub autostart: bool,
    /// Where `web_search` searches (the Brave key is in the OS keyring).
    #[serde(default)]
    pub search: SearchSettings,
}

/// A web search provider of `web_search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SearchProvider {
    /// A SearXNG instance's JSON API (its URL in the settings).
    Searxng,
    /// The Brave Search API (its key in the OS keyring).
    Brave,
    /// DuckDuckGo's HTML results, read in the managed browser (no key).
    Duckduckgo,
}

/// The search settings: which providers `web_search` asks, in which order,
/// and where they are.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct SearchSettings {
    /// The providers to ask, in order (the next when one fails); empty:
    /// SearXNG (when its URL is set), Brave (when a key is saved), DuckDuckGo.
    #[serde(default)]
    pub order: Vec<SearchProvider>,
    /// The SearXNG instance, e.g. `https://searx.example.org` (none: not used).
    #[serde(default)]
    pub searxng_url: Option<String>,
    /// DuckDuckGo's HTML endpoint (none: `https://html.duckduckgo.com`).
    #[serde(default)]
    pub duckduckgo_url: Option<String>,
    /// The Brave Search API (none: `https://api.search.brave.com`).
    #[serde(default)]
    pub brave_url: Option<String>,
}

/// A conversation in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ConversationSummary {
    pub id: String,
    pub title: String,
    pub updated_at: String,
}

/// A message as the panel shows it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ChatMessage {
    /// `user`, `assistant` or `tool` (system messages are not shown).
    pub role: Role,
    pub content: Option<String>,
    pub run_id: Option<String>,
    /// For `tool`: which tool answered.
    pub tool_name: Option<String>,
    pub created_at: String,
}

/// One tool call of a run's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TimelineCall {
    pub call_id: String,
    pub tool: String,
    pub arguments: Value,
    pub reasoning: Option<String>,
    pub status: ToolCallStatus,
    pub error_code: Option<ErrorCode>,
    pub duration_ms: i64,
    pub started_at: String,
}

/// Whether the model endpoint answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelStatus {
    pub reachable: bool,
    pub base_url: String,
    pub models: Vec<String>,
    /// The model runs will use (configured, or the endpoint's first).
    pub model: Option<String>,
    /// When unreachable: what is wrong and how to start a model.
    pub message: Option<String>,
}

/// Check and tidy the search settings (blank is none; URLs must be http(s)).
pub fn tidy_search_settings(s: SearchSettings) -> crate::error::Result<SearchSettings> {
    let url = |v: Option<String>, what: &str| -> crate::error::Result<Option<String>> {
        let Some(v) = v.map(|s| s.trim().trim_end_matches('/').to_owned()).filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        match url::Url::parse(&v) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(Some(v)),
            _ => Err(crate::error::Error::invalid_arguments(format!("the {what} `{v}` is not an http(s) URL"))),
        }
    };
    let mut order = Vec::new();
    for p in s.order {
        if !order.contains(&p) {
            order.push(p);
        }
    }
    Ok(SearchSettings {
        order,
        searxng_url: url(s.searxng_url, "SearXNG URL")?,
        duckduckgo_url: url(s.duckduckgo_url, "DuckDuckGo URL")?,
        brave_url: url(s.brave_url, "Brave Search API URL")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn ops_read_from_the_json_a_front_end_sends() {
        let op: Op = serde_json::from_value(json!({"type": "send_message", "text": "Giá laptop?"})).unwrap();
        assert_eq!(op, Op::SendMessage { text: "Giá laptop?".into(), conversation_id: None });
        let op: Op =
            serde_json::from_value(json!({"type": "answer_confirmation", "id": "c1", "approved": true})).unwrap();
        assert_eq!(
            op,
            Op::AnswerConfirmation { id: "c1".into(), approved: true, user_edits: Map::new(), reason: String::new() }
        );
        assert!(serde_json::from_value::<Op>(json!({"type": "format_disk"})).is_err());
        let op: Op =
            serde_json::from_value(json!({"type": "add_rule", "tool": "browser_click", "decision": "never"})).unwrap();
        let tool = Some("browser_click".into());
        assert_eq!(op, Op::AddRule { site: None, tool, min_scope: None, decision: RuleDecision::Never, note: None });
        let maybe = json!({"type": "add_rule", "tool": "browser_click", "decision": "maybe"});
        assert!(serde_json::from_value::<Op>(maybe).is_err());
        let op: Op = serde_json::from_value(json!({"type": "list_alerts"})).unwrap();
        assert_eq!(op, Op::ListAlerts { limit: 50 });
        let op: Op = serde_json::from_value(json!({"type": "mark_alerts_read"})).unwrap();
        assert_eq!(op, Op::MarkAlertsRead { ids: None });
        let op: Op = serde_json::from_value(json!({"type": "mark_alerts_read", "ids": [3, 4]})).unwrap();
        assert_eq!(op, Op::MarkAlertsRead { ids: Some(vec![3, 4]) });
        assert!(serde_json::from_value::<Op>(json!({"type": "mark_alerts_read", "ids": ["3"]})).is_err());
        assert_eq!(serde_json::from_value::<Op>(json!({"type": "current_tab"})).unwrap(), Op::CurrentTab);
    }

    #[test]
    fn statuses_and_codes_are_the_strings_front_ends_know() {
        let ended = Event::RunEnded {
            run_id: "r".into(),
            conversation_id: "c".into(),
            status: RunStatus::Failed,
            stop_reason: StopReason::TooManyFailures,
            answer: None,
        };
        assert_eq!(
            serde_json::to_value(ended).unwrap(),
            json!({"type": "run_ended", "run_id": "r", "conversation_id": "c", "status": "failed",
                   "stop_reason": "too_many_failures", "answer": null})
        );
        let error = AgentEvent::Error { run_id: "r".into(), code: ErrorCode::ModelUnavailable, message: "m".into() };
        assert_eq!(
            serde_json::to_value(error).unwrap(),
            json!({"type": "error", "run_id": "r", "code": "model_unavailable", "message": "m"})
        );
        let call = TimelineCall {
            call_id: "c1".into(),
            tool: "browser_click".into(),
            arguments: json!({}),
            reasoning: None,
            status: ToolCallStatus::Error,
            error_code: Some(ErrorCode::Denied),
            duration_ms: 3,
            started_at: "t".into(),
        };
        let v = serde_json::to_value(call).unwrap();
        assert_eq!((&v["status"], &v["error_code"]), (&json!("error"), &json!("denied")));
        let message =
            ChatMessage { role: Role::Assistant, content: None, run_id: None, tool_name: None, created_at: "t".into() };
        assert_eq!(serde_json::to_value(message).unwrap()["role"], "assistant");
    }

    #[test]
    fn events_carry_their_type() {
        let ev = Event::Agent { run_id: "r".into(), event: AgentEvent::Token { text: "Xin ".into() } };
        assert_eq!(
            serde_json::to_value(ev).unwrap(),
            json!({"type": "agent", "run_id": "r", "event": {"type": "token", "text": "Xin "}})
        );
    }
}
