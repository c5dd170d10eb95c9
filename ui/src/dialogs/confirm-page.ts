// confirm.html: the window the shell opens for a ConfirmationWaiting event.
// Reads `?id=` (and the request itself, base64url JSON, from `?request=`
// when the shell passes it; otherwise from the next ConfirmationWaiting
// event), shows what would happen, counts down to `expires_at`, and answers
// with AnswerConfirmation (Approve, Approve with edits, Deny), then closes.
// A person decides from the plain sentence (#headline), the amount
// (#amount: .amount-value, .amount-parts, .amount-source; `.missing` when a
// payment's price was not found), the site, the reasons in plain words (#plain-reasons) and the
// fields (sensitive ones masked); the gate's technical grading is folded
// (#technical: #summary, #risks), in the user's language too. Deny is focused; Escape denies; Approve
// is disabled for a moment after the question shows, and a payment's needs
// its box ticked (#confirm-pay), Enter never approving it.
// Hooks: #approve, #edit, #deny, #countdown, .confirm-field[data-field]
// (.reveal buttons, input when editing), #dialog-status.

import {
  amountParts,
  amountSource,
  amountText,
  confirmParams,
  displayValue,
  formatCountdown,
  gradingLine,
  headline,
  isPayment,
  plainReasons,
  priceMissing,
  secondsLeft,
  technicalSummary,
  userEdits,
} from "./confirm";
import { frame, pageLanguage } from "./dialog-page";
import { h, present } from "../dom";
import { toolLabel, type Lang, type Translate } from "../i18n";
import { closeWindow, dialogRequest, onEvent, sendOp } from "../ipc";
import { toOpError, type ConfirmationRequest, type JsonObject } from "../protocol";
import { riskBadge, scopeBadge } from "../view";

function row(label: string, value: string, cls = ""): HTMLElement {
  return h("div", { class: `kv ${cls}` }, h("dt", {}, label), h("dd", {}, value));
}

/** How long Approve stays disabled after the question shows. */
const APPROVE_AFTER_MS = 800;

