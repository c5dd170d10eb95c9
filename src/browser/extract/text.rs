//! The last deterministic tier: the page's visible text. `Label: value`
//! lines, amounts of money with the keyword before them, stock phrases,
//! warranty durations, ratings and review counts, found by regexes over a
//! folded copy of the text (matches are cut from the original).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::names::{Concept, FieldSpec};
use super::visible::{Pair, PriceRole, keyword_role, pair_candidates, prepare};
use super::{Candidate, Source};
use crate::vocab::money::detect_currency;
use crate::vocab::text::Folded;
use crate::vocab::value::{IN_STOCK, OUT_OF_STOCK};

/// Lines read from the text at most.
const MAX_LINES: usize = 5_000;
/// Amounts (and other regex hits) kept per kind.
const MAX_HITS: usize = 20;

/// What the visible text says, read once per page.
#[derive(Debug, Default)]
pub(super) struct TextFacts {
    pairs: Vec<Pair>,
    /// `Label: value` and `Label - value` lines as read (for identifiers).
    raw_pairs: Vec<(String, String)>,
    amounts: Vec<Amount>,
    stock: Vec<String>,
    free_shipping: Vec<String>,
    warranty: Vec<String>,
    rating: Vec<String>,
    reviews: Vec<String>,
}

#[derive(Debug)]
struct Amount {
    text: String,
    role: PriceRole,
    /// A price keyword (`Giá`, `Total`...) stands right before it.
    keyword: bool,
}

fn regex(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

impl TextFacts {
    pub(super) fn read(text: &str) -> Self {
        let folded = Folded::new(text);
        let raw = line_pairs(text);
        let mut raw_pairs = raw.clone();
        raw_pairs.extend(dash_pairs(text));
        Self {
            pairs: prepare(&raw),
            raw_pairs,
            amounts: amounts(text),
            stock: stock(text, &folded),
            free_shipping: free_shipping(text, &folded),
            warranty: warranty(text, &folded),
            rating: rating(text),
            reviews: reviews(text, &folded),
        }
    }

    /// `Label: value`, `Label - value` lines of the text.
    pub(super) fn id_pairs(&self) -> impl Iterator<Item = &(String, String)> {
        self.raw_pairs.iter()
    }

    /// Candidates for a field, all from [`Source::Text`]: labelled lines,
    /// else the patterns for the field's concept.
    pub(super) fn candidates(&self, spec: &FieldSpec) -> Vec<Candidate> {
        let mut out = pair_candidates(&self.pairs, spec, Source::Text);
        if !out.is_empty() {
            // A labelled line beats loose patterns (and keeps their noise out).
            return out;
        }
        let text = |t: &String| {
            Candidate::new(Value::String(t.clone()), Source::Text).with_currency(detect_currency(t).map(str::to_owned))
        };
        match spec.concept {
            Some(c @ (Concept::Price | Concept::Total | Concept::OldPrice | Concept::Shipping)) => {
                for roles in PriceRole::wanted(c) {
                    let of_role: Vec<&Amount> = self.amounts.iter().filter(|a| roles.contains(&a.role)).collect();
                    let keyed: Vec<&Amount> = of_role.iter().copied().filter(|a| a.keyword).collect();
                    let chosen = if keyed.is_empty() { of_role } else { keyed };
                    if !chosen.is_empty() {
                        out.extend(chosen.into_iter().map(|a| text(&a.text)));
                        break;
                    }
                }
                if c == Concept::Shipping {
                    out.extend(self.free_shipping.iter().map(text));
                }
            }
            Some(Concept::Availability) => out.extend(self.stock.iter().map(text)),
            Some(Concept::Warranty) => out.extend(self.warranty.iter().map(text)),
            Some(Concept::Rating) => out.extend(self.rating.iter().map(text)),
            Some(Concept::ReviewCount) => out.extend(self.reviews.iter().map(text)),
            _ => {}
        }
        out
    }
}

/// `Label: value`, `Label<TAB>value`, `Label:` then the value on the next
/// line, and a short label-like line followed by its value line.
fn line_pairs(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(MAX_LINES).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).copied();
        if let Some((label, value)) = split_label(line) {
            if !value.is_empty() {
                out.push((label.to_string(), value.to_string()));
            } else if let Some(next) = next {
                out.push((label.to_string(), next.to_string()));
            }
        } else if let Some((label, value)) = line.split_once('\t') {
            out.push((label.trim().to_string(), value.trim().to_string()));
        } else if let Some(next) = next.filter(|n| n.chars().count() <= 300 && split_label(n).is_none())
            && label_like(line)
        {
            out.push((line.to_string(), next.to_string()));
        }
    }
    out
}

