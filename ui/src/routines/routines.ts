// The Routines view's logic, pure: a routine as the core answers it
// (`Reply::Routine(s)`: JSON) read into typed rows, its schedule and last
// result in words, the Run now form's parameters read back, the periods
// the schedule offers.

import type { Translate } from "../i18n";
import type { Json } from "../protocol";

export interface RoutineParam {
  name: string;
  kind: string;
  /** The run's value; null: each replay must give it. */
  default: string | null;
  usedIn: string;
}

export interface RoutineSchedule {
  every: string;
  /** `HH:MM`, the computer's local time its replays fall on. */
  at: string | null;
  paused: boolean;
  nextRunAt: string | null;
  lastRunAt: string | null;
}

export interface RoutineLast {
  status: string;
  answer: string | null;
  /** Why it stopped, when it did. */
  why: string | null;
  at: string;
  trigger: string;
}

export interface RoutineReplay {
  id: string;
  status: string;
  trigger: string;
  startedAt: string;
  answer: string | null;
  why: string | null;
  /** The values it was replayed with. */
  params: Record<string, string>;
}

export interface RoutineInfo {
  name: string;
  task: string;
  steps: number;
  params: RoutineParam[];
  /** The model may repair a step whose element is gone (never a submit). */
  repair: boolean;
  /** The plan's version (one more at each repair). */
  revision: number;
  schedule: RoutineSchedule | null;
  last: RoutineLast | null;
  replays: RoutineReplay[];
}

type Obj = Record<string, Json>;
const obj = (v: Json | undefined): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : {});
const arr = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);
const str = (v: Json | undefined): string | null => (typeof v === "string" ? v : null);


/** One routine of `ListRoutines` / `ShowRoutine`. */
export function readRoutine(v: Json): RoutineInfo {
  const r = obj(v);
  const plan = obj(r.plan);
  const s = r.schedule === null || r.schedule === undefined ? null : obj(r.schedule);
  const last = r.last === null || r.last === undefined ? null : obj(r.last);
  return {
    name: str(r.name) ?? "",
    task: str(plan.task) ?? "",
    steps: arr(plan.steps).length,
    repair: plan.repair === true,
    revision: typeof plan.revision === "number" ? plan.revision : 1,
    params: arr(plan.params).map((p) => {
      const o = obj(p);
      return { name: str(o.name) ?? "", kind: str(o.kind) ?? "text", default: str(o.default), usedIn: str(o.used_in) ?? "" };
    }),
    schedule:
      s === null
        ? null
        : {
            every: str(s.every) ?? "",
            at: str(s.at),
            paused: s.paused === true,
            nextRunAt: str(s.next_run_at),
            lastRunAt: str(s.last_run_at),
          },
    last:
      last === null
        ? null
        : {
            status: str(last.status) ?? "",
            answer: str(last.answer),
            why: str(obj(last.stopped).why),
            at: str(last.ended_at) ?? str(last.started_at) ?? "",
            trigger: str(last.trigger) ?? "user",
          },
    replays: arr(r.replays).map((x) => {
      const o = obj(x);
      const report = obj(o.report);
      return {
        id: str(o.id) ?? "",
        status: str(o.status) ?? "",
        trigger: str(o.trigger) ?? "user",
        startedAt: str(o.started_at) ?? "",
        answer: str(report.answer),
        why: str(obj(report.stopped).why) ?? str(report.interrupted_at),
        params: Object.fromEntries(Object.entries(obj(report.params)).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : []))),
      };
    }),
  };
}

/** `Reply::Routines`' list. */
export const readRoutines = (list: Json[]): RoutineInfo[] => list.map(readRoutine);

/** A replay's report (`Reply::RoutineReplayed`): its status, answer and why it stopped. */
export function readReport(v: Json): { status: string; answer: string | null; why: string | null; step: number | null } {
  const r = obj(v);
  const stopped = obj(r.stopped);
  return {
    status: str(r.status) ?? "",
    answer: str(r.answer),
    why: str(stopped.why),
    step: typeof stopped.step === "number" ? stopped.step : null,
  };
}

/** The Run now form read back: the parameters given (`[name, value]`), a
 * value left as its default not sent; the names of required ones left
 * empty (`missing`). */
export function runParams(params: readonly RoutineParam[], values: Readonly<Record<string, string>>): { params: [string, string][]; missing: string[] } {
  const out: [string, string][] = [];
  const missing: string[] = [];
  for (const p of params) {
    const v = (values[p.name] ?? "").trim();
    if (v === "") {
      if (p.default === null) missing.push(p.name);
      continue;
    }
    if (v !== p.default) out.push([p.name, v]);
  }
  return { params: out, missing };
}

/** A schedule's unit: the core's `m`, `h`, `d`; a week is 7 days. */
export type PeriodUnit = "m" | "h" | "d" | "w";
export const PERIOD_UNITS: readonly PeriodUnit[] = ["m", "h", "d", "w"];

