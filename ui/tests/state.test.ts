import { describe, expect, it } from "vitest";
import { initialState, reduce, runIds, type Action, type PanelState } from "../src/state";
import { agent, confirmation, result } from "./fixtures";

const run = (actions: Action[], from: PanelState = initialState): PanelState => actions.reduce(reduce, from);
const ev = (event: Parameters<typeof agent>[1], runId = "r1"): Action => ({ kind: "event", event: agent(runId, event) });
const bubbles = (s: PanelState): [string, string, boolean][] => s.messages.map((m) => [m.role, m.text, m.streaming]);

describe("chat", () => {
  it("grows one assistant bubble from streamed tokens, then the final text replaces it", () => {
    let s = run([
      { kind: "sent", text: "Giá laptop?" },
      { kind: "run_started", runId: "r1", conversationId: "conv1" },
      ev({ type: "token", text: "Giá " }),
      ev({ type: "token", text: "là 21.490" }),
    ]);
    expect(bubbles(s)).toEqual([
      ["user", "Giá laptop?", false],
      ["assistant", "Giá là 21.490", true],
    ]);
    expect(s.running).toBe(true);
    expect(s.messages[0]?.runId).toBe("r1");
    s = run([ev({ type: "final", run_id: "r1", text: "Giá là 21.490.000 ₫.", steps: 2 })], s);
    expect(bubbles(s)).toEqual([
      ["user", "Giá laptop?", false],
      ["assistant", "Giá là 21.490.000 ₫.", false],
    ]);
    s = run([{ kind: "event", event: { type: "run_ended", run_id: "r1", conversation_id: "conv1", status: "completed", stop_reason: "end_turn", answer: "Giá là 21.490.000 ₫." } }], s);
    expect(s.running).toBe(false);
    expect(s.conversationId).toBe("conv1");
    expect(s.messages).toHaveLength(2);
  });

  it("keeps text streamed before a tool call and starts a new bubble after it", () => {
    const s = run([
      { kind: "sent", text: "x" },
      ev({ type: "token", text: "Let me look." }),
      ev({ type: "tool_call", id: "t1", name: "browser_navigate", arguments: { url: "https://tiki.vn" } }),
      ev({ type: "token", text: "Found" }),
    ]);
    expect(bubbles(s).slice(1)).toEqual([
      ["assistant", "Let me look.", false],
      ["assistant", "Found", true],
    ]);
  });

  it("shows the answer from RunEnded when no final event came", () => {
    const s = run([
      { kind: "sent", text: "x" },
      { kind: "event", event: { type: "run_ended", run_id: "r9", conversation_id: "c", status: "completed", stop_reason: "end_turn", answer: "Xong." } },
    ]);
    expect(bubbles(s).at(-1)).toEqual(["assistant", "Xong.", false]);
  });

  it("turns a cancelled run into a quiet 'stopped' notice and other errors into an error line", () => {
    const stopped = run([{ kind: "sent", text: "x" }, ev({ type: "token", text: "" }), ev({ type: "error", run_id: "r1", code: "cancelled", message: "cancelled" })]);
    expect(bubbles(stopped).slice(1)).toEqual([["notice", "", false]]);
    const failed = run([{ kind: "sent", text: "x" }, ev({ type: "error", run_id: "r1", code: "model_error", message: "HTTP 500" })]);
    expect(bubbles(failed).at(-1)).toEqual(["error", "HTTP 500 (model_error)", false]);
    // No model: the code is kept for the chat's own words and the set-up button; the server's words stay as details.
    const none = run([{ kind: "sent", text: "x" }, ev({ type: "error", run_id: "r1", code: "model_unavailable", message: "No model at 127.0.0.1:11434" })]);
    expect(none.messages.at(-1)).toMatchObject({ role: "error", code: "model_unavailable", text: "No model at 127.0.0.1:11434" });
    const refused = reduce(initialState, { kind: "send_failed", message: "Error: no model", code: "model_unavailable" });
    expect(refused.messages.at(-1)).toMatchObject({ role: "error", code: "model_unavailable" });
    expect(refused.running).toBe(false);
  });

  it("reports a refused SendMessage and is ready for the next one", () => {
    const s = run([{ kind: "sent", text: "x" }, { kind: "send_failed", message: "busy" }]);
    expect(s.running).toBe(false);
    expect(bubbles(s).at(-1)).toEqual(["error", "busy", false]);
  });
});

