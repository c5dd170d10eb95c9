// Generated from the Rust types of src/protocol.rs (and the types they use)
// by `make protocol`: do not edit. ui/src/protocol.ts re-exports it.

/**
 * An account's standing.
 */
export type AccountStatus = "connected" | "partial" | "needs_reconnect";

/**
 * A connected OAuth account as the panel shows it (never a token).
 */
export type AccountView = {
  /** `provider:account`, what `DisconnectAccount` takes. */
  name: string,
  provider: string,
  account: string,
  status: AccountStatus,
  scopes_granted: Array<string>,
};

/**
 * What a run reports while it goes (`halley run --json` prints these).
 */
export type AgentEvent =
  | { "type": "token", text: string }
  | { "type": "tool_call", id: string, name: string, arguments: JsonValue, reasoning?: string }
  | { "type": "tool_result", id: string, name: string, result: ToolResultV2, duration_ms: number }
  | { "type": "confirmation_request", request: ConfirmationRequest }
  | { "type": "challenge", request: ChallengeRequest }
  | { "type": "resumed" }
  | { "type": "final", run_id: string, text: string, steps: number }
  | { "type": "error", run_id: string, code: ErrorCode, message: string };

/**
 * Something a call produced that lives outside the result: a screenshot, a
 * downloaded file, a stored document. `ref` is a `file://` URL or a store id.
 */
export type Artifact = { type: ArtifactType, ref: string };

export type ArtifactType = "screenshot" | "html" | "download" | "text" | "json";

/**
 * A challenge handed to the user.
 */
export type ChallengeRequest = {
  /** The tab holding it (`tab-2`). */
  tab_id: string,
  url: string,
  challenge_type: ChallengeType,
  /** Where to look, in the assistant's words. */
  page_hint: string | null,
  /** The run that waits (none: a direct call). */
  run_id: string | null,
};

/**
 * The kind of challenge the user must solve.
 */
export type ChallengeType = "captcha" | "otp" | "2fa" | "login";

/**
 * A message as the panel shows it again.
 */
export type ChatMessage = {
  /** `user`, `assistant` or `tool` (system messages are not shown). */
  role: Role,
  content: string | null,
  run_id: string | null,
  /** For `tool`: which tool answered. */
  tool_name: string | null,
  created_at: string,
};

/**
 * One field of a form that would be sent.
 */
export type ConfirmField = {
  name: string,
  label: string,
  /** The value, or `••••` and its last characters when it is sensitive. */
  value: string,
  masked: boolean,
};

/**
 * What the user is asked to approve, written by code from the real
 * action: never the model's own description of it.
 */
export type ConfirmationRequest = {
  id: string,
  tool: string,
  /** One sentence: what will happen, where. */
  action_summary: string,
  /** The form fields that would be sent (sensitive values masked). */
  fields: Array<ConfirmField>,
  /** Where the data or the browser goes. */
  destination: string | null,
  /** The page it happens on. */
  url: string | null,
  origin: string | null,
  /** A price or total read from the page. */
  page_total: string | null,
  /** Why it is asked: the evidence, in plain words. */
  risks: Array<string>,
  scope: PermissionScope,
  risk_level: RiskLevel,
  /** RFC 3339; after it, no answer is a refusal. */
  expires_at: string,
  /** The run that asks (none: a direct call). */
  run_id: string | null,
};

/**
 * A conversation in the list.
 */
export type ConversationSummary = { id: string, title: string, updated_at: string };

/**
 * Stable, machine-readable error codes. Serialized in `snake_case`; these
 * strings are part of the public contract (ToolResultV2 `error.code`).
 */
export type ErrorCode =
  | "invalid_arguments"
  | "unknown_tool"
  | "not_available"
  | "not_found"
  | "file_not_found"
  | "data_dir"
  | "storage"
  | "disk_full"
  | "database_busy"
  | "io"
  | "internal"
  | "element_not_found"
  | "not_interactable"
  | "timeout"
  | "navigation_failed"
  | "tab_not_found"
  | "browser_unavailable"
  | "browser_crashed"
  | "denied"
  | "model_unavailable"
  | "model_error"
  | "cancelled"
  | "keyring"
  | "auth_failed"
  | "search_failed";

/**
 * A fact the core tells every front end, as it happens.
 */