/** Words a person writes for a unit, in English and Vietnamese (folded:
 * lower case, no diacritics), and the unit they mean. */
const UNIT_WORDS: [RegExp, PeriodUnit][] = [
  [/^(m|min|mins|minute|minutes|phut)$/, "m"],
  [/^(h|hr|hrs|hour|hours|gio|tieng)$/, "h"],
  [/^(d|day|days|ngay)$/, "d"],
  [/^(w|wk|week|weeks|tuan)$/, "w"],
];

/** Lower case, no diacritics (đ too): how a period's words are compared. */
const fold = (text: string): string =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/đ/g, "d")
    .replace(/Đ/g, "d")
    .toLowerCase();

/** A period as a person writes it, as the core takes it (`30m`, `6h`, `1d`,
 * a week as `7d`): "1d", "2 giờ", "mỗi 30 phút", "every 2 hours", "hằng
 * ngày", "daily", "1 tuần". `null` when it is not one. */
export function parsePeriod(text: string): string | null {
  const words = fold(text)
    .replace(/^\s*(moi|hang|every|each)\s+/, "")
    .replace(/^(\d+)\s*([a-z])/, "$1 $2")
    .trim()
    .split(/\s+/);
  const daily: Record<string, string> = { daily: "1d", hourly: "1h", weekly: "7d" };
  if (words.length === 1 && daily[words[0] ?? ""] !== undefined) return daily[words[0] ?? ""] ?? null;
  const [count, unitWord] = words.length === 1 ? ["1", words[0] ?? ""] : words.length === 2 ? [words[0] ?? "", words[1] ?? ""] : ["", ""];
  if (!/^\d{1,5}$/.test(count)) return null;
  const n = Number(count);
  const unit = UNIT_WORDS.find(([re]) => re.test(unitWord))?.[1];
  if (unit === undefined || n < 1 || (words.length === 1 && /^[mhdw]$/.test(unitWord))) return null;
  return unit === "w" ? `${n * 7}d` : `${n}${unit}`;
}

/** A period as typed is one the schedule takes. */
export const isPeriod = (text: string): boolean => parsePeriod(text) !== null;

/** The core's period (`1d`, `6h`, `14d`) as the picker shows it: a count
 * and a unit (whole weeks as weeks). */
export function periodParts(every: string): { count: number; unit: PeriodUnit } {
  const m = /^(\d+)([mhd])$/.exec(every.trim());
  if (m === null) return { count: 1, unit: "d" };
  const count = Number(m[1]);
  const unit = m[2] as PeriodUnit;
  return unit === "d" && count % 7 === 0 ? { count: count / 7, unit: "w" } : { count, unit };
}

/** The picker's count and unit as the core takes them. */
export const periodOf = (count: number, unit: PeriodUnit): string | null =>
  Number.isInteger(count) && count >= 1 && count <= 99_999 ? (unit === "w" ? `${count * 7}d` : `${count}${unit}`) : null;

/** The core's period (`1d`, `6h`, `30m`) as a person says it: "day",
 * "6 giờ" (after "every"/"mỗi"); anything else as it is. */
export function periodWords(every: string, t: Translate): string {
  if (!/^\d+[mhd]$/.test(every.trim())) return every;
  const { count, unit } = periodParts(every);
  return t(unitKey(unit, count), { n: count });
}

/** The i18n key of a unit, one or many. */
export const unitKey = (unit: PeriodUnit, count: number): `period.${PeriodUnit}.${"one" | "many"}` =>
  `period.${unit}.${count === 1 ? "one" : "many"}`;

/** What a parameter is, for a person: its kind's name ("Page address"),
 * or the field's label the run typed into ("so_dien_thoai" -> "so dien
 * thoai" when nothing better is known); the step it is used in. */
export function paramLabel(p: RoutineParam): { kind: "url" | "date" | "number" | "text"; words: string; step: number | null } {
  const kind = p.kind === "url" || p.kind === "date" || p.kind === "number" ? p.kind : "text";
  const step = /^step (\d+)/.exec(p.usedIn);
  const generic = ["url", "date", "quantity", "text", "value"].includes(p.name.replace(/_\d+$/, ""));
  return { kind, words: generic ? "" : p.name.replace(/[_-]+/g, " ").trim(), step: step === null ? null : Number(step[1]) };
}

/** The i18n key of a replay's status. */
export function statusKey(status: string): "routineStatus.completed" | "routineStatus.stopped" | "routineStatus.failed" | "routineStatus.running" | "routineStatus.interrupted" {
  switch (status) {
    case "completed":
    case "stopped":
    case "failed":
    case "running":
    case "interrupted":
      return `routineStatus.${status}`;
    default:
      return "routineStatus.failed";
  }
}
