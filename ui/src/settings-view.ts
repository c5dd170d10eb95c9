// The settings view: model endpoint (preset, base URL, model, API key sent
// to the OS keyring and never shown), browser path, language, autostart, and
// the per-site confirmation rules (ListRules / AddRule / RemoveRule), and
// the MCP servers (mcp-view.ts), the local API's address and token (local-api-view.ts), and the OAuth
// accounts (accounts-view.ts).

import { renderAccounts } from "./accounts-view";
import { h } from "./dom";
import { renderLocalApi } from "./local-api-view";
import { renderMcpServers } from "./mcp-view";
import { field, orNull } from "./view";
import { decisionKey, type Translate } from "./i18n";
import { request, setAutostart } from "./ipc";
import { PRESETS, toOpError, type GateRuleRow, type RuleDecision, type Settings } from "./protocol";

const DECISIONS: RuleDecision[] = ["ask", "allow", "never"];

function option(value: string, label: string, selected: boolean): HTMLOptionElement {
  const o = h("option", { value }, label);
  o.selected = selected;
  return o;
}

export function ruleLabel(rule: GateRuleRow, t: Translate): string {
  return `${rule.site ?? t("anySite")} · ${rule.tool ?? t("anyTool")}`;
}

export function renderSettings(t: Translate, onSaved: (settings: Settings) => void): HTMLElement {
  const status = h("p", { class: "form-status", role: "status", id: "settings-status" });
  const say = (text: string, cls = ""): void => {
    status.className = `form-status ${cls}`;
    status.textContent = text;
  };
  const fail = (error: unknown): void => say(t("errorPrefix", { error: toOpError(error).message }), "error");

  const preset = h("select", { id: "preset" }, option("", t("presetCustom"), true), ...PRESETS.map((p) => option(p, p, false)));
  const baseUrl = h("input", { id: "base-url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "http://127.0.0.1:11434/v1" });
  const model = h("input", { id: "model", type: "text", autocomplete: "off", spellcheck: "false", placeholder: t("modelPlaceholder") });
  const apiKey = h("input", {
    id: "api-key",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: t("apiKeyPlaceholder"),
    "aria-describedby": "api-key-hint api-key-state",
  });
  const keySave = h("button", { id: "api-key-save", type: "button" }, t("apiKeySave"));
  const keyDelete = h("button", { id: "api-key-delete", type: "button", class: "secondary" }, t("apiKeyDelete"));
  const keyState = h("p", { id: "api-key-state", class: "key-state", "data-testid": "api-key-state" });
  const chromium = h("input", { id: "chromium", type: "text", autocomplete: "off", spellcheck: "false", placeholder: t("chromiumPlaceholder") });
  const language = h(
    "select",
    { id: "language" },
    option("", t("languageSystem"), true),
    option("en", "English", false),
    option("vi", "Tiếng Việt", false),
  );
  const autostart = h("input", { id: "autostart", type: "checkbox" });
  const save = h("button", { id: "settings-save", type: "submit", class: "primary" }, t("save"));
  const check = h("button", { id: "check-model", type: "button", class: "secondary" }, t("checkModel"));

  const showKey = (saved: boolean): void => {
    keyState.textContent = saved ? t("apiKeySaved") : t("apiKeyNone");
    keyState.className = `key-state ${saved ? "saved" : ""}`;
    keyDelete.hidden = !saved;
  };
  const fill = (s: Settings, saved: boolean): void => {
    preset.value = s.preset ?? "";
    baseUrl.value = s.base_url ?? "";
    model.value = s.model ?? "";
    chromium.value = s.chromium ?? "";
    language.value = s.language ?? "";
    autostart.checked = s.autostart;
    showKey(saved);
  };
  const read = (): Settings => ({
    preset: orNull(preset.value),
    base_url: orNull(baseUrl.value),
    model: orNull(model.value),
    chromium: orNull(chromium.value),
    language: orNull(language.value),
    autostart: autostart.checked,
  });

  const form = h(
    "form",
    { class: "settings-form", id: "settings-form", "aria-labelledby": "settings-title" },
    h("h2", { id: "settings-title" }, t("settingsTitle")),
    h(
      "fieldset",
      {},
      h("legend", {}, t("modelSection")),
      field("preset", t("preset"), preset),
      field("base-url", t("baseUrl"), baseUrl),
      field("model", t("modelName"), model),
      h(
        "div",
        { class: "field" },
        h("label", { for: "api-key" }, t("apiKey")),
        h("div", { class: "row" }, apiKey, keySave, keyDelete),
        keyState,
        h("p", { class: "hint", id: "api-key-hint" }, t("apiKeyHint")),
      ),
      h("div", { class: "row" }, check),
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, t("browserSection")),
      field("chromium", t("chromium"), chromium),
      field("language", t("language"), language),
      h("div", { class: "check" }, autostart, h("label", { for: "autostart" }, t("autostart"))),
    ),
    h("div", { class: "row" }, save),
    status,
  );

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    request({ type: "save_settings", settings: read() }, "settings").then((r) => {
      fill(r.settings, r.api_key_saved);
      say(t("saved"), "ok");
      onSaved(r.settings);
      // The login item lives with the OS, not in the core's settings.
      setAutostart(r.settings.autostart).catch(fail);
    }, fail);
  });
  const saveKey = (): void => {
    const key = apiKey.value.trim();
    // The field is cleared whatever happens: the key never stays on screen.
    apiKey.value = "";
    if (key === "") return;
    request({ type: "save_api_key", key }, "settings").then((r) => {
      showKey(r.api_key_saved);
      say(t("apiKeySaved"), "ok");
    }, fail);
  };
  keySave.addEventListener("click", saveKey);
  apiKey.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      saveKey();
    }
  });
  keyDelete.addEventListener("click", () => {
    request({ type: "delete_api_key" }, "settings").then((r) => showKey(r.api_key_saved), fail);
  });
  check.addEventListener("click", () => {
    say(t("loadingList"));
    request({ type: "check_model" }, "model_status").then(({ status: s }) => {
      if (s.reachable) say(t("modelReachable", { url: s.base_url, model: s.model ?? "?" }), "ok");
      else say(s.message ?? t("firstRunTitle"), "error");
    }, fail);
  });

  request({ type: "get_settings" }, "settings").then((r) => fill(r.settings, r.api_key_saved), fail);

  return h("div", { class: "settings" }, form, renderRules(t), renderMcpServers(t), renderLocalApi(t), renderAccounts(t));
}

