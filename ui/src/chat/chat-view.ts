// Renders the chat: message bubbles, banners (paused, waiting confirmations
// and challenges) and the live timeline of tool calls grouped by run.

import { creatorViewFits, hasCreatorView } from "../creator/creator";
import { h } from "../dom";
import { callStatusKey, hasMessage, type Lang, type Translate } from "../i18n";
import type { ChatItem, PanelState } from "../state";
import { waitingSentence } from "../dialogs/confirm";
import { markdownNodes } from "./markdown";
import { challengeWaitSentence, errorSays, fieldLabel, fieldValue, hostOf, stepDetails, stepOutcome, stepSentence } from "./steps";
import { resultView, type ResultView } from "./result-table";
import { callScopeBadge, durationLabel, groupByRun, nestSteps, screenshots, type CallRow } from "./timeline";
import { scopeBadge, riskBadge } from "../view";

/** Opens a skill's own view of its result (the creator skills: creator-view.ts). */
export type OpenView = (row: CallRow) => void;

/** Screenshots: loaded once via ReadArtifact as data URLs, then shown from the cache. */
export interface Shots {
  peek(reference: string): string | undefined;
  load(reference: string): Promise<string>;
  open(dataUrl: string, alt: string): void;
}

/** `savable`: whether a finished answer offers "Save as routine". */
function renderItem(item: ChatItem, t: Translate, savable: boolean): HTMLElement {
  const who =
    item.role === "user" ? t("userSays") : item.role === "assistant" ? t("assistantSays") : item.role === "tool" ? t("toolSays", { tool: item.toolName ?? "" }) : "";
  // A notice with no text is the "stopped" line of a cancelled run.
  const text = item.role === "notice" && item.text === "" ? t("runStopped") : item.text;
  const attrs: Record<string, string> = { class: `msg ${item.role}${item.streaming ? " streaming" : ""}`, "data-key": item.key };
  if (item.runId !== null) attrs["data-run"] = item.runId;
  if (item.streaming) attrs["aria-busy"] = "true";
  if (item.role === "error") attrs.role = "alert";
  // No model to answer: said plainly, with the way to set one up (main.ts
  // opens the set-up card) and the server's words behind "Details".
  if (item.role === "error" && item.code === "model_unavailable") {
    return h(
      "li",
      { ...attrs, "data-code": item.code },
      h("div", { class: "text" }, t("chatModelNotReady")),
      h("button", { type: "button", class: "primary setup-model" }, t("chatSetUpModel")),
      h("details", { class: "error-details" }, h("summary", {}, t("showDetails")), h("pre", {}, item.text)),
    );
  }
  // An answer is Markdown, rendered and sanitised; everything else is text.
  const body = item.role === "assistant" ? h("div", { class: "text markdown" }, markdownNodes(text)) : h("div", { class: "text" }, text);
  // A finished run's answer can be kept as a routine (main.ts opens the dialog).
  const save =
    savable && item.role === "assistant" && item.runId !== null && !item.streaming
      ? h("button", { type: "button", class: "secondary save-routine", "data-run": item.runId }, t("saveAsRoutine"))
      : null;
  return h("li", attrs, who !== "" ? h("span", { class: "who" }, who) : null, body, save);
}

