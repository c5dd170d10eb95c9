// The settings view: model endpoint (preset, base URL, model, API key sent
// to the OS keyring and never shown; the endpoint, model and context in use
// with their warnings, and the server's models to pick from), browser path, language, autostart, and
// the per-site confirmation rules (ListRules / AddRule / RemoveRule), and
// the MCP servers (mcp-view.ts), the local API's address and token (local-api-view.ts), and the OAuth
// accounts (accounts-view.ts).

import { renderAccounts } from "./accounts-view";
import { h, present } from "../dom";
import { renderInUse, renderModelList } from "../models/models-view";
import { renderLocalApi } from "./local-api-view";
import { renderMcpServers } from "./mcp-view";
import { field, orNull } from "../view";
import { decisionKey, toolLabel, type Translate } from "../i18n";
import { request, setAutostart } from "../ipc";
import { PRESET_INFO, presetInfo, toOpError, type GateRuleRow, type ModelEndpoint, type ModelStatus, type RuleDecision, type Settings } from "../protocol";
import { problemText } from "../models/models";
import { SEARCH_ORDERS, orderLabel, orderValue, parseOrder } from "./search";

const DECISIONS: RuleDecision[] = ["ask", "allow", "never"];

function option(value: string, label: string, selected: boolean): HTMLOptionElement {
  const o = h("option", { value }, label);
  o.selected = selected;
  return o;
}

/** A secret's field: typed, sent to the OS keyring by the settings' one
 * Save (`take` hands it over and clears the field at once), never shown
 * again; Forget, and whether one is saved. */
function secretField(
  t: Translate,
  o: {
    id: string;
    label: string;
    placeholder: string;
    hint?: string;
    savedText: string;
    noneText: string;
    save: (key: string) => Promise<boolean>;
    forget: () => Promise<boolean>;
    say: (text: string, cls?: string) => void;
    fail: (error: unknown) => void;
  },
): { element: HTMLElement; show: (saved: boolean) => void; take: () => string; peek: () => string; store: (key: string) => Promise<void> } {
  const input = h("input", {
    id: o.id,
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: o.placeholder,
    "aria-describedby": `${o.hint !== undefined ? `${o.id}-hint ` : ""}${o.id}-state`,
  });
  const keyDelete = h("button", { id: `${o.id}-delete`, type: "button", class: "secondary" }, t("apiKeyDelete"));
  const state = h("p", { id: `${o.id}-state`, class: "key-state", "data-testid": `${o.id}-state` });
  const show = (saved: boolean): void => {
    state.textContent = saved ? o.savedText : o.noneText;
    state.className = `key-state ${saved ? "saved" : ""}`;
    keyDelete.hidden = !saved;
  };
  // Taken when Save is pressed (what is typed afterwards is not part of
  // it), and cleared whatever happens: the key never stays on screen.
  const take = (): string => {
    const key = input.value.trim();
    input.value = "";
    return key;
  };
  // What is typed, left in place (Test connection tries it unsaved).
  const peek = (): string => input.value.trim();
  const store = async (key: string): Promise<void> => {
    if (key !== "") show(await o.save(key));
  };
  keyDelete.addEventListener("click", () => o.forget().then(show, o.fail));
  const element = h(
    "div",
    { class: "field" },
    h("label", { for: o.id }, o.label),
    h("div", { class: "row" }, input, keyDelete),
    state,
    o.hint !== undefined ? h("p", { class: "hint", id: `${o.id}-hint` }, o.hint) : null,
  );
  return { element, show, take, peek, store };
}

export function ruleLabel(rule: GateRuleRow, t: Translate): string {
  return `${rule.site ?? t("anySite")} · ${rule.tool !== null ? toolLabel(rule.tool, t) : t("anyTool")}`;
}

