// The first-run card when no model can be used yet: what is wrong in plain
// words, the model servers running on this computer (FindLocalModels) with
// their models to use in one click, a hosted provider by its product name
// with its key (tested as typed before it is saved), and the command-line
// words only behind "Show commands".

import { h, present } from "../dom";
import type { Translate } from "../i18n";
import { request } from "../ipc";
import { PRESET_INFO, toOpError, type LocalServer, type ModelStatus } from "../protocol";
import { renderModelList } from "./models-view";
import { problemText } from "./models";

export interface SetupActions {
  /** Check the saved model again and redraw the card. */
  recheck: () => Promise<void>;
  openSettings: () => void;
}

/** Save the model endpoint (the other settings as they are). */
async function saveEndpoint(preset: string | null, baseUrl: string | null, model: string | null): Promise<void> {
  const { settings } = await request({ type: "get_settings" }, "settings");
  await request({ type: "save_settings", settings: { ...settings, preset, base_url: baseUrl, model } }, "settings");
}

/** One server found here: its models, each used in one click. */
function renderServer(t: Translate, server: LocalServer, actions: SetupActions, said: HTMLElement): HTMLElement {
  const status = server.status;
  const pick = (name: string): void => {
    said.className = "form-status";
    said.textContent = "…";
    saveEndpoint(server.preset, server.base_url, name)
      .then(() => actions.recheck())
      .catch((error: unknown) => {
        said.className = "form-status error";
        said.textContent = t("errorPrefix", { error: toOpError(error).message });
      });
  };
  // The list marks no model "in use": none is, until one is chosen here.
  const listed: ModelStatus = { ...status, model: null };
  return h(
    "div",
    { class: "local-server", "data-product": server.product, "data-url": server.base_url },
    status.models.length > 0
      ? h("p", {}, t("firstRunServerFound", { product: server.product, url: server.base_url }))
      : h("p", { class: "hint" }, t("firstRunServerEmpty", { product: server.product })),
    status.models.length > 0 ? renderModelList(t, listed, pick) : null,
  );
}

/** The card's content for `s`, a status no run can use. */
export function renderSetup(t: Translate, s: ModelStatus, actions: SetupActions): Node[] {
  const said = h("p", { id: "first-run-status", class: "form-status", role: "status" });

  // On this computer: what FindLocalModels finds.
  const local = h("div", { id: "first-run-local", "aria-live": "polite" }, h("p", { class: "hint", role: "status" }, t("firstRunLooking")));
  const lookAgain = h("button", { id: "first-run-look-again", type: "button", class: "secondary" }, t("firstRunLookAgain"));
  const look = (): void => {
    lookAgain.disabled = true;
    request({ type: "find_local_models" }, "local_models")
      .then(({ servers }) => {
        local.dataset.found = String(servers.length);
        local.replaceChildren(
          ...(servers.length > 0 ? servers.map((server) => renderServer(t, server, actions, said)) : [h("p", { class: "hint" }, t("firstRunNoneFound"))]),
        );
      })
      .catch((error: unknown) => local.replaceChildren(h("p", { class: "error" }, t("errorPrefix", { error: toOpError(error).message }))))
      .finally(() => {
        lookAgain.disabled = false;
      });
  };
  lookAgain.addEventListener("click", look);
  look();

  // Or a hosted provider: tested as typed, saved when it answers (or when
  // the person says so: the network may be down now).
  const hosted = PRESET_INFO.filter((p) => !p.local);
  const provider = h("select", { id: "first-run-provider", "aria-label": t("preset") }, ...hosted.map((p) => h("option", { value: p.id }, p.label)));
  const key = h("input", { id: "first-run-key", type: "password", autocomplete: "off", spellcheck: "false", placeholder: t("apiKey"), "aria-label": t("apiKey") });
  const use = h("button", { id: "first-run-use", type: "button", class: "secondary" }, t("firstRunUse"));
  const anyway = h("button", { id: "first-run-save-anyway", type: "button", class: "secondary" }, t("firstRunSaveAnyway"));
  anyway.hidden = true;
  // The key typed, held only until it is saved or another is tried.
  let pending: { preset: string; key: string } | null = null;
  const save = (chosen: { preset: string; key: string }): Promise<void> =>
    saveEndpoint(chosen.preset, null, null)
      .then(() => (chosen.key !== "" ? request({ type: "save_api_key", key: chosen.key }, "settings").then(() => undefined) : undefined))
      .then(() => {
        pending = null;
        anyway.hidden = true;
        return actions.recheck();
      });
  const failed = (error: unknown): void => {
    said.className = "form-status error";
    said.textContent = t("errorPrefix", { error: toOpError(error).message });
  };
  use.addEventListener("click", () => {
    const chosen = { preset: provider.value, key: key.value.trim() };
    key.value = "";
    pending = chosen;
    use.disabled = true;
    anyway.hidden = true;
    said.className = "form-status";
    said.textContent = t("checking");
    request({ type: "check_model", endpoint: { preset: chosen.preset, api_key: chosen.key === "" ? null : chosen.key } }, "model_status")
      .then(({ status }) => {
        if (status.reachable && status.problem === null) return save(chosen);
        said.className = "form-status error";
        said.textContent = problemText(status, t);
        anyway.hidden = false;
        return undefined;
      })
      .catch(failed)
      .finally(() => {
        use.disabled = false;
      });
  });
  anyway.addEventListener("click", () => {
    if (pending === null) return;
    anyway.disabled = true;
    said.className = "form-status";
    said.textContent = t("saving");
    save(pending)
      .catch(failed)
      .finally(() => {
        anyway.disabled = false;
      });
  });

  const retry = h("button", { id: "retry", type: "button", class: "primary" }, t("retry"));
  retry.addEventListener("click", () => void actions.recheck());
  const toSettings = h("button", { type: "button", class: "secondary", "data-testid": "first-run-settings" }, t("settingsOpen"));
  toSettings.addEventListener("click", actions.openSettings);
  // The command-line words, only when asked for.
  const commands =
    s.message !== null
      ? h("details", { id: "first-run-commands", class: "first-run-commands" }, h("summary", {}, t("showCommands")), h("pre", {}, s.message))
      : null;
  return present(
    h("h2", { id: "first-run-title" }, t("firstRunTitle")),
    h("p", { id: "first-run-problem", class: "model-problem" }, problemText(s, t)),
    h("p", {}, t("firstRunBody")),
    h("h3", {}, t("firstRunLocalTitle")),
    local,
    h("div", { class: "row" }, lookAgain),
    h("h3", {}, t("firstRunHostedTitle")),
    h("p", { class: "hint" }, t("firstRunHostedHint")),
    h("div", { class: "first-run-provider" }, provider, key, h("div", { class: "row" }, use, anyway)),
    said,
    h("p", {}, t("firstRunTools")),
    h("div", { class: "row" }, retry, toSettings),
    commands,
  );
}
