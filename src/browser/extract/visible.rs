//! Candidates from what the page shows: label→value pairs (tables,
//! definition lists, `Label: value` rows) and price fragments (current,
//! struck-through, total, shipping).

use serde_json::Value;

use super::facts::PriceFragment;
use super::names::{Concept, FieldSpec, Key, label_concept};
use super::{Candidate, Hint, Source};
use crate::vocab::money::detect_currency;
use crate::vocab::text::fold_camel_key;

/// A label → value pair with its label understood once.
#[derive(Debug, Clone)]
pub(super) struct Pair {
    pub value: String,
    pub concept: Option<Concept>,
    pub key: Key,
}

/// Prepares pairs for matching; pairs with an empty label or value are dropped.
pub(super) fn prepare(pairs: &[(String, String)]) -> Vec<Pair> {
    pairs
        .iter()
        .filter(|(l, v)| !l.trim().is_empty() && !v.trim().is_empty())
        .map(|(label, value)| Pair {
            value: value.trim().to_string(),
            concept: label_concept(label),
            key: Key::new(label),
        })
        .collect()
}

/// The label concepts a field accepts, best first; the second group is used
/// only when the first finds nothing (a checkout's `Total` for `price`).
fn tiers(concept: Concept) -> Vec<Vec<Concept>> {
    match concept {
        Concept::Price => vec![vec![Concept::Price], vec![Concept::Total]],
        Concept::Total => vec![vec![Concept::Total], vec![Concept::Price]],
        other => vec![vec![other]],
    }
}

/// Least similarity for a label to stand for a field of no known concept.
const LABEL_MATCH: f64 = 0.5;

/// Candidates from pairs: labels of the field's concept, or for other
/// fields the labels that best match its name (ties all kept, in page order).
pub(super) fn pair_candidates(pairs: &[Pair], spec: &FieldSpec, source: Source) -> Vec<Candidate> {
    let candidate = |p: &Pair| {
        Candidate::new(Value::String(p.value.clone()), source)
            .with_currency(detect_currency(&p.value).map(str::to_owned))
    };
    if let Some(concept) = spec.concept {
        for tier in tiers(concept) {
            let found: Vec<Candidate> =
                pairs.iter().filter(|p| p.concept.is_some_and(|c| tier.contains(&c))).map(candidate).collect();
            if !found.is_empty() {
                return found;
            }
        }
        // A label spelled like the field itself (`gia_ban` ↔ `Giá bán`).
        return pairs.iter().filter(|p| p.key.norm == spec.key.norm).map(candidate).collect();
    }
    let scored: Vec<(f64, &Pair)> = pairs
        .iter()
        .filter(|p| p.concept.is_none() || p.key.norm == spec.key.norm)
        .map(|p| (spec.key.similarity(&p.key), p))
        .collect();
    let best = scored.iter().map(|(s, _)| *s).fold(0.0, f64::max);
    if best < LABEL_MATCH {
        return Vec::new();
    }
    scored.into_iter().filter(|(s, _)| *s >= best).map(|(_, p)| candidate(p)).collect()
}

/// What a price fragment (or an amount in the text) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PriceRole {
    Current,
    Old,
    Total,
    Shipping,
    Discount,
}

impl PriceRole {
    /// The roles a field reads, best first; the second group only when the first is empty.
    pub(super) fn wanted(concept: Concept) -> Vec<Vec<PriceRole>> {
        match concept {
            Concept::Price => vec![vec![Self::Current], vec![Self::Total]],
            Concept::Total => vec![vec![Self::Total], vec![Self::Current]],
            Concept::OldPrice => vec![vec![Self::Old]],
            Concept::Shipping => vec![vec![Self::Shipping]],
            _ => Vec::new(),
        }
    }
}

