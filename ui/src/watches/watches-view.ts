// The Watches view: the alert inbox (unread first; mark read, mark all
// read), each watch with its state, last and next check, its rules, a
// price-history chart (inline SVG drawn here) and its actions (check now,
// pause/resume, delete: the gate asks first), and the form that creates a
// watch. Watches are read and changed through the watch tools
// (`Op::CallTool`, gated like any call); the inbox through its own ops.
// The view refreshes on `Event::Watches` (see main.ts).
//
// Stable hooks for e2e tests: #watches-unread, #watch-alerts (.alert with
// data-alert, data-read; .mark-read), #alerts-read-all, #watch-list (.watch
// with data-watch, data-status, data-health; .watch-price, .watch-rules,
// .watch-check, .watch-pause, .watch-resume, .watch-delete, .watch-history,
// .watch-chart svg with one circle.point per priced check; .watch-edit opens
// form.watch-edit-form: .edit-label, .edit-below, .edit-frequency,
// .edit-start, .edit-end, .edit-save, .edit-cancel, .form-status), #watch-form,
// #watch-url, #watch-this-page, #watch-label, #watch-below, #watch-frequency, #watch-create,
// #watch-form-status, #watches-status.

import { h } from "../dom";
import type { Lang, MessageKey, Translate } from "../i18n";
import { callTool, request } from "../ipc";
import { toOpError, type WatchAlert } from "../protocol";
import { field, fillList, formatTime, statusLine } from "../view";
import { periodWords } from "../routines/routines";
import {
  CHART,
  FREQUENCIES,
  chartPoints,
  chartRange,
  chartY,
  COOLDOWNS,
  targetPrice,
  createArgs,
  editArgs,
  editForm,
  formatMoney,
  healthKey,
  linePath,
  readHistory,
  readWatches,
  ruleText,
  watchName,
  type FormResult,
  type Observation,
  type WatchInfo,
} from "./watches";

type StatusLine = ReturnType<typeof statusLine>;

export interface WatchesView {
  element: HTMLElement;
  /** Read the watches and the inbox again. */
  refresh(): void;
}

/** A form that calls a watch tool on submit: its fields `parse`d into the
 * arguments (else the message why not, an error unless `quiet`), the
 * button disabled during the call, `done` after it. */
function submitsTool(
  form: HTMLFormElement,
  button: HTMLButtonElement,
  line: StatusLine,
  t: Translate,
  call: { tool: string; parse: () => FormResult; working: MessageKey; done: () => void; quiet?: MessageKey },
): void {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const parsed = call.parse();
    if (!parsed.ok) {
      line.say(t(parsed.error), parsed.error === call.quiet ? "" : "error");
      return;
    }
    button.disabled = true;
    line.say(t(call.working));
    callTool(call.tool, parsed.args)
      .then(call.done, line.fail)
      .finally(() => {
        button.disabled = false;
      });
  });
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag: string, attrs: Record<string, string>, ...children: Node[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  el.append(...children);
  return el;
}

/** The price-history chart: a line through one dot per priced check, the
 * checks that alerted marked; the price axis with the highest and lowest
 * price, the first and last check's dates under it, the target as a dashed
 * line. */
