// The creator skills' own views of their results (logic in creator.ts):
// the research notes as a rendered document (the Markdown file read from
// the files store: `files_get`, then `ReadArtifact`) with its citations,
// the calendar as a week or month grid, and the triage as a table the user
// approves, edits or skips row by row before "Apply" calls the skill again
// with the batch (each action then confirmed by the gate). Opened from a
// timeline step (main.ts's dialog) or shown in the `/` palette's result.
// Everything is built from text nodes (dom.ts): nothing from a page, a
// model or a file is ever parsed as HTML.
//
// Stable hooks for e2e tests: .creator-view (data-tool), .notes-doc,
// .citations li (a.citation-source), .calendar-toggle button (data-mode),
// .calendar-prev, .calendar-next, .calendar-label, .calendar-week,
// .calendar-month, .slot (data-date), .calendar-backlog, table.triage-table
// tr (data-comment, data-decision), .triage-approve, .triage-edit,
// .triage-skip, .triage-text, .triage-action, .triage-apply, .triage-outcome
// (status-ok / status-error once applied), .triage-status .form-status.

import {
  COMMENT_ACTIONS,
  addDays,
  addMonths,
  appliedOf,
  applyArgs,
  batchOf,
  dayLabel,
  decodeText,
  firstDay,
  hostOf,
  initialChoice,
  monthGrid,
  monthLabel,
  readCalendar,
  readResearch,
  readTriage,
  sameMonth,
  slotsOn,
  weekDays,
  weekLabel,
  weekdayNames,
  type Calendar,
  type CreatorTool,
  type Decision,
  type Research,
  type RowChoice,
  type Slot,
  type TriageRow,
} from "./creator";
import { h } from "../dom";
import type { Lang, MessageKey, Translate } from "../i18n";
import { callTool, request } from "../ipc";
import { parseMarkdown, safeHref, type Block, type Inline } from "./markdown";
import { toOpError, type Json } from "../protocol";
import { statusLine } from "../view";

/** A link that opens in the managed browser (a gated `browser_new_tab`), never in the panel. */
function sourceLink(url: string, label: string, t: Translate, cls = "source-link"): HTMLElement {
  const href = safeHref(url);
  if (href === null) return h("span", { class: cls }, label);
  const a = h("a", { href, class: cls, title: t("citationOpen", { host: hostOf(href) }), rel: "noreferrer" }, label);
  a.addEventListener("click", (e) => {
    e.preventDefault();
    if (href.startsWith("mailto:")) return;
    callTool("browser_new_tab", { url: href }).catch(() => undefined);
  });
  return a;
}

// ---- Markdown to elements (text nodes only) ----

function inlines(pieces: readonly Inline[], t: Translate): Node[] {
  return pieces.map((p): Node => {
    if (p.kind === "text") return document.createTextNode(p.text);
    if (p.kind === "code") return h("code", {}, p.text);
    if (p.kind === "strong") return h("strong", {}, ...inlines(p.children, t));
    if (p.kind === "em") return h("em", {}, ...inlines(p.children, t));
    const label = h("span", {}, ...inlines(p.children, t));
    return p.href === null ? label : sourceLink(p.href, label.textContent ?? p.href, t);
  });
}

export function renderBlocks(blocks: readonly Block[], t: Translate): HTMLElement[] {
  return blocks.map((b): HTMLElement => {
    switch (b.kind) {
      case "heading": {
        // The document sits under the dialog's own title: h3 and below.
        const level = Math.min(6, b.level + 2) as 3 | 4 | 5 | 6;
        return h(`h${level}`, { class: "md-heading" }, ...inlines(b.content, t));
      }
      case "paragraph":
        return h("p", {}, ...inlines(b.content, t));
      case "list": {
        const items = b.items.map((item) => h("li", {}, ...renderBlocks(item, t)));
        return b.ordered ? h("ol", { start: String(b.start) }, ...items) : h("ul", {}, ...items);
      }
      case "quote":
        return h("blockquote", {}, ...renderBlocks(b.blocks, t));
      case "code":
        return h("pre", {}, h("code", {}, b.text));
      case "rule":
        return h("hr", {});
    }
  });
}