export type Event =
  | { "type": "run_started", run_id: string, conversation_id: string, front_end: FrontEnd }
  | { "type": "agent", run_id: string, event: AgentEvent }
  | {
    "type": "run_ended",
    run_id: string,
    conversation_id: string,
    status: RunStatus,
    stop_reason: StopReason,
    answer: string | null,
  }
  | { "type": "confirmation_waiting", request: ConfirmationRequest }
  | { "type": "confirmation_closed", id: string, approved: boolean }
  | { "type": "challenge_waiting", id: string, request: ChallengeRequest }
  | { "type": "challenge_closed", id: string }
  | { "type": "paused", paused: boolean }
  | { "type": "tools_changed" }
  | { "type": "watches", checked: number, unread: number }
  | { "type": "account_sign_in", provider: string, url: string };

/**
 * Who runs a call: Halley itself, the client application that registered
 * the tool, the model (implicit: it produces the `_output` itself), or an
 * MCP server Halley attached (`halley mcp add`; the tool is
 * `<server>__<tool>`).
 */
export type Executor = "builtin" | "client" | "implicit" | "mcp";

/**
 * Who started a run (or made a direct call).
 */
export type FrontEnd = "panel" | "cli" | "background" | "api" | "mcp";

/**
 * A standing rule, as stored and as `Reply::Rules` lists it.
 */
export type GateRuleRow = {
  id: string,
  kind: RuleKind,
  /** An origin (`https://shop.vn`) or a host pattern (`*.shop.vn`), normalized. */
  site: string | null,
  tool: string | null,
  /** The rule covers actions of at least this effective scope; `None`: any. */
  min_scope: PermissionScope | null,
  decision: RuleDecision,
  note: string,
  created_at: string,
};

export type JsonValue =
  | number
  | string
  | boolean
  | Array<JsonValue>
  | { [key in string]: JsonValue }
  | null;

/**
 * An attached MCP server as the panel shows it (header names, never values).
 */
export type McpServerView = {
  name: string,
  /** `stdio` or `http`. */
  transport: string,
  /** The command line, or the URL. */
  target: string,
  header_names: Array<string>,
  /** Its tools as the model sees them (`server__tool`). */
  tools: Array<string>,
  /** It runs now; else it starts on the next call. */
  running: boolean,
};

/**
 * Whether the model endpoint answers.
 */
export type ModelStatus = {
  reachable: boolean,
  base_url: string,
  models: Array<string>,
  /** The model runs will use (configured, or the endpoint's first). */
  model: string | null,
  /** When unreachable: what is wrong and how to start a model. */
  message: string | null,
};

/**
 * A request from a front end.
 */
export type Op =
  | { "type": "send_message", text: string, conversation_id?: string | null }
  | { "type": "stop", run_id?: string | null }
  | { "type": "list_runs" }
  | { "type": "register_tool", blueprint: JsonValue }
  | { "type": "unregister_tool", name: string }
  | {
    "type": "register_client_tool",
    name: string,
    description: string,
    source_code: string,
    requires_approval: boolean,
    client?: string,
    timeout_secs?: number,
  }
  | {
    "type": "answer_client_call",
    tool_call_id: string,
    /**
     * (Over JSON, a `null` result reads as none: the API's
     * `/api/v1/tool_results` keeps it.)
     */
    result?: JsonValue,
    error?: string,
    sensitive?: boolean,
  }
  | {
    "type": "answer_confirmation",
    id: string,
    approved: boolean,
    user_edits?: { [key in string]: JsonValue },
    reason?: string,
  }
  | { "type": "answer_challenge", id: string, done: boolean }
  | { "type": "show_challenge", id: string }
  | { "type": "list_conversations", limit?: number }
  | { "type": "open_conversation", id: string }
  | { "type": "run_timeline", run_id: string }
  | { "type": "list_tools" }
  | { "type": "call_tool", name: string, args: JsonValue }
  | { "type": "get_settings" }
  | { "type": "save_settings", settings: Settings }
  | { "type": "save_api_key", key: string }
  | { "type": "delete_api_key" }
  | { "type": "save_search_key", key: string }
  | { "type": "delete_search_key" }
  | { "type": "check_model" }
  | { "type": "list_rules" }
  | {
    "type": "add_rule",
    site?: string | null,
    tool?: string | null,
    min_scope?: PermissionScope | null,
    decision: RuleDecision,
    /** Why (shown with the rule). */
    note?: string | null,
  }
  | { "type": "remove_rule", id: string }
  | { "type": "read_artifact", reference: string }
  | { "type": "set_paused", paused: boolean }
  | { "type": "current_tab" }
  | { "type": "list_alerts", limit?: number }
  | { "type": "mark_alerts_read", ids?: Array<number> | null }
  | { "type": "list_accounts" }
  | {
    "type": "connect_account",
    /** `google`, `github`, `microsoft` or `oidc`. */
    provider: string,
    issuer?: string | null,
    client_id?: string | null,
    client_secret?: string | null,
    scopes?: Array<string>,
  }
  | { "type": "disconnect_account", name: string }
  | { "type": "api_info" }
  | { "type": "rotate_api_token" }
  | { "type": "list_mcp_servers" }
  | {
    "type": "add_mcp_server",
    name: string,
    url: string | null,
    headers: Array<string>,
    command: Array<string>,
  }
  | { "type": "remove_mcp_server", name: string };

