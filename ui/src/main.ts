// Entry point of the side panel: picks the language, asks the desktop shell
// for the tool catalogue and renders it; outside the app it says so instead.

import { invoke, isTauri } from "@tauri-apps/api/core";
import { pickLanguage, translator } from "./i18n";
import type { ToolSpec } from "./types";
import { renderCatalogue, renderHeader, renderMessage, renderNotice, renderNotInApp } from "./view";
import "./style.css";

async function start(root: HTMLElement): Promise<void> {
  const lang = pickLanguage(navigator.language);
  const t = translator(lang);
  document.documentElement.lang = lang;
  const main = document.createElement("main");
  root.replaceChildren(renderHeader(t), main);

  if (!isTauri()) {
    main.replaceChildren(renderNotInApp(t));
    return;
  }
  main.replaceChildren(renderNotice(t), renderMessage(t("loading"), "loading"));
  try {
    const tools = await invoke<ToolSpec[]>("list_tools");
    main.replaceChildren(renderNotice(t), renderCatalogue(tools, t));
  } catch (error) {
    main.replaceChildren(renderNotice(t), renderMessage(t("loadError", { error: String(error) }), "error"));
  }
}

const root = document.getElementById("app");
// `data-ready="1"` on <body> once the first render is done (or failed): the
// e2e tests and `make bench-desktop` wait for it.
if (root)
  void start(root).finally(() => {
    document.body.dataset.ready = "1";
  });
