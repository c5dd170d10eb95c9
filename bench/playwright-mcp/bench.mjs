// The Playwright MCP side of Halley's browser benchmark.
//
// `examples/bench_browser.rs` runs Halley first, writes Halley's snapshot
// texts to files, then runs `node bench.mjs CONFIG.json`. This script drives
// `@playwright/mcp` over stdio (MCP JSON-RPC) on the same fixture pages,
// counts tokens of both sides with js-tiktoken, and writes one JSON result
// to `config.out`. Progress goes to stderr; stdout stays empty.
//
// CONFIG.json:
//   {
//     "out": "/tmp/.../playwright.json",
//     "output_dir": "/tmp/.../pw-output",     // where Playwright MCP writes files
//     "chromium": "/usr/bin/chromium",
//     "viewport": "1280x900",
//     "snapshot_runs": 15, "action_runs": 20,
//     "pages": [{"name": "shop-vn.html", "url": "http://...",
//                "halley_text": "...", "halley_first_text": "...", "halley_json": "..."}],
//     "actions": {"shop": "http://.../shop-vn.html", "form": "http://.../form.html"}
//   }

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { getEncoding } from 'js-tiktoken';

const here = path.dirname(fileURLToPath(import.meta.url));
const require_json = (p) => JSON.parse(fs.readFileSync(p, 'utf8'));
const log = (...a) => console.error('[playwright-mcp]', ...a);

/** Roles whose elements a model acts on (the ones Halley gives refs to). */
const INTERACTIVE = new Set([
  'link', 'button', 'textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio',
  'spinbutton', 'slider', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'option', 'treeitem', 'textarea',
]);

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2, p90: at(0.9), n: s.length };
}

/** The text the model reads from a tool result (all text parts). */
const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const imageChars = (result) => result.content.filter((c) => c.type === 'image').reduce((n, c) => n + c.data.length, 0);

function refsIn(text) {
  let all = 0;
  let interactive = 0;
  for (const line of text.split('\n')) {
    if (!/\[ref=[^\]]+\]/.test(line)) continue;
    all += 1;
    const role = line.trim().replace(/^- /, '').split(/[\s:"]/)[0];
    if (INTERACTIVE.has(role)) interactive += 1;
  }
  return { all, interactive };
}

/** The ref of the first line that matches `pattern` (`[ref=e48]` -> `e48`). */
function refOf(text, pattern) {
  const line = text.split('\n').find((l) => pattern.test(l));
  const m = line && line.match(/\[ref=([^\]]+)\]/);
  if (!m) throw new Error(`no element matching ${pattern} in the snapshot:\n${text}`);
  return m[1];
}

class Server {
  constructor(config, extra) {
    this.args = [
      path.join(here, 'node_modules/@playwright/mcp/cli.js'),
      '--headless', '--browser', 'chromium', '--executable-path', config.chromium, '--isolated', '--no-sandbox',
      '--viewport-size', config.viewport, '--output-dir', config.output_dir, ...extra,
    ];
  }

  async start() {
    const transport = new StdioClientTransport({ command: process.execPath, args: this.args, cwd: here, stderr: 'inherit' });
    this.client = new Client({ name: 'halley-bench', version: '0.1.0' });
    await this.client.connect(transport);
  }

