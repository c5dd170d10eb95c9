//! Raw values: which raw fields may feed a target field, and how one raw
//! value is read as money, a duration, a number, a yes/no or text.

use serde_json::Value;

use super::fields::{Concept, KeyInfo, Suffix, exact_concept};
use super::mass::{self, MassUnit};
use super::target::{Kind, Wanted};
use crate::vocab::duration::{self, DurUnit, RangePick};
use crate::vocab::money::{self, Money};
use crate::vocab::text::fold_key;
use crate::vocab::{Parsed, Reject, number, value};

pub(super) struct RawEntry<'a> {
    pub(super) key: &'a str,
    pub(super) info: KeyInfo,
    pub(super) value: &'a Value,
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
pub(super) enum Val {
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

/// Raw fields that may feed `t`, best first (see the `compare` module docs).
fn candidates<'r, 'a>(t: &Wanted, raws: &'r [RawEntry<'a>]) -> Vec<&'r RawEntry<'a>> {
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

pub(super) fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

/// Parses one raw value for target `t`; parser notes are returned as warnings.
fn parse_entry(t: &Wanted, raw: &RawEntry) -> Parsed<(Val, Vec<String>)> {
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
pub(super) fn first_match<'a>(t: &Wanted, raws: &[RawEntry<'a>], warnings: &mut Vec<String>) -> Option<(Val, &'a str)> {
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
