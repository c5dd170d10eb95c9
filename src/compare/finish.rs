//! Currencies and output: the comparison currency and `fx` rates, and one
//! item's slots converted and rounded into its [`NormalizedItem`].

use std::collections::BTreeMap;

use serde_json::Value;

use super::fields::Suffix;
use super::item::Slot;
use super::read::fmt_num;
use super::target::{Kind, Wanted};
use super::types::{FieldType, NormalizeCompareArgs, NormalizedItem, RawItem};
use crate::error::{Error, Result};
use crate::vocab::money;

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
pub(super) struct Fx {
    pub(super) target: Option<String>,
    pub(super) rates: BTreeMap<String, f64>,
}

impl Fx {
    /// Units of the comparison currency per unit of `code`.
    pub(super) fn rate(&self, code: &str) -> Option<f64> {
        if self.target.as_deref() == Some(code) { Some(1.0) } else { self.rates.get(code).copied() }
    }

    /// `amount` of `from` in `to`, when both rates are known.
    pub(super) fn convert(&self, amount: f64, from: &str, to: &str) -> Option<f64> {
        Some(amount * self.rate(from)? / self.rate(to)?)
    }
}

pub(super) struct Finished {
    pub(super) out: NormalizedItem,
    /// Numeric view of every field for ranking (booleans as 1/0).
    pub(super) nums: Vec<Option<f64>>,
    /// Money is in a currency that could not be converted.
    pub(super) foreign: Option<String>,
}

/// Resolves currencies, converts, and builds the output of one item.
pub(super) fn finish_item(
    targets: &[Wanted],
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

pub(super) fn resolve_fx(
    args: &NormalizeCompareArgs,
    targets: &[Wanted],
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
