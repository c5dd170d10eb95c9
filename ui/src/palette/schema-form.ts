// Pure logic of the palette's form: the fields a tool's JSON Schema asks
// for (text, numbers, VND amounts, dates, choices, yes/no, lists of text,
// files from the store, groups and lists of groups), what the user typed
// read back into arguments, and the validation messages in the user's
// language. No DOM here; form-view.ts draws it.

import type { Lang, MessageKey, Translate } from "../i18n";
import type { Json, JsonObject } from "../protocol";

type Schema = { [key: string]: unknown };

const asSchema = (v: unknown): Schema | null => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Schema) : null);

/** Arguments only the model fills, never shown. */
const MODEL_ONLY = new Set(["_reasoningForCall", "_output"]);

export type FieldKind =
  | "text"
  | "long-text"
  | "url"
  | "integer"
  | "number"
  | "money"
  | "date"
  | "datetime"
  | "choice"
  | "boolean"
  | "strings"
  | "file"
  | "files"
  | "group"
  | "groups"
  | "json";

export interface Field {
  /** Dotted path from the arguments' root, list items by index: `items.0.url`. */
  path: string;
  name: string;
  kind: FieldKind;
  required: boolean;
  /** `null` is a valid value (left empty, it is left out). */
  nullable: boolean;
  /** The schema's description (English, the model's words). */
  description: string;
  choices: string[];
  min: number | null;
  max: number | null;
  minLength: number | null;
  maxLength: number | null;
  minItems: number | null;
  maxItems: number | null;
  pattern: string | null;
  default: Json | undefined;
  /** A group's fields, or each item's fields for a list of groups. */
  fields: Field[];
}

/** What the form holds for a field: text, a tick, lines, a group, a list of groups. */
export type FormValue = string | boolean | string[] | FormRecord | FormRecord[];
export type FormRecord = { [name: string]: FormValue };

function types(s: Schema): string[] {
  if (Array.isArray(s.type)) return (s.type as unknown[]).filter((t): t is string => typeof t === "string");
  if (typeof s.type === "string") return [s.type];
  const variants = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(variants)) return variants.flatMap((v) => types(asSchema(v) ?? {}));
  return [];
}

