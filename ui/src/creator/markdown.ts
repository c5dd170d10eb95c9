// A small Markdown reader for documents Halley writes (research notes):
// headings, paragraphs, lists (nested blocks in items), quotes, fenced
// code, rules; inline strong, emphasis, code and links. It returns a tree,
// never HTML: the panel builds elements from it with text nodes only, so
// whatever a page or a model put in the notes (`<script>`, `<img onerror>`)
// shows as text. Links keep only http(s) and mailto targets. No DOM here,
// so it is unit-tested directly.

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "strong"; children: Inline[] }
  | { kind: "em"; children: Inline[] }
  | { kind: "code"; text: string }
  /** `href` null: a target that is not http(s)/mailto, shown as plain text. */
  | { kind: "link"; href: string | null; children: Inline[] };

export type Block =
  | { kind: "heading"; level: number; content: Inline[] }
  | { kind: "paragraph"; content: Inline[] }
  | { kind: "list"; ordered: boolean; start: number; items: Block[][] }
  | { kind: "quote"; blocks: Block[] }
  | { kind: "code"; text: string }
  | { kind: "rule" };

/** The link target when it is safe to follow (http, https, mailto), else null. */
export function safeHref(target: string): string | null {
  const url = target.trim();
  return /^(https?:\/\/|mailto:)[^\s]+$/i.test(url) ? url : null;
}

const LIST_ITEM = /^(\s{0,3})([-*+]|(\d{1,9})[.)])\s+(.*)$/;

/** The document's blocks. */
export function parseMarkdown(source: string): Block[] {
  return parseLines(source.replace(/\r\n?/g, "\n").split("\n"));
}

function parseLines(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = /^\s{0,3}(```|~~~)/.exec(line);
    if (fence) {
      const close = fence[1] ?? "```";
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(close)) body.push(lines[i++] ?? "");
      i++;
      blocks.push({ kind: "code", text: body.join("\n") });
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      blocks.push({ kind: "heading", level: (heading[1] ?? "#").length, content: parseInline(heading[2] ?? "") });
      i++;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ kind: "rule" });
      i++;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i] ?? "")) inner.push((lines[i++] ?? "").replace(/^\s{0,3}>\s?/, ""));
      blocks.push({ kind: "quote", blocks: parseLines(inner) });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = item[3] !== undefined;
      const list: Block & { kind: "list" } = { kind: "list", ordered, start: ordered ? Number(item[3]) : 1, items: [] };
      while (i < lines.length) {
        const m = LIST_ITEM.exec(lines[i] ?? "");
        if (!m || (m[3] !== undefined) !== ordered) break;
        // The item's first line, then its indented continuation lines.
        const body = [m[4] ?? ""];
        i++;
        while (i < lines.length) {
          const next = lines[i] ?? "";
          if (next.trim() === "") {
            // A blank line ends the item unless indented content follows.
            if (/^\s{2,}\S/.test(lines[i + 1] ?? "")) {
              body.push("");
              i++;
              continue;
            }
            break;
          }
          if (!/^\s{2,}/.test(next)) break;
          body.push(next.replace(/^\s{2,4}/, ""));
          i++;
        }
        list.items.push(parseLines(body));
        while (i < lines.length && (lines[i] ?? "").trim() === "" && LIST_ITEM.test(lines[i + 1] ?? "")) i++;
      }
      blocks.push(list);
      continue;
    }
    // A paragraph: lines up to a blank line or another block's start.
    const para: string[] = [];
    while (i < lines.length) {
      const next = lines[i] ?? "";
      if (next.trim() === "" || /^\s{0,3}(#{1,6}\s|>|```|~~~)/.test(next) || (para.length > 0 && LIST_ITEM.test(next))) break;
      para.push(next.trim());
      i++;
    }
    blocks.push({ kind: "paragraph", content: parseInline(para.join(" ")) });
  }
  return blocks;
}

/** A span's inline pieces: `code`, **strong**, *em* / _em_, [text](url), \-escapes. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = "";
  const flush = (): void => {
    if (plain !== "") out.push({ kind: "text", text: plain });
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? "";
    if (c === "\\" && i + 1 < text.length && /[\\`*_[\]()#>!-]/.test(text[i + 1] ?? "")) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i) {
        flush();
        out.push({ kind: "code", text: text.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    if ((c === "*" || c === "_") && text[i + 1] === c) {
      const end = text.indexOf(c + c, i + 2);
      if (end > i + 2) {
        flush();
        out.push({ kind: "strong", children: parseInline(text.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if (c === "*" || (c === "_" && !/\w/.test(text[i - 1] ?? ""))) {
      const end = text.indexOf(c, i + 1);
      if (end > i + 1 && text[i + 1] !== " ") {
        flush();
        out.push({ kind: "em", children: parseInline(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (c === "[") {
      const link = /^\[([^\]]*)\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/.exec(text.slice(i));
      if (link) {
        flush();
        out.push({ kind: "link", href: safeHref(link[2] ?? ""), children: parseInline(link[1] ?? "") });
        i += link[0].length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** The text of inline pieces, without markup (for labels and tests). */
export function inlineText(pieces: readonly Inline[]): string {
  return pieces.map((p) => (p.kind === "text" || p.kind === "code" ? p.text : inlineText(p.children))).join("");
}