export function renderSettings(t: Translate, onSaved: (settings: Settings) => void): HTMLElement {
  const status = h("p", { class: "form-status", role: "status", id: "settings-status" });
  const say = (text: string, cls = ""): void => {
    status.className = `form-status ${cls}`;
    status.textContent = text;
  };
  const fail = (error: unknown): void => say(t("errorPrefix", { error: toOpError(error).message }), "error");

  // Providers by their product names; "" is any other OpenAI-compatible server.
  const preset = h("select", { id: "preset" }, ...PRESET_INFO.map((p) => option(p.id, p.label, false)), option("", t("presetCustom"), true));
  const baseUrl = h("input", { id: "base-url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "http://127.0.0.1:11434/v1" });
  const model = h("input", { id: "model", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "qwen2.5:7b" });
  const apiKey = secretField(t, {
    id: "api-key",
    label: t("apiKey"),
    placeholder: t("apiKeyPlaceholder"),
    hint: t("apiKeyHint"),
    savedText: t("apiKeySaved"),
    noneText: t("apiKeyNone"),
    save: (key) => request({ type: "save_api_key", key }, "settings").then((r) => r.api_key_saved),
    forget: () => request({ type: "delete_api_key" }, "settings").then((r) => r.api_key_saved),
    say,
    fail,
  });
  const braveKey = secretField(t, {
    id: "brave-key",
    label: t("braveKey"),
    placeholder: "BSA…",
    savedText: t("braveKeySaved"),
    noneText: t("braveKeyNone"),
    save: (key) => request({ type: "save_search_key", key }, "settings").then((r) => r.search_key_saved),
    forget: () => request({ type: "delete_search_key" }, "settings").then((r) => r.search_key_saved),
    say,
    fail,
  });
  const searchOrder = h("select", { id: "search-order" }, ...SEARCH_ORDERS.map((v, i) => option(v, orderLabel(v, t("searchOrderAuto")), i === 0)));
  const searxngUrl = h("input", { id: "searxng-url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "https://searx.example.org" });
  const duckduckgoUrl = h("input", { id: "duckduckgo-url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "https://html.duckduckgo.com" });
  const braveUrl = h("input", { id: "brave-url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "https://api.search.brave.com" });
  const chromium = h("input", { id: "chromium", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "/usr/bin/chromium" });
  const language = h(
    "select",
    { id: "language" },
    option("", t("languageSystem"), true),
    option("en", "English", false),
    option("vi", "Tiếng Việt", false),
  );
  const autostart = h("input", { id: "autostart", type: "checkbox" });
  const reopenTabs = h("input", { id: "reopen-tabs", type: "checkbox" });
  const save = h("button", { id: "settings-save", type: "submit", class: "primary" }, t("save"));
  const check = h("button", { id: "check-model", type: "button", class: "secondary" }, t("checkModel"));
  // What the test found, beside its button.
  const checkResult = h("p", { id: "check-model-status", class: "form-status", role: "status" });
  const checkSays = (text: string, cls: string): void => {
    checkResult.className = `form-status ${cls}`;
    checkResult.textContent = text;
  };

  // What the endpoint serves and what a run uses (filled from CheckModel).
  const modelInfo = h("div", { class: "model-info", id: "model-info", "aria-live": "polite" });
  const showStatus = (s: ModelStatus): void => {
    const pick = (name: string): void => {
      model.value = name;
      say(t("firstRunChosen", { model: name }) + " " + t("settingsSaveToApply"));
    };
    modelInfo.replaceChildren(
      ...present(
        s.reachable ? renderInUse(t, s) : null,
        s.reachable && s.models.length > 0 ? renderModelList(t, s, pick) : null,
      ),
    );
  };
  // The saved endpoint's status; with no provider nor address saved, the
  // form names the one in use (Ollama on this computer by default).
  let savedBlank = false;
  const checkStatus = (): Promise<ModelStatus> =>
    request({ type: "check_model" }, "model_status").then(({ status: s }) => {
      showStatus(s);
      if (savedBlank && preset.value === "" && baseUrl.value === "") {
        const known = PRESET_INFO.find((p) => p.url === s.base_url);
        if (known !== undefined) preset.value = known.id;
        placeUrl(s.base_url);
      }
      return s;
    });
  // The address field shows the chosen provider's own address when empty.
  const placeUrl = (inUse?: string): void => {
    baseUrl.placeholder = presetInfo(preset.value)?.url ?? inUse ?? "http://127.0.0.1:11434/v1";
  };
  preset.addEventListener("change", () => placeUrl());
  // What the form says now, as Test connection tries it (nothing saved).
  const typedEndpoint = (): ModelEndpoint => ({
    preset: orNull(preset.value),
    base_url: orNull(baseUrl.value),
    model: orNull(model.value),
    api_key: orNull(apiKey.peek()),
  });
  const sayStatus = (s: ModelStatus, tested: boolean): void => {
    if (s.reachable && s.problem === null) {
      const works = t("modelWorks", { product: s.product ?? t("modelServerGeneric"), url: s.base_url, model: s.model ?? "?" });
      checkSays(tested ? `${works} ${t("modelNotSaved")}` : works, "ok");
    } else {
      checkSays(problemText(s, t), "error");
    }
  };

  const fill = (s: Settings, saved: boolean, searchKeySaved: boolean): void => {
    preset.value = s.preset ?? "";
    savedBlank = s.preset === null && s.base_url === null;
    placeUrl();
    baseUrl.value = s.base_url ?? "";
    model.value = s.model ?? "";
    chromium.value = s.chromium ?? "";
    language.value = s.language ?? "";
    autostart.checked = s.autostart;
    reopenTabs.checked = s.reopen_tabs !== false;
    const order = orderValue(s.search.order);
    if (![...searchOrder.options].some((o) => o.value === order)) searchOrder.append(option(order, orderLabel(order, t("searchOrderAuto")), false));
    searchOrder.value = order;
    searxngUrl.value = s.search.searxng_url ?? "";
    duckduckgoUrl.value = s.search.duckduckgo_url ?? "";
    braveUrl.value = s.search.brave_url ?? "";
    apiKey.show(saved);
    braveKey.show(searchKeySaved);
  };
  const read = (): Settings => ({
    preset: orNull(preset.value),
    base_url: orNull(baseUrl.value),
    model: orNull(model.value),
    chromium: orNull(chromium.value),
    language: orNull(language.value),
    autostart: autostart.checked,
    reopen_tabs: reopenTabs.checked,
    search: {
      order: parseOrder(searchOrder.value),
      searxng_url: orNull(searxngUrl.value),
      duckduckgo_url: orNull(duckduckgoUrl.value),
      brave_url: orNull(braveUrl.value),
    },
  });

  const form = h(
    "form",
    { class: "settings-form", id: "settings-form", "aria-labelledby": "settings-title" },
    h(
      "fieldset",
      { id: "settings-model" },
      h("legend", {}, t("modelSection")),
      field("preset", t("preset"), preset),
      field("base-url", t("baseUrl"), baseUrl, t("baseUrlHint")),
      field("model", t("modelName"), model, t("modelPlaceholder")),
      apiKey.element,
      h("div", { class: "row" }, check),
      checkResult,
      modelInfo,
    ),
    h(
      "fieldset",
      { id: "search-settings" },
      h("legend", {}, t("searchSection")),
      h("p", { class: "hint" }, t("searchHint")),
      field("search-order", t("searchOrder"), searchOrder),
      field("searxng-url", t("searxngUrl"), searxngUrl, t("searxngUrlPlaceholder")),
      braveKey.element,
      field("duckduckgo-url", t("duckduckgoUrl"), duckduckgoUrl),
      field("brave-url", t("braveUrl"), braveUrl),
    ),
    h(
      "fieldset",
      { id: "settings-browser" },
      h("legend", {}, t("browserSection")),
      field("chromium", t("chromium"), chromium, t("chromiumPlaceholder")),
      field("language", t("language"), language),
      h("div", { class: "check" }, autostart, h("label", { for: "autostart" }, t("autostart"))),
      h("div", { class: "check" }, reopenTabs, h("label", { for: "reopen-tabs" }, t("reopenTabs"))),
    ),
    // The one way of saving: everything above, the keys typed included.
    h("div", { class: "row settings-save-row" }, save, status),
  );

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    save.disabled = true;
    say(t("saving"));
    const [modelKey, searchKey] = [apiKey.take(), braveKey.take()];
    request({ type: "save_settings", settings: read() }, "settings")
      .then(async (r) => {
        // The keys go to the keyring for the provider just saved.
        await apiKey.store(modelKey);
        await braveKey.store(searchKey);
        fill(r.settings, await keySaved("api"), await keySaved("search"));
        say(t("saved"), "ok");
        onSaved(r.settings);
        // What was saved is tested again: no earlier result stays beside it.
        checkResult.textContent = "";
        checkStatus()
          .then((st) => sayStatus(st, false))
          .catch(() => undefined);
        // The login item lives with the OS, not in the core's settings.
        setAutostart(r.settings.autostart).catch(fail);
      })
      .catch(fail)
      .finally(() => {
        save.disabled = false;
      });
  });
  const keySaved = (which: "api" | "search"): Promise<boolean> =>
    request({ type: "get_settings" }, "settings").then((r) => (which === "api" ? r.api_key_saved : r.search_key_saved));
  check.addEventListener("click", () => {
    checkSays(t("checking"), "");
    check.disabled = true;
    // Exactly what is typed, unsaved (the key too, left in its field).
    request({ type: "check_model", endpoint: typedEndpoint() }, "model_status")
      .then(
        ({ status: s }) => {
          showStatus(s);
          sayStatus(s, true);
        },
        (error: unknown) => checkSays(t("errorPrefix", { error: toOpError(error).message }), "error"),
      )
      .finally(() => {
        check.disabled = false;
      });
  });

  // Filled first: the status then names the provider in use when none is saved.
  request({ type: "get_settings" }, "settings")
    .then((r) => fill(r.settings, r.api_key_saved, r.search_key_saved), fail)
    .then(() => checkStatus())
    .catch(() => undefined);

  const sections: [string, string, HTMLElement][] = [
    ["settings-model", t("modelSection"), form],
    ["search-settings", t("searchSection"), form],
    ["settings-browser", t("browserSection"), form],
    ["settings-rules", t("rulesTitle"), h("div", { id: "settings-rules" }, renderRules(t))],
    ["settings-mcp", t("mcpTitle"), h("div", { id: "settings-mcp" }, renderMcpServers(t))],
    ["settings-api", t("apiTitle"), h("div", { id: "settings-api" }, renderLocalApi(t))],
    ["settings-accounts", t("accountsTitle"), h("div", { id: "settings-accounts" }, renderAccounts(t))],
  ];
  // A menu of the sections: each button scrolls its section into view.
  const menu = h(
    "nav",
    { id: "settings-menu", class: "settings-menu", "aria-label": t("settingsTitle") },
    ...sections.map(([id, label]) => {
      const b = h("button", { type: "button", class: "secondary", "data-section": id }, label);
      b.addEventListener("click", () => {
        const target = document.getElementById(id);
        target?.scrollIntoView({ block: "start", behavior: "instant" });
        target?.querySelector<HTMLElement>("input, select, textarea, button")?.focus({ preventScroll: true });
      });
      return b;
    }),
  );
  const blocks = [...new Set(sections.map(([, , el]) => el))];
  return h("div", { class: "settings" }, h("h2", { id: "settings-title" }, t("settingsTitle")), menu, ...blocks);
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

  const site = h("input", { id: "rule-site", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "*.shop.vn" });
  // The tools by the catalogue's words (#43 item 8: no raw tool name to type).
  const tool = h("select", { id: "rule-tool" }, h("option", { value: "" }, t("anyTool")));
  request({ type: "list_tools" }, "tools").then(
    (r) => {
      const named = r.tools.map((x) => [x.name, toolLabel(x.name, t)] as const).sort((a, b) => a[1].localeCompare(b[1]));
      tool.append(...named.map(([name, label]) => h("option", { value: name, title: name }, label)));
    },
    () => undefined,
  );
  const decision = h("select", { id: "rule-decision" }, ...DECISIONS.map((d, i) => option(d, t(decisionKey(d)), i === 0)));
  const add = h("button", { id: "rule-add", type: "submit" }, t("ruleAdd"));
  const form = h(
    "form",
    { class: "rule-form" },
    field("rule-site", t("ruleSite"), site, t("ruleSitePlaceholder")),
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
