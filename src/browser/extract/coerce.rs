//! Turning a candidate value into the requested type: numbers and money
//! (`21.490.000 ₫` → 21490000, `1.299,99 €` → 1299.99), durations in the
//! field's unit (`2 năm` → 24 months), booleans, ISO dates, absolute URLs,
//! arrays, objects and clean strings. A value that does not fit is rejected
//! with a reason, never guessed.

use std::sync::LazyLock;

use chrono::NaiveDate;
use regex::Regex;
use serde_json::Value;
use url::Url;

use super::Candidate;
use super::names::{Concept, FieldSpec, Unit};
use crate::tools::catalogue::capture::ExtractFieldType;
use crate::vocab::Reject as ParseReject;
use crate::vocab::duration::{DurUnit, RangePick, parse_duration};
use crate::vocab::money::{Money, currency_code, detect_currency, parse_money};
use crate::vocab::number::parse_number;
use crate::vocab::text::fold;
use crate::vocab::value::{is_blank, parse_bool};

/// Longest string value kept, in characters.
const MAX_STRING: usize = 4_000;

/// What coercion knows about the page.
#[derive(Debug, Clone, Default)]
pub(super) struct Ctx {
    /// The page URL relative links are resolved against.
    pub base: Option<Url>,
    /// `dd/mm` vs `mm/dd`: month first only for US English pages.
    pub month_first: bool,
    /// Vietnamese page: day-first dates need no note.
    pub vietnamese: bool,
}

impl Ctx {
    pub(super) fn new(url: &str, lang: &str) -> Self {
        let lang = lang.trim().to_ascii_lowercase().replace('_', "-");
        Self {
            base: Url::parse(url.trim()).ok().filter(|u| matches!(u.scheme(), "http" | "https" | "file")),
            month_first: lang == "en-us",
            vietnamese: lang == "vi" || lang.starts_with("vi-"),
        }
    }
}

/// Why a candidate was not used.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Reject {
    /// No value at all (`""`, `N/A`, `Liên hệ`): skipped quietly.
    Blank,
    /// A value of the wrong kind; the reason goes into the notes.
    Bad(String),
}

/// A value of the requested type, with warnings worth a note.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Coerced {
    pub value: Value,
    pub warnings: Vec<String>,
}

fn ok(value: Value) -> Result<Coerced, Reject> {
    Ok(Coerced { value, warnings: Vec::new() })
}

fn bad<T>(reason: String) -> Result<T, Reject> {
    Err(Reject::Bad(reason))
}

/// A value as text: scalars as written, `{name}`/`{@value}`/addresses read,
/// arrays joined with `, `.
pub(super) fn text_of(v: &Value) -> Option<String> {
    let t = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => items.iter().filter_map(text_of).collect::<Vec<_>>().join(", "),
        Value::Object(m) => {
            if m.contains_key("streetAddress") || m.contains_key("addressLocality") {
                let parts = ["streetAddress", "addressLocality", "addressRegion", "postalCode", "addressCountry"];
                parts.iter().filter_map(|k| m.get(*k).and_then(text_of)).collect::<Vec<_>>().join(", ")
            } else {
                let keys = ["@value", "name", "value", "text", "url", "contentUrl", "description"];
                keys.iter().find_map(|k| m.get(*k).and_then(text_of))?
            }
        }
        Value::Null => return None,
    };
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    (!t.is_empty()).then_some(t)
}

