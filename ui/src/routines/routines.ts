// The Routines view's logic, pure: a routine as the core answers it
// (`Reply::Routine(s)`: JSON) read into typed rows, its schedule and last
// result in words, the Run now form's parameters read back, the periods
// the schedule offers.

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

/** The periods the schedule's menu offers (any other is typed). */
export const PERIODS = ["30m", "1h", "6h", "12h", "1d", "7d"] as const;

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
        : { every: str(s.every) ?? "", paused: s.paused === true, nextRunAt: str(s.next_run_at), lastRunAt: str(s.last_run_at) },
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

/** A period as typed: `30m`, `6h`, `1d` (the core checks the rest). */
export const isPeriod = (text: string): boolean => /^\s*\d+\s*[mhd]\s*$/.test(text);

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
