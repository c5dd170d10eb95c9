import { describe, expect, it } from "vitest";
import { compareTabs, currentPage, dropMention, matchTabs, mentionAt, readTabs, summariseTabs, tabLabel, type OpenTab } from "../../src/chat/tabs";

const TABS: OpenTab[] = readTabs({
  tabs: [
    { id: "tab-1", title: "Laptop ABC | TechZone", url: "http://127.0.0.1:8080/laptop-abc.html", current: false },
    { id: "tab-2", title: "", url: "about:blank", current: false },
    { id: "tab-3", title: "Điện thoại Xiaomi – Tiki", url: "https://tiki.vn/dien-thoai", current: true },
    { id: 7, title: "bad id", url: "https://x.vn", current: false },
    { id: "tab-4", title: "Cửa hàng", url: "https://shop.vn/a", current: false },
  ],
});

describe("the open tabs", () => {
  it("reads browser_list_tabs and leaves out what is not a tab", () => {
    expect(TABS.map((t) => t.id)).toEqual(["tab-1", "tab-2", "tab-3", "tab-4"]);
    expect(readTabs(null)).toEqual([]);
    expect(readTabs({ tabs: "x" })).toEqual([]);
    expect(currentPage(TABS)?.id).toBe("tab-3");
    expect(currentPage(readTabs({ tabs: [{ id: "tab-2", title: "", url: "about:blank", current: true }] }))).toBeNull();
    expect(tabLabel(TABS[1]!)).toBe("about:blank");
    expect(tabLabel({ id: "t", title: "", url: "https://tiki.vn/x", current: false })).toBe("tiki.vn");
  });

  it("finds the @mention being typed at the caret, and takes it out once picked", () => {
    expect(mentionAt("So sánh @lap", 12)).toEqual({ start: 8, query: "lap" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail me@home", 12)).toBeNull();
    expect(mentionAt("@tab and more", 13)).toBeNull();
    expect(dropMention("So sánh @lap với", 8, 12)).toEqual({ text: "So sánh với", caret: 8 });
  });

  it("matches tabs on their title and host, accents aside; @tab lists every page", () => {
    expect(matchTabs(TABS, "tab").map((t) => t.id)).toEqual(["tab-1", "tab-3", "tab-4"]);
    expect(matchTabs(TABS, "").map((t) => t.id)).toEqual(["tab-1", "tab-3", "tab-4"]);
    expect(matchTabs(TABS, "dien").map((t) => t.id)).toEqual(["tab-3"]);
    expect(matchTabs(TABS, "cua hang").map((t) => t.id)).toEqual(["tab-4"]);
    expect(matchTabs(TABS, "tiki laptop").map((t) => t.id)).toEqual([]);
    expect(matchTabs(TABS, "cửa").map((t) => t.id)).toEqual(["tab-4"]);
    expect(matchTabs(TABS, "127.0.0.1").map((t) => t.id)).toEqual(["tab-1"]);
  });

  it("knows which tabs a one-click start is about", () => {
    expect(summariseTabs([], TABS)).toEqual(["tab-3"]);
    expect(summariseTabs(["tab-1"], TABS)).toEqual(["tab-1"]);
    expect(compareTabs([], TABS)).toEqual(["tab-1", "tab-3", "tab-4"]);
    expect(compareTabs(["tab-4", "tab-1"], TABS)).toEqual(["tab-4", "tab-1"]);
    expect(compareTabs(["tab-4"], TABS)).toEqual(["tab-1", "tab-3", "tab-4"]);
    const many = readTabs({ tabs: Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, title: "", url: `https://a.vn/${i}`, current: false })) });
    expect(compareTabs([], many)).toHaveLength(8);
  });
});
