import { describe, expect, it } from "vitest";
import { isPeriod, paramLabel, parsePeriod, periodOf, periodParts, periodWords, readReport, readRoutine, runParams, statusKey, unitKey } from "../../src/routines/routines";
import { MESSAGES, translator } from "../../src/i18n";

// A routine as `ShowRoutine` answers it (host/routines.rs: routine_json).
const shown = {
  id: "routine-1",
  name: "giá laptop",
  source_run_id: "run-1",
  plan: {
    version: 1,
    task: "Laptop này giá bao nhiêu?",
    steps: [{ tool: "browser_navigate" }, { tool: "browser_extract" }],
    params: [
      { name: "url", kind: "url", default: "http://127.0.0.1:8080/watched/laptop", used_in: "step 1 browser_navigate url" },
      { name: "so_luong", kind: "number", default: null, used_in: "step 2 browser_type text" },
    ],
  },
  schedule: { every: "1d", every_secs: 86400, paused: false, next_run_at: "2026-11-29T04:00:00.000Z", last_run_at: "2026-11-28T04:00:00.000Z", last_status: "completed", last_answer: "x" },
  last: { status: "stopped", answer: null, stopped: { step: 3, why: "denied" }, started_at: "2026-11-28T04:00:00.000Z", ended_at: "2026-11-28T04:00:01.000Z", trigger: "schedule" },
  replays: [
    { id: "replay-2", status: "stopped", trigger: "schedule", started_at: "2026-11-28T04:00:00.000Z", report: { stopped: { why: "denied" } } },
    { id: "replay-1", status: "completed", trigger: "user", started_at: "2026-11-27T04:00:00.000Z", report: { answer: "Laptop giá 21.490.000 ₫." } },
  ],
};

