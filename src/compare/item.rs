//! Items: every schema field of one raw item read into a [`Slot`], a total
//! cost computed from its parts, and the currency the item declares.

use super::fields::{Concept, key_info};
use super::read::{RawEntry, Val, first_match, fmt_num};
use super::target::{Kind, Wanted};
use super::types::RawItem;
use crate::vocab::money::{self, Money};
use crate::vocab::text::fold_key;

/// An amount in a (maybe unknown) currency.
#[derive(Debug, Clone, Copy)]
pub(super) struct Term {
    pub(super) amount: f64,
    pub(super) currency: Option<&'static str>,
}

pub(super) enum Slot {
    Missing,
    Money { terms: Vec<Term>, from: String },
    Num { value: f64, from: String },
    Bool { value: bool, from: String },
    Text { value: String, from: String },
}

/// An amount of money for `t` (a schema field or a component); a percentage
/// is taken of `price`.
fn money_for(
    t: &Wanted,
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

pub(super) fn parse_item(targets: &[Wanted], item: &RawItem, warnings: &mut Vec<String>) -> Vec<Slot> {
    let raws: Vec<RawEntry> =
        item.raw.iter().map(|(k, v)| RawEntry { key: k.as_str(), info: key_info(k), value: v }).collect();
    let mut slots = Vec::with_capacity(targets.len());
    for t in targets {
        let slot = match t.kind {
            Kind::Money => {
                let price = if t.concept == Concept::Discount {
                    money_for(&Wanted::component(Concept::Price, &t.name), &raws, None, &mut Vec::new())
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
    let Some((price, price_key)) = money_for(&Wanted::component(Concept::Price, parent), raws, None, warnings) else {
        return Slot::Missing;
    };
    let mut terms = vec![price];
    let mut from = price_key.clone();
    for (concept, sign) in [(Concept::Shipping, 1.0), (Concept::Fees, 1.0), (Concept::Discount, -1.0)] {
        let t = Wanted::component(concept, parent);
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
pub(super) fn declared_currency(item: &RawItem) -> Option<String> {
    item.raw.iter().find_map(|(k, v)| {
        let n = fold_key(k);
        let is_currency_key = matches!(
            n.as_str(),
            "currency" | "currency_code" | "ccy" | "curr" | "tien_te" | "don_vi_tien" | "don_vi_tien_te"
        );
        if is_currency_key { v.as_str().and_then(money::currency_code) } else { None }
    })
}
