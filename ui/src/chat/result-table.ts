// Pure logic of a structured result shown as tables rather than raw JSON:
// a skill's comparison table, travel options, itinerary days, triage rows.
// Every list of objects in the result becomes a table (its columns the
// union of the objects' keys, in first-seen order); other fields are shown
// as label/value pairs. No DOM here, so it is unit-tested directly.

import type { Json } from "../protocol";

export interface Table {
  /** The result's field holding the list ("comparison_table", "options"). */
  name: string;
  columns: string[];
  rows: string[][];
}

export interface ResultView {
  /** Plain fields: status, recommendation, totals... */
  fields: [string, string][];
  tables: Table[];
}

type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether a value is a non-empty list of objects (a table). */
function isTable(value: Json): value is JsonObject[] {
  return Array.isArray(value) && value.length > 0 && value.every(isObject);
}

/** A money object ({amount, currency}) as "21.490.000 VND" (Vietnamese grouping for VND). */
function money(v: JsonObject): string | null {
  const keys = Object.keys(v);
  if (typeof v.amount !== "number" || typeof v.currency !== "string" || keys.length !== 2) return null;
  const locale = v.currency === "VND" ? "vi-VN" : "en-US";
  return `${v.amount.toLocaleString(locale, { maximumFractionDigits: 2 })} ${v.currency}`;
}

/** One cell's text: scalars as they are, money as an amount, lists joined, other objects as compact JSON. */
export function cellText(value: Json | undefined): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    return value.every((v) => v === null || typeof v !== "object") ? value.map((v) => cellText(v)).join(", ") : JSON.stringify(value);
  }
  const m = money(value);
  if (m !== null) return m;
  // {value, confidence}: a field read with its confidence.
  if ("value" in value && typeof value.confidence === "number" && Object.keys(value).length <= 4) {
    return `${cellText(value.value)} (${Math.round(value.confidence * 100)}%)`;
  }
  return JSON.stringify(value);
}

/** A list of objects as a table. */
export function toTable(name: string, list: JsonObject[]): Table {
  const columns: string[] = [];
  for (const row of list) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  return { name, columns, rows: list.map((row) => columns.map((c) => cellText(row[c]))) };
}

/**
 * The result's fields and tables; null when it has no table (raw JSON
 * says it as well). Nested objects holding lists (an itinerary's
 * `{days: [...]}`) give their tables too, named by their path.
 */
export function resultView(data: Json): ResultView | null {
  if (!isObject(data)) return null;
  const view: ResultView = { fields: [], tables: [] };
  const walk = (obj: JsonObject, prefix: string, depth: number): void => {
    for (const [key, value] of Object.entries(obj)) {
      const name = prefix === "" ? key : `${prefix}.${key}`;
      if (isTable(value)) view.tables.push(toTable(name, value));
      else if (isObject(value) && depth < 2 && Object.values(value).some((v) => isTable(v))) walk(value, name, depth + 1);
      else if (isObject(value) && depth < 2 && money(value) === null && Object.values(value).every((v) => !isObject(v) && !Array.isArray(v))) {
        // A small record ({total, currency...}): its fields, by path.
        for (const [k, v] of Object.entries(value)) view.fields.push([`${name}.${k}`, cellText(v)]);
      } else view.fields.push([name, cellText(value)]);
    }
  };
  walk(data, "", 0);
  return view.tables.length > 0 ? view : null;
}
