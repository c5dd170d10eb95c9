// The settings' Local API section: the address the desktop app serves the
// local API on and its bearer token (ApiInfo), hidden until Show, with Copy
// and Rotate (RotateApiToken, asked first: programs using the old token stop
// working at once).

import { h } from "../dom";
import { statusLine } from "../view";
import type { Translate } from "../i18n";
import { request } from "../ipc";
import type { ReplyOf } from "../protocol";

type ApiInfo = ReplyOf<"api_info">;

/** The token as shown while hidden: its prefix and a mask of its length. */
export function maskToken(token: string): string {
  const prefix = token.startsWith("hly_") ? "hly_" : "";
  return prefix + "•".repeat(Math.min(Math.max(token.length - prefix.length, 0), 24));
}

export function renderLocalApi(t: Translate): HTMLElement {
  const address = h("code", { id: "api-address" });
  const token = h("code", { id: "api-token", class: "api-token" });
  const { status, say, fail } = statusLine("api-status", t);

  let current: ApiInfo | null = null;
  let shown = false;
  const showToggle = h("button", { type: "button", id: "api-token-show" }, t("apiTokenShow"));
  const copy = h("button", { type: "button", id: "api-token-copy" }, t("apiTokenCopy"));
  const rotate = h("button", { type: "button", id: "api-token-rotate" }, t("apiTokenRotate"));
  const rotateYes = h("button", { type: "button", id: "api-token-rotate-confirm", class: "danger" }, t("apiTokenRotate"));
  const rotateNo = h("button", { type: "button", id: "api-token-rotate-cancel" }, t("cancel"));
  const ask = h("div", { class: "api-rotate-ask", id: "api-rotate-ask", hidden: "" }, h("p", {}, t("apiTokenRotateWarning")), h("div", { class: "row" }, rotateYes, rotateNo));

  const paint = (): void => {
    if (current === null) return;
    address.textContent = current.address ?? t("apiNotServed");
    token.textContent = shown ? current.token : maskToken(current.token);
    showToggle.textContent = shown ? t("apiTokenHide") : t("apiTokenShow");
  };
  const load = (info: ApiInfo): void => {
    current = info;
    paint();
  };

  showToggle.addEventListener("click", () => {
    shown = !shown;
    paint();
  });
  copy.addEventListener("click", () => {
    if (current === null) return;
    navigator.clipboard.writeText(current.token).then(() => say(t("apiTokenCopied"), "ok"), fail);
  });
  rotate.addEventListener("click", () => {
    ask.hidden = false;
  });
  rotateNo.addEventListener("click", () => {
    ask.hidden = true;
  });
  rotateYes.addEventListener("click", () => {
    ask.hidden = true;
    request({ type: "rotate_api_token" }, "api_info").then((info) => {
      load(info);
      say(t("apiTokenRotated"), "ok");
    }, fail);
  });
  request({ type: "api_info" }, "api_info").then(load, fail);

  return h(
    "section",
    { class: "local-api-section", "aria-labelledby": "local-api-title" },
    h("h2", { id: "local-api-title" }, t("apiTitle")),
    h("p", { class: "hint" }, t("apiHint")),
    h("p", {}, `${t("apiAddress")}: `, address),
    h("p", {}, `${t("apiToken")}: `, token),
    h("div", { class: "row" }, showToggle, copy, rotate),
    ask,
    status,
  );
}
