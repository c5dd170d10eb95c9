// Pure logic of the confirmation and challenge dialogs: reading the request
// from the page URL (`?id=` plus an optional base64url `?request=`), the
// countdown to `expires_at`, the user's edits of the fields, and the plain
// sentence, amount and reasons a person decides on.

import type { Lang, Translate } from "../i18n";
import type { ConfirmAmount, ConfirmationRequest, ChallengeRequest, ConfirmField, JsonObject, PlainReason } from "../protocol";
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
      what = t("confirmKind.other", { tool: req.tool });
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
