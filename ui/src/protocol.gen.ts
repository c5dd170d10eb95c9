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
 * How a control is acted on.
 */
export type Act = "click" | "enter_on" | "enter_in" | "space_on" | "type" | "keys" | "check" | "other";

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
 * The parts of an amount read from a product page (`2 × 10.745.000 ₫ +
 * 30.000 ₫ shipping`), in the amount's currency.
 */
export type AmountParts = { unit: number, quantity: number, shipping: number | null };

/**
 * Where an amount was read.
 */
export type AmountSource =
  | "request"
  | "page"
  | "variant"
  | "near_button"
  | "structured_data"
  | "price_element"
  | "assistant";

/**
 * An archival passage found by a search.
 */
export type ArchivalHitView = {
  id: string,
  agent_id: string,
  text: string,
  tags: Array<string>,
  created_at: string,
  /**
   * The best-matching part of the text, matches in `[` `]`, cuts as `…`
   * (for a passage found by meaning alone: its start).
   */
  snippet: string,
  /**
   * The fused score (reciprocal-rank fusion of the word and meaning
   * rankings): higher is a better match.
   */
  score: number,
  /** Its rank among the word matches (1 = best), if it is one. */
  word_rank?: number,
  /** Its rank by meaning (1 = nearest), if it was ranked by meaning. */
  meaning_rank?: number,
  /** Cosine similarity to the query, if it was ranked by meaning. */
  similarity?: number,
  /** For a passage read out of a file: its source's name. */
  source?: string,
  /** For a passage read out of a file: the file's name. */
  file?: string,
  /** For a passage read out of a file: the stored file's id. */
  file_id?: string,
  /** For a passage read out of a PDF: its page (1 = the first). */
  page?: number,
};

/**
 * An archival passage with its embedding status.
 */
export type ArchivalPassageView = {
  id: string,
  text: string,
  tags: Array<string>,
  created_at: string,
  status: EmbedStatusView,
  /** Why embedding it failed. */
  error?: string,
  /** When a failed passage is tried again. */
  retry_at?: string,
};

/**
 * Which rankings an archival search uses.
 */
export type ArchivalSearchMode = "both" | "words" | "meaning";

/**
 * Something a call produced that lives outside the result: a screenshot, a
 * downloaded file, a stored document. `ref` is a `file://` URL or a store id.
 */
export type Artifact = { type: ArtifactType, ref: string };

export type ArtifactType = "screenshot" | "html" | "download" | "text" | "json";

/**
 * An audit entry: the gate decision's fields lifted out of the stored
 * detail (null for other events); a skill's own call (`skill_call`) adds
 * `call_id`, `status`, `error_code` and `outcome`.
 */
export type AuditEntry = {
  id: number,
  at: string,
  /** `gate_decision`, `skill_call`, `confirmation_answered`, ... */
  event: string,
  tool: string | null,
  /** The scope the tool declares. */
  declared: JsonValue,
  /** The scope of the action as the gate classified it. */
  effective: PermissionScope | null,
  /** `allow`, `ask` or `deny`. */
  decision: string | null,
  /** Who acted or answered: `agent`, `user`, `gate`, a client, ... */
  answered_by: string,
  origin: JsonValue,
  run_id: string | null,
  args_hash: JsonValue,
  reason: JsonValue,
  reasons: JsonValue,
  call_id?: JsonValue,
  status?: JsonValue,
  error_code?: JsonValue,
  outcome?: JsonValue,
};

/**
 * How one of the user's values goes out.
 */
export type Carry = "form_url" | "form" | "link" | "url" | "arguments" | "fill" | "typed";

/**
 * What makes a control a challenge.
 */
export type ChallengeEvidence =
  | { "kind": "widget" }
  | { "kind": "frame", host: string }
  | { "kind": "field", meaning: string };

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
 * An amount of money an action involves.
 */
