import { describe, expect, it } from "vitest";
import { SEARCH_ORDERS, orderLabel, orderValue, parseOrder } from "../../src/settings/search";

describe("search settings", () => {
  it("maps orders both ways", () => {
    expect(orderValue(["searxng", "duckduckgo"])).toBe("searxng,duckduckgo");
    expect(parseOrder("searxng,duckduckgo")).toEqual(["searxng", "duckduckgo"]);
    expect(parseOrder("")).toEqual([]);
    expect(parseOrder("google,brave")).toEqual(["brave"]);
    for (const v of SEARCH_ORDERS) expect(orderValue(parseOrder(v))).toBe(v);
  });

  it("labels orders in the user's words", () => {
    expect(orderLabel("", "Automatic")).toBe("Automatic");
    expect(orderLabel("brave,duckduckgo", "Automatic")).toBe("Brave Search → DuckDuckGo");
  });
});