/** The first non-null variant of an `anyOf`/`oneOf`, merged over the schema. */
function flatten(s: Schema): Schema {
  const variants = (s.anyOf ?? s.oneOf) as unknown;
  if (!Array.isArray(variants)) return s;
  const first = variants.map(asSchema).find((v) => v !== null && v.type !== "null");
  return first ? { ...first, ...s, anyOf: undefined, oneOf: undefined, type: s.type ?? first.type } : s;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
/** A field that takes stored files (their files_store ids), not a path to read. */
const speaksOfStore = (d: string): boolean => /files_store/i.test(d);
/** A whole-VND amount: `budget_vnd`, `max_price_vnd`, `target_price_vnd`. */
const isMoney = (name: string): boolean => /(^|_)vnd$/i.test(name);

function kindOf(name: string, s: Schema, ts: string[]): FieldKind {
  const main = ts.find((t) => t !== "null") ?? "string";
  const description = typeof s.description === "string" ? s.description : "";
  if (Array.isArray(s.enum) && s.enum.some((e) => typeof e === "string")) return "choice";
  switch (main) {
    case "boolean":
      return "boolean";
    case "integer":
      return isMoney(name) ? "money" : "integer";
    case "number":
      return isMoney(name) ? "money" : "number";
    case "array": {
      const items = asSchema(s.items) ?? {};
      const itemTypes = types(items);
      if (itemTypes.includes("object") && asSchema(items.properties) !== null) return "groups";
      if (itemTypes.length === 0 || itemTypes.every((t) => t === "string")) return speaksOfStore(description) ? "files" : "strings";
      return "json";
    }
    case "object":
      return asSchema(s.properties) !== null && s.additionalProperties !== true ? "group" : "json";
    default:
      break;
  }
  if (s.format === "date") return "date";
  if (s.format === "date-time") return "datetime";
  if (s.format === "uri") return "url";
  if (speaksOfStore(description) && /_ref$|^file/.test(name)) return "file";
  if ((num(s.maxLength) ?? 0) > 200 || ["description", "notes", "text", "content", "message"].includes(name)) return "long-text";
  return "text";
}

/** The fields of an object schema, in its order; the model-only ones left out. */
export function fieldsOf(schema: unknown, prefix = ""): Field[] {
  const s = asSchema(schema);
  const props = asSchema(s?.properties);
  if (s === null || props === null) return [];
  const required = new Set(Array.isArray(s.required) ? (s.required as unknown[]).filter((r) => typeof r === "string") : []);
  const out: Field[] = [];
  for (const [name, raw] of Object.entries(props)) {
    if (MODEL_ONLY.has(name)) continue;
    const p = flatten(asSchema(raw) ?? {});
    const ts = types(p);
    const kind = kindOf(name, p, ts);
    const path = prefix === "" ? name : `${prefix}.${name}`;
    const items = asSchema(p.items) ?? {};
    out.push({
      path,
      name,
      kind,
      required: required.has(name),
      nullable: ts.includes("null") || (Array.isArray(p.enum) && p.enum.includes(null)),
      description: typeof p.description === "string" ? p.description : "",
      choices: Array.isArray(p.enum) ? p.enum.filter((e): e is string => typeof e === "string") : [],
      min: num(p.minimum),
      max: num(p.maximum),
      minLength: num(p.minLength) ?? num(items.minLength),
      maxLength: num(p.maxLength),
      minItems: num(p.minItems),
      maxItems: num(p.maxItems),
      pattern: typeof p.pattern === "string" ? p.pattern : null,
      default: "default" in p ? (p.default as Json) : undefined,
      fields: kind === "group" ? fieldsOf(p, path) : kind === "groups" ? fieldsOf(items, path) : [],
    });
  }
  return out;
}

/** A VND amount as typed ("21.490.000", "21,490,000 ₫", "21490000đ") -> 21490000; null when it is not one. */
export function parseVnd(text: string): number | null {
  const t = text.replace(/\s|₫|đ|vnd/gi, "");
  if (t === "") return null;
  if (!/^\d{1,3}([.,]\d{3})*$|^\d+$/.test(t)) return null;
  const n = Number(t.replace(/[.,]/g, ""));
  return Number.isSafeInteger(n) ? n : null;
}

/** A VND amount as the user reads it: 21.490.000 ₫ (dots in both languages). */
export function formatVnd(n: number): string {
  return `${new Intl.NumberFormat("vi-VN", { maximumFractionDigits: 0 }).format(n)} ₫`;
}

/** A plain number as typed in the user's language ("1,5" in Vietnamese, "1.5" in English). */
export function parseNumber(text: string, lang: Lang): number | null {
  const t = text.trim().replace(/\s/g, "");
  if (t === "") return null;
  const normal = lang === "vi" ? t.replace(/\./g, "").replace(",", ".") : t.replace(/,/g, "");
  if (!/^-?\d+(\.\d+)?$/.test(normal)) return null;
  return Number(normal);
}

/** The starting value of a field: its default, else empty. */
export function initialValue(field: Field, lang: Lang): FormValue {
  const d = field.default;
  switch (field.kind) {
    case "boolean":
      return d === true;
    case "strings":
    case "files":
      return Array.isArray(d) ? d.filter((x): x is string => typeof x === "string") : [];
    case "group":
      return initialRecord(field.fields, lang);
    case "groups": {
      const n = Math.max(field.minItems ?? (field.required ? 1 : 0), 0);
      return Array.from({ length: n }, () => initialRecord(field.fields, lang));
    }
    case "money":
      return typeof d === "number" ? formatVnd(d) : "";
    case "integer":
    case "number":
      return typeof d === "number" ? new Intl.NumberFormat(lang === "vi" ? "vi-VN" : "en-US", { useGrouping: false, maximumFractionDigits: 6 }).format(d) : "";
    case "json":
      return d === undefined || d === null ? "" : JSON.stringify(d, null, 2);
    default:
      return typeof d === "string" ? d : "";
  }
}

export function initialRecord(fields: readonly Field[], lang: Lang): FormRecord {
  const out: FormRecord = {};
  for (const f of fields) out[f.name] = initialValue(f, lang);
  return out;
}

export type FormErrors = Record<string, string>;
export type Built = { ok: true; value: JsonObject } | { ok: false; errors: FormErrors };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function validDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(text);
}