/// `Label - value` lines of spec lists (`Product Code - 39139301`).
fn dash_pairs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).take(MAX_LINES) {
        if line.chars().count() > 120 {
            continue;
        }
        for sep in [" - ", " – ", " — "] {
            if let Some((label, value)) = line.split_once(sep)
                && label_like(label)
                && !value.trim().is_empty()
            {
                out.push((label.trim().to_string(), value.trim().to_string()));
                break;
            }
        }
    }
    out
}

fn label_like(line: &str) -> bool {
    line.chars().count() <= 40
        && line.split_whitespace().count() <= 5
        && !line.chars().any(|c| c.is_ascii_digit())
        && !line.ends_with(['.', '!', '?'])
}

/// Splits `Label: value` where the label is short and `:` is not part of a time or URL.
fn split_label(line: &str) -> Option<(&str, &str)> {
    let at = line.find([':', '：'])?;
    let label = line[..at].trim();
    let sep_len = line[at..].chars().next().map_or(1, char::len_utf8);
    let value = line[at + sep_len..].trim();
    let digit_around = label.ends_with(|c: char| c.is_ascii_digit()) && value.starts_with(|c: char| c.is_ascii_digit());
    let ok = !label.is_empty()
        && label.chars().count() <= 50
        && label.split_whitespace().count() <= 6
        && label.chars().any(char::is_alphabetic)
        && !value.starts_with("//")
        && !digit_around;
    ok.then_some((label, value))
}

/// Amounts of money with a currency, in page order, with the role the
/// keyword before them gives (none: a current price without keyword).
fn amounts(text: &str) -> Vec<Amount> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        let num = r"\d+(?:[.,\u{a0} ]\d{3})*(?:[.,]\d{1,2})?";
        regex(&format!(
            r"(?i)(?:(?:US\$|S\$|A\$|C\$|HK\$|NT\$|\$|€|£|¥|₫|VND|USD|EUR|GBP|JPY)\s?{num}|{num}\s?(?:₫|đ\b|vnđ\b|vnd\b|đồng\b|usd\b|eur\b|€|\$|£|円|元|¥))"
        ))
    });
    let Some(re) = RE.as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    for line in text.lines().take(MAX_LINES) {
        for m in re.find_iter(line) {
            let before_start = line[..m.start()].char_indices().rev().nth(24).map_or(0, |(i, _)| i);
            let before =
                line[before_start..m.start()].trim_end_matches(|c: char| c.is_whitespace() || ":：-–".contains(c));
            let role = keyword_role(before);
            out.push(Amount {
                text: m.as_str().trim().to_string(),
                role: role.unwrap_or(PriceRole::Current),
                keyword: role.is_some(),
            });
            if out.len() >= MAX_HITS * 5 {
                return out;
            }
        }
    }
    out
}

