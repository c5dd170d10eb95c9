// challenge.html: the window the shell opens for a ChallengeWaiting event.
// Says what to do in the browser, shows the page's URL, and answers with
// AnswerChallenge (Done / Cancel) or ShowChallenge ("Show browser").
// Reads `?id=` and the request (base64url JSON) from `?request=`, or from
// the next ChallengeWaiting event with that id.
// Done while the page still shows the challenge: the window says so in
// #dialog-status and keeps waiting.
// Hooks: #done, #cancel, #show-browser, #challenge-url, #dialog-status.

import { decodeParam, isChallengeRequest } from "./confirm";
import { frame, pageLanguage } from "./dialog-page";
import { h } from "../dom";
import { challengeKey, challengeStillKey, type Translate } from "../i18n";
import { closeWindow, dialogRequest, onEvent, sendOp } from "../ipc";
import { toOpError, type ChallengeRequest } from "../protocol";

function show(id: string, req: ChallengeRequest, body: HTMLElement, status: HTMLElement, t: Translate): void {
  const done = h("button", { id: "done", type: "button", class: "primary" }, t("done"));
  const cancel = h("button", { id: "cancel", type: "button", class: "secondary" }, t("cancel"));
  const showBrowser = h("button", { id: "show-browser", type: "button", class: "secondary" }, t("showBrowser"));
  const fail = (error: unknown): void => {
    status.className = "form-status error";
    status.textContent = t("answerFailed", { error: toOpError(error).message });
    done.disabled = false;
    cancel.disabled = false;
  };
  const answer = (ok: boolean): void => {
    done.disabled = true;
    cancel.disabled = true;
    status.className = "form-status";
    status.textContent = ok ? t("challengeChecking") : "";
    sendOp({ type: "answer_challenge", id, done: ok }).then((reply) => {
      if (reply.type === "challenge_answered" && reply.still_there) {
        // The page still shows it: say so here and keep waiting.
        status.className = "form-status error";
        status.textContent = t(challengeStillKey(req.challenge_type));
        done.disabled = false;
        cancel.disabled = false;
        done.focus();
        return;
      }
      void closeWindow();
    }, fail);
  };
  done.addEventListener("click", () => answer(true));
  cancel.addEventListener("click", () => answer(false));
  showBrowser.addEventListener("click", () => {
    sendOp({ type: "show_challenge", id }).catch(fail);
  });
  body.replaceChildren(
    h("p", { class: "summary", id: "challenge-what" }, t(challengeKey(req.challenge_type))),
    h("p", { class: "hint" }, t("challengeNote")),
    h(
      "dl",
      { class: "kvs" },
      h("div", { class: "kv" }, h("dt", {}, t("pageUrl")), h("dd", { id: "challenge-url" }, req.url)),
      req.page_hint !== null ? h("div", { class: "kv" }, h("dt", {}, t("challengeHint")), h("dd", {}, req.page_hint)) : null,
    ),
    // What an early Done is told sits right above the buttons.
    status,
    h("div", { class: "row actions" }, cancel, showBrowser, done),
  );
  done.focus();
}

function main(root: HTMLElement): void {
  const { t } = pageLanguage(location.search);
  const { body, status } = frame(root, t("challengeTitle"), t, t("challengeWindowTitle"));
  const params = new URLSearchParams(location.search);
  const id = params.get("id");
  const request = decodeParam(params.get("request"), isChallengeRequest);
  let shown = false;
  const showOnce = (eventId: string, req: ChallengeRequest): void => {
    if (shown || (id !== null && eventId !== id)) return;
    shown = true;
    show(eventId, req, body, status, t);
  };
  void onEvent((event) => {
    if (event.type === "challenge_waiting") showOnce(event.id, event.request);
    else if (event.type === "challenge_closed" && event.id === id) void closeWindow();
  });
  if (request !== null && id !== null) showOnce(id, request);
  else {
    body.replaceChildren(h("p", { class: "loading", role: "status" }, t("waitingRequest")));
    if (id !== null)
      void dialogRequest(id).then((event) => {
        if (event?.type === "challenge_waiting") showOnce(event.id, event.request);
      });
  }
}

const root = document.getElementById("app");
if (root) main(root);