function skillNotes(notes: readonly string[], t: Translate): HTMLElement | null {
  if (notes.length === 0) return null;
  return h("details", { class: "creator-notes" }, h("summary", {}, t("creatorSkillNotes")), h("ul", {}, ...notes.map((n) => h("li", {}, n))));
}

// ---- Research ----

/** The notes' text: the stored file's record, then its bytes. */
async function loadNotes(ref: string): Promise<string> {
  const found = await callTool("files_get", { id: ref });
  const files = typeof found === "object" && found !== null && !Array.isArray(found) ? found.files : null;
  const first = Array.isArray(files) ? files[0] : undefined;
  const fileRef = typeof first === "object" && first !== null && !Array.isArray(first) ? first.ref : undefined;
  if (typeof fileRef !== "string") throw { code: "file_not_found", message: ref };
  const artifact = await request({ type: "read_artifact", reference: fileRef }, "artifact");
  return decodeText(artifact.data);
}

function renderResearch(r: Research, t: Translate): HTMLElement {
  const doc = h("article", { class: "notes-doc", "aria-busy": "true" }, h("p", { class: "loading", role: "status" }, t("researchLoading")));
  if (r.notesRef === null) {
    doc.replaceChildren(h("p", { class: "empty" }, t("researchNoNotes")));
    doc.removeAttribute("aria-busy");
  } else {
    loadNotes(r.notesRef).then(
      (text) => doc.replaceChildren(...renderBlocks(parseMarkdown(text), t)),
      (error: unknown) => doc.replaceChildren(h("p", { class: "error", role: "alert" }, t("errorPrefix", { error: toOpError(error).message }))),
    ).finally(() => doc.removeAttribute("aria-busy"));
  }
  const citations =
    r.citations.length === 0
      ? h("p", { class: "empty" }, t("citationsEmpty"))
      : h(
          "ol",
          { class: "citations" },
          ...r.citations.map((c) =>
            h(
              "li",
              { class: "citation" },
              h("p", { class: "citation-claim" }, c.claim),
              c.quote !== "" ? h("blockquote", { class: "citation-quote" }, c.quote) : null,
              sourceLink(c.url, hostOf(c.url), t, "citation-source"),
            ),
          ),
        );
  return h("div", { class: "creator-research" }, doc, h("h3", {}, t("citationsTitle")), citations, skillNotes(r.notes, t));
}

// ---- Calendar ----

function slotItem(s: Slot): HTMLElement {
  return h(
    "li",
    { class: "slot", "data-date": s.date, title: s.pillar !== null ? `${s.title} (${s.pillar})` : s.title },
    s.time !== null ? h("span", { class: "slot-time" }, s.time) : null,
    h("span", { class: "badge slot-channel" }, s.channel),
    h("span", { class: "slot-title" }, s.title),
  );
}

