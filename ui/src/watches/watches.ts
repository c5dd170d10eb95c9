// The Watches view's pure logic: reading the watch tools' results
// (`watch_list`, `watch_history`), money as the user reads it (VND the
// Vietnamese way, 21.490.000 ₫), a rule in words, the price-history chart's
// geometry, and the `watch_create` arguments of the panel's form. Target
// prices go to the core as the user typed them: the core's one money parser
// reads them, never this file.

import type { Lang, MessageKey, Translate } from "../i18n";
import type { Json, JsonObject } from "../protocol";

export type Health = "ok" | "degraded" | "broken";

export interface WatchRule {
  op: string;
  value?: number | string | null;
  field?: string | null;
  against?: string | null;
}

/** A watch as `watch_list` gives it (the fields the view shows). */
export interface WatchInfo {
  watch_id: string;
  label: string;
  /** The product's name as its page last gave it. */
  name: string | null;
  url: string;
  status: string;
  health: Health;
  last_error: string | null;
  last_checked_at: string | null;
  next_check_at: string;
  price: number | null;
  currency: string | null;
  in_stock: boolean | null;
  frequency: string;
  /** After an alert, no other for this long (e.g. `1h`; `0m`: none). */
  cooldown: string;
  trigger_rules: WatchRule[];
  /** When it checks: not before `start`, not after `end` (RFC 3339). */
  window: { start: string | null; end: string | null } | null;
}

/** One check of `watch_history`. */
export interface Observation {
  checked_at: string;
  price: number | null;
  currency: string | null;
  /** A rule fired at this check (an alert point on the chart). */
  fired?: boolean;
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: Json | undefined): string | null => (typeof v === "string" ? v : null);
const num = (v: Json | undefined): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const list = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

function readRule(v: Json): WatchRule | null {
  if (!isObject(v) || typeof v.op !== "string") return null;
  const value = typeof v.value === "number" || typeof v.value === "string" ? v.value : null;
  return { op: v.op, value, field: text(v.field), against: text(v.against) };
}

function readHealth(v: Json | undefined): Health {
  return v === "degraded" || v === "broken" ? v : "ok";
}

/** The watches in `watch_list`'s `data` (anything malformed is skipped). */
export function readWatches(data: Json): WatchInfo[] {
  if (!isObject(data)) return [];
  return list(data.watches).flatMap((w): WatchInfo[] => {
    if (!isObject(w) || typeof w.watch_id !== "string") return [];
    return [
      {
        watch_id: w.watch_id,
        label: text(w.label) ?? "",
        name: text(w.name),
        url: text(w.url) ?? "",
        status: text(w.status) ?? "active",
        health: readHealth(w.health),
        last_error: text(w.last_error),
        last_checked_at: text(w.last_checked_at),
        next_check_at: text(w.next_check_at) ?? "",
        price: num(w.price),
        currency: text(w.currency),
        in_stock: typeof w.in_stock === "boolean" ? w.in_stock : null,
        frequency: text(w.frequency) ?? "",
        cooldown: text(w.cooldown) ?? "",
        trigger_rules: list(w.trigger_rules).flatMap((r) => readRule(r) ?? []),
        window: isObject(w.window) ? { start: text(w.window.start), end: text(w.window.end) } : null,
      },
    ];
  });
}

/** The checks in `watch_history`'s `data`, oldest first (it lists newest first). */
export function readHistory(data: Json): Observation[] {
  if (!isObject(data)) return [];
  return list(data.observations)
    .flatMap((o): Observation[] =>
      isObject(o) && typeof o.checked_at === "string"
        ? [{ checked_at: o.checked_at, price: num(o.price), currency: text(o.currency), fired: list(o.fired_rules).length > 0 }]
        : [],
    )
    .reverse();
}

/** What a watch is called: its label, else the product's name its page
 * gives (as its alerts say), else its page's address. */
export const watchName = (w: WatchInfo): string => (w.label.trim() !== "" ? w.label : w.name !== null && w.name.trim() !== "" ? w.name : w.url);

/** An amount with its currency: VND always the Vietnamese way
 * (`21.490.000 ₫`), others in the panel's language (`$1,299.99`). */