export type ConfirmAmount = {
  /** In the currency's major unit (21490000 for 21.490.000 ₫). */
  value: number,
  /** ISO 4217 code, when known. */
  currency: string | null,
  source: AmountSource,
  /**
   * How it adds up, when it is more than one price: the unit price, the
   * quantity the form sends, the shipping the page shows.
   */
  parts: AmountParts | null,
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
 * What a confirmed action does, in one word.
 */
export type ConfirmKind =
  | "pay"
  | "publish"
  | "delete"
  | "send"
  | "type"
  | "upload"
  | "open"
  | "close"
  | "ask"
  | "other";

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
  /**
   * Why it is asked: the gate's evidence, in English (the audit log's
   * words; the CLI and MCP show them).
   */
  risks: Array<string>,
  /**
   * The same evidence by kind, so a front end writes it in its own
   * language (`risks` holds the English sentence of each).
   */
  grading: Array<Grading>,
  /** The HTTP method of the form or request it sends (`POST`), if any. */
  method: string | null,
  scope: PermissionScope,
  risk_level: RiskLevel,
  /** RFC 3339; after it, no answer is a refusal. */
  expires_at: string,
  /** The run that asks (none: a direct call). */
  run_id: string | null,
  /**
   * What kind of thing will happen: the dialog writes its one plain
   * sentence from it, in the user's language.
   */
  kind: ConfirmKind,
  /**
   * The amount of money involved, when there is one: what the request
   * sends, else the page's cart or total, else the assistant's estimate.
   * (Boxed: it is the largest part, and the request rides in events.)
   */
  amount: ConfirmAmount | null,
  /** The site the data or the browser goes to (`shop.vn`, `127.0.0.1`). */
  site: string | null,
  /** The control acted on, as the page labels it ("Đặt hàng"). */
  target: string | null,
  /**
   * Why it is asked, in plain words (the dialog writes them in the
   * user's language); `risks` holds the technical grading.
   */
  plain: Array<PlainReason>,
};

/**
 * A control as reasons name it: its label (none: unlabelled) and role.
 */
export type Control = {
  label: string | null,
  /** `button`, `link`, `textbox`, else the tag. */
  role: string,
};

/**
 * A conversation in the list.
 */
export type ConversationSummary = { id: string, title: string, updated_at: string };

/**
 * A passage that failed to embed, and why.
 */
export type EmbedFailure = { passage_id: string, error: string };

/**
 * Where a passage is in being embedded.
 */
export type EmbedStatusView = "pending" | "embedding" | "done" | "failed";

/**
 * The API an embedder speaks.
 */
export type EmbedderApiKind = "ollama" | "openai";

/**
 * An embedder's settings.
 */
export type EmbedderSettingsView = {
  api: EmbedderApiKind,
  base_url: string,
  model: string,
  query_prefix: string,
  passage_prefix: string,
  /** `input_type: query|passage` is sent. */
  input_type: boolean,
  /** Not on this machine (the user allowed it). */
  remote: boolean,
  /** The vectors' length, read from the first answer. */
  dim: number | null,
};

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
  | { "type": "routines", name: string, status: string | null }
  | { "type": "account_sign_in", provider: string, url: string };

/**
 * Who runs a call: Halley itself, the client application that registered
 * the tool, the model (implicit: it produces the `_output` itself), or an
 * MCP server Halley attached (`halley mcp add`; the tool is
 * `<server>__<tool>`).
 */
export type Executor = "builtin" | "client" | "implicit" | "mcp";

/**
 * One line of another program's words that addresses the assistant.
 */
export type FlaggedLine = {
  /**
   * Where it is: `description`, `name` (the tool's own name: it is not
   * offered to the model), or `parameter NAME` (`a.b` nested, `a[]` an
   * array's items; `(default)`, `(enum)`, `(const)`: a value there).
   */
  place: string,
  /** The line as written (at most 200 characters). */
  line: string,
};

/**
 * A tool of another program (an MCP server, a client application) with
 * that program's own description of it: data for the model, fenced, never
 * instructions.
 */
export type ForeignToolView = {
  /** As the model sees it (`server__tool` for an MCP server's). */
  name: string,
  /** The program's description, as it wrote it. */
  description: string,
  /**
   * The lines of the description, or of its parameters' titles and
   * descriptions, that address the assistant (a prompt injection):
   * withheld from the model and shown to the user.
   */
  flagged: Array<FlaggedLine>,
};

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

/**
 * One piece of the gate's technical grading, by kind.
 */