/**
 * What a tool may do to the world, from harmless to hard to undo
 * (tools.md "permission scopes"). Ordered: a later variant is riskier.
 */
export type PermissionScope =
  | "READ_ONLY"
  | "WRITE_NON_DESTRUCTIVE"
  | "SUBMIT"
  | "PUBLISH"
  | "PAYMENT"
  | "DESTRUCTIVE";

/**
 * The direct answer to an [`Op`].
 */
export type Reply =
  | { "type": "done" }
  | { "type": "run_started", run_id: string, conversation_id: string }
  | { "type": "conversations", conversations: Array<ConversationSummary> }
  | { "type": "conversation", id: string, title: string, messages: Array<ChatMessage> }
  | { "type": "timeline", calls: Array<TimelineCall> }
  | { "type": "tools", tools: Array<ToolSpec> }
  | { "type": "tool", tool: ToolSpec }
  | { "type": "runs", runs: Array<RunInfo> }
  | { "type": "tool_result", result: ToolResultV2 }
  | {
    "type": "settings",
    settings: Settings,
    api_key_saved: boolean,
    /** Whether a Brave Search API key is saved. */
    search_key_saved: boolean,
  }
  | { "type": "model_status", status: ModelStatus }
  | { "type": "rules", rules: Array<GateRuleRow> }
  | { "type": "artifact", mime: string, data: string }
  | { "type": "current_tab", url: string | null, title: string | null }
  | { "type": "alerts", alerts: Array<WatchAlert>, unread: number }
  | { "type": "accounts", accounts: Array<AccountView> }
  | { "type": "mcp_servers", servers: Array<McpServerView> }
  | { "type": "api_info", address: string | null, token: string };

export type ResultStatus = "ok" | "error";

export type RiskLevel = "low" | "medium" | "high";

/**
 * Who wrote a message.
 */
export type Role = "system" | "user" | "assistant" | "tool";

/**
 * What the user said about the actions a rule covers.
 */
export type RuleDecision = "allow" | "ask" | "never";

/**
 * What a rule is keyed on; follows from which of site and tool are set.
 */
export type RuleKind = "site" | "tool" | "site_tool";

/**
 * A run going on.
 */
export type RunInfo = { run_id: string, conversation_id: string, front_end: FrontEnd };

export type RunStatus = "running" | "paused" | "completed" | "failed" | "cancelled";

/**
 * A web search provider of `web_search`.
 */
export type SearchProvider = "searxng" | "brave" | "duckduckgo";

/**
 * The search settings: which providers `web_search` asks, in which order,
 * and where they are.
 */
export type SearchSettings = {
  /**
   * The providers to ask, in order (the next when one fails); empty:
   * SearXNG (when its URL is set), Brave (when a key is saved), DuckDuckGo.
   */
  order: Array<SearchProvider>,
  /** The SearXNG instance, e.g. `https://searx.example.org` (none: not used). */
  searxng_url: string | null,
  /** DuckDuckGo's HTML endpoint (none: `https://html.duckduckgo.com`). */
  duckduckgo_url: string | null,
  /** The Brave Search API (none: `https://api.search.brave.com`). */
  brave_url: string | null,
};

/**
 * What a front end can change (no secrets: the API key is in the keyring).
 */
