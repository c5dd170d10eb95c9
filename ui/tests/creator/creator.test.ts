import { describe, expect, it } from "vitest";
import { finishedCall, startedCall } from "../../src/chat/timeline";
import type { ToolResultV2 } from "../../src/protocol";
import {
  addMonths,
  appliedOf,
  applyArgs,
  batchOf,
  creatorViewFits,
  dayLabel,
  decodeText,
  firstDay,
  hasCreatorView,
  initialChoice,
  monthGrid,
  monthLabel,
  mondayOf,
  readCalendar,
  readResearch,
  readTriage,
  slotsOn,
  weekDays,
  weekLabel,
  weekdayNames,
  type RowChoice,
} from "../../src/creator/creator";

describe("the research result", () => {
  it("reads the notes' id and each citation with its quote", () => {
    const r = readResearch({
      notes_ref: "file_01",
      citations_map: { "Agents ask before paying": ["http://b.example/2"] },
      citations: [{ claim: "Agents ask before paying", url: "http://b.example/2", quote: "Most agentic browsers now ask" }],
      sources: ["http://a.example/1", "http://b.example/2"],
      notes: ["1 claim dropped: its quote is not on http://b.example/2"],
      status: "partial",
    });
    expect(r).toEqual({
      notesRef: "file_01",
      citations: [{ claim: "Agents ask before paying", url: "http://b.example/2", quote: "Most agentic browsers now ask" }],
      sources: ["http://a.example/1", "http://b.example/2"],
      notes: ["1 claim dropped: its quote is not on http://b.example/2"],
      status: "partial",
    });
    // Only the map: citations without quotes.
    expect(readResearch({ notes_ref: "", citations_map: { a: ["http://x/1", "http://y/2"] }, status: "ok" })?.citations).toEqual([
      { claim: "a", url: "http://x/1", quote: "" },
      { claim: "a", url: "http://y/2", quote: "" },
    ]);
    expect(readResearch({ calendar: [] })).toBeNull();
    expect(hasCreatorView("creator_collect_research") && !hasCreatorView("creator_schedule_post")).toBe(true);
  });

  it("decodes a stored file's bytes as UTF-8", () => {
    const text = "# Nghiên cứu: giá 19.990.000 ₫";
    const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(text)));
    expect(decodeText(base64)).toBe(text);
  });
});

const CAL = {
  calendar: [
    { date: "2026-12-02", channel: "youtube", pillar: "build-in-public", title: "Tuần 12", start: "2026-12-02T19:00:00+09:00" },
    { date: "2026-11-30", channel: "tiktok", pillar: "tech", title: "Trình duyệt AI", start: "2026-11-30T08:30:00+09:00" },
    { date: "2026-11-30", channel: "youtube", pillar: null, title: "Sáng", start: "2026-11-30T07:00:00+09:00" },
    { date: "2027-01-04", channel: "youtube", pillar: "tech", title: "Năm mới" },
  ],
  backlog: ["So sánh Halley với Playwright MCP"],
  status: "ok",
  time_zone: "Asia/Tokyo",
};