describe("timeline", () => {
  it("adds a running row on tool_call and completes it on tool_result", () => {
    let s = run([ev({ type: "tool_call", id: "t1", name: "browser_screenshot", arguments: { selector: "#price" }, reasoning: "See the price" })]);
    expect(s.calls).toMatchObject([{ id: "t1", runId: "r1", tool: "browser_screenshot", target: "#price", status: "running", reasoning: "See the price" }]);
    s = run(
      [ev({ type: "tool_result", id: "t1", name: "browser_screenshot", duration_ms: 420, result: result({ artifacts: [{ type: "screenshot", ref: "file:///data/shot.png" }] }) })],
      s,
    );
    expect(s.calls).toMatchObject([{ status: "ok", durationMs: 420, scope: "READ_ONLY", artifacts: [{ type: "screenshot", ref: "file:///data/shot.png" }] }]);
  });

  it("marks calls still running when the run ends as errors", () => {
    const s = run([
      ev({ type: "tool_call", id: "t1", name: "browser_click", arguments: { ref: "e12" } }),
      { kind: "event", event: { type: "run_ended", run_id: "r1", conversation_id: "c", status: "cancelled", stop_reason: "cancelled", answer: null } },
    ]);
    expect(s.calls[0]).toMatchObject({ status: "error", error: { code: "cancelled", message: "cancelled" } });
  });

  it("loads a stored run's calls without touching other runs", () => {
    let s = run([ev({ type: "tool_call", id: "t1", name: "a", arguments: {} }, "live")]);
    s = run(
      [
        {
          kind: "timeline_loaded",
          runId: "old",
          calls: [{ call_id: "x", tool: "browser_navigate", arguments: { url: "https://shopee.vn" }, reasoning: null, status: "error", error_code: "navigation_failed", duration_ms: 3000, started_at: "2025-01-01T00:00:00Z" }],
        },
      ],
      s,
    );
    expect(s.calls.map((c) => [c.runId, c.tool, c.status, c.target])).toEqual([
      ["live", "a", "running", ""],
      ["old", "browser_navigate", "error", "https://shopee.vn"],
    ]);
  });
});

describe("conversations", () => {
  it("reopens a conversation with its messages and goes on with its id", () => {
    const s = run([
      { kind: "sent", text: "old" },
      {
        kind: "conversation_opened",
        id: "conv7",
        title: "Vé Hà Nội – Đà Nẵng",
        messages: [
          { role: "user", content: "Tìm vé", run_id: "r1", tool_name: null, created_at: "" },
          { role: "tool", content: '<<<PAGE_DATA n source=browser_extract>>>\n{"status":"ok","trace_id":"t"}\n<<<END_PAGE_DATA n>>>\nEverything between…', run_id: "r1", tool_name: "browser_extract", created_at: "" },
          { role: "assistant", content: null, run_id: "r1", tool_name: null, created_at: "" },
          { role: "assistant", content: "Có 3 chuyến.", run_id: "r2", tool_name: null, created_at: "" },
        ],
      },
    ]);
    expect(s.conversationId).toBe("conv7");
    expect(s.running).toBe(false);
    // As seen live: the question and the answer; the tool's result is in its step.
    expect(bubbles(s)).toEqual([
      ["user", "Tìm vé", false],
      ["assistant", "Có 3 chuyến.", false],
    ]);
    expect(JSON.stringify(s.messages)).not.toMatch(/PAGE_DATA|trace_id|Everything between/);
    expect(runIds([
      { role: "user", content: "a", run_id: "r1", tool_name: null, created_at: "" },
      { role: "assistant", content: "b", run_id: "r1", tool_name: null, created_at: "" },
      { role: "user", content: "c", run_id: null, tool_name: null, created_at: "" },
      { role: "user", content: "d", run_id: "r2", tool_name: null, created_at: "" },
    ])).toEqual(["r1", "r2"]);
  });

  it("starts a new conversation but keeps the paused flag", () => {
    const s = run([{ kind: "event", event: { type: "paused", paused: true } }, { kind: "sent", text: "x" }, { kind: "new_conversation" }]);
    expect(s.messages).toEqual([]);
    expect(s.conversationId).toBeNull();
    expect(s.paused).toBe(true);
  });
});

