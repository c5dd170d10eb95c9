//! The pure parsers: the streamed tool-call assembly, HTML → text, the one
//! money parser, and `normalize_compare`'s raw values. Each input runs
//! under `catch_unwind`; a panic or a broken invariant is a finding.

use std::collections::BTreeMap;

use halley::agent::StreamEvent;
use halley::agent::calls::prepare;
use halley::agent::stream::{Assembler, Chunk};
use halley::compare::{NormalizeCompareArgs, normalize_compare};
use halley::vocab::money::{Money, minor_units, parse_amount, parse_money};
use halley::watch::format;
use halley::watch::html::facts_from_html;
use serde_json::{Value, json};

use crate::kit::{Rng, Tally, bytes_of, fuzz_text, guarded, mutate};

// ---------------------------------------------------------------- stream

/// Streams as servers send them: OpenAI (indexed fragments, usage last),
/// Ollama and some proxies (no `index`), Gemini's OpenAI layer (arguments
/// as an object, whole calls in one chunk), the legacy `function_call`,
/// an error inside the stream, Vietnamese content.
const SSE_SEEDS: &[&str] = &[
    concat!(
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_abc\",\"type\":\"function\",\"function\":{\"name\":\"browser_navigate\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"url\\\": \\\"ht\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"tps://shop.vn/\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":21,\"total_tokens\":833}}\n\n",
        "data: [DONE]\n\n",
    ),
    concat!(
        "data: {\"model\":\"qwen2.5\",\"choices\":[{\"delta\":{\"content\":\"Giá \"}}]}\n\n",
        "data: {\"model\":\"qwen2.5\",\"choices\":[{\"delta\":{\"content\":\"hiện tại là 19.990.000 ₫.\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"watch_create\",\"arguments\":\"{\\\"url\\\":\\\"https://tiki.vn/p\\\",\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"\\\"rule\\\":\\\"price < 19.000.000 ₫\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c2\",\"function\":{\"name\":\"notify_user\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    ),
    concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"function-call-1\",\"type\":\"function\",\"function\":{\"name\":\"normalize_compare\",\"arguments\":{\"schema\":{\"total_cost\":\"number\"},\"items\":[{\"source\":\"a\",\"raw\":{\"price\":\"21tr490\"}}]}}},{\"index\":1,\"id\":\"function-call-2\",\"type\":\"function\",\"function\":{\"name\":\"files_list\",\"arguments\":{}}}]},\"finish_reason\":\"tool_calls\"}],\"model\":\"gemini-2.5-flash\"}\n\n",
        "data: [DONE]\n\n",
    ),
    concat!(
        "data: {\"choices\":[{\"delta\":{\"function_call\":{\"name\":\"user_profile_get\",\"arguments\":\"{\\\"keys\\\":\"}}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"function_call\":{\"arguments\":\"[\\\"travel\\\"]}\"}}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"function_call\"}]}\n\n",
        "data: [DONE]\n\n",
    ),
    concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"browser_click\",\"arguments\":\"{\\\"selector\\\":\\\"#buy\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"function\":{\"name\":\"browser_type\",\"arguments\":\"{\\\"selector\\\":\\\"#q\\\",\\\"text\\\":\\\"điện thoại\\\"}\"}}]}}]}\n\n",
        "data: {\"error\":{\"message\":\"upstream overloaded\",\"code\":503}}\n\n",
    ),
    "data: {\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Xin chào\"}],\"tool_calls\":{\"name\":\"web_search\",\"arguments\":{\"query\":\"vé máy bay Hà Nội\"}}},\"finish_reason\":\"tool_calls\",\"index\":\"0\"}],\"usage\":{\"prompt_tokens\":\"12\",\"completion_tokens\":3.0}}\r\n\r\ndata: [DONE]\r\n",
];