/// Whole numbers as JSON integers (`21490000`, not `21490000.0`).
pub(super) fn number_value(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

/// Coerces a candidate to the field's type.
pub(super) fn coerce(c: &Candidate, ty: ExtractFieldType, spec: &FieldSpec, ctx: &Ctx) -> Result<Coerced, Reject> {
    if let Value::String(s) = &c.value
        && is_blank(s)
    {
        return Err(Reject::Blank);
    }
    match ty {
        ExtractFieldType::Number => number(&c.value, c.currency.as_deref(), spec, 0)
            .map(|(f, warnings)| Coerced { value: number_value(f), warnings }),
        ExtractFieldType::Integer => integer(c, spec),
        ExtractFieldType::Boolean => boolean(&c.value).map(|b| Coerced { value: Value::Bool(b), warnings: Vec::new() }),
        ExtractFieldType::Date => date(&c.value, ctx),
        ExtractFieldType::Url => url(&c.value, ctx, 0).map(Value::String).and_then(ok),
        ExtractFieldType::Array => array(&c.value, spec, ctx),
        ExtractFieldType::Object => match &c.value {
            Value::Object(m) => {
                let mut m = m.clone();
                m.remove("@context");
                ok(Value::Object(m))
            }
            other => bad(format!("{} is not an object", show(other))),
        },
        ExtractFieldType::String => string(&c.value, spec, ctx),
    }
}

/// A short quoted rendering of a value for notes.
pub(super) fn show(v: &Value) -> String {
    if v.is_string() { format!("\"{}\"", plain(v)) } else { plain(v) }
}

/// A short rendering of a value for notes, strings unquoted (`25.990.000 ₫`).
pub(super) fn plain(v: &Value) -> String {
    let t = match v {
        Value::String(s) => s.split_whitespace().collect::<Vec<_>>().join(" "),
        other => other.to_string(),
    };
    let cut: String = t.chars().take(60).collect();
    if cut.len() < t.len() { format!("{cut}…") } else { t }
}

fn number(v: &Value, currency: Option<&str>, spec: &FieldSpec, depth: usize) -> Result<(f64, Vec<String>), Reject> {
    if depth > 3 {
        return bad(format!("{} is not a number", show(v)));
    }
    let text = match v {
        Value::Number(n) => {
            let f = n.as_f64().ok_or_else(|| Reject::Bad(format!("{n} is out of range")))?;
            check_currency(v, currency, spec)?;
            return Ok((f, Vec::new()));
        }
        Value::Object(m) => {
            let inner = ["value", "price", "ratingValue", "@value", "amount"].iter().find_map(|k| m.get(*k));
            return match inner {
                Some(inner) => number(inner, currency, spec, depth + 1),
                None => bad(format!("{} is not a number", show(v))),
            };
        }
        Value::Array(items) => match items.first() {
            Some(first) => return number(first, currency, spec, depth + 1),
            None => return Err(Reject::Blank),
        },
        Value::Bool(_) | Value::Null => return bad(format!("{} is not a number", show(v))),
        Value::String(s) => s.trim(),
    };
    if is_blank(text) {
        return Err(Reject::Blank);
    }
    let money_text = detect_currency(text).is_some();
    if spec.is_money() || money_text {
        match parse_money(text) {
            Ok((Money::Amount { value, currency: stated }, warnings)) => {
                check_currency(v, stated.or(currency), spec)?;
                return Ok((value, warnings));
            }
            Ok((Money::Percent(_), _)) => return bad(format!("\"{text}\" is a percentage, not an amount")),
            Err(ParseReject::WrongKind) if spec.duration_unit().is_some() => {}
            Err(ParseReject::WrongKind) => return bad(format!("\"{text}\" is not an amount of money")),
            Err(ParseReject::Bad(reason)) => return bad(reason),
        }
    }
    if let Some(unit) = spec.duration_unit() {
        return match parse_duration(text, RangePick::Low) {
            Ok((d, warnings)) => Ok((d.unit.map_or(d.value, |from| DurUnit::convert(d.value, from, unit)), warnings)),
            Err(ParseReject::WrongKind) => bad(format!("\"{text}\" is an amount of money, not a duration")),
            Err(ParseReject::Bad(reason)) => bad(reason),
        };
    }
    parse_number(text).map_err(|e| match e {
        ParseReject::Bad(reason) => Reject::Bad(reason),
        ParseReject::WrongKind => Reject::Bad(format!("\"{text}\" is not a number")),
    })
}

/// A `price_vnd`-style field only takes amounts in its currency (no invented conversion).
fn check_currency(v: &Value, stated: Option<&str>, spec: &FieldSpec) -> Result<(), Reject> {
    let (Some(Unit::Currency(want)), Some(stated)) = (spec.unit, stated) else { return Ok(()) };
    match currency_code(stated) {
        Some(got) if got != want => bad(format!("{} is in {got}, not {want}", show(v))),
        _ => Ok(()),
    }
}

fn integer(c: &Candidate, spec: &FieldSpec) -> Result<Coerced, Reject> {
    let (f, warnings) = number(&c.value, c.currency.as_deref(), spec, 0)?;
    if f.fract() == 0.0 {
        return Ok(Coerced { value: number_value(f), warnings });
    }
    // `1.234 đánh giá`: a dot grouping thousands in a count.
    if let Value::String(s) = &c.value
        && let Ok((Money::Amount { value, .. }, warnings)) = parse_money(s)
        && value.fract() == 0.0
    {
        return Ok(Coerced { value: number_value(value), warnings });
    }
    bad(format!("{} is not a whole number", show(&c.value)))
}

/// schema.org availability (`https://schema.org/InStock`, `OutOfStock`...) as yes/no.
pub(super) fn availability(text: &str) -> Option<bool> {
    let last = text.trim().rsplit('/').next().unwrap_or("");
    let key: String = fold(last).chars().filter(|c| c.is_alphanumeric()).collect();
    match key.as_str() {
        "instock" | "limitedavailability" | "onlineonly" | "instoreonly" => Some(true),
        "outofstock" | "soldout" | "discontinued" | "preorder" | "presale" | "backorder" | "madetoorder" | "oos" => {
            Some(false)
        }
        _ => None,
    }
}

fn boolean(v: &Value) -> Result<bool, Reject> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Number(n) => Ok(n.as_f64().is_some_and(|f| f != 0.0)),
        other => {
            let text = text_of(other).ok_or(Reject::Blank)?;
            availability(&text)
                .or_else(|| parse_bool(&text))
                .ok_or_else(|| Reject::Bad(format!("{} is not yes/no", show(other))))
        }
    }
}