export type Settings = {
  /** `ollama`, `openai`, `lmstudio`, `vllm`, `openrouter`, `gemini`, or none. */
  preset: string | null,
  base_url: string | null,
  model: string | null,
  /** The browser executable; none: found on the machine. */
  chromium: string | null,
  /** `en` or `vi`; none: the system's. */
  language: string | null,
  /** Start Halley (in the tray) when the user logs in. */
  autostart: boolean,
  /** Where `web_search` searches (the Brave key is in the OS keyring). */
  search: SearchSettings,
};

/**
 * Why a run stopped (or is paused), stored as its snake_case name in
 * `runs.stop_reason` and told to front ends in `Event::RunEnded`.
 */
export type StopReason =
  | "end_turn"
  | "max_steps"
  | "too_many_failures"
  | "repeated_action"
  | "cancelled"
  | "model_error"
  | "model_unavailable"
  | "internal_error"
  | "waiting_for_confirmation"
  | "waiting_for_challenge"
  | "waiting_for_client";

/**
 * One tool call of a run's timeline.
 */
export type TimelineCall = {
  call_id: string,
  tool: string,
  arguments: JsonValue,
  reasoning: string | null,
  status: ToolCallStatus,
  error_code: ErrorCode | null,
  duration_ms: number,
  started_at: string,
};

/**
 * How a call ended.
 */
export type ToolCallStatus = "ok" | "error" | "cancelled";

/**
 * Primitive tools act once; skills are workflows over primitives; custom
 * tools are registered by the user or a client application.
 */
export type ToolKind = "primitive" | "skill" | "custom";

/**
 * The result envelope. Every key is always present: `current_url` and
 * `error` are `null` when they do not apply, `data` is `{}` on error
 * (docs/tool-results.md).
 */
export type ToolResultV2 = {
  status: ResultStatus,
  trace_id: string,
  /**
   * The call's effective scope: what the gate graded it to really do
   * (a click on "Mua ngay" is PAYMENT), also when it was refused; the
   * tool's declared scope only when the call never reached the gate.
   */
  permission_scope: PermissionScope,
  /** The risk that goes with that scope (never below the declared risk). */
  risk_level: RiskLevel,
  current_url: string | null,
  artifacts: Array<Artifact>,
  data: JsonValue,
  error: WireError | null,
};

/**
 * A tool's declaration.
 */
export type ToolSpec = {
  name: string,
  description: string,
  kind: ToolKind,
  executor: Executor,
  status: ToolStatus,
  permission_scope: PermissionScope,
  risk_level: RiskLevel,
  requires_confirmation: boolean,
  /** JSON Schema (draft 2020-12) of the arguments. */
  parameters: JsonValue,
  /** JSON Schema of `data` in a successful ToolResultV2. */
  output_schema: JsonValue,
  /** For planned tools: what the tool needs before it can run. */
  needs?: string | null,
  /**
   * For blueprints executed by a program (`_activity`): the built-in
   * tool that runs the call, or `client`.
   */
  activity?: string | null,
  /**
   * A successful result carries content read from a web page: it
   * reaches the model fenced as untrusted data.
   */
  page_content: boolean,
  /**
   * A call changes what the model's prompt is built from (core memory,
   * the profile's sensitive values): it is read again after the call.
   */
  edits_memory: boolean,
  /**
   * A call puts a question to the user (a confirmation, a challenge):
   * never two at once.
   */
  asks_user: boolean,
  /**
   * The JSON pointer of the argument naming another tool this one runs
   * (`browser_retry`: `/action/tool`): a call's result has that tool's
   * declarations too.
   */
  runs_tool_at?: string | null,
  /**
   * A successful call changes the user's watches or their alerts (what
   * the Watches view and the tray show): front ends are told.
   */
  changes_watches?: boolean,
};

/**
 * Whether calling the tool does something now.
 */
export type ToolStatus = "available" | "planned";

/**
 * One alert (the inbox).
 */
export type WatchAlert = {
  id: number,
  watch_id: string | null,
  rule: string,
  title: string,
  message: string,
  created_at: string,
  /** When the native notification went out (`None`: not yet). */
  sent_at: string | null,
  read: boolean,
  /** The notification button the user pressed (`open`, `snooze`, `stop`). */
  action?: string | null,
};

/**
 * The wire form of an error: `{"code": "...", "message": "..."}`.
 */
export type WireError = { code: ErrorCode, message: string };
