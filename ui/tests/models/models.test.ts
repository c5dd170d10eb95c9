import { describe, expect, it } from "vitest";
import { translator } from "../../src/i18n";
import { UNKNOWN_STATUS, contextText, formatSize, inUseLines, isLocalUrl, modelRows, needsChoice, problemText, warningText, warningsKey } from "../../src/models/models";
import type { ModelStatus } from "../../src/protocol";

const en = translator("en");
const vi = translator("vi");

/** What CheckModel answers for the Ollama double's two models, none chosen. */
const ollama: ModelStatus = {
  ...UNKNOWN_STATUS,
  reachable: true,
  base_url: "http://127.0.0.1:11434/v1",
  models: ["qwen3:8b", "gemma3:1b", "tinyllama:1.1b"],
  model: "qwen3:8b",
  server: "ollama",
  chosen: false,
  details: [
    { name: "qwen3:8b", size: 5_225_376_047, parameter_size: "8.2B", quantization: "Q4_K_M", family: "qwen3", tools: true, context_length: 40_960 },
    { name: "gemma3:1b", size: 815_319_791, parameter_size: "999.89M", quantization: "Q4_K_M", family: "gemma3", tools: false, context_length: 32_768 },
    { name: "tinyllama:1.1b", size: null, parameter_size: null, quantization: null, family: null, tools: null, context_length: 2_048 },
  ],
  in_use: { model: "qwen3:8b", context_length: 40_960, num_ctx: 32_768, prompt_budget: 24_000, tool_calling: "native" },
  warnings: [],
  min_context: 8_192,
};

describe("formatSize", () => {
  it("writes bytes as Ollama's list does", () => {
    expect(formatSize(5_225_376_047)).toBe("5.2 GB");
    expect(formatSize(815_319_791)).toBe("815 MB");
    expect(formatSize(999)).toBe("999 B");
    expect(formatSize(null)).toBe("");
    expect(formatSize(-1)).toBe("");
  });
});

describe("the model list", () => {
  it("gives each model its size, tool calling and context, and marks the one in use", () => {
    expect(modelRows(ollama, en)).toEqual([
      { name: "qwen3:8b", facts: "5.2 GB · 8.2B · Q4_K_M", tools: "yes", context: "context 40,960", smallContext: false, inUse: true },
      { name: "gemma3:1b", facts: "815 MB · 999.89M · Q4_K_M", tools: "no", context: "context 32,768", smallContext: false, inUse: false },
      { name: "tinyllama:1.1b", facts: "", tools: "unknown", context: "context 2048", smallContext: true, inUse: false },
    ]);
    expect(modelRows(ollama, vi)[0]?.context).toBe("ngữ cảnh 40.960");
  });

  it("lists the ids alone when the server does not describe them", () => {
    const plain = { ...ollama, server: null, details: [], models: ["gpt-4o-mini"], model: "gpt-4o-mini" };
    expect(modelRows(plain, en)).toEqual([{ name: "gpt-4o-mini", facts: "", tools: "unknown", context: "", smallContext: false, inUse: true }]);
  });
});

describe("the first-run choice", () => {
  it("is offered when the server answers with models and none is chosen, or the chosen one is missing", () => {
    expect(needsChoice(ollama)).toBe(true);
    expect(needsChoice({ ...ollama, chosen: true })).toBe(false);
    expect(needsChoice({ ...ollama, chosen: true, warnings: [{ kind: "not_served", model: "qwen9:404b" }] })).toBe(true);
    expect(needsChoice({ ...ollama, models: [] })).toBe(false);
    expect(needsChoice(UNKNOWN_STATUS)).toBe(false);
  });

  it("is not offered for a server with one model: that one is used", () => {
    const one = { ...ollama, models: ["qwen3:8b"], details: ollama.details.slice(0, 1) };
    expect(needsChoice(one)).toBe(false);
    expect(needsChoice({ ...one, chosen: true, warnings: [{ kind: "not_served", model: "qwen9:404b" }] })).toBe(true);
  });
});

