//! What a front end asks: [`Op`].

use super::*;

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
        /// Open tabs (`browser_list_tabs` ids) the task is about ("Ask about
        /// this page", `@tab`): each is read with the browser tools before
        /// the model's first turn, fenced like any page text, and shown as
        /// steps. A tab that is gone is a failed step, not a refused task.
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        tabs: Vec<String>,
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
        /// Only those that match every term: words of the user's messages,
        /// the answers or the title (accents and case ignored), a site the
        /// run visited (`tiki.vn`), a day (`2026-11-27` or `27/11/2026`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        query: Option<String>,
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
    /// Whether a model endpoint answers, and its models: the saved one, or
    /// `endpoint` as typed (tested, not saved: its key, when typed, is used
    /// for this test only). Replies [`Reply::ModelStatus`].
    CheckModel {
        #[serde(default)]
        #[ts(optional = nullable)]
        endpoint: Option<ModelEndpoint>,
    },
    /// The model servers running on this computer (Ollama, LM Studio,
    /// llama.cpp, vLLM on their own ports), each with its models. Pulls
    /// nothing. Replies [`Reply::LocalModels`].
    FindLocalModels,
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
    /// Open a link the user followed in the panel (an answer's link: http,
    /// https) in a new tab of the managed browser, never in the panel.
    /// Replies [`Reply::Done`].
    OpenPage { url: String },
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
        /// Words and meaning fused (the default), or one of them alone.
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        mode: ArchivalSearchMode,
        /// Stored on or after this date (`2026-02-10`) or RFC 3339 time.
        #[serde(default)]
        #[ts(optional = nullable)]
        since: Option<String>,
        /// Stored before this date (that day excluded) or time.
        #[serde(default)]
        #[ts(optional = nullable)]
        until: Option<String>,
        /// Only the passages read out of this source's files (its name);
        /// `not_found` when there is no such source.
        #[serde(default)]
        #[ts(optional = nullable)]
        source: Option<String>,
    },
    /// The embedder of archival memory and the passages' statuses. Replies
    /// [`Reply::MemoryEmbedder`].
    MemoryEmbedder,
    /// Set the embedder of archival memory: Ollama's `/api/embed` at
    /// `base_url`, or an OpenAI-compatible server (`api`, else a URL ending
    /// in `/v1`); one embedding is asked for first (its dimension), and a
    /// new model embeds every passage again. A server not on this machine
    /// needs `allow_remote`. Replies [`Reply::MemoryEmbedder`];
    /// `invalid_arguments` for a bad URL or model, a remote server not
    /// allowed; `model_unavailable` / `model_error` when it does not answer
    /// with embeddings (nothing is saved).
    SetMemoryEmbedder {
        base_url: String,
        model: String,
        #[serde(default)]
        #[ts(optional = nullable)]
        api: Option<EmbedderApiKind>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        query_prefix: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        passage_prefix: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        input_type: bool,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        allow_remote: bool,
    },
    /// Read the sources' files waiting now into passages, then embed the
    /// passages waiting (the failed ones too), batch after batch. Replies
    /// [`Reply::ArchivalEmbedded`].
    EmbedArchival,
    /// The latest `limit` archival passages (1 to 100), newest first, each
    /// with its embedding status. Replies [`Reply::ArchivalPassages`].
    ListArchival {
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
    }, // [ops: routines]
    /// Keep finished run `run_id` as routine `name`: its calls as a plan
    /// (targets described by role, name and landmark; profile values as
    /// placeholders), the parameters proposed from it and its answer as a
    /// template. Replies [`Reply::Routine`]; `not_found` for an unknown run,
    /// `invalid_arguments` for a run that did not complete, one that used a
    /// tool a replay cannot redo (named), or a name taken.
    SaveRoutine { run_id: String, name: String },
    /// Whether run `run_id` can be saved as a routine, before it is asked
    /// (the panel offers "Save as routine" only then). Replies
    /// [`Reply::RoutineSavable`].
    CanSaveRoutine { run_id: String },
    /// Every routine. Replies [`Reply::Routines`].
    ListRoutines,
    /// One routine with its plan and its latest replays. Replies
    /// [`Reply::Routine`]; `not_found` for an unknown routine.
    ShowRoutine { name: String },
    /// Delete a routine and its replays' records. Replies [`Reply::Done`];
    /// `not_found` for an unknown routine.
    DeleteRoutine { name: String },
    /// Edit a routine's parameters: rename (`old`, `new`), set defaults
    /// (`name`, `value`), require some at each replay. Replies
    /// [`Reply::Routine`]; `invalid_arguments` naming an unknown parameter.
    EditRoutineParams {
        name: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        rename: Vec<(String, String)>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        set: Vec<(String, String)>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        require: Vec<String>,
    },
    /// Replay routine `name` without the model, each step through the gate
    /// as a live call (the caller's confirmer answers its questions),
    /// `params` (`name`, `value`) over its defaults. Replies
    /// [`Reply::RoutineReplayed`] when it ends (stopped or failed replays
    /// too, with the step and why); `not_found` for an unknown routine,
    /// `invalid_arguments` for a parameter unknown, missing or bad,
    /// `cancelled` when its last replay was cut short at a step that may
    /// have taken effect (until `after_interrupted`). A question whose
    /// request has the shape of one of the routine's standing approvals is
    /// answered yes without asking.
    RunRoutine {
        name: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        params: Vec<(String, String)>,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        after_interrupted: bool,
        /// Keep what the user approves in this replay as the routine's
        /// standing approvals: later replays sending exactly the same
        /// request (destination, fields, an amount no higher) are not asked.
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        remember_approval: bool,
    },
    /// Drop a routine's standing approvals: its replays ask again. Replies
    /// [`Reply::Routine`]; `not_found` for an unknown routine.
    ForgetRoutineApprovals { name: String },
    /// Replay routine `name` on a schedule, every `every` (`1d`, `6h`,
    /// `30m`; at least a minute), the first replay at once, or with `at`
    /// (`08:00`, the computer's local time) at the next time the clock
    /// shows it, each replay then on that time of day: the long-lived
    /// host's scheduler (the desktop app, `halley serve`) runs it in the
    /// background, its questions going to the panel and a notification, its
    /// result to the inbox. A paused schedule resumes. Replies
    /// [`Reply::Routine`]; `not_found` for an unknown routine,
    /// `invalid_arguments` for a bad period or time.
    ScheduleRoutine {
        name: String,
        every: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        at: Option<String>,
    },
    /// Pause (`paused`) or resume a routine's schedule (resumed: due at
    /// once, or at its time of day). Replies [`Reply::Routine`]; `not_found` for an unknown
    /// routine, `invalid_arguments` when it has no schedule.
    PauseRoutine { name: String, paused: bool },
    /// Take a routine off its schedule (its replays' history stays).
    /// Replies [`Reply::Routine`]; `not_found` for an unknown routine,
    /// `invalid_arguments` when it has no schedule.
    UnscheduleRoutine { name: String },
    /// Allow (`allowed`) or forbid the model to repair a step of routine
    /// `name` whose element cannot be found any more (the model configured
    /// in the settings; never a SUBMIT-or-above step): the repaired step is
    /// kept as a new version of the routine. Replies [`Reply::Routine`];
    /// `not_found` for an unknown routine.
    SetRoutineRepair { name: String, allowed: bool },
    /// Make a source (a knowledge base of the user's files attached to the
    /// agent). Replies [`Reply::Source`]; `invalid_arguments` for a bad
    /// name or one taken (case aside).
    CreateSource {
        name: String,
        #[serde(default)]
        #[ts(as = "Option<_>", optional)]
        description: String,
    },
    /// The sources, by name. Replies [`Reply::Sources`].
    ListSources,
    /// Store the files at `paths` (absolute paths or `file://` URLs) and
    /// put them into source `name`, to be read in the background. Nothing
    /// is stored when one of them is missing. Replies
    /// [`Reply::SourceFiles`] (the source's files); `not_found` for an
    /// unknown source, `file_not_found` for a missing file.
    AddToSource { name: String, paths: Vec<String> },
    /// The files of source `name` with their processing status. Replies
    /// [`Reply::SourceFiles`]; `not_found` for an unknown source.
    SourceFiles { name: String },
    /// Delete source `name` and the passages read out of its files (the
    /// stored files stay). Replies [`Reply::SourceDeleted`]; `not_found`
    /// for an unknown source.
    DeleteSource { name: String },
}

fn default_limit() -> u32 {
    50
}

/// Which rankings an archival search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ArchivalSearchMode {
    /// Words and meaning, fused (words alone without an embedder).
    #[default]
    Both,
    Words,
    Meaning,
}

/// The API an embedder speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum EmbedderApiKind {
    /// Ollama's native `POST /api/embed`.
    Ollama,
    /// `POST {base_url}/embeddings` (OpenAI-compatible).
    Openai,
}
