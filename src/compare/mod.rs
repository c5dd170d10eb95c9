//! `normalize_compare`: maps raw offer fields onto a target schema
//! (synonyms, units, currencies, number formats), reports missing fields and
//! ranks the items. Pure and deterministic: same arguments, same output.
//!
//! # Field matching
//!
//! Names are compared in a normalised form: lowercase, Vietnamese (and common
//! Latin) diacritics stripped (`đ`→`d`, `ắ`→`a`), every run of `_`, `-`,
//! spaces and punctuation turned into one `_`: `"Phí vận chuyển"` →
//! `phi_van_chuyen`. A last token naming a unit is a *suffix*
//! (`warranty_months`, `return_days`, `price_vnd`, `weight_kg`); the name
//! without it is the *base*. For each schema field the raw fields are tried in
//! this order, the first whose value parses wins:
//!
//! 1. the same normalised name, 2. the same base (`warranty` ↔ `warranty_years`),
//! 3. the synonyms of the field's concept, English then Vietnamese
//!    (see [`fields::Concept::synonyms`]): total cost, price, shipping, fees,
//!    discount, warranty, return window, delivery time, rating, in-stock,
//! 4. raw names *containing* a multi-word synonym or a distinctive word
//!    (`chinh_sach_bao_hanh`, `warranty_info`), unless the raw name is itself
//!    a synonym of another concept.
//!
//! A `total_cost`-like field with no total in the raw data is computed as
//! `price + shipping + fees − discount` (only the price is required; a
//! percentage discount is taken of the price). `mapped_from` records which raw
//! field(s) fed every normalised field, e.g. `"price + ship"`.
//! `"delivery": 12` feeds shipping (an amount); `"delivery": "2-3 ngày"` feeds
//! a delivery time (ambiguous names need an explicit unit for durations).
//!
//! # Values
//!
//! * Money — see [`money::parse_money`]. The first number in the text is read.
//!   `.`/`,`: when both appear the last one is the decimal separator; one kind
//!   repeated groups thousands (`21.490.000`); a single one followed by
//!   exactly three digits groups thousands (prices with three decimals do not
//!   exist; VND never has decimals), otherwise it is a decimal point
//!   (`€89,90`, `19.99`). Spaces/apostrophes before three digits group
//!   thousands (`1 299,99 zł`). Magnitudes: `k`/`nghìn`/`ngàn` ×10³,
//!   `tr`/`triệu`/`M`/`mil`/`million` ×10⁶, `tỷ`/`B`/`bn`/`billion` ×10⁹; with
//!   a magnitude the separator is always decimal (`21,49 triệu`, `1.2k`);
//!   digits glued after a magnitude fill the next unit (`21tr490` =
//!   21 490 000, `21tr5` = 21 500 000); `21 triệu 490 nghìn`, `21 triệu rưỡi`.
//!   `Miễn phí`/`free`/`freeship`/`included` → 0. A text naming a duration is
//!   not money. A text with several numbers uses the first and warns.
//! * Other numbers (ratings, weights) — the same reader, except that a single
//!   `.` before three digits is a decimal point (`1.250` = 1.25, `1,250` =
//!   1250), `m`/`b` are not magnitudes, and `4.5/5` is just 4.5. `weight_kg`-
//!   style fields convert `g`/`kg`/`lb`.
//! * Currency — symbols `₫ $ € £ ¥ 円 ₩ ฿ ₹ zł` (and `US$`, `S$`...), codes and
//!   words (`VND`, `vnđ`, `đồng`, `usd`, `euro`), a lone `đ` (`21.490.000đ`),
//!   a raw `currency` field, or a raw name suffix (`price_vnd`). Amounts with no
//!   stated currency take the item's, then the comparison currency.
//!   Items in another currency are never converted with invented rates: they
//!   are converted only with the caller's `fx` rates, otherwise they keep their
//!   own currency, get a warning and are left out of a ranking on money fields
//!   (listed in `unranked`).
//! * Durations — `12m`, `12 months`, `2 years`, `2y`, `1 năm`, `24 tháng`,
//!   `30 days`, `30 ngày`, `2 weeks`, `2 tuần`, `24h`, `1,5 năm`; the first
//!   number+unit pair of a sentence; ranges keep the conservative end (upper
//!   for delivery times, lower for warranties and returns); `không`/`no
//!   returns` → 0; `trọn đời`/`lifetime` is unreadable (warning). Converted to
//!   the unit of the field's suffix, else months for warranties, days for
//!   returns and delivery (month = 30 days, year = 12 months = 365 days).
//!   A bare number takes the unit of the raw name's suffix, else that default.
//! * Booleans — `true/false`, `yes/no`, `có/không`, `còn hàng/hết hàng`,
//!   `in stock/out of stock`, non-zero numbers.
//! * `integer` fields are rounded; whole `number`s are emitted as JSON
//!   integers; `string` fields get the trimmed raw text. `null`, `""`, `N/A`,
//!   `-`, `liên hệ` are missing values (no warning).
//!
//! # Ranking
//!
//! Keys are `rank_by` in the given order, else every field with a known
//! direction, cost-like first (total cost, price, shipping, fees, delivery
//! time: ascending) then benefits (warranty, return window, rating, discount,
//! in stock: descending), schema order within a group. Fields of unknown
//! meaning are only ranked when `rank_by` names them with an `order`.
//! Comparison is lexicographic over the keys; a missing value ranks after any
//! present one; full ties keep input order.