  /** One tools/call; throws when the tool reports an error. */
  async call(name, args) {
    const t0 = performance.now();
    const result = await this.client.callTool({ name, arguments: args });
    const ms = performance.now() - t0;
    if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${textOf(result)}`);
    return { ms, result };
  }

  /** `1 + runs` calls of `f`; the first is a warm-up and is not counted. */
  async time(runs, f) {
    await f();
    const ms = [];
    let last;
    for (let i = 0; i < runs; i++) {
      last = await f();
      ms.push(last.ms);
    }
    return { ...stats(ms), last };
  }

  async stop() {
    await this.client.close();
  }
}

async function trivialCalls(server, runs) {
  const list = await server.time(runs, async () => {
    const t0 = performance.now();
    await server.client.listTools();
    return { ms: performance.now() - t0 };
  });
  const tabs = await server.time(runs, () => server.call('browser_tabs', { action: 'list' }));
  return { tools_list: pick(list), tabs_list: pick(tabs) };
}

const pick = ({ median, p90, n }) => ({ median, p90, n });

async function actions(server, config) {
  const runs = config.action_runs;
  const out = {};
  const sized = (t) => ({ ...pick(t), response_chars: textOf(t.last.result).length, image_chars: imageChars(t.last.result) });

  out.navigate = sized(await server.time(runs, () => server.call('browser_navigate', { url: config.actions.shop })));

  const shop = textOf((await server.call('browser_snapshot', {})).result);
  const cart = refOf(shop, /button "Thêm vào giỏ"/);
  out.click = sized(await server.time(runs, () => server.call('browser_click', { element: 'Thêm vào giỏ button', target: cart })));

  await server.call('browser_navigate', { url: config.actions.form });
  const form = textOf((await server.call('browser_snapshot', {})).result);
  const name = refOf(form, /textbox "Họ và tên/);
  const country = refOf(form, /combobox "Quốc tịch/);
  out.type = sized(
    await server.time(runs, () => server.call('browser_type', { element: 'Họ và tên field', target: name, text: 'Nguyễn Văn An' })),
  );
  out.select = sized(
    await server.time(runs, () =>
      server.call('browser_select_option', { element: 'Quốc tịch select', target: country, values: ['Nhật Bản'] }),
    ),
  );
  out.screenshot = sized(await server.time(runs, () => server.call('browser_take_screenshot', {})));
  return out;
}

async function snapshots(server, config, enc) {
  const pages = [];
  for (const page of config.pages) {
    log('snapshot', page.name);
    await server.call('browser_navigate', { url: page.url });
    const t = await server.time(config.snapshot_runs, () => server.call('browser_snapshot', {}));
    const text = textOf(t.last.result);
    const halley = fs.readFileSync(page.halley_text, 'utf8');
    pages.push({
      name: page.name,
      time: pick(t),
      chars: [...text].length,
      tokens: enc.encode(text).length,
      refs: refsIn(text),
      halley_tokens: enc.encode(halley).length,
      halley_first_tokens: enc.encode(fs.readFileSync(page.halley_first_text, 'utf8')).length,
      halley_json_tokens: enc.encode(fs.readFileSync(page.halley_json, 'utf8')).length,
    });
    if (config.keep_texts) fs.writeFileSync(path.join(config.output_dir, `${pages.length - 1}.playwright.yml`), text);
  }
  return pages;
}

async function main() {
  const config = require_json(process.argv[2]);
  const version = require_json(path.join(here, 'node_modules/@playwright/mcp/package.json')).version;
  const enc = getEncoding('o200k_base');
  fs.mkdirSync(config.output_dir, { recursive: true });

  // Default mode: what a user of `npx @playwright/mcp` gets.
  log('default mode');
  const server = new Server(config, []);
  await server.start();
  const pages = await snapshots(server, config, enc);
  const acts = await actions(server, config);
  const overhead = await trivialCalls(server, config.action_runs);
  await server.stop();

  // Lean mode: no snapshot after actions and no settle wait, to show what
  // the engine itself costs.
  log('lean mode');
  const lean = new Server(config, ['--snapshot-mode', 'none', '--timeout-settle', '0']);
  await lean.start();
  const leanActs = await actions(lean, config);
  await lean.stop();

  const result = { version, node: process.version, tokenizer: 'o200k_base', overhead, pages, actions: acts, lean_actions: leanActs };
  fs.writeFileSync(config.out, JSON.stringify(result, null, 2));
}

main().catch((e) => {
  console.error(e?.stack ?? e);
  process.exit(1);
});