export function renderChart(history: Observation[], t: Translate, lang: Lang, currency: string | null, target: number | null = null): Element[] {
  const points = chartPoints(history, CHART, target);
  const range = chartRange(history, target);
  if (points.length === 0 || range === null) return [h("p", { class: "empty" }, t("watchNoHistory"))];
  const money = (p: number): string => formatMoney(p, currency, lang);
  const prices = points.map((p) => p.price);
  const label = t("watchChartLabel", { count: points.length, low: money(Math.min(...prices)), high: money(Math.max(...prices)) });
  const left = CHART.left ?? CHART.pad;
  const base = CHART.height - (CHART.bottom ?? CHART.pad);
  const right = CHART.width - CHART.pad;
  const text = (cls: string, x: number, y: number, anchor: string, words: string): SVGElement =>
    svg("text", { class: cls, x: String(x), y: String(y), "text-anchor": anchor }, document.createTextNode(words));
  const day = (at: string): string => formatTime(at, lang);
  const first = points[0];
  const last = points[points.length - 1];
  const axes = [
    svg("line", { class: "axis", x1: String(left), y1: String(CHART.pad), x2: String(left), y2: String(base) }),
    svg("line", { class: "axis", x1: String(left), y1: String(base), x2: String(right), y2: String(base) }),
    text("axis-label price-high", left - 6, chartY(range.hi, range) + 4, "end", money(range.hi)),
    range.hi !== range.lo ? text("axis-label price-low", left - 6, chartY(range.lo, range) + 4, "end", money(range.lo)) : null,
    first !== undefined ? text("axis-label date-first", left, base + 15, "start", day(first.at)) : null,
    last !== undefined && points.length > 1 ? text("axis-label date-last", right, base + 15, "end", day(last.at)) : null,
  ].filter((e): e is SVGElement => e !== null);
  const targetLine =
    target === null
      ? []
      : [
          svg("line", { class: "target", x1: String(left), y1: String(chartY(target, range)), x2: String(right), y2: String(chartY(target, range)), "data-price": String(target) }),
          text("target-label", right - 2, chartY(target, range) - 4, "end", t("watchChartTarget", { price: money(target) })),
        ];
  const chart = svg(
    "svg",
    { class: "chart", viewBox: `0 0 ${CHART.width} ${CHART.height}`, role: "img", "aria-label": label },
    svg("title", {}, document.createTextNode(label)),
    ...axes,
    ...targetLine,
    svg("path", { class: "line", d: linePath(points) }),
    ...points.map((p) =>
      svg(
        "circle",
        { class: p.fired ? "point alert" : "point", cx: String(p.x), cy: String(p.y), r: p.fired ? "5" : "3", "data-price": String(p.price) },
        svg("title", {}, document.createTextNode(`${formatTime(p.at, lang)}: ${money(p.price)}${p.fired ? ` (${t("watchChartAlert")})` : ""}`)),
      ),
    ),
  );
  return [chart, h("p", { class: "hint chart-caption" }, label)];
}

