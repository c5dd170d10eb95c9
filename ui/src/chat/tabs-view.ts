// "Ask about this page" in the composer: the page in front or `@tab`
// mentions (an autocomplete of the open tabs) become chips, and the task is
// sent with their tab ids; "Summarise this page" and "Compare these tabs"
// start a task in one click. The run reads the pages with the browser tools,
// fenced like any page text; the panel never pastes page text into the task.
// Hooks: #ask-page, #summarise-page, #compare-tabs, #task-tabs
// (.task-tab[data-tab] with .remove-tab), #tab-mentions (.tab-option[data-tab]).

import { h } from "../dom";
import type { Translate } from "../i18n";
import { callTool } from "../ipc";
import { toOpError } from "../protocol";
import { MAX_TABS, compareTabs, currentPage, dropMention, matchTabs, mentionAt, readTabs, summariseTabs, tabLabel, type OpenTab } from "./tabs";

export interface TabsComposer {
  /** The chips and the mention list, above the composer. */
  chips: HTMLElement;
  /** The three buttons, beside Send. */
  actions: HTMLElement;
  /** The tabs the next task is about; cleared once taken. */
  take(): string[];
}

/** `send(text, tabs)` starts a task; `fail(message)` says what went wrong in the chat. */
export function createTabsComposer(
  composer: HTMLTextAreaElement,
  t: Translate,
  send: (text: string, tabs: string[]) => void,
  fail: (message: string) => void,
): TabsComposer {
  let chosen: OpenTab[] = [];
  let options: OpenTab[] = [];
  let active = 0;
  let mention: { start: number; query: string } | null = null;

  const list = h("ul", { id: "tab-mentions", class: "tab-mentions", role: "listbox", "aria-label": t("askTabsLabel") });
  list.hidden = true;
  const row = h("div", { id: "task-tabs", class: "task-tabs", "aria-label": t("askAbout") });
  const chips = h("div", { class: "task-tabs-box" }, row, list);
  const askPage = h("button", { id: "ask-page", type: "button", class: "secondary", title: t("askPageHint") }, t("askPage"));
  const summarise = h("button", { id: "summarise-page", type: "button", class: "secondary" }, t("askSummarise"));
  const compare = h("button", { id: "compare-tabs", type: "button", class: "secondary" }, t("askCompare"));
  const actions = h("div", { class: "ask-actions" }, askPage, summarise, compare);

  const openTabs = async (): Promise<OpenTab[]> => readTabs(await callTool("browser_list_tabs", {}));
  const failed = (error: unknown): void => fail(t("errorPrefix", { error: toOpError(error).message }));

  const drawChips = (): void => {
    row.replaceChildren(
      ...chosen.map((tab) => {
        const remove = h("button", { type: "button", class: "icon remove-tab", "aria-label": t("askRemove", { page: tabLabel(tab) }), title: t("askRemove", { page: tabLabel(tab) }) }, "✕");
        remove.addEventListener("click", () => {
          chosen = chosen.filter((c) => c.id !== tab.id);
          drawChips();
          composer.focus();
        });
        return h("span", { class: "task-tab", "data-tab": tab.id, title: tab.url }, h("span", { class: "task-tab-name" }, `@${tabLabel(tab)}`), remove);
      }),
    );
    row.hidden = chosen.length === 0;
  };

  const add = (tab: OpenTab): void => {
    if (!chosen.some((c) => c.id === tab.id) && chosen.length < MAX_TABS) chosen = [...chosen, tab];
    drawChips();
  };

  const closeList = (): void => {
    list.hidden = true;
    mention = null;
    composer.removeAttribute("aria-activedescendant");
  };

  const drawList = (): void => {
    if (mention === null) return closeList();
    const shown = matchTabs(options, mention.query).filter((tab) => !chosen.some((c) => c.id === tab.id));
    active = Math.min(active, Math.max(0, shown.length - 1));
    list.replaceChildren(
      ...(shown.length === 0
        ? [h("li", { class: "empty" }, t("askNoMatch"))]
        : shown.map((tab, i) => {
            const li = h(
              "li",
              { id: `tab-option-${i}`, role: "option", class: `tab-option${i === active ? " active" : ""}`, "data-tab": tab.id, "aria-selected": String(i === active) },
              h("span", { class: "tab-option-title" }, tabLabel(tab)),
              h("span", { class: "tab-option-url" }, tab.url),
            );
            li.addEventListener("mousedown", (e) => {
              e.preventDefault();
              pick(tab);
            });
            return li;
          })),
    );
    list.hidden = false;
    if (shown.length > 0) composer.setAttribute("aria-activedescendant", `tab-option-${active}`);
  };

  const pick = (tab: OpenTab): void => {
    if (mention !== null) {
      const next = dropMention(composer.value, mention.start, composer.selectionStart ?? composer.value.length);
      composer.value = next.text;
      composer.setSelectionRange(next.caret, next.caret);
    }
    add(tab);
    closeList();
    composer.focus();
  };

  composer.addEventListener("input", () => {
    const found = mentionAt(composer.value, composer.selectionStart ?? composer.value.length);
    if (found === null) return closeList();
    const first = mention === null;
    mention = found;
    if (first) {
      active = 0;
      openTabs().then((tabs) => {
        options = tabs;
        drawList();
      }, failed);
    } else drawList();
  });
  // Before the composer's own Enter (send): a choice in the list is picked.
  composer.addEventListener(
    "keydown",
    (e) => {
      if (list.hidden || mention === null) return;
      const shown = matchTabs(options, mention.query).filter((tab) => !chosen.some((c) => c.id === tab.id));
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const n = shown.length;
        if (n > 0) active = (active + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
        drawList();
      } else if ((e.key === "Enter" || e.key === "Tab") && !e.isComposing) {
        const tab = shown[active];
        if (tab === undefined) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        pick(tab);
      } else if (e.key === "Escape") {
        e.preventDefault();
        closeList();
      }
    },
    { capture: true },
  );
  composer.addEventListener("blur", () => window.setTimeout(closeList, 150));

  askPage.addEventListener("click", () => {
    openTabs().then((tabs) => {
      const page = currentPage(tabs);
      if (page === null) return fail(t("askNoPage"));
      add(page);
      composer.focus();
    }, failed);
  });
  const start = (text: string, pickTabs: (chosen: string[], tabs: OpenTab[]) => string[], atLeast: number): void => {
    openTabs().then((tabs) => {
      const ids = pickTabs(chosen.map((c) => c.id), tabs);
      if (ids.length < atLeast) return fail(t(atLeast > 1 ? "askNoTabs" : "askNoPage"));
      chosen = [];
      drawChips();
      send(text, ids);
    }, failed);
  };
  summarise.addEventListener("click", () => start(t("askSummariseTask"), summariseTabs, 1));
  compare.addEventListener("click", () => start(t("askCompareTask"), compareTabs, 2));

  drawChips();
  return {
    chips,
    actions,
    take() {
      const ids = chosen.map((c) => c.id);
      chosen = [];
      drawChips();
      return ids;
    },
  };
}
