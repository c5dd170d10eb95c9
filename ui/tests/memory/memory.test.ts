import { describe, expect, it } from "vitest";
import { translator } from "../../src/i18n";
import { fileMoving, fileProgress, formatScore, hitOrigin, hitReasons, hitWhy, matchPercent, parseMode, parsePaths, snippetPieces, statusCounts } from "../../src/memory/memory";
import type { ArchivalHitView, MemoryEmbedderView, SourceFileView } from "../../src/protocol";

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
    // What the hit shows: one number, a share of the best hit's, and why in words.
    expect(matchPercent(hit, 0.0328)).toBe(100);
    expect(matchPercent({ ...hit, score: 0.0164 }, 0.0328)).toBe(50);
    expect(matchPercent({ ...hit, score: 0.00001 }, 0.0328)).toBe(1);
    expect(matchPercent(hit, 0)).toBe(0);
    expect(hitWhy(hit, translator("vi"))).toBe("cùng ý nghĩa");
    expect(hitWhy({ ...hit, word_rank: 2 }, translator("en"))).toBe("same words and meaning");
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

  it("says where a passage read from a file came from, page included", () => {
    const hit: ArchivalHitView = {
      id: "p1",
      agent_id: "a",
      text: "Hộ chiếu còn hạn ít nhất 6 tháng",
      tags: [],
      created_at: "2026-11-28T00:00:00Z",
      snippet: "Hộ chiếu còn hạn",
      score: 0.03,
      source: "Visa Nhật 2026",
      file: "visa.pdf",
      file_id: "file-1",
      page: 2,
    };
    expect(hitOrigin(hit, translator("en"))).toBe("Visa Nhật 2026 › visa.pdf, page 2");
    expect(hitOrigin(hit, translator("vi"))).toBe("Visa Nhật 2026 › visa.pdf, trang 2");
    const { page: _page, ...noPage } = hit;
    expect(hitOrigin({ ...noPage, file: "notes.txt" }, translator("en"))).toBe("Visa Nhật 2026 › notes.txt");
    // A passage the agent stored: no origin.
    const { source: _s, file: _f, file_id: _i, ...stored } = noPage;
    expect(hitOrigin(stored, translator("en"))).toBeNull();
  });

  it("reads the paths typed, one a line", () => {
    expect(parsePaths("  /home/an/visa.pdf \r\n\n/home/an/Tài liệu/vé máy bay.pdf\n/home/an/visa.pdf\n   ")).toEqual([
      "/home/an/visa.pdf",
      "/home/an/Tài liệu/vé máy bay.pdf",
    ]);
    expect(parsePaths(" \n\t\n")).toEqual([]);
  });

  it("says how far a file is, and whether it may still change", () => {
    const file: SourceFileView = {
      file_id: "file-1",
      name: "visa.pdf",
      mime: "application/pdf",
      size: 1200,
      status: "embedding",
      pages: 2,
      passages: 5,
      embedded: 3,
      added_at: "2026-11-28T00:00:00Z",
    };
    expect(fileProgress(file, translator("en"))).toBe("2 pages · 5 passages, 3 embedded");
    expect(fileProgress({ ...file, pages: 1, passages: 1, embedded: 0 }, translator("en"))).toBe("1 page · 1 passage, 0 embedded");
    expect(fileProgress({ ...file, pages: 1, passages: 1, embedded: 1 }, translator("vi"))).toBe("1 trang · 1 đoạn, đã nhúng 1");
    expect(fileProgress(file, translator("vi"))).toBe("2 trang · 5 đoạn, đã nhúng 3");
    const { pages: _pages, ...unread } = file;
    expect(fileProgress({ ...unread, status: "pending", passages: 0, embedded: 0 }, translator("en"))).toBe("");
    expect(fileMoving(file)).toBe(true);
    expect(fileMoving({ ...file, status: "done" })).toBe(false);
    expect(fileMoving({ ...file, status: "failed", error: "pdftotext: not a PDF" })).toBe(false);
  });
});
