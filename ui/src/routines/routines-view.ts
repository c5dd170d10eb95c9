// The Routines view: each routine (a finished run kept as steps and
// replayed without the model) with its schedule in words, last result
// (Markdown) and next run; one-click Run now with the last values, and
// "Change values…" opening its parameters as a form labelled for a person;
// pause/resume; the schedule picked by count and unit, or removed; delete
// (asked twice); its history. And the "Save as routine" dialog a finished
// run's answer opens (see main.ts; the button shows only when
// CanSaveRoutine found nothing to refuse): it asks the name and shows the
// parameters proposed from the run. Everything goes through ops (ipc.ts);
// the view reads the routines again on `Event::Routines`.
//
// Stable hooks for e2e tests: #routines-view, #routine-list (.routine with
// data-routine, data-scheduled, data-paused, data-last; .routine-schedule,
// .routine-next, .routine-last (.routine-answer), .routine-run-now,
// .routine-run-open, .routine-pause, .routine-resume, .routine-delete,
// form.routine-run-form with input.param-input[data-param] and
// .routine-run, .routine-result, form.routine-schedule-form with
// input.schedule-count, select.schedule-unit, .schedule-save,
// .schedule-off, input.routine-repair (checkbox), details.routine-history
// with li.replay (data-status, data-trigger; .replay-what)),
// #routines-status; #save-routine-dialog, #routine-name, #routine-save,
// #routine-save-status, #routine-saved-params (li.saved-param with
// data-param), #routine-save-close.

import { h } from "../dom";
import type { Lang, Translate } from "../i18n";
import { request } from "../ipc";
import { toOpError } from "../protocol";
import { field, fillList, formatTime, statusLine } from "../view";
import { markdownNodes } from "../chat/markdown";
import {
  PERIOD_UNITS,
  paramLabel,
  periodOf,
  periodParts,
  periodWords,
  readReport,
  readRoutine,
  readRoutines,
  runParams,
  statusKey,
  unitKey,
  type RoutineInfo,
  type RoutineParam,
} from "./routines";

export interface RoutinesView {
  element: HTMLElement;
  /** The "Save as routine" dialog (put in the page once). */
  dialog: HTMLDialogElement;
  /** Read the routines again. */
  refresh(): void;
  /** Open the "Save as routine" dialog for finished run `runId`. */
  openSave(runId: string): void;
}

