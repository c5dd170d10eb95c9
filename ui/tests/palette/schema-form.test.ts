import { describe, expect, it } from "vitest";
import { humanTool, paletteOrder } from "../../src/palette/catalogue";
import {
  buildArguments,
  fieldsOf,
  formatVnd,
  initialRecord,
  parseNumber,
  parseVnd,
  recordFromArguments,
  type Field,
  type FormRecord,
} from "../../src/palette/schema-form";
import { translator } from "../../src/i18n";
import skills from "./skills.json";
import { toolSpec } from "../fixtures";
import type { ToolSpec } from "../../src/protocol";

const en = translator("en");
const vi = translator("vi");
/** The skills' argument schemas, as the catalogue has them (`make protocol` writes the file). */
const SKILLS = skills as Record<string, unknown>;

const kinds = (fields: Field[]): Record<string, string> => Object.fromEntries(fields.map((f) => [f.path, f.kind]));

describe("the form of a skill's JSON Schema", () => {
  it("has a control a person can use for every field of every skill: no JSON needed", () => {
    for (const [name, schema] of Object.entries(SKILLS)) {
      const fields = fieldsOf(schema);
      expect(fields.length, name).toBeGreaterThan(0);
      const flat = (fs: Field[]): Field[] => fs.flatMap((f) => [f, ...flat(f.fields)]);
      // Only a free-form map (travel_fill_forms.extra_fields) is JSON.
      const json = flat(fields).filter((f) => f.kind === "json").map((f) => `${name}.${f.path}`);
      expect(json.filter((p) => p !== "travel_fill_forms.extra_fields"), name).toEqual([]);
    }
  });

  it("reads each kind of field from the schema", () => {
    expect(kinds(fieldsOf(SKILLS["travel_plan_itinerary"]))).toEqual({
      origin: "text",
      destination: "text",
      dates: "group",
      budget_vnd: "money",
      travellers: "integer",
      notes: "long-text",
      sites: "strings",
    });
    const search = fieldsOf(SKILLS["travel_search_options"]);
    expect(search.find((f) => f.name === "type")).toMatchObject({ kind: "choice", choices: ["flight", "hotel"], required: true });
    expect(search.find((f) => f.name === "date")?.kind).toBe("date");
    const post = kinds(fieldsOf(SKILLS["creator_schedule_post"]));
    expect(post).toMatchObject({ media_refs: "files", schedule_time: "datetime", visibility: "choice", description: "long-text" });
    expect(kinds(fieldsOf(SKILLS["shopping_prepare_checkout"]))).toMatchObject({ selected_option: "group", address_ref: "file", place_order: "boolean" });
    // A path to read is text, not a stored file.
    const store = { type: "object", properties: { file_path: { type: "string", description: "The file to store: a `file://` URL or a plain path." } }, required: ["file_path"] };
    expect(kinds(fieldsOf(store))).toEqual({ file_path: "text" });
    const compare = fieldsOf(SKILLS["shopping_compare_options"]);
    expect(compare[0]).toMatchObject({ name: "items", kind: "groups", minItems: 2 });
    expect(kinds(compare[0]!.fields)).toEqual({ "items.url": "text", "items.variant": "text" });
  });

  it("builds the arguments from what was typed: VND amounts, numbers, dates, groups", () => {
    const fields = fieldsOf(SKILLS["travel_plan_itinerary"]);
    const rec = initialRecord(fields, "vi");
    expect(rec["travellers"]).toBe("1");
    Object.assign(rec, { origin: " HAN ", destination: "Tokyo", budget_vnd: "45.000.000 ₫", travellers: "2", sites: ["https://a.example/{from}", "  "] });
    (rec["dates"] as FormRecord)["from"] = "2026-03-01";
    (rec["dates"] as FormRecord)["to"] = "2026-03-06";
    const built = buildArguments(fields, rec, "vi", vi);
    expect(built).toEqual({
      ok: true,
      value: { origin: "HAN", destination: "Tokyo", dates: { from: "2026-03-01", to: "2026-03-06" }, budget_vnd: 45000000, travellers: 2, sites: ["https://a.example/{from}"] },
    });
  });

  it("says what is wrong under each field, in the user's language", () => {
    const fields = fieldsOf(SKILLS["travel_plan_itinerary"]);
    const rec = initialRecord(fields, "vi");
    Object.assign(rec, { origin: "HAN", budget_vnd: "45 triệu", travellers: "21" });
    (rec["dates"] as FormRecord)["from"] = "2026-02-30";
    const built = buildArguments(fields, rec, "vi", vi);
    expect(built).toEqual({
      ok: false,
      errors: {
        destination: "Hãy điền ô này.",
        "dates.from": "Hãy chọn ngày.",
        "dates.to": "Hãy điền ô này.",
        budget_vnd: "Hãy ghi số tiền bằng đồng, ví dụ 21.490.000.",
        travellers: "Nhiều nhất 20.",
      },
    });
    const track = fieldsOf(SKILLS["shopping_track_price"]);
    const wrong = buildArguments(track, { url: "javascript:alert(1)", target_price_vnd: "-5", frequency: "every day" }, "en", en);
    expect(wrong).toEqual({
      ok: false,
      errors: { url: "Write a web address (https://…).", target_price_vnd: "Write an amount in đồng, e.g. 21.490.000.", frequency: "Not in the expected form, e.g. 30m." },
    });
  });

  it("takes lists of groups with their bounds, and choices only from the list", () => {
    const fields = fieldsOf(SKILLS["shopping_compare_options"]);
    const one = buildArguments(fields, { items: [{ url: "https://a.vn/1", variant: "" }], schema: "shopping_compare_v1", priorities: "" }, "en", en);
    expect(one).toEqual({ ok: false, errors: { items: "At least 2 items." } });
    const two = buildArguments(fields, { items: [{ url: "https://a.vn/1", variant: "16GB" }, { url: "https://b.vn/2", variant: "" }], schema: "shopping_compare_v1", priorities: "" }, "en", en);
    expect(two).toEqual({ ok: true, value: { items: [{ url: "https://a.vn/1", variant: "16GB" }, { url: "https://b.vn/2" }], schema: "shopping_compare_v1" } });
    const missing = buildArguments(fields, { items: [{ url: "", variant: "" }, { url: "https://b.vn/2", variant: "" }] }, "en", en);
    expect(missing).toEqual({ ok: false, errors: { "items.0.url": "Fill this in." } });
    const post = fieldsOf(SKILLS["creator_schedule_post"]);
    const bad = buildArguments(post, { channel: "youtube", title: "Tập 1", visibility: "everyone" }, "en", en);
    expect(bad).toEqual({ ok: false, errors: { visibility: "Pick one of the choices." } });
  });

  it("turns a local date and time into ISO 8601 with an offset, and reads arguments back into the form", () => {
    const post = fieldsOf(SKILLS["creator_schedule_post"]);
    const built = buildArguments(post, { channel: "youtube", title: "Tập 1", schedule_time: "2026-01-15T19:00", media_refs: ["file_abc"], visibility: "public" }, "en", en);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.value["schedule_time"]).toMatch(/^2026-01-15T19:00:00[+-]\d{2}:\d{2}$/);
    expect(built.value["media_refs"]).toEqual(["file_abc"]);
    const back = recordFromArguments(fieldsOf(SKILLS["travel_plan_itinerary"]), { origin: "HAN", budget_vnd: 21490000, dates: { from: "2026-03-01", to: "2026-03-02" }, unknown: 1 }, "vi");
    expect(back["budget_vnd"]).toBe("21.490.000 ₫");
    expect(back["dates"]).toEqual({ from: "2026-03-01", to: "2026-03-02" });
    expect("unknown" in back).toBe(false);
  });
});