mod fields;
mod mass;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::vocab::duration::{self, DurUnit, RangePick};
use crate::vocab::money::{self, Money};
use crate::vocab::text::fold_key;
use crate::vocab::{Parsed, Reject, number, value};
use fields::{Concept, KeyInfo, Suffix, exact_concept, key_info, target_concept};
use mass::MassUnit;

/// The type a target field is normalised to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    Number,
    Integer,
    String,
    Boolean,
}

/// One offer as scraped: where it came from and its raw fields.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawItem {
    /// Where the item comes from (store name or URL).
    pub source: String,
    /// The raw fields, any names and formats (`{"price": "21.490.000 ₫", "warranty": "12m"}`).
    pub raw: Map<String, Value>,
}

/// Sort direction of a ranking key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    /// Lower is better (costs, delivery time).
    Asc,
    /// Higher is better (warranty, return window, rating).
    Desc,
}

/// One ranking key.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankKey {
    /// A schema field name.
    pub field: String,
    /// Direction; omit to use the field's default (costs ascending, benefits
    /// descending). Required for fields of unknown meaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<SortOrder>,
}

/// Arguments of `normalize_compare`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NormalizeCompareArgs {
    /// Target field → type, e.g. `{"total_cost": "number", "warranty_months": "number"}`.
    /// A name's last word may carry a unit: `warranty_months`, `return_days`, `price_vnd`.
    pub schema: BTreeMap<String, FieldType>,
    /// The items to normalise and compare.
    #[schemars(length(min = 1))]
    pub items: Vec<RawItem>,
    /// Ranking keys, most important first. Omit for the default order (costs,
    /// then benefits); an empty list turns ranking off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_by: Option<Vec<RankKey>>,
    /// Currency to compare money in (ISO code or symbol: `VND`, `₫`, `USD`).
    /// Default: a currency suffix in the schema (`price_vnd`), else the most
    /// common currency among the items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// Exchange rates into `currency` (required with it): units of `currency`
    /// per one unit of the key, e.g. `{"USD": 25400}` with `currency: "VND"`.
    /// Without a rate, items in other currencies are not converted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fx: Option<BTreeMap<String, f64>>,
}

/// `data` of a successful `normalize_compare`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct NormalizeCompareOutput {
    /// One entry per input item, in input order.
    pub items: Vec<NormalizedItem>,
    /// Ranked items, best first.
    pub ranking: Vec<RankedItem>,
    /// Items left out of the ranking (money in a currency that could not be converted).
    pub unranked: Vec<UnrankedItem>,
    /// Source of the best item; null when nothing could be ranked.
    pub best: Option<String>,
    /// The ranking keys actually used, with their directions.
    pub rank_by: Vec<RankKey>,
    /// The currency money fields are compared in (null when none is stated).
    pub currency: Option<String>,
    /// Warnings about the whole comparison (mixed currencies, nothing to rank).
    pub warnings: Vec<String>,
}

/// One item mapped onto the schema.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct NormalizedItem {
    pub source: String,
    /// Every schema field; null when it could not be derived.
    pub normalized: BTreeMap<String, Value>,
    /// Schema fields that could not be derived.
    pub missing_fields: Vec<String>,
    /// Schema field → the raw field(s) it came from (`"price + ship"`).
    pub mapped_from: BTreeMap<String, String>,
    /// ISO currency of this item's money fields (after any `fx` conversion).
    pub currency: Option<String>,
    /// What could not be read or was assumed.
    pub warnings: Vec<String>,
}

/// A ranked item.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct RankedItem {
    /// 1 = best. Ties are broken by input order.
    pub rank: usize,
    pub source: String,
    /// Index of the item in the input `items`.
    pub item: usize,
    /// Why it sits above the next item (or its values, for the last one).
    pub reason: String,
}

/// An item left out of the ranking.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct UnrankedItem {
    pub source: String,
    /// Index of the item in the input `items`.
    pub item: usize,
    pub reason: String,
}

// ------------------------------------------------------------------ targets

/// How a target field's values are read.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Money,
    Duration(DurUnit),
    Number(Option<MassUnit>),
    Bool,
    Text,
}

#[derive(Debug, Clone)]
struct Target {
    name: String,
    ty: FieldType,
    info: KeyInfo,
    concept: Concept,
    kind: Kind,
}

