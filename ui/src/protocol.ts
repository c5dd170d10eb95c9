// The contract with Halley's core. The types are generated from the Rust
// ones (`src/protocol.rs` and what it uses) into `protocol.gen.ts` by
// `make protocol`; this module re-exports them with the panel's helpers.

import type { JsonValue, PermissionScope, Reply } from "./protocol.gen";

export type * from "./protocol.gen";

/** Any JSON value (serde_json::Value). */
export type Json = JsonValue;
export type JsonObject = { [key: string]: Json };

/** Permission scopes, from harmless to hard to undo (riskier later). */
export const PERMISSION_SCOPES = [
  "READ_ONLY",
  "WRITE_NON_DESTRUCTIVE",
  "SUBMIT",
  "PUBLISH",
  "PAYMENT",
  "DESTRUCTIVE",
] as const satisfies readonly PermissionScope[];

/** The model providers the settings offer (`Settings.preset`), by their
 * product names, with their own address (a Rust unit test keeps these the
 * core's `Preset`s: src/agent/provider.rs). */
export const PRESET_INFO = [
  { id: "ollama", label: "Ollama", url: "http://127.0.0.1:11434/v1", local: true },
  { id: "lmstudio", label: "LM Studio", url: "http://127.0.0.1:1234/v1", local: true },
  { id: "llamacpp", label: "llama.cpp", url: "http://127.0.0.1:8080/v1", local: true },
  { id: "vllm", label: "vLLM", url: "http://127.0.0.1:8000/v1", local: true },
  { id: "openai", label: "OpenAI", url: "https://api.openai.com/v1", local: false },
  { id: "openrouter", label: "OpenRouter", url: "https://openrouter.ai/api/v1", local: false },
  { id: "gemini", label: "Gemini", url: "https://generativelanguage.googleapis.com/v1beta/openai", local: false },
] as const;

/** The preset ids, in the order shown. */
export const PRESETS = PRESET_INFO.map((p) => p.id);

/** A preset by its id. */
export function presetInfo(id: string | null | undefined): (typeof PRESET_INFO)[number] | undefined {
  return PRESET_INFO.find((p) => p.id === id);
}

export type ReplyOf<T extends Reply["type"]> = Extract<Reply, { type: T }>;

/** How `invoke("op")` rejects (the shell's `{code, message}`; any code, also a UI-side one). */
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
