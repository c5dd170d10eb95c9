import { describe, expect, it } from "vitest";
import { translator } from "../../src/i18n";
import {
  chartPoints,
  chartRange,
  chartY,
  parseAmount,
  targetPrice,
  createArgs,
  editArgs,
  editForm,
  formatMoney,
  fromLocalInput,
  linePath,
  readHistory,
  readWatches,
  ruleText,
  toLocalInput,
  watchName,
  type Observation,
  type WatchInfo,
} from "../../src/watches/watches";

// Intl separates the amount from its symbol with a no-break space.
const plain = (s: string): string => s.replace(/\u00a0/g, " ");

describe("formatMoney", () => {
  it("writes VND the Vietnamese way in both languages", () => {
    expect(plain(formatMoney(21_490_000, "VND", "vi"))).toBe("21.490.000 ₫");
    expect(plain(formatMoney(21_490_000, "VND", "en"))).toBe("21.490.000 ₫");
    expect(plain(formatMoney(490_000, "vnd", "en"))).toBe("490.000 ₫");
  });

  it("writes other currencies in the panel's language, and a bare amount without one", () => {
    expect(formatMoney(1299.99, "USD", "en")).toBe("$1,299.99");
    expect(plain(formatMoney(1299.99, "USD", "vi"))).toBe("1.299,99 US$");
    expect(formatMoney(1500, null, "en")).toBe("1.500");
    expect(formatMoney(5, "???", "en")).toBe("5 ???");
  });
});

const listData = {
  watches: [
    {
      watch_id: "w1",
      label: "",
      url: "https://shop.vn/laptop",
      status: "paused",
      health: "degraded",
      last_error: "2 products on the page",
      last_checked_at: "2026-11-24T10:00:00Z",
      next_check_at: "2026-11-24T16:00:00Z",
      price: 21490000,
      currency: "VND",
      in_stock: true,
      frequency: "6h",
      trigger_rules: [{ op: "<=", value: "19.990.000 ₫" }, { op: "drop_pct", value: 10 }, { op: "bogus" }, 7],
    },
    { label: "no id" },
    "junk",
  ],
  unread_alerts: 1,
};

describe("readWatches", () => {
  it("reads watch_list's data and skips what is malformed", () => {
    const [w, ...rest] = readWatches(listData);
    expect(rest).toEqual([]);
    expect(w).toMatchObject({ watch_id: "w1", status: "paused", health: "degraded", price: 21490000, currency: "VND", in_stock: true });
    expect(w?.trigger_rules).toEqual([
      { op: "<=", value: "19.990.000 ₫", field: null, against: null },
      { op: "drop_pct", value: 10, field: null, against: null },
      { op: "bogus", value: null, field: null, against: null },
    ]);
    expect(w && watchName(w)).toBe("https://shop.vn/laptop");
    // Made from the chat with no label: named as its alerts name it (#43 item 8).
    const [named] = readWatches({ watches: [{ watch_id: "w2", label: "", name: "Tai nghe W7", url: "https://shop.vn/w7", trigger_rules: [] }] });
    expect(named && watchName(named)).toBe("Tai nghe W7");
    const [labelled] = readWatches({ watches: [{ watch_id: "w3", label: "Của mẹ", name: "Tai nghe W7", url: "https://shop.vn/w7", trigger_rules: [] }] });
    expect(labelled && watchName(labelled)).toBe("Của mẹ");
    expect(readWatches(null)).toEqual([]);
    expect(readWatches({ watches: "no" })).toEqual([]);
  });
});

describe("ruleText", () => {
  const en = translator("en");
  const vi = translator("vi");
  it("says each rule in words, prices as money", () => {
    expect(ruleText({ op: "<=", value: "19.990.000 ₫" }, en, "en", "VND")).toBe("price ≤ 19.990.000 ₫");
    expect(plain(ruleText({ op: "<", value: 19990000 }, vi, "vi", "VND"))).toBe("giá < 19.990.000 ₫");
    expect(ruleText({ op: "drop_pct", value: 10 }, en, "en", null)).toBe("price drops by 10 % or more");
    expect(ruleText({ op: "drop_pct", value: 9.8 }, vi, "vi", null)).toBe("giá giảm từ 9,8 % trở lên");
    expect(ruleText({ op: "drop_pct", value: 9.8 }, en, "en", null)).toBe("price drops by 9.8 % or more");
    expect(ruleText({ op: "changed", field: "status" }, vi, "vi", null)).toBe("status thay đổi");
    expect(ruleText({ op: "back_in_stock" }, en, "en", null)).toBe("back in stock");
    expect(ruleText({ op: "all_time_low" }, vi, "vi", null)).toBe("giá thấp nhất từ trước tới nay");
    expect(ruleText({ op: "==", field: "gate", value: "B12" }, en, "en", null)).toBe("gate = B12");
  });
});

