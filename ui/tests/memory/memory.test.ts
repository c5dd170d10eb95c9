import { describe, expect, it } from "vitest";
import { translator } from "../../src/i18n";
import { formatScore, hitReasons, parseMode, snippetPieces, statusCounts } from "../../src/memory/memory";
import type { ArchivalHitView, MemoryEmbedderView } from "../../src/protocol";

const embedder = (counts: Partial<MemoryEmbedderView>): MemoryEmbedderView => ({
  settings: null,
  pending: 0,
  embedding: 0,
  done: 0,
  failed: 0,
  failures: [],
  ...counts,
});

describe("the Memory view's words", () => {
  it("counts only the statuses that have passages, in both languages", () => {
    const e = embedder({ done: 12, pending: 3, failed: 1 });
    expect(statusCounts(e, translator("en"))).toBe("12 found by meaning · 3 waiting · 1 failed");
    expect(statusCounts(e, translator("vi"))).toBe("12 đoạn tìm được theo ý nghĩa · 3 đoạn đang chờ · 1 đoạn lỗi");
    expect(statusCounts(embedder({}), translator("vi"))).toBe("Chưa có đoạn nào.");
  });

  it("writes scores as the language does", () => {
    expect(formatScore(0.0312, "en")).toBe("0.0312");
    expect(formatScore(0.0312, "vi")).toBe("0,0312");
  });

  it("says why a hit was found", () => {
    const hit: ArchivalHitView = {
      id: "p1",
      agent_id: "a",
      text: "Khách sạn ba sao cạnh Hồ Gươm",
      tags: [],
      created_at: "2026-11-28T00:00:00Z",
      snippet: "Khách sạn ba sao cạnh Hồ Gươm",
      score: 0.0328,
      meaning_rank: 1,
      similarity: 0.912,
    };
    expect(hitReasons(hit, "vi", translator("vi"))).toEqual(["ý nghĩa hạng 1 (độ tương đồng 0,912)"]);
    expect(hitReasons({ ...hit, word_rank: 2 }, "en", translator("en"))).toEqual([
      "word match #2",
      "meaning #1 (similarity 0.912)",
    ]);
  });

  it("marks the matches of a snippet, never reading it as markup", () => {
    expect(snippetPieces("…gần [hồ] [Hoàn Kiếm] <b>x</b>")).toEqual([
      { text: "…gần ", match: false },
      { text: "hồ", match: true },
      { text: " ", match: false },
      { text: "Hoàn Kiếm", match: true },
      { text: " <b>x</b>", match: false },
    ]);
    expect(snippetPieces("no marks")).toEqual([{ text: "no marks", match: false }]);
  });

  it("reads a mode, else both", () => {
    expect(parseMode("meaning")).toBe("meaning");
    expect(parseMode("javascript:")).toBe("both");
  });
});