export function createRoutinesView(t: Translate, lang: Lang, back: () => HTMLButtonElement, onSaved: () => void): RoutinesView {
  const list = h("ul", { id: "routine-list", class: "routine-list" });
  const viewLine = statusLine("routines-status", t);
  const element = h(
    "section",
    { id: "routines-view", class: "view", "aria-labelledby": "routines-title" },
    back(),
    h("h2", { id: "routines-title" }, t("routinesTitle")),
    h("p", { class: "hint" }, t("routinesIntro")),
    viewLine.status,
    list,
  );
  element.hidden = true;

  // What survives a refresh: the open Run now forms, what was typed in
  // them, each routine's last Run now message, a delete asked once.
  const runOpen = new Set<string>();
  const typed = new Map<string, Record<string, string>>();
  const said = new Map<string, { text: string; cls: string; md: boolean }>();
  const deleting = new Set<string>();
  let routines: RoutineInfo[] = [];
  let generation = 0;

  const fail = (error: unknown): void => viewLine.say(t("errorPrefix", { error: toOpError(error).message }), "error");

  const scheduleText = (r: RoutineInfo): string => {
    if (r.schedule === null) return t("routineNotScheduled");
    const every = periodWords(r.schedule.every, t);
    const words = r.schedule.at === null ? t("routineEvery", { every }) : t("routineEveryAt", { every, at: r.schedule.at });
    return r.schedule.paused ? t("routinePausedSchedule", { schedule: words }) : words;
  };

  /** A result as the chat shows an answer: Markdown rendered (never HTML). */
  const answerNodes = (text: string): HTMLElement => h("div", { class: "markdown routine-answer" }, markdownNodes(text));

  const lastNodes = (r: RoutineInfo): Node[] => {
    if (r.last === null) return [document.createTextNode(t("routineNeverRun"))];
    const who = r.last.trigger === "schedule" ? t("routineBySchedule") : t("routineByYou");
    const head = t("routineLast", { status: t(statusKey(r.last.status)), time: formatTime(r.last.at, lang), who });
    const what = r.last.answer ?? r.last.why ?? "";
    return [h("span", { class: "routine-last-head" }, head), what !== "" ? answerNodes(what) : null].filter((n): n is HTMLElement => n !== null);
  };

  /** A parameter's label and hint, for a person. */
  const paramText = (p: RoutineParam): { label: string; hint: string } => {
    const { kind, words, step } = paramLabel(p);
    const label = words !== "" ? words.charAt(0).toUpperCase() + words.slice(1) : t(`routineParam.${kind}`);
    return { label, hint: step !== null ? t("routineParamStep", { step }) : "" };
  };

  /** An op on routine `name` answering the routine; the list read again. */
  const change = (op: Parameters<typeof request>[0]): void => {
    viewLine.say(t("routineWorking"));
    request(op, "routine").then(() => {
      viewLine.say("");
      refresh();
    }, fail);
  };

  const renderRunForm = (r: RoutineInfo): HTMLFormElement => {
    const values = lastValues(r);
    const inputs = r.params.map((p) => {
      const id = `param-${r.name}-${p.name}`.replace(/[^\w-]/g, "_");
      const input = h("input", {
        id,
        class: "param-input",
        "data-param": p.name,
        type: p.kind === "url" ? "url" : p.kind === "number" ? "text" : "text",
        autocomplete: "off",
        spellcheck: "false",
        placeholder: p.default ?? t("routineParamRequired"),
      });
      input.value = values[p.name] ?? p.default ?? "";
      input.addEventListener("input", () => {
        typed.set(r.name, { ...(typed.get(r.name) ?? {}), [p.name]: input.value });
      });
      const { label, hint } = paramText(p);
      return field(id, label, input, hint !== "" ? hint : undefined);
    });
    const go = h("button", { type: "submit", class: "primary routine-run" }, t("routineRun"));
    const form = h(
      "form",
      { class: "routine-run-form" },
      ...(inputs.length === 0 ? [h("p", { class: "hint" }, t("routineNoParams"))] : inputs),
      h("div", { class: "row" }, go),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const current: Record<string, string> = {};
      for (const input of form.querySelectorAll<HTMLInputElement>("input.param-input")) current[input.dataset.param ?? ""] = input.value;
      go.disabled = true;
      replay(r, current);
    });
    return form;
  };

  /** Replay `r` with the values `current` (a parameter not there: the one
   * last typed, else the run's own); its result said under it. */
  const replay = (r: RoutineInfo, current: Record<string, string>): void => {
    const { params, missing } = runParams(r.params, current);
    if (missing.length > 0) {
      runOpen.add(r.name);
      said.set(r.name, { text: t("routineMissing", { names: r.params.filter((p) => missing.includes(p.name)).map((p) => paramText(p).label).join(", ") }), cls: "error", md: false });
      draw();
      return;
    }
    typed.set(r.name, { ...(typed.get(r.name) ?? {}), ...current });
    said.set(r.name, { text: t("routineRunning"), cls: "", md: false });
    draw();
    request({ type: "run_routine", name: r.name, params }, "routine_replayed").then(
      ({ report }) => {
        const rep = readReport(report);
        const done = rep.status === "completed";
        const text = done ? (rep.answer ?? t("routineCompleted")) : t("routineStoppedAt", { step: rep.step ?? "?", why: rep.why ?? rep.status });
        said.set(r.name, { text, cls: done ? "ok" : "error", md: done && rep.answer !== null });
        refresh();
      },
      (error: unknown) => {
        said.set(r.name, { text: t("errorPrefix", { error: toOpError(error).message }), cls: "error", md: false });
        refresh();
      },
    );
  };

  /** The values a one-click Run now uses: those typed in this view, else
   * the last replay's, else the run's own (the form's defaults). */
  const lastValues = (r: RoutineInfo): Record<string, string> => ({ ...(r.replays[0]?.params ?? {}), ...(typed.get(r.name) ?? {}) });

  // Every N minutes, hours, days or weeks: a count and a unit.
  const renderScheduleForm = (r: RoutineInfo): HTMLFormElement => {
    const { count: shown, unit: shownUnit } = periodParts(r.schedule?.every ?? "1d");
    const count = h("input", {
      class: "schedule-count",
      type: "number",
      min: "1",
      max: "99999",
      step: "1",
      inputmode: "numeric",
      "aria-label": t("routineScheduleCount"),
    });
    count.value = String(shown);
    const unit = h(
      "select",
      { class: "schedule-unit", "aria-label": t("routineScheduleUnit") },
      ...PERIOD_UNITS.map((u) => h("option", { value: u }, t(unitKey(u, 2), { n: "" }).trim())),
    );
    unit.value = shownUnit;
    // At a time of day (optional): the computer's clock.
    const at = h("input", { class: "schedule-at", type: "time", "aria-label": t("routineScheduleAt") });
    at.value = r.schedule?.at ?? "";
    const saveBtn = h("button", { type: "submit", class: "secondary schedule-save" }, t("routineScheduleSave"));
    const off = h("button", { type: "button", class: "secondary schedule-off" }, t("routineScheduleOff"));
    off.hidden = r.schedule === null;
    const form = h(
      "form",
      { class: "routine-schedule-form" },
      h("span", { class: "schedule-label" }, t("routineScheduleEvery")),
      count,
      unit,
      h("label", { class: "schedule-at-label" }, t("routineScheduleAtLabel"), at),
      saveBtn,
      off,
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const every = periodOf(Number(count.value), unit.value as (typeof PERIOD_UNITS)[number]);
      if (every === null) {
        viewLine.say(t("routineBadPeriod"), "error");
        return;
      }
      const time = at.value.trim();
      change({ type: "schedule_routine", name: r.name, every, ...(time === "" ? {} : { at: time }) });
    });
    off.addEventListener("click", () => change({ type: "unschedule_routine", name: r.name }));
    return form;
  };

  const renderRoutine = (r: RoutineInfo): HTMLElement => {
    // One click: replayed with the last values; the form to change them.
    const runNow = h("button", { type: "button", class: "primary routine-run-now" }, t("routineRunNow"));
    runNow.disabled = said.get(r.name)?.text === t("routineRunning");
    runNow.addEventListener("click", () => replay(r, lastValues(r)));
    const runToggle = h(
      "button",
      { type: "button", class: "secondary routine-run-open", "aria-expanded": runOpen.has(r.name) ? "true" : "false" },
      t("routineChangeValues"),
    );
    runToggle.addEventListener("click", () => {
      if (runOpen.has(r.name)) runOpen.delete(r.name);
      else runOpen.add(r.name);
      draw();
    });
    const actions: HTMLElement[] = r.params.length > 0 ? [runNow, runToggle] : [runNow];
    if (r.schedule !== null) {
      const pause = r.schedule.paused
        ? h("button", { type: "button", class: "secondary routine-resume" }, t("routineResume"))
        : h("button", { type: "button", class: "secondary routine-pause" }, t("routinePause"));
      pause.addEventListener("click", () => change({ type: "pause_routine", name: r.name, paused: !r.schedule?.paused }));
      actions.push(pause);
    }
    const asked = deleting.has(r.name);
    const del = h("button", { type: "button", class: `danger routine-delete${asked ? " confirming" : ""}` }, asked ? t("routineDeleteSure") : t("routineDelete"));
    del.addEventListener("click", () => {
      if (!deleting.has(r.name)) {
        deleting.add(r.name);
        draw();
        return;
      }
      deleting.delete(r.name);
      request({ type: "delete_routine", name: r.name }, "done").then(() => refresh(), fail);
    });
    actions.push(del);
    const repairId = `repair-${r.name}`.replace(/[^\w-]/g, "_");
    const repair = h("input", { id: repairId, type: "checkbox", class: "routine-repair" });
    repair.checked = r.repair;
    repair.addEventListener("change", () => change({ type: "set_routine_repair", name: r.name, allowed: repair.checked }));
    const msg = said.get(r.name);
    const result = h(
      "div",
      { class: `form-status routine-result ${msg?.cls ?? ""}`, role: "status" },
      msg === undefined ? null : msg.md ? answerNodes(msg.text) : msg.text,
    );
    const history = h(
      "details",
      { class: "routine-history" },
      h("summary", {}, t("routineHistory", { count: r.replays.length })),
      h(
        "ol",
        { class: "replay-list" },
        ...r.replays.map((p) =>
          h(
            "li",
            { class: `replay ${p.status}`, "data-status": p.status, "data-trigger": p.trigger },
            h("span", { class: "replay-time" }, formatTime(p.startedAt, lang)),
            " ",
            h("span", { class: "replay-status" }, t(statusKey(p.status))),
            " ",
            h("span", { class: "replay-who" }, p.trigger === "schedule" ? t("routineBySchedule") : t("routineByYou")),
            p.answer !== null ? h("div", { class: "replay-what" }, answerNodes(p.answer)) : p.why !== null ? h("p", { class: "replay-what" }, p.why) : null,
          ),
        ),
      ),
    );
    const form = renderRunForm(r);
    form.hidden = !runOpen.has(r.name);
    const next =
      r.schedule !== null && !r.schedule.paused && r.schedule.nextRunAt !== null
        ? t("routineNext", { time: formatTime(r.schedule.nextRunAt, lang) })
        : "";
    return h(
      "li",
      {
        class: "routine",
        "data-routine": r.name,
        "data-scheduled": r.schedule !== null ? "1" : "0",
        "data-paused": r.schedule?.paused === true ? "1" : "0",
        "data-last": r.last?.status ?? "",
      },
      h("div", { class: "routine-head" }, h("strong", { class: "routine-name" }, r.name), " ", h("span", { class: "hint routine-steps" }, t("routineSteps", { count: r.steps }))),
      r.task !== "" ? h("p", { class: "hint routine-task" }, r.task) : null,
      h("p", { class: "routine-schedule" }, scheduleText(r)),
      h("p", { class: "routine-next" }, next),
      h("div", { class: "routine-last" }, ...lastNodes(r)),
      h("div", { class: "row" }, ...actions),
      h("div", { class: "check" }, repair, h("label", { for: repairId }, t("routineRepair", { version: r.revision }))),
      form,
      result,
      renderScheduleForm(r),
      history,
    );
  };

  const draw = (): void => fillList(list, routines, t("routinesEmpty"), renderRoutine);

  function refresh(): void {
    const mine = ++generation;
    request({ type: "list_routines" }, "routines").then((r) => {
      if (mine !== generation) return;
      routines = readRoutines(r.routines);
      const names = new Set(routines.map((x) => x.name));
      for (const n of [...runOpen]) if (!names.has(n)) runOpen.delete(n);
      draw();
    }, fail);
  }

  // ---- "Save as routine" ----
  const nameInput = h("input", { id: "routine-name", type: "text", autocomplete: "off", spellcheck: "false", required: "" });
  const saveBtn = h("button", { id: "routine-save", type: "submit", class: "primary" }, t("routineSave"));
  const saveLine = statusLine("routine-save-status", t);
  const savedParams = h("ul", { id: "routine-saved-params", class: "saved-params" });
  const closeBtn = h("button", { id: "routine-save-close", type: "button", class: "secondary" }, t("close"));
  const saveForm = h(
    "form",
    { class: "routine-save-form" },
    field("routine-name", t("routineName"), nameInput, t("routineNameHint")),
    h("div", { class: "row" }, saveBtn, closeBtn),
    saveLine.status,
    savedParams,
  );
  const dialog = h(
    "dialog",
    { id: "save-routine-dialog", class: "save-routine-dialog", "aria-labelledby": "save-routine-title" },
    h("h2", { id: "save-routine-title" }, t("routineSaveTitle")),
    saveForm,
  );
  let saving: string | null = null;
  closeBtn.addEventListener("click", () => dialog.close());
  saveForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = nameInput.value.trim();
    if (saving === null) return;
    if (name === "") {
      saveLine.say(t("routineNameMissing"), "error");
      return;
    }
    saveBtn.disabled = true;
    saveLine.say(t("routineWorking"));
    request({ type: "save_routine", run_id: saving, name }, "routine")
      .then(({ routine }) => {
        const r = readRoutine(routine);
        saveLine.say(t("routineSaved", { name: r.name, steps: r.steps }), "ok");
        fillList(savedParams, r.params, t("routineNoParams"), (p) => {
          // Named for a person (the step's tool is not shown).
          const { label, hint } = paramText(p);
          return h(
            "li",
            { class: "saved-param", "data-param": p.name, title: p.usedIn },
            h("strong", {}, label),
            ": ",
            h("span", { class: "param-default" }, p.default ?? t("routineParamRequired")),
            hint !== "" ? h("span", { class: "hint" }, ` (${hint})`) : null,
          );
        });
        refresh();
        onSaved();
      }, saveLine.fail)
      .finally(() => {
        saveBtn.disabled = false;
      });
  });

  return {
    element,
    dialog,
    refresh,
    openSave(runId: string): void {
      saving = runId;
      nameInput.value = "";
      savedParams.replaceChildren();
      saveLine.say("");
      if (!dialog.open) dialog.showModal();
      nameInput.focus();
    },
  };
}