export function renderMessages(state: PanelState, t: Translate): Node[] {
  // Only a run the core said can be saved (it finished, and each of its
  // steps can be replayed: `CanSaveRoutine`, asked by main.ts).
  const replayable = (runId: string | null): boolean => runId !== null && state.savable[runId] === true;
  const items: Node[] = state.messages.map((m) => renderItem(m, t, replayable(m.runId)));
  const last = state.messages[state.messages.length - 1];
  if (state.running && !(last?.role === "assistant" && last.streaming)) {
    items.push(h("li", { class: "msg working", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("working")));
  }
  return items;
}

export function renderBanners(state: PanelState, t: Translate, lang: Lang, onResume?: () => void): Node[] {
  const out: Node[] = [];
  if (state.paused) {
    // Resumed here, not only from the tray.
    const resume = h("button", { type: "button", id: "resume-agent", class: "secondary" }, t("resumeAgent"));
    if (onResume !== undefined) resume.addEventListener("click", onResume);
    out.push(h("p", { class: "banner banner-paused", role: "status" }, t("paused"), " ", onResume !== undefined ? resume : null));
  }
  // A waiting question says what the dialog says: what it pays, where, by which button.
  for (const c of state.confirmations) {
    out.push(h("p", { class: "banner banner-confirm", role: "status", "data-id": c.id }, waitingSentence(c, t, lang)));
  }
  for (const c of state.challenges) {
    out.push(
      h("p", { class: "banner banner-challenge", role: "status" }, challengeWaitSentence(c.request.challenge_type, hostOf(c.request.url), t)),
    );
  }
  return out;
}

function renderShot(reference: string, row: CallRow, t: Translate, shots: Shots): HTMLElement {
  const alt = t("screenshotAlt", { tool: row.tool });
  const btn = h("button", { type: "button", class: "shot", "aria-label": t("screenshotOpen"), title: t("screenshotOpen") }, t("screenshotLoading"));
  const show = (url: string): void => {
    btn.replaceChildren(h("img", { src: url, alt, class: "thumb" }));
    btn.addEventListener("click", () => shots.open(url, alt));
  };
  const cached = shots.peek(reference);
  if (cached !== undefined) {
    show(cached);
    return btn;
  }
  shots.load(reference).then(
    show,
    (error: unknown) => {
      btn.replaceChildren(t("errorPrefix", { error: String((error as { message?: string }).message ?? error) }));
      btn.disabled = true;
    },
  );
  return btn;
}

/** A column or field name for people: "warranty_months" -> "warranty months". */
const label = (name: string): string => name.replace(/_/g, " ");

/** A structured result's tables and fields (a skill's comparison, options, days...). */
export function renderResultView(view: ResultView): HTMLElement {
  return h(
    "div",
    { class: "result-view", "data-testid": "result-view" },
    ...view.tables.map((table) =>
      h(
        "table",
        { class: "result-table", "data-field": table.name },
        h("caption", {}, label(table.name)),
        h("thead", {}, h("tr", {}, ...table.columns.map((c) => h("th", { scope: "col" }, label(c))))),
        h("tbody", {}, ...table.rows.map((cells) => h("tr", {}, ...cells.map((cell) => h("td", {}, cell))))),
      ),
    ),
    view.fields.length > 0
      ? h("dl", { class: "result-fields" }, ...view.fields.flatMap(([name, value]) => [h("dt", {}, label(name)), h("dd", {}, value)]))
      : null,
  );
}

/** The button that opens a creator skill's view of its result, when it has one. */
function openViewButton(row: CallRow, t: Translate, open: OpenView | undefined): HTMLElement | null {
  if (open === undefined || row.data === null || !hasCreatorView(row.tool) || !creatorViewFits(row.tool, row.data)) return null;
  const b = h("button", { type: "button", class: "secondary open-view", "data-tool": row.tool }, t(`creatorOpen.${row.tool}`));
  b.addEventListener("click", () => open(row));
  return b;
}

/** Steps the user opened, kept open across re-renders (the timeline is rebuilt on every event). */
const opened = new Set<string>();

/**
 * One step as a person reads it: a sentence with its page, openable to see
 * what it was given (the user's values masked), what it read and the
 * technical grading; a declined step says the user declined it.
 */
export function renderCall(row: CallRow, t: Translate, lang: Lang, shots: Shots, depth = 0, open?: OpenView): HTMLElement {
  const badge = callScopeBadge(row);
  const outcome = stepOutcome(row);
  const key = `${row.runId}\u0000${row.id}`;
  const head = h(
    "summary",
    { class: "call-head" },
    h("span", { class: `dot dot-${outcome === "declined" ? "declined" : row.status}`, "aria-hidden": "true" }),
    h("span", { class: "step-text" }, stepSentence(row, t, lang)),
    row.durationMs !== null ? h("span", { class: "call-duration" }, durationLabel(row.durationMs)) : null,
  );
  const { given, read } = stepDetails(row, t);
  // The tool's name for who wants it (a tooltip), never in the text.
  const technical = h(
    "div",
    { class: "step-technical", title: row.tool },
    badge.scope !== null
      ? scopeBadge(badge.scope, t, t("scopeGraded", { scope: badge.scope }))
      : row.status === "running"
        ? h("span", { class: `badge scope ${badge.className}` }, t("scopePending"))
        : null, // a stored step does not keep its grading
    row.risk !== null && row.risk !== "low" ? riskBadge(row.risk, t) : null,
    h("span", { class: `call-status status-${row.status}` }, t(callStatusKey(row.status))),
  );
  const fold = h(
    "details",
    { class: "step-fold" },
    head,
    h(
      "div",
      { class: "step-body" },
      row.target !== "" ? h("div", { class: "call-target", title: row.target }, row.target) : null,
      row.reasoning !== null ? h("div", { class: "call-reasoning" }, t("reasoning", { text: row.reasoning })) : null,
      given.length > 0
        ? h(
            "div",
            { class: "step-given" },
            h("h4", {}, t("step.given")),
            h(
              "dl",
              {},
              ...given.flatMap(([k, v]) => {
                const key = `arg.${k}`;
                return [h("dt", {}, hasMessage(key) ? t(key) : k), h("dd", {}, v)];
              }),
            ),
          )
        : null,
      read.length > 0
        ? h(
            "div",
            { class: "step-read" },
            h("h4", {}, t("step.read")),
            h("dl", {}, ...read.flatMap(([k, v]) => [h("dt", {}, fieldLabel(k, t)), h("dd", {}, fieldValue(v, t, lang))])),
          )
        : null,
      row.error !== null && outcome !== "declined"
        ? h("div", { class: "step-error-code", title: `${row.error.code}: ${row.error.message}` }, errorSays(row.error, t, lang))
        : null,
      technical,
    ),
  );
  if (opened.has(key)) fold.open = true;
  fold.addEventListener("toggle", () => {
    if (fold.open) opened.add(key);
    else opened.delete(key);
  });
  const attrs: Record<string, string> = {
    class: `call call-${row.status}${outcome === "declined" ? " call-declined" : ""}${depth > 0 ? " step" : ""}`,
    "data-tool": row.tool,
    "data-status": row.status,
    "data-outcome": outcome,
    "data-call": row.id,
  };
  if (depth > 0) attrs.style = `--depth: ${Math.min(depth, 4)}`;
  if (badge.scope !== null) attrs["data-scope"] = badge.scope;
  return h(
    "li",
    attrs,
    fold,
    outcome === "declined" ? h("div", { class: "call-declined-note" }, t("step.declined")) : null,
    outcome === "failed" && row.error !== null
      ? h("div", { class: "call-error", role: "alert" }, t("step.failed", { message: errorSays(row.error, t, lang) }))
      : null,
    ...screenshots(row).map((a) => renderShot(a.ref, row, t, shots)),
    row.flagged.length > 0 ? renderFlagged(row.flagged, t) : null,
    openViewButton(row, t, open),
    row.data !== null ? renderTables(row.data) : null,
  );
}

/** A step whose page addressed the assistant: a badge, the lines on demand. */
function renderFlagged(lines: string[], t: Translate): HTMLElement {
  return h(
    "details",
    { class: "call-flagged", "data-testid": "flagged" },
    h("summary", { class: "badge badge-flagged", role: "note" }, t("flaggedBadge", { count: String(lines.length) })),
    h("p", { class: "hint" }, t("flaggedHint")),
    h("ul", {}, ...lines.map((line) => h("li", {}, h("code", {}, line)))),
  );
}

function renderTables(data: CallRow["data"]): HTMLElement | null {
  const view = data === null ? null : resultView(data);
  return view === null ? null : renderResultView(view);
}

export function renderTimeline(state: PanelState, t: Translate, lang: Lang, shots: Shots, open?: OpenView): Node[] {
  if (state.calls.length === 0) return [h("p", { class: "empty" }, t("timelineEmpty"))];
  return groupByRun(state.calls).map((group) =>
    h(
      "section",
      { class: "run", "data-run": group.runId, "aria-label": t("runLabel", { run: group.runId.slice(0, 8) }) },
      h("ol", { class: "calls" }, ...nestSteps(group.calls).map(({ row, depth }) => renderCall(row, t, lang, shots, depth, open))),
    ),
  );
}
