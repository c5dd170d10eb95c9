//! The direct answer to an `Op`: [`Reply`], and the views it carries.

use super::*;

/// The direct answer to an [`Op`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Done,
    /// A challenge answered: `still_there` when the user said done while
    /// the page still shows it (it still waits for them).
    ChallengeAnswered {
        still_there: bool,
    },
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
    /// The model servers found on this computer, in the order looked at.
    LocalModels {
        servers: Vec<LocalServer>,
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
    /// A routine: its name, id, source run, plan (steps, parameters, the
    /// answer's template) and, when shown, its latest replays.
    Routine {
        routine: Value,
    },
    /// Whether a run can be saved as a routine: `refusal` says why not.
    RoutineSavable {
        refusal: Option<super::RoutineRefusal>,
    },
    /// Every routine, by name.
    Routines {
        routines: Vec<Value>,
    },
    /// A replay's report: its status, the answer written from the template,
    /// each step's outcome, where and why it stopped (with a screenshot).
    RoutineReplayed {
        report: Value,
    },
    /// An MCP server attached, with its tools as the model sees them
    /// (`server__tool`), in the order the server listed them.
    McpServerAttached {
        name: String,
        tools: Vec<String>,
        /// Each tool with the server's own description and the lines of it
        /// (or of its parameters' descriptions) that address the assistant.
        described: Vec<ForeignToolView>,
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
    /// Archival passages found, best first; `note` when meaning could not
    /// be used (no embedder, the embedder down, passages not embedded yet).
    ArchivalHits {
        hits: Vec<ArchivalHitView>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        note: Option<String>,
    },
    /// The embedder of archival memory and the passages' statuses.
    MemoryEmbedder {
        embedder: MemoryEmbedderView,
    },
    /// What embedding the waiting passages did: `error` says why a batch
    /// failed (its passages are `failed` and tried again later).
    ArchivalEmbedded {
        embedded: u64,
        failed: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        error: Option<String>,
        /// Sources' files read into passages first, skipped (images, other
        /// kinds) and failed (their reasons are in the sources' file lists).
        #[serde(default)]
        files_read: u64,
        #[serde(default)]
        files_skipped: u64,
        #[serde(default)]
        files_failed: u64,
    },
    /// The latest archival passages with their embedding status, and how
    /// many there are in all.
    ArchivalPassages {
        passages: Vec<ArchivalPassageView>,
        total: i64,
    },
    /// The archival passage stored (and embedded, when an embedder is
    /// set): `not_embedded` says why the embedder could not embed it now
    /// (it is found by its words meanwhile, and tried again later).
    ArchivalAdded {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        not_embedded: Option<String>,
    },
    /// A source made.
    Source {
        source: SourceView,
    },
    /// The sources, by name.
    Sources {
        sources: Vec<SourceView>,
    },
    /// A source's files, in the order they were added, with their status.
    SourceFiles {
        source: SourceView,
        files: Vec<SourceFileView>,
    },
    /// A source deleted with its passages.
    SourceDeleted {
        name: String,
        passages: i64,
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
    /// The best-matching part of the text, matches in `[` `]`, cuts as `…`
    /// (for a passage found by meaning alone: its start).
    pub snippet: String,
    /// The fused score (reciprocal-rank fusion of the word and meaning
    /// rankings): higher is a better match.
    pub score: f64,
    /// Its rank among the word matches (1 = best), if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub word_rank: Option<u32>,
    /// Its rank by meaning (1 = nearest), if it was ranked by meaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub meaning_rank: Option<u32>,
    /// Cosine similarity to the query, if it was ranked by meaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub similarity: Option<f32>,
    /// For a passage read out of a file: its source's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source: Option<String>,
    /// For a passage read out of a file: the file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub file: Option<String>,
    /// For a passage read out of a file: the stored file's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub file_id: Option<String>,
    /// For a passage read out of a PDF: its page (1 = the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub page: Option<i64>,
}

/// A source: a knowledge base of the user's files attached to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SourceView {
    pub id: String,
    pub name: String,
    pub description: String,
    pub created_at: String,
    pub files: i64,
    /// Passages read out of its files.
    pub passages: i64,
}

/// How far a source's file is: waiting to be read, being read, its
/// passages being embedded, done (found by words and meaning), skipped (an
/// image: no OCR; a kind Halley does not read) or failed (with the reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SourceFileStatus {
    Pending,
    Extracting,
    Embedding,
    Done,
    Skipped,
    Failed,
}

