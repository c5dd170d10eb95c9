// Development only (`npm run dev`, then open /?demo or /confirm.html?demo):
// a scripted backend that plays a sample run, so the panel can be looked at
// without the desktop app. Never part of the production build (main.ts and
// the dialog pages load it behind `import.meta.env.DEV`).

import { encodeBase64Url } from "./dialogs/confirm";
import { offlineBackend, setBackend, type Backend } from "./ipc";
import { UNKNOWN_STATUS } from "./models/models";
import type { ConfirmationRequest, Event, Reply } from "./protocol";

// A 1x1 PNG: the screenshot of the sample run.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export const DEMO_CONFIRMATION: ConfirmationRequest = {
  id: "demo-c1",
  tool: "browser_click",
  action_summary: "Đặt hàng trên tiki.vn: Laptop ASUS Vivobook 14",
  fields: [
    { name: "name", label: "Họ tên", value: "Nguyễn Văn An", masked: false },
    { name: "phone", label: "Số điện thoại", value: "••••5678", masked: true },
    { name: "address", label: "Địa chỉ", value: "12 Lý Thường Kiệt, Hoàn Kiếm, Hà Nội", masked: false },
  ],
  destination: "https://tiki.vn/checkout/payment",
  url: "https://tiki.vn/checkout",
  origin: "https://tiki.vn",
  page_total: "21.490.000 ₫",
  risks: ['clicking "Đặt hàng" (button) — "đặt hàng" means place order: PAYMENT'],
  grading: [
    {
      kind: "says",
      act: "click",
      control: { label: "Đặt hàng", role: "button" },
      place: "label",
      place_text: null,
      phrase: "đặt hàng",
      means: { kind: "scope", meaning: "place order" },
      scope: "PAYMENT",
    },
  ],
  method: "POST",
  scope: "PAYMENT",
  risk_level: "high",
  expires_at: new Date(Date.now() + 185_000).toISOString(),
  run_id: null,
  kind: "pay",
  amount: { value: 21_490_000, currency: "VND", source: "page", parts: null },
  site: "tiki.vn",
  target: "Đặt hàng",
  plain: [{ kind: "payment" }, { kind: "personal_data", what: ["Số điện thoại"] }],
};

export function demoRequestParam(): string {
  return encodeBase64Url(JSON.stringify(DEMO_CONFIRMATION));
}

export function installDemo(): void {
  let emit: (e: Event) => void = () => {};
  const play = (events: Event[], gap = 250): void => {
    events.forEach((e, i) => window.setTimeout(() => emit(e), gap * (i + 1)));
  };
  const backend: Backend = {
    ...offlineBackend,
    connected: true,
    async op(op): Promise<Reply> {
      switch (op.type) {
        case "send_message": {
          const r = "demo-run-1";
          const a = (event: Extract<Event, { type: "agent" }>["event"]): Event => ({ type: "agent", run_id: r, event });
          play([
            a({ type: "tool_call", id: "t1", name: "browser_navigate", arguments: { url: "https://tiki.vn/search?q=laptop+14+inch" }, reasoning: "Mở trang tìm kiếm laptop trên Tiki" }),
            a({ type: "tool_result", id: "t1", name: "browser_navigate", duration_ms: 1840, result: { status: "ok", trace_id: "x", permission_scope: "WRITE_NON_DESTRUCTIVE", risk_level: "low", current_url: "https://tiki.vn/search?q=laptop", artifacts: [], data: {}, error: null } }),
            a({ type: "tool_call", id: "t2", name: "browser_screenshot", arguments: { selector: ".product-list" } }),
            a({ type: "tool_result", id: "t2", name: "browser_screenshot", duration_ms: 420, result: { status: "ok", trace_id: "x", permission_scope: "READ_ONLY", risk_level: "low", current_url: null, artifacts: [{ type: "screenshot", ref: "file:///demo.png" }], data: {}, error: null } }),
            a({ type: "tool_call", id: "t3", name: "browser_click", arguments: { ref: "e42", _reasoningForCall: "Bấm “Mua ngay”" } }),
            a({ type: "tool_result", id: "t3", name: "browser_click", duration_ms: 12030, result: { status: "error", trace_id: "x", permission_scope: "PAYMENT", risk_level: "high", current_url: null, artifacts: [], data: {}, error: { code: "denied", message: "The user refused the action" } } }),
            ...["Laptop ", "ASUS Vivobook 14 ", "giá ", "21.490.000 ₫ ", "trên Tiki."].map((text) => a({ type: "token", text })),
          ]);
          return { type: "run_started", run_id: r, conversation_id: "demo-conv" };
        }
        case "check_model":
          return { type: "model_status", status: { ...UNKNOWN_STATUS, base_url: "http://127.0.0.1:11434/v1", message: "Connection refused: is Ollama running?" } };
        case "get_settings":
        case "save_settings":
          return { type: "settings", settings: { preset: "ollama", base_url: "http://127.0.0.1:11434/v1", model: null, chromium: null, language: null, autostart: false, search: { order: [], searxng_url: null, duckduckgo_url: null, brave_url: null } }, api_key_saved: true, search_key_saved: false };
        case "list_rules":
          return { type: "rules", rules: [{ id: "r1", kind: "site", site: "https://tiki.vn", tool: null, min_scope: null, decision: "ask", note: "", created_at: new Date().toISOString() }] };
        case "list_conversations":
          return { type: "conversations", conversations: [{ id: "demo-conv", title: "Laptop 14 inch dưới 20 triệu", updated_at: new Date().toISOString() }] };
        case "read_artifact":
          return { type: "artifact", mime: "image/png", data: PNG };
        case "list_tools":
          return { type: "tools", tools: [] };
        default:
          return { type: "done" };
      }
    },
    async onEvent(handler) {
      emit = handler;
      return () => {};
    },
  };
  setBackend(backend);
}

/** `?demo=run`: type a message and send it, to see a run play. */
export function autoSend(): void {
  if (new URLSearchParams(location.search).get("demo") !== "run") return;
  window.setTimeout(() => {
    const composer = document.querySelector<HTMLTextAreaElement>("#composer");
    if (!composer) return;
    composer.value = "Tìm laptop 14 inch dưới 22 triệu trên Tiki";
    document.querySelector<HTMLButtonElement>("#send")?.click();
  }, 300);
}
