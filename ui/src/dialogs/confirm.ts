// Pure logic of the confirmation and challenge dialogs: reading the request
// from the page URL (`?id=` plus an optional base64url `?request=`), the
// countdown to `expires_at`, the user's edits of the fields, and the plain
// sentence, amount and reasons a person decides on.

import { scopeKey, toolLabel, type Lang, type MessageKey, type Translate } from "../i18n";
import type { Act, ConfirmAmount, ConfirmationRequest, ChallengeRequest, ConfirmField, Control, Grading, JsonObject, PermissionScope, PlainReason } from "../protocol";
import { formatMoney } from "../watches/watches";

/** Decode base64url (padding optional) as UTF-8 text; null when malformed. */
export function decodeBase64Url(text: string): string | null {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return null;
  const padded = b64 + "=".repeat((4 - (b64.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Encode UTF-8 text as base64url without padding (what the shell sends). */
export function encodeBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNullableString = (v: unknown): v is string | null => v === null || v === undefined || typeof v === "string";

/** Whether `value` has the shape of a ConfirmationRequest. */
export function isConfirmationRequest(value: unknown): value is ConfirmationRequest {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    isString(r.id) &&
    isString(r.tool) &&
    isString(r.action_summary) &&
    Array.isArray(r.fields) &&
    r.fields.every((f: unknown) => {
      const x = f as Record<string, unknown> | null;
      return x !== null && typeof x === "object" && isString(x.name) && isString(x.value) && typeof x.masked === "boolean";
    }) &&
    isNullableString(r.destination) &&
    isNullableString(r.url) &&
    isNullableString(r.page_total) &&
    Array.isArray(r.risks) &&
    isString(r.scope) &&
    isString(r.risk_level) &&
    isString(r.expires_at) &&
    isString(r.kind) &&
    Array.isArray(r.plain) &&
    Array.isArray(r.grading) &&
    isNullableString(r.method) &&
    isNullableString(r.site) &&
    isNullableString(r.target) &&
    (r.amount === null || r.amount === undefined || (typeof r.amount === "object" && typeof (r.amount as Record<string, unknown>).value === "number"))
  );
}

/** Whether `value` has the shape of a ChallengeRequest. */
export function isChallengeRequest(value: unknown): value is ChallengeRequest {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return isString(r.tab_id) && isString(r.url) && isString(r.challenge_type) && isNullableString(r.page_hint);
}

/** Parse a base64url JSON parameter, keeping it only when `check` accepts it. */
export function decodeParam<T>(param: string | null, check: (v: unknown) => v is T): T | null {
  if (param === null || param === "") return null;
  const text = decodeBase64Url(param);
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return check(value) ? value : null;
  } catch {
    return null;
  }
}

/** What the dialog page was opened with: `?id=` and maybe `?request=`. */
export function confirmParams(search: string): { id: string | null; request: ConfirmationRequest | null } {
  const params = new URLSearchParams(search);
  const request = decodeParam(params.get("request"), isConfirmationRequest);
  const id = params.get("id") ?? request?.id ?? null;
  // A request for another id than the one asked about is ignored.
  return { id, request: request !== null && request.id === id ? request : null };
}

/** Whole seconds left before `expiresAt` (RFC 3339), never negative; 0 when unreadable. */
export function secondsLeft(expiresAt: string, nowMs: number): number {
  const end = Date.parse(expiresAt);
  if (Number.isNaN(end)) return 0;
  return Math.max(0, Math.ceil((end - nowMs) / 1000));
}

/** "4:05", "0:09", "1:00:00". */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** How a field shows: masked ones fully hidden until revealed, then as the request carries them. */
export function displayValue(field: ConfirmField, revealed: boolean): string {
  if (!field.masked || revealed) return field.value;
  return "••••••";
}

/**
 * The user's edits as `user_edits`: only fields whose value changed, keyed by
 * name. A masked field left as its mask is never sent back.
 */
export function userEdits(fields: readonly ConfirmField[], edited: ReadonlyMap<string, string>): JsonObject {
  const edits: JsonObject = {};
  for (const field of fields) {
    const value = edited.get(field.name);
    if (value === undefined || value === field.value) continue;
    edits[field.name] = value;
  }
  return edits;
}

/** The amount as the user reads it: VND the Vietnamese way (21.490.000 ₫). */
export function amountText(amount: ConfirmAmount, lang: Lang): string {
  return formatMoney(amount.value, amount.currency, lang);
}

/** Whether the request is a payment: Approve then takes a tick and a click. */
export const isPayment = (req: ConfirmationRequest): boolean => req.kind === "pay" || req.scope === "PAYMENT";

/**
 * The one plain sentence of what will happen, in the user's language, from
 * what the gate read (never the model's words, except the assistant's own
 * question, quoted as such): "Pay 21.490.000 ₫ to shop.vn, by clicking
 * “Đặt hàng”."
 */
export function headline(req: ConfirmationRequest, t: Translate, lang: Lang): string {
  const target = req.target ?? "";
  let what: string;
  switch (req.kind) {
    case "pay":
      what = req.amount !== null ? t("confirmKind.payAmount", { amount: amountText(req.amount, lang) }) : t("confirmKind.pay");
      break;
    case "type":
      what = target !== "" ? t("confirmKind.type", { target: `“${target}”` }) : t("confirmKind.typeAny");
      break;
    case "ask":
      return t("confirmKind.ask", { question: req.action_summary.replace(/^The assistant asks:\s*/, "") });
    case "other":
      what = t("confirmKind.other", { tool: toolLabel(req.tool, t) });
      break;
    default:
      what = t(`confirmKind.${req.kind}`);
  }
  if (req.site !== null && req.site !== "") {
    const to = (req.kind === "pay" && req.amount !== null) || req.kind === "send" || req.kind === "upload";
    what = t(to ? "confirmSiteTo" : "confirmSiteOn", { what, site: req.site });
  }
  const clicks = req.tool === "browser_click" && target !== "" && req.kind !== "type";
  return clicks ? `${what}, ${t("confirmByClicking", { target })}.` : `${what}.`;
}

/** The reasons in plain words, the user's language; one general line when the gate gave none. */
export function plainReasons(req: ConfirmationRequest, t: Translate): string[] {
  const lines = req.plain.map((r: PlainReason) => {
    switch (r.kind) {
      case "personal_data":
        return t("plain.personal_data", { what: r.what.join(", ") });
      case "other_site":
        return t("plain.other_site", { site: r.site });
      default:
        return t(`plain.${r.kind}`);
    }
  });
  return lines.length > 0 ? lines : [t("plain.default")];
}

/** Whether a payment is asked about with no amount found: the dialog says so plainly. */
export const priceMissing = (req: ConfirmationRequest): boolean => req.amount === null && isPayment(req);

/** Where the amount was read, in the user's language ("the product's data on the page"). */
export const amountSource = (amount: ConfirmAmount, t: Translate): string => t(`amountFrom.${amount.source}`);

/** How the amount adds up, when it is more than one price: "2 × 10.745.000 ₫ + 30.000 ₫ shipping". */
export function amountParts(amount: ConfirmAmount, t: Translate, lang: Lang): string | null {
  const p = amount.parts;
  if (p === null || p === undefined) return null;
  const money = (v: number): string => formatMoney(v, amount.currency, lang);
  const items = t("amountItems", { quantity: p.quantity, unit: money(p.unit) });
  return p.shipping === null ? items : t("amountWithShipping", { items, shipping: money(p.shipping) });
}

/** The line the panel's banner shows while the question waits: the plain sentence, and a missing price said so. */
export function waitingSentence(req: ConfirmationRequest, t: Translate, lang: Lang): string {
  const line = headline(req, t, lang);
  return t("confirmWaiting", { summary: priceMissing(req) ? `${line} ${t("confirmNoPrice")}` : line });
}

const ROLES = new Set(["button", "link", "textbox", "checkbox", "combobox", "menuitem", "searchbox", "element"]);

/** `“Mua ngay” (button)`, `“Mua ngay” (nút)`; `the button` when it has no label. */
function controlText(c: Control, t: Translate): string {
  const role = ROLES.has(c.role) ? t(`role.${c.role}` as MessageKey) : c.role;
  return c.label !== null ? `“${c.label}” (${role})` : t("grade.unlabelled", { role });
}

const ACTS: Record<Act, MessageKey> = {
  click: "act.click",
  enter_on: "act.enter_on",
  enter_in: "act.enter_in",
  space_on: "act.space_on",
  type: "act.type",
  keys: "act.keys",
  check: "act.check",
  other: "act.other",
};

/** One reason of the gate's grading in the user's language, from its kind (never from its English words). */
export function gradingLine(g: Grading, t: Translate): string {
  const scope = (s: PermissionScope): string => t(scopeKey(s));
  switch (g.kind) {
    case "says": {
      const who = { act: t(ACTS[g.act]), control: controlText(g.control, t) };
      const place = t(`place.${g.place}`, { text: g.place_text ?? "" });
      if (g.means.kind === "cancel_only") return t("grade.cancelOnly", { ...who, place, phrase: g.phrase });
      // The phrase's sense is the page's own words, quoted: nothing to add.
      const detail =
        g.means.kind === "scope"
          ? ""
          : g.means.kind === "message_field"
            ? t("means.message_field", { field: g.means.field })
            : t(`means.${g.means.kind}`);
      return t("grade.says", { ...who, place, phrase: g.phrase, detail, scope: scope(g.scope) });
    }
    case "submits_form":
      return t("grade.submitsForm", { act: t(ACTS[g.act]), control: controlText(g.control, t), to: g.to ?? t("grade.itsPage") });
    case "card_field":
      return t("grade.cardField", { field: g.field });
    case "delete_request":
      return t("grade.deleteRequest");
    case "carries":
      return t(`carry.${g.how}`, { key: g.key, to: g.to });
    case "upload":
      return t("grade.upload", { file: g.file !== null ? `“${g.file}”` : t("grade.aFile"), to: g.to });
    case "close_unsaved":
      return t("grade.closeUnsaved");
    case "close_saved":
      return t("grade.closeSaved");
    case "unread":
      return t(g.act === "click" ? "grade.unreadClick" : "grade.unreadKeys");
    case "no_scope":
      return t("grade.noScope", { tool: toolLabel(g.tool, t), scope: scope("DESTRUCTIVE") });
    case "challenge": {
      const evidence =
        g.evidence.kind === "frame" ? t("evidence.frame", { host: g.evidence.host }) : t(`evidence.${g.evidence.kind}`);
      return t("grade.challenge", { act: t(ACTS[g.act]), control: controlText(g.control, t), evidence });
    }
    case "scope_asks":
      return t("grade.scopeAsks", { scope: scope(g.scope) });
    case "text":
      return g.text;
  }
}

/**
 * The technical sentence of what will happen, in the user's language, from
 * the request's facts ("Bấm “Mua ngay” trên http://127.0.0.1:8080 — gửi biểu
 * mẫu tới http://127.0.0.1:8080/order (POST)"); the core's own sentence for
 * what the dialog has no words of its own for (a lasting change, a page's
 * request).
 */
export function technicalSummary(req: ConfirmationRequest, t: Translate): string {
  const place = req.origin ?? req.url ?? "";
  const control = req.target !== null ? `“${req.target}”` : null;
  const on = (key: MessageKey): string => t(key, { control: control ?? "", origin: place });
  const sends =
    req.destination !== null && req.method !== null ? t("tech.sends", { to: req.destination, method: req.method }) : "";
  switch (req.tool) {
    case "browser_click":
      return control !== null && place !== "" ? on("tech.click") + sends : req.action_summary;
    case "browser_press_key":
      return control !== null && place !== "" ? on("tech.keys") + sends : req.action_summary;
    case "browser_type":
      return control !== null && place !== "" ? on("tech.type") : req.action_summary;
    case "browser_upload_file":
      return control !== null && place !== "" ? on("tech.upload") : req.action_summary;
    case "browser_close_tab":
      return t("tech.close", { url: req.url ?? "?" });
    case "browser_navigate":
    case "browser_new_tab":
    case "browser_download":
      return req.destination !== null ? t("tech.open", { to: req.destination }) : req.action_summary;
    default:
      return req.kind === "ask" ? t("confirmKind.ask", { question: req.action_summary.replace(/^The assistant asks:\s*/, "") }) : req.action_summary;
  }
}
