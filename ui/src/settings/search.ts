// The settings' Search section, its pure part: the provider orders offered
// and how they map to `SearchSettings.order` (empty: SearXNG when its URL is
// set, Brave when a key is saved, then DuckDuckGo).

import type { SearchProvider } from "../protocol";

/** The orders offered, as the select's values ("" is automatic). */
export const SEARCH_ORDERS: readonly string[] = [
  "",
  "duckduckgo",
  "searxng,duckduckgo",
  "brave,duckduckgo",
  "searxng,brave,duckduckgo",
  "brave,searxng,duckduckgo",
  "searxng",
  "brave",
];

const NAMES: Record<SearchProvider, string> = { searxng: "SearXNG", brave: "Brave Search", duckduckgo: "DuckDuckGo" };

/** The select's value for a saved order (one not offered is added as is). */
export function orderValue(order: readonly SearchProvider[]): string {
  return order.join(",");
}

/** The saved order for a select value. */
export function parseOrder(value: string): SearchProvider[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s): s is SearchProvider => s === "searxng" || s === "brave" || s === "duckduckgo");
}

/** "SearXNG → DuckDuckGo"; `automatic` for the empty order. */
export function orderLabel(value: string, automatic: string): string {
  const order = parseOrder(value);
  return order.length === 0 ? automatic : order.map((p) => NAMES[p]).join(" → ");
}
