// What the model endpoint serves and what a run uses, as the panel shows
// it (pure: the first-run screen and the settings render from these): each
// of Ollama's models with its size, tool calling and context, whether the
// first-run screen should offer a choice, and the warnings in words.

import type { Translate } from "../i18n";
import type { ModelDetails, ModelInUse, ModelProblem, ModelStatus, ModelWarning } from "../protocol";

/** The status when the core could not be asked. */
export const UNKNOWN_STATUS: ModelStatus = {
  reachable: false,
  base_url: "?",
  models: [],
  model: null,
  message: null,
  problem: null,
  product: null,
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

/** The first-run screen offers a choice only when one is needed: the
 * server answers with more than one model and none is chosen yet, or the
 * chosen one is not served (one model alone is simply used). */
export function needsChoice(status: ModelStatus): boolean {
  if (!status.reachable || status.models.length === 0) return false;
  if (status.warnings.some((w) => w.kind === "not_served")) return true;
  return !status.chosen && status.models.length > 1;
}

/** Whether an address is on this computer. */
export function isLocalUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === "localhost" || host === "[::1]" || host === "::1" || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** What stops a run from using the model here, for a person (the CLI's
 * words stay behind "Show commands"); "" when nothing does. */
export function problemText(status: ModelStatus, t: Translate): string {
  const p: ModelProblem | null = status.problem;
  if (p === null) return status.reachable ? "" : t("problemOther", { url: status.base_url });
  const product = status.product ?? t("modelServerGeneric");
  const url = status.base_url;
  switch (p.kind) {
    case "not_running":
      if (!isLocalUrl(url)) return t("problemUnreachableHosted", { product, url });
      return status.product === null ? t("problemNothingAt", { url }) : t("problemNotRunning", { product, url });
    case "no_models":
      return t("problemNoModels", { product });
    case "not_pulled":
      return t("problemNotPulled", { model: p.model });
    case "key_missing":
      return t("problemKeyMissing", { product });
    case "key_refused":
      return t("problemKeyRefused", { product });
    case "wrong_address":
      return t("problemWrongAddress", { url });
    case "bad_address":
      return t("problemBadAddress");
    case "other":
      return t("problemOther", { url });
  }
}

/** A warnings card the person closed stays closed for that model and those
 * warnings (kept in the panel's storage), until something changes. */
export function warningsKey(status: ModelStatus): string {
  return `halley.warnings-seen:${status.base_url}|${status.model ?? ""}|${status.warnings.map((w) => w.kind).join(",")}`;
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

/** Keep `key` in the panel's storage (a closed card); storage may be off. */
export function remember(key: string): void {
  try {
    localStorage.setItem(key, "1");
  } catch {
    // No storage: the card comes back next time, nothing else is lost.
  }
}

/** Whether `key` was kept by {@link remember}. */
export function remembered(key: string): boolean {
  try {
    return localStorage.getItem(key) === "1";
  } catch {
    return false;
  }
}
