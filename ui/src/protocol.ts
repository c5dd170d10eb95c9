// The contract with Halley's core, mirrored from `src/protocol.rs` (Op,
// Reply, Event and their payloads), `src/agent/run.rs` (AgentEvent),
// `src/gate/confirm.rs` (ConfirmationRequest, ChallengeRequest) and
// `src/tools/result.rs` (ToolResultV2). Serde shapes: enums tagged `type`
// in snake_case, Option<T> as `T | null`. Keep in step with the Rust side.

import type { PermissionScope, RiskLevel, ToolSpec } from "./types";

export type { PermissionScope, RiskLevel, ToolSpec } from "./types";

/** Any JSON value (serde_json::Value). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// ---- Tool results (src/tools/result.rs, src/error.rs) ----

export type ResultStatus = "ok" | "error";
export type ArtifactType = "screenshot" | "html" | "download" | "text" | "json";

export interface Artifact {
  type: ArtifactType;
  /** A `file://` URL or a store id. */
  ref: string;
}

/** error.rs `ErrorCode`, snake_case (kept open: new codes must not break the UI). */
export type ErrorCode = string;

export interface WireError {
  code: ErrorCode;
  message: string;
}

export interface ToolResultV2 {
  status: ResultStatus;
  trace_id: string;
  /**
   * The call's effective scope, as the gate graded what it really did (or
   * would have done, when refused); the tool's declared scope only when the
   * call never reached the gate (bad arguments, element not found...).
   */
  permission_scope: PermissionScope;
  /** The risk that goes with it: the tool's declared risk, raised to what the scope implies. */
  risk_level: RiskLevel;
  current_url: string | null;
  artifacts: Artifact[];
  data: Json;
  error: WireError | null;
}

// ---- Gate (src/gate/confirm.rs) ----

export interface ConfirmField {
  name: string;
  label: string;
  /** The value, or `••••` and its last characters when sensitive. */
  value: string;
  masked: boolean;
}

export interface ConfirmationRequest {
  id: string;
  tool: string;
  action_summary: string;
  fields: ConfirmField[];
  destination: string | null;
  url: string | null;
  origin: string | null;
  page_total: string | null;
  risks: string[];
  scope: PermissionScope;
  risk_level: RiskLevel;
  /** RFC 3339. */
  expires_at: string;
}

export interface ChallengeRequest {
  tab_id: string;
  url: string;
  /** `captcha`, `otp`, `2fa` or `login`. */
  challenge_type: string;
  page_hint: string | null;
}

// ---- Agent events (src/agent/run.rs) ----

export type AgentEvent =
  | { type: "token"; text: string }
  | { type: "tool_call"; id: string; name: string; arguments: Json; reasoning?: string }
  | { type: "tool_result"; id: string; name: string; result: ToolResultV2; duration_ms: number }
  | { type: "confirmation_request"; request: ConfirmationRequest }
  | { type: "challenge"; request: ChallengeRequest }
  | { type: "resumed" }
  | { type: "final"; run_id: string; text: string; steps: number }
  | { type: "error"; run_id: string; code: string; message: string };

// ---- Protocol (src/protocol.rs) ----

export interface Settings {
  /** `ollama`, `openai`, `lmstudio`, `vllm`, `openrouter`, `gemini`, or null. */
  preset: string | null;
  base_url: string | null;
  model: string | null;
  chromium: string | null;
  /** `en` or `vi`; null: the system's. */
  language: string | null;
  autostart: boolean;
}

export const PRESETS = ["ollama", "openai", "lmstudio", "vllm", "openrouter", "gemini"] as const;

export interface ConversationSummary {
  id: string;
  title: string;
  updated_at: string;
}

export interface ChatMessage {
  /** `user`, `assistant` or `tool`. */
  role: string;
  content: string | null;
  run_id: string | null;
  tool_name: string | null;
  created_at: string;
}

