import { describe, expect, it } from "vitest";
import {
  amountParts,
  amountSource,
  amountText,
  confirmParams,
  decodeBase64Url,
  decodeParam,
  displayValue,
  encodeBase64Url,
  formatCountdown,
  gradingLine,
  headline,
  isChallengeRequest,
  isConfirmationRequest,
  isPayment,
  plainReasons,
  priceMissing,
  secondsLeft,
  technicalSummary,
  userEdits,
  waitingSentence,
} from "../../src/dialogs/confirm";
import { MESSAGES, translator } from "../../src/i18n";
import type { Grading } from "../../src/protocol";
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
    expect(amountText({ value: 21_490_000, currency: "VND", source: "page", parts: null }, "en")).toBe("21.490.000 ₫");
    expect(amountText({ value: 1814, currency: "USD", source: "request", parts: null }, "en")).toBe("$1,814.00");
    expect(amountText({ value: 45_520_000, currency: null, source: "request", parts: null }, "vi")).toBe("45.520.000");
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

  it("says what a product page's payment costs, how it adds up and where it was read, in both languages", () => {
    const amount = { value: 21_520_000, currency: "VND", source: "near_button" as const, parts: { unit: 10_745_000, quantity: 2, shipping: 30_000 } };
    expect(amountText(amount, "vi")).toBe("21.520.000 ₫");
    expect(amountParts(amount, en, "en")).toBe("2 × 10.745.000 ₫ + 30.000 ₫ shipping");
    expect(amountParts(amount, vi, "vi")).toBe("2 × 10.745.000 ₫ + 30.000 ₫ phí vận chuyển");
    expect(amountParts({ ...amount, parts: { unit: 10_745_000, quantity: 2, shipping: null } }, vi, "vi")).toBe("2 × 10.745.000 ₫");
    expect(amountParts({ ...amount, parts: null }, en, "en")).toBeNull();
    expect(amountSource({ ...amount, source: "structured_data" }, en)).toBe("the product's own data on the page");
    expect(amountSource({ ...amount, source: "structured_data" }, vi)).toBe("dữ liệu sản phẩm của chính trang");
  });

  it("writes the banner like the dialog, and says plainly when a payment's price was not found", () => {
    const req = confirmation({ site: "127.0.0.1", target: "Mua ngay" });
    expect(waitingSentence(req, vi, "vi")).toBe("Đang chờ bạn xác nhận: Thanh toán 21.490.000 ₫ cho 127.0.0.1, bằng cách bấm “Mua ngay”.");
    expect(waitingSentence(req, en, "en")).toBe("Waiting for your confirmation: Pay 21.490.000 ₫ to 127.0.0.1, by clicking “Mua ngay”.");
    const none = confirmation({ amount: null, site: "127.0.0.1", target: "Mua ngay" });
    expect(priceMissing(none)).toBe(true);
    expect(waitingSentence(none, vi, "vi")).toBe(
      "Đang chờ bạn xác nhận: Đặt hàng trên 127.0.0.1, bằng cách bấm “Mua ngay”. Halley không tìm thấy giá trên trang này.",
    );
    expect(waitingSentence(none, en, "en")).toBe(
      "Waiting for your confirmation: Place an order on 127.0.0.1, by clicking “Mua ngay”. Halley could not find the price on this page.",
    );
    // Not a payment: no price is missing.
    expect(priceMissing(confirmation({ amount: null, kind: "send", scope: "SUBMIT" }))).toBe(false);
  });

  it("writes the technical sentence in the user's language from the request's facts", () => {
    const req = confirmation({ target: "Mua ngay", origin: "http://127.0.0.1:8080", destination: "http://127.0.0.1:8080/order", method: "POST" });
    expect(technicalSummary(req, vi)).toBe("Bấm “Mua ngay” trên http://127.0.0.1:8080 — gửi biểu mẫu tới http://127.0.0.1:8080/order (POST)");
    expect(technicalSummary(req, en)).toBe("Click “Mua ngay” on http://127.0.0.1:8080 — sends the form to http://127.0.0.1:8080/order (POST)");
    // What the dialog has no words of its own for keeps the core's sentence.
    const change = confirmation({ tool: "memory_replace", kind: "other", action_summary: "Replace the memory block persona" });
    expect(technicalSummary(change, vi)).toBe("Replace the memory block persona");
  });

  // Every kind of reason the gate gives, as classify.rs makes them.
  const control = { label: "Mua ngay", role: "button" };
  const gradings: Grading[] = [
    { kind: "says", act: "click", control, place: "id", place_text: "buy-now", phrase: "buy now", means: { kind: "scope", meaning: "buy now" }, scope: "PAYMENT" },
    { kind: "says", act: "enter_on", control, place: "label", place_text: null, phrase: "hủy", means: { kind: "cancel_submits" }, scope: "DESTRUCTIVE" },
    { kind: "says", act: "click", control, place: "label", place_text: null, phrase: "cancel", means: { kind: "cancel_only" }, scope: "READ_ONLY" },
    { kind: "says", act: "space_on", control, place: "form_action", place_text: "/post", phrase: "send", means: { kind: "message_field", field: "Bình luận" }, scope: "PUBLISH" },
    { kind: "says", act: "click", control, place: "class", place_text: "btn-send", phrase: "send", means: { kind: "message_outside_form" }, scope: "PUBLISH" },
    { kind: "says", act: "click", control, place: "form_id", place_text: "f", phrase: "send", means: { kind: "form_no_message" }, scope: "SUBMIT" },
    { kind: "submits_form", act: "click", control, to: "http://127.0.0.1:8080/order" },
    { kind: "submits_form", act: "enter_in", control: { label: null, role: "textbox" }, to: null },
    { kind: "card_field", meaning: "card number", field: "Số thẻ" },
    { kind: "delete_request" },
    ...(["form_url", "form", "link", "url", "arguments", "fill", "typed"] as const).map(
      (how): Grading => ({ kind: "carries", key: "travel.passport_no", how, to: "https://evil.example", act: null, control: null }),
    ),
    { kind: "upload", file: "cv.pdf", to: "https://jobs.vn" },
    { kind: "upload", file: null, to: "https://jobs.vn" },
    { kind: "close_unsaved" },
    { kind: "close_saved", declared: "DESTRUCTIVE" },
    { kind: "unread", act: "click" },
    { kind: "unread", act: "keys" },
    { kind: "no_scope", tool: "x_tool" },
    { kind: "scope_asks", scope: "PAYMENT" },
    ...([{ kind: "widget" }, { kind: "frame", host: "www.google.com" }, { kind: "field", meaning: "one-time code" }] as const).map(
      (evidence): Grading => ({ kind: "challenge", act: "type", control, evidence }),
    ),
  ];

  it("gives the gate's reasons in the user's language, by their kind", () => {
    expect(gradingLine(gradings[0]!, vi)).toBe("Bấm “Mua ngay” (nút): mã (id) “buy-now” của nó có chữ “buy now”, nên được xếp vào: Thanh toán.");
    expect(gradingLine(gradings[0]!, en)).toBe("Clicking “Mua ngay” (button): its id “buy-now” says “buy now”, so it counts as: Pays.");
    expect(gradingLine(gradings[6]!, vi)).toBe("Bấm “Mua ngay” (nút) sẽ gửi biểu mẫu tới http://127.0.0.1:8080/order.");
    expect(gradingLine({ kind: "scope_asks", scope: "PAYMENT" }, vi)).toBe("Thao tác được xếp vào “Thanh toán”: Halley luôn hỏi bạn trước.");
    // No sentence of the English table, no scope code, no placeholder left, in Vietnamese.
    const english = new Set(Object.values(MESSAGES.en).filter((m) => m.length > 12));
    for (const g of gradings) {
      const line = gradingLine(g, vi);
      // The page's own words are quoted as written.
      expect(line.replace(/“[^”]*”/g, "“…”"), JSON.stringify(g)).not.toMatch(/[{}]|PAYMENT|SUBMIT|PUBLISH|DESTRUCTIVE|READ_ONLY|\b(its|the|clicking|sends?|form)\b/);
      expect(english.has(line)).toBe(false);
      expect(gradingLine(g, en)).not.toMatch(/[{}]/);
    }
    // What the gate has no kind for (a request's grading, a rule) stays as written.
    expect(gradingLine({ kind: "text", text: "a rule asks for shop.vn" }, vi)).toBe("a rule asks for shop.vn");
  });
});