export type Grading =
  | {
    "kind": "says",
    act: Act,
    control: Control,
    place: Place,
    /** The id, class, URL... that says it (none: the control's label). */
    place_text: string | null,
    /** The words found, as written (`buy now`). */
    phrase: string,
    means: Means,
    scope: PermissionScope,
  }
  | { "kind": "submits_form", act: Act, control: Control, to: string | null }
  | { "kind": "card_field", meaning: string, field: string }
  | { "kind": "delete_request" }
  | {
    "kind": "carries",
    key: string,
    how: Carry,
    to: string,
    act: Act | null,
    control: Control | null,
  }
  | { "kind": "upload", file: string | null, to: string }
  | { "kind": "close_unsaved" }
  | { "kind": "close_saved", declared: PermissionScope }
  | { "kind": "unread", act: Act }
  | { "kind": "no_scope", tool: string }
  | { "kind": "challenge", act: Act, control: Control, evidence: ChallengeEvidence }
  | { "kind": "scope_asks", scope: PermissionScope }
  | { "kind": "text", text: string };

export type JsonValue =
  | number
  | string
  | boolean
  | Array<JsonValue>
  | { [key in string]: JsonValue }
  | null;

/**
 * An agent made over Letta's API, as stored.
 */
export type LettaAgentView = {
  id: string,
  name: string,
  system: string,
  /**
   * What the agent was made with: `model` (its handle, or null),
   * `tools` (names), `letta: true`, and `conversation_id` once a run
   * made its conversation.
   */
  config: JsonValue,
  created_at: string,
  updated_at: string,
};

/**
 * A model server found on this computer ([`super::Op::FindLocalModels`]).
 */
export type LocalServer = {
  /** `Ollama`, `LM Studio`, `llama.cpp`, `vLLM`. */
  product: string,
  /** The preset to save with it (`ollama`); none: an unknown server. */
  preset: string | null,
  base_url: string,
  /** Its models (described when it says more than their ids). */
  status: ModelStatus,
};

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
  /**
   * Each tool with the server's own description and the lines Halley
   * flagged in it (withheld from the model).
   */
  described: Array<ForeignToolView>,
};

/**
 * What the words found mean.
 */
export type Means =
  | { "kind": "scope", meaning: string }
  | { "kind": "cancel_submits" }
  | { "kind": "cancel_only" }
  | { "kind": "message_outside_form" }
  | { "kind": "message_field", field: string }
  | { "kind": "form_no_message" };

/**
 * A core memory block as the user sees it.
 */
export type MemoryBlockView = {
  label: string,
  value: string,
  /** Characters used. */
  chars: number,
  char_limit: number,
  updated_at: string,
};

/**
 * A change to a core memory block.
 */
export type MemoryChange = {
  label: string,
  /** `user`, `agent` or `system`. */
  actor: string,
  at: string,
  /** `null` when the change created the block. */
  old_value: string | null,
  new_value: string,
};

/**
 * The embedder of archival memory as the user set it, and how far the
 * passages are.
 */
export type MemoryEmbedderView = {
  /** `null` when none is set (archival search is by words only). */
  settings: EmbedderSettingsView | null,
  pending: number,
  embedding: number,
  done: number,
  failed: number,
  /** The latest failures: passage id and reason. */
  failures: Array<EmbedFailure>,
};

/**
 * One model as the server describes it.
 */
export type ModelDetails = {
  name: string,
  /** On disk, in bytes. */
  size: number | null,
  /** `8.2B`. */
  parameter_size: string | null,
  /** `Q4_K_M`. */
  quantization: string | null,
  family: string | null,
  /**
   * Whether it calls tools natively (`tools` in its capabilities); none:
   * the server did not say.
   */
  tools: boolean | null,
  /** The longest context it was trained for, in tokens. */
  context_length: number | null,
};

/**
 * A model endpoint as typed in the settings or the first-run card, to be
 * tested before it is saved ([`super::Op::CheckModel`]). Blank is none: the
 * preset's (or saved) value.
 */
export type ModelEndpoint = {
  preset?: string | null,
  base_url?: string | null,
  model?: string | null,
  /** A key typed and not saved yet; none: the one saved for this endpoint. */
  api_key?: string | null,
};

/**
 * What a run gives the model in use.
 */
export type ModelInUse = {
  model: string,
  /** The model's own context, when the server says it. */
  context_length: number | null,
  /**
   * The most context a request gets: on Ollama, the largest `num_ctx`
   * asked (the model's context capped by `HALLEY_MAX_CONTEXT`); elsewhere
   * none (the server's own).
   */
  num_ctx: number | null,
  /** The prompt tokens a run keeps under (history compacted to fit). */
  prompt_budget: number,
  tool_calling: ToolCalling,
};

