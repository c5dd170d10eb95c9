// Pure logic of the tool catalogue view: searching, filtering by status and
// grouping by kind. No DOM here, so it is unit-tested directly.

import { PERMISSION_SCOPES, type PermissionScope, type ToolKind, type ToolSpec, type ToolStatus } from "../protocol";

/** Group order on screen. */
export const KIND_ORDER: readonly ToolKind[] = ["primitive", "skill", "custom"];

export interface ToolGroup {
  kind: ToolKind;
  tools: ToolSpec[];
}

export type StatusFilter = ToolStatus | "all";

/** Lower case, without diacritics, underscores as spaces: "Đặt_vé" -> "dat ve". */
export function normalise(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .replace(/đ/g, "d")
    .replace(/Đ/g, "D")
    .toLowerCase()
    .replace(/[_\s]+/g, " ")
    .trim();
}

/** Whether every word of `query` occurs in the tool's name, description, kind, scope or needs. */
export function matches(tool: ToolSpec, query: string): boolean {
  const words = normalise(query).split(" ").filter((w) => w.length > 0);
  if (words.length === 0) return true;
  const haystack = normalise(
    [tool.name, tool.description, tool.kind, tool.permission_scope, tool.status, tool.needs ?? ""].join(" "),
  );
  return words.every((w) => haystack.includes(w));
}

/** The tools that match the query and the status filter, in catalogue order. */
export function filterTools(tools: readonly ToolSpec[], query: string, status: StatusFilter = "all"): ToolSpec[] {
  return tools.filter((t) => (status === "all" || t.status === status) && matches(t, query));
}

/** Non-empty groups in KIND_ORDER, each keeping catalogue order. */
export function groupByKind(tools: readonly ToolSpec[]): ToolGroup[] {
  return KIND_ORDER.map((kind) => ({ kind, tools: tools.filter((t) => t.kind === kind) })).filter(
    (g) => g.tools.length > 0,
  );
}

/** 0 for READ_ONLY up to 5 for DESTRUCTIVE; -1 for a scope this UI does not know. */
export function scopeLevel(scope: PermissionScope): number {
  return PERMISSION_SCOPES.indexOf(scope);
}

/** A CSS class name for a scope badge, e.g. "scope-write-non-destructive". */
export function scopeClass(scope: PermissionScope): string {
  return `scope-${scope.toLowerCase().replace(/_/g, "-")}`;
}
