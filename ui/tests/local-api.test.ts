import { describe, expect, it } from "vitest";
import { translator } from "../src/i18n";
import { maskToken } from "../src/local-api-view";

describe("maskToken", () => {
  it("hides all but Halley's prefix, with a bounded mask", () => {
    const token = "hly_" + "0123456789abcdef".repeat(4);
    const masked = maskToken(token);
    expect(masked.startsWith("hly_")).toBe(true);
    expect(masked).not.toContain("0123");
    expect(masked.length).toBe(4 + 24);
    expect(maskToken("abc")).toBe("•••");
    expect(maskToken("")).toBe("");
  });
});

describe("the Local API strings", () => {
  it("warn before a rotation in both languages", () => {
    expect(translator("en")("apiTokenRotateWarning")).toContain("old token will stop working");
    expect(translator("vi")("apiTokenRotateWarning")).toContain("token cũ sẽ ngừng hoạt động");
  });
});