fn context_role(context: &str) -> Option<PriceRole> {
    let padded = format!("_{}_", fold_camel_key(context));
    let has = |words: &[&str]| words.iter().any(|w| padded.contains(&format!("_{w}_")));
    if has(&[
        "old",
        "original",
        "list",
        "was",
        "regular",
        "compare",
        "before",
        "strike",
        "strikethrough",
        "crossed",
        "del",
        "goc",
        "niem_yet",
        "msrp",
        "rrp",
        "retail",
    ]) {
        Some(PriceRole::Old)
    } else if has(&["ship", "shipping", "delivery", "freight", "van_chuyen", "giao_hang", "postage"]) {
        Some(PriceRole::Shipping)
    } else if has(&["discount", "save", "saving", "savings", "saved", "giam", "tiet_kiem", "coupon", "voucher"]) {
        Some(PriceRole::Discount)
    } else if has(&["total", "grand", "tong", "thanh_tien", "due", "payable"]) {
        Some(PriceRole::Total)
    } else {
        None
    }
}

/// The role of a price fragment from its strike-through state, context and text.
pub(super) fn fragment_role(f: &PriceFragment) -> PriceRole {
    if f.struck {
        return PriceRole::Old;
    }
    if let Some(role) = context_role(&f.context) {
        return role;
    }
    let t = f.text.trim();
    if t.starts_with(['-', '−']) || t.contains('%') { PriceRole::Discount } else { PriceRole::Current }
}

/// Candidates from price fragments for money fields (and nothing for others).
pub(super) fn fragment_candidates(prices: &[PriceFragment], spec: &FieldSpec) -> Vec<Candidate> {
    let Some(concept) = spec.concept else { return Vec::new() };
    for roles in PriceRole::wanted(concept) {
        let found: Vec<Candidate> = prices
            .iter()
            .filter(|f| !f.text.trim().is_empty() && roles.contains(&fragment_role(f)))
            .map(|f| {
                let hint = if f.struck { Hint::Struck } else { Hint::Plain };
                Candidate {
                    value: Value::String(f.text.trim().to_string()),
                    source: Source::Fragment,
                    currency: detect_currency(&f.text).map(str::to_owned),
                    hint,
                }
            })
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// The role a keyword just before an amount gives it (`Giá:`, `Total`, `Giá gốc`).
pub(super) fn keyword_role(before: &str) -> Option<PriceRole> {
    let norm = fold_camel_key(before);
    const KEYWORDS: &[(&str, PriceRole)] = &[
        ("gia_goc", PriceRole::Old),
        ("gia_niem_yet", PriceRole::Old),
        ("gia_thi_truong", PriceRole::Old),
        ("list_price", PriceRole::Old),
        ("original_price", PriceRole::Old),
        ("regular_price", PriceRole::Old),
        ("was", PriceRole::Old),
        ("phi_van_chuyen", PriceRole::Shipping),
        ("phi_giao_hang", PriceRole::Shipping),
        ("van_chuyen", PriceRole::Shipping),
        ("phi_ship", PriceRole::Shipping),
        ("shipping", PriceRole::Shipping),
        ("delivery", PriceRole::Shipping),
        ("tiet_kiem", PriceRole::Discount),
        ("giam", PriceRole::Discount),
        ("save", PriceRole::Discount),
        ("discount", PriceRole::Discount),
        ("grand_total", PriceRole::Total),
        ("tong_cong", PriceRole::Total),
        ("tong_tien", PriceRole::Total),
        ("thanh_tien", PriceRole::Total),
        ("tong_thanh_toan", PriceRole::Total),
        ("amount_due", PriceRole::Total),
        ("total", PriceRole::Total),
        ("tong", PriceRole::Total),
        ("gia_ban", PriceRole::Current),
        ("gia_khuyen_mai", PriceRole::Current),
        ("gia_uu_dai", PriceRole::Current),
        ("chi_con", PriceRole::Current),
        ("gia", PriceRole::Current),
        ("price", PriceRole::Current),
        ("now", PriceRole::Current),
        ("only", PriceRole::Current),
        ("sale", PriceRole::Current),
    ];
    KEYWORDS.iter().find(|(k, _)| norm == *k || norm.ends_with(&format!("_{k}"))).map(|(_, r)| *r)
}
