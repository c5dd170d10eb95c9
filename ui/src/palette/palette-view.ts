// The `/` command palette: a modal dialog listing the skills and tools
// (ListTools) by their names in the user's language, searchable; picking one
// opens a form made from its JSON Schema (form-view.ts; the JSON arguments
// only as the advanced view) and runs it with CallTool, showing the
// ToolResultV2. Works without a model. Hooks: #palette-search, .palette-item
// [data-tool], #palette-form, #palette-mode-json, #palette-args, #palette-run.

import { filterTools, humanTool, paletteOrder, searchWords } from "./catalogue";
import { createSchemaForm, type SchemaForm, type StoredFile } from "./form-view";
import { fieldsOf } from "./schema-form";
import { h, present } from "../dom";
import { callStatusKey, statusKey, type Lang, type Translate } from "../i18n";
import { creatorViewFits, hasCreatorView } from "../creator/creator";
import { renderCreatorView } from "../creator/creator-view";
import { callTool, request } from "../ipc";
import { renderResultView } from "../chat/chat-view";
import { parseArguments } from "./palette";
import { resultView } from "../chat/result-table";
import { errorSays, fieldLabel, fieldValue, resultFields } from "../chat/steps";
import { toOpError, type Json, type JsonObject, type ToolResultV2 } from "../protocol";
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
  const formBox = h("div", { class: "palette-form-box" });
  const args = h("textarea", { id: "palette-args", rows: "8", spellcheck: "false", autocomplete: "off", "aria-label": t("paletteArgs") });
  const jsonBox = h("div", { class: "palette-json" }, h("label", { for: "palette-args" }, t("paletteArgs")), args);
  jsonBox.hidden = true;
  const modeForm = h("button", { id: "palette-mode-form", type: "button", class: "tab", "aria-pressed": "true" }, t("paletteForm"));
  const modeJson = h("button", { id: "palette-mode-json", type: "button", class: "tab", "aria-pressed": "false" }, t("paletteJson"));
  const formStatus = h("p", { id: "palette-form-status", class: "form-status error", role: "status" });
  let form: SchemaForm | null = null;
  let storedFiles: Promise<StoredFile[]> | null = null;
  const run = h("button", { id: "palette-run", type: "button", class: "primary" }, t("paletteRun"));
  const back = h("button", { id: "palette-back", type: "button", class: "secondary" }, "← " + t("paletteSearch"));
  const result = h("div", { id: "palette-result", "aria-live": "polite" });
  const argsPane = h(
    "div",
    { class: "palette-args" },
    toolHead,
    h("div", { class: "row mode-switch", role: "group" }, modeForm, modeJson),
    formBox,
    jsonBox,
    formStatus,
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
    // Found by its words in either language, whatever the UI speaks
    // ("giá" in the English UI, "price" in the Vietnamese one).
    shown = filterTools(paletteOrder(tools), search.value, "all", searchWords);
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
            // The tool's name for who wants it, not in the text (#43 item 4).
            title: tool.name,
          },
          h(
            "div",
            { class: "row" },
            h("strong", { class: "palette-name" }, humanTool(tool, t).title),
            h("span", { class: `kind-tag kind-${tool.kind}` }, t(tool.kind === "skill" ? "paletteSkills" : tool.kind === "custom" ? "paletteCustom" : "paletteTools")),
            scopeBadge(tool.permission_scope, t),
            tool.status === "planned" ? h("span", { class: "status status-planned" }, t(statusKey("planned"))) : null,
          ),
          h("div", { class: "palette-desc" }, humanTool(tool, t).description),
        );
        li.addEventListener("click", () => pick(tool));
        return li;
      }),
    );
    search.setAttribute("aria-activedescendant", `palette-opt-${active}`);
    list.querySelector(".active")?.scrollIntoView({ block: "nearest" });
  };

  const stored = (): Promise<StoredFile[]> => {
    storedFiles ??= callTool("files_get", { limit: 200 }).then(
      (data) => {
        const files = typeof data === "object" && data !== null && !Array.isArray(data) ? data["files"] : null;
        if (!Array.isArray(files)) return [];
        return files.flatMap((f) => {
          if (typeof f !== "object" || f === null || Array.isArray(f)) return [];
          const id = f["id"], name = f["name"], tags = f["tags"];
          if (typeof id !== "string" || typeof name !== "string") return [];
          return [{ id, name, tags: Array.isArray(tags) ? tags.filter((x): x is string => typeof x === "string") : [] }];
        });
      },
      () => [],
    );
    return storedFiles;
  };

  const setMode = (json: boolean): void => {
    if (form === null) return;
    formStatus.textContent = "";
    if (json && jsonBox.hidden) {
      // The form's arguments so far, as JSON (what is not valid yet is left out).
      const built = form.read();
      args.value = JSON.stringify(built.ok ? built.value : {}, null, 2);
    } else if (!json && formBox.hidden) {
      const parsed = parseArguments(args.value);
      if (!parsed.ok) {
        formStatus.textContent = t("paletteInvalid", { error: parsed.error });
        return;
      }
      form.fill(parsed.value);
    }
    jsonBox.hidden = !json;
    formBox.hidden = json;
    modeForm.setAttribute("aria-pressed", String(!json));
    modeJson.setAttribute("aria-pressed", String(json));
    if (json) args.focus();
    else form.focus();
  };

  const pick = (tool: ToolSpec): void => {
    picked = tool;
    const human = humanTool(tool, t);
    toolHead.replaceChildren(
      h("div", { class: "row" }, h("h3", { class: "palette-tool-name" }, human.title), scopeBadge(tool.permission_scope, t), riskBadge(tool.risk_level, t)),
      h("p", { class: "palette-desc" }, human.description),
    );
    const fields = fieldsOf(tool.parameters);
    const needsFiles = JSON.stringify(fields).includes('"kind":"file');
    form = createSchemaForm(fields, t, lang, needsFiles ? stored() : Promise.resolve([]));
    formBox.replaceChildren(form.element);
    args.value = "{}";
    formStatus.textContent = "";
    result.replaceChildren();
    pickPane.hidden = true;
    argsPane.hidden = false;
    jsonBox.hidden = true;
    formBox.hidden = false;
    modeForm.setAttribute("aria-pressed", "true");
    modeJson.setAttribute("aria-pressed", "false");
    form.focus();
  };

  // A skill's structured result as its own view (the creator skills) or
  // as tables, its JSON one click away.
  const resultOrJson = (r: ToolResultV2, name: string, callArgs: Json): (HTMLElement | null)[] => {
    const json = h("pre", { class: "json" }, JSON.stringify(r.error === null ? r.data : r, null, 2));
    const raw = h("details", { class: "raw-json" }, h("summary", {}, t("rawJson")), json);
    if (r.error === null && hasCreatorView(name) && creatorViewFits(name, r.data)) return [renderCreatorView(name, r.data, callArgs, t, lang), raw];
    if (r.error !== null) return [raw];
    const view = resultView(r.data);
    if (view !== null) return [renderResultView(view), raw];
    // No table: what it found as fields and values, like an opened step.
    const found = resultFields(r.data, t);
    if (found.length === 0) return [h("p", { class: "palette-nothing" }, t("paletteNothingFound")), raw];
    return [
      h("dl", { class: "palette-fields" }, ...found.flatMap(([k, v]) => [h("dt", {}, fieldLabel(k, t)), h("dd", {}, fieldValue(v, t, lang))])),
      raw,
    ];
  };

  const showResult = (r: ToolResultV2, name: string, callArgs: Json): void => {
    result.replaceChildren(
      ...present(
      h("h3", {}, t("paletteResult")),
      h(
        "div",
        { class: "row" },
        h("span", { class: `call-status status-${r.status}`, "data-testid": "palette-status", "data-status": r.status }, t(callStatusKey(r.status))),
        scopeBadge(r.permission_scope, t),
        r.current_url !== null ? h("span", { class: "call-target" }, r.current_url) : null,
      ),
      r.error !== null
        ? h("p", { class: "call-error", role: "alert", title: `${r.error.code}: ${r.error.message}` }, errorSays(r.error, t, lang))
        : null,
      ...resultOrJson(r, name, callArgs),
      ),
    );
  };

  const runTool = (): void => {
    if (picked === null) return;
    formStatus.textContent = "";
    let parsed: { ok: true; value: JsonObject } | { ok: false; error: string };
    if (!jsonBox.hidden || form === null) parsed = parseArguments(args.value);
    else {
      const built = form.read();
      if (!built.ok) {
        formStatus.textContent = t("paletteFixFields");
        return;
      }
      parsed = built;
    }
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
  argsPane.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target !== args) {
      e.preventDefault();
      runTool();
    }
  });
  modeForm.addEventListener("click", () => setMode(false));
  modeJson.addEventListener("click", () => setMode(true));
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
      form = null;
      storedFiles = null;
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
