import { describe, expect, it } from "vitest";
import { argumentTemplate, paletteQuery, parseArguments, sampleValue, templateText } from "../../src/palette/palette";

describe("argumentTemplate", () => {
  const schema = {
    type: "object",
    required: ["url", "count", "mode"],
    properties: {
      url: { type: "string", description: "Page to open" },
      count: { type: "integer", minimum: 1 },
      mode: { enum: ["fast", "full"] },
      wait: { type: "boolean", default: true },
      optional: { type: "string" },
      _reasoningForCall: { type: "string" },
    },
  };

  it("fills required properties and defaulted ones, skipping model-only arguments", () => {
    expect(argumentTemplate(schema)).toEqual({ url: "", count: 1, mode: "fast", wait: true });
    expect(JSON.parse(templateText(schema))).toEqual({ url: "", count: 1, mode: "fast", wait: true });
  });

  it("handles nullable types, anyOf, examples and nested objects", () => {
    expect(sampleValue({ type: ["string", "null"] })).toBe("");
    expect(sampleValue({ anyOf: [{ type: "null" }, { type: "number" }] })).toBe(0);
    expect(sampleValue({ type: "string", examples: ["Hà Nội"] })).toBe("Hà Nội");
    expect(sampleValue({ type: "object", required: ["a"], properties: { a: { type: "array" } } })).toEqual({ a: [] });
    expect(argumentTemplate({})).toEqual({});
    expect(argumentTemplate(null)).toEqual({});
  });
});

describe("parseArguments", () => {
  it("accepts a JSON object or nothing", () => {
    expect(parseArguments("")).toEqual({ ok: true, value: {} });
    expect(parseArguments('{"q": "laptop dưới 20 triệu"}')).toEqual({ ok: true, value: { q: "laptop dưới 20 triệu" } });
    expect(parseArguments("[1]").ok).toBe(false);
    expect(parseArguments("{oops").ok).toBe(false);
  });
});

describe("paletteQuery", () => {
  it("opens on a leading slash with one word", () => {
    expect(paletteQuery("/")).toBe("");
    expect(paletteQuery("/nav")).toBe("nav");
    expect(paletteQuery("a/b")).toBeNull();
    expect(paletteQuery("/usr/bin is a path and more")).toBeNull();
  });
});