impl Target {
    fn new(name: &str, ty: FieldType) -> Self {
        let info = key_info(name);
        let concept = target_concept(&info);
        let kind = match ty {
            FieldType::String => Kind::Text,
            FieldType::Boolean => Kind::Bool,
            FieldType::Number | FieldType::Integer => match info.suffix {
                Some(Suffix::Currency(_)) => Kind::Money,
                Some(Suffix::Dur(u)) => Kind::Duration(u),
                Some(Suffix::Mass(m)) => Kind::Number(Some(m)),
                None if concept.is_money() => Kind::Money,
                None if concept.is_duration() => Kind::Duration(concept.default_dur_unit()),
                None => Kind::Number(None),
            },
        };
        Self { name: name.to_string(), ty, info, concept, kind }
    }

    /// A money field of `concept` looked up on behalf of the schema field
    /// `parent` (total-cost components); warnings name the parent.
    fn component(concept: Concept, parent: &str) -> Self {
        let name = concept.synonyms().first().copied().unwrap_or("price");
        Self { name: parent.to_string(), ty: FieldType::Number, info: key_info(name), concept, kind: Kind::Money }
    }

    fn default_order(&self) -> Option<SortOrder> {
        if self.kind == Kind::Text {
            return None;
        }
        match self.concept {
            Concept::TotalCost | Concept::Price | Concept::Shipping | Concept::Fees | Concept::DeliveryTime => {
                Some(SortOrder::Asc)
            }
            Concept::Warranty | Concept::ReturnWindow | Concept::Rating | Concept::Discount | Concept::InStock => {
                Some(SortOrder::Desc)
            }
            Concept::Other => None,
        }
    }

    /// Position in the default ranking (cost-like first, then benefits).
    fn default_priority(&self) -> usize {
        const ORDER: [Concept; 10] = [
            Concept::TotalCost,
            Concept::Price,
            Concept::Shipping,
            Concept::Fees,
            Concept::DeliveryTime,
            Concept::Warranty,
            Concept::ReturnWindow,
            Concept::Rating,
            Concept::Discount,
            Concept::InStock,
        ];
        ORDER.iter().position(|c| *c == self.concept).unwrap_or(ORDER.len())
    }
}

// ------------------------------------------------------------------ raw values

struct RawEntry<'a> {
    key: &'a str,
    info: KeyInfo,
    value: &'a Value,
}

/// A raw value reduced to a scalar.
enum Scalar {
    Num(f64),
    Text(String),
    Bool(bool),
}

/// Keys of an object value holding an amount and its unit
/// (`{"amount": 100, "currency": "USD"}`, `{"value": 12, "unit": "months"}`).
const AMOUNT_KEYS: &[&str] = &["amount", "value", "price", "gia", "so_tien", "number", "qty"];
const UNIT_KEYS: &[&str] = &["currency", "unit", "units", "don_vi", "tien_te", "currency_code"];

fn scalar(value: &Value) -> Parsed<Scalar> {
    match value {
        Value::Null => Err(Reject::WrongKind),
        Value::Bool(b) => Ok(Scalar::Bool(*b)),
        Value::Number(n) => match n.as_f64() {
            Some(v) if v.is_finite() => Ok(Scalar::Num(v)),
            _ => Err(Reject::Bad(format!("number {n} is out of range"))),
        },
        Value::String(s) if value::is_blank(s) => Err(Reject::WrongKind),
        Value::String(s) => Ok(Scalar::Text(s.trim().to_string())),
        Value::Array(a) if a.is_empty() => Err(Reject::WrongKind),
        Value::Array(a) if a.len() == 1 => scalar(&a[0]),
        Value::Array(a) => Err(Reject::Bad(format!("a list of {} values, expected one value", a.len()))),
        Value::Object(o) => {
            let find = |keys: &[&str]| o.iter().find(|(k, _)| keys.contains(&fold_key(k).as_str())).map(|(_, v)| v);
            let amount = find(AMOUNT_KEYS).map(scalar).transpose()?;
            let unit = find(UNIT_KEYS).and_then(Value::as_str);
            match (amount, unit) {
                (Some(Scalar::Num(v)), Some(u)) => Ok(Scalar::Text(format!("{v} {u}"))),
                (Some(Scalar::Text(t)), Some(u)) => Ok(Scalar::Text(format!("{t} {u}"))),
                (Some(s), _) => Ok(s),
                (None, _) => Err(Reject::Bad("an object with no amount/value".to_string())),
            }
        }
    }
}

fn show(value: &Value) -> String {
    let s = match value {
        Value::String(s) => format!("\"{}\"", s.trim()),
        other => other.to_string(),
    };
    if s.chars().count() > 80 { format!("{}…", s.chars().take(80).collect::<String>()) } else { s }
}

/// A parsed value, before currency resolution.
enum Val {
    Money(Money),
    Num(f64),
    Bool(bool),
    Text(String),
}

/// Whether a raw field whose name carries `suffix` may feed a field of `kind`.
fn compatible(kind: Kind, suffix: Option<Suffix>) -> bool {
    !matches!(
        (kind, suffix),
        (Kind::Money, Some(Suffix::Dur(_) | Suffix::Mass(_)))
            | (Kind::Duration(_), Some(Suffix::Currency(_) | Suffix::Mass(_)))
            | (Kind::Number(_), Some(Suffix::Currency(_) | Suffix::Dur(_)))
    )
}

