import { describe, expect, it } from "vitest";
import { ALLOWED_TAGS, followable, markdownHtml } from "../../src/chat/markdown";

describe("answers rendered from Markdown", () => {
  it("renders headings, emphasis, lists, tables, code and links", () => {
    const html = markdownHtml(
      [
        "## Kết quả",
        "",
        "Giá **tốt nhất**: *21.490.000 ₫* ở `GearVN`.",
        "",
        "- Bảo hành 24 tháng",
        "- Giao trong 2 giờ",
        "",
        "3. ba",
        "4. bốn",
        "",
        "| Shop | Giá |",
        "| --- | ---: |",
        "| GearVN | 21.490.000 ₫ |",
        "",
        "```",
        "let x = 1;",
        "```",
        "",
        "[Xem](https://gearvn.com/laptop) hoặc https://tiki.vn",
      ].join("\n"),
    );
    expect(html).toContain("<h2>Kết quả</h2>");
    expect(html).toContain("<strong>tốt nhất</strong>");
    expect(html).toContain("<em>21.490.000 ₫</em>");
    expect(html).toContain("<code>GearVN</code>");
    expect(html).toContain("<ul>\n<li>Bảo hành 24 tháng</li>");
    expect(html).toContain('<ol start="3">');
    expect(html).toMatch(/<table>[\s\S]*<th>Shop<\/th>[\s\S]*<td>GearVN<\/td>/);
    expect(html).toContain("<pre><code>let x = 1;\n</code></pre>");
    expect(html).toContain('<a href="https://gearvn.com/laptop">Xem</a>');
    expect(html).toContain('<a href="https://tiki.vn">https://tiki.vn</a>');
    // Every tag written is one the sanitiser keeps (alignment's inline style is not).
    const tags = [...html.matchAll(/<([a-z0-9]+)/g)].map((m) => m[1]);
    for (const tag of tags) expect(ALLOWED_TAGS).toContain(tag);
  });

  it("shows a model's or a page's HTML as text, never as elements", () => {
    const html = markdownHtml('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n<a href="javascript:alert(3)">x</a>');
    expect(html).not.toMatch(/<script|<img|<a /);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });

  it("follows only http(s) and mailto links", () => {
    for (const bad of ["[x](javascript:alert(1))", "[x](data:text/html,<b>1</b>)", "[x](file:///etc/passwd)", "[x](vbscript:msgbox)"]) {
      expect(markdownHtml(bad)).not.toContain("<a ");
    }
    expect(followable("https://tiki.vn/a b")).toBe(null);
    expect(followable(" mailto:an@example.vn ")).toBe("mailto:an@example.vn");
    expect(followable("JavaScript:alert(1)")).toBe(null);
    expect(followable(null)).toBe(null);
  });
});
