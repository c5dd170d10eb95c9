import { describe, expect, it } from "vitest";
import { filterTools, groupByKind, matches, normalise, scopeClass, scopeLevel, searchWords } from "../../src/palette/catalogue";
import type { ToolSpec } from "../../src/protocol";
import { toolSpec } from "../fixtures";

const tool = toolSpec;

const TOOLS: ToolSpec[] = [
  tool({ name: "navigate", description: "Open a URL in the managed browser", status: "planned", needs: "the browser" }),
  tool({ name: "normalize_compare", description: "Normalise prices and compare offers", kind: "skill" }),
  tool({ name: "click", description: "Click an element", permission_scope: "WRITE_NON_DESTRUCTIVE", risk_level: "medium" }),
  tool({ name: "book_trip", description: "Đặt vé máy bay", kind: "skill", permission_scope: "PAYMENT", risk_level: "high", requires_confirmation: true, status: "planned" }),
  tool({ name: "my_hook", description: "Registered by a client", kind: "custom", executor: "client" }),
];

const names = (tools: ToolSpec[]): string[] => tools.map((t) => t.name);

describe("normalise", () => {
  it("drops diacritics, case and underscores", () => {
    expect(normalise("  Đặt_VÉ   máy bay ")).toBe("dat ve may bay");
  });
});

describe("filterTools", () => {
  it("returns everything for an empty query", () => {
    expect(names(filterTools(TOOLS, "   "))).toEqual(names(TOOLS));
  });

  it("matches every word against name, description, scope, kind and needs", () => {
    expect(names(filterTools(TOOLS, "compare"))).toEqual(["normalize_compare"]);
    expect(names(filterTools(TOOLS, "normalize compare"))).toEqual(["normalize_compare"]);
    expect(names(filterTools(TOOLS, "payment"))).toEqual(["book_trip"]);
    expect(names(filterTools(TOOLS, "skill"))).toEqual(["normalize_compare", "book_trip"]);
    expect(names(filterTools(TOOLS, "browser"))).toEqual(["navigate"]);
    expect(names(filterTools(TOOLS, "click nothing-like-this"))).toEqual([]);
  });

  it("ignores Vietnamese diacritics in query and text", () => {
    expect(names(filterTools(TOOLS, "dat ve"))).toEqual(["book_trip"]);
    expect(names(filterTools(TOOLS, "ĐẶT"))).toEqual(["book_trip"]);
  });

  it("filters by status", () => {
    expect(names(filterTools(TOOLS, "", "planned"))).toEqual(["navigate", "book_trip"]);
    expect(names(filterTools(TOOLS, "", "available"))).toEqual(["normalize_compare", "click", "my_hook"]);
    expect(names(filterTools(TOOLS, "skill", "available"))).toEqual(["normalize_compare"]);
  });

  it("matches() agrees with filterTools", () => {
    expect(matches(TOOLS[0] as ToolSpec, "URL")).toBe(true);
  });
});

describe("groupByKind", () => {
  it("orders primitive, skill, custom and keeps catalogue order inside a group", () => {
    expect(groupByKind(TOOLS).map((g) => [g.kind, names(g.tools)])).toEqual([
      ["primitive", ["navigate", "click"]],
      ["skill", ["normalize_compare", "book_trip"]],
      ["custom", ["my_hook"]],
    ]);
  });

  it("leaves out empty groups", () => {
    expect(groupByKind(filterTools(TOOLS, "click")).map((g) => g.kind)).toEqual(["primitive"]);
    expect(groupByKind([])).toEqual([]);
  });
});

describe("scopes", () => {
  it("rank from read-only to destructive and map to CSS classes", () => {
    expect(scopeLevel("READ_ONLY")).toBe(0);
    expect(scopeLevel("DESTRUCTIVE")).toBe(5);
    expect(scopeClass("WRITE_NON_DESTRUCTIVE")).toBe("scope-write-non-destructive");
  });
});

describe("the search in both languages (#43 item 5)", () => {
  it("finds a skill by its Vietnamese words in any UI and by its English ones", () => {
    const track = tool({ name: "shopping_track_price", description: "Create a price watch", kind: "skill" });
    const list = [track, ...TOOLS];
    expect(names(filterTools(list, "giá", "all", searchWords))).toContain("shopping_track_price");
    expect(names(filterTools(list, "theo doi gia", "all", searchWords))).toContain("shopping_track_price");
    expect(names(filterTools(list, "track a price", "all", searchWords))).toContain("shopping_track_price");
    expect(names(filterTools(list, "giá", "all"))).not.toContain("shopping_track_price");
  });
});
