// The `/` command palette: a modal dialog listing the tools (ListTools),
// searchable; picking one opens its JSON arguments (a template from its
// schema) and runs it with CallTool, showing the ToolResultV2. Works without
// a model.

import { filterTools } from "./catalogue";
import { h, present } from "../dom";
import { statusKey, type Lang, type Translate } from "../i18n";
import { creatorViewFits, hasCreatorView } from "../creator/creator";
import { renderCreatorView } from "../creator/creator-view";
import { request } from "../ipc";
import { renderResultView } from "../chat/chat-view";
import { parseArguments, templateText } from "./palette";
import { resultView } from "../chat/result-table";
import { toOpError, type Json, type ToolResultV2 } from "../protocol";
import type { ToolSpec } from "../protocol";
import { riskBadge, scopeBadge } from "../view";

export interface Palette {
  element: HTMLDialogElement;
  open(query?: string): void;
  close(): void;
}

export function createPalette(t: Translate, lang: Lang, onClose: () => void): Palette {
  let tools: ToolSpec[] | null = null;
  let shown: ToolSpec[] = [];
  let active = 0;
  let picked: ToolSpec | null = null;

  const search = h("input", {
    id: "palette-search",
    type: "search",
    autocomplete: "off",
    spellcheck: "false",
    role: "combobox",
    "aria-expanded": "true",
    "aria-controls": "palette-list",
    "aria-label": t("paletteSearch"),
    placeholder: t("paletteSearch"),
  });
  const list = h("ul", { id: "palette-list", role: "listbox", "aria-label": t("paletteTitle") });
  const listStatus = h("p", { class: "hint", role: "status" }, t("palettePick"));
  const pickPane = h("div", { class: "palette-pick" }, search, listStatus, list);

  const toolHead = h("div", { class: "palette-tool" });
  const args = h("textarea", { id: "palette-args", rows: "8", spellcheck: "false", autocomplete: "off" });
  const run = h("button", { id: "palette-run", type: "button", class: "primary" }, t("paletteRun"));
  const back = h("button", { id: "palette-back", type: "button", class: "secondary" }, "← " + t("paletteSearch"));
  const result = h("div", { id: "palette-result", "aria-live": "polite" });
  const argsPane = h(
    "div",
    { class: "palette-args" },
    toolHead,
    h("label", { for: "palette-args" }, t("paletteArgs")),
    args,
    h("div", { class: "row" }, run, back),
    result,
  );
  argsPane.hidden = true;

  const closeBtn = h("button", { type: "button", class: "icon", id: "palette-close", "aria-label": t("close"), title: t("close") }, "✕");
  const dialog = h(
    "dialog",
    { id: "palette", class: "palette", "aria-labelledby": "palette-title" },
    h("div", { class: "dialog-head" }, h("h2", { id: "palette-title" }, t("paletteTitle")), closeBtn),
    pickPane,
    argsPane,
  );

  const renderList = (): void => {
    if (tools === null) return;
    shown = filterTools(tools, search.value);
    active = Math.min(active, Math.max(0, shown.length - 1));
    if (shown.length === 0) {
      list.replaceChildren(h("li", { class: "empty" }, t("paletteEmpty")));
      search.removeAttribute("aria-activedescendant");
      return;
    }
    list.replaceChildren(
      ...shown.map((tool, i) => {
        const li = h(
          "li",
          {
            id: `palette-opt-${i}`,
            role: "option",
            class: `palette-item${i === active ? " active" : ""}${tool.status === "planned" ? " planned" : ""}`,
            "aria-selected": String(i === active),
            "data-tool": tool.name,
          },
          h("div", { class: "row" }, h("code", {}, tool.name), scopeBadge(tool.permission_scope, t), tool.status === "planned" ? h("span", { class: "status status-planned" }, t(statusKey("planned"))) : null),
          h("div", { class: "palette-desc" }, tool.description),
        );
        li.addEventListener("click", () => pick(tool));
        return li;
      }),
    );
    search.setAttribute("aria-activedescendant", `palette-opt-${active}`);
    list.querySelector(".active")?.scrollIntoView({ block: "nearest" });
  };

  const pick = (tool: ToolSpec): void => {
    picked = tool;
    toolHead.replaceChildren(
      h("div", { class: "row" }, h("code", { class: "call-tool" }, tool.name), scopeBadge(tool.permission_scope, t), riskBadge(tool.risk_level, t)),
      h("p", { class: "palette-desc" }, tool.description),
    );
    args.value = templateText(tool.parameters);
    result.replaceChildren();
    pickPane.hidden = true;
    argsPane.hidden = false;
    args.focus();
  };

  // A skill's structured result as its own view (the creator skills) or
  // as tables, its JSON one click away.
  const resultOrJson = (r: ToolResultV2, name: string, callArgs: Json): (HTMLElement | null)[] => {
    const json = h("pre", { class: "json" }, JSON.stringify(r.error === null ? r.data : r, null, 2));
    const raw = h("details", { class: "raw-json" }, h("summary", {}, t("rawJson")), json);
    if (r.error === null && hasCreatorView(name) && creatorViewFits(name, r.data)) return [renderCreatorView(name, r.data, callArgs, t, lang), raw];
    const view = r.error === null ? resultView(r.data) : null;
    if (view === null) return [json];
    return [renderResultView(view), raw];
  };

  const showResult = (r: ToolResultV2, name: string, callArgs: Json): void => {
    result.replaceChildren(
      ...present(
      h("h3", {}, t("paletteResult")),
      h(
        "div",
        { class: "row" },
        h("span", { class: `call-status status-${r.status}`, "data-testid": "palette-status" }, r.status),
        scopeBadge(r.permission_scope, t),
        r.current_url !== null ? h("span", { class: "call-target" }, r.current_url) : null,
      ),
      r.error !== null ? h("p", { class: "call-error", role: "alert" }, `${r.error.code}: ${r.error.message}`) : null,
      ...resultOrJson(r, name, callArgs),
      ),
    );
  };

  const runTool = (): void => {
    if (picked === null) return;
    const parsed = parseArguments(args.value);
    if (!parsed.ok) {
      result.replaceChildren(h("p", { class: "error", role: "alert" }, t("paletteInvalid", { error: parsed.error })));
      return;
    }
    const name = picked.name;
    run.disabled = true;
    result.replaceChildren(h("p", { class: "loading", role: "status" }, t("paletteRunning", { tool: name })));
    request({ type: "call_tool", name, args: parsed.value }, "tool_result").then(
      (r) => showResult(r.result, name, parsed.value),
      (error: unknown) => result.replaceChildren(h("p", { class: "error", role: "alert" }, t("errorPrefix", { error: toOpError(error).message }))),
    ).finally(() => {
      run.disabled = false;
    });
  };

  search.addEventListener("input", () => {
    active = 0;
    renderList();
  });
  search.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const n = shown.length;
      if (n > 0) active = (active + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
      renderList();
    } else if (e.key === "Enter") {
      e.preventDefault();
      const tool = shown[active];
      if (tool) pick(tool);
    }
  });
  args.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      runTool();
    }
  });
  run.addEventListener("click", runTool);
  back.addEventListener("click", () => {
    argsPane.hidden = true;
    pickPane.hidden = false;
    search.focus();
  });
  closeBtn.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", onClose);

  const load = (): void => {
    listStatus.textContent = t("loadingList");
    request({ type: "list_tools" }, "tools").then(
      (r) => {
        tools = r.tools;
        listStatus.textContent = t("palettePick");
        renderList();
      },
      (error: unknown) => {
        listStatus.textContent = t("errorPrefix", { error: toOpError(error).message });
      },
    );
  };

  return {
    element: dialog,
    open(query = "") {
      if (tools === null) load();
      picked = null;
      argsPane.hidden = true;
      pickPane.hidden = false;
      search.value = query;
      active = 0;
      renderList();
      if (!dialog.open) dialog.showModal();
      search.focus();
    },
    close() {
      if (dialog.open) dialog.close();
    },
  };
}
