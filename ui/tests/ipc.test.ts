import { describe, expect, it } from "vitest";
import { isConnected, request, sendOp, setBackend, NOT_CONNECTED, offlineBackend, type Backend } from "../src/ipc";
import { expectReply, toOpError, type Op, type Reply } from "../src/protocol";

describe("outside the desktop app", () => {
  it("is not connected and every Op fails with not_connected", async () => {
    expect(isConnected()).toBe(false);
    await expect(sendOp({ type: "list_tools" })).rejects.toEqual(NOT_CONNECTED);
  });
});

describe("request", () => {
  it("sends the Op as is and checks the reply's kind", async () => {
    const sent: Op[] = [];
    const backend: Backend = {
      ...offlineBackend,
      connected: true,
      op: (op) => {
        sent.push(op);
        return Promise.resolve<Reply>({ type: "run_started", run_id: "r1", conversation_id: "c1" });
      },
    };
    setBackend(backend);
    await expect(request({ type: "send_message", text: "Xin chào", conversation_id: null }, "run_started")).resolves.toEqual({
      type: "run_started",
      run_id: "r1",
      conversation_id: "c1",
    });
    await expect(request({ type: "stop" }, "done")).rejects.toMatchObject({ code: "internal" });
    expect(sent).toEqual([{ type: "send_message", text: "Xin chào", conversation_id: null }, { type: "stop" }]);
    setBackend(offlineBackend);
  });
});

describe("errors", () => {
  it("keep the core's code and message, and wrap anything else", () => {
    expect(toOpError({ code: "keyring", message: "No keyring" })).toEqual({ code: "keyring", message: "No keyring" });
    expect(toOpError(new Error("boom"))).toEqual({ code: "internal", message: "boom" });
    expect(toOpError("plain")).toEqual({ code: "internal", message: "plain" });
    expect(() => expectReply({ type: "done" }, "tools")).toThrow();
  });
});
