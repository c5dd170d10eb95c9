// Pure logic of "Ask about this page" and `@tab` mentions: the open tabs as
// browser_list_tabs lists them, the `@word` being typed in the composer,
// which tabs match it, and which tabs a one-click start is about. The pages
// themselves are never read here: the run reads them with the browser tools
// (fenced like any page text), from the tab ids the task carries.

import { normalise } from "../palette/catalogue";
import type { Json } from "../protocol";
import { hostOf } from "./steps";

export interface OpenTab {
  id: string;
  title: string;
  url: string;
  current: boolean;
}

/** The most tabs one task may be about (the core refuses more). */
export const MAX_TABS = 8;

/** The tabs of a browser_list_tabs result, in window order. */
export function readTabs(data: Json): OpenTab[] {
  const tabs = typeof data === "object" && data !== null && !Array.isArray(data) ? data["tabs"] : null;
  if (!Array.isArray(tabs)) return [];
  return tabs.flatMap((t) => {
    if (typeof t !== "object" || t === null || Array.isArray(t)) return [];
    const { id, title, url, current } = t;
    if (typeof id !== "string" || typeof url !== "string") return [];
    return [{ id, title: typeof title === "string" ? title : "", url, current: current === true }];
  });
}

/** A page a person would ask about: a web page, not a blank or internal one. */
export const isPage = (tab: OpenTab): boolean => /^(https?|file):/i.test(tab.url);

/** How a tab is named in a chip or a list: its title, else its host, else its address. */
export function tabLabel(tab: OpenTab): string {
  const title = tab.title.trim();
  if (title !== "") return title.length > 60 ? `${title.slice(0, 59)}…` : title;
  return hostOf(tab.url) ?? tab.url;
}

/** The `@word` ending at the caret (an `@` at the start or after a space): where it starts and what follows it. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([^\s@]*)$/u.exec(before);
  if (m === null) return null;
  return { start: before.length - (m[2]?.length ?? 0) - 1, query: m[2] ?? "" };
}

/** The text without the mention being typed, and where the caret goes. */
export function dropMention(text: string, start: number, caret: number): { text: string; caret: number } {
  const rest = text.slice(caret).replace(/^ /, "");
  const head = text.slice(0, start);
  return { text: head + rest, caret: head.length };
}

/** The pages that match what follows `@` (words of the title or host; `@tab` alone lists them all). */
export function matchTabs(tabs: readonly OpenTab[], query: string): OpenTab[] {
  const pages = tabs.filter(isPage);
  const q = normalise(query);
  if (q === "" || q === "tab" || q === "the") return pages;
  const words = q.split(" ");
  return pages.filter((t) => {
    const hay = normalise(`${t.title} ${hostOf(t.url) ?? ""} ${t.url}`);
    return words.every((w) => hay.includes(w));
  });
}

/** The page in front of the user, if it is one. */
export const currentPage = (tabs: readonly OpenTab[]): OpenTab | null => tabs.find((t) => t.current && isPage(t)) ?? null;

/** What "Compare these tabs" is about: the chosen tabs when two or more, else every open page (at most MAX_TABS). */
export function compareTabs(chosen: readonly string[], tabs: readonly OpenTab[]): string[] {
  if (chosen.length >= 2) return chosen.slice(0, MAX_TABS);
  return tabs.filter(isPage).map((t) => t.id).slice(0, MAX_TABS);
}

/** What "Summarise this page" is about: the chosen tabs, else the page in front. */
export function summariseTabs(chosen: readonly string[], tabs: readonly OpenTab[]): string[] {
  if (chosen.length > 0) return chosen.slice(0, MAX_TABS);
  const page = currentPage(tabs);
  return page === null ? [] : [page.id];
}