function renderCalendar(cal: Calendar, t: Translate, lang: Lang): HTMLElement {
  let mode: "week" | "month" = "week";
  let anchor = firstDay(cal, new Date().toISOString().slice(0, 10));
  const label = h("span", { class: "calendar-label", "aria-live": "polite" });
  const grid = h("div", { class: "calendar-grid" });
  const toggles = (["week", "month"] as const).map((m) => {
    const b = h("button", { type: "button", class: "secondary", "data-mode": m, "aria-pressed": String(m === mode) }, t(m === "week" ? "calendarWeek" : "calendarMonth"));
    b.addEventListener("click", () => {
      mode = m;
      draw();
    });
    return b;
  });
  const prev = h("button", { type: "button", class: "secondary calendar-prev", "aria-label": t("calendarPrev"), title: t("calendarPrev") }, "‹");
  const next = h("button", { type: "button", class: "secondary calendar-next", "aria-label": t("calendarNext"), title: t("calendarNext") }, "›");
  const step = (n: number): void => {
    anchor = mode === "week" ? addDays(anchor, 7 * n) : addMonths(anchor, n);
    draw();
  };
  prev.addEventListener("click", () => step(-1));
  next.addEventListener("click", () => step(1));

  const draw = (): void => {
    for (const b of toggles) b.setAttribute("aria-pressed", String(b.dataset.mode === mode));
    label.textContent = mode === "week" ? weekLabel(anchor, lang) : monthLabel(anchor, lang);
    if (mode === "week") {
      grid.replaceChildren(
        h(
          "ol",
          { class: "calendar-week" },
          ...weekDays(anchor).map((day) => {
            const slots = slotsOn(cal.slots, day);
            return h(
              "li",
              { class: `calendar-day${slots.length === 0 ? " empty-day" : ""}`, "data-date": day },
              h("span", { class: "day-label" }, dayLabel(day, lang)),
              slots.length > 0 ? h("ul", { class: "slots" }, ...slots.map(slotItem)) : null,
            );
          }),
        ),
      );
      return;
    }
    grid.replaceChildren(
      h(
        "table",
        { class: "calendar-month" },
        h("thead", {}, h("tr", {}, ...weekdayNames(lang).map((d) => h("th", { scope: "col" }, d)))),
        h(
          "tbody",
          {},
          ...monthGrid(anchor).map((week) =>
            h(
              "tr",
              {},
              ...week.map((day) => {
                const slots = slotsOn(cal.slots, day);
                return h(
                  "td",
                  { class: sameMonth(day, anchor) ? "in-month" : "other-month", "data-date": day },
                  h("span", { class: "day-number" }, String(Number(day.slice(8, 10)))),
                  slots.length > 0 ? h("ul", { class: "slots" }, ...slots.map(slotItem)) : null,
                );
              }),
            ),
          ),
        ),
      ),
    );
  };
  draw();
  return h(
    "div",
    { class: "creator-calendar" },
    h("div", { class: "row calendar-bar" }, h("span", { class: "calendar-toggle", role: "group" }, ...toggles), prev, label, next),
    cal.timeZone !== "" ? h("p", { class: "hint" }, t("calendarZone", { zone: cal.timeZone })) : null,
    cal.slots.length === 0 ? h("p", { class: "empty" }, t("calendarNoSlots")) : null,
    grid,
    cal.backlog.length > 0 ? h("h3", {}, t("calendarBacklog")) : null,
    cal.backlog.length > 0 ? h("ul", { class: "calendar-backlog" }, ...cal.backlog.map((b) => h("li", {}, b))) : null,
    skillNotes(cal.notes, t),
  );
}

// ---- Triage ----

const stateKey = (d: Decision): MessageKey => `triageState.${d}`;