/// Raw fields that may feed `t`, best first (see the module docs).
fn candidates<'r, 'a>(t: &Target, raws: &'r [RawEntry<'a>]) -> Vec<&'r RawEntry<'a>> {
    let mut out: Vec<usize> = Vec::new();
    let mut push = |i: usize| {
        if !out.contains(&i) && compatible(t.kind, raws[i].info.suffix) {
            out.push(i);
        }
    };
    let matching = |pred: &dyn Fn(&RawEntry) -> bool| {
        raws.iter().enumerate().filter(|(_, r)| pred(r)).map(|(i, _)| i).collect::<Vec<_>>()
    };
    for i in matching(&|r| r.info.norm == t.info.norm) {
        push(i);
    }
    for i in matching(&|r| r.info.base == t.info.base) {
        push(i);
    }
    if t.concept != Concept::Other {
        for syn in t.concept.synonyms() {
            for i in matching(&|r| r.info.norm == *syn || r.info.base == *syn) {
                push(i);
            }
        }
        let foreign = |n: &str| exact_concept(n).is_some_and(|c| c != t.concept);
        for i in
            matching(&|r| t.concept.contains_synonym(&r.info.norm) && !foreign(&r.info.norm) && !foreign(&r.info.base))
        {
            push(i);
        }
    }
    out.into_iter().map(|i| &raws[i]).collect()
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

/// Parses one raw value for target `t`; parser notes are returned as warnings.
fn parse_entry(t: &Target, raw: &RawEntry) -> Parsed<(Val, Vec<String>)> {
    let s = scalar(raw.value)?;
    let raw_currency = match raw.info.suffix {
        Some(Suffix::Currency(c)) => Some(c),
        _ => None,
    };
    match t.kind {
        Kind::Money => {
            let (money, notes) = match s {
                Scalar::Num(v) => (Money::Amount { value: v, currency: raw_currency }, Vec::new()),
                Scalar::Text(text) => {
                    let (m, notes) = money::parse_money(&text)?;
                    let m = match m {
                        Money::Amount { value, currency } => {
                            Money::Amount { value, currency: currency.or(raw_currency) }
                        }
                        Money::Percent(_) if t.concept != Concept::Discount => {
                            return Err(Reject::Bad(format!("\"{text}\" is a percentage, not an amount")));
                        }
                        p => p,
                    };
                    (m, notes)
                }
                Scalar::Bool(_) => return Err(Reject::Bad("a yes/no value, not an amount".into())),
            };
            Ok((Val::Money(money), notes))
        }
        Kind::Duration(to) => {
            let pick = if t.concept == Concept::DeliveryTime { RangePick::High } else { RangePick::Low };
            let (d, notes) = match s {
                Scalar::Num(v) => (duration::Duration { value: v, unit: None }, Vec::new()),
                Scalar::Text(text) => duration::parse_duration(&text, pick)?,
                Scalar::Bool(_) => return Err(Reject::Bad("a yes/no value, not a duration".into())),
            };
            let from = match (d.unit, raw.info.suffix) {
                (Some(u), _) => u,
                (None, _) if d.value == 0.0 => to,
                (None, _) if t.concept.needs_explicit_unit(&raw.info.norm) => {
                    return Err(Reject::WrongKind);
                }
                (None, Some(Suffix::Dur(u))) => u,
                (None, _) if t.concept.is_duration() => t.concept.default_dur_unit(),
                (None, _) => to,
            };
            Ok((Val::Num(DurUnit::convert(d.value, from, to)), notes))
        }
        Kind::Number(mass) => {
            let raw_mass = match raw.info.suffix {
                Some(Suffix::Mass(m)) => Some(m),
                _ => None,
            };
            let (v, notes, unit) = match s {
                Scalar::Num(v) => (v, Vec::new(), raw_mass),
                Scalar::Text(text) => {
                    let (v, notes) = number::parse_number(&text)?;
                    (v, notes, mass::mass_unit_in(&text).or(raw_mass))
                }
                Scalar::Bool(_) => return Err(Reject::Bad("a yes/no value, not a number".into())),
            };
            let v = match (mass, unit) {
                (Some(to), Some(from)) => MassUnit::convert(v, from, to),
                _ => v,
            };
            Ok((Val::Num(v), notes))
        }
        Kind::Bool => match s {
            Scalar::Bool(b) => Ok((Val::Bool(b), Vec::new())),
            Scalar::Num(v) => Ok((Val::Bool(v != 0.0), Vec::new())),
            Scalar::Text(text) => match value::parse_bool(&text) {
                Some(b) => Ok((Val::Bool(b), Vec::new())),
                None => match number::parse_number(&text) {
                    Ok((v, _)) => Ok((Val::Bool(v != 0.0), Vec::new())),
                    Err(_) => Err(Reject::Bad(format!("\"{text}\" is not yes/no"))),
                },
            },
        },
        Kind::Text => Ok((
            Val::Text(match s {
                Scalar::Text(text) => text,
                Scalar::Num(v) => fmt_num(v),
                Scalar::Bool(b) => b.to_string(),
            }),
            Vec::new(),
        )),
    }
}

/// The first candidate of `t` that parses, with its raw key.
fn first_match<'a>(t: &Target, raws: &[RawEntry<'a>], warnings: &mut Vec<String>) -> Option<(Val, &'a str)> {
    for raw in candidates(t, raws) {
        match parse_entry(t, raw) {
            Ok((val, notes)) => {
                warnings.extend(notes.into_iter().map(|n| format!("{}: {n} (raw field \"{}\")", t.name, raw.key)));
                return Some((val, raw.key));
            }
            Err(Reject::WrongKind) => {}
            Err(Reject::Bad(msg)) => warnings.push(format!(
                "{}: could not read raw field \"{}\" = {}: {msg}",
                t.name,
                raw.key,
                show(raw.value)
            )),
        }
    }
    None
}