fn url(v: &Value, ctx: &Ctx, depth: usize) -> Result<String, Reject> {
    let text = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Object(m) if depth < 3 => {
            let inner = ["url", "contentUrl", "@id", "src"].iter().find_map(|k| m.get(*k));
            return inner.map_or_else(|| bad(format!("{} is not a URL", show(v))), |i| url(i, ctx, depth + 1));
        }
        Value::Array(items) if depth < 3 => {
            return items.first().map_or(Err(Reject::Blank), |i| url(i, ctx, depth + 1));
        }
        other => return bad(format!("{} is not a URL", show(other))),
    };
    if text.is_empty() {
        return Err(Reject::Blank);
    }
    let parsed = if text.chars().any(char::is_whitespace) {
        None
    } else {
        match &ctx.base {
            Some(base) => base.join(&text).ok(),
            None => Url::parse(&text).ok(),
        }
    };
    match parsed {
        Some(u) if matches!(u.scheme(), "http" | "https" | "file") => Ok(u.to_string()),
        _ => bad(format!("\"{text}\" is not a URL")),
    }
}

fn array(v: &Value, spec: &FieldSpec, ctx: &Ctx) -> Result<Coerced, Reject> {
    let links = matches!(spec.concept, Some(Concept::Image | Concept::Url));
    let item = |v: &Value| -> Value {
        match v {
            Value::String(s) if links => {
                url(v, ctx, 0).map_or_else(|_| Value::String(s.trim().to_string()), Value::String)
            }
            Value::Object(_) if links => url(v, ctx, 0).map_or_else(|_| v.clone(), Value::String),
            other => other.clone(),
        }
    };
    let items: Vec<Value> = match v {
        Value::Array(items) => items.iter().filter(|i| !i.is_null()).map(item).collect(),
        Value::String(s) => s
            .split([',', ';', '|', '\n', '•', '·'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| item(&Value::String(p.to_string())))
            .collect(),
        Value::Null => Vec::new(),
        other => vec![item(other)],
    };
    if items.is_empty() { Err(Reject::Blank) } else { ok(Value::Array(items)) }
}

fn stock_state(in_stock: bool) -> &'static str {
    if in_stock { "InStock" } else { "OutOfStock" }
}

fn string(v: &Value, spec: &FieldSpec, ctx: &Ctx) -> Result<Coerced, Reject> {
    match spec.concept {
        Some(Concept::Currency) => {
            let text = text_of(v).ok_or(Reject::Blank)?;
            return currency_code(&text)
                .map(Value::String)
                .ok_or_else(|| Reject::Bad(format!("\"{text}\" is not a currency")))
                .and_then(ok);
        }
        Some(Concept::Image | Concept::Url) => {
            if let Ok(u) = url(v, ctx, 0) {
                return ok(Value::String(u));
            }
        }
        Some(Concept::Availability) => {
            // In stock / out of stock, in schema.org's words; anything else
            // (a date, a title, "NOT SOLD") is not a stock state.
            if let Value::Bool(b) = v {
                return ok(Value::String(stock_state(*b).to_string()));
            }
            let text = text_of(v).ok_or(Reject::Blank)?;
            if text.contains("schema.org") {
                let short = text.rsplit('/').next().unwrap_or(&text).to_string();
                return ok(Value::String(short));
            }
            return availability(&text)
                .or_else(|| parse_bool(&text))
                .map(|b| Value::String(stock_state(b).to_string()))
                .ok_or_else(|| Reject::Bad(format!("\"{text}\" is not a stock state")))
                .and_then(ok);
        }
        _ => {}
    }
    let text = text_of(v).ok_or(Reject::Blank)?;
    if text.chars().count() > MAX_STRING {
        let cut: String = text.chars().take(MAX_STRING).collect();
        return Ok(Coerced {
            value: Value::String(format!("{cut}…")),
            warnings: vec![format!("cut at {MAX_STRING} characters")],
        });
    }
    ok(Value::String(text))
}

