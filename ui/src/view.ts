// Renders the panel: header, the "chat comes later" notice, and the
// searchable tool catalogue (or a message when not inside the desktop app).

import { filterTools, groupByKind, scopeClass, type StatusFilter } from "./catalogue";
import { h } from "./dom";
import { kindKey, riskKey, scopeKey, statusKey, type Translate } from "./i18n";
import type { ToolSpec } from "./types";

const CLI_EXAMPLE = "halley tools list\nhalley tools show NAME\nhalley tools call NAME --args '{…}'";

export function renderHeader(t: Translate): HTMLElement {
  return h(
    "header",
    { class: "app-header" },
    h("img", { class: "logo", src: "./logo.png", alt: "", width: "32", height: "32" }),
    h("div", {}, h("h1", {}, "Halley"), h("p", { class: "tagline" }, t("tagline"))),
  );
}

export function renderNotice(t: Translate): HTMLElement {
  return h(
    "section",
    { class: "notice", "aria-labelledby": "notice-title" },
    h("h2", { id: "notice-title" }, t("noticeTitle")),
    h("p", {}, t("noticeBody")),
    h("pre", { class: "cli" }, h("code", {}, CLI_EXAMPLE)),
  );
}

export function renderNotInApp(t: Translate): HTMLElement {
  return h(
    "section",
    { class: "notice notice-warning", role: "alert", "aria-labelledby": "not-in-app-title" },
    h("h2", { id: "not-in-app-title" }, t("notInAppTitle")),
    h("p", {}, t("notInAppBody")),
    h("pre", { class: "cli" }, h("code", {}, CLI_EXAMPLE)),
  );
}

function renderTool(tool: ToolSpec, t: Translate): HTMLElement {
  const planned = tool.status === "planned";
  return h(
    "li",
    { class: `tool${planned ? " tool-planned" : ""}` },
    h(
      "div",
      { class: "tool-head" },
      h("code", { class: "tool-name" }, tool.name),
      h("span", { class: `status status-${tool.status}` }, t(statusKey(tool.status))),
    ),
    h("p", { class: "tool-desc" }, tool.description),
    h(
      "div",
      { class: "badges" },
      h(
        "span",
        { class: `badge scope ${scopeClass(tool.permission_scope)}`, title: `${t("scopeLabel")}: ${tool.permission_scope}` },
        t(scopeKey(tool.permission_scope)),
      ),
      h("span", { class: `badge risk risk-${tool.risk_level}` }, t("risk", { level: t(riskKey(tool.risk_level)) })),
      tool.requires_confirmation && h("span", { class: "badge confirm" }, `⚠ ${t("needsConfirmation")}`),
    ),
    planned && tool.needs !== undefined && h("p", { class: "tool-needs" }, t("needs", { needs: tool.needs })),
  );
}

/** The list part, re-rendered on every search keystroke. */
export function renderGroups(tools: readonly ToolSpec[], query: string, status: StatusFilter, t: Translate): Node[] {
  const shown = filterTools(tools, query, status);
  const count = h("p", { class: "count", role: "status" }, t("count", { shown: shown.length, total: tools.length }));
  if (tools.length === 0) return [count, h("p", { class: "empty" }, t("empty"))];
  if (shown.length === 0) return [count, h("p", { class: "empty" }, t("noMatch", { query }))];
  const groups = groupByKind(shown).map((g) =>
    h(
      "section",
      { class: "group", "aria-labelledby": `group-${g.kind}` },
      h("h3", { id: `group-${g.kind}` }, `${t(kindKey(g.kind))} (${g.tools.length})`),
      h("ul", { class: "tools" }, ...g.tools.map((tool) => renderTool(tool, t))),
    ),
  );
  return [count, ...groups];
}

/** The catalogue section with its labelled search box and status filter. */
export function renderCatalogue(tools: readonly ToolSpec[], t: Translate): HTMLElement {
  const search = h("input", {
    id: "tool-search",
    type: "search",
    placeholder: t("searchPlaceholder"),
    autocomplete: "off",
    spellcheck: "false",
  });
  const status = h(
    "select",
    { id: "tool-status" },
    h("option", { value: "all" }, t("statusAll")),
    h("option", { value: "available" }, t("status.available")),
    h("option", { value: "planned" }, t("status.planned")),
  );
  const results = h("div", { class: "results" });
  const update = (): void => {
    const filter = status.value === "available" || status.value === "planned" ? status.value : "all";
    results.replaceChildren(...renderGroups(tools, search.value, filter, t));
  };
  search.addEventListener("input", update);
  status.addEventListener("change", update);
  update();
  return h(
    "section",
    { class: "catalogue", "aria-labelledby": "tools-title" },
    h("h2", { id: "tools-title" }, t("toolsTitle")),
    h(
      "div",
      { class: "controls" },
      h("div", { class: "field grow" }, h("label", { for: "tool-search" }, t("searchLabel")), search),
      h("div", { class: "field" }, h("label", { for: "tool-status" }, t("statusFilterLabel")), status),
    ),
    results,
  );
}

export function renderMessage(text: string, cls: string): HTMLElement {
  return h("p", { class: cls, role: "status" }, text);
}