function renderRules(t: Translate): HTMLElement {
  const list = h("ul", { class: "rules", id: "rules" });
  const status = h("p", { class: "form-status", role: "status" });
  const fail = (error: unknown): void => {
    status.className = "form-status error";
    status.textContent = t("errorPrefix", { error: toOpError(error).message });
  };
  const show = (rules: GateRuleRow[]): void => {
    status.textContent = "";
    if (rules.length === 0) {
      list.replaceChildren(h("li", { class: "empty" }, t("rulesEmpty")));
      return;
    }
    list.replaceChildren(
      ...rules.map((rule) => {
        const what = ruleLabel(rule, t);
        const remove = h("button", { type: "button", class: "icon remove-rule", "aria-label": t("ruleRemove", { what }), title: t("ruleRemove", { what }) }, "✕");
        remove.addEventListener("click", () => {
          request({ type: "remove_rule", id: rule.id }, "rules").then((r) => show(r.rules), fail);
        });
        return h(
          "li",
          { class: "rule", "data-rule": rule.id },
          h("span", { class: "rule-what" }, what),
          h("span", { class: `badge decision decision-${rule.decision}` }, t(decisionKey(rule.decision))),
          remove,
        );
      }),
    );
  };

  const site = h("input", { id: "rule-site", type: "text", autocomplete: "off", spellcheck: "false", placeholder: t("ruleSitePlaceholder") });
  const tool = h("input", { id: "rule-tool", type: "text", autocomplete: "off", spellcheck: "false", placeholder: t("ruleToolPlaceholder") });
  const decision = h("select", { id: "rule-decision" }, ...DECISIONS.map((d, i) => option(d, t(decisionKey(d)), i === 0)));
  const add = h("button", { id: "rule-add", type: "submit" }, t("ruleAdd"));
  const form = h(
    "form",
    { class: "rule-form" },
    field("rule-site", t("ruleSite"), site),
    field("rule-tool", t("ruleTool"), tool),
    field("rule-decision", t("ruleDecision"), decision),
    h("div", { class: "row" }, add),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const s = orNull(site.value);
    const tl = orNull(tool.value);
    if (s === null && tl === null) {
      status.className = "form-status error";
      status.textContent = t("ruleNeedsTarget");
      return;
    }
    const chosen = DECISIONS.find((d) => d === decision.value) ?? "ask";
    request({ type: "add_rule", site: s, tool: tl, decision: chosen }, "rules").then((r) => {
      site.value = "";
      tool.value = "";
      show(r.rules);
    }, fail);
  });
  request({ type: "list_rules" }, "rules").then((r) => show(r.rules), fail);

  return h(
    "section",
    { class: "rules-section", "aria-labelledby": "rules-title" },
    h("h2", { id: "rules-title" }, t("rulesTitle")),
    h("p", { class: "hint" }, t("rulesHint")),
    list,
    form,
    status,
  );
}