describe("VND amounts and numbers as people write them", () => {
  it("reads 21.490.000 ₫ in its usual spellings, and nothing else", () => {
    for (const text of ["21.490.000", "21.490.000 ₫", "21,490,000", "21490000đ", " 21 490 000 VND "]) expect(parseVnd(text), text).toBe(21490000);
    for (const text of ["", "21.49", "21.4900.00", "-5", "45 triệu", "1e6", "0x10"]) expect(parseVnd(text), text).toBeNull();
    expect(formatVnd(21490000)).toBe("21.490.000 ₫");
    expect(formatVnd(0)).toBe("0 ₫");
  });

  it("reads decimals with the user's separator", () => {
    expect(parseNumber("9,8", "vi")).toBe(9.8);
    expect(parseNumber("9.8", "en")).toBe(9.8);
    expect(parseNumber("1.000", "vi")).toBe(1000);
    expect(parseNumber("abc", "en")).toBeNull();
  });
});

describe("the palette's list", () => {
  const spec = (name: string, kind: ToolSpec["kind"], description = ""): ToolSpec => toolSpec({ name, kind, description });

  it("names every skill in both languages, and other tools by their words", () => {
    for (const name of Object.keys(SKILLS)) {
      const s = spec(name, "skill", "English description");
      expect(humanTool(s, en).title, name).not.toContain("_");
      expect(humanTool(s, vi).description, name).not.toBe("English description");
    }
    expect(humanTool(spec("shopping_track_price", "skill"), vi)).toEqual({
      title: "Theo dõi giá",
      description: "Kiểm tra giá sản phẩm theo lịch và báo khi tổng tiền về mức bạn muốn (VND).",
    });
    expect(humanTool(spec("watch_pause", "primitive", "Pause a watch."), vi)).toEqual({ title: "Tạm dừng theo dõi", description: "Pause a watch." });
    // A tool with no words of its own: by its name in words.
    expect(humanTool(spec("files__read_file", "custom", "Read a file."), vi).title).toBe("Files read file");
  });

  it("puts the skills first, keeping the catalogue's order within each kind", () => {
    const order = paletteOrder([spec("a", "primitive"), spec("mine", "custom"), spec("s1", "skill"), spec("b", "primitive"), spec("s2", "skill")]);
    expect(order.map((t) => t.name)).toEqual(["s1", "s2", "a", "b", "mine"]);
  });
});