describe("the calendar's weeks and months", () => {
  it("reads the slots in time order with the local time the skill wrote", () => {
    const cal = readCalendar(CAL)!;
    expect(cal.slots.map((s) => [s.date, s.time, s.channel, s.title])).toEqual([
      ["2026-11-30", "07:00", "youtube", "Sáng"],
      ["2026-11-30", "08:30", "tiktok", "Trình duyệt AI"],
      ["2026-12-02", "19:00", "youtube", "Tuần 12"],
      ["2027-01-04", null, "youtube", "Năm mới"],
    ]);
    expect(cal.backlog).toEqual(["So sánh Halley với Playwright MCP"]);
    expect(cal.timeZone).toBe("Asia/Tokyo");
    expect(slotsOn(cal.slots, "2026-11-30").map((s) => s.title)).toEqual(["Sáng", "Trình duyệt AI"]);
    expect(firstDay(cal, "2026-01-01")).toBe("2026-11-30");
    expect(firstDay({ ...cal, slots: [] }, "2026-01-01")).toBe("2026-01-01");
    expect(readCalendar({ triage: [] })).toBeNull();
  });

  it("computes weeks from Monday across months and years", () => {
    expect(mondayOf("2026-12-06")).toBe("2026-11-30"); // a Sunday
    expect(mondayOf("2026-11-30")).toBe("2026-11-30");
    expect(weekDays("2027-01-01")).toEqual(["2026-12-28", "2026-12-29", "2026-12-30", "2026-12-31", "2027-01-01", "2027-01-02", "2027-01-03"]);
    expect(addMonths("2026-12-31", 1)).toBe("2027-01-01");
    expect(addMonths("2027-01-15", -1)).toBe("2026-12-01");
    expect(addMonths("2024-03-31", -1)).toBe("2024-02-01");
    const dec = monthGrid("2026-12-17");
    expect(dec).toHaveLength(5);
    expect(dec[0]?.[0]).toBe("2026-11-30");
    expect(dec[4]?.[6]).toBe("2027-01-03");
    // February 2027 starts on a Monday and has 4 weeks; March 2026 needs 6 rows.
    expect(monthGrid("2027-02-10").map((w) => w[0])).toEqual(["2027-02-01", "2027-02-08", "2027-02-15", "2027-02-22"]);
    expect(monthGrid("2026-03-01")).toHaveLength(6);
  });

  it("names days, weeks and months in English and Vietnamese", () => {
    expect(weekdayNames("en")).toEqual(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]);
    expect(weekdayNames("vi")).toEqual(["T2", "T3", "T4", "T5", "T6", "T7", "CN"]);
    expect(monthLabel("2026-12-01", "en")).toBe("December 2026");
    expect(monthLabel("2026-12-01", "vi")).toBe("Tháng 12/2026");
    expect(weekLabel("2026-12-02", "en")).toBe("30 Nov – 6 Dec 2026");
    expect(weekLabel("2026-12-02", "vi")).toBe("30/11 – 6/12/2026");
    expect(weekLabel("2026-12-31", "vi")).toBe("28/12 – 3/1/2027");
    expect(dayLabel("2026-11-30", "en")).toBe("Mon 30 Nov");
    expect(dayLabel("2026-12-06", "vi")).toBe("CN 6/12");
  });
});

const TRIAGE = {
  triage: [
    { url: "http://x/t1#c1", author: "Lan", category: "question", priority: "high", summary: "hỏi micro", comment_id: "c1", text: "Micro gì ạ?", language: "vi" },
    { url: "http://x/t1#c4", author: "bot", category: "spam", priority: "low", summary: "spam", comment_id: "c4", text: "Mua follow", suggested_action: "hide" },
    { url: "http://x/t2#c6", author: "troll", category: "abuse", priority: "high", summary: "chửi", comment_id: "c6", text: "...", suggested_action: "block" },
    { url: "http://x/t2#c7", author: null, category: "praise", priority: "low", summary: "khen", comment_id: "c7", text: "Hay quá" },
  ],
  suggested_replies: [
    { url: "http://x/t1#c1", reply: "Mình dùng Rode NT-USB nhé!", comment_id: "c1" },
    { url: "http://x/t2#c7", reply: "Cảm ơn bạn!", comment_id: "c7" },
  ],
  status: "ok",
};