describe("waiting for the user", () => {
  it("tracks confirmations and challenges until they close", () => {
    let s = run([
      { kind: "event", event: { type: "confirmation_waiting", request: confirmation() } },
      ev({ type: "confirmation_request", request: confirmation() }),
      { kind: "event", event: { type: "challenge_waiting", id: "ch1", request: { tab_id: "tab-2", url: "https://vietjetair.com", challenge_type: "captcha", page_hint: null, run_id: null } } },
    ]);
    expect(s.confirmations.map((c) => c.id)).toEqual(["c1"]);
    expect(s.challenges.map((c) => c.id)).toEqual(["ch1"]);
    s = run([{ kind: "event", event: { type: "confirmation_closed", id: "c1", approved: false } }, { kind: "event", event: { type: "challenge_closed", id: "ch1" } }], s);
    expect(s.confirmations).toEqual([]);
    expect(s.challenges).toEqual([]);
  });
});

describe("a hand-off step", () => {
  it("takes the page of the challenge it waits for, for its sentence", () => {
    const s = run([
      { kind: "sent", text: "Đăng nhập" },
      { kind: "run_started", runId: "r1", conversationId: "conv1" },
      ev({ type: "tool_call", id: "t1", name: "human_solve_challenge", arguments: { challenge_type: "captcha" } }),
      { kind: "event", event: { type: "challenge_waiting", id: "ch1", request: { tab_id: "tab-2", url: "https://vietjetair.com/login", challenge_type: "captcha", page_hint: null, run_id: "r1" } } },
      { kind: "event", event: { type: "challenge_waiting", id: "ch2", request: { tab_id: "tab-3", url: "https://other.vn/", challenge_type: "otp", page_hint: null, run_id: "r9" } } },
    ]);
    expect(s.calls.map((c) => [c.tool, c.currentUrl])).toEqual([["human_solve_challenge", "https://vietjetair.com/login"]]);
  });
});

describe("runs of other front ends", () => {
  it("shows a watch's or an API client's question but not its conversation", () => {
    const s = run([
      { kind: "sent", text: "Giá laptop?" },
      { kind: "run_started", runId: "r1", conversationId: "conv1" },
      { kind: "event", event: { type: "run_started", run_id: "r1", conversation_id: "conv1", front_end: "panel" } },
      { kind: "event", event: { type: "run_started", run_id: "w1", conversation_id: "conv-w", front_end: "background" } },
      ev({ type: "token", text: "Giá " }),
      ev({ type: "token", text: "đã giảm" }, "w1"),
      ev({ type: "tool_call", id: "t9", name: "browser_snapshot", arguments: {} }, "w1"),
      { kind: "event", event: { type: "confirmation_waiting", request: confirmation({ id: "cw", run_id: "w1" }) } },
      { kind: "event", event: { type: "run_ended", run_id: "w1", conversation_id: "conv-w", status: "completed", stop_reason: "end_turn", answer: "đã giảm" } },
    ]);
    expect(bubbles(s)).toEqual([
      ["user", "Giá laptop?", false],
      ["assistant", "Giá ", true],
    ]);
    expect(s.calls).toEqual([]);
    expect(s.runId).toBe("r1");
    expect(s.running).toBe(true);
    expect(s.conversationId).toBe("conv1");
    expect(s.confirmations.map((c) => [c.id, c.run_id])).toEqual([["cw", "w1"]]);
    expect(s.otherRuns).toEqual([]);
  });
});

describe("routines from the chat", () => {
  it("keeps what the core said of each run's savability, until another conversation", () => {
    let s = reduce(initialState, { kind: "savable", runId: "run-1", savable: true });
    s = reduce(s, { kind: "savable", runId: "run-2", savable: false });
    expect(s.savable).toEqual({ "run-1": true, "run-2": false });
    expect(reduce(s, { kind: "new_conversation" }).savable).toEqual({});
  });
});
