// The settings' MCP servers section: the servers Halley attaches as tool
// sources (ListMcpServers / AddMcpServer / RemoveMcpServer), the same as
// `halley mcp add|list|remove`: a command on stdio or a URL with headers
// (their values go to the OS keyring; the panel shows only their names).

import { h } from "../dom";
import { field, orNull, statusLine } from "../view";
import type { Translate } from "../i18n";
import { request } from "../ipc";
import type { McpServerView } from "../protocol";

/** A command line as program and arguments: split on spaces, except inside
 * single or double quotes. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const c of line) {
    if (quote !== null) {
      if (c === quote) quote = null;
      else word = (word ?? "") + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word = word ?? "";
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** Headers written one `Name: value` a line (blank lines dropped). */
export const headerLines = (text: string): string[] =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");

/** The first non-empty line of a text. */
const firstLine = (text: string): string => text.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";

/** Every line of a server's words (tool and parameter descriptions) that
 * addresses the assistant, with the tool and place it is in. */
export function flaggedLines(s: McpServerView): { tool: string; place: string; line: string }[] {
  return s.described.flatMap((d) => d.flagged.map((f) => ({ tool: d.name, place: f.place, line: f.line })));
}

/** A server whose words address the assistant: a warning badge, the lines on
 * demand (Halley withholds them from the model). */
function renderFlagged(s: McpServerView, t: Translate): HTMLElement | null {
  const lines = flaggedLines(s);
  if (lines.length === 0) return null;
  return h(
    "details",
    { class: "call-flagged mcp-flagged", "data-testid": "mcp-flagged" },
    h("summary", { class: "badge badge-flagged", role: "note" }, t("mcpFlaggedBadge", { count: String(lines.length) })),
    h("p", { class: "hint" }, t("mcpFlaggedHint")),
    h("ul", {}, ...lines.map((l) => h("li", {}, `${l.tool} · ${l.place}: `, h("code", {}, l.line)))),
  );
}

export function renderMcpServers(t: Translate): HTMLElement {
  const list = h("ul", { class: "mcp-servers", id: "mcp-servers" });
  const { status, say, fail } = statusLine("mcp-status", t);

  const show = (servers: McpServerView[]): void => {
    if (servers.length === 0) {
      list.replaceChildren(h("li", { class: "empty" }, t("mcpEmpty")));
      return;
    }
    list.replaceChildren(
      ...servers.map((s) => {
        const label = t("mcpRemove", { name: s.name });
        const remove = h("button", { type: "button", class: "icon remove-mcp", "aria-label": label, title: label }, "✕");
        // Asked first: the first click arms the button, the second removes.
        remove.addEventListener("click", () => {
          if (remove.dataset.armed !== "1") {
            remove.dataset.armed = "1";
            remove.classList.add("danger");
            remove.textContent = t("mcpRemoveConfirm", { name: s.name });
            return;
          }
          request({ type: "remove_mcp_server", name: s.name }, "mcp_servers").then((r) => {
            say("");
            show(r.servers);
          }, fail);
        });
        const headers = s.header_names.length > 0 ? ` (${t("mcpHeaders")}: ${s.header_names.join(", ")})` : "";
        const described = s.described.map((d) => `${d.name}: ${firstLine(d.description)}`);
        return h(
          "li",
          { class: "mcp-server", "data-mcp": s.name, title: (described.length > 0 ? described : s.tools).join("\n") },
          h("span", { class: "mcp-name" }, s.name),
          h("span", { class: "mcp-target" }, `${s.transport} · ${s.target}${headers}`),
          h("span", { class: "badge mcp-tools" }, t("mcpToolCount", { count: String(s.tools.length) })),
          h("span", { class: `badge mcp-running ${s.running ? "status-connected" : ""}` }, s.running ? t("mcpRunning") : t("mcpOnDemand")),
          remove,
          renderFlagged(s, t),
        );
      }),
    );
  };

  const name = h("input", { id: "mcp-name", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "files" });
  const command = h("input", { id: "mcp-command", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "npx -y …" });
  const url = h("input", { id: "mcp-url", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "https://example.com/mcp" });
  const headers = h("textarea", { id: "mcp-headers", rows: "2", autocomplete: "off", spellcheck: "false", placeholder: "Authorization: Bearer …" });
  const add = h("button", { id: "mcp-add", type: "submit" }, t("mcpAdd"));
  const form = h(
    "form",
    { class: "mcp-form" },
    field("mcp-name", t("mcpName"), name),
    field("mcp-command", t("mcpCommand"), command, t("mcpCommandHint")),
    field("mcp-url", t("mcpUrl"), url),
    field("mcp-headers", t("mcpHeadersField"), headers),
    h("div", { class: "row" }, add),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    add.disabled = true;
    say(t("mcpStarting"), "pending");
    const op = {
      type: "add_mcp_server" as const,
      name: name.value.trim(),
      url: orNull(url.value),
      headers: headerLines(headers.value),
      command: splitCommand(command.value),
    };
    request(op, "mcp_servers")
      .then((r) => {
        headers.value = "";
        const added = r.servers.find((s) => s.name === op.name);
        const flagged = added === undefined ? 0 : flaggedLines(added).length;
        if (flagged > 0) say(t("mcpAddedFlagged", { name: op.name, count: String(flagged) }), "error");
        else say(t("mcpAdded", { name: op.name }), "ok");
        show(r.servers);
      }, fail)
      .finally(() => {
        add.disabled = false;
      });
  });
  request({ type: "list_mcp_servers" }, "mcp_servers").then((r) => show(r.servers), fail);

  return h(
    "section",
    { class: "mcp-section", "aria-labelledby": "mcp-title" },
    h("h2", { id: "mcp-title" }, t("mcpTitle")),
    h("p", { class: "hint" }, t("mcpHint")),
    list,
    form,
    status,
  );
}
