// Pure logic of the tool-call timeline: rows built from the agent's
// tool_call / tool_result events (or a stored run's TimelineCall list),
// the call's target, badge classes and duration labels.

import { scopeClass } from "../palette/catalogue";
import { creatorViewFits, hasCreatorView } from "../creator/creator";
import { resultView } from "./result-table";
import type {
  Artifact,
  Json,
  PermissionScope,
  RiskLevel,
  TimelineCall,
  ToolCallStatus,
  ToolResultV2,
  WireError,
} from "../protocol";

export type CallStatus = "running" | "ok" | "error";

export interface CallRow {
  id: string;
  runId: string;
  tool: string;
  arguments: Json;
  /** What the call acts on: a URL, a selector, an element ref... ("" when none). */
  target: string;
  reasoning: string | null;
  status: CallStatus;
  /**
   * The effective scope the gate graded for this call, from its result's
   * `permission_scope` (a click on "Mua ngay" is PAYMENT, not the click
   * tool's declared WRITE_NON_DESTRUCTIVE); null until the result comes in
   * (and for stored calls, which do not keep it).
   */
  scope: PermissionScope | null;
  /** The risk that goes with it (the result's `risk_level`). */
  risk: RiskLevel | null;
  durationMs: number | null;
  error: WireError | null;
  artifacts: Artifact[];
  currentUrl: string | null;
  /**
   * The result's data when it reads as tables (a skill's comparison,
   * options, itinerary: see result-table.ts) or as a creator skill's view
   * (creator.ts); null otherwise, so the rows of ordinary calls do not
   * keep whole pages.
   */
  data: Json | null;
  /**
   * Lines of the page the call read that address the assistant (the
   * result's `flagged`): the step gets a badge, the lines on demand.
   */
  flagged: string[];
  /**
   * What the call returned (its result's `data`), for the opened step:
   * kept whole up to 8,000 characters of JSON, else as its first
   * characters; null while running and for stored calls.
   */
  result: Json | null;
  /**
   * What the gate's question about this call named (the control's label,
   * the site), when the user was asked: a declined call has no result to
   * say it.
   */
  asked: { target: string | null; site: string | null } | null;
}

/** A result's data as a step keeps it: whole when small, else its start as text. */
export function keptResult(data: Json): Json | null {
  if (data === null) return null;
  const text = JSON.stringify(data);
  if (text === undefined) return null;
  return text.length <= 8000 ? data : `${text.slice(0, 7999)}…`;
}

/** Argument keys that name what a call acts on, most telling first. */
const TARGET_KEYS = ["url", "selector", "ref", "element", "query", "text_query", "tab_id", "path", "name", "key"];

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The call's target read from its arguments: url, then selector, ref, ... */
export function callTarget(args: Json): string {
  if (!isObject(args)) return "";
  for (const key of TARGET_KEYS) {
    const value = args[key];
    if (typeof value === "string" && value.trim() !== "") return value;
    if (typeof value === "number") return String(value);
  }
  return "";
}

/** The model's reason: the event's, else the `_reasoningForCall` argument. */
export function callReasoning(args: Json, reasoning?: string | null): string | null {
  if (typeof reasoning === "string" && reasoning.trim() !== "") return reasoning;
  if (isObject(args)) {
    const r = args["_reasoningForCall"];
    if (typeof r === "string" && r.trim() !== "") return r;
  }
  return null;
}

/** A row for a call the model just asked for. */
export function startedCall(runId: string, id: string, tool: string, args: Json, reasoning?: string | null): CallRow {
  return {
    id,
    runId,
    tool,
    arguments: args,
    target: callTarget(args),
    reasoning: callReasoning(args, reasoning),
    status: "running",
    scope: null,
    risk: null,
    durationMs: null,
    error: null,
    artifacts: [],
    currentUrl: null,
    data: null,
    flagged: [],
    result: null,
    asked: null,
  };
}