export function formatMoney(amount: number, currency: string | null, lang: Lang): string {
  if (currency === null || currency.toUpperCase() === "VND") {
    const n = new Intl.NumberFormat("vi-VN", { maximumFractionDigits: 0 }).format(amount);
    return currency === null ? n : `${n} ₫`;
  }
  try {
    return new Intl.NumberFormat(lang === "vi" ? "vi-VN" : "en-US", { style: "currency", currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A percentage the user's way: "9,8 %" in Vietnamese, "9.8 %" in English (at most one decimal). */
export function formatPercent(value: number, lang: Lang): string {
  const n = new Intl.NumberFormat(lang === "vi" ? "vi-VN" : "en-US", { maximumFractionDigits: 1 }).format(value);
  return `${n} %`;
}

/** A plain number the user's way ("1.234,5" in Vietnamese, "1,234.5" in English). */
export function formatNumber(value: number, lang: Lang): string {
  return new Intl.NumberFormat(lang === "vi" ? "vi-VN" : "en-US", { maximumFractionDigits: 2 }).format(value);
}

const SYMBOLS: Record<string, string> = { "<": "<", "<=": "≤", ">": ">", ">=": "≥", "==": "=", "!=": "≠" };

/** A rule in words, e.g. `price ≤ 19.990.000 ₫`, `drop of 10 % or more`. */
export function ruleText(rule: WatchRule, t: Translate, lang: Lang, currency: string | null): string {
  const field = rule.field ?? "price";
  const fieldName = field === "price" ? t("watchPrice") : field === "in_stock" ? t("watchInStock") : field;
  const money = typeof rule.value === "number" && field === "price" && rule.op !== "drop_pct";
  const value = money ? formatMoney(Number(rule.value), currency ?? "VND", lang) : String(rule.value ?? "");
  const symbol = SYMBOLS[rule.op];
  if (symbol !== undefined) return `${fieldName} ${symbol} ${value}`;
  switch (rule.op) {
    case "drop_pct":
      return t("ruleDropPct", { pct: typeof rule.value === "number" ? formatPercent(rule.value, lang) : value });
    case "all_time_low":
      return t("ruleAllTimeLow");
    case "back_in_stock":
      return t("ruleBackInStock");
    case "changed":
      return t("ruleChanged", { field: fieldName });
    case "contains":
      return t("ruleContains", { field: fieldName, value });
    default:
      return `${rule.op} ${value}`.trim();
  }
}

export const healthKey = (h: Health): MessageKey => `health.${h}`;

/** One dot of the chart, in the SVG's user units. */
export interface ChartPoint {
  x: number;
  y: number;
  price: number;
  at: string;
  /** A rule fired at this check. */
  fired: boolean;
}

export interface ChartBox {
  width: number;
  height: number;
  pad: number;
  /** Room for the price axis' labels on the left (default: `pad`). */
  left?: number;
  /** Room for the dates under the plot (default: `pad`). */
  bottom?: number;
}

export const CHART: ChartBox = { width: 360, height: 150, pad: 10, left: 92, bottom: 24 };

/** The prices the chart's vertical axis spans: the checks' and the target's. */
export interface ChartRange {
  lo: number;
  hi: number;
}

const priced = (history: Observation[]): (Observation & { price: number })[] =>
  history.filter((o): o is Observation & { price: number } => o.price !== null);

/** The lowest and highest of the checks' prices and the target; `null` for no priced check. */
export function chartRange(history: Observation[], target: number | null = null): ChartRange | null {
  const prices = priced(history).map((o) => o.price);
  if (prices.length === 0) return null;
  if (target !== null) prices.push(target);
  return { lo: Math.min(...prices), hi: Math.max(...prices) };
}

const round = (v: number): number => Math.round(v * 10) / 10;

/** Where `price` is drawn, in the SVG's user units (a flat range: the middle). */
export function chartY(price: number, range: ChartRange, box: ChartBox = CHART): number {
  const top = box.pad;
  const innerH = box.height - top - (box.bottom ?? box.pad);
  if (range.hi === range.lo) return round(top + innerH / 2);
  return round(top + (innerH * (range.hi - price)) / (range.hi - range.lo));
}

/** One point per check that read a price, oldest on the left, the lowest
 * price (or the target, when lower) at the bottom; a flat history is drawn
 * across the middle. */
export function chartPoints(history: Observation[], box: ChartBox = CHART, target: number | null = null): ChartPoint[] {
  const checks = priced(history);
  const range = chartRange(history, target);
  if (range === null) return [];
  const left = box.left ?? box.pad;
  const innerW = box.width - left - box.pad;
  return checks.map((o, i) => ({
    x: round(left + (checks.length === 1 ? innerW / 2 : (innerW * i) / (checks.length - 1))),
    y: chartY(o.price, range, box),
    price: o.price,
    at: o.checked_at,
    fired: o.fired === true,
  }));
}

/** An amount as the user typed it: `19.990.000 ₫`, `19990000`, `$1,299.99`;
 * `null` when it holds no number. */
export function parseAmount(text: string): number | null {
  const numeric = text.replace(/[^\d.,]/g, "");
  if (!/\d/.test(numeric)) return null;
  // VND (or dots/commas grouping thousands): whole units, every separator dropped.
  const grouped = /^\d{1,3}([.,]\d{3})+$/.test(numeric);
  if (/₫|đ|vnd/i.test(text) || grouped) return Number(numeric.replace(/[.,]/g, ""));
  const n = Number(numeric.replace(/,/g, ""));
  return Number.isFinite(n) ? n : null;
}

/** The watch's target price: its "at or below" rule's amount (a number, or
 * as typed). */
export function targetPrice(w: WatchInfo): number | null {
  const value = w.trigger_rules.find(isTarget)?.value;
  if (typeof value === "number") return value;
  return typeof value === "string" ? parseAmount(value) : null;
}

/** The cooldowns the edit form offers. */
export const COOLDOWNS = ["0m", "30m", "1h", "6h", "1d"] as const;

/** The SVG path through the points (`M x y L x y ...`); empty for none. */
export function linePath(points: ChartPoint[]): string {
  return points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x} ${p.y}`).join(" ");
}

/** How often the form's watches are checked. */
export const FREQUENCIES = ["30m", "1h", "6h", "1d"] as const;

export interface WatchForm {
  url: string;
  label: string;
  below: string;
  frequency: string;
}

export type FormResult = { ok: true; args: JsonObject } | { ok: false; error: MessageKey };

/** `watch_create`'s arguments from the form: alert when the price is at or
 * below the target (as typed, e.g. `19.990.000 ₫`: the core reads it). */
export function createArgs(form: WatchForm): FormResult {
  const url = form.url.trim();
  if (!/^https?:\/\/\S+$/i.test(url)) return { ok: false, error: "watchNeedsUrl" };
  const below = form.below.trim();
  if (below === "" || !/\d/.test(below)) return { ok: false, error: "watchNeedsTarget" };
  const frequency = (FREQUENCIES as readonly string[]).includes(form.frequency) ? form.frequency : "6h";
  const args: JsonObject = { target: { url }, trigger_rules: [{ op: "<=", value: below }], frequency };
  if (form.label.trim() !== "") args.label = form.label.trim();
  return { ok: true, args };
}

/** The rule the forms set: at or below a target price. */
const isTarget = (r: WatchRule): boolean => r.op === "<=" && (r.field === null || r.field === undefined || r.field === "price");

/** A rule as `watch_update` takes it back (no empty fields). */
function ruleArgs(r: WatchRule): JsonObject {
  const out: JsonObject = { op: r.op };
  if (r.value !== null && r.value !== undefined) out.value = r.value;
  if (r.field !== null && r.field !== undefined) out.field = r.field;
  if (r.against !== null && r.against !== undefined) out.against = r.against;
  return out;
}

/** An RFC 3339 time as a `datetime-local` input shows it (the user's time zone). */
export function toLocalInput(iso: string | null): string {
  if (iso === null) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** A `datetime-local` value (the user's time zone) as RFC 3339; `null` when it is no time. */
export function fromLocalInput(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The edit form of a watch. */
export interface EditForm {
  label: string;
  /** The target price as typed (empty: none). */
  below: string;
  frequency: string;
  /** `datetime-local` values (empty: none). */
  start: string;
  end: string;
  /** e.g. `1h`; `0m`: none. */
  cooldown: string;
}

/** The edit form's values for `w` as it is. */
export function editForm(w: WatchInfo, lang: Lang): EditForm {
  const target = w.trigger_rules.find(isTarget);
  const value = target?.value;
  const below = typeof value === "number" ? formatMoney(value, w.currency, lang).replace(/\u00a0/g, " ") : (value ?? "");
  return {
    label: w.label,
    below,
    frequency: w.frequency,
    start: toLocalInput(w.window?.start ?? null),
    end: toLocalInput(w.window?.end ?? null),
    cooldown: w.cooldown,
  };
}

/** `watch_update`'s arguments from the edit form: only what changed. The
 * target price replaces the watch's "at or below" rule (added when it has
 * none, removed when emptied: its other rules are kept as they are). */
export function editArgs(w: WatchInfo, form: EditForm, lang: Lang): FormResult {
  const was = editForm(w, lang);
  const args: JsonObject = { watch_id: w.watch_id };
  if (form.label.trim() !== was.label.trim()) args.label = form.label.trim();
  const below = form.below.trim();
  if (below !== was.below.trim()) {
    if (below !== "" && !/\d/.test(below)) return { ok: false, error: "watchNeedsTarget" };
    const rules = w.trigger_rules.map(ruleArgs);
    const at = w.trigger_rules.findIndex(isTarget);
    if (below === "") {
      if (at >= 0) rules.splice(at, 1);
    } else if (at >= 0) rules[at] = { ...rules[at], value: below };
    else rules.unshift({ op: "<=", value: below });
    if (rules.length === 0) return { ok: false, error: "watchNeedsRule" };
    args.trigger_rules = rules;
  }
  if (form.frequency !== was.frequency && /^\d+[mhd]$/.test(form.frequency)) args.frequency = form.frequency;
  if (form.cooldown !== was.cooldown && /^\d+[mhd]$/.test(form.cooldown)) args.cooldown = form.cooldown;
  if (form.start !== was.start || form.end !== was.end) {
    const window: JsonObject = {};
    for (const [key, value] of [["start", form.start], ["end", form.end]] as const) {
      if (value.trim() === "") continue;
      const time = fromLocalInput(value.trim());
      if (time === null) return { ok: false, error: "watchBadTime" };
      window[key] = time;
    }
    args.window = window;
  }
  if (Object.keys(args).length === 1) return { ok: false, error: "watchEditNothing" };
  return { ok: true, args };
}
