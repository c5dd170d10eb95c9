// Pure logic of the creator skills' views (creator-view.ts draws them):
// the research notes with their citations, the calendar's week and month
// grids (dates as `YYYY-MM-DD`, computed in UTC so the machine's own zone
// never shifts a day; times as the skill wrote them, in the profile's zone),
// and the triage batch the user approves, edits or skips row by row. No
// DOM here, so it is unit-tested directly.

import type { Lang } from "../i18n";
import type { Json } from "../protocol";

type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: Json | undefined): string | null => (typeof v === "string" ? v : null);
const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The skills with a view of their own. */
export const CREATOR_VIEWS = ["creator_collect_research", "creator_plan_calendar", "creator_triage_inbox"] as const;
export type CreatorTool = (typeof CREATOR_VIEWS)[number];

export const hasCreatorView = (tool: string): tool is CreatorTool => (CREATOR_VIEWS as readonly string[]).includes(tool);

// ---- Research ----

export interface Citation {
  claim: string;
  url: string;
  quote: string;
}

export interface Research {
  /** The notes' files_store id. */
  notesRef: string | null;
  citations: Citation[];
  sources: string[];
  notes: string[];
  status: string;
}

/** A `creator_collect_research` result; null when the data is not one. */
export function readResearch(data: Json): Research | null {
  if (!isObject(data) || !("citations_map" in data || "notes_ref" in data)) return null;
  const citations = objects(data.citations).flatMap((c) => {
    const claim = str(c.claim);
    const url = str(c.url);
    return claim !== null && url !== null ? [{ claim, url, quote: str(c.quote) ?? "" }] : [];
  });
  // Older results: only the map (claim → URLs), no quotes.
  if (citations.length === 0 && isObject(data.citations_map)) {
    for (const [claim, urls] of Object.entries(data.citations_map)) for (const url of strings(urls)) citations.push({ claim, url, quote: "" });
  }
  const ref = str(data.notes_ref);
  return { notesRef: ref !== null && ref !== "" ? ref : null, citations, sources: strings(data.sources), notes: strings(data.notes), status: str(data.status) ?? "" };
}

/** A link's host for a short label ("vnexpress.net"); the text itself when it is no URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** Base64 (as ReadArtifact gives a file) to text, read as UTF-8. */
export function decodeText(base64: string): string {
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder("utf-8").decode(bytes);
}

// ---- Calendar ----

export interface Slot {
  /** `YYYY-MM-DD` in the profile's zone. */
  date: string;
  /** `HH:MM` in the profile's zone, null when the slot has no time. */
  time: string | null;
  channel: string;
  pillar: string | null;
  title: string;
}

export interface Calendar {
  slots: Slot[];
  backlog: string[];
  timeZone: string;
  notes: string[];
  status: string;
}

/** The local time the skill wrote (`2026-12-01T19:00:00+07:00` → `19:00`). */
export function slotTime(start: string | null): string | null {
  const m = start === null ? null : /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})/.exec(start);
  return m ? `${m[1]}:${m[2]}` : null;
}