function renderTriage(rows: TriageRow[], triageArgs: Json, t: Translate): HTMLElement {
  const choices = new Map<string, RowChoice>(rows.map((r) => [r.commentId, initialChoice(r)]));
  const line = statusLine("triage-status", t);
  const apply = h("button", { type: "button", class: "primary triage-apply" }, t("triageApply"));
  const outcome = new Map<string, HTMLElement>();

  const body = rows.map((row) => {
    const choice = choices.get(row.commentId) ?? initialChoice(row);
    const tr = h("tr", { "data-comment": row.commentId, "data-decision": choice.decision });
    const replyText = h("p", { class: "triage-reply-text" }, choice.text);
    const textarea = h("textarea", { class: "triage-text", rows: "3", "aria-label": t("triageReply") });
    textarea.value = choice.text;
    textarea.hidden = true;
    textarea.addEventListener("input", () => {
      choice.text = textarea.value;
      replyText.textContent = textarea.value;
    });
    const action = h("select", { class: "triage-action", "aria-label": t("triageActionLabel", { comment: row.commentId }) });
    for (const a of COMMENT_ACTIONS) {
      const o = h("option", { value: a }, t(`triageAction.${a}`));
      o.selected = a === choice.action;
      action.append(o);
    }
    action.addEventListener("change", () => {
      const picked = COMMENT_ACTIONS.find((a) => a === action.value);
      if (picked !== undefined) choice.action = picked;
    });
    const state = h("span", { class: "triage-state" }, t(stateKey(choice.decision)));
    const decide = (d: Decision): void => {
      choice.decision = d;
      tr.dataset.decision = d;
      state.textContent = t(stateKey(d));
    };
    const approve = h("button", { type: "button", class: "secondary triage-approve" }, t("triageApprove"));
    const edit = h("button", { type: "button", class: "secondary triage-edit", "aria-expanded": "false" }, t("triageEdit"));
    const skip = h("button", { type: "button", class: "secondary triage-skip" }, t("triageSkip"));
    approve.addEventListener("click", () => decide("approved"));
    skip.addEventListener("click", () => decide("skipped"));
    edit.addEventListener("click", () => {
      textarea.hidden = !textarea.hidden;
      replyText.hidden = !textarea.hidden;
      edit.setAttribute("aria-expanded", String(!textarea.hidden));
      if (!textarea.hidden) textarea.focus();
    });
    const done = h("span", { class: "triage-outcome" });
    outcome.set(row.commentId, done);
    // Each cell names its column (`data-label`): the narrow panel shows a row as a card.
    tr.append(
      h("td", { class: "triage-author", "data-label": t("triageAuthor") }, row.author),
      h(
        "td",
        { class: "triage-class-cell", "data-label": t("triageClass") },
        h("span", { class: `badge triage-class class-${row.category}` }, row.category),
        h("span", { class: "hint" }, ` ${row.priority}`),
      ),
      h(
        "td",
        { class: "triage-comment-cell", "data-label": t("triageComment") },
        h("p", { class: "triage-comment" }, row.text),
        row.summary !== "" && row.summary !== row.text ? h("p", { class: "hint" }, row.summary) : null,
      ),
      h("td", { class: "triage-reply-cell", "data-label": t("triageReply") }, replyText, textarea),
      h("td", { class: "triage-choice", "data-label": t("triageChoice") }, h("div", { class: "row" }, action, approve, edit, skip), state, done),
    );
    return tr;
  });

  apply.addEventListener("click", () => {
    const batch = batchOf(rows, choices);
    if (!batch.ok) {
      line.say(t(batch.error, { comment: batch.commentId ?? "" }), "error");
      return;
    }
    apply.disabled = true;
    line.say(t("triageApplying"), "pending");
    callTool("creator_triage_inbox", applyArgs(triageArgs, batch.apply))
      .then((data) => {
        const applied = appliedOf(data);
        for (const [id, a] of applied) {
          const el = outcome.get(id);
          if (el === undefined) continue;
          el.className = `triage-outcome ${a.done ? "status-ok" : "status-error"}`;
          el.textContent = a.done ? t("triageRowDone") : t("triageRowFailed", { error: a.error ?? "" });
        }
        const doneCount = [...applied.values()].filter((a) => a.done).length;
        line.say(t("triageDone", { done: doneCount, count: batch.apply.length }), doneCount === batch.apply.length ? "ok" : "error");
      }, line.fail)
      .finally(() => {
        apply.disabled = false;
      });
  });

  const head = [t("triageAuthor"), t("triageClass"), t("triageComment"), t("triageReply"), t("triageChoice")];
  return h(
    "div",
    { class: "creator-triage" },
    h(
      "table",
      { class: "triage-table" },
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...body),
    ),
    h("div", { class: "row" }, apply),
    h("div", { class: "triage-status" }, line.status),
  );
}

/** The view of a creator skill's result; `args` are the call's arguments (the triage's threads). */
export function renderCreatorView(tool: CreatorTool, data: Json, args: Json, t: Translate, lang: Lang): HTMLElement {
  let inner: HTMLElement;
  if (tool === "creator_collect_research") {
    const r = readResearch(data);
    inner = r === null ? h("p", { class: "empty" }, t("researchNoNotes")) : renderResearch(r, t);
  } else if (tool === "creator_plan_calendar") {
    const cal = readCalendar(data);
    inner = cal === null ? h("p", { class: "empty" }, t("calendarNoSlots")) : renderCalendar(cal, t, lang);
  } else {
    inner = renderTriage(readTriage(data) ?? [], args, t);
  }
  return h("section", { class: "creator-view", "data-tool": tool, "aria-label": t(`creatorTitle.${tool}`) }, inner);
}
