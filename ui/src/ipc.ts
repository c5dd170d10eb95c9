// The only module that touches @tauri-apps/api: sends Ops to the core
// (`invoke("op", { op })`), listens to `halley://event` / `halley://navigate`
// and closes dialog windows. Outside the desktop app (a plain browser, tests)
// it reports "not connected to Halley" instead of crashing; tests can swap in
// their own backend with setBackend().

import { invoke, isTauri } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { getCurrentWindow } from "@tauri-apps/api/window";
import { expectReply, toOpError, type Event, type Json, type Op, type OpError, type Reply, type ReplyOf } from "./protocol";

export type Unlisten = () => void;

export interface Backend {
  /** Whether a Halley core answers (false: plain browser). */
  readonly connected: boolean;
  op(op: Op): Promise<Reply>;
  onEvent(handler: (event: Event) => void): Promise<Unlisten>;
  /** `halley://navigate`: the shell asks the panel to show a view ("watches", "settings"...). */
  onNavigate(handler: (view: string) => void): Promise<Unlisten>;
  closeWindow(): Promise<void>;
  /** The question a dialog window was opened for (`dialog_request`), if it still waits. */
  dialogRequest(id: string): Promise<Event | null>;
  /** Turn the login item on or off; resolves to whether it is on. */
  setAutostart(enabled: boolean): Promise<boolean>;
}

export const NOT_CONNECTED: OpError = {
  code: "not_connected",
  message: "Not connected to Halley: open this page from the Halley desktop app.",
};

const tauriBackend: Backend = {
  connected: true,
  async op(op) {
    try {
      return await invoke<Reply>("op", { op });
    } catch (error) {
      throw toOpError(error);
    }
  },
  async onEvent(handler) {
    return listen<Event>("halley://event", (e) => handler(e.payload));
  },
  async onNavigate(handler) {
    return listen<string>("halley://navigate", (e) => handler(e.payload));
  },
  async closeWindow() {
    await getCurrentWindow().close();
  },
  async dialogRequest(id) {
    return (await invoke<Event | null>("dialog_request", { id })) ?? null;
  },
  async setAutostart(enabled) {
    try {
      return await invoke<boolean>("set_autostart", { enabled });
    } catch (error) {
      throw toOpError(error);
    }
  },
};

/** Outside the app: every Op fails with `not_connected`, no event ever comes. */
export const offlineBackend: Backend = {
  connected: false,
  op: () => Promise.reject(NOT_CONNECTED),
  onEvent: () => Promise.resolve(() => {}),
  onNavigate: () => Promise.resolve(() => {}),
  closeWindow: async () => {
    window.close();
  },
  dialogRequest: () => Promise.resolve(null),
  setAutostart: () => Promise.reject(NOT_CONNECTED),
};

let backend: Backend | null = null;

function current(): Backend {
  backend ??= isTauri() ? tauriBackend : offlineBackend;
  return backend;
}

/** Replace the backend (tests, demos). */
export function setBackend(next: Backend): void {
  backend = next;
}

export const isConnected = (): boolean => current().connected;

/** Send an Op; rejects with an OpError. */
export const sendOp = (op: Op): Promise<Reply> => current().op(op);

/** Send an Op and check the kind of its reply. */
export async function request<T extends Reply["type"]>(op: Op, type: T): Promise<ReplyOf<T>> {
  return expectReply(await sendOp(op), type);
}

/** Calls a tool directly (`Op::CallTool`, gated like any call); its data, or
 * a rejection with the tool's error. */
export async function callTool(name: string, args: Json): Promise<Json> {
  const { result } = await request({ type: "call_tool", name, args }, "tool_result");
  if (result.error !== null) throw { code: result.error.code, message: result.error.message } satisfies OpError;
  return result.data;
}

export const onEvent = (handler: (event: Event) => void): Promise<Unlisten> => current().onEvent(handler);
export const onNavigate = (handler: (view: string) => void): Promise<Unlisten> => current().onNavigate(handler);
export const closeWindow = (): Promise<void> => current().closeWindow();

/** Turn the login item on or off (the shell's `set_autostart`). */
export const setAutostart = (enabled: boolean): Promise<boolean> => current().setAutostart(enabled);

/** The event a dialog window was opened for, asked of the shell (the window
 * opens after the event went out, so it may have missed it). */
export const dialogRequest = (id: string): Promise<Event | null> => current().dialogRequest(id).catch(() => null);
