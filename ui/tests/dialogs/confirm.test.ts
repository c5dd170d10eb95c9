import { describe, expect, it } from "vitest";
import { amountText, confirmParams, decodeBase64Url, decodeParam, displayValue, encodeBase64Url, formatCountdown, headline, isChallengeRequest, isConfirmationRequest, isPayment, plainReasons, secondsLeft, userEdits } from "../../src/dialogs/confirm";
import { translator } from "../../src/i18n";
import { confirmation } from "../fixtures";

describe("base64url", () => {
  it("round-trips Vietnamese text and VND prices", () => {
    const text = JSON.stringify({ s: "Đặt hàng 21.490.000 ₫ – Nguyễn Văn An ??>>" });
    const encoded = encodeBase64Url(text);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeBase64Url(encoded)).toBe(text);
    expect(decodeBase64Url(encoded + "==".slice(0, (4 - (encoded.length % 4)) % 4))).toBe(text);
  });

  it("rejects what is not base64url UTF-8", () => {
    expect(decodeBase64Url("not base64!")).toBeNull();
    expect(decodeBase64Url(encodeBase64Url("ok").replace(/./, "*"))).toBeNull();
  });
});

describe("confirmParams", () => {
  const req = confirmation();
  const param = encodeBase64Url(JSON.stringify(req));

  it("reads the id and the request passed by the shell", () => {
    expect(confirmParams(`?id=c1&request=${param}`)).toEqual({ id: "c1", request: req });
    expect(confirmParams(`?request=${param}`)).toEqual({ id: "c1", request: req });
  });

  it("waits for the event when the request is missing, malformed or for another id", () => {
    expect(confirmParams("?id=c1")).toEqual({ id: "c1", request: null });
    expect(confirmParams("?id=c1&request=garbage")).toEqual({ id: "c1", request: null });
    expect(confirmParams(`?id=c2&request=${param}`)).toEqual({ id: "c2", request: null });
    const notARequest = encodeBase64Url(JSON.stringify({ id: "c1", tool: 3 }));
    expect(confirmParams(`?id=c1&request=${notARequest}`).request).toBeNull();
  });

  it("checks challenge requests too", () => {
    const ch = { tab_id: "tab-2", url: "https://vietjetair.com", challenge_type: "captcha", page_hint: "bottom of the form" };
    expect(decodeParam(encodeBase64Url(JSON.stringify(ch)), isChallengeRequest)).toEqual(ch);
    expect(decodeParam(encodeBase64Url(JSON.stringify({ url: 1 })), isChallengeRequest)).toBeNull();
    expect(decodeParam(null, isChallengeRequest)).toBeNull();
  });
});

describe("countdown", () => {
  const now = Date.parse("2030-01-01T00:00:00Z");
  it("counts whole seconds to expires_at, never below zero", () => {
    expect(secondsLeft("2030-01-01T00:05:00Z", now)).toBe(300);
    expect(secondsLeft("2030-01-01T00:00:00.200Z", now)).toBe(1);
    expect(secondsLeft("2029-12-31T23:59:00Z", now)).toBe(0);
    expect(secondsLeft("not a date", now)).toBe(0);
  });
  it("formats as m:ss or h:mm:ss", () => {
    expect([0, 9, 65, 300, 3600 + 61].map(formatCountdown)).toEqual(["0:00", "0:09", "1:05", "5:00", "1:01:01"]);
  });
});

describe("fields", () => {
  const req = confirmation();
  it("hide masked values until revealed, and reveal only what the request carries", () => {
    const card = req.fields[1]!;
    expect(displayValue(card, false)).toBe("••••••");
    expect(displayValue(card, true)).toBe("••••4242");
    expect(displayValue(req.fields[0]!, false)).toBe("Nguyễn Văn An");
  });

  it("send back only the fields the user changed", () => {
    expect(userEdits(req.fields, new Map())).toEqual({});
    expect(userEdits(req.fields, new Map([["name", "Nguyễn Văn An"]]))).toEqual({});
    expect(userEdits(req.fields, new Map([["name", "Trần Thị Bình"], ["unknown", "x"]]))).toEqual({ name: "Trần Thị Bình" });
    expect(userEdits(req.fields, new Map([["card", "••••4242"]]))).toEqual({});
    expect(userEdits(req.fields, new Map([["card", "4111111111111111"]]))).toEqual({ card: "4111111111111111" });
  });
});

