// Shared test data: events and results shaped as the core serialises them.
import type { ConfirmationRequest, Event, ToolResultV2, ToolSpec } from "../src/protocol";

export function result(over: Partial<ToolResultV2> = {}): ToolResultV2 {
  return {
    status: "ok",
    trace_id: "00000000-0000-0000-0000-000000000001",
    permission_scope: "READ_ONLY",
    risk_level: "low",
    current_url: "https://tiki.vn/laptop",
    artifacts: [],
    data: {},
    error: null,
    ...over,
  };
}

export const agent = (run_id: string, event: Extract<Event, { type: "agent" }>["event"]): Event => ({ type: "agent", run_id, event });

export function confirmation(over: Partial<ConfirmationRequest> = {}): ConfirmationRequest {
  return {
    id: "c1",
    tool: "browser_click",
    action_summary: "Đặt hàng trên tiki.vn: Laptop ASUS Vivobook 14",
    fields: [
      { name: "name", label: "Họ tên", value: "Nguyễn Văn An", masked: false },
      { name: "card", label: "Số thẻ", value: "••••4242", masked: true },
    ],
    destination: "https://tiki.vn/checkout",
    url: "https://tiki.vn/checkout",
    origin: "https://tiki.vn",
    page_total: "21.490.000 ₫",
    risks: ["PAYMENT: needs your confirmation because it costs money"],
    grading: [{ kind: "scope_asks", scope: "PAYMENT" }],
    method: "POST",
    scope: "PAYMENT",
    risk_level: "high",
    expires_at: "2030-01-01T00:05:00Z",
    run_id: null,
    kind: "pay",
    amount: { value: 21_490_000, currency: "VND", source: "page", parts: null },
    site: "tiki.vn",
    target: "Đặt hàng",
    plain: [{ kind: "payment" }, { kind: "personal_data", what: ["Số thẻ"] }],
    ...over,
  };
}

/** A tool's spec with the catalogue's defaults: a read-only built-in primitive. */
export function toolSpec(over: Partial<ToolSpec> & Pick<ToolSpec, "name">): ToolSpec {
  return {
    description: "",
    kind: "primitive",
    executor: "builtin",
    status: "available",
    permission_scope: "READ_ONLY",
    risk_level: "low",
    requires_confirmation: false,
    parameters: {},
    output_schema: {},
    page_content: false,
    edits_memory: false,
    asks_user: false,
    ...over,
  };
}