/** A `creator_plan_calendar` result, slots in time order; null when the data is not one. */
export function readCalendar(data: Json): Calendar | null {
  if (!isObject(data) || !Array.isArray(data.calendar)) return null;
  const slots = objects(data.calendar).flatMap((s) => {
    const date = str(s.date);
    if (date === null || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return [];
    return [{ date, time: slotTime(str(s.start)), channel: str(s.channel) ?? "", pillar: str(s.pillar), title: str(s.title) ?? "" }];
  });
  slots.sort((a, b) => (a.date + (a.time ?? "")).localeCompare(b.date + (b.time ?? "")));
  return { slots, backlog: strings(data.backlog), timeZone: str(data.time_zone) ?? "", notes: strings(data.notes), status: str(data.status) ?? "" };
}

const DAY_MS = 86_400_000;
const toUtc = (date: string): number => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
const fromUtc = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const parts = (date: string): { y: number; m: number; d: number; weekday: number } => ({
  y: Number(date.slice(0, 4)),
  m: Number(date.slice(5, 7)),
  d: Number(date.slice(8, 10)),
  weekday: (new Date(toUtc(date)).getUTCDay() + 6) % 7,
});

export const addDays = (date: string, days: number): string => fromUtc(toUtc(date) + days * DAY_MS);

/** The Monday of the week `date` is in (weeks start on Monday, as in Vietnam and ISO 8601). */
export const mondayOf = (date: string): string => addDays(date, -parts(date).weekday);

/** The 7 days (Monday to Sunday) of the week `date` is in. */
export function weekDays(date: string): string[] {
  const monday = mondayOf(date);
  return Array.from({ length: 7 }, (_, i) => addDays(monday, i));
}

/** The first day of the month `months` after the month of `date`. */
export function addMonths(date: string, months: number): string {
  const d = new Date(toUtc(date));
  return fromUtc(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
}

/** The month of `date` as whole weeks (Monday first): 4 to 6 rows of 7 days. */
export function monthGrid(date: string): string[][] {
  const first = addMonths(date, 0);
  const next = addMonths(date, 1);
  const weeks: string[][] = [];
  for (let monday = mondayOf(first); monday < next; monday = addDays(monday, 7)) weeks.push(weekDays(monday));
  return weeks;
}

/** Whether two dates are in the same month. */
export const sameMonth = (a: string, b: string): boolean => a.slice(0, 7) === b.slice(0, 7);

/** The slots of one day, in time order. */
export const slotsOn = (slots: readonly Slot[], date: string): Slot[] => slots.filter((s) => s.date === date);

// Names written here rather than asked of Intl: ICU versions (node's,
// WebKitGTK's) abbreviate Vietnamese weekdays differently.
const WEEKDAYS: Record<Lang, string[]> = {
  en: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
  vi: ["T2", "T3", "T4", "T5", "T6", "T7", "CN"],
};
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** Short weekday names, Monday first ("Mon".."Sun"; "T2".."CN"). */
export const weekdayNames = (lang: Lang): string[] => [...WEEKDAYS[lang]];

/** A day without its year ("30 Nov"; "30/11"). */
function shortDay(date: string, lang: Lang): string {
  const { m, d } = parts(date);
  return lang === "vi" ? `${d}/${m}` : `${d} ${MONTHS[m - 1]?.slice(0, 3) ?? ""}`;
}

/** A day as a short label ("Mon 30 Nov"; "T2 30/11"). */
export const dayLabel = (date: string, lang: Lang): string => `${WEEKDAYS[lang][parts(date).weekday] ?? ""} ${shortDay(date, lang)}`;

/** The week's range ("30 Nov – 6 Dec 2026"; "30/11 – 6/12/2026"). */
export function weekLabel(date: string, lang: Lang): string {
  const days = weekDays(date);
  const last = days[6] ?? date;
  return `${shortDay(days[0] ?? date, lang)} – ${shortDay(last, lang)}${lang === "vi" ? "/" : " "}${parts(last).y}`;
}

/** The month's name ("December 2026"; "Tháng 12/2026"). */
export function monthLabel(date: string, lang: Lang): string {
  const { y, m } = parts(date);
  return lang === "vi" ? `Tháng ${m}/${y}` : `${MONTHS[m - 1] ?? ""} ${y}`;
}

/** Where the view opens: the first slot's day, else `today`. */
export const firstDay = (cal: Calendar, today: string): string => cal.slots[0]?.date ?? today;

// ---- Triage ----

export type CommentAction = "reply" | "hide" | "delete" | "block";
export const COMMENT_ACTIONS: readonly CommentAction[] = ["reply", "hide", "delete", "block"];
const isAction = (v: Json | undefined): v is CommentAction => typeof v === "string" && (COMMENT_ACTIONS as readonly string[]).includes(v);

export interface TriageRow {
  commentId: string;
  url: string;
  author: string;
  text: string;
  category: string;
  priority: string;
  summary: string;
  /** The suggested reply ("" when none). */
  reply: string;
  /** What the row does when approved: the policy's action, else a reply when one is suggested. */
  action: CommentAction;
}

/** The rows of a `creator_triage_inbox` result (one per comment); null when the data is not one. */
export function readTriage(data: Json): TriageRow[] | null {
  if (!isObject(data) || !Array.isArray(data.triage)) return null;
  const replies = new Map<string, string>();
  for (const r of objects(data.suggested_replies)) {
    const id = str(r.comment_id);
    const reply = str(r.reply);
    if (id !== null && reply !== null) replies.set(id, reply);
  }
  return objects(data.triage).flatMap((t) => {
    const commentId = str(t.comment_id) ?? "";
    if (commentId === "") return [];
    const reply = replies.get(commentId) ?? "";
    return [
      {
        commentId,
        url: str(t.url) ?? "",
        author: str(t.author) ?? "",
        text: str(t.text) ?? "",
        category: str(t.category) ?? "",
        priority: str(t.priority) ?? "",
        summary: str(t.summary) ?? "",
        reply,
        action: isAction(t.suggested_action) ? t.suggested_action : "reply",
      },
    ];
  });
}

export type Decision = "pending" | "approved" | "skipped";

/** The user's choice for one row: nothing is done unless it is approved. */
export interface RowChoice {
  decision: Decision;
  action: CommentAction;
  /** The reply's text as the user left it (the suggestion, edited). */
  text: string;
}

export const initialChoice = (row: TriageRow): RowChoice => ({ decision: "pending", action: row.action, text: row.reply });

/** One action of the batch, as the skill's `apply` takes it. */
export interface TriageAction {
  comment_id: string;
  action: CommentAction;
  text?: string;
}

export type BatchResult = { ok: true; apply: TriageAction[] } | { ok: false; error: "triageEmptyReply" | "triageNothingApproved"; commentId?: string };

/** The approved rows as a batch, in the table's order; a reply needs its text. */
export function batchOf(rows: readonly TriageRow[], choices: ReadonlyMap<string, RowChoice>): BatchResult {
  const apply: TriageAction[] = [];
  for (const row of rows) {
    const c = choices.get(row.commentId);
    if (c === undefined || c.decision !== "approved") continue;
    if (c.action === "reply") {
      const text = c.text.trim();
      if (text === "") return { ok: false, error: "triageEmptyReply", commentId: row.commentId };
      apply.push({ comment_id: row.commentId, action: "reply", text });
    } else apply.push({ comment_id: row.commentId, action: c.action });
  }
  return apply.length === 0 ? { ok: false, error: "triageNothingApproved" } : { ok: true, apply };
}

/**
 * The arguments that carry the batch out: the triage's own threads (and
 * `max_items`), the batch as `apply`. Each action is then confirmed by
 * the gate on its own (a reply is a PUBLISH, hide/delete/block DESTRUCTIVE).
 */
export function applyArgs(triageArgs: Json, apply: readonly TriageAction[]): Json {
  const args: JsonObject = { thread_urls: isObject(triageArgs) ? strings(triageArgs.thread_urls) : [], apply: apply.map((a) => ({ ...a })) };
  if (isObject(triageArgs) && typeof triageArgs.max_items === "number") args.max_items = triageArgs.max_items;
  return args;
}

/** What became of each action of an applied batch, by comment id. */
export function appliedOf(data: Json): Map<string, { done: boolean; error: string | null }> {
  const out = new Map<string, { done: boolean; error: string | null }>();
  if (!isObject(data)) return out;
  for (const a of objects(data.applied)) {
    const id = str(a.comment_id);
    if (id !== null) out.set(id, { done: a.done === true, error: str(a.error) });
  }
  return out;
}

/** Whether `data` reads as the view of `tool`: research, a calendar, a triage with comments (an applied batch has none). */
export function creatorViewFits(tool: CreatorTool, data: Json): boolean {
  if (tool === "creator_collect_research") return readResearch(data) !== null;
  if (tool === "creator_plan_calendar") return readCalendar(data) !== null;
  return (readTriage(data)?.length ?? 0) > 0;
}