describe("the price-history chart", () => {
  const history: Observation[] = [
    { checked_at: "t1", price: 21_490_000, currency: "VND" },
    { checked_at: "t2", price: null, currency: null },
    { checked_at: "t3", price: 18_990_000, currency: "VND" },
    { checked_at: "t4", price: 19_990_000, currency: "VND" },
  ];

  it("has one point per check that read a price, oldest left, lowest at the bottom", () => {
    const points = chartPoints(history, { width: 100, height: 50, pad: 5 });
    expect(points.map((p) => [p.x, p.y, p.at])).toEqual([
      [5, 5, "t1"],
      [50, 45, "t3"],
      [95, 29, "t4"],
    ]);
    expect(linePath(points)).toBe("M5 5 L50 45 L95 29");
  });

  it("draws one check in the middle, a flat history across the middle, none as nothing", () => {
    const one = chartPoints([history[0] as Observation], { width: 100, height: 50, pad: 5 });
    expect(one.map((p) => [p.x, p.y])).toEqual([[50, 25]]);
    const flat = chartPoints(
      [
        { checked_at: "a", price: 5, currency: null },
        { checked_at: "b", price: 5, currency: null },
      ],
      { width: 100, height: 50, pad: 5 },
    );
    expect(flat.map((p) => p.y)).toEqual([25, 25]);
    expect(chartPoints([])).toEqual([]);
    expect(linePath([])).toBe("");
  });

  it("reads watch_history newest first and gives it oldest first", () => {
    const data = { observations: [{ checked_at: "new", price: 2 }, { checked_at: "old", price: 1, currency: "VND" }, { nope: 1 }] };
    expect(readHistory(data)).toEqual([
      { checked_at: "old", price: 1, currency: "VND", fired: false },
      { checked_at: "new", price: 2, currency: null, fired: false },
    ]);
  });
});

describe("createArgs", () => {
  it("sends the target price as typed: the core parses it", () => {
    expect(createArgs({ url: " https://shop.vn/p ", label: " Laptop ", below: "19.990.000 ₫", frequency: "30m" })).toEqual({
      ok: true,
      args: { target: { url: "https://shop.vn/p" }, trigger_rules: [{ op: "<=", value: "19.990.000 ₫" }], frequency: "30m", label: "Laptop" },
    });
    const bare = createArgs({ url: "http://x.vn", label: "", below: "$499", frequency: "weird" });
    expect(bare).toEqual({ ok: true, args: { target: { url: "http://x.vn" }, trigger_rules: [{ op: "<=", value: "$499" }], frequency: "6h" } });
  });

  it("says what is missing", () => {
    expect(createArgs({ url: "shop.vn", label: "", below: "1", frequency: "1h" })).toEqual({ ok: false, error: "watchNeedsUrl" });
    expect(createArgs({ url: "https://shop.vn", label: "", below: " ", frequency: "1h" })).toEqual({ ok: false, error: "watchNeedsTarget" });
    expect(createArgs({ url: "https://shop.vn", label: "", below: "cheap", frequency: "1h" })).toEqual({ ok: false, error: "watchNeedsTarget" });
  });
});

describe("the edit form", () => {
  const watch: WatchInfo = {
    watch_id: "w9",
    label: "Laptop",
    name: null,
    url: "https://shop.vn/laptop",
    status: "active",
    health: "ok",
    last_error: null,
    last_checked_at: null,
    next_check_at: "2026-11-24T16:00:00Z",
    price: 21_490_000,
    currency: "VND",
    in_stock: true,
    frequency: "6h",
    cooldown: "1h",
    trigger_rules: [
      { op: "<=", value: 19_990_000, field: null, against: null },
      { op: "drop_pct", value: 10, field: null, against: "last_alert" },
    ],
    window: null,
  };

  it("starts from the watch as it is, the target written as money", () => {
    expect(editForm(watch, "vi")).toEqual({ label: "Laptop", below: "19.990.000 ₫", frequency: "6h", start: "", end: "", cooldown: "1h" });
    expect(editArgs(watch, editForm(watch, "en"), "en")).toEqual({ ok: false, error: "watchEditNothing" });
  });

  it("sends only what changed; a new target replaces the at-or-below rule and keeps the others", () => {
    const form = { ...editForm(watch, "vi"), label: " Laptop học ", below: "18.490.000 ₫", frequency: "1h" };
    expect(editArgs(watch, form, "vi")).toEqual({
      ok: true,
      args: {
        watch_id: "w9",
        label: "Laptop học",
        trigger_rules: [{ op: "<=", value: "18.490.000 ₫" }, { op: "drop_pct", value: 10, against: "last_alert" }],
        frequency: "1h",
      },
    });
  });

  it("adds a target to a watch without one, removes an emptied one, never leaves no rule", () => {
    const fields: WatchInfo = { ...watch, trigger_rules: [{ op: "changed", field: "status" }] };
    expect(editArgs(fields, { ...editForm(fields, "en"), below: "$499" }, "en")).toMatchObject({
      ok: true,
      args: { trigger_rules: [{ op: "<=", value: "$499" }, { op: "changed", field: "status" }] },
    });
    expect(editArgs(watch, { ...editForm(watch, "en"), below: "" }, "en")).toMatchObject({
      ok: true,
      args: { trigger_rules: [{ op: "drop_pct", value: 10, against: "last_alert" }] },
    });
    const only: WatchInfo = { ...watch, trigger_rules: [watch.trigger_rules[0]!] };
    expect(editArgs(only, { ...editForm(only, "en"), below: "" }, "en")).toEqual({ ok: false, error: "watchNeedsRule" });
    expect(editArgs(watch, { ...editForm(watch, "en"), below: "cheap" }, "en")).toEqual({ ok: false, error: "watchNeedsTarget" });
  });

  it("sets, changes and clears the time window in the user's time zone", () => {
    const start = "2026-12-01T08:30";
    const set = editArgs(watch, { ...editForm(watch, "en"), start }, "en");
    expect(set).toEqual({ ok: true, args: { watch_id: "w9", window: { start: new Date(start).toISOString() } } });
    const windowed: WatchInfo = { ...watch, window: { start: new Date(start).toISOString(), end: null } };
    expect(editForm(windowed, "en").start).toBe(start);
    expect(editArgs(windowed, { ...editForm(windowed, "en"), start: "" }, "en")).toEqual({ ok: true, args: { watch_id: "w9", window: {} } });
    expect(editArgs(watch, { ...editForm(watch, "en"), end: "soon" }, "en")).toEqual({ ok: false, error: "watchBadTime" });
    expect(toLocalInput(fromLocalInput(start))).toBe(start);
    expect(fromLocalInput("")).toBeNull();
    expect(toLocalInput("not a time")).toBe("");
  });
});

