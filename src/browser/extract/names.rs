//! Understanding field names and page labels, English and Vietnamese:
//! normalisation (case, diacritics, camelCase, separators), the concepts
//! extraction knows (price, old price, currency, warranty...), unit suffixes
//! (`warranty_months`, `price_vnd`) and fuzzy label matching for the rest.

use super::lexicon::{BLOCKED, CANONICAL, CONCEPTS, MONEY_TOKENS, STOPWORDS};
use crate::vocab::duration::{DurUnit, suffix_unit};
use crate::vocab::money::currency_code_word;
use crate::vocab::text::fold_camel_key;

pub(super) use super::lexicon::Concept;

fn tokens(norm: &str) -> Vec<&str> {
    norm.split('_').filter(|t| !t.is_empty()).collect()
}

/// Removes stopword phrases (`thong_tin`, `the`) from a token list.
fn without_stopwords<'a>(toks: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let two = toks.get(i + 1).map(|next| format!("{}_{next}", toks[i]));
        if two.as_deref().is_some_and(|p| STOPWORDS.contains(&p)) {
            i += 2;
        } else {
            if !STOPWORDS.contains(&toks[i]) {
                out.push(toks[i]);
            }
            i += 1;
        }
    }
    out
}

fn find_phrase(toks: &[&str], phrase: &[&str]) -> Vec<usize> {
    if phrase.is_empty() || phrase.len() > toks.len() {
        return Vec::new();
    }
    (0..=toks.len() - phrase.len()).filter(|&i| toks[i..i + phrase.len()] == *phrase).collect()
}

/// Whether the match of `len` tokens at `at` cuts through a blocked compound.
fn blocked(toks: &[&str], at: usize, len: usize) -> bool {
    BLOCKED.iter().any(|b| {
        let parts: Vec<&str> = b.split('_').collect();
        find_phrase(toks, &parts).into_iter().any(|s| {
            let e = s + parts.len();
            let overlaps = s < at + len && at < e;
            let inside = s >= at && e <= at + len;
            overlaps && !inside
        })
    })
}

/// The concept a token list names. Labels must be mostly the phrase (a
/// third of the label at least), so sentences are not read as labels.
fn concept_of(toks: &[&str], label: bool) -> Option<Concept> {
    if toks.is_empty() {
        return None;
    }
    let whole = toks.join("_");
    let mut best: Option<(usize, Concept)> = None;
    for (concept, strong, weak) in CONCEPTS {
        let mut score = 0;
        for phrase in strong.iter().chain(weak.iter()) {
            let parts: Vec<&str> = phrase.split('_').collect();
            if whole == *phrase {
                score = score.max(100 + parts.len());
            } else if strong.contains(phrase) {
                let fits = !label || parts.len() * 3 >= toks.len();
                if fits && find_phrase(toks, &parts).into_iter().any(|at| !blocked(toks, at, parts.len())) {
                    score = score.max(parts.len());
                }
            }
        }
        if score > 0 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, *concept));
        }
    }
    best.map(|(_, c)| c)
}

/// The concept a page label (`Giá bán`, `Bảo hành`, `Total`) stands for.
pub(super) fn label_concept(label: &str) -> Option<Concept> {
    let norm = fold_camel_key(label);
    concept_of(&without_stopwords(&tokens(&norm)), true)
}

/// A unit carried by a field name's last token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Duration(DurUnit),
    Currency(&'static str),
}

fn unit_of(token: &str) -> Option<Unit> {
    suffix_unit(token).map(Unit::Duration).or_else(|| currency_code_word(token).map(Unit::Currency))
}

/// A name reduced to canonical tokens for fuzzy comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key {
    pub norm: String,
    pub tokens: Vec<String>,
}