describe("what is wrong, for a person", () => {
  const down = { ...UNKNOWN_STATUS, base_url: "http://127.0.0.1:11434/v1", message: "no model server is reachable at http://127.0.0.1:11434/v1 (connection refused); start it with `ollama serve`" };
  it("names the product and never the command line", () => {
    const texts = [
      problemText({ ...down, problem: { kind: "not_running" }, product: "Ollama" }, en),
      problemText({ ...down, problem: { kind: "not_running" }, product: null, base_url: "http://127.0.0.1:9/v1" }, en),
      problemText({ ...down, problem: { kind: "not_running" }, product: "OpenAI", base_url: "https://api.openai.com/v1" }, en),
      problemText({ ...down, reachable: true, problem: { kind: "no_models" }, product: "LM Studio" }, en),
      problemText({ ...down, reachable: true, problem: { kind: "not_pulled", model: "qwen9:404b" }, product: "Ollama" }, en),
      problemText({ ...down, problem: { kind: "key_missing" }, product: "OpenRouter" }, en),
      problemText({ ...down, problem: { kind: "key_refused" }, product: "Gemini" }, en),
      problemText({ ...down, problem: { kind: "wrong_address" } }, en),
      problemText({ ...down, problem: { kind: "bad_address" } }, en),
      problemText({ ...down, problem: { kind: "other" } }, en),
    ];
    expect(texts[0]).toBe("Ollama is not running on this computer (http://127.0.0.1:11434/v1). Start it, then press Try again.");
    expect(texts[1]).toContain("Nothing answers at http://127.0.0.1:9/v1");
    expect(texts[2]).toContain("internet connection");
    expect(texts[3]).toContain("LM Studio is running but has no model");
    expect(texts[4]).toContain("qwen9:404b");
    expect(texts[5]).toContain("OpenRouter needs an API key");
    expect(texts[6]).toContain("Gemini refused the API key");
    for (const text of texts) {
      expect(text).not.toMatch(/ollama serve|--base-url|--preset|halley models|`|_/);
      expect(text).not.toBe("");
    }
    expect(problemText({ ...down, problem: { kind: "not_running" }, product: "Ollama" }, vi)).toBe(
      "Ollama chưa chạy trên máy này (http://127.0.0.1:11434/v1). Hãy mở nó, rồi bấm Thử lại.",
    );
    expect(problemText({ ...down, problem: { kind: "key_refused" }, product: null }, vi)).toContain("Máy chủ mô hình từ chối khóa API");
    expect(problemText(ollama, en)).toBe("");
  });

  it("tells this computer's addresses from others", () => {
    expect(["http://127.0.0.1:11434/v1", "http://localhost:1234/v1", "http://[::1]:8080/v1"].map(isLocalUrl)).toEqual([true, true, true]);
    expect(["https://api.openai.com/v1", "http://192.168.1.5:11434/v1", "not a url"].map(isLocalUrl)).toEqual([false, false, false]);
  });

  it("keys a closed warnings card by the model and its warnings", () => {
    const warned = { ...ollama, chosen: true, model: "gemma3:1b", warnings: [{ kind: "no_tools" as const, model: "gemma3:1b" }] };
    expect(warningsKey(warned)).not.toBe(warningsKey({ ...warned, model: "qwen3:8b" }));
    expect(warningsKey(warned)).toBe(warningsKey({ ...warned }));
  });
});

describe("what is in use", () => {
  it("says the endpoint, the model, the context a request gets and how tools are called", () => {
    expect(inUseLines(ollama, en)).toEqual([
      "Endpoint: http://127.0.0.1:11434/v1 (Ollama)",
      "Model: qwen3:8b",
      "Context: up to 32,768 tokens a request (the model's own: 40,960); the prompt is kept under 24,000 tokens",
      "Tool calls: native",
    ]);
    const gemma = { ...ollama, chosen: true, model: "gemma3:1b", in_use: { model: "gemma3:1b", context_length: 32_768, num_ctx: 32_768, prompt_budget: 24_000, tool_calling: "emulated" as const } };
    expect(inUseLines(gemma, vi)[3]).toContain("mô phỏng");
    const cloud = { ...ollama, server: null, in_use: { model: "gpt-4o-mini", context_length: null, num_ctx: null, prompt_budget: 24_000, tool_calling: "native" as const } };
    expect(contextText(cloud.in_use, en)).toBe("Context: the server's own; the prompt is kept under 24,000 tokens");
    expect(inUseLines(cloud, en)[0]).toBe("Endpoint: http://127.0.0.1:11434/v1");
  });

  it("warns in both languages when a model cannot call tools or its context is small", () => {
    expect(warningText({ kind: "no_tools", model: "gemma3:1b" }, en)).toContain("gemma3:1b cannot call tools");
    expect(warningText({ kind: "no_tools", model: "gemma3:1b" }, vi)).toContain("gemma3:1b không gọi được công cụ");
    const small = { kind: "small_context" as const, model: "tinyllama:1.1b", context: 2048, needed: 8192 };
    expect(warningText(small, en)).toBe(
      "tinyllama:1.1b gets a context of 2048 tokens, less than the 8192 a browsing task needs: long pages are cut and conversations compacted early.",
    );
    expect(warningText(small, vi)).toContain("2048 token, ít hơn 8192");
    expect(warningText({ kind: "not_served", model: "x" }, vi)).toContain("không có trên máy chủ này");
  });
});
