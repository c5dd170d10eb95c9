// The model list and the "in use" block, shared by the first-run screen
// and the settings: each model with its size, tool calling and context
// (a button to use it), what a run gives the model in use, and warnings.

import { h } from "../dom";
import type { Translate } from "../i18n";
import type { ModelStatus } from "../protocol";
import { inUseLines, modelRows, warningText } from "./models";

/** The models to choose from; `pick` is called with the chosen name. */
export function renderModelList(t: Translate, status: ModelStatus, pick: (name: string) => void): HTMLElement {
  const items = modelRows(status, t).map((row) => {
    const use = h("button", { type: "button", class: row.inUse ? "primary" : "secondary", "data-model": row.name }, row.inUse ? t("modelInUseMark") : t("modelUse"));
    use.addEventListener("click", () => pick(row.name));
    const tools =
      row.tools === "yes"
        ? h("span", { class: "badge model-tools-yes" }, t("modelToolsYes"))
        : row.tools === "no"
          ? h("span", { class: "badge model-tools-no", title: t("warnNoTools", { model: row.name }) }, t("modelToolsNo"))
          : null;
    const context = row.context === "" ? null : h("span", { class: `badge ${row.smallContext ? "model-context-small" : "model-context"}` }, row.smallContext ? `${row.context} · ${t("modelContextSmall")}` : row.context);
    return h(
      "li",
      { class: "model-row", "data-model": row.name },
      h("span", { class: "model-name" }, row.name),
      row.facts !== "" ? h("span", { class: "model-facts" }, row.facts) : null,
      h("span", { class: "badges" }, tools, context),
      use,
    );
  });
  return h("ul", { class: "model-list", id: "model-list", "aria-label": t("modelsTitle") }, ...items);
}

/** Endpoint, model, context in use, tool calling, and the warnings. */
export function renderInUse(t: Translate, status: ModelStatus): HTMLElement {
  const warnings = status.warnings.map((w) => h("li", { class: "model-warning", role: "alert" }, warningText(w, t)));
  return h(
    "div",
    { class: "model-in-use", id: "model-in-use" },
    h("h3", {}, t("inUseTitle")),
    ...inUseLines(status, t).map((line) => h("p", { class: "hint" }, line)),
    warnings.length > 0 ? h("ul", { class: "model-warnings" }, ...warnings) : null,
  );
}
