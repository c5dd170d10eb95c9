import { describe, expect, it } from "vitest";
import { MESSAGES, pickLanguage, translator, type MessageKey } from "../src/i18n";
import { PERMISSION_SCOPES } from "../src/protocol";

describe("pickLanguage", () => {
  it("picks Vietnamese for any vi tag, English otherwise", () => {
    expect(["vi", "vi-VN", "VI-vn", " vi"].map(pickLanguage)).toEqual(["vi", "vi", "vi", "vi"]);
    expect(["en-US", "fr", "", "v", "ru-VI"].map(pickLanguage)).toEqual(["en", "en", "en", "en", "en"]);
    expect(pickLanguage(undefined)).toBe("en");
    expect(pickLanguage(null)).toBe("en");
  });
});

describe("message tables", () => {
  it("have the same keys and no empty string", () => {
    const enKeys = Object.keys(MESSAGES.en).sort();
    expect(Object.keys(MESSAGES.vi).sort()).toEqual(enKeys);
    for (const table of Object.values(MESSAGES)) {
      for (const value of Object.values(table)) expect(value.trim()).not.toBe("");
    }
  });

  it("keep the same placeholders in both languages", () => {
    const placeholders = (s: string): string[] => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of Object.keys(MESSAGES.en) as MessageKey[]) {
      expect(placeholders(MESSAGES.vi[key]), key).toEqual(placeholders(MESSAGES.en[key]));
    }
  });

  it("name every permission scope", () => {
    for (const scope of PERMISSION_SCOPES) {
      expect(MESSAGES.en[`scope.${scope}`]).toBeTruthy();
      expect(MESSAGES.vi[`scope.${scope}`]).toBeTruthy();
    }
  });
});

describe("translator", () => {
  it("fills placeholders and leaves unknown ones alone", () => {
    expect(translator("en")("count", { shown: 3, total: 47 })).toBe("3 of 47 tools");
    expect(translator("vi")("count", { shown: 3, total: 47 })).toBe("3/47 công cụ");
    // Large numbers grouped the language's way (#43 item 5: "24000 token").
    expect(translator("vi")("inUseContextServer", { budget: 24000 })).toContain("dưới 24.000 token");
    expect(translator("en")("inUseContextServer", { budget: 24000 })).toContain("under 24,000 tokens");
    expect(translator("en")("risk")).toBe("Risk: {level}");
  });

  it("does not interpret $ patterns in values", () => {
    expect(translator("en")("noMatch", { query: "$&$1" })).toBe("No tool matches “$&$1”.");
  });
});

describe("challenge instructions", () => {
  it("name each challenge type in both languages, with a generic fallback", async () => {
    const { challengeKey } = await import("../src/i18n");
    expect(translator("en")(challengeKey("captcha"))).toBe("Solve the CAPTCHA in the browser window, then press Done.");
    expect(translator("vi")(challengeKey("otp"))).toContain("mã dùng một lần");
    expect(challengeKey("something-new")).toBe("challenge.other");
  });
});
