// confirm.html: the window the shell opens for a ConfirmationWaiting event.
// Reads `?id=` (and the request itself, base64url JSON, from `?request=`
// when the shell passes it; otherwise from the next ConfirmationWaiting
// event), shows what would happen, counts down to `expires_at`, and answers
// with AnswerConfirmation (Approve, Approve with edits, Deny), then closes.
// Hooks: #approve, #edit, #deny, #countdown, .confirm-field[data-field]
// (.reveal buttons, input when editing), #dialog-status.

import { confirmParams, displayValue, formatCountdown, secondsLeft, userEdits } from "./confirm";
import { frame, pageLanguage } from "./dialog-page";
import { h, present } from "../dom";
import type { Translate } from "../i18n";
import { closeWindow, dialogRequest, onEvent, sendOp } from "../ipc";
import { toOpError, type ConfirmationRequest, type JsonObject } from "../protocol";
import { riskBadge, scopeBadge } from "../view";

function row(label: string, value: string, cls = ""): HTMLElement {
  return h("div", { class: `kv ${cls}` }, h("dt", {}, label), h("dd", {}, value));
}

function show(req: ConfirmationRequest, body: HTMLElement, status: HTMLElement, t: Translate): void {
  const edited = new Map<string, string>();
  const revealed = new Set<string>();
  let editing = false;
  let answered = false;

  const fieldList = h("ul", { class: "confirm-fields" });
  const renderFields = (): void => {
    fieldList.replaceChildren(
      ...req.fields.map((f) => {
        const id = `field-${f.name}`;
        let control: HTMLElement;
        if (editing) {
          const input = h("input", { id, type: "text", autocomplete: "off", spellcheck: "false" });
          input.value = edited.get(f.name) ?? (f.masked ? "" : f.value);
          if (f.masked) input.placeholder = displayValue(f, true);
          input.addEventListener("input", () => {
            if (f.masked && input.value === "") edited.delete(f.name);
            else edited.set(f.name, input.value);
          });
          control = input;
        } else {
          control = h("output", { id, class: f.masked ? "masked" : "" }, edited.get(f.name) ?? displayValue(f, revealed.has(f.name)));
        }
        let reveal: HTMLElement | null = null;
        if (f.masked && !editing) {
          const on = revealed.has(f.name);
          const b = h(
            "button",
            { type: "button", class: "reveal secondary", "aria-pressed": String(on), "aria-label": t("revealLabel", { field: f.label || f.name }) },
            on ? t("hide") : t("reveal"),
          );
          b.addEventListener("click", () => {
            if (revealed.has(f.name)) revealed.delete(f.name);
            else revealed.add(f.name);
            renderFields();
            fieldList.querySelector<HTMLElement>(`[data-field="${CSS.escape(f.name)}"] .reveal`)?.focus();
          });
          reveal = b;
        }
        return h(
          "li",
          { class: "confirm-field", "data-field": f.name },
          h("label", { for: id }, f.label || f.name),
          h("div", { class: "row" }, control, reveal),
        );
      }),
    );
  };

  const countdown = h("p", { id: "countdown", class: "countdown", "aria-live": "off" });
  const approve = h("button", { id: "approve", type: "button", class: "primary" }, t("approve"));
  const edit = h("button", { id: "edit", type: "button", class: "secondary" }, t("edit"));
  const deny = h("button", { id: "deny", type: "button", class: "danger" }, t("deny"));
  edit.hidden = req.fields.length === 0;

  const hasMasked = req.fields.some((f) => f.masked);
  body.replaceChildren(
    ...present(
    h("p", { class: "summary", id: "summary" }, req.action_summary),
    h("div", { class: "badges" }, scopeBadge(req.scope, t), riskBadge(req.risk_level, t)),
    h(
      "dl",
      { class: "kvs" },
      row(t("confirmTool"), req.tool),
      req.destination !== null ? row(t("destination"), req.destination) : null,
      req.url !== null ? row(t("pageUrl"), req.url) : null,
      req.page_total !== null ? row(t("pageTotal"), req.page_total, "total") : null,
    ),
    req.fields.length > 0 ? h("h2", {}, t("fieldsTitle")) : null,
    req.fields.length > 0 ? fieldList : null,
    hasMasked ? h("p", { class: "hint" }, t("maskedNote")) : null,
    req.risks.length > 0 ? h("h2", {}, t("risksTitle")) : null,
    req.risks.length > 0 ? h("ul", { class: "risks" }, ...req.risks.map((r) => h("li", {}, r))) : null,
    countdown,
    h("div", { class: "row actions" }, deny, edit, approve),
    ),
  );
  renderFields();

  const tick = (): void => {
    const left = secondsLeft(req.expires_at, Date.now());
    countdown.textContent = left > 0 ? t("expiresIn", { time: formatCountdown(left) }) : t("expired");
    countdown.classList.toggle("urgent", left <= 30);
    if (left === 0) {
      approve.disabled = true;
      edit.disabled = true;
      window.clearInterval(timer);
    }
  };
  const timer = window.setInterval(tick, 1000);
  tick();

  const answer = (approved: boolean): void => {
    if (answered) return;
    answered = true;
    for (const b of [approve, edit, deny]) b.disabled = true;
    const user_edits: JsonObject = approved && editing ? userEdits(req.fields, edited) : {};
    sendOp({ type: "answer_confirmation", id: req.id, approved, user_edits, reason: "" }).then(
      () => closeWindow(),
      (error: unknown) => {
        status.className = "form-status error";
        status.textContent = t("answerFailed", { error: toOpError(error).message });
        answered = false;
        deny.disabled = false;
        approve.disabled = secondsLeft(req.expires_at, Date.now()) === 0;
        edit.disabled = approve.disabled;
      },
    );
  };
  approve.addEventListener("click", () => answer(true));
  deny.addEventListener("click", () => answer(false));
  edit.addEventListener("click", () => {
    editing = !editing;
    edit.setAttribute("aria-pressed", String(editing));
    approve.textContent = editing ? t("approveEdited") : t("approve");
    renderFields();
    fieldList.querySelector("input")?.focus();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") answer(false);
  });
  // Deny is focused first: approving takes a deliberate move.
  deny.focus();
}

