import { describe, expect, it } from "vitest";
import { elementLabel, errorSays, fieldLabel, fieldValue, maskValue, pageName, resultFields, stepDetails, stepOutcome, stepSentence, typedText } from "../../src/chat/steps";
import { finishedCall, startedCall, storedCall, type CallRow } from "../../src/chat/timeline";
import { translator } from "../../src/i18n";
import type { Json } from "../../src/protocol";
import { result } from "../fixtures";

const en = translator("en");
const vi = translator("vi");

function done(tool: string, args: Json, data: Json, url: string | null = null): CallRow {
  return finishedCall(startedCall("r1", "c1", tool, args), result({ data, current_url: url }), 120);
}

describe("steps a person reads", () => {
  it("says what a step did, with its page, in the user's language", () => {
    const opened = done("browser_navigate", { url: "http://127.0.0.1:8080/shop/laptop-abc.html" }, { url: "http://127.0.0.1:8080/shop/laptop-abc.html", title: "Laptop", http_status: 200 });
    expect(stepSentence(opened, en, "en")).toBe("Opened laptop-abc.html — 127.0.0.1");
    expect(stepSentence(opened, vi, "vi")).toBe("Đã mở laptop-abc.html — 127.0.0.1");
    const running = startedCall("r1", "c2", "browser_navigate", { url: "https://tiki.vn/" });
    expect(stepSentence(running, vi, "vi")).toBe("Đang mở tiki.vn");

    const price = done("browser_extract", { fields: { price: "number" } }, { data: { price: 21490000, currency: "VND" }, notes: [] });
    expect(stepSentence(price, en, "en")).toBe("Read the price: 21.490.000 ₫");
    expect(stepSentence(price, vi, "vi")).toBe("Đã đọc giá: 21.490.000 ₫");

    const typed = done("browser_type", { selector: "#ho-ten", text: "{{profile.shopping.delivery.full_name}}" }, { element: 'textbox "Họ tên"', navigated: false });
    expect(stepSentence(typed, en, "en")).toBe("Typed your full name into “Họ tên”");
    expect(stepSentence(typed, vi, "vi")).toBe("Đã nhập họ tên của bạn vào “Họ tên”");

    const clicked = done("browser_click", { selector: "#buy-now" }, { element: 'button "Mua ngay"', navigated: true }, "https://shop.vn/p/1");
    expect(stepSentence(clicked, en, "en")).toBe("Clicked “Mua ngay” — shop.vn");
    expect(stepSentence(done("web_search", { query: "laptop 14 inch" }, {}), vi, "vi")).toBe("Đã tìm trên web “laptop 14 inch”");
    // The catalogue's words, not the tool's name; another program's by its name.
    expect(stepSentence(done("watch_list", {}, {}), en, "en")).toBe("List my watches");
    expect(stepSentence(done("archival_memory_search", {}, {}), vi, "vi")).not.toContain("archival");
    expect(stepSentence(done("files__read_file", {}, {}), en, "en")).toBe("Ran files__read_file");
    // The reads of "Ask about this page": the tab, then its text.
    const tabUrl = "http://127.0.0.1:8080/shop-us.html";
    const switched = done("browser_switch_tab", { tab_id: "tab-2" }, { tab: { id: "tab-2", title: "Acme", url: tabUrl, current: true } }, tabUrl);
    expect(stepSentence(switched, en, "en")).toBe("Went to the tab shop-us.html — 127.0.0.1");
    expect(stepSentence(switched, vi, "vi")).toBe("Đã chuyển sang thẻ shop-us.html — 127.0.0.1");
    expect(stepSentence(done("browser_read_text", {}, { text: "x", truncated: false }, tabUrl), vi, "vi")).toBe("Đã đọc trang — 127.0.0.1");
  });

  it("says what a hand-off waits for, and where, while it waits", () => {
    const waiting = { ...startedCall("r1", "c9", "human_solve_challenge", { challenge_type: "captcha", timeout_ms: 60000 }), currentUrl: "http://127.0.0.1:8080/captcha.html" };
    expect(stepSentence(waiting, en, "en")).toBe("Waiting for you to solve the CAPTCHA on 127.0.0.1");
    expect(stepSentence(waiting, vi, "vi")).toBe("Đang chờ bạn giải CAPTCHA trên 127.0.0.1");
    const otp = startedCall("r1", "c9", "human_solve_challenge", { challenge_type: "otp" });
    expect(stepSentence(otp, en, "en")).toBe("Waiting for you to enter the one-time code on this page");
    const odd = startedCall("r1", "c9", "human_solve_challenge", { challenge_type: "<b>x</b>" });
    expect(stepSentence(odd, vi, "vi")).toBe("Đang chờ bạn hoàn tất bước kiểm tra trên trang này");
    const solved = done("human_solve_challenge", { challenge_type: "captcha" }, { outcome: "resolved" }, "https://shop.vn/login");
    expect(stepSentence(solved, en, "en")).toBe("Waited for you to solve a check — shop.vn");
  });

  it("says a declined step was declined, not an error", () => {
    const row = finishedCall(
      startedCall("r1", "c1", "browser_click", { selector: "#buy-now" }),
      result({ status: "error", data: null, error: { code: "denied", message: "the user denied it" } }),
      5,
    );
    expect(stepOutcome(row)).toBe("declined");
    // Not done: what it was to do, named by the question the user declined.
    expect(stepSentence(row, en, "en")).toBe("Click on the page — tiki.vn");
    const asked = { ...row, currentUrl: null, asked: { target: "Mua ngay", site: "shop.vn" } };
    expect(stepSentence(asked, en, "en")).toBe("Click “Mua ngay” — shop.vn");
    expect(stepSentence(asked, vi, "vi")).toBe("Bấm “Mua ngay” — shop.vn");
    const failed = finishedCall(startedCall("r1", "c1", "browser_click", {}), result({ status: "error", data: null, error: { code: "timeout", message: "slow" } }), 5);
    expect(stepOutcome(failed)).toBe("failed");
  });

  it("masks the user's values in what the opened step shows", () => {
    expect(typedText("Nguyễn Văn An", en)).toBe("“Nguyễn Văn An”");
    expect(typedText("call {{secret.abc.card}} now", vi)).toBe("thông tin của bạn");
    expect(maskValue("{{profile.shopping.delivery.phone}}")).toBe("•••• (phone)");
    const typed = done("browser_type", { selector: "#phone", text: "{{profile.shopping.delivery.phone}}", _reasoningForCall: "why" }, { element: 'textbox "SĐT"', navigated: false });
    const { given, read } = stepDetails(typed);
    // A selector is the tool's business; the text typed is shown, masked.
    expect(given).toEqual([["text", "•••• (phone)"]]);
    expect(read).toEqual([]);
    expect(JSON.stringify(stepDetails(typed))).not.toContain("{{profile");
  });

  it("shows a palette result's values, not its JSON", () => {
    // shopping_track_price's result, as the palette runs it.
    const data = { watch_id: "w-1", product: "Laptop ABC 15", current_price: { amount: 21080000, currency: "VND" }, in_stock: true, http_status: 200 };
    const fields = resultFields(data);
    expect(fields).toEqual([
      ["watch_id", "w-1"],
      ["product", "Laptop ABC 15"],
      ["current_price › amount", 21080000],
      ["current_price › currency", "VND"],
      ["in_stock", true],
    ]);
    const shown = fields.map(([k, v]) => `${fieldLabel(k, vi)}: ${fieldValue(v, vi, "vi")}`);
    expect(shown).toContain(`${fieldLabel("current_price › amount", vi)}: 21.080.000`);
    expect(shown.join("\n")).not.toMatch(/[{}"]|_/);
    expect(resultFields({ secret: "{{profile.travel.passport_no}}" })).toEqual([["secret", "•••• (passport no)"]]);
    expect(resultFields(null)).toEqual([]);
  });

  it("names the person's values in the UI's language, not by their keys", () => {
    expect(typedText("{{profile.me.full_name}}", vi)).toBe("họ tên của bạn");
    expect(typedText("{{profile.me.full_name}}", en)).toBe("your full name");
    expect(typedText("{{profile.travel.passport_no}}", vi)).toBe("số hộ chiếu của bạn");
    // A value sealed from the person's own message: its digest is not shown.
    expect(typedText("{{secret.msg.passport_3fa2c1}}", vi)).toBe("số hộ chiếu của bạn");
    expect(maskValue("gọi {{secret.msg.phone_a1b2c3d4}}", vi)).toBe("gọi •••• (số điện thoại)");
    expect(maskValue("{{secret.call-7.card_number}}", en)).toBe("•••• (card number)");
    // A key of the person's own making: its words.
    expect(typedText("{{profile.me.ma_so_thue}}", vi)).toBe("ma so thue của bạn");
    const typed = done("browser_type", { selector: "#ho-ten", text: "{{profile.me.full_name}}" }, { element: 'textbox "Họ tên"' });
    expect(stepSentence(typed, vi, "vi")).not.toContain("full name");
  });

  it("names pages and elements", () => {
    expect(pageName("https://tiki.vn/", "Tiki")).toBe("Tiki");
    expect(pageName("https://tiki.vn/dien-thoai/a%20b.html", null)).toBe("a b.html");
    expect(pageName("not a url", null)).toBe(null);
    expect(elementLabel('link "Thanh toán" → /checkout')).toBe("Thanh toán");
    expect(elementLabel("div")).toBe(null);
  });

  it("reads a stored step as the live one, its result inside it", () => {
    const row = storedCall("r0", {
      call_id: "c9",
      tool: "browser_navigate",
      arguments: { url: "https://tiki.vn/laptop-abc.html" },
      reasoning: null,
      status: "ok",
      error_code: null,
      duration_ms: 900,
      started_at: "2026-11-27T10:00:00Z",
      result: { url: "https://tiki.vn/laptop-abc.html", title: "Laptop", http_status: 200 },
    });
    expect(stepSentence(row, en, "en")).toBe("Opened laptop-abc.html — tiki.vn");
    // What it found, not its JSON: the status code is left out.
    expect(stepDetails(row).read).toEqual([
      ["url", "https://tiki.vn/laptop-abc.html"],
      ["title", "Laptop"],
    ]);
    const extracted = storedCall("r0", {
      call_id: "c11",
      tool: "browser_extract",
      arguments: { schema: { price: "number" } },
      reasoning: null,
      status: "ok",
      error_code: null,
      duration_ms: 900,
      started_at: "",
      result: { data: { name: "Laptop ASUS", price: 21490000, in_stock: true, specs: [{ ram: "16 GB" }] }, confidence: 0.9, missing_fields: [] },
    });
    const read = stepDetails(extracted).read;
    expect(read).toEqual([
      ["name", "Laptop ASUS"],
      ["price", 21490000],
      ["in_stock", true],
      ["specs › 1 › ram", "16 GB"],
    ]);
    expect(fieldLabel("price", vi)).toBe("Giá");
    expect(fieldLabel("in_stock", en)).toBe("In stock");
    expect(fieldLabel("specs › 1 › ram", en)).toBe("specs › 1 › ram");
    expect(fieldValue(21490000, vi, "vi")).toBe("21.490.000");
    expect(fieldValue(21490000, en, "en")).toBe("21,490,000");
    expect(fieldValue(true, vi, "vi")).toBe("Có");
    // An error in Vietnamese by its kind, never its code or English text.
    const err = { code: "element_not_found", message: "no element matches `#x`" };
    expect(errorSays(err, vi, "vi")).toBe("Không tìm thấy phần tử này trên trang.");
    expect(errorSays(err, en, "en")).toBe("no element matches `#x`");
    expect(errorSays({ code: "weird_new_code", message: "x" }, vi, "vi")).toBe("Việc này không thành công.");
    const declined = storedCall("r0", { call_id: "c10", tool: "browser_click", arguments: {}, reasoning: null, status: "error", error_code: "denied", duration_ms: 5, started_at: "" });
    expect(stepOutcome(declined)).toBe("declined");
    expect(declined.result).toBe(null);
  });
});