/// Byte ranges of whole-word occurrences of `phrases` in a folded text.
fn find_words(t: &str, phrases: &[&str]) -> Vec<(usize, usize)> {
    let mut hits = Vec::new();
    for p in phrases {
        let mut from = 0;
        while let Some(pos) = t[from..].find(p) {
            let (s, e) = (from + pos, from + pos + p.len());
            let starts_word = t[..s].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
            let ends_word = t[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
            if starts_word && ends_word {
                hits.push((s, e));
            }
            from = e;
        }
    }
    hits
}

/// "Free shipping" phrases (`Miễn phí vận chuyển`, `freeship`), read as a zero shipping cost.
fn free_shipping(text: &str, folded: &Folded) -> Vec<String> {
    const FREE: &[&str] =
        &["mien phi van chuyen", "mien phi giao hang", "mien phi ship", "free shipping", "free delivery", "freeship"];
    let mut hits = find_words(folded.as_str(), FREE);
    hits.sort_unstable();
    hits.into_iter().take(MAX_HITS).map(|(s, e)| folded.original(text, s, e).to_string()).collect()
}

/// Stock phrases in page order (a positive inside a negative, `not in stock`, is dropped).
fn stock(text: &str, folded: &Folded) -> Vec<String> {
    let negatives = find_words(folded.as_str(), OUT_OF_STOCK);
    let positives: Vec<(usize, usize)> = find_words(folded.as_str(), IN_STOCK)
        .into_iter()
        .filter(|(s, e)| !negatives.iter().any(|(ns, ne)| ns <= s && e <= ne))
        .collect();
    let mut all: Vec<(usize, usize)> = negatives;
    all.extend(positives);
    all.sort_unstable();
    all.dedup_by(|b, a| b.0 < a.1);
    all.into_iter().take(MAX_HITS).map(|(s, e)| folded.original(text, s, e).to_string()).collect()
}

/// Warranty durations: `Bảo hành 24 tháng`, `warranty: 2 years`, `12-month warranty`.
fn warranty(text: &str, folded: &Folded) -> Vec<String> {
    static AFTER: LazyLock<Option<Regex>> = LazyLock::new(|| {
        regex(
            r"(?:bao hanh|warranty|guarantee)[^0-9\n]{0,25}?(\d+(?:[.,]\d+)?)\s*-?\s*(thang|nam|months?|years?|yrs?|ngay|days?|tuan|weeks?)\b",
        )
    });
    static BEFORE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        regex(r"(\d+(?:[.,]\d+)?)\s*-?\s*(thang|nam|months?|years?|yrs?)\s*(?:bao hanh|warranty|guarantee)")
    });
    let mut hits: Vec<(usize, String)> = Vec::new();
    for re in [AFTER.as_ref(), BEFORE.as_ref()].into_iter().flatten() {
        for caps in re.captures_iter(folded.as_str()).take(MAX_HITS) {
            if let (Some(n), Some(u)) = (caps.get(1), caps.get(2)) {
                let number = folded.original(text, n.start(), n.end());
                let unit = folded.original(text, u.start(), u.end());
                hits.push((n.start(), format!("{number} {unit}")));
            }
        }
    }
    hits.sort();
    hits.dedup_by(|b, a| b.0 == a.0);
    hits.into_iter().map(|(_, h)| h).collect()
}

/// Ratings: `4.5/5`, `4,8 ★`, `4.7 stars`.
fn rating(text: &str) -> Vec<String> {
    static RE: LazyLock<Option<Regex>> =
        LazyLock::new(|| regex(r"(?i)\b(\d(?:[.,]\d{1,2})?)\s*(?:/\s*5\b|★|⭐|sao\b|stars?\b|out of 5\b)"));
    let Some(re) = RE.as_ref() else { return Vec::new() };
    re.captures_iter(text).filter_map(|c| c.get(1)).take(MAX_HITS).map(|m| m.as_str().to_string()).collect()
}

/// Review counts: `1.234 đánh giá`, `(87 reviews)`, `320 ratings`.
fn reviews(text: &str, folded: &Folded) -> Vec<String> {
    static RE: LazyLock<Option<Regex>> =
        LazyLock::new(|| regex(r"(\d[\d.,]*)\s*(?:luot\s+)?(?:reviews?|ratings?|danh gia|nhan xet|binh luan)\b"));
    let Some(re) = RE.as_ref() else { return Vec::new() };
    re.captures_iter(folded.as_str())
        .filter_map(|c| c.get(0))
        .take(MAX_HITS)
        .map(|m| folded.original(text, m.start(), m.end()).to_string())
        .collect()
}