/** The row once its result came in: status, graded scope and risk, outcome. */
export function finishedCall(row: CallRow, result: ToolResultV2, durationMs: number): CallRow {
  return {
    ...row,
    status: result.status === "ok" ? "ok" : "error",
    scope: result.permission_scope,
    risk: result.risk_level,
    durationMs,
    error: result.error,
    artifacts: result.artifacts,
    currentUrl: result.current_url,
    data: result.error === null && (resultView(result.data) !== null || (hasCreatorView(row.tool) && creatorViewFits(row.tool, result.data))) ? result.data : null,
    flagged: flaggedLines(result.data),
    result: result.error === null ? keptResult(result.data) : null,
  };
}

/** The `flagged` lines of a result's data (text addressing the assistant). */
export function flaggedLines(data: Json): string[] {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return [];
  const flagged = data["flagged"];
  return Array.isArray(flagged) ? flagged.filter((l): l is string => typeof l === "string") : [];
}

/** A stored call's status as a row status (a stored call has ended). */
export function storedStatus(status: ToolCallStatus): CallStatus {
  return status === "ok" ? "ok" : "error";
}

/** A row from a stored run (OpenConversation + RunTimeline). */
export function storedCall(runId: string, call: TimelineCall): CallRow {
  const row = startedCall(runId, call.call_id, call.tool, call.arguments, call.reasoning);
  const status = storedStatus(call.status);
  return {
    ...row,
    status,
    durationMs: call.duration_ms,
    error:
      status === "error"
        ? {
            code: call.error_code ?? (call.status === "cancelled" ? "cancelled" : "internal"),
            message: call.error_code ?? call.status,
          }
        : null,
    result: call.result !== undefined && status === "ok" ? keptResult(call.result) : null,
  };
}

/** Screenshots among the call's artifacts. */
export function screenshots(row: CallRow): Artifact[] {
  return row.artifacts.filter((a) => a.type === "screenshot");
}

/** The scope badge's class ("scope-payment"), or "scope-unknown" before the result. */
export function scopeBadgeClass(scope: PermissionScope | null): string {
  return scope === null ? "scope-unknown" : scopeClass(scope);
}

export interface ScopeBadge {
  /** The scope shown: the one the gate graded for the call, null while it is not known. */
  scope: PermissionScope | null;
  className: string;
}

/** A call's scope badge: the effective scope the gate graded, or "pending" before the result. */
export function callScopeBadge(row: CallRow): ScopeBadge {
  return { scope: row.scope, className: scopeBadgeClass(row.scope) };
}

/** "850 ms", "1.2 s", "2 min 5 s"; "" when unknown. */
export function durationLabel(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms) || ms < 0) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** Calls grouped by run, runs in first-seen order. */
export function groupByRun(rows: readonly CallRow[]): { runId: string; calls: CallRow[] }[] {
  const groups = new Map<string, CallRow[]>();
  for (const row of rows) {
    const list = groups.get(row.runId);
    if (list) list.push(row);
    else groups.set(row.runId, [row]);
  }
  return [...groups].map(([runId, calls]) => ({ runId, calls }));
}

/**
 * The call a skill's step belongs to: steps are numbered under the
 * skill's call id ("call_1.2" is a step of "call_1"); null for a call of
 * the model.
 */
export function parentCall(id: string): string | null {
  const dot = id.lastIndexOf(".");
  return dot > 0 ? id.slice(0, dot) : null;
}

/**
 * The calls in timeline order with their depth: each skill's steps right
 * after the skill's call (a stored run lists them first: they ended
 * first), in their own order; a step whose skill is not there stays where
 * it is.
 */
export function nestSteps(rows: readonly CallRow[]): { row: CallRow; depth: number }[] {
  const key = (r: CallRow): string => `${r.runId}\u0000${r.id}`;
  const present = new Set(rows.map(key));
  const children = new Map<string, CallRow[]>();
  const roots: CallRow[] = [];
  for (const row of rows) {
    const parent = parentCall(row.id);
    const parentKey = parent === null ? null : `${row.runId}\u0000${parent}`;
    if (parentKey !== null && present.has(parentKey)) {
      const list = children.get(parentKey);
      if (list) list.push(row);
      else children.set(parentKey, [row]);
    } else roots.push(row);
  }
  const out: { row: CallRow; depth: number }[] = [];
  const visit = (row: CallRow, depth: number): void => {
    out.push({ row, depth });
    for (const child of children.get(key(row)) ?? []) visit(child, depth + 1);
  };
  for (const row of roots) visit(row, 0);
  return out;
}