export function createWatchesView(t: Translate, lang: Lang, back: () => HTMLElement): WatchesView {
  const { status, say, fail } = statusLine("watches-status", t);

  // ---- The inbox ----
  const unreadBadge = h("span", { class: "badge unread", id: "watches-unread" });
  const alertList = h("ul", { class: "alerts", id: "watch-alerts", "aria-labelledby": "alerts-title" });
  const readAll = h("button", { type: "button", class: "secondary", id: "alerts-read-all" }, t("alertsReadAll"));
  const showAlerts = (alerts: WatchAlert[], unread: number): void => {
    unreadBadge.textContent = t("alertsUnread", { count: unread });
    unreadBadge.hidden = unread === 0;
    readAll.disabled = unread === 0;
    fillList(alertList, alerts, t("alertsEmpty"), (a) => {
      const item = h(
        "li",
        { class: `alert ${a.read ? "read" : "unread"}`, "data-alert": String(a.id), "data-read": a.read ? "1" : "0" },
        h("span", { class: "alert-title" }, a.title),
        h("span", { class: "alert-time" }, formatTime(a.created_at, lang)),
        h("p", { class: "alert-message" }, a.message),
      );
      if (!a.read) {
        const mark = h("button", { type: "button", class: "secondary mark-read", "aria-label": t("alertMarkReadOf", { title: a.title }) }, t("alertMarkRead"));
        mark.addEventListener("click", () => markRead([a.id]));
        item.append(mark);
      }
      return item;
    });
  };
  const markRead = (ids: number[] | null): void => {
    request({ type: "mark_alerts_read", ids }, "alerts").then((r) => showAlerts(r.alerts, r.unread), fail);
  };
  readAll.addEventListener("click", () => markRead(null));

  // ---- The watches ----
  const watchList = h("ul", { class: "watches", id: "watch-list", "aria-labelledby": "watch-list-title" });
  const expanded = new Set<string>();
  const act = (w: WatchInfo, tool: string, waiting: string): void => {
    say(waiting);
    callTool(tool, { watch_id: w.watch_id }).then(() => {
      say("");
      refresh();
    }, fail);
  };
  const loadChart = (w: WatchInfo, into: HTMLElement): void => {
    into.replaceChildren(h("p", { class: "loading", role: "status" }, t("loadingList")));
    callTool("watch_history", { watch_id: w.watch_id, limit: 200 }).then(
      (data) => into.replaceChildren(...renderChart(readHistory(data), t, lang, w.currency, targetPrice(w))),
      (error: unknown) => into.replaceChildren(h("p", { class: "error", role: "alert" }, t("errorPrefix", { error: toOpError(error).message }))),
    );
  };
  // Open edit forms, kept across the list's refreshes (what the user typed stays).
  const editors = new Map<string, HTMLFormElement>();
  // How to close each watch's editor as the list shows it now.
  const closers = new Map<string, () => void>();
  const renderEditor = (w: WatchInfo, close: () => void): HTMLFormElement => {
    const start = editForm(w, lang);
    const id = (name: string): string => `watch-edit-${w.watch_id}-${name}`;
    const input = (name: string, attrs: Record<string, string>, value: string): HTMLInputElement => {
      const el = h("input", { id: id(name), class: `edit-${name}`, autocomplete: "off", ...attrs });
      el.value = value;
      return el;
    };
    const label = input("label", { type: "text", placeholder: t("watchLabelPlaceholder") }, start.label);
    const below = input("below", { type: "text", inputmode: "decimal", placeholder: "19.990.000 ₫", "aria-describedby": `${id("below")}-hint` }, start.below);
    const every = [...new Set<string>([...FREQUENCIES, w.frequency])];
    const frequency = h("select", { id: id("frequency"), class: "edit-frequency" }, ...every.map((f) => h("option", { value: f }, t("watchEvery", { every: periodWords(f, t) }))));
    frequency.value = w.frequency;
    const cooldowns = [...new Set<string>([...COOLDOWNS, w.cooldown].filter((c) => c !== ""))];
    const cooldown = h(
      "select",
      { id: id("cooldown"), class: "edit-cooldown" },
      ...cooldowns.map((c) => h("option", { value: c }, c === "0m" ? t("watchCooldownNone") : periodWords(c, t))),
    );
    cooldown.value = w.cooldown;
    const from = input("start", { type: "datetime-local" }, start.start);
    const until = input("end", { type: "datetime-local" }, start.end);
    const save = h("button", { type: "submit", class: "primary edit-save" }, t("watchSave"));
    const cancel = h("button", { type: "button", class: "secondary edit-cancel" }, t("watchCancel"));
    const editLine = statusLine(id("status"), t);
    const form = h(
      "form",
      { class: "watch-edit-form", "aria-label": t("watchEditTitle", { name: watchName(w) }) },
      field(id("label"), t("watchLabel"), label),
      field(id("below"), t("watchBelowEdit"), below, t("watchBelowEditHint")),
      h("p", { class: "hint edit-current" }, w.price !== null ? t("watchCurrentPrice", { price: formatMoney(w.price, w.currency, lang) }) : t("watchNoPrice")),
      field(id("frequency"), t("watchFrequency"), frequency),
      field(id("cooldown"), t("watchCooldown"), cooldown, t("watchCooldownHint")),
      field(id("start"), t("watchWindowStart"), from),
      field(id("end"), t("watchWindowEnd"), until),
      h("div", { class: "row" }, save, cancel),
      editLine.status,
    );
    cancel.addEventListener("click", close);
    submitsTool(form, save, editLine, t, {
      tool: "watch_update",
      parse: () => editArgs(w, { label: label.value, below: below.value, frequency: frequency.value, start: from.value, end: until.value, cooldown: cooldown.value }, lang),
      working: "watchSaving",
      quiet: "watchEditNothing",
      done: () => {
        close();
        say(t("watchSaved"), "ok");
        refresh();
      },
    });
    return form;
  };
  const renderWatch = (w: WatchInfo): HTMLElement => {
    const name = watchName(w);
    const paused = w.status === "paused";
    const price =
      w.price !== null ? formatMoney(w.price, w.currency, lang) : t("watchNoPrice");
    const stock = w.in_stock === null ? null : h("span", { class: "watch-stock" }, t(w.in_stock ? "watchInStockYes" : "watchInStockNo"));
    const chart = h("div", { class: "watch-chart" });
    const historyBtn = h("button", { type: "button", class: "secondary watch-history", "aria-expanded": "false" }, t("watchHistory"));
    const setOpen = (open: boolean): void => {
      historyBtn.setAttribute("aria-expanded", open ? "true" : "false");
      chart.hidden = !open;
      if (open) {
        expanded.add(w.watch_id);
        loadChart(w, chart);
      } else expanded.delete(w.watch_id);
    };
    historyBtn.addEventListener("click", () => setOpen(!expanded.has(w.watch_id)));
    const check = h("button", { type: "button", class: "secondary watch-check" }, t("watchCheckNow"));
    check.addEventListener("click", () => act(w, "watch_poll", t("watchChecking", { name })));
    const toggle = paused
      ? h("button", { type: "button", class: "secondary watch-resume" }, t("watchResume"))
      : h("button", { type: "button", class: "secondary watch-pause" }, t("watchPause"));
    toggle.addEventListener("click", () => act(w, paused ? "watch_resume" : "watch_pause", t("loadingList")));
    const editBtn = h("button", { type: "button", class: "secondary watch-edit", "aria-label": t("watchEditOf", { name }), "aria-expanded": "false" }, t("watchEdit"));
    const editSlot = h("div", { class: "watch-editor" });
    const closeEditor = (): void => {
      editors.delete(w.watch_id);
      editSlot.replaceChildren();
      editBtn.setAttribute("aria-expanded", "false");
    };
    const showEditor = (form: HTMLFormElement): void => {
      editors.set(w.watch_id, form);
      editSlot.replaceChildren(form);
      editBtn.setAttribute("aria-expanded", "true");
    };
    editBtn.addEventListener("click", () => {
      if (editors.has(w.watch_id)) closeEditor();
      else {
        showEditor(renderEditor(w, () => closers.get(w.watch_id)?.()));
        editSlot.querySelector<HTMLInputElement>(".edit-below")?.focus();
      }
    });
    closers.set(w.watch_id, closeEditor);
    const kept = editors.get(w.watch_id);
    if (kept !== undefined) showEditor(kept);
    const del = h("button", { type: "button", class: "danger watch-delete", "aria-label": t("watchDeleteOf", { name }) }, t("watchDelete"));
    del.addEventListener("click", () => act(w, "watch_delete", t("watchDeleteAsked")));
    const item = h(
      "li",
      { class: `watch health-${w.health}`, "data-watch": w.watch_id, "data-status": w.status, "data-health": w.health },
      h(
        "div",
        { class: "watch-head" },
        h("span", { class: "watch-name" }, name),
        h("span", { class: `badge health health-${w.health}` }, t(healthKey(w.health))),
        paused ? h("span", { class: "badge paused" }, t("watchPaused")) : null,
      ),
      watchName(w) !== w.url ? h("p", { class: "watch-url" }, w.url) : null,
      h("p", { class: "watch-price" }, price, stock ? " · " : "", stock ?? ""),
      w.last_error !== null && w.health !== "ok" ? h("p", { class: "watch-error" }, w.last_error) : null,
      h(
        "p",
        { class: "watch-times" },
        t("watchLastCheck", { time: w.last_checked_at !== null ? formatTime(w.last_checked_at, lang) : t("watchNever") }),
        " · ",
        paused ? t("watchPaused") : t("watchNextCheck", { time: formatTime(w.next_check_at, lang), every: periodWords(w.frequency, t) }),
        w.cooldown !== "" ? " · " : "",
        w.cooldown !== "" ? h("span", { class: "watch-cooldown" }, w.cooldown === "0m" ? t("watchCooldownNone") : t("watchCooldownShown", { cooldown: periodWords(w.cooldown, t) })) : "",
      ),
      h("ul", { class: "watch-rules", "aria-label": t("watchRules") }, ...w.trigger_rules.map((r) => h("li", {}, ruleText(r, t, lang, w.currency)))),
      h("div", { class: "row watch-actions" }, check, toggle, editBtn, historyBtn, del),
      editSlot,
      chart,
    );
    setOpen(expanded.has(w.watch_id));
    return item;
  };

  // ---- The form ----
  const url = h("input", { id: "watch-url", type: "url", required: "", autocomplete: "off", spellcheck: "false", placeholder: "https://" });
  const label = h("input", { id: "watch-label", type: "text", autocomplete: "off", placeholder: t("watchLabelPlaceholder") });
  const below = h("input", { id: "watch-below", type: "text", required: "", autocomplete: "off", inputmode: "decimal", placeholder: "19.990.000 ₫", "aria-describedby": "watch-below-hint" });
  const frequency = h(
    "select",
    { id: "watch-frequency" },
    ...FREQUENCIES.map((f) => {
      // The attribute, not the property: form.reset() comes back to it.
      return h("option", f === "6h" ? { value: f, selected: "" } : { value: f }, t("watchEvery", { every: periodWords(f, t) }));
    }),
  );
  const create = h("button", { id: "watch-create", type: "submit", class: "primary" }, t("watchCreate"));
  const thisPage = h("button", { id: "watch-this-page", type: "button", class: "secondary" }, t("watchThisPage"));
  const formLine = statusLine("watch-form-status", t);
  const formSay = formLine.say;
  // The page in the user's browser tab fills the form (the browser is never started for it).
  thisPage.addEventListener("click", () => {
    request({ type: "current_tab" }, "current_tab").then(
      (tab) => {
        if (tab.url === null || !/^https?:/i.test(tab.url)) {
          formSay(t("watchNoPage"), "error");
          return;
        }
        url.value = tab.url;
        if (label.value.trim() === "" && tab.title !== null) label.value = tab.title;
        formSay("");
        below.focus();
      },
      formLine.fail,
    );
  });
  const form = h(
    "form",
    { id: "watch-form", class: "watch-form", "aria-labelledby": "watch-form-title" },
    h("h3", { id: "watch-form-title" }, t("watchNew")),
    h("div", { class: "field" }, h("label", { for: "watch-url" }, t("watchUrl")), h("div", { class: "row" }, url, thisPage)),
    field("watch-label", t("watchLabel"), label),
    field("watch-below", t("watchBelow"), below, t("watchBelowHint")),
    field("watch-frequency", t("watchFrequency"), frequency),
    h("div", { class: "row" }, create),
    formLine.status,
  );
  submitsTool(form, create, formLine, t, {
    tool: "watch_create",
    parse: () => createArgs({ url: url.value, label: label.value, below: below.value, frequency: frequency.value }),
    working: "watchCreating",
    done: () => {
      form.reset();
      formSay(t("watchCreated"), "ok");
      refresh();
    },
  });

  // A change is told twice (the call's reply and Event::Watches): one
  // reading of both within a moment.
  let pending: ReturnType<typeof setTimeout> | undefined;
  function refresh(): void {
    if (pending !== undefined) return;
    pending = setTimeout(() => {
      pending = undefined;
      load();
    }, 60);
  }
  let generation = 0;
  function load(): void {
    const mine = ++generation;
    request({ type: "list_alerts", limit: 50 }, "alerts").then((r) => {
      if (mine === generation) showAlerts(r.alerts, r.unread);
    }, fail);
    callTool("watch_list", {}).then((data) => {
      if (mine === generation) fillList(watchList, readWatches(data), t("watchesEmpty"), renderWatch);
    }, fail);
  }

  const element = h(
    "section",
    { id: "watches", class: "view view-watches", "aria-labelledby": "watches-title" },
    back(),
    h("h2", { id: "watches-title" }, t("watchesTitle"), " ", unreadBadge),
    status,
    h(
      "section",
      { class: "watch-section", "aria-labelledby": "alerts-title" },
      h("div", { class: "section-head" }, h("h3", { id: "alerts-title" }, t("alertsTitle")), readAll),
      alertList,
    ),
    h("section", { class: "watch-section", "aria-labelledby": "watch-list-title" }, h("h3", { id: "watch-list-title" }, t("watchListTitle")), watchList),
    form,
  );
  unreadBadge.hidden = true;
  return { element, refresh };
}