const SSE_DICT: &[&str] = &[
    "data: ",
    "data: [DONE]\n\n",
    "\n\n",
    "\r\n",
    ":keep-alive\n",
    "event: error\n",
    "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"}\"}}]}}]}",
    "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"x\",\"function\":{\"name\":\"browser_navigate\"}}]}}]}",
    "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0}]}}]}",
    "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"late\"}]}}]}",
    "\"index\":",
    "\"index\":18446744073709551615",
    "\"index\":-1",
    "\"index\":1e20",
    "\"id\":null",
    "\"name\":\"\"",
    "\"arguments\":null",
    "\"arguments\":[1,2]",
    "\"arguments\":\"{\\\"",
    "\\\"",
    "\\u0000",
    "\\ud800",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "\"function\":",
    "\"tool_calls\":",
    "\"content\":",
    "\"finish_reason\":\"length\"",
    "\"error\":",
    "₫",
    "ạ",
    "\u{feff}",
];

/// The `data:` payloads of an SSE text, as eventsource parsers read them
/// (`data:` lines joined by `\n` until a blank line), up to `[DONE]`.
fn sse_payloads(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut data: Option<String> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if let Some(d) = data.take() {
                if d.trim() == "[DONE]" {
                    return out;
                }
                out.push(d);
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    if let Some(d) = data.filter(|d| d.trim() != "[DONE]") {
        out.push(d);
    }
    out
}

/// Assemble one transcript as the client does: each payload read as a
/// [`Chunk`] (not JSON: the stream fails), pushed, finished; then each call
/// prepared as the run loop does. The invariants: every announced call is
/// in the completion at the index announced with the id announced; a call
/// whose arguments are not a JSON object is refused with an error, and the
/// history always holds valid JSON arguments.
fn assemble_one(text: &str) -> Result<String, String> {
    let mut asm = Assembler::new();
    let mut events = Vec::new();
    for payload in sse_payloads(text) {
        let Ok(chunk) = serde_json::from_str::<Chunk>(&payload) else {
            return Ok("stream error: not JSON".into());
        };
        if asm.push(chunk, &mut |e| events.push(e)).is_err() {
            return Ok("stream error: refused".into());
        }
    }
    let done = asm.finish();
    for e in &events {
        if let StreamEvent::ToolCallStarted { index, id, name } = e {
            match done.tool_calls.get(*index) {
                Some(c) if c.id == *id && c.name.starts_with(name.as_str()) => {}
                other => return Err(format!("announced call {index} ({id}, {name}) is {other:?} in the completion")),
            }
        }
    }
    for call in &done.tool_calls {
        let p = prepare(call);
        if serde_json::from_str::<Value>(&p.history_arguments).is_err() {
            return Err(format!("history arguments not JSON: {:?}", p.history_arguments));
        }
        let object = serde_json::from_str::<Value>(&call.arguments).is_ok_and(|v| v.is_object());
        if p.refused.is_none() && !(object && p.args.is_object()) {
            return Err(format!("arguments {:?} accepted without an error", call.arguments));
        }
    }
    Ok(match done.tool_calls.len() {
        0 if done.content.is_empty() => "nothing".into(),
        0 => "text".into(),
        n => {
            format!("{n} call(s), {} refused", done.tool_calls.iter().filter(|c| prepare(c).refused.is_some()).count())
        }
    })
}

pub fn fuzz_stream(n: u64, rng: &mut Rng) -> Tally {
    fuzz_text("streamed tool-call assembly", n, rng, SSE_SEEDS, SSE_DICT, assemble_one)
}

// ------------------------------------------------------------------ html

/// Real pages: the test site's shops (VND, USD, JSON-LD, microdata, hidden
/// parts, tables) and forms.
const HTML_SEEDS: &[&str] = &[
    include_str!("../../tests/fixtures/site/shop-vn.html"),
    include_str!("../../tests/fixtures/site/shop-us.html"),
    include_str!("../../tests/fixtures/site/shop-vn-prose.html"),
    include_str!("../../tests/fixtures/site/hidden.html"),
    include_str!("../../tests/fixtures/site/form.html"),
    include_str!("../../tests/fixtures/site/delayed-price.html"),
    "<p>Giá: <b>21.490.000&nbsp;₫</b> <s>23.990.000 ₫</s></p><table><tr><th>Bảo hành</th><td>24 tháng</td></tr></table>",
];

const HTML_DICT: &[&str] = &[
    "<div>",
    "</div>",
    "<p>",
    "<br>",
    "<span hidden>",
    "<td>",
    "<tr>",
    "<table>",
    "</table>",
    "<script>",
    "</script>",
    "<style>",
    "<template>",
    "<svg>",
    "<math>",
    "<select><option>",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "<!DOCTYPE html>",
    "<script type=\"application/ld+json\">{\"@type\":\"Product\",\"offers\":{\"price\":\"",
    "itemprop=\"price\" content=\"",
    "<meta property=\"product:price:amount\" content=\"",
    " style=\"display:none\"",
    " aria-hidden=\"true\"",
    "<",
    ">",
    "/>",
    "\"",
    "'",
    "=",
    "&amp;",
    "&nbsp;",
    "&#x20AB;",
    "&#0;",
    "&",
    "\u{0}",
    "₫",
    "đ",
    "19.990.000",
    "$1,299.99",
    "Hết hàng",
    "<div><div><div><div><div><div><div><div><div><div><div><div><div><div><div><div>",
];

/// Tags of the dictionary and the seeds that must never reach the text.
const TAGS: &[&str] =
    &["<div", "<p>", "<br", "<span", "<td", "<tr", "<table", "<script", "<style", "<meta", "<b>", "<s>"];

/// Inputs whose text may legitimately show a tag: an escaped `<`, a `<`
/// that starts no tag (`<<b>` is the text `<` then a bold `b`...), or
/// elements whose content is text (`<textarea>`, `<xmp>`...).
fn may_show_tags(html: &str) -> bool {
    let lower = html.to_ascii_lowercase();
    let literal_lt =
        lower.split('<').skip(1).any(|rest| !rest.starts_with(|c: char| c.is_ascii_alphabetic() || "/!?".contains(c)));
    literal_lt
        || ["&lt", "&#60", "&#x3c", "textarea", "xmp", "plaintext", "noembed", "noframes", "title", "cdata"]
            .iter()
            .any(|w| lower.contains(w))
}

pub fn fuzz_html(n: u64, rng: &mut Rng) -> Tally {
    let seeds = bytes_of(HTML_SEEDS);
    let dict = bytes_of(HTML_DICT);
    let selectors = [None, None, None, Some("main"), Some(".price"), Some("#gia"), Some("div >"), Some("[")];
    let mut tally = Tally::new("HTML -> text");
    for _ in 0..n {
        let html = String::from_utf8_lossy(&mutate(rng, &seeds, &dict)).into_owned();
        let selector = *rng.pick(&selectors);
        // A search snippet's text too (it keeps a script's source: only
        // its panics count), then the page's, which watches and the fence read.
        let read = guarded(|| {
            halley::search::plain(&html);
            facts_from_html(&html, "https://shop.example/p/1", selector)
        });
        let Some(facts) = read else {
            tally.panic(&html);
            continue;
        };
        if !may_show_tags(&html) {
            let lower = facts.as_ref().map(|f| f.text.to_ascii_lowercase()).unwrap_or_default();
            if let Some(tag) = TAGS.iter().find(|tag| lower.contains(*tag)) {
                tally.finding(format!("the text shows the tag {tag} for {html:?}"));
                tally.count("BROKEN".into());
                continue;
            }
        }
        tally.count(match &facts {
            None => "selector matched nothing".into(),
            Some(f) if f.prices.is_empty() => "text, no price".into(),
            Some(_) => "text and prices".into(),
        });
    }
    tally
}

// ----------------------------------------------------------------- money

const MONEY_SEEDS: &[&str] = &[
    "21.490.000 ₫",
    "21.490.000đ",
    "12,990,000 VND",
    "21tr490",
    "21,49 triệu",
    "1.2 triệu đồng",
    "490.000 ₫",
    "Giá: 19.990.000 ₫ (giảm 7%)",
    "Miễn phí",
    "Phí vận chuyển: 30.000đ",
    "$1,299.99",
    "US$ 89.90",
    "USD 1,000",
    "1.299,99 €",
    "€89,90",
    "EUR 1 234,56",
    "1 234,56 zł",
    "1'234.50 CHF",
    "₩12,900",
    "NT$1,290",
    "¥1,980",
    "£12.50",
    "19.99M",
    "1.2k",
    "-15%",
    "2-3 ngày",
    "Liên hệ",
    "0 ₫",
];

const MONEY_DICT: &[&str] = &[
    ".",
    ",",
    " ",
    "\u{a0}",
    "\u{202f}",
    "'",
    "-",
    "+",
    "−",
    "%",
    "₫",
    "đ",
    "VND",
    "vnđ",
    "$",
    "€",
    "EUR",
    "USD",
    "£",
    "¥",
    "₩",
    "triệu",
    "tr",
    "nghìn",
    "k",
    "K",
    "M",
    "tỷ",
    "000",
    "999",
    "0",
    "1",
    "9",
    "e9",
    "1e308",
    "Miễn phí",
    "free",
    "ngày",
    "tháng",
    "x",
    "\u{0}",
    "٣",
    "１",
];

/// `text` read by [`parse_money`] and [`parse_amount`] (which must agree),
/// then, for an amount, shown as notifications show it and read again:
/// the same currency and the same amount in minor units.
fn money_one(text: &str) -> Result<String, String> {
    let exact = parse_amount(text);
    let money = parse_money(text);
    match (&money, &exact) {
        (Ok((Money::Amount { value, currency }, _)), Ok((m, _))) => {
            if m.currency != *currency || (m.amount.to_f64() - value).abs() > value.abs() * 1e-12 {
                return Err(format!("parse_amount {m:?} and parse_money {value} {currency:?} disagree"));
            }
        }
        (Ok((Money::Percent(_), _)), Err(_)) => return Ok("percent".into()),
        (Err(_), Err(_)) => return Ok("refused".into()),
        _ => return Err(format!("parse_amount {exact:?} and parse_money {money:?} disagree")),
    }
    let Ok((Money::Amount { value, currency }, _)) = money else { unreachable!() };
    if !value.is_finite() {
        return Err(format!("a non-finite amount {value}"));
    }
    // Shown with two decimals at most and grouped: amounts people pay.
    if !(0.0..1e13).contains(&value) {
        return Ok("amount out of the shown range".into());
    }
    let code = currency.unwrap_or("");
    let shown = format::money(value, currency);
    let again = parse_money(&shown);
    let Ok((Money::Amount { value: v2, currency: c2 }, _)) = again else {
        return Err(format!("{value} {currency:?} shown as {shown:?} does not read back: {again:?}"));
    };
    let unit = if code.is_empty() { "XXX" } else { code };
    if c2 != currency || minor_units(v2, unit) != minor_units(value, unit) {
        return Err(format!("{value} {currency:?} shown as {shown:?} reads back as {v2} {c2:?}"));
    }
    Ok(format!("amount {}", currency.unwrap_or("without currency")))
}

pub fn fuzz_money(n: u64, rng: &mut Rng) -> Tally {
    fuzz_text("money parser", n, rng, MONEY_SEEDS, MONEY_DICT, money_one)
}

// --------------------------------------------------------------- compare

const SCHEMAS: &[&str] = &[
    r#"{"total_cost": "number", "warranty_months": "number", "return_days": "number"}"#,
    r#"{"price_vnd": "number", "delivery_days": "integer", "in_stock": "boolean", "name": "string"}"#,
    r#"{"gia": "number", "bao_hanh_thang": "number", "phi_van_chuyen": "number"}"#,
    r#"{"total_cost": "number", "weight_kg": "number"}"#,
];

const RAW_KEYS: &[&str] = &[
    "price",
    "ship",
    "shipping",
    "delivery",
    "discount",
    "warranty",
    "warranty_months",
    "return",
    "return_days",
    "in_stock",
    "name",
    "giá",
    "phí vận chuyển",
    "bảo hành",
    "giảm giá",
    "weight",
    "trọng lượng",
    "total",
    "",
];

/// Raw values as shops write them (the money seeds too).
const RAW_TEXTS: &[&str] = &[
    "12m",
    "24 tháng",
    "2 năm",
    "Trọn đời",
    "30 ngày",
    "2-3 days",
    "1 tuần",
    "còn hàng",
    "Hết hàng",
    "✓",
    "yes",
    "1,5 kg",
    "800 g",
    "2 lbs",
    "-10%",
    "giảm 500k",
    "NaN",
    "1.2.3",
    "",
];

/// A raw value: a mutated text, or another JSON shape now and then.
fn raw_value(rng: &mut Rng, texts: &[&[u8]], dict: &[&[u8]]) -> Value {
    match rng.below(10) {
        0 => json!(rng.next() as i64 as f64 / 1000.0),
        1 => json!(rng.next() % 100_000_000),
        2 => json!({"value": rng.below(50), "unit": "years"}),
        3 => Value::Array(vec![json!(1), json!("2 năm")]),
        4 => [Value::Null, json!(true), json!(1e308), json!(-0.0)][rng.below(4)].clone(),
        _ => Value::String(String::from_utf8_lossy(&mutate(rng, texts, dict)).into_owned()),
    }
}

fn compare_one(args: &Value) -> Result<String, String> {
    let Ok(parsed) = serde_json::from_value::<NormalizeCompareArgs>(args.clone()) else {
        return Ok("arguments refused by the schema".into());
    };
    let out = match normalize_compare(&parsed) {
        Ok(out) => out,
        Err(e) if e.code() == halley::ErrorCode::InvalidArguments => return Ok("invalid_arguments".into()),
        Err(e) => return Err(format!("error {:?}: {}", e.code(), e.message())),
    };
    if out.items.len() != parsed.items.len() {
        return Err(format!("{} items in, {} out", parsed.items.len(), out.items.len()));
    }
    for item in &out.items {
        if item.normalized.len() != parsed.schema.len() {
            return Err(format!("fields {:?} for the schema {:?}", item.normalized.keys(), parsed.schema.keys()));
        }
    }
    if out.ranking.iter().any(|r| r.item >= out.items.len()) {
        return Err("a ranked item out of range".into());
    }
    serde_json::to_string(&out).map_err(|e| format!("output not serializable: {e}"))?;
    Ok(format!("{} ranked", if out.ranking.is_empty() { "none" } else { "some" }))
}

pub fn fuzz_compare(n: u64, rng: &mut Rng) -> Tally {
    let mut texts: Vec<&str> = RAW_TEXTS.to_vec();
    texts.extend_from_slice(MONEY_SEEDS);
    let texts = bytes_of(&texts);
    let dict = bytes_of(MONEY_DICT);
    let keys = bytes_of(RAW_KEYS);
    let schemas: Vec<Value> = SCHEMAS.iter().filter_map(|s| serde_json::from_str(s).ok()).collect();
    let mut tally = Tally::new("normalize_compare raw values");
    for _ in 0..n {
        let items: Vec<Value> = (0..1 + rng.below(4))
            .map(|i| {
                let raw: BTreeMap<String, Value> = (0..1 + rng.below(5))
                    .map(|_| {
                        let key = if rng.chance(90) {
                            (*rng.pick(RAW_KEYS)).to_owned()
                        } else {
                            String::from_utf8_lossy(&mutate(rng, &keys, &dict)).into_owned()
                        };
                        (key, raw_value(rng, &texts, &dict))
                    })
                    .collect();
                json!({"source": format!("store{i}"), "raw": raw})
            })
            .collect();
        let mut args = json!({"schema": rng.pick(&schemas), "items": items});
        match rng.below(6) {
            0 => args["currency"] = json!("VND"),
            1 => {
                args["currency"] = json!("VND");
                args["fx"] = json!({"USD": 25400, "EUR": 27500.5});
            }
            2 => args["rank_by"] = json!([]),
            _ => {}
        }
        tally.checked(&args.to_string(), guarded(|| compare_one(&args)));
    }
    tally
}