// ------------------------------------------------------------------ items

/// An amount in a (maybe unknown) currency.
#[derive(Debug, Clone, Copy)]
struct Term {
    amount: f64,
    currency: Option<&'static str>,
}

enum Slot {
    Missing,
    Money { terms: Vec<Term>, from: String },
    Num { value: f64, from: String },
    Bool { value: bool, from: String },
    Text { value: String, from: String },
}

/// An amount of money for `t` (a schema field or a component); a percentage
/// is taken of `price`.
fn money_for(
    t: &Target,
    raws: &[RawEntry],
    price: Option<(Term, &str)>,
    warnings: &mut Vec<String>,
) -> Option<(Term, String)> {
    let (val, key) = first_match(t, raws, warnings)?;
    match val {
        Val::Money(Money::Amount { value, currency }) => Some((Term { amount: value, currency }, key.to_string())),
        Val::Money(Money::Percent(p)) => match price {
            Some((pt, pkey)) => Some((
                Term { amount: pt.amount * p.abs() / 100.0, currency: pt.currency },
                format!("{key} ({}% of {pkey})", fmt_num(p.abs())),
            )),
            None => {
                warnings.push(format!("{}: \"{key}\" is a percentage and no price was found", t.name));
                None
            }
        },
        _ => None,
    }
}

fn parse_item(targets: &[Target], item: &RawItem, warnings: &mut Vec<String>) -> Vec<Slot> {
    let raws: Vec<RawEntry> =
        item.raw.iter().map(|(k, v)| RawEntry { key: k.as_str(), info: key_info(k), value: v }).collect();
    let mut slots = Vec::with_capacity(targets.len());
    for t in targets {
        let slot = match t.kind {
            Kind::Money => {
                let price = if t.concept == Concept::Discount {
                    money_for(&Target::component(Concept::Price, &t.name), &raws, None, &mut Vec::new())
                } else {
                    None
                };
                let direct = money_for(t, &raws, price.as_ref().map(|(p, k)| (*p, k.as_str())), warnings);
                match direct {
                    Some((term, from)) => {
                        let term = if t.concept == Concept::Discount {
                            Term { amount: term.amount.abs(), ..term }
                        } else {
                            term
                        };
                        Slot::Money { terms: vec![term], from }
                    }
                    None if t.concept == Concept::TotalCost => total_from_parts(&t.name, &raws, warnings),
                    None => Slot::Missing,
                }
            }
            _ => match first_match(t, &raws, warnings) {
                Some((Val::Num(value), from)) => Slot::Num { value, from: from.to_string() },
                Some((Val::Bool(value), from)) => Slot::Bool { value, from: from.to_string() },
                Some((Val::Text(value), from)) => Slot::Text { value, from: from.to_string() },
                _ => Slot::Missing,
            },
        };
        slots.push(slot);
    }
    slots
}

/// `price + shipping + fees − discount`, when the price is known.
fn total_from_parts(parent: &str, raws: &[RawEntry], warnings: &mut Vec<String>) -> Slot {
    let Some((price, price_key)) = money_for(&Target::component(Concept::Price, parent), raws, None, warnings) else {
        return Slot::Missing;
    };
    let mut terms = vec![price];
    let mut from = price_key.clone();
    for (concept, sign) in [(Concept::Shipping, 1.0), (Concept::Fees, 1.0), (Concept::Discount, -1.0)] {
        let t = Target::component(concept, parent);
        if let Some((term, key)) = money_for(&t, raws, Some((price, &price_key)), warnings) {
            let amount = if sign < 0.0 { -term.amount.abs() } else { term.amount };
            terms.push(Term { amount, ..term });
            from.push_str(if sign < 0.0 { " - " } else { " + " });
            from.push_str(&key);
        }
    }
    Slot::Money { terms, from }
}

/// The currency an item declares in a raw `currency` field.
fn declared_currency(item: &RawItem) -> Option<String> {
    item.raw.iter().find_map(|(k, v)| {
        let n = fold_key(k);
        let is_currency_key = matches!(
            n.as_str(),
            "currency" | "currency_code" | "ccy" | "curr" | "tien_te" | "don_vi_tien" | "don_vi_tien_te"
        );
        if is_currency_key { v.as_str().and_then(money::currency_code) } else { None }
    })
}