describe("the chart's axes, target and alerts", () => {
  const history: Observation[] = [
    { checked_at: "2026-11-20T08:00:00Z", price: 21_490_000, currency: "VND", fired: false },
    { checked_at: "2026-11-22T08:00:00Z", price: 20_990_000, currency: "VND", fired: false },
    { checked_at: "2026-11-24T08:00:00Z", price: 19_490_000, currency: "VND", fired: true },
  ];

  it("spans the target too, so its line is inside the plot", () => {
    expect(chartRange(history, 18_000_000)).toEqual({ lo: 18_000_000, hi: 21_490_000 });
    expect(chartRange(history, null)).toEqual({ lo: 19_490_000, hi: 21_490_000 });
    expect(chartRange([], 1)).toBeNull();
    const box = { width: 100, height: 50, pad: 5 };
    const points = chartPoints(history, box, 18_000_000);
    expect(points.map((p) => p.y)).toEqual([5, 10.7, 27.9]);
    expect(chartY(18_000_000, { lo: 18_000_000, hi: 21_490_000 }, box)).toBe(45);
    expect(points.map((p) => p.fired)).toEqual([false, false, true]);
  });

  it("leaves room for the price labels on the left and the dates underneath", () => {
    const points = chartPoints(history, { width: 200, height: 100, pad: 10, left: 60, bottom: 20 });
    expect(points.map((p) => [p.x, p.y])).toEqual([
      [60, 10],
      [125, 27.5],
      [190, 80],
    ]);
  });

  it("reads the target from the at-or-below rule, a number only", () => {
    const w = readWatches({ watches: [{ watch_id: "a", trigger_rules: [{ op: "<=", value: 19_990_000 }], cooldown: "1h" }] })[0];
    expect(w && targetPrice(w)).toBe(19_990_000);
    expect(w?.cooldown).toBe("1h");
    const typed = readWatches({ watches: [{ watch_id: "b", trigger_rules: [{ op: "<=", value: "19.990.000 ₫" }] }] })[0];
    expect(typed && targetPrice(typed)).toBe(19_990_000);
    const words = readWatches({ watches: [{ watch_id: "c", trigger_rules: [{ op: "<=", value: "cheap" }, { op: "drop_pct", value: 10 }] }] })[0];
    expect(words && targetPrice(words)).toBeNull();
    expect([parseAmount("19990000"), parseAmount("$1,299.99"), parseAmount("499"), parseAmount("21,490,000 VND"), parseAmount("—")]).toEqual([
      19_990_000, 1299.99, 499, 21_490_000, null,
    ]);
    expect(readHistory({ observations: [{ checked_at: "x", price: 1, fired_rules: ["<= 2"] }] })[0]?.fired).toBe(true);
  });
});

describe("the cooldown in the edit form", () => {
  const watch = readWatches({ watches: [{ watch_id: "c1", label: "L", frequency: "6h", cooldown: "1h", trigger_rules: [{ op: "<=", value: 5 }] }] })[0] as WatchInfo;

  it("is sent only when changed, and only a duration", () => {
    expect(editArgs(watch, { ...editForm(watch, "en"), cooldown: "1d" }, "en")).toEqual({ ok: true, args: { watch_id: "c1", cooldown: "1d" } });
    expect(editArgs(watch, { ...editForm(watch, "en"), cooldown: "0m" }, "en")).toEqual({ ok: true, args: { watch_id: "c1", cooldown: "0m" } });
    expect(editArgs(watch, { ...editForm(watch, "en"), cooldown: "soon" }, "en")).toEqual({ ok: false, error: "watchEditNothing" });
    expect(editArgs(watch, editForm(watch, "en"), "en")).toEqual({ ok: false, error: "watchEditNothing" });
  });
});