function show(req: ConfirmationRequest, body: HTMLElement, footer: HTMLElement, status: HTMLElement, t: Translate, lang: Lang): void {
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

  const payment = isPayment(req);
  const countdown = h("p", { id: "countdown", class: "countdown", "aria-live": "off" });
  const approve = h("button", { id: "approve", type: "button", class: "primary" }, payment ? t("approvePay") : t("approve"));
  const edit = h("button", { id: "edit", type: "button", class: "secondary" }, t("edit"));
  const deny = h("button", { id: "deny", type: "button", class: "danger" }, t("deny"));
  edit.hidden = req.fields.length === 0;

  // A payment takes a tick and a click: Enter alone never approves it.
  const payCheck = h("input", { id: "confirm-pay", type: "checkbox" });
  const payLabel = h(
    "label",
    { class: "pay-check", for: "confirm-pay" },
    payCheck,
    req.amount !== null ? t("confirmPayCheck", { amount: amountText(req.amount, lang) }) : t("confirmPayCheckAny"),
  );
  const hasMasked = req.fields.some((f) => f.masked);
  // What the person pays, how it adds up and where it was read; a payment
  // with no amount found says so plainly.
  const parts = req.amount !== null ? amountParts(req.amount, t, lang) : null;
  const amount =
    req.amount !== null
      ? h(
          "div",
          { class: "amount", id: "amount", "data-currency": req.amount.currency ?? "", "data-source": req.amount.source },
          h("span", { class: "amount-label" }, t("confirmAmount")),
          h("strong", { class: "amount-value" }, amountText(req.amount, lang)),
          parts !== null ? h("span", { class: "amount-parts" }, parts) : null,
          h("span", { class: "amount-source" }, amountSource(req.amount, t)),
        )
      : priceMissing(req)
        ? h(
            "div",
            { class: "amount missing", id: "amount", role: "note" },
            h("span", { class: "amount-label" }, t("confirmAmount")),
            h("strong", { class: "amount-value" }, t("confirmNoPrice")),
          )
        : null;
  const technical = h(
    "details",
    { class: "technical", id: "technical" },
    h("summary", {}, t("technicalTitle")),
    h("p", { class: "summary", id: "summary" }, technicalSummary(req, t)),
    h("div", { class: "badges" }, scopeBadge(req.scope, t), riskBadge(req.risk_level, t)),
    h(
      "dl",
      { class: "kvs" },
      ...present(
        row(t("confirmTool"), toolLabel(req.tool, t)),
        req.destination !== null ? row(t("destination"), req.destination) : null,
        req.url !== null ? row(t("pageUrl"), req.url) : null,
        req.page_total !== null ? row(t("pageTotal"), req.page_total, "total") : null,
      ),
    ),
    req.grading.length > 0
      ? h("ul", { class: "risks", id: "risks" }, ...req.grading.map((g) => h("li", { "data-kind": g.kind }, gradingLine(g, t))))
      : h("span", { hidden: "" }),
  );
  body.replaceChildren(
    ...present(
      h("p", { class: "headline", id: "headline" }, headline(req, t, lang)),
      amount,
      h(
        "dl",
        { class: "kvs" },
        ...present(
          req.site !== null ? row(t("confirmSite"), req.site, "site") : null,
          req.target !== null && req.kind !== "type" ? row(t("confirmButton"), req.target) : null,
        ),
      ),
      h("h2", {}, t("risksTitle")),
      h("ul", { class: "plain-reasons", id: "plain-reasons" }, ...plainReasons(req, t).map((r) => h("li", {}, r))),
      req.fields.length > 0 ? h("h2", {}, t("fieldsTitle")) : null,
      req.fields.length > 0 ? fieldList : null,
      hasMasked ? h("p", { class: "hint" }, t("maskedNote")) : null,
      technical,
    ),
  );
  footer.replaceChildren(
    ...present(
      countdown,
      payment ? payLabel : null,
      payment ? h("p", { class: "hint pay-hint", id: "pay-hint" }, t("payEnterHint")) : null,
      h("div", { class: "row actions" }, deny, edit, approve),
    ),
  );
  renderFields();

  // Approve waits a moment after the question shows (a key or click
  // meant for another window does not land on it) and, for a payment, for
  // the tick.
  let settled = false;
  const expired = (): boolean => secondsLeft(req.expires_at, Date.now()) === 0;
  const gate = (): void => {
    if (answered) return;
    approve.disabled = !settled || expired() || (payment && !payCheck.checked);
    edit.disabled = expired();
  };
  payCheck.addEventListener("change", gate);
  window.setTimeout(() => {
    settled = true;
    gate();
  }, APPROVE_AFTER_MS);
  const tick = (): void => {
    const left = secondsLeft(req.expires_at, Date.now());
    countdown.textContent = left > 0 ? t("expiresIn", { time: formatCountdown(left) }) : t("expired");
    countdown.classList.toggle("urgent", left <= 30);
    gate();
    if (left === 0) window.clearInterval(timer);
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
        gate();
      },
    );
  };
  approve.addEventListener("click", () => {
    if (!approve.disabled) answer(true);
  });
  // Enter never approves a payment, even with the focus on its button.
  approve.addEventListener("keydown", (e) => {
    if (payment && e.key === "Enter") e.preventDefault();
  });
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
  const { t, lang } = pageLanguage(location.search);
  const { body, status } = frame(root, t("confirmTitle"), t, t("confirmWindowTitle"));
  // The buttons stay in view below the scrolling body, whatever the size.
  const footer = h("footer", { class: "dialog-footer" });
  root.append(footer);
  const { id, request } = confirmParams(location.search);
  let shown = false;
  const showOnce = (req: ConfirmationRequest): void => {
    if (shown || (id !== null && req.id !== id)) return;
    shown = true;
    show(req, body, footer, status, t, lang);
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
