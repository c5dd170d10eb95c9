// Pure logic of the tool catalogue view: searching, filtering by status and
// grouping by kind. No DOM here, so it is unit-tested directly.

import { hasMessage, translator, type MessageKey, type Translate } from "../i18n";
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

/** Whether every word of `query` occurs in the tool's name, description,
 * kind, scope or needs, or in `also` (its human name and description in the
 * user's language). */
export function matches(tool: ToolSpec, query: string, also = ""): boolean {
  const words = normalise(query).split(" ").filter((w) => w.length > 0);
  if (words.length === 0) return true;
  const haystack = normalise(
    [tool.name, tool.description, tool.kind, tool.permission_scope, tool.status, tool.needs ?? "", also].join(" "),
  );
  return words.every((w) => haystack.includes(w));
}

/** The tools that match the query and the status filter, in catalogue order. */
export function filterTools(
  tools: readonly ToolSpec[],
  query: string,
  status: StatusFilter = "all",
  also: (tool: ToolSpec) => string = () => "",
): ToolSpec[] {
  return tools.filter((t) => (status === "all" || t.status === status) && matches(t, query, also(t)));
}

/** A tool as a person reads it: its name and description in their language
 * when there is one (`tool.NAME`, `toolDesc.NAME`), else its words
 * ("watch_pause" -> "Watch pause") and its own description. */
export function humanTool(tool: ToolSpec, t: Translate): { title: string; description: string } {
  const title = hasMessage(`tool.${tool.name}`) ? t(`tool.${tool.name}` as MessageKey) : humanWords(tool.name);
  const description = hasMessage(`toolDesc.${tool.name}`) ? t(`toolDesc.${tool.name}` as MessageKey) : tool.description;
  return { title, description };
}

function humanWords(name: string): string {
  const words = name.replace(/^browser_/, "").replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const bothLanguages = [translator("en"), translator("vi")];

/** A tool's words in both languages, for the palette's search: it is found
 * by "giá" in the English UI and by "price" in the Vietnamese one. */
export function searchWords(tool: ToolSpec): string {
  return bothLanguages
    .map((tr) => {
      const human = humanTool(tool, tr);
      return `${human.title} ${human.description}`;
    })
    .join(" ");
}

/** The palette's order: skills first (the things a person does), then the tools, then their own. */
export function paletteOrder(tools: readonly ToolSpec[]): ToolSpec[] {
  const rank: Record<ToolKind, number> = { skill: 0, primitive: 1, custom: 2 };
  return tools
    .map((tool, i) => ({ tool, i }))
    .sort((a, b) => (rank[a.tool.kind] ?? 3) - (rank[b.tool.kind] ?? 3) || a.i - b.i)
    .map((x) => x.tool);
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