impl Key {
    pub(super) fn new(name: &str) -> Self {
        let norm = fold_camel_key(name);
        let raw = tokens(&norm);
        let raw = without_stopwords(&raw);
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        'outer: while i < raw.len() {
            for (phrase, canon) in CANONICAL {
                let parts: Vec<&str> = phrase.split('_').collect();
                if raw.len() >= i + parts.len() && raw[i..i + parts.len()] == *parts {
                    out.push((*canon).to_string());
                    i += parts.len();
                    continue 'outer;
                }
            }
            out.push(singular(raw[i]));
            i += 1;
        }
        out.dedup();
        Self { norm, tokens: out }
    }

    fn joined(&self) -> String {
        self.tokens.concat()
    }

    /// 0..1: how well `other` (a label or property name) names the same thing.
    /// Same name → 1; otherwise shared tokens over all tokens (Jaccard),
    /// with one-letter typos forgiven in long words.
    pub(super) fn similarity(&self, other: &Key) -> f64 {
        if self.tokens.is_empty() || other.tokens.is_empty() {
            return 0.0;
        }
        if self.norm == other.norm || self.joined() == other.joined() {
            return 1.0;
        }
        let shared = self.tokens.iter().filter(|a| other.tokens.iter().any(|b| same_word(a, b))).count();
        let union = self.tokens.len() + other.tokens.len() - shared;
        if union == 0 { 0.0 } else { shared as f64 / union as f64 }
    }

    pub(super) fn has_money_token(&self) -> bool {
        self.tokens.iter().any(|t| MONEY_TOKENS.contains(&t.as_str()))
    }
}

fn singular(token: &str) -> String {
    if let Some(stem) = token.strip_suffix("ies").filter(|s| s.len() >= 2) {
        format!("{stem}y")
    } else if token.len() > 3 && token.ends_with('s') && !token.ends_with("ss") && !token.ends_with("us") {
        token[..token.len() - 1].to_string()
    } else {
        token.to_string()
    }
}

fn same_word(a: &str, b: &str) -> bool {
    a == b || (a.len() >= 5 && b.len() >= 5 && edit_distance(a, b) <= 1)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// One requested field, understood.
#[derive(Debug, Clone)]
pub(super) struct FieldSpec {
    pub name: String,
    pub key: Key,
    pub concept: Option<Concept>,
    pub unit: Option<Unit>,
}

impl FieldSpec {
    pub(super) fn new(name: &str) -> Self {
        let norm = fold_camel_key(name);
        let all = without_stopwords(&tokens(&norm));
        let unit = all.last().and_then(|t| unit_of(t)).filter(|_| all.len() > 1);
        let base = if unit.is_some() { &all[..all.len() - 1] } else { &all[..] };
        // `return_days` names the thing (`return`) in a unit (`days`): labels
        // are matched on the thing.
        let key = if unit.is_some() { Key::new(&base.join("_")) } else { Key::new(name) };
        let concept = concept_of(base, false).or_else(|| fuzzy_concept(base));
        Self { name: name.to_string(), key, concept, unit }
    }

    /// Money fields: known money concepts, a currency suffix, or a money word (`fee`, `thuế`).
    pub(super) fn is_money(&self) -> bool {
        self.concept.is_some_and(Concept::is_money)
            || matches!(self.unit, Some(Unit::Currency(_)))
            || (self.concept.is_none() && self.key.has_money_token())
    }

    /// The unit numbers of this field are durations in, if any (warranty: months).
    pub(super) fn duration_unit(&self) -> Option<DurUnit> {
        match (self.unit, self.concept) {
            (Some(Unit::Duration(u)), _) => Some(u),
            (_, Some(Concept::Warranty)) => Some(DurUnit::Months),
            _ => None,
        }
    }
}

/// A one-letter typo of a strong single-word phrase (`warrenty`, `pirce`).
fn fuzzy_concept(toks: &[&str]) -> Option<Concept> {
    let [only] = toks else { return None };
    CONCEPTS.iter().find_map(|(concept, strong, _)| {
        strong.iter().any(|p| !p.contains('_') && same_word(only, p)).then_some(*concept)
    })
}
