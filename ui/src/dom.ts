// A tiny element builder: text always goes in as text nodes, never as HTML.

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

/** The nodes that are there (for replaceChildren with optional parts). */
export function present(...nodes: (Node | null | undefined | false)[]): Node[] {
  return nodes.filter((n): n is Node => n !== null && n !== undefined && n !== false);
}
