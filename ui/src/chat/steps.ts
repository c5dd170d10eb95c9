// Steps a person reads: each call of the timeline as a short sentence in
// the user's language with its page ("Opened laptop-abc.html — 127.0.0.1",
// "Read the price: 21.490.000 ₫", "Typed your full name into “Họ tên”"),
// and what it read, typed or sent for when the step is opened, the user's
// values masked. A step the user declined says so; it is not an error.

import { challengeWaitKey, hasMessage, type Lang, type Translate } from "../i18n";
import type { Json } from "../protocol";
import { formatMoney } from "../watches/watches";
import type { CallRow } from "./timeline";

type Obj = { [key: string]: Json };
const isObj = (v: Json | undefined | null): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: Json | undefined): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);

/** How the step ended, as the user sees it. */
export type StepOutcome = "running" | "done" | "declined" | "failed";

export function stepOutcome(row: CallRow): StepOutcome {
  if (row.status === "running") return "running";
  if (row.status === "ok") return "done";
  return row.error?.code === "denied" ? "declined" : "failed";
}

/** The host of a URL ("127.0.0.1", "tiki.vn"); null when it is none. */
export function hostOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    const u = new URL(url);
    return u.hostname !== "" ? u.hostname : null;
  } catch {
    return null;
  }
}

/** What a page is called in a sentence: its file ("laptop-abc.html"), else its title, else its host. */
export function pageName(url: string | null, title: string | null): string | null {
  if (url !== null) {
    try {
      const u = new URL(url);
      const last = u.pathname.split("/").filter((p) => p !== "").pop();
      if (last !== undefined) return decodeURIComponent(last);
    } catch {
      /* not a URL: the title or nothing */
    }
  }
  return title ?? hostOf(url);
}

/** The words of a profile key: "shopping.delivery.full_name" -> "full name". */
/**
 * A profile key or a sealed value's placeholder in words: its last part
 * (`travel.passport_no` → passport_no; `secret.msg.passport_3fa2c1` →
 * passport, its digest dropped), in the UI's language when the table knows
 * it ("số hộ chiếu"), else its words.
 */
const keyWords = (key: string, t?: Translate): string => {
  const last = (key.split(".").pop() ?? key).replace(/_[0-9a-f]{6,}$/, "");
  const known = `profileKey.${last.toLowerCase()}`;
  if (t !== undefined && hasMessage(known)) return t(known);
  return last.replace(/[_-]+/g, " ").trim();
};

const PROFILE = /^\{\{(?:profile|secret)\.([^}]+)\}\}$/;
const PLACEHOLDER = /\{\{(profile|secret)\.[^}]+\}\}/;

/** What was typed, as the user reads it: "your full name" for a profile value, the text for plain text. */
export function typedText(text: string, t: Translate): string {
  const whole = PROFILE.exec(text.trim());
  if (whole !== null) return t("step.yourValue", { what: keyWords(whole[1] ?? "", t) });
  if (PLACEHOLDER.test(text)) return t("step.yourDetails");
  const shown = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  return `“${shown}”`;
}

/** A value as the opened step shows it: the user's values masked. */
export function maskValue(value: string, t?: Translate): string {
  return value.replace(/\{\{(profile|secret)\.([^}]+)\}\}/g, (_w, _kind: string, key: string) => `•••• (${keyWords(key, t)})`);
}

/** The label of the element a step acted on: `input "Họ tên"` -> "Họ tên". */
export function elementLabel(element: string | null): string | null {
  if (element === null) return null;
  const m = /"([^"]+)"/.exec(element);
  return m?.[1] ?? null;
}

