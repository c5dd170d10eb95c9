// What the model endpoint serves and what a run uses, as the panel shows
// it (pure: the first-run screen and the settings render from these): each
// of Ollama's models with its size, tool calling and context, whether the
// first-run screen should offer a choice, and the warnings in words.

import type { Translate } from "../i18n";
import type { ModelDetails, ModelInUse, ModelStatus, ModelWarning } from "../protocol";

/** The status when the core could not be asked. */
export const UNKNOWN_STATUS: ModelStatus = {
  reachable: false,
  base_url: "?",
  models: [],
  model: null,
  message: null,
  server: null,
  chosen: false,
  details: [],
  in_use: null,
  warnings: [],
  min_context: 0,
};

/** One model as a row of the list. */
export interface ModelRow {
  name: string;
  /** `5.2 GB · 8.2B · Q4_K_M`, what is known of it. */
  facts: string;
  /** Whether it calls tools: `yes`, `no` (emulated) or unknown. */
  tools: "yes" | "no" | "unknown";
  /** `context 40960`, or "" when unknown. */
  context: string;
  /** Its context is below what a browsing task needs. */
  smallContext: boolean;
  /** It is the model runs use. */
  inUse: boolean;
}

/** Bytes as Ollama's list shows them: `5.2 GB`, `815 MB`. */
export function formatSize(bytes: number | null): string {
  if (bytes === null || !Number.isFinite(bytes) || bytes < 0) return "";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let i = 0;
  while (value >= 1000 && i < units.length - 1) {
    value /= 1000;
    i += 1;
  }
  const digits = i === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[i]}`;
}

/** The rows of the model list: the described models, else the ids alone. */
export function modelRows(status: ModelStatus, t: Translate): ModelRow[] {
  const described: ModelDetails[] =
    status.details.length > 0
      ? status.details
      : status.models.map((name) => ({ name, size: null, parameter_size: null, quantization: null, family: null, tools: null, context_length: null }));
  return described.map((d) => ({
    name: d.name,
    facts: [formatSize(d.size), d.parameter_size ?? "", d.quantization ?? ""].filter((s) => s !== "").join(" · "),
    tools: d.tools === null ? "unknown" : d.tools ? "yes" : "no",
    context: d.context_length === null ? "" : t("modelContext", { tokens: d.context_length }),
    smallContext: d.context_length !== null && status.min_context > 0 && d.context_length < status.min_context,
    inUse: status.model === d.name,
  }));
}

/** The first-run screen offers a choice: the server answers, serves
 * models, and none is chosen yet (or the chosen one is not served). */
export function needsChoice(status: ModelStatus): boolean {
  if (!status.reachable || status.models.length === 0) return false;
  return !status.chosen || status.warnings.some((w) => w.kind === "not_served");
}

/** A warning in the panel's language. */
export function warningText(w: ModelWarning, t: Translate): string {
  switch (w.kind) {
    case "no_tools":
      return t("warnNoTools", { model: w.model });
    case "small_context":
      return t("warnSmallContext", { model: w.model, context: w.context, needed: w.needed });
    case "not_served":
      return t("warnNotServed", { model: w.model });
  }
}

/** What a run gives the model: the context line. */
export function contextText(u: ModelInUse, t: Translate): string {
  if (u.num_ctx === null) return t("inUseContextServer", { budget: u.prompt_budget });
  if (u.context_length === null) return t("inUseContextUnknown", { ctx: u.num_ctx, budget: u.prompt_budget });
  return t("inUseContext", { ctx: u.num_ctx, own: u.context_length, budget: u.prompt_budget });
}

/** The lines of the "in use" block: endpoint, model, context, tool calling. */
export function inUseLines(status: ModelStatus, t: Translate): string[] {
  const server = status.server === "ollama" ? t("inUseOllama") : "";
  const lines = [t("inUseEndpoint", { url: status.base_url, server })];
  const u = status.in_use;
  if (u === null) {
    lines.push(t("inUseModel", { model: status.model ?? "?" }));
    return lines;
  }
  lines.push(t("inUseModel", { model: u.model }));
  lines.push(contextText(u, t));
  lines.push(t(u.tool_calling === "native" ? "inUseToolsNative" : "inUseToolsEmulated"));
  return lines;
}
