// Pure logic of the `/` command palette: an argument template from a tool's
// JSON Schema, parsing what the user typed, and when the palette opens.

import type { Json, JsonObject } from "../protocol";

type Schema = { [key: string]: unknown };

const asSchema = (v: unknown): Schema | null => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Schema) : null);

/** Arguments only the model fills, left out of templates. */
const MODEL_ONLY = new Set(["_reasoningForCall", "_output"]);

/** A sample value for one property schema: default, example, first enum value, else by type. */
export function sampleValue(schema: unknown, depth = 0): Json {
  const s = asSchema(schema);
  if (s === null) return null;
  if ("default" in s) return s.default as Json;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0] as Json;
  if ("const" in s) return s.const as Json;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0] as Json;
  const variants = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(variants)) {
    const first = variants.map(asSchema).find((v) => v !== null && v.type !== "null");
    if (first) return sampleValue(first, depth);
  }
  const type = Array.isArray(s.type) ? (s.type as unknown[]).find((t) => t !== "null") : s.type;
  switch (type) {
    case "string":
      return "";
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return depth < 3 ? argumentTemplate(s, depth + 1) : {};
    default:
      return null;
  }
}

/** Arguments to start from: the required properties, and optional ones that have a default. */
export function argumentTemplate(schema: unknown, depth = 0): JsonObject {
  const s = asSchema(schema);
  const props = asSchema(s?.properties);
  if (s === null || props === null) return {};
  const required = new Set(Array.isArray(s.required) ? (s.required as unknown[]).filter((r) => typeof r === "string") : []);
  const out: JsonObject = {};
  for (const [name, prop] of Object.entries(props)) {
    if (MODEL_ONLY.has(name)) continue;
    const p = asSchema(prop);
    if (required.has(name) || (p !== null && "default" in p)) out[name] = sampleValue(prop, depth);
  }
  return out;
}

/** The template as the editor shows it. */
export function templateText(schema: unknown): string {
  return JSON.stringify(argumentTemplate(schema), null, 2);
}

export type Parsed = { ok: true; value: JsonObject } | { ok: false; error: string };

/** The editor's text as tool arguments: a JSON object (empty text is `{}`). */
export function parseArguments(text: string): Parsed {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { ok: false, error: "The arguments must be a JSON object: { … }" };
    }
    return { ok: true, value: value as JsonObject };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Whether typing in the composer should open the palette: the text is exactly "/" (or "/query"). */
export function paletteQuery(composerText: string): string | null {
  const m = /^\/(\S*)$/.exec(composerText);
  return m ? (m[1] ?? "") : null;
}
