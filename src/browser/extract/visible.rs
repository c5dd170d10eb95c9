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
        let mut c = Candidate::new(Value::String(p.value.clone()), source)
            .with_currency(detect_currency(&p.value).map(str::to_owned));
        // A row of a table comparing several products (`Price | From $39.99 |
        // $34.99 | $44.99`, cells joined by ` | `): its first cell is often
        // the product itself, but which is a guess: less sure, so that a
        // watch waits on it (dropping the row cost a page whose first column
        // is the product: docs/benchmarks.md).
        let priced_cells = p.value.split(" | ").filter(|cell| cell.chars().any(|c| c.is_ascii_digit())).count();
        if matches!(spec.concept, Some(Concept::Price | Concept::Total)) && priced_cells > 1 {
            c.doubt = super::DISAGREEMENT_PENALTY;
            c.note = Some(format!("a row comparing {priced_cells} amounts; took its first cell, less sure"));
        }
        c
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
    /// A "from" amount (`ab 99,12 €`, `à partir de`): the price only when nothing else is.
    From,
    /// An "under" / instalment amount (`Moins de 10 €`, `4 fois dès 75 €`): never the price.
    Partial,
}

impl PriceRole {
    /// The roles a field reads, best first; the second group only when the first is empty.
    pub(super) fn wanted(concept: Concept) -> Vec<Vec<PriceRole>> {
        match concept {
            Concept::Price => vec![vec![Self::Current], vec![Self::Total], vec![Self::From]],
            Concept::Total => vec![vec![Self::Total], vec![Self::Current]],
            Concept::OldPrice => vec![vec![Self::Old]],
            Concept::Shipping => vec![vec![Self::Shipping]],
            _ => Vec::new(),
        }
    }
}

fn context_role(context: &str) -> Option<PriceRole> {
    let padded = format!("_{}_", fold_camel_key(context));
    // Words of scripts written without spaces (`買一箱送市價`) match inside a token.
    let cjk = |w: &str| w.chars().any(|c| c >= '\u{2e80}');
    let has = |words: &[&str]| {
        words.iter().any(|w| if cjk(w) { padded.contains(w) } else { padded.contains(&format!("_{w}_")) })
    };
    // The words right before the amount (the context's label, before ` / `).
    let label = context.split(" / ").next().unwrap_or("");
    let label_padded = format!("_{}_", fold_camel_key(label));
    let label_ends = |words: &[&str]| words.iter().any(|w| label_padded.ends_with(&format!("_{w}_")));
    if label_ends(&[
        "from",
        "starting_at",
        "a_partir_de",
        "des",
        "ab",
        "desde",
        "da",
        "od",
        "vanaf",
        "tu",
        "chi_tu",
        "от",
    ]) {
        return Some(PriceRole::From);
    }
    if label_ends(&["under", "less_than", "up_to", "moins_de", "meno_di", "unter", "bis", "menos_de", "до"])
        || has(&[
            "installment",
            "installments",
            "instalment",
            "instalments",
            "per_month",
            "monthly",
            "mo",
            "fois",
            "mois",
            "cuotas",
            "cuota",
            "rate",
            "raty",
            "monatlich",
            "mensual",
            "tra_gop",
            "splatky",
            "splatka",
            "obroki",
            "rata",
            "fee_details",
        ])
    {
        return Some(PriceRole::Partial);
    }
    // `price-old-live`: a class that says the price is the live one is not an old price.
    let live = has(&["live", "current", "now", "final", "actual", "special", "sale", "new"]);
    if !live
        && has(&[
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
            "uvp",
            "statt",
            "vorher",
            "avant",
            "antes",
            "prima",
            "bylo",
            "prej",
            "redna",
            "normal",
            "cena_puvodni",
            "原價",
            "原价",
            "定價",
            "定价",
            "市價",
            "市价",
            "建議售價",
            "参考価格",
            "通常価格",
            "定価",
            "정가",
            "소비자가",
        ])
    {
        Some(PriceRole::Old)
    } else if has(&[
        "ship",
        "shipping",
        "delivery",
        "freight",
        "van_chuyen",
        "giao_hang",
        "postage",
        "versand",
        "versandkosten",
        "livraison",
        "envio",
        "spedizione",
        "verzending",
        "dostava",
        "doprava",
        "postovne",
    ]) {
        Some(PriceRole::Shipping)
    } else if has(&[
        "discount",
        "save",
        "saving",
        "savings",
        "saved",
        "giam",
        "tiet_kiem",
        "coupon",
        "voucher",
        "sparen",
        "ersparnis",
        "economisez",
        "economie",
        "ahorra",
        "ahorro",
        "risparmi",
        "risparmio",
        "sleva",
        "zlava",
        "popust",
    ]) {
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

/// How much a price fragment looks like the page's main price: large type,
/// close to the `<h1>` in the tree, a price-like class, not in a link or the
/// page's furniture (menus, header, footer, sidebars).
pub(super) fn prominence(f: &PriceFragment, (min_size, max_size): (f64, f64)) -> f64 {
    let mut score = 0.0;
    if max_size > min_size && f.size > 0.0 {
        score += 2.0 * (f.size - min_size) / (max_size - min_size);
    }
    if let Some(near) = f.near {
        score += 3.0 * (12.0 - (near as f64).min(12.0)) / 12.0;
    }
    if fold_camel_key(&f.context).split('_').any(|w| w.contains("price") || w == "gia" || w == "preis" || w == "prix") {
        score += 0.5;
    }
    if f.link {
        score -= 2.0;
    }
    if f.furniture {
        score -= 4.0;
    }
    score
}

/// Price fragments of the roles wanted, the current ones most prominent first.
pub(super) fn ranked<'a>(prices: &'a [PriceFragment], roles: &[PriceRole]) -> Vec<&'a PriceFragment> {
    let sizes = prices.iter().map(|f| f.size).filter(|s| *s > 0.0);
    let range = (sizes.clone().fold(f64::MAX, f64::min), sizes.fold(0.0, f64::max));
    let mut found: Vec<(f64, &PriceFragment)> = prices
        .iter()
        .filter(|f| !f.text.trim().is_empty() && roles.contains(&fragment_role(f)))
        .map(|f| (prominence(f, range), f))
        .collect();
    if roles.contains(&PriceRole::Current) {
        // Stable: page order breaks ties.
        found.sort_by(|a, b| b.0.total_cmp(&a.0));
    }
    found.into_iter().map(|(_, f)| f).collect()
}

/// Candidates from price fragments for money fields (and nothing for others).
pub(super) fn fragment_candidates(prices: &[PriceFragment], spec: &FieldSpec) -> Vec<Candidate> {
    let Some(concept) = spec.concept else { return Vec::new() };
    for roles in PriceRole::wanted(concept) {
        let fragments = ranked(prices, &roles);
        // Only prices inside links (recommendations, other offers): weak guesses.
        let linked_only = fragments.iter().all(|f| f.link);
        let found: Vec<Candidate> = fragments
            .into_iter()
            .map(|f| {
                let hint = if f.struck { Hint::Struck } else { Hint::Plain };
                Candidate {
                    value: Value::String(f.text.trim().to_string()),
                    source: if linked_only { Source::Text } else { Source::Fragment },
                    currency: detect_currency(&f.text).map(str::to_owned),
                    hint,
                    note: None,
                    fixed: None,
                    doubt: 0.0,
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