fn round_to(v: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    let r = (v * f).round() / f;
    if r.is_finite() { r } else { v }
}

fn num_value(v: f64, integer: bool) -> Value {
    let v = if integer { v.round() } else { v };
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Value::from(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// Exchange rates into the comparison currency.
struct Fx {
    target: Option<String>,
    rates: BTreeMap<String, f64>,
}

impl Fx {
    /// Units of the comparison currency per unit of `code`.
    fn rate(&self, code: &str) -> Option<f64> {
        if self.target.as_deref() == Some(code) { Some(1.0) } else { self.rates.get(code).copied() }
    }

    /// `amount` of `from` in `to`, when both rates are known.
    fn convert(&self, amount: f64, from: &str, to: &str) -> Option<f64> {
        Some(amount * self.rate(from)? / self.rate(to)?)
    }
}

struct Finished {
    out: NormalizedItem,
    /// Numeric view of every field for ranking (booleans as 1/0).
    nums: Vec<Option<f64>>,
    /// Money is in a currency that could not be converted.
    foreign: Option<String>,
}

/// Resolves currencies, converts, and builds the output of one item.
fn finish_item(
    targets: &[Target],
    item: &RawItem,
    slots: Vec<Slot>,
    item_currency: Option<String>,
    fx: &Fx,
    mut warnings: Vec<String>,
) -> Finished {
    let has_money = slots.iter().any(|s| matches!(s, Slot::Money { .. }));
    let mut cur = item_currency;
    if has_money && cur.is_none() {
        if let Some(t) = &fx.target {
            warnings.push(format!("no currency stated; assumed {t}"));
        }
        cur.clone_from(&fx.target);
    }
    let foreign = match (&cur, &fx.target) {
        (Some(c), Some(t)) if has_money && c != t => Some(c.clone()),
        _ => None,
    };
    let convert_rate = foreign.as_deref().and_then(|c| fx.rate(c));
    if let (Some(c), Some(rate), Some(t)) = (&foreign, convert_rate, &fx.target) {
        warnings.push(format!("converted from {c} to {t} at 1 {c} = {} {t}", fmt_num(rate)));
    } else if let (Some(c), Some(t)) = (&foreign, &fx.target) {
        warnings.push(format!("priced in {c}, not {t}; not converted (no fx rate given)"));
    }
    let decimals = match (&foreign, convert_rate, &fx.target) {
        (Some(_), Some(_), Some(t)) | (None, _, Some(t)) if money::zero_decimal(t) => 0,
        _ => 2,
    };
    let mut normalized = BTreeMap::new();
    let mut missing = Vec::new();
    let mut mapped_from = BTreeMap::new();
    let mut nums = Vec::with_capacity(targets.len());
    for (t, slot) in targets.iter().zip(slots) {
        let integer = t.ty == FieldType::Integer;
        let (value, num, from) = match slot {
            Slot::Missing => (Value::Null, None, None),
            Slot::Money { terms, from } => {
                let mut total = 0.0;
                let mut ok = true;
                for term in terms {
                    let amount = match (term.currency, cur.as_deref()) {
                        (Some(tc), Some(ic)) if tc != ic => match fx.convert(term.amount, tc, ic) {
                            Some(a) => a,
                            None => {
                                warnings.push(format!(
                                    "{}: an amount in {tc} cannot be combined with {ic} without an fx rate",
                                    t.name
                                ));
                                ok = false;
                                break;
                            }
                        },
                        _ => term.amount,
                    };
                    total += amount;
                }
                if let Some(rate) = convert_rate {
                    total *= rate;
                }
                let mut total = round_to(total, decimals);
                if integer && total.fract() != 0.0 {
                    warnings.push(format!("{}: rounded {} to {}", t.name, fmt_num(total), fmt_num(total.round())));
                    total = total.round();
                }
                if ok && total.is_finite() {
                    if total < 0.0 {
                        warnings.push(format!("{}: negative amount {}", t.name, fmt_num(total)));
                    }
                    (num_value(total, integer), Some(total), Some(from))
                } else {
                    (Value::Null, None, None)
                }
            }
            Slot::Num { value, from } => {
                let v = if integer { value.round() } else { value };
                if integer && (v - value).abs() > 1e-9 {
                    warnings.push(format!("{}: rounded {} to {}", t.name, fmt_num(value), fmt_num(v)));
                }
                (num_value(v, integer), Some(v), Some(from))
            }
            Slot::Bool { value, from } => (Value::Bool(value), Some(if value { 1.0 } else { 0.0 }), Some(from)),
            Slot::Text { value, from } => (Value::String(value), None, Some(from)),
        };
        if value.is_null() {
            missing.push(t.name.clone());
        }
        if let Some(from) = from {
            mapped_from.insert(t.name.clone(), from);
        }
        normalized.insert(t.name.clone(), value);
        nums.push(num);
    }
    let mut seen = std::collections::HashSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    let reported = if convert_rate.is_some() { fx.target.clone() } else { cur };
    let foreign = if convert_rate.is_some() { None } else { foreign };
    Finished {
        out: NormalizedItem {
            source: item.source.clone(),
            normalized,
            missing_fields: missing,
            mapped_from,
            currency: reported,
            warnings,
        },
        nums,
        foreign,
    }
}

// ------------------------------------------------------------------ ranking

/// The ranking keys: (target index, direction).
fn resolve_rank_keys(args: &NormalizeCompareArgs, targets: &[Target]) -> Result<Vec<(usize, SortOrder)>> {
    let Some(keys) = &args.rank_by else {
        let mut keys: Vec<(usize, SortOrder)> =
            targets.iter().enumerate().filter_map(|(i, t)| t.default_order().map(|o| (i, o))).collect();
        keys.sort_by_key(|(i, _)| targets[*i].default_priority());
        return Ok(keys);
    };
    let mut out: Vec<(usize, SortOrder)> = Vec::new();
    for key in keys {
        let Some(i) = targets.iter().position(|t| t.name == key.field) else {
            let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
            return Err(Error::invalid_arguments(format!(
                "rank_by field \"{}\" is not in the schema ({})",
                key.field,
                names.join(", ")
            )));
        };
        if out.iter().any(|(j, _)| *j == i) {
            return Err(Error::invalid_arguments(format!("rank_by names \"{}\" twice", key.field)));
        }
        if targets[i].kind == Kind::Text {
            return Err(Error::invalid_arguments(format!(
                "rank_by field \"{}\" is a string; only number, integer and boolean fields can be ranked",
                key.field
            )));
        }
        let Some(order) = key.order.or_else(|| targets[i].default_order()) else {
            return Err(Error::invalid_arguments(format!(
                "rank_by field \"{}\" has no default direction; give \"order\": \"asc\" or \"desc\"",
                key.field
            )));
        };
        out.push((i, order));
    }
    Ok(out)
}

fn cmp_items(a: &Finished, b: &Finished, keys: &[(usize, SortOrder)]) -> Ordering {
    for &(i, order) in keys {
        let ord = match (a.nums[i], b.nums[i]) {
            (Some(x), Some(y)) => match order {
                SortOrder::Asc => x.total_cmp(&y),
                SortOrder::Desc => y.total_cmp(&x),
            },
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

fn show_field(item: &Finished, targets: &[Target], i: usize) -> String {
    match item.out.normalized.get(&targets[i].name) {
        Some(Value::Bool(b)) => (if *b { "yes" } else { "no" }).to_string(),
        Some(v) => v.to_string(),
        None => "null".to_string(),
    }
}

/// Why `a` ranks above `next` (or `a`'s values when it is last).
fn reason(a: &Finished, next: Option<&Finished>, targets: &[Target], keys: &[(usize, SortOrder)]) -> String {
    let Some(b) = next else {
        let parts: Vec<String> = keys
            .iter()
            .map(|&(i, _)| match a.nums[i] {
                Some(_) => format!("{} {}", targets[i].name, show_field(a, targets, i)),
                None => format!("no {}", targets[i].name),
            })
            .collect();
        return parts.join(", ");
    };
    let other = &b.out.source;
    let mut tied = Vec::new();
    for &(i, order) in keys {
        let name = &targets[i].name;
        let decisive = match (a.nums[i], b.nums[i]) {
            (Some(x), Some(y)) if x == y => {
                tied.push(name.as_str());
                continue;
            }
            (None, None) => continue,
            (Some(_), Some(_)) => {
                let word = if order == SortOrder::Asc { "lower" } else { "higher" };
                format!("{name} {} ({word} than {other}'s {})", show_field(a, targets, i), show_field(b, targets, i))
            }
            (Some(_), None) => format!("{name} {} ({other} has none)", show_field(a, targets, i)),
            (None, Some(_)) => format!("no {name}"),
        };
        return if tied.is_empty() {
            decisive
        } else {
            format!("tied with {other} on {}; {decisive}", tied.join(", "))
        };
    }
    format!("tied with {other} on every ranking field; input order kept")
}

// ------------------------------------------------------------------ entry point

fn validate(args: &NormalizeCompareArgs) -> Result<()> {
    if args.items.is_empty() {
        return Err(Error::invalid_arguments("items must list at least one item"));
    }
    if args.schema.is_empty() {
        return Err(Error::invalid_arguments("schema must name at least one field"));
    }
    if let Some(bad) = args.schema.keys().find(|k| fold_key(k).is_empty()) {
        return Err(Error::invalid_arguments(format!("schema field name \"{bad}\" has no letters or digits")));
    }
    Ok(())
}

fn resolve_fx(
    args: &NormalizeCompareArgs,
    targets: &[Target],
    item_currencies: &[Option<String>],
) -> Result<(Fx, Vec<String>)> {
    let mut warnings = Vec::new();
    let explicit = match &args.currency {
        Some(c) => Some(money::currency_code(c).ok_or_else(|| {
            Error::invalid_arguments(format!("currency \"{c}\" is not a currency code or symbol (e.g. VND, USD, ₫)"))
        })?),
        None => None,
    };
    let mut rates = BTreeMap::new();
    if let Some(fx) = &args.fx {
        if explicit.is_none() {
            return Err(Error::invalid_arguments("fx needs currency: the currency the rates convert into"));
        }
        for (k, rate) in fx {
            let code = money::currency_code(k)
                .ok_or_else(|| Error::invalid_arguments(format!("fx key \"{k}\" is not a currency code")))?;
            if !rate.is_finite() || *rate <= 0.0 {
                return Err(Error::invalid_arguments(format!("fx rate for {k} must be a positive number")));
            }
            rates.insert(code, *rate);
        }
    }
    let from_schema = targets.iter().find_map(|t| match (t.kind, t.info.suffix) {
        (Kind::Money, Some(Suffix::Currency(c))) => Some(c.to_string()),
        _ => None,
    });
    // Count currencies in first-seen order; the most common wins, ties → first seen.
    let mut counts: Vec<(String, usize)> = Vec::new();
    for c in item_currencies.iter().flatten() {
        match counts.iter_mut().find(|(k, _)| k == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c.clone(), 1)),
        }
    }
    let majority = counts.iter().fold(None::<&(String, usize)>, |best, e| match best {
        Some(b) if b.1 >= e.1 => Some(b),
        _ => Some(e),
    });
    let target = explicit.or(from_schema).or_else(|| majority.map(|(c, _)| c.clone()));
    if counts.len() > 1 {
        let list: Vec<String> = counts.iter().map(|(c, n)| format!("{c}: {n}")).collect();
        warnings.push(format!(
            "items are priced in several currencies ({}); money is compared in {}",
            list.join(", "),
            target.as_deref().unwrap_or("?")
        ));
    }
    Ok((Fx { target, rates }, warnings))
}

/// Maps every item onto `args.schema`, reports missing fields, and ranks the
/// items. Errors only on malformed arguments (`invalid_arguments`).
pub fn normalize_compare(args: &NormalizeCompareArgs) -> Result<NormalizeCompareOutput> {
    validate(args)?;
    let targets: Vec<Target> = args.schema.iter().map(|(name, ty)| Target::new(name, *ty)).collect();
    let keys = resolve_rank_keys(args, &targets)?;

    let mut parsed = Vec::with_capacity(args.items.len());
    for item in &args.items {
        let mut warnings = Vec::new();
        let slots = parse_item(&targets, item, &mut warnings);
        let stated = slots.iter().find_map(|s| match s {
            Slot::Money { terms, .. } => terms.iter().find_map(|t| t.currency),
            _ => None,
        });
        let currency = declared_currency(item).or_else(|| stated.map(str::to_string));
        parsed.push((slots, currency, warnings));
    }
    let currencies: Vec<Option<String>> = parsed.iter().map(|(_, c, _)| c.clone()).collect();
    let (fx, mut warnings) = resolve_fx(args, &targets, &currencies)?;

    let finished: Vec<Finished> = args
        .items
        .iter()
        .zip(parsed)
        .map(|(item, (slots, cur, w))| finish_item(&targets, item, slots, cur, &fx, w))
        .collect();

    let money_key = keys.iter().any(|(i, _)| targets[*i].kind == Kind::Money);
    let mut unranked = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    for (i, f) in finished.iter().enumerate() {
        match (&f.foreign, money_key) {
            (Some(c), true) => unranked.push(UnrankedItem {
                source: f.out.source.clone(),
                item: i,
                reason: format!(
                    "priced in {c}, not {}; give currency and fx rates to compare",
                    fx.target.as_deref().unwrap_or("?")
                ),
            }),
            _ => order.push(i),
        }
    }
    if !unranked.is_empty() {
        warnings.push(format!(
            "{} item(s) priced in another currency were left out of the ranking (see unranked)",
            unranked.len()
        ));
    }
    let ranking = if keys.is_empty() {
        if args.rank_by.is_none() {
            warnings.push("no schema field has a known ranking direction; pass rank_by to rank".to_string());
        }
        Vec::new()
    } else {
        order.sort_by(|&a, &b| cmp_items(&finished[a], &finished[b], &keys));
        order
            .iter()
            .enumerate()
            .map(|(pos, &i)| RankedItem {
                rank: pos + 1,
                source: finished[i].out.source.clone(),
                item: i,
                reason: reason(&finished[i], order.get(pos + 1).map(|&j| &finished[j]), &targets, &keys),
            })
            .collect()
    };
    let best = ranking
        .first()
        .filter(|r| keys.iter().any(|(k, _)| finished[r.item].nums[*k].is_some()))
        .map(|r| r.source.clone());
    let rank_by =
        keys.iter().map(|&(i, order)| RankKey { field: targets[i].name.clone(), order: Some(order) }).collect();
    Ok(NormalizeCompareOutput {
        items: finished.into_iter().map(|f| f.out).collect(),
        ranking,
        unranked,
        best,
        rank_by,
        currency: fx.target,
        warnings,
    })
}