/**
 * What stops a run from using a model at an endpoint, said for a person
 * (the panel has its own words for each; [`ModelStatus::message`] keeps
 * the CLI's).
 */
export type ModelProblem =
  | { "kind": "not_running" }
  | { "kind": "no_models" }
  | { "kind": "not_pulled", model: string }
  | { "kind": "key_missing" }
  | { "kind": "key_refused" }
  | { "kind": "wrong_address" }
  | { "kind": "bad_address" }
  | { "kind": "other" };

/**
 * Whether the model endpoint answers, what it serves and what runs use.
 */
export type ModelStatus = {
  reachable: boolean,
  base_url: string,
  models: Array<string>,
  /** The model runs will use (configured, or the endpoint's first). */
  model: string | null,
  /**
   * When unreachable: what is wrong and how to start a model, in the
   * CLI's words (the panel shows [`ModelStatus::problem`] and this only
   * when the person asks for the commands).
   */
  message: string | null,
  /** What stops a run from using a model here, for a person. */
  problem: ModelProblem | null,
  /**
   * The product the endpoint is (`Ollama`, `LM Studio`, `OpenAI`), when
   * Halley knows it by its address or its settings.
   */
  product: string | null,
  /** `ollama` when the server is Ollama; none: an OpenAI-compatible server. */
  server: string | null,
  /**
   * Whether the settings (or the front end) name the model; else the
   * endpoint's first is used and the panel offers a choice.
   */
  chosen: boolean,
  /**
   * The models described, in the server's order (Ollama's); empty when
   * the server gives only ids.
   */
  details: Array<ModelDetails>,
  /** What a run gives [`ModelStatus::model`]. */
  in_use: ModelInUse | null,
  /** About the model in use (and a chosen model the server lacks). */
  warnings: Array<ModelWarning>,
  /**
   * Below this context, in tokens, a model is too small for a browsing
   * task (the panel marks such models in the list).
   */
  min_context: number,
};

/**
 * Something the user should know about the model in use.
 */
export type ModelWarning =
  | { "kind": "no_tools", model: string }
  | { "kind": "small_context", model: string, context: number, needed: number }
  | { "kind": "not_served", model: string };

/**
 * A request from a front end.
 */