function main(root: HTMLElement): void {
  const { t } = pageLanguage(location.search);
  const { body, status } = frame(root, t("confirmTitle"), t);
  const { id, request } = confirmParams(location.search);
  let shown = false;
  const showOnce = (req: ConfirmationRequest): void => {
    if (shown || (id !== null && req.id !== id)) return;
    shown = true;
    show(req, body, status, t);
  };
  void onEvent((event) => {
    if (event.type === "confirmation_waiting") showOnce(event.request);
    else if (event.type === "agent" && event.event.type === "confirmation_request") showOnce(event.event.request);
    else if (event.type === "confirmation_closed" && event.id === id) {
      body.replaceChildren(h("p", { class: "notice" }, t("requestMissing")));
      window.setTimeout(() => void closeWindow(), 1500);
    }
  });
  if (request !== null) showOnce(request);
  else {
    body.replaceChildren(h("p", { class: "loading", role: "status" }, t("waitingRequest")));
    if (id !== null)
      void dialogRequest(id).then((event) => {
        if (event?.type === "confirmation_waiting") showOnce(event.request);
      });
  }
}

async function boot(root: HTMLElement): Promise<void> {
  if (import.meta.env.DEV && new URLSearchParams(location.search).has("demo")) {
    const demo = await import("../demo");
    demo.installDemo();
    history.replaceState(null, "", `?id=demo-c1&request=${demo.demoRequestParam()}${location.search.includes("lang=vi") ? "&lang=vi" : ""}`);
  }
  main(root);
}

const root = document.getElementById("app");
if (root) void boot(root);
