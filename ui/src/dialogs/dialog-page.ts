// What the two dialog pages (confirm.html, challenge.html) share: the
// language (`?lang=` from the shell, else the system's) and the page frame.

import { h } from "../dom";
import { pickLanguage, translator, type Lang, type Translate } from "../i18n";
import { isConnected } from "../ipc";
import { renderNotConnected } from "../view";
import "../style.css";

export function pageLanguage(search: string): { lang: Lang; t: Translate } {
  const lang = pickLanguage(new URLSearchParams(search).get("lang") ?? navigator.language);
  document.documentElement.lang = lang;
  return { lang, t: translator(lang) };
}

/** The page frame: a title bar, the body, and a status line for errors;
 * `windowTitle` is the window's (as the shell names it, in the page's language). */
export function frame(root: HTMLElement, title: string, t: Translate, windowTitle: string): { body: HTMLElement; status: HTMLElement } {
  const body = h("div", { class: "dialog-body" });
  const status = h("p", { class: "form-status", role: "status", id: "dialog-status" });
  root.replaceChildren(
    h("header", { class: "dialog-header" }, h("img", { src: "./logo.png", alt: "", width: "24", height: "24" }), h("h1", {}, title)),
    isConnected() ? h("span", { hidden: "" }) : renderNotConnected(t),
    body,
    status,
  );
  document.title = windowTitle;
  return { body, status };
}
