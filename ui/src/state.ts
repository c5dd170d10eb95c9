// The panel's state and how it changes: a pure reducer over core Events and
// the panel's own actions (message sent, run started, conversation opened).
// No DOM here; main.ts renders whatever this produces.

import type {
  ChallengeRequest,
  ChatMessage,
  ConfirmationRequest,
  ErrorCode,
  Event,
  Role,
  TimelineCall,
} from "./protocol";
import { finishedCall, startedCall, storedCall, type CallRow } from "./chat/timeline";

export type MessageRole = "user" | "assistant" | "tool" | "error" | "notice";

export interface ChatItem {
  key: string;
  role: MessageRole;
  text: string;
  runId: string | null;
  /** An assistant bubble still receiving tokens. */
  streaming: boolean;
  toolName?: string;
  /** An error's code, when the panel words it itself (`model_unavailable`). */
  code?: ErrorCode;
}

export interface PanelState {
  conversationId: string | null;
  title: string;
  /** The run in flight (or the last one). */
  runId: string | null;
  running: boolean;
  paused: boolean;
  messages: ChatItem[];
  calls: CallRow[];
  confirmations: ConfirmationRequest[];
  challenges: { id: string; request: ChallengeRequest }[];
  /** Runs another front end started (a watch, an API client): the panel
   * shows their questions, not their conversation. */
  otherRuns: string[];
  /** Whether each finished run can be saved as a routine, once the core
   * has said (`CanSaveRoutine`); "Save as routine" shows only then. */
  savable: Record<string, boolean>;
  seq: number;
}

export const initialState: PanelState = {
  conversationId: null,
  title: "",
  runId: null,
  running: false,
  paused: false,
  messages: [],
  calls: [],
  confirmations: [],
  otherRuns: [],
  challenges: [],
  savable: {},
  seq: 0,
};

export type Action =
  | { kind: "event"; event: Event }
  | { kind: "sent"; text: string }
  | { kind: "send_failed"; message: string; code?: ErrorCode }
  | { kind: "failed"; message: string }
  | { kind: "run_started"; runId: string; conversationId: string }
  | { kind: "new_conversation" }
  | { kind: "conversation_opened"; id: string; title: string; messages: ChatMessage[] }
  | { kind: "timeline_loaded"; runId: string; calls: TimelineCall[] }
  | { kind: "savable"; runId: string; savable: boolean };

function push(state: PanelState, item: Omit<ChatItem, "key">): PanelState {
  const seq = state.seq + 1;
  return { ...state, seq, messages: [...state.messages, { ...item, key: `m${seq}` }] };
}

/** Index of the run's assistant bubble still streaming, or -1. */
function streamingIndex(state: PanelState, runId: string): number {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i];
    if (m && m.role === "assistant" && m.runId === runId && m.streaming) return i;
  }
  return -1;
}

function replaceAt(state: PanelState, index: number, item: ChatItem): PanelState {
  const messages = state.messages.slice();
  messages[index] = item;
  return { ...state, messages };
}

/** Put the final answer in the run's bubble (or a new one) and stop streaming. */
function settleAnswer(state: PanelState, runId: string, text: string): PanelState {
  const i = streamingIndex(state, runId);
  const item = state.messages[i];
  if (item) return replaceAt(state, i, { ...item, text, streaming: false });
  const hasAnswer = state.messages.some((m) => m.role === "assistant" && m.runId === runId && m.text === text);
  if (hasAnswer) return state;
  return push(state, { role: "assistant", text, runId, streaming: false });
}

/** Stop the run's streaming bubble (dropping it when it got no text). */
function stopStreaming(state: PanelState, runId: string): PanelState {
  const i = streamingIndex(state, runId);
  const item = state.messages[i];
  if (!item) return state;
  if (item.text === "") return { ...state, messages: state.messages.filter((_, j) => j !== i) };
  return replaceAt(state, i, { ...item, streaming: false });
}