export interface TimelineCall {
  call_id: string;
  tool: string;
  arguments: Json;
  reasoning: string | null;
  status: string;
  error_code: string | null;
  duration_ms: number;
  started_at: string;
}

export interface ModelStatus {
  reachable: boolean;
  base_url: string;
  models: string[];
  model: string | null;
  message: string | null;
}

/** A standing gate rule (store/gate_rules.rs `GateRuleRow`; the Reply types it as a JSON value). */
export interface GateRule {
  id: string;
  kind?: string;
  site: string | null;
  tool: string | null;
  min_scope?: PermissionScope | null;
  decision: string;
  note?: string;
  created_at?: string;
}

export type RuleDecision = "allow" | "ask" | "never";

export type Op =
  | { type: "send_message"; text: string; conversation_id?: string | null }
  | { type: "stop" }
  | { type: "answer_confirmation"; id: string; approved: boolean; user_edits?: JsonObject; reason?: string }
  | { type: "answer_challenge"; id: string; done: boolean }
  | { type: "show_challenge"; id: string }
  | { type: "list_conversations"; limit?: number }
  | { type: "open_conversation"; id: string }
  | { type: "run_timeline"; run_id: string }
  | { type: "list_tools" }
  | { type: "call_tool"; name: string; args: Json }
  | { type: "get_settings" }
  | { type: "save_settings"; settings: Settings }
  | { type: "save_api_key"; key: string }
  | { type: "delete_api_key" }
  | { type: "check_model" }
  | { type: "list_rules" }
  | { type: "add_rule"; site?: string | null; tool?: string | null; decision: string }
  | { type: "remove_rule"; id: string }
  | { type: "read_artifact"; reference: string }
  | { type: "set_paused"; paused: boolean };

export type Reply =
  | { type: "done" }
  | { type: "run_started"; run_id: string; conversation_id: string }
  | { type: "conversations"; conversations: ConversationSummary[] }
  | { type: "conversation"; id: string; title: string; messages: ChatMessage[] }
  | { type: "timeline"; calls: TimelineCall[] }
  | { type: "tools"; tools: ToolSpec[] }
  | { type: "tool_result"; result: ToolResultV2 }
  | { type: "settings"; settings: Settings; api_key_saved: boolean }
  | { type: "model_status"; status: ModelStatus }
  | { type: "rules"; rules: GateRule[] }
  | { type: "artifact"; mime: string; data: string };

export type ReplyOf<T extends Reply["type"]> = Extract<Reply, { type: T }>;

export type Event =
  | { type: "agent"; run_id: string; event: AgentEvent }
  | {
      type: "run_ended";
      run_id: string;
      conversation_id: string;
      /** `completed`, `failed` or `cancelled`. */
      status: string;
      stop_reason: string;
      answer: string | null;
    }
  | { type: "confirmation_waiting"; request: ConfirmationRequest }
  | { type: "confirmation_closed"; id: string; approved: boolean }
  | { type: "challenge_waiting"; id: string; request: ChallengeRequest }
  | { type: "challenge_closed"; id: string }
  | { type: "paused"; paused: boolean };

/** How `invoke("op")` rejects. */
export interface OpError {
  code: string;
  message: string;
}

/** Narrow any rejection to an OpError. */
export function toOpError(error: unknown): OpError {
  if (typeof error === "object" && error !== null) {
    const e = error as { code?: unknown; message?: unknown };
    if (typeof e.code === "string") {
      return { code: e.code, message: typeof e.message === "string" ? e.message : e.code };
    }
    if (error instanceof Error) return { code: "internal", message: error.message };
  }
  return { code: "internal", message: String(error) };
}

/** A reply of the expected kind, or an OpError saying what came instead. */
export function expectReply<T extends Reply["type"]>(reply: Reply, type: T): ReplyOf<T> {
  if (reply.type !== type) {
    throw { code: "internal", message: `expected a ${type} reply, got ${reply.type}` } satisfies OpError;
  }
  return reply as ReplyOf<T>;
}