describe("what a person decides on", () => {
  const en = translator("en");
  const vi = translator("vi");

  it("says a payment in one plain sentence with the amount, the site and the button", () => {
    const req = confirmation();
    expect(headline(req, en, "en")).toBe("Pay 21.490.000 ₫ to tiki.vn, by clicking “Đặt hàng”.");
    expect(headline(req, vi, "vi")).toBe("Thanh toán 21.490.000 ₫ cho tiki.vn, bằng cách bấm “Đặt hàng”.");
    expect(isPayment(req)).toBe(true);
  });

  it("formats VND the Vietnamese way in both languages and other currencies by language", () => {
    expect(amountText({ value: 21_490_000, currency: "VND", source: "page" }, "en")).toBe("21.490.000 ₫");
    expect(amountText({ value: 1814, currency: "USD", source: "request" }, "en")).toBe("$1,814.00");
    expect(amountText({ value: 45_520_000, currency: null, source: "request" }, "vi")).toBe("45.520.000");
  });

  it("writes an order without an amount, a form, typing, the assistant's question and a program's tool", () => {
    expect(headline(confirmation({ amount: null, target: null }), en, "en")).toBe("Place an order on tiki.vn.");
    expect(headline(confirmation({ kind: "send", scope: "SUBMIT", target: "Gửi hồ sơ", site: "visa.gov" }), vi, "vi")).toBe(
      "Gửi thông tin cho visa.gov, bằng cách bấm “Gửi hồ sơ”.",
    );
    expect(headline(confirmation({ kind: "type", tool: "browser_type", scope: "SUBMIT", target: "Họ tên", site: "127.0.0.1" }), en, "en")).toBe(
      "Type your details into “Họ tên” on 127.0.0.1.",
    );
    const ask = confirmation({ kind: "ask", tool: "request_user_confirmation", action_summary: "The assistant asks: Đăng video lúc 19:00?" });
    expect(headline(ask, vi, "vi")).toBe("Trợ lý hỏi: Đăng video lúc 19:00?");
    expect(headline(confirmation({ kind: "other", tool: "query_local_db", site: null, scope: "SUBMIT" }), en, "en")).toBe("Let Halley run “query_local_db”.");
    expect(isPayment(confirmation({ kind: "send", scope: "SUBMIT" }))).toBe(false);
  });

  it("gives the reasons in plain words, never the grading, and one line when the gate gave none", () => {
    const req = confirmation({ plain: [{ kind: "payment" }, { kind: "personal_data", what: ["Số thẻ"] }, { kind: "other_site", site: "pay.example.com" }] });
    const lines = plainReasons(req, vi);
    expect(lines).toEqual([
      "Bạn sẽ bị trừ tiền: thao tác này thanh toán hoặc đặt hàng.",
      "Thông tin của bạn được gửi đi: Số thẻ.",
      "Dữ liệu đi tới một trang khác với trang bạn đang xem: pay.example.com.",
    ]);
    for (const line of [...lines, ...plainReasons(req, en)]) expect(line).not.toMatch(/PAYMENT|SUBMIT|POST|browser_/);
    expect(plainReasons(confirmation({ plain: [] }), en)).toEqual(["Halley asks before anything that acts in your name."]);
  });

  it("accepts the request's new fields and refuses one without them", () => {
    expect(isConfirmationRequest(confirmation())).toBe(true);
    const { kind: _k, ...old } = confirmation();
    expect(isConfirmationRequest(old)).toBe(false);
  });
});