/** A `datetime-local` value ("2025-12-15T19:00") as ISO 8601 with the browser's offset. */
export function localToIso(text: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (m === null) return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?([+-]\d{2}:\d{2}|Z)$/.test(text) ? text : null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? "0"));
  if (Number.isNaN(d.getTime())) return null;
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const pad = (n: number): string => String(Math.abs(Math.trunc(n))).padStart(2, "0");
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? "00"}${sign}${pad(off / 60)}:${pad(off % 60)}`;
}

/** One field's value as an argument: `undefined` when left empty (left out), or an error key. */
function readField(field: Field, raw: FormValue | undefined, lang: Lang, errors: FormErrors, t: Translate): Json | undefined {
  const fail = (key: MessageKey, vars: Record<string, string | number> = {}): undefined => {
    errors[field.path] = t(key, vars);
    return undefined;
  };
  const empty = (): undefined => (field.required ? fail("form.required") : undefined);
  switch (field.kind) {
    case "boolean":
      return raw === true;
    case "strings":
    case "files": {
      const lines = (Array.isArray(raw) ? raw : []).filter((x): x is string => typeof x === "string").map((x) => x.trim()).filter((x) => x !== "");
      if (lines.length === 0 && field.required) return fail("form.required");
      if (field.minItems !== null && lines.length < field.minItems && (lines.length > 0 || field.required)) return fail("form.minItems", { n: field.minItems });
      if (field.maxItems !== null && lines.length > field.maxItems) return fail("form.maxItems", { n: field.maxItems });
      if (field.minLength !== null && lines.some((l) => l.length < field.minLength!)) return fail("form.required");
      if (lines.length === 0 && field.default === undefined) return undefined;
      return lines;
    }
    case "group": {
      const rec = raw !== undefined && typeof raw === "object" && !Array.isArray(raw) ? raw : {};
      const value = readRecord(field.fields, rec, lang, errors, t);
      if (Object.keys(value).length === 0 && !field.required) return undefined;
      return value;
    }
    case "groups": {
      const recs = Array.isArray(raw) ? raw.filter((r): r is FormRecord => typeof r === "object" && r !== null && !Array.isArray(r)) : [];
      const items = recs.map((r, i) => readRecord(withPrefix(field.fields, `${field.path}.${i}`), r, lang, errors, t));
      if (items.length === 0) return field.required ? fail("form.required") : undefined;
      if (field.minItems !== null && items.length < field.minItems) return fail("form.minItems", { n: field.minItems });
      if (field.maxItems !== null && items.length > field.maxItems) return fail("form.maxItems", { n: field.maxItems });
      return items;
    }
    default:
      break;
  }
  const text = typeof raw === "string" ? raw.trim() : "";
  if (text === "") return empty();
  switch (field.kind) {
    case "money": {
      const n = parseVnd(text);
      if (n === null) return fail("form.money");
      return bounded(n, field, fail);
    }
    case "integer": {
      const n = parseNumber(text, lang);
      if (n === null || !Number.isInteger(n)) return fail("form.integer");
      return bounded(n, field, fail);
    }
    case "number": {
      const n = parseNumber(text, lang);
      if (n === null) return fail("form.number");
      return bounded(n, field, fail);
    }
    case "date":
      return validDate(text) ? text : fail("form.date");
    case "datetime": {
      const iso = localToIso(text);
      return iso === null ? fail("form.datetime") : iso;
    }
    case "url": {
      try {
        const u = new URL(text);
        if (u.protocol !== "http:" && u.protocol !== "https:" && u.protocol !== "file:") return fail("form.url");
      } catch {
        return fail("form.url");
      }
      return text;
    }
    case "choice":
      return field.choices.includes(text) ? text : fail("form.choice");
    case "json": {
      try {
        return JSON.parse(text) as Json;
      } catch (e) {
        return fail("form.json", { error: e instanceof Error ? e.message : String(e) });
      }
    }
    default: {
      if (field.minLength !== null && text.length < field.minLength) return fail("form.required");
      if (field.maxLength !== null && text.length > field.maxLength) return fail("form.tooLong", { n: field.maxLength });
      if (field.pattern !== null && !safeTest(field.pattern, text)) return fail("form.pattern", { example: patternExample(field) });
      return text;
    }
  }
}

function bounded(n: number, field: Field, fail: (key: MessageKey, vars?: Record<string, string | number>) => undefined): number | undefined {
  const show = (v: number): string => (field.kind === "money" ? formatVnd(v) : String(v));
  if (field.min !== null && n < field.min) return fail("form.min", { min: show(field.min) });
  if (field.max !== null && n > field.max) return fail("form.max", { max: show(field.max) });
  return n;
}

function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return true;
  }
}

/** An example of what a pattern wants, from the description's first `code` span. */
function patternExample(field: Field): string {
  const m = /`([^`]+)`/.exec(field.description);
  return m?.[1] ?? field.pattern ?? "";
}

function withPrefix(fields: readonly Field[], prefix: string): Field[] {
  return fields.map((f) => {
    const path = `${prefix}.${f.name}`;
    return { ...f, path, fields: f.kind === "group" ? withPrefix(f.fields, path) : f.fields };
  });
}

function readRecord(fields: readonly Field[], rec: FormRecord, lang: Lang, errors: FormErrors, t: Translate): JsonObject {
  const out: JsonObject = {};
  for (const f of fields) {
    const v = readField(f, rec[f.name], lang, errors, t);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

/** The tool's arguments from what the form holds, or a message per field path. */
export function buildArguments(fields: readonly Field[], record: FormRecord, lang: Lang, t: Translate): Built {
  const errors: FormErrors = {};
  const value = readRecord(fields, record, lang, errors, t);
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

/** The form's record from arguments (the JSON view back into the form): what it does not know is dropped. */
export function recordFromArguments(fields: readonly Field[], args: JsonObject, lang: Lang): FormRecord {
  const out = initialRecord(fields, lang);
  for (const f of fields) {
    const v = args[f.name];
    if (v === undefined || v === null) continue;
    switch (f.kind) {
      case "boolean":
        out[f.name] = v === true;
        break;
      case "strings":
      case "files":
        out[f.name] = Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
        break;
      case "group":
        out[f.name] = typeof v === "object" && !Array.isArray(v) ? recordFromArguments(f.fields, v, lang) : initialRecord(f.fields, lang);
        break;
      case "groups":
        out[f.name] = Array.isArray(v)
          ? v.filter((x): x is JsonObject => typeof x === "object" && x !== null && !Array.isArray(x)).map((x) => recordFromArguments(f.fields, x, lang))
          : [];
        break;
      case "money":
        out[f.name] = typeof v === "number" ? formatVnd(v) : String(v);
        break;
      case "json":
        out[f.name] = JSON.stringify(v, null, 2);
        break;
      case "datetime":
        out[f.name] = typeof v === "string" ? v.slice(0, 16) : "";
        break;
      default:
        out[f.name] = typeof v === "string" ? v : String(v);
    }
  }
  return out;
}

/** The field's label in the user's language: the translated name, else its words ("max_sources" -> "Max sources"). */
export function fieldLabel(name: string, t: Translate, has: (key: string) => boolean): string {
  const key = `field.${name}`;
  if (has(key)) return t(key as MessageKey);
  const words = name.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