export type Op =
  | {
    "type": "send_message",
    text: string,
    conversation_id?: string | null,
    /**
     * Open tabs (`browser_list_tabs` ids) the task is about ("Ask about
     * this page", `@tab`): each is read with the browser tools before
     * the model's first turn, fenced like any page text, and shown as
     * steps. A tab that is gone is a failed step, not a refused task.
     */
    tabs?: Array<string>,
  }
  | { "type": "stop", run_id?: string | null }
  | { "type": "list_runs" }
  | { "type": "stored_tool", name: string }
  | { "type": "list_client_tools" }
  | { "type": "register_client_schema", name: string, description?: string, parameters?: JsonValue }
  | {
    "type": "create_letta_agent",
    name?: string | null,
    model?: string | null,
    system?: string | null,
    tools?: Array<string> | null,
  }
  | { "type": "get_letta_agent", id: string }
  | { "type": "start_letta_run", agent_id: string, text: string, max_steps?: number | null }
  | { "type": "run_usage", run_id: string }
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
  | {
    "type": "list_conversations",
    limit?: number,
    /**
     * Only those that match every term: words of the user's messages,
     * the answers or the title (accents and case ignored), a site the
     * run visited (`tiki.vn`), a day (`2026-11-27` or `27/11/2026`).
     */
    query?: string,
  }
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
  | { "type": "check_model", endpoint?: ModelEndpoint | null }
  | { "type": "find_local_models" }
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
  | {
    "type": "sign_in_account",
    /** `google`, `github`, `microsoft` or `oidc`. */
    provider: string,
    issuer?: string | null,
    client_id?: string | null,
    client_secret?: string | null,
    scopes?: Array<string>,
    /** How long to wait for the sign-in, in seconds (at least 1). */
    timeout_secs: number,
  }
  | { "type": "open_sign_in_page", url: string }
  | { "type": "open_page", url: string }
  | { "type": "check_account", name: string }
  | { "type": "sign_out_account", name: string }
  | { "type": "list_account_records" }
  | {
    "type": "attach_mcp_server",
    name: string,
    url: string | null,
    headers: Array<string>,
    command: Array<string>,
  }
  | { "type": "list_mcp_server_records" }
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
  | { "type": "remove_mcp_server", name: string }
  | { "type": "run_history", limit?: number }
  | { "type": "show_run", run_id: string, traces?: boolean }
  | { "type": "audit_log", limit?: number }
  | { "type": "memory_blocks" }
  | { "type": "set_memory_block", label: string, value: string, limit?: number | null }
  | { "type": "memory_history", label?: string | null, limit?: number }
  | {
    "type": "search_archival",
    query: string,
    tags?: Array<string>,
    limit?: number,
    /** Words and meaning fused (the default), or one of them alone. */
    mode?: ArchivalSearchMode,
    /** Stored on or after this date (`2026-02-10`) or RFC 3339 time. */
    since?: string | null,
    /** Stored before this date (that day excluded) or time. */
    until?: string | null,
    /**
     * Only the passages read out of this source's files (its name);
     * `not_found` when there is no such source.
     */
    source?: string | null,
  }
  | { "type": "memory_embedder" }
  | {
    "type": "set_memory_embedder",
    base_url: string,
    model: string,
    api?: EmbedderApiKind | null,
    query_prefix?: string,
    passage_prefix?: string,
    input_type?: boolean,
    allow_remote?: boolean,
  }
  | { "type": "embed_archival" }
  | { "type": "list_archival", limit?: number }
  | { "type": "add_archival", text: string, tags?: Array<string> }
  | { "type": "save_routine", run_id: string, name: string }
  | { "type": "can_save_routine", run_id: string }
  | { "type": "list_routines" }
  | { "type": "show_routine", name: string }
  | { "type": "delete_routine", name: string }
  | {
    "type": "edit_routine_params",
    name: string,
    rename?: Array<[string, string]>,
    set?: Array<[string, string]>,
    require?: Array<string>,
  }
  | {
    "type": "run_routine",
    name: string,
    params?: Array<[string, string]>,
    after_interrupted?: boolean,
    /**
     * Keep what the user approves in this replay as the routine's
     * standing approvals: later replays sending exactly the same
     * request (destination, fields, an amount no higher) are not asked.
     */
    remember_approval?: boolean,
  }
  | { "type": "forget_routine_approvals", name: string }
  | { "type": "schedule_routine", name: string, every: string, at?: string }
  | { "type": "pause_routine", name: string, paused: boolean }
  | { "type": "unschedule_routine", name: string }
  | { "type": "set_routine_repair", name: string, allowed: boolean }
  | { "type": "create_source", name: string, description?: string }
  | { "type": "list_sources" }
  | { "type": "add_to_source", name: string, paths: Array<string> }
  | { "type": "source_files", name: string }
  | { "type": "delete_source", name: string };

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
 * Where a control says what it does.
 */
export type Place = "label" | "id" | "name" | "class" | "link" | "form_action" | "form_id" | "form_name";

/**
 * One reason to ask, in plain words.
 */
export type PlainReason =
  | { "kind": "payment" }
  | { "kind": "publish" }
  | { "kind": "delete" }
  | { "kind": "submit" }
  | { "kind": "upload" }
  | { "kind": "personal_data", what: Array<string> }
  | { "kind": "other_site", site: string }
  | { "kind": "assistant_asks" }
  | { "kind": "untrusted" }
  | { "kind": "private_file" };

/**
 * The direct answer to an [`Op`].
 */