function applyEvent(state: PanelState, event: Event): PanelState {
  switch (event.type) {
    case "run_started":
      if (event.front_end === "panel" || state.otherRuns.includes(event.run_id)) return state;
      return { ...state, otherRuns: [...state.otherRuns, event.run_id] };
    case "agent": {
      const runId = event.run_id;
      if (state.otherRuns.includes(runId)) return state;
      const ev = event.event;
      const base: PanelState = state.runId === runId ? state : { ...state, runId, running: true };
      switch (ev.type) {
        case "token": {
          const i = streamingIndex(base, runId);
          const item = base.messages[i];
          if (item) return replaceAt(base, i, { ...item, text: item.text + ev.text });
          return push(base, { role: "assistant", text: ev.text, runId, streaming: true });
        }
        case "tool_call": {
          // Text streamed before a tool call stays as the model's commentary.
          const settled = stopStreaming(base, runId);
          const row = startedCall(runId, ev.id, ev.name, ev.arguments, ev.reasoning ?? null);
          const exists = settled.calls.some((c) => c.id === ev.id && c.runId === runId);
          return {
            ...settled,
            calls: exists ? settled.calls.map((c) => (c.id === ev.id && c.runId === runId ? row : c)) : [...settled.calls, row],
          };
        }
        case "tool_result": {
          const known = base.calls.some((c) => c.id === ev.id && c.runId === runId);
          const calls = known
            ? base.calls.map((c) => (c.id === ev.id && c.runId === runId ? finishedCall(c, ev.result, ev.duration_ms) : c))
            : [...base.calls, finishedCall(startedCall(runId, ev.id, ev.name, {}), ev.result, ev.duration_ms)];
          return { ...base, calls };
        }
        case "confirmation_request":
          return addConfirmation(base, ev.request);
        case "challenge":
          return base;
        case "resumed":
          return base;
        case "final":
          return settleAnswer(base, runId, ev.text);
        case "error": {
          const stopped = stopStreaming(base, runId);
          if (ev.code === "cancelled") return push(stopped, { role: "notice", text: "", runId, streaming: false });
          // No model: the chat says so in its own words and offers the set-up (chat-view.ts).
          if (ev.code === "model_unavailable") return push(stopped, { role: "error", text: ev.message, code: ev.code, runId, streaming: false });
          return push(stopped, { role: "error", text: `${ev.message} (${ev.code})`, runId, streaming: false });
        }
      }
      return base;
    }
    case "run_ended": {
      if (state.otherRuns.includes(event.run_id)) {
        return { ...state, otherRuns: state.otherRuns.filter((r) => r !== event.run_id) };
      }
      let next: PanelState = {
        ...state,
        running: state.runId === event.run_id || state.runId === null ? false : state.running,
        conversationId: state.conversationId ?? event.conversation_id,
      };
      if (event.answer !== null && event.status === "completed") next = settleAnswer(next, event.run_id, event.answer);
      else next = stopStreaming(next, event.run_id);
      // Calls still running when the run ended never finished.
      const code: ErrorCode = event.status === "cancelled" ? "cancelled" : "internal";
      const calls = next.calls.map((c) =>
        c.runId === event.run_id && c.status === "running" ? { ...c, status: "error" as const, error: { code, message: event.stop_reason } } : c,
      );
      return { ...next, calls };
    }
    case "confirmation_waiting":
      return addConfirmation(state, event.request);
    case "confirmation_closed":
      return { ...state, confirmations: state.confirmations.filter((c) => c.id !== event.id) };
    case "challenge_waiting": {
      // The hand-off step says what it waits for and where ("Waiting for
      // you to solve the CAPTCHA on shop.vn"): its page is the question's.
      const runId = event.request.run_id;
      const calls = state.calls.map((c) =>
        c.runId === runId && c.status === "running" && c.tool === "human_solve_challenge" ? { ...c, currentUrl: event.request.url } : c,
      );
      return {
        ...state,
        calls,
        challenges: [...state.challenges.filter((c) => c.id !== event.id), { id: event.id, request: event.request }],
      };
    }
    case "challenge_closed":
      return { ...state, challenges: state.challenges.filter((c) => c.id !== event.id) };
    case "paused":
      return { ...state, paused: event.paused };
    case "tools_changed":
      return state;
  }
  return state;
}

function addConfirmation(state: PanelState, request: ConfirmationRequest): PanelState {
  if (state.confirmations.some((c) => c.id === request.id)) return state;
  // The step asking: the run's latest running call of that tool keeps what
  // the question named, for its sentence (a declined call has no result).
  let at = -1;
  state.calls.forEach((c, i) => {
    if (c.runId === request.run_id && c.tool === request.tool && c.status === "running") at = i;
  });
  const calls =
    at < 0 ? state.calls : state.calls.map((c, i) => (i === at ? { ...c, asked: { target: request.target, site: request.site } } : c));
  return { ...state, calls, confirmations: [...state.confirmations, request] };
}

function chatRole(role: Role): MessageRole {
  return role === "user" || role === "assistant" || role === "tool" ? role : "notice";
}

/** The next state after `action`. Never mutates `state`. */
export function reduce(state: PanelState, action: Action): PanelState {
  switch (action.kind) {
    case "event":
      return applyEvent(state, action.event);
    case "sent":
      return { ...push(state, { role: "user", text: action.text, runId: null, streaming: false }), running: true };
    case "send_failed":
      return {
        ...push(state, { role: "error", text: action.message, runId: null, streaming: false, ...(action.code !== undefined ? { code: action.code } : {}) }),
        running: false,
      };
    case "failed":
      // Something the user did beside the run (a link not opened): said, the run goes on.
      return push(state, { role: "error", text: action.message, runId: null, streaming: false });
    case "run_started": {
      // The user's message belongs to this run.
      const messages = state.messages.map((m, i) =>
        i === state.messages.length - 1 && m.role === "user" && m.runId === null ? { ...m, runId: action.runId } : m,
      );
      return { ...state, messages, runId: action.runId, conversationId: action.conversationId, running: true };
    }
    case "new_conversation":
      return { ...initialState, paused: state.paused, seq: state.seq };
    case "conversation_opened": {
      let next: PanelState = {
        ...initialState,
        paused: state.paused,
        seq: state.seq,
        conversationId: action.id,
        title: action.title,
      };
      for (const m of action.messages) {
        // As it was seen live: the user's messages and the answers; a
        // tool's result is shown inside its step (the timeline), never as
        // a message with its fence and envelope.
        if (m.content === null || m.content === "" || m.role === "tool" || m.role === "system") continue;
        const item: Omit<ChatItem, "key"> = { role: chatRole(m.role), text: m.content, runId: m.run_id, streaming: false };
        if (m.tool_name !== null) item.toolName = m.tool_name;
        next = push(next, item);
      }
      const last = [...action.messages].reverse().find((m) => m.run_id !== null);
      return { ...next, runId: last?.run_id ?? null };
    }
    case "savable":
      return { ...state, savable: { ...state.savable, [action.runId]: action.savable } };
    case "timeline_loaded": {
      const others = state.calls.filter((c) => c.runId !== action.runId);
      return { ...state, calls: [...others, ...action.calls.map((c) => storedCall(action.runId, c))] };
    }
  }
  return state;
}

/** The distinct run ids of a conversation's messages, in order (to load their timelines). */
export function runIds(messages: readonly ChatMessage[]): string[] {
  const ids: string[] = [];
  for (const m of messages) if (m.run_id !== null && !ids.includes(m.run_id)) ids.push(m.run_id);
  return ids;
}
