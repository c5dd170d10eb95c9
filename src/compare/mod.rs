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
//! * Money — see [`money::parse_money`](crate::vocab::money::parse_money). The first number in the text is read.
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
mod finish;
mod item;
mod mass;
mod rank;
mod read;
mod target;
#[cfg(test)]
mod tests;
mod types;

pub use types::{
    FieldType, NormalizeCompareArgs, NormalizeCompareOutput, NormalizedItem, RankKey, RankedItem, RawItem, SortOrder,
    UnrankedItem,
};

use crate::error::{Error, Result};
use crate::vocab::text::fold_key;
use finish::{Finished, finish_item, resolve_fx};
use item::{Slot, declared_currency, parse_item};
use rank::{cmp_items, reason, resolve_rank_keys};
use target::{Kind, Wanted};

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

/// Maps every item onto `args.schema`, reports missing fields, and ranks the
/// items. Errors only on malformed arguments (`invalid_arguments`).
pub fn normalize_compare(args: &NormalizeCompareArgs) -> Result<NormalizeCompareOutput> {
    validate(args)?;
    let targets: Vec<Wanted> = args.schema.iter().map(|(name, ty)| Wanted::new(name, *ty)).collect();
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