describe("routines", () => {
  it("reads a routine with its schedule, last result and history", () => {
    const r = readRoutine(shown);
    expect(r.name).toBe("giá laptop");
    expect(r.steps).toBe(2);
    expect([r.repair, r.revision]).toEqual([false, 1]);
    expect(r.params.map((p) => [p.name, p.default])).toEqual([
      ["url", "http://127.0.0.1:8080/watched/laptop"],
      ["so_luong", null],
    ]);
    expect(r.schedule).toEqual({ every: "1d", at: null, paused: false, nextRunAt: "2026-11-29T04:00:00.000Z", lastRunAt: "2026-11-28T04:00:00.000Z" });
    const atEight = readRoutine({ ...shown, schedule: { ...shown.schedule, at: "08:00" } });
    expect(atEight.schedule?.at).toBe("08:00");
    expect(r.last).toEqual({ status: "stopped", answer: null, why: "denied", at: "2026-11-28T04:00:01.000Z", trigger: "schedule" });
    expect(r.replays.map((x) => [x.status, x.trigger, x.answer ?? x.why])).toEqual([
      ["stopped", "schedule", "denied"],
      ["completed", "user", "Laptop giá 21.490.000 ₫."],
    ]);
  });

  it("reads a routine never scheduled nor run, and junk, without throwing", () => {
    const r = readRoutine({ name: "x", plan: { steps: [] }, schedule: null, last: null, replays: [] });
    expect([r.schedule, r.last, r.params.length]).toEqual([null, null, 0]);
    const junk = readRoutine("not an object");
    expect([junk.name, junk.steps, junk.schedule]).toEqual(["", 0, null]);
  });

  it("sends only the parameters changed and names the required ones missing", () => {
    const r = readRoutine(shown);
    expect(runParams(r.params, { url: "http://127.0.0.1:8080/watched/laptop", so_luong: " 3 " })).toEqual({ params: [["so_luong", "3"]], missing: [] });
    expect(runParams(r.params, { url: "https://shop.vn/p/2", so_luong: "" })).toEqual({
      params: [["url", "https://shop.vn/p/2"]],
      missing: ["so_luong"],
    });
    // A default cleared stays the default (not sent).
    expect(runParams(r.params, { url: "", so_luong: "1" })).toEqual({ params: [["so_luong", "1"]], missing: [] });
  });

  it("reads a replay's report", () => {
    expect(readReport({ status: "completed", answer: "19.990.000 ₫" })).toEqual({ status: "completed", answer: "19.990.000 ₫", why: null, step: null });
    expect(readReport({ status: "stopped", answer: null, stopped: { step: 3, why: "browser_click failed: denied" } })).toEqual({
      status: "stopped",
      answer: null,
      why: "browser_click failed: denied",
      step: 3,
    });
  });

  it("tells a period from anything else and every status has words", () => {
    for (const ok of ["30m", "6h", "1d", " 12 h ", "1w"]) expect(isPeriod(ok)).toBe(true);
    for (const bad of ["", "d", "1.5h", "-1d", "1d2h", "0 giờ", "1 ngày 2 giờ", "ngày mai", "1 tháng"]) expect(isPeriod(bad)).toBe(false);
    for (const s of ["completed", "stopped", "failed", "running", "interrupted", "weird"]) {
      expect(MESSAGES.en[statusKey(s)]).toBeTruthy();
      expect(MESSAGES.vi[statusKey(s)]).toBeTruthy();
    }
    expect(MESSAGES.vi.saveAsRoutine).toBe("Lưu thành quy trình");
  });

  it("reads a period as a person writes it, in Vietnamese or English", () => {
    const cases: [string, string][] = [
      ["1 ngày", "1d"],
      ["mỗi 2 giờ", "2h"],
      ["2 tiếng", "2h"],
      ["30 phút", "30m"],
      ["30phút", "30m"],
      ["hằng ngày", "1d"],
      ["Mỗi ngày", "1d"],
      ["mỗi giờ", "1h"],
      ["1 tuần", "7d"],
      ["2 TUẦN", "14d"],
      ["every 6 hours", "6h"],
      ["1 day", "1d"],
      ["daily", "1d"],
      ["weekly", "7d"],
      ["45 min", "45m"],
    ];
    for (const [typed, every] of cases) expect([typed, parsePeriod(typed)]).toEqual([typed, every]);
  });

  it("shows a period as a count and a unit, and reads the picker back", () => {
    expect(periodParts("1d")).toEqual({ count: 1, unit: "d" });
    expect(periodParts("14d")).toEqual({ count: 2, unit: "w" });
    expect(periodParts("6h")).toEqual({ count: 6, unit: "h" });
    expect(periodParts("junk")).toEqual({ count: 1, unit: "d" });
    expect([periodOf(2, "w"), periodOf(30, "m"), periodOf(0, "h"), periodOf(1.5, "h"), periodOf(Number.NaN, "d")]).toEqual(["14d", "30m", null, null, null]);
    expect(MESSAGES.vi[unitKey("d", 1)]).toBe("ngày");
    expect(MESSAGES.en[unitKey("h", 2)]).toBe("{n} hours");
    for (const u of ["m", "h", "d", "w"] as const) for (const n of [1, 2]) expect(MESSAGES.vi[unitKey(u, n)]).toBeTruthy();
  });

  it("names a parameter for a person, never by its tool", () => {
    const r = readRoutine(shown);
    expect(paramLabel(r.params[0] ?? { name: "", kind: "", default: null, usedIn: "" })).toEqual({ kind: "url", words: "", step: 1 });
    expect(paramLabel(r.params[1] ?? { name: "", kind: "", default: null, usedIn: "" })).toEqual({ kind: "number", words: "so luong", step: 2 });
    expect(paramLabel({ name: "url_2", kind: "url", default: null, usedIn: "step 4 browser_new_tab url" })).toEqual({ kind: "url", words: "", step: 4 });
    expect(paramLabel({ name: "date", kind: "date", default: null, usedIn: "" })).toEqual({ kind: "date", words: "", step: null });
    expect(MESSAGES.vi["routineParam.url"]).toBe("Địa chỉ trang");
  });

  it("keeps the values each replay was run with", () => {
    const r = readRoutine({ ...shown, replays: [{ id: "r", status: "completed", trigger: "user", started_at: "", report: { params: { url: "https://shop.vn/p/2", n: 3 } } }] });
    expect(r.replays[0]?.params).toEqual({ url: "https://shop.vn/p/2" });
  });
});

describe("periods in words (#43 item 5: no \"mỗi 1d\")", () => {
  it("says the core's periods as a person does", () => {
    const [en, vi] = [translator("en"), translator("vi")];
    expect(periodWords("1d", vi)).toBe("ngày");
    expect(periodWords("6h", en)).toBe("6 hours");
    expect(periodWords("30m", vi)).toBe("30 phút");
    expect(periodWords("14d", vi)).toBe("2 tuần");
    expect(vi("watchEvery", { every: periodWords("1h", vi) })).toBe("mỗi giờ");
    expect(periodWords("soon", en)).toBe("soon");
  });
});
