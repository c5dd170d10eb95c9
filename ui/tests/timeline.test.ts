import { describe, expect, it } from "vitest";
import { callReasoning, callTarget, durationLabel, finishedCall, groupByRun, scopeBadgeClass, screenshots, startedCall, storedCall, storedStatus } from "../src/timeline";
import { result } from "./fixtures";

describe("callTarget", () => {
  it("prefers url, then selector, ref, query...", () => {
    expect(callTarget({ url: "https://tiki.vn", selector: "#buy" })).toBe("https://tiki.vn");
    expect(callTarget({ selector: "#buy", ref: "e3" })).toBe("#buy");
    expect(callTarget({ ref: "e3", text: "Đặt hàng" })).toBe("e3");
    expect(callTarget({ tab_id: 2 })).toBe("2");
    expect(callTarget({ url: "  ", query: "laptop 14 inch" })).toBe("laptop 14 inch");
    expect(callTarget({})).toBe("");
    expect(callTarget(["https://x"])).toBe("");
    expect(callTarget(null)).toBe("");
  });
});

describe("callReasoning", () => {
  it("takes the event's reasoning, else _reasoningForCall", () => {
    expect(callReasoning({ _reasoningForCall: "from args" }, "from event")).toBe("from event");
    expect(callReasoning({ _reasoningForCall: "Xem giá" })).toBe("Xem giá");
    expect(callReasoning({ _reasoningForCall: " " }, null)).toBeNull();
  });
});

describe("rows", () => {
  it("take status, scope, error and artifacts from the ToolResultV2", () => {
    const row = finishedCall(
      startedCall("r1", "t1", "browser_click", { ref: "e7" }),
      result({
        status: "error",
        permission_scope: "SUBMIT",
        risk_level: "medium",
        error: { code: "denied", message: "The user refused" },
        artifacts: [
          { type: "screenshot", ref: "file:///a.png" },
          { type: "html", ref: "file:///a.html" },
        ],
      }),
      1234,
    );
    expect(row).toMatchObject({ status: "error", scope: "SUBMIT", risk: "medium", durationMs: 1234, target: "e7", error: { code: "denied" } });
    expect(screenshots(row)).toEqual([{ type: "screenshot", ref: "file:///a.png" }]);
  });

  it("read stored calls' statuses", () => {
    expect(["ok", "completed", "running", "error", "denied", "failed"].map(storedStatus)).toEqual(["ok", "ok", "running", "error", "error", "error"]);
    const row = storedCall("r", { call_id: "c", tool: "x", arguments: {}, reasoning: "why", status: "error", error_code: "timeout", duration_ms: 5, started_at: "" });
    expect(row).toMatchObject({ status: "error", reasoning: "why", error: { code: "timeout" }, durationMs: 5 });
  });

  it("group by run in first-seen order", () => {
    const rows = [startedCall("a", "1", "x", {}), startedCall("b", "2", "x", {}), startedCall("a", "3", "x", {})];
    expect(groupByRun(rows).map((g) => [g.runId, g.calls.map((c) => c.id)])).toEqual([
      ["a", ["1", "3"]],
      ["b", ["2"]],
    ]);
  });
});

describe("labels", () => {
  it("format durations and scope badge classes", () => {
    expect([null, -1, 0, 850, 1234, 12_400, 125_000].map(durationLabel)).toEqual(["", "", "0 ms", "850 ms", "1.2 s", "12 s", "2 min 5 s"]);
    expect(scopeBadgeClass("WRITE_NON_DESTRUCTIVE")).toBe("scope-write-non-destructive");
    expect(scopeBadgeClass(null)).toBe("scope-unknown");
  });
});