describe("the triage batch", () => {
  const rows = readTriage(TRIAGE)!;
  const choices = (over: Record<string, Partial<RowChoice>>): Map<string, RowChoice> =>
    new Map(rows.map((r) => [r.commentId, { ...initialChoice(r), ...(over[r.commentId] ?? {}) }]));

  it("reads one row per comment with its suggested reply and action", () => {
    expect(rows.map((r) => [r.commentId, r.author, r.category, r.reply, r.action])).toEqual([
      ["c1", "Lan", "question", "Mình dùng Rode NT-USB nhé!", "reply"],
      ["c4", "bot", "spam", "", "hide"],
      ["c6", "troll", "abuse", "", "block"],
      ["c7", "", "praise", "Cảm ơn bạn!", "reply"],
    ]);
    expect(initialChoice(rows[0]!)).toEqual({ decision: "pending", action: "reply", text: "Mình dùng Rode NT-USB nhé!" });
  });

  it("sends only approved rows, edited text included, skipped and pending ones left out", () => {
    const got = batchOf(
      rows,
      choices({
        c1: { decision: "approved", text: "  Chào Lan, mình dùng micro Rode NT-USB nhé! " },
        c4: { decision: "skipped" },
        c6: { decision: "approved" },
      }),
    );
    expect(got).toEqual({
      ok: true,
      apply: [
        { comment_id: "c1", action: "reply", text: "Chào Lan, mình dùng micro Rode NT-USB nhé!" },
        { comment_id: "c6", action: "block" },
      ],
    });
    // The user may change what a row does: c4 deleted instead of hidden.
    expect(batchOf(rows, choices({ c4: { decision: "approved", action: "delete" } }))).toEqual({ ok: true, apply: [{ comment_id: "c4", action: "delete" }] });
  });

  it("refuses an empty reply and an empty batch", () => {
    expect(batchOf(rows, choices({}))).toEqual({ ok: false, error: "triageNothingApproved" });
    expect(batchOf(rows, choices({ c7: { decision: "approved", text: "   " } }))).toEqual({ ok: false, error: "triageEmptyReply", commentId: "c7" });
    expect(batchOf(rows, choices({ c4: { decision: "approved", action: "reply" } }))).toEqual({ ok: false, error: "triageEmptyReply", commentId: "c4" });
  });

  it("calls the skill again on the same threads with the batch as `apply`", () => {
    const args = { thread_urls: ["http://x/t1", "http://x/t2"], policy_ref: "file://reply_policy.md", max_items: 50, _reasoningForCall: "…" };
    expect(applyArgs(args, [{ comment_id: "c6", action: "block" }])).toEqual({
      thread_urls: ["http://x/t1", "http://x/t2"],
      apply: [{ comment_id: "c6", action: "block" }],
      max_items: 50,
    });
    const applied = appliedOf({
      triage: [],
      suggested_replies: [],
      status: "needs_confirmation",
      applied: [
        { comment_id: "c1", action: "reply", done: true },
        { comment_id: "c6", action: "block", done: false, error: "denied: the user said no" },
      ],
    });
    expect([...applied]).toEqual([
      ["c1", { done: true, error: null }],
      ["c6", { done: false, error: "denied: the user said no" }],
    ]);
    expect(readTriage({ calendar: [] })).toBeNull();
  });
});

describe("which results open a creator view", () => {
  const result = (data: ToolResultV2["data"]): ToolResultV2 => ({
    status: "ok",
    trace_id: "t",
    permission_scope: "READ_ONLY",
    risk_level: "low",
    current_url: null,
    artifacts: [],
    data,
    error: null,
  });

  it("fits each skill's own shape only; an applied batch has no triage to review", () => {
    expect(creatorViewFits("creator_plan_calendar", CAL)).toBe(true);
    expect(creatorViewFits("creator_triage_inbox", TRIAGE)).toBe(true);
    expect(creatorViewFits("creator_triage_inbox", { triage: [], suggested_replies: [], status: "ok", applied: [] })).toBe(false);
    expect(creatorViewFits("creator_collect_research", CAL)).toBe(false);
  });

  it("keeps the data of a research step without citations (no table) for its notes", () => {
    const research = { notes_ref: "file_9", citations_map: {}, status: "partial" };
    const row = finishedCall(startedCall("r1", "call_1", "creator_collect_research", { topic: "AI" }), result(research), 10);
    expect(row.data).toEqual(research);
    // An ordinary call's page is not kept.
    const nav = finishedCall(startedCall("r1", "call_2", "browser_get_dom", {}), result({ notes_ref: "x", citations_map: {} }), 10);
    expect(nav.data).toBeNull();
  });
});