export type Reply =
  | { "type": "done" }
  | { "type": "challenge_answered", still_there: boolean }
  | { "type": "run_started", run_id: string, conversation_id: string }
  | { "type": "conversations", conversations: Array<ConversationSummary> }
  | { "type": "conversation", id: string, title: string, messages: Array<ChatMessage> }
  | { "type": "timeline", calls: Array<TimelineCall> }
  | { "type": "tools", tools: Array<ToolSpec> }
  | { "type": "tool", tool: ToolSpec }
  | { "type": "runs", runs: Array<RunInfo> }
  | { "type": "stored_tool", tool: StoredToolView | null }
  | { "type": "client_tools", tools: Array<StoredToolView> }
  | { "type": "letta_agent", agent: LettaAgentView }
  | { "type": "run_usage", prompt_tokens: number, completion_tokens: number, steps: number }
  | { "type": "tool_result", result: ToolResultV2 }
  | {
    "type": "settings",
    settings: Settings,
    api_key_saved: boolean,
    /** Whether a Brave Search API key is saved. */
    search_key_saved: boolean,
  }
  | { "type": "model_status", status: ModelStatus }
  | { "type": "local_models", servers: Array<LocalServer> }
  | { "type": "rules", rules: Array<GateRuleRow> }
  | { "type": "artifact", mime: string, data: string }
  | { "type": "current_tab", url: string | null, title: string | null }
  | { "type": "alerts", alerts: Array<WatchAlert>, unread: number }
  | {
    "type": "account_connected",
    name: string,
    provider: string,
    account: string,
    scopes_granted: Array<string>,
    scopes_missing: Array<string>,
    status: AccountStatus,
  }
  | { "type": "account_user_info", name: string, userinfo: JsonValue }
  | { "type": "account_disconnected", name: string, revoked: boolean | null }
  | { "type": "account_records", accounts: Array<JsonValue> }
  | { "type": "routine", routine: JsonValue }
  | { "type": "routine_savable", refusal: RoutineRefusal | null }
  | { "type": "routines", routines: Array<JsonValue> }
  | { "type": "routine_replayed", report: JsonValue }
  | {
    "type": "mcp_server_attached",
    name: string,
    tools: Array<string>,
    /**
     * Each tool with the server's own description and the lines of it
     * (or of its parameters' descriptions) that address the assistant.
     */
    described: Array<ForeignToolView>,
  }
  | { "type": "mcp_server_records", servers: Array<JsonValue> }
  | { "type": "accounts", accounts: Array<AccountView> }
  | { "type": "mcp_servers", servers: Array<McpServerView> }
  | { "type": "api_info", address: string | null, token: string }
  | { "type": "run_history", runs: Array<RunRecord> }
  | {
    "type": "run_detail",
    run: RunRecord,
    steps: Array<RunStep>,
    tool_calls: Array<RunToolCall>,
    messages: Array<RunMessage>,
    traces: Array<RunTrace> | null,
  }
  | { "type": "audit_log", entries: Array<AuditEntry> }
  | { "type": "memory_blocks", blocks: Array<MemoryBlockView> }
  | { "type": "memory_block_set", block: MemoryBlockView, created: boolean }
  | { "type": "memory_history", changes: Array<MemoryChange> }
  | { "type": "archival_hits", hits: Array<ArchivalHitView>, note?: string }
  | { "type": "memory_embedder", embedder: MemoryEmbedderView }
  | {
    "type": "archival_embedded",
    embedded: number,
    failed: number,
    error?: string,
    /**
     * Sources' files read into passages first, skipped (images, other
     * kinds) and failed (their reasons are in the sources' file lists).
     */
    files_read: number,
    files_skipped: number,
    files_failed: number,
  }
  | { "type": "archival_passages", passages: Array<ArchivalPassageView>, total: number }
  | { "type": "archival_added", id: string, not_embedded?: string }
  | { "type": "source", source: SourceView }
  | { "type": "sources", sources: Array<SourceView> }
  | { "type": "source_files", source: SourceView, files: Array<SourceFileView> }
  | { "type": "source_deleted", name: string, passages: number };

export type ResultStatus = "ok" | "error";

export type RiskLevel = "low" | "medium" | "high";

/**
 * Who wrote a message.
 */
export type Role = "system" | "user" | "assistant" | "tool";

/**
 * What stops a run from being saved as a routine.
 */
export type RoutineRefusal =
  | { "kind": "not_found" }
  | { "kind": "not_completed", status: string }
  | {
    "kind": "not_replayable",
    tool: string,
    /** Why, in the CLI's words. */
    why: string,
  }
  | { "kind": "nothing_to_replay" };

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

/**
 * One message a run added to its conversation, in OpenAI chat form.
 */
export type RunMessage = {
  /** 1, 2, 3, ... within the conversation. */
  seq: number,
  role: Role,
  content: string | null,
  /** The assistant's `tool_calls` array, as the model sent it. */
  tool_calls: JsonValue | null,
  tool_call_id: string | null,
  tool_name: string | null,
};

/**
 * A run kept in the store (running, or how it ended).
 */
export type RunRecord = {
  id: string,
  conversation_id: string | null,
  status: RunStatus,
  /**
   * Why the loop stopped: a [`StopReason`]'s name (runs recorded by
   * older versions may hold other words).
   */
  stop_reason: string | null,
  started_at: string,
  ended_at: string | null,
};

export type RunStatus = "running" | "paused" | "completed" | "failed" | "cancelled";

