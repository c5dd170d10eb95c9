import { describe, expect, it } from "vitest";
import { inlineText, parseInline, parseMarkdown, safeHref } from "../../src/creator/markdown";

// The notes as creator_collect_research writes them (src/skills/creator_research.rs).
const NOTES = `# Research: Trình duyệt AI

## Key points

- Người dùng muốn trình duyệt tự điền biểu mẫu [1]
  > 62% muốn trình duyệt "tự điền biểu mẫu" thay họ
- Agentic browsers ask before paying [2]
  > Most agentic browsers now ask before any payment

## Sources

1. [Khảo sát 2026](https://a.example/article-1.html)
2. [Agents & <payments>](http://b.example:8080/article-2.html)
`;

describe("the research notes' Markdown", () => {
  it("reads headings, list items with their quotes and numbered source links", () => {
    const blocks = parseMarkdown(NOTES);
    expect(blocks.map((b) => b.kind)).toEqual(["heading", "heading", "list", "heading", "list"]);
    const [title, , points, , sources] = blocks;
    expect(title).toEqual({ kind: "heading", level: 1, content: [{ kind: "text", text: "Research: Trình duyệt AI" }] });
    if (points?.kind !== "list" || sources?.kind !== "list") throw new Error("lists expected");
    expect(points.ordered).toBe(false);
    expect(points.items).toHaveLength(2);
    expect(points.items[0]).toEqual([
      { kind: "paragraph", content: [{ kind: "text", text: "Người dùng muốn trình duyệt tự điền biểu mẫu [1]" }] },
      { kind: "quote", blocks: [{ kind: "paragraph", content: [{ kind: "text", text: '62% muốn trình duyệt "tự điền biểu mẫu" thay họ' }] }] },
    ]);
    expect(sources.ordered).toBe(true);
    expect(sources.start).toBe(1);
    expect(sources.items[1]).toEqual([
      {
        kind: "paragraph",
        content: [{ kind: "link", href: "http://b.example:8080/article-2.html", children: [{ kind: "text", text: "Agents & <payments>" }] }],
      },
    ]);
  });

  it("keeps HTML as text and drops unsafe link targets", () => {
    const blocks = parseMarkdown('<script>alert(1)</script>\n\n[click](javascript:alert(1)) <img src=x onerror="alert(2)">');
    expect(blocks).toEqual([
      { kind: "paragraph", content: [{ kind: "text", text: "<script>alert(1)</script>" }] },
      {
        kind: "paragraph",
        content: [
          { kind: "link", href: null, children: [{ kind: "text", text: "click" }] },
          { kind: "text", text: ' <img src=x onerror="alert(2)">' },
        ],
      },
    ]);
    expect(safeHref("https://vnexpress.net/a?b=1")).toBe("https://vnexpress.net/a?b=1");
    expect(safeHref("mailto:lan@example.vn")).toBe("mailto:lan@example.vn");
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "//evil.example", "vbscript:x", " JAVASCRIPT:x"]) {
      expect(safeHref(bad), bad).toBeNull();
    }
  });

  it("reads emphasis, code, escapes, quotes, rules and fenced code", () => {
    expect(parseInline("**Giá** *rẻ* `code` \\*not em\\* snake_case_word")).toEqual([
      { kind: "strong", children: [{ kind: "text", text: "Giá" }] },
      { kind: "text", text: " " },
      { kind: "em", children: [{ kind: "text", text: "rẻ" }] },
      { kind: "text", text: " " },
      { kind: "code", text: "code" },
      { kind: "text", text: " *not em* snake_case_word" },
    ]);
    const blocks = parseMarkdown("> a\n> b\n\n---\n\n```\n<b>x</b>\n```\nlast\nline");
    expect(blocks).toEqual([
      { kind: "quote", blocks: [{ kind: "paragraph", content: [{ kind: "text", text: "a b" }] }] },
      { kind: "rule" },
      { kind: "code", text: "<b>x</b>" },
      { kind: "paragraph", content: [{ kind: "text", text: "last line" }] },
    ]);
    expect(inlineText(parseInline("[**a**](https://x.vn) b"))).toBe("a b");
  });
});