fn date(v: &Value, ctx: &Ctx) -> Result<Coerced, Reject> {
    let text = match v {
        Value::Object(m) => m.get("@value").or_else(|| m.get("startDate")).and_then(text_of),
        Value::Array(items) => items.first().and_then(text_of),
        Value::String(s) => Some(s.clone()),
        _ => None,
    };
    let Some(text) = text else { return bad(format!("{} is not a date", show(v))) };
    if is_blank(&text) {
        return Err(Reject::Blank);
    }
    let Some((d, ambiguous)) = parse_date(&text, ctx.month_first) else {
        return bad(format!("\"{}\" is not a date", text.trim()));
    };
    let mut warnings = Vec::new();
    if ambiguous && !ctx.vietnamese {
        let order = if ctx.month_first { "month-first" } else { "day-first" };
        warnings.push(format!("\"{}\" read {order}", text.trim()));
    }
    Ok(Coerced { value: Value::String(d.format("%Y-%m-%d").to_string()), warnings })
}

fn month_number(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    MONTHS.iter().position(|m| word.starts_with(m)).and_then(|i| u32::try_from(i + 1).ok())
}

/// The first date in a text: ISO `2026-02-10` (time ignored), `2026/02/10`,
/// `10/02/2026` (day first unless `month_first`; a part above 12 settles
/// it), `Feb 10, 2026`, `10 February 2026`, `10 tháng 2, 2026`. Returns the
/// date and whether day/month order was a guess.
pub(super) fn parse_date(text: &str, month_first: bool) -> Option<(NaiveDate, bool)> {
    const MON: &str = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?";
    static PATTERNS: LazyLock<Vec<(u8, Regex)>> = LazyLock::new(|| {
        [
            (0, r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[^0-9]|$)".to_string()),
            (1, r"\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\b".to_string()),
            (2, format!(r"\b{MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")),
            (3, format!(r"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MON},?\s+(\d{{4}})\b")),
            (4, r"\b(\d{1,2})\s+thang\s+(\d{1,2})\s*(?:,|nam)?\s*(?:nam\s+)?(\d{4})\b".to_string()),
        ]
        .into_iter()
        .filter_map(|(k, p)| Regex::new(&p).ok().map(|r| (k, r)))
        .collect()
    });
    let folded = fold(text);
    let mut best: Option<(usize, NaiveDate, bool)> = None;
    for (kind, re) in PATTERNS.iter() {
        let Some(c) = re.captures(&folded) else { continue };
        let at = c.get(0).map_or(0, |m| m.start());
        let g = |i: usize| c.get(i).map(|m| m.as_str()).unwrap_or("");
        let n = |i: usize| g(i).parse::<u32>().ok();
        let parsed = match kind {
            0 => n(1).zip(n(2)).zip(n(3)).map(|((y, m), d)| (y, m, d, false)),
            1 => n(1).zip(n(2)).zip(n(3)).map(|((a, b), y)| {
                let ambiguous = a <= 12 && b <= 12 && a != b;
                if a > 12 || (!month_first && b <= 12) { (y, b, a, ambiguous) } else { (y, a, b, ambiguous) }
            }),
            2 => month_number(g(1)).zip(n(2)).zip(n(3)).map(|((m, d), y)| (y, m, d, false)),
            3 => n(1).zip(month_number(g(2))).zip(n(3)).map(|((d, m), y)| (y, m, d, false)),
            _ => n(1).zip(n(2)).zip(n(3)).map(|((d, m), y)| (y, m, d, false)),
        };
        let Some((y, m, d, ambiguous)) = parsed else { continue };
        let Some(date) = i32::try_from(y).ok().and_then(|y| NaiveDate::from_ymd_opt(y, m, d)) else { continue };
        if best.is_none_or(|(b, _, _)| at < b) {
            best = Some((at, date, ambiguous));
        }
    }
    best.map(|(_, d, a)| (d, a))
}

/// Two strings say the same thing: folded and whitespace-collapsed, one
/// contains the other (a truncated `…` description, a title with a shop suffix).
pub(super) fn fold_eq(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        let f = fold(s).split_whitespace().collect::<Vec<_>>().join(" ");
        f.trim_end_matches(['…', '.']).trim().to_string()
    };
    let (x, y) = (norm(a), norm(b));
    if x.is_empty() || y.is_empty() {
        return x == y;
    }
    x.contains(&y) || y.contains(&x)
}