/**
 * One model call of a run.
 */
export type RunStep = {
  /** 0, 1, 2, ... within the run. */
  idx: number,
  model: string,
  /** `running`, `completed`, `failed` or `cancelled`. */
  status: string,
  prompt_tokens: number | null,
  completion_tokens: number | null,
  latency_ms: number | null,
  error: string | null,
};

/**
 * One tool call of a run, as executed.
 */
export type RunToolCall = {
  call_id: string,
  /** The step (model call) that asked for it. */
  step_idx: number | null,
  tool: string,
  arguments: JsonValue,
  reasoning: string | null,
  /** What ran it (`builtin`, `mcp`, `client`, ...). */
  executor: string,
  status: ToolCallStatus,
  error_code: ErrorCode | null,
  duration_ms: number,
  started_at: string,
};

/**
 * One model call's request and raw response, as stored (redacted).
 */
export type RunTrace = {
  id: number,
  step_id: string | null,
  step_idx: number | null,
  /** The URL called. */
  endpoint: string,
  /** The HTTP status; none when there was no answer. */
  status: number | null,
  error: string | null,
  /** The request body as sent. */
  request: JsonValue,
  /** The response as received (SSE text or a body); none when nothing came. */
  response: string | null,
  created_at: string,
};

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
  /** `ollama`, `openai`, `lmstudio`, `llamacpp`, `vllm`, `openrouter`, `gemini`, or none. */
  preset: string | null,
  base_url: string | null,
  model: string | null,
  /** The browser executable; none: found on the machine. */
  chromium: string | null,
  /** `en` or `vi`; none: the system's. */
  language: string | null,
  /** Start Halley (in the tray) when the user logs in. */
  autostart: boolean,
  /**
   * Open the managed browser's tabs again when the desktop app starts
   * (by their addresses; a page that answered a form is not reopened).
   * On unless turned off.
   */
  reopen_tabs?: boolean,
  /** Where `web_search` searches (the Brave key is in the OS keyring). */
  search: SearchSettings,
};

/**
 * How far a source's file is: waiting to be read, being read, its
 * passages being embedded, done (found by words and meaning), skipped (an
 * image: no OCR; a kind Halley does not read) or failed (with the reason).
 */
export type SourceFileStatus = "pending" | "extracting" | "embedding" | "done" | "skipped" | "failed";

/**
 * A file of a source.
 */
export type SourceFileView = {
  file_id: string,
  name: string,
  mime: string,
  size: number,
  status: SourceFileStatus,
  /** Why it was skipped or failed. */
  error?: string,
  /** What else to know (no embedder set: found by words only). */
  note?: string,
  /** Its pages, once read (PDF). */
  pages?: number,
  /** Passages read out of it. */
  passages: number,
  /** Of those, embedded with the current embedder. */
  embedded: number,
  added_at: string,
};

/**
 * A source: a knowledge base of the user's files attached to the agent.
 */
export type SourceView = {
  id: string,
  name: string,
  description: string,
  created_at: string,
  files: number,
  /** Passages read out of its files. */
  passages: number,
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
  | "waiting_for_client"
  | "interrupted";

/**
 * A tool as the store keeps it, with its declaration as the registry has
 * it now (none: not registered now).
 */
export type StoredToolView = {
  id: string,
  name: string,
  description: string,
  executor: Executor,
  /** A client tool's Python source, as registered. */
  source_code: string | null,
  requires_confirmation: boolean,
  created_at: string,
  updated_at: string,
  spec: ToolSpec | null,
  /**
   * A client tool's lines (of its description and its parameters') that
   * address the assistant: withheld from the model.
   */
  flagged: Array<FlaggedLine>,
};

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
  /**
   * What the call returned (its result's `data`), for the step opened
   * again: the stored tool message read back without its fence; at most
   * 16,000 characters of JSON, else their start as text. None for a
   * skill's steps and for failed calls.
   */
  result?: JsonValue | null,
};

/**
 * How a call ended.
 */
export type ToolCallStatus = "ok" | "error" | "cancelled";

/**
 * How a run's model calls tools.
 */
export type ToolCalling = "native" | "emulated";

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
  /** A routine's scheduled replay: the routine's id. */
  routine_id?: string | null,
};

/**
 * The wire form of an error: `{"code": "...", "message": "..."}`.
 */
export type WireError = { code: ErrorCode, message: string };
