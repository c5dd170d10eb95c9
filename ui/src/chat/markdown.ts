// The assistant's answers as a person reads them: Markdown (headings,
// emphasis, lists, tables, code, links) rendered by markdown-it with HTML
// off, so whatever HTML a model or a page put in an answer shows as text,
// then passed through DOMPurify with an allowlist of the tags markdown-it
// writes (no attributes but a link's target and a list's start) into a
// detached fragment: nothing of it ever runs. Links keep http(s) and
// mailto targets only; a click opens them in the managed browser, never
// in the panel.

import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
// Only targets a person can follow from the panel; the rest stay text.
md.validateLink = (url: string): boolean => /^(https?:\/\/|mailto:)/i.test(url.trim());

/** Tags markdown-it writes for the Markdown we render. */
export const ALLOWED_TAGS = [
  "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "strong", "em", "s", "code", "pre", "blockquote",
  "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
];
const ALLOWED_ATTR = ["href", "start"];

/** The answer as HTML, before sanitising (markdown-it, HTML off). */
export function markdownHtml(source: string): string {
  return md.render(source);
}

/** A followable link target (http, https, mailto), else null. */
export function followable(href: string | null): string | null {
  if (href === null) return null;
  const url = href.trim();
  return /^(https?:\/\/|mailto:)\S+$/i.test(url) ? url : null;
}

/**
 * The answer as DOM nodes, sanitised, in a fragment no page holds yet.
 * Each link carries its target in `data-href`: the panel opens it in the
 * managed browser on a click ([`linkTarget`]).
 */
export function renderMarkdown(source: string): DocumentFragment {
  const fragment = DOMPurify.sanitize(markdownHtml(source), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const a of Array.from(fragment.querySelectorAll("a"))) {
    const url = followable(a.getAttribute("href"));
    if (url === null) {
      a.replaceWith(document.createTextNode(a.textContent ?? ""));
      continue;
    }
    a.setAttribute("rel", "noopener noreferrer");
    a.setAttribute("title", url);
    a.dataset.href = url;
  }
  // Wide tables scroll on their own instead of widening the panel.
  for (const table of Array.from(fragment.querySelectorAll("table"))) {
    const wrap = document.createElement("div");
    wrap.className = "table-scroll";
    table.replaceWith(wrap);
    wrap.append(table);
  }
  return fragment;
}

/** The link a click in an answer follows, if any (its `data-href`). */
export function linkTarget(target: EventTarget | null): string | null {
  const a = target instanceof Element ? target.closest(".markdown a[data-href]") : null;
  return a instanceof HTMLElement ? followable(a.dataset.href ?? null) : null;
}

const cache = new Map<string, DocumentFragment>();

/** [`renderMarkdown`], kept for the texts last shown (the chat re-renders on every token). */
export function markdownNodes(source: string): Node {
  let done = cache.get(source);
  if (done === undefined) {
    done = renderMarkdown(source);
    cache.set(source, done);
    if (cache.size > 200) {
      const first = cache.keys().next();
      if (!first.done) cache.delete(first.value);
    }
  }
  return done.cloneNode(true);
}