/// A file of a source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SourceFileView {
    pub file_id: String,
    pub name: String,
    pub mime: String,
    pub size: i64,
    pub status: SourceFileStatus,
    /// Why it was skipped or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
    /// What else to know (no embedder set: found by words only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
    /// Its pages, once read (PDF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pages: Option<i64>,
    /// Passages read out of it.
    pub passages: i64,
    /// Of those, embedded with the current embedder.
    pub embedded: i64,
    pub added_at: String,
}

/// The embedder of archival memory as the user set it, and how far the
/// passages are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MemoryEmbedderView {
    /// `null` when none is set (archival search is by words only).
    pub settings: Option<EmbedderSettingsView>,
    pub pending: i64,
    pub embedding: i64,
    pub done: i64,
    pub failed: i64,
    /// The latest failures: passage id and reason.
    pub failures: Vec<EmbedFailure>,
}

/// An embedder's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct EmbedderSettingsView {
    pub api: EmbedderApiKind,
    pub base_url: String,
    pub model: String,
    pub query_prefix: String,
    pub passage_prefix: String,
    /// `input_type: query|passage` is sent.
    pub input_type: bool,
    /// Not on this machine (the user allowed it).
    pub remote: bool,
    /// The vectors' length, read from the first answer.
    pub dim: Option<i64>,
}

/// Where a passage is in being embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum EmbedStatusView {
    /// Waiting for the embedder (or for one to be set).
    Pending,
    /// Being embedded now.
    Embedding,
    /// Found by meaning.
    Done,
    /// The embedder failed (`error` says why); tried again later.
    Failed,
}

/// An archival passage with its embedding status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ArchivalPassageView {
    pub id: String,
    pub text: String,
    pub tags: Vec<String>,
    pub created_at: String,
    pub status: EmbedStatusView,
    /// Why embedding it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
    /// When a failed passage is tried again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub retry_at: Option<String>,
}

/// A passage that failed to embed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct EmbedFailure {
    pub passage_id: String,
    pub error: String,
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
    /// Each tool with the server's own description and the lines Halley
    /// flagged in it (withheld from the model).
    pub described: Vec<ForeignToolView>,
}

/// A tool of another program (an MCP server, a client application) with
/// that program's own description of it: data for the model, fenced, never
/// instructions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ForeignToolView {
    /// As the model sees it (`server__tool` for an MCP server's).
    pub name: String,
    /// The program's description, as it wrote it.
    pub description: String,
    /// The lines of the description, or of its parameters' titles and
    /// descriptions, that address the assistant (a prompt injection):
    /// withheld from the model and shown to the user.
    pub flagged: Vec<FlaggedLine>,
}

/// One line of another program's words that addresses the assistant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FlaggedLine {
    /// Where it is: `description`, `name` (the tool's own name: it is not
    /// offered to the model), or `parameter NAME` (`a.b` nested, `a[]` an
    /// array's items; `(default)`, `(enum)`, `(const)`: a value there).
    pub place: String,
    /// The line as written (at most 200 characters).
    pub line: String,
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
    /// A client tool's lines (of its description and its parameters') that
    /// address the assistant: withheld from the model.
    pub flagged: Vec<FlaggedLine>,
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
    /// What the call returned (its result's `data`), for the step opened
    /// again: the stored tool message read back without its fence; at most
    /// 16,000 characters of JSON, else their start as text. None for a
    /// skill's steps and for failed calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}