/** What the step acted on, read from its result, else its arguments. */
function targetLabel(row: CallRow): string | null {
  const fromResult = isObj(row.result) ? elementLabel(str(row.result["element"])) : null;
  if (fromResult !== null) return fromResult;
  if (row.asked?.target) return row.asked.target;
  const args = isObj(row.arguments) ? row.arguments : {};
  const selector = str(args["selector"]);
  if (selector !== null) {
    // A label a person reads (`text=Đặt hàng`, `role=button[name="Mua"]`);
    // a CSS selector is none.
    const named = /name=["']?([^"'\]]+)|^text=(.+)$/.exec(selector);
    return named?.[1] ?? named?.[2] ?? null;
  }
  return null;
}

/** The price a read step found ("21.490.000 ₫"), if its data has one. */
function priceRead(row: CallRow, lang: Lang): string | null {
  const data = isObj(row.result) && isObj(row.result["data"]) ? row.result["data"] : null;
  if (data === null) return null;
  const price = data["price"];
  if (typeof price !== "number") return null;
  return formatMoney(price, str(data["currency"]) ?? "VND", lang);
}

/** What a hand-off waits for: "Waiting for you to solve the CAPTCHA on shop.vn". */
export function challengeWaitSentence(type: string, host: string | null, t: Translate): string {
  return t(challengeWaitKey(type), { site: host ?? t("step.waitPage") });
}

/** The step as one short sentence in the user's language. */
export function stepSentence(row: CallRow, t: Translate, lang: Lang): string {
  const args = isObj(row.arguments) ? row.arguments : {};
  const result = isObj(row.result) ? row.result : {};
  const url = str(result["url"]) ?? row.currentUrl ?? str(args["url"]);
  const host = hostOf(url) ?? row.asked?.site ?? null;
  const on = (sentence: string): string => (host !== null ? `${sentence} — ${host}` : sentence);
  const done = row.status !== "running";
  switch (row.tool) {
    case "browser_navigate":
    case "browser_new_tab": {
      const page = pageName(url, str(result["title"])) ?? t("step.aPage");
      const sentence = t(done ? "step.opened" : "step.opening", { page });
      return page === host ? sentence : on(sentence);
    }
    case "browser_extract": {
      const price = priceRead(row, lang);
      if (price !== null) return t("step.readPrice", { price });
      return on(t("step.readPage"));
    }
    case "browser_switch_tab": {
      const tab = isObj(result["tab"]) ? result["tab"] : {};
      const page = pageName(str(tab["url"]) ?? url, str(tab["title"])) ?? str(args["tab_id"]) ?? t("step.aPage");
      return on(t("step.switched", { page }));
    }
    case "browser_read_text":
    case "browser_get_text":
    case "browser_snapshot":
    case "browser_detect_state":
      return on(t("step.readPage"));
    case "browser_screenshot":
      return on(t("step.screenshot"));
    case "browser_type": {
      // Not done (asked, declined, failed): what it was to do.
      const what = typedText(str(args["text"]) ?? "", t);
      const field = targetLabel(row);
      const ok = row.status === "ok";
      if (field !== null) return t(ok ? "step.typedInto" : "step.typeInto", { what, field: `“${field}”` });
      return t(ok ? "step.typed" : "step.type", { what });
    }
    case "browser_click": {
      const label = targetLabel(row);
      const ok = row.status === "ok";
      if (label !== null) return on(t(ok ? "step.clicked" : "step.click", { label: `“${label}”` }));
      return on(t(ok ? "step.clickedPage" : "step.clickPage"));
    }
    case "browser_press_key": {
      const keys = Array.isArray(args["keys"]) ? args["keys"].filter((k) => typeof k === "string").join(" + ") : str(args["key"]) ?? "";
      return on(t("step.pressed", { keys }));
    }
    case "browser_select_option":
      return on(t("step.chose", { value: `“${str(args["value"]) ?? str(args["label"]) ?? ""}”` }));
    case "browser_scroll":
      return on(t("step.scrolled"));
    case "browser_find":
      return on(t("step.lookedFor", { query: `“${str(args["query"]) ?? ""}”` }));
    case "web_search":
      return t("step.searched", { query: `“${str(args["query"]) ?? ""}”` });
    case "human_solve_challenge":
      if (!done) return challengeWaitSentence(str(args["challenge_type"]) ?? "other", host, t);
      return on(t("step.challenge"));
    case "user_profile_get":
      return t("step.profile");
    default: {
      // The catalogue's words for it; another program's tool by its name.
      const label = `tool.${row.tool}`;
      return hasMessage(label) ? t(label) : t("step.ran", { tool: row.tool });
    }
  }
}

/** Arguments a person reads in an opened step (the others are the tool's business: selectors, schemas, ids). */
const GIVEN = ["url", "query", "text", "value", "label", "key", "keys", "title", "content", "question", "name", "price", "target_price_vnd"];

/** Keys of a result that describe the call, not what it found. */
const NOT_FOUND_HERE = new Set([
  "http_status", "missing_fields", "confidence", "sources", "truncated", "trace_id", "navigated", "current", "id",
  "tab_id", "notes", "flagged", "waited_ms", "condition_met", "status", "element", "ref", "selector", "schema",
]);

/** At most this many lines of what a step read. */
const READ_LINES = 24;

/**
 * The opened step: what it was given that a person reads (masked) and what
 * it found, as (field, value) lines: the values of its result, not its
 * JSON (#43 item 4).
 */
export function stepDetails(row: CallRow, t?: Translate): { given: [string, string][]; read: [string, string | number | boolean][] } {
  const given: [string, string][] = [];
  if (isObj(row.arguments)) {
    for (const [k, v] of Object.entries(row.arguments)) {
      if (!GIVEN.includes(k)) continue;
      const text = typeof v === "string" ? v : Array.isArray(v) ? v.filter((x) => typeof x === "string").join(" + ") : typeof v === "number" ? String(v) : null;
      if (text !== null && text !== "") given.push([k, maskValue(text, t)]);
    }
  }
  return { given, read: row.result !== null ? resultFields(row.result, t) : [] };
}

/**
 * What a result found, as (field, value) lines a person reads: its values
 * by path, masked, without the keys that describe the call rather than what
 * it found, at most {@link READ_LINES}. The chat's opened steps and the
 * palette's results show it (#43 item 4).
 */
export function resultFields(result: Json, t?: Translate): [string, string | number | boolean][] {
  const read: [string, string | number | boolean][] = [];
  const walk = (v: Json, path: string[]): void => {
    if (read.length >= READ_LINES) return;
    if (typeof v === "string") {
      if (v.trim() !== "") read.push([path.join(" › "), maskValue(v.length > 300 ? `${v.slice(0, 299)}…` : v, t)]);
    } else if (typeof v === "number" || typeof v === "boolean") {
      read.push([path.join(" › "), v]);
    } else if (Array.isArray(v)) {
      v.slice(0, 10).forEach((x, i) => walk(x, [...path, String(i + 1)]));
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (NOT_FOUND_HERE.has(k) || k.startsWith("_")) continue;
        // A result's `data` is what it found: no heading of its own.
        walk(x, path.length === 0 && k === "data" ? path : [...path, k]);
      }
    }
  };
  walk(result, []);
  return read;
}

/** A field of a result as a person reads it: the table's word for it, else its key in words. */
export function fieldLabel(path: string, t: Translate): string {
  return path
    .split(" › ")
    .map((k) => {
      const key = `field.${k}`;
      return hasMessage(key) ? t(key) : k.replace(/_/g, " ");
    })
    .join(" › ");
}

/** A value as a person reads it: numbers grouped the locale's way, yes and no in words. */
export function fieldValue(v: string | number | boolean, t: Translate, lang: Lang): string {
  if (typeof v === "boolean") return t(v ? "yes" : "no");
  if (typeof v === "number") return v.toLocaleString(lang === "vi" ? "vi-VN" : "en-US", { maximumFractionDigits: 2 });
  return v;
}

/**
 * A failed step's error as the UI's language says it: in English the core's
 * message (it names what failed), in Vietnamese the error's kind in words,
 * never its code.
 */
export function errorSays(error: { code: string; message: string }, t: Translate, lang: Lang): string {
  if (lang === "en") return error.message;
  const key = `errorCode.${error.code}`;
  return hasMessage(key) ? t(key) : t("errorCode.other");
}
