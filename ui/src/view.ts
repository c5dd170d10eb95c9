// Small DOM pieces shared by the panel and the dialog pages: the header,
// scope and risk badges, the "not connected" notice and status lines.

import { scopeClass } from "./palette/catalogue";
import { h } from "./dom";
import { riskKey, scopeKey, type Lang, type Translate } from "./i18n";
import { toOpError, type PermissionScope, type RiskLevel } from "./protocol";

export function renderHeader(t: Translate, ...actions: Node[]): HTMLElement {
  return h(
    "header",
    { class: "app-header" },
    h(
      "div",
      { class: "brand-row" },
      h("img", { class: "logo", src: "./logo.png", alt: "", width: "28", height: "28" }),
      h("div", { class: "brand" }, h("h1", {}, "Halley"), h("p", { class: "tagline" }, t("tagline"))),
    ),
    actions.length > 0 ? h("nav", { class: "header-actions", "aria-label": "Halley" }, ...actions) : null,
  );
}

/** A scope badge; `title` (the tooltip) defaults to the scope's name. */
export function scopeBadge(scope: PermissionScope, t: Translate, title: string = scope): HTMLElement {
  return h("span", { class: `badge scope ${scopeClass(scope)}`, title }, t(scopeKey(scope)));
}

export function riskBadge(risk: RiskLevel, t: Translate): HTMLElement {
  return h("span", { class: `badge risk risk-${risk}` }, t("risk", { level: t(riskKey(risk)) }));
}

export function renderNotConnected(t: Translate): HTMLElement {
  return h(
    "section",
    { class: "notice notice-warning", role: "alert", id: "not-connected", "data-testid": "not-connected" },
    h("h2", {}, t("notConnectedTitle")),
    h("p", {}, t("notConnectedBody")),
  );
}

export function renderMessage(text: string, cls: string): HTMLElement {
  return h("p", { class: cls, role: "status" }, text);
}

/** A button with a visible label (and an aria-label when the label is only an icon). */
export function button(id: string, label: string, cls = "", ariaLabel?: string): HTMLButtonElement {
  const attrs: Record<string, string> = { id, type: "button", class: cls };
  if (ariaLabel !== undefined) attrs["aria-label"] = ariaLabel;
  if (ariaLabel !== undefined) attrs.title = ariaLabel;
  return h("button", attrs, label);
}

/** A header button: its symbol above a short word, `label` its full name (aria-label and tooltip). */
export function navButton(id: string, symbol: string, word: string, label: string): HTMLButtonElement {
  // The name read out holds the word shown (WCAG 2.5.3, "label in name").
  const name = label.toLowerCase().includes(word.toLowerCase()) ? label : `${word}: ${label}`;
  return h(
    "button",
    { id, type: "button", class: "nav", "aria-label": name, title: name },
    h("span", { class: "nav-symbol", "aria-hidden": "true" }, symbol),
    h("span", { class: "nav-word", "aria-hidden": "true" }, word),
  );
}

/** A date and time as the user's language writes it (short). */
export function formatTime(iso: string, lang: Lang): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(lang === "vi" ? "vi-VN" : "en-GB", { dateStyle: "short", timeStyle: "short" });
}

/** Empty text as null (serde's None). */
export const orNull = (text: string): string | null => (text.trim() === "" ? null : text.trim());

/** A labelled form control, with a hint under it (`{id}-hint`) when given. */
export function field(id: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint !== undefined ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null,
  );
}

/** Fills `list` with one item per entry, or with one "empty" line saying so. */
export function fillList<T>(list: HTMLElement, items: readonly T[], empty: string, render: (item: T) => HTMLElement): void {
  // A field the user is typing in may be kept across the refresh (an open
  // edit form): moving it out and back blurs it, and the next keys would go
  // to the page. Its focus and caret come back with it.
  const active = document.activeElement;
  const typing = active instanceof HTMLElement && list.contains(active) ? active : null;
  const caret =
    typing instanceof HTMLInputElement || typing instanceof HTMLTextAreaElement ? caretOf(typing) : null;
  list.replaceChildren(...(items.length === 0 ? [h("li", { class: "empty" }, empty)] : items.map(render)));
  if (typing !== null && typing.isConnected && document.activeElement !== typing) {
    typing.focus({ preventScroll: true });
    if (caret !== null && (typing instanceof HTMLInputElement || typing instanceof HTMLTextAreaElement)) {
      try {
        typing.setSelectionRange(caret[0], caret[1]);
      } catch {
        // Inputs without a caret (datetime-local) keep none.
      }
    }
  }
}

function caretOf(el: HTMLInputElement | HTMLTextAreaElement): [number, number] | null {
  try {
    return el.selectionStart === null || el.selectionEnd === null ? null : [el.selectionStart, el.selectionEnd];
  } catch {
    return null;
  }
}

/** A settings section's status line: `say` shows a message (with a class:
 * ok, error, pending), `fail` an op's error. */
export function statusLine(id: string, t: Translate): { status: HTMLElement; say: (text: string, cls?: string) => void; fail: (error: unknown) => void } {
  const status = h("p", { class: "form-status", role: "status", id });
  const say = (text: string, cls = ""): void => {
    status.className = `form-status ${cls}`;
    status.textContent = text;
  };
  const fail = (error: unknown): void => say(t("errorPrefix", { error: toOpError(error).message }), "error");
  return { status, say, fail };
}
