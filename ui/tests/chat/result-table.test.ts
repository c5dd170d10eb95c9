import { describe, expect, it } from "vitest";
import { cellText, resultView } from "../../src/chat/result-table";

describe("a structured result as tables", () => {
  it("shows a comparison as a table and the rest as fields", () => {
    const view = resultView({
      comparison_table: [
        { source: "Shop A", total: { amount: 21490000, currency: "VND" }, warranty_months: 24 },
        { source: "Shop B", total: { amount: 899.5, currency: "USD" }, return_days: 30 },
      ],
      recommendation: { choice: "Shop A", reason: "Rẻ nhất sau phí vận chuyển" },
      status: "ok",
    });
    expect(view).not.toBeNull();
    expect(view!.tables).toEqual([
      {
        name: "comparison_table",
        columns: ["source", "total", "warranty_months", "return_days"],
        rows: [
          ["Shop A", "21.490.000 VND", "24", ""],
          ["Shop B", "899.5 USD", "", "30"],
        ],
      },
    ]);
    expect(view!.fields).toEqual([
      ["recommendation.choice", "Shop A"],
      ["recommendation.reason", "Rẻ nhất sau phí vận chuyển"],
      ["status", "ok"],
    ]);
  });

  it("finds the days of an itinerary nested in an object", () => {
    const view = resultView({ itinerary: { days: [{ date: "2026-02-10", plan: ["Bay HAN→NRT", "Check-in"] }] }, plan_score: 0.8 });
    expect(view!.tables.map((t) => [t.name, t.rows])).toEqual([["itinerary.days", [["2026-02-10", "Bay HAN→NRT, Check-in"]]]]);
  });

  it("leaves results without a list to the raw JSON", () => {
    expect(resultView({ status: "ok", watch_id: "w1" })).toBeNull();
    expect(resultView([1, 2])).toBeNull();
    expect(resultView({ options: [] })).toBeNull();
  });

  it("writes a field read with its confidence and nested values compactly", () => {
    expect(cellText({ value: "16 GB", confidence: 0.92 })).toBe("16 GB (92%)");
    expect(cellText({ a: { b: 1 } })).toBe('{"a":{"b":1}}');
    expect(cellText(null)).toBe("");
  });
});
