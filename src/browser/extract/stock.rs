//! Availability: in stock, out of stock, or not said (never "in stock" by
//! default). Signals, in order of trust:
//!
//! 1. a stock phrase the page shows for the product: labelled (`Availability:
//!    In stock`, `Disponibilità: solo 1`) or standing alone on its line
//!    (`In stock.`, `Auf Lager`, `Hết hàng`, `在庫切れ`, `품절`);
//! 2. structured data: the offers' `availability` (in stock when any offer
//!    is: the others are sizes or colours sold out), product meta tags;
//! 3. the buy button: enabled (in stock) or disabled (out of stock). An
//!    enabled one also outweighs structured data saying out of stock (often
//!    a variant's, or stale); a disabled one does not outweigh structured
//!    data saying in stock (many shops disable it until a size is chosen).
//!
//! A stock phrase inside a longer sentence ("if the price is not shown, the
//! item is not in stock at the moment", "we'll let you know when it's in
//! stock") is boilerplate, not a statement about the product: it is not used.

use serde_json::Value;

use super::coerce::availability;
use super::names::FieldSpec;
use super::{Candidate, Page, Source, structured};
use crate::vocab::text::{fold, fold_camel_key};
use crate::vocab::value::{IN_STOCK, OUT_OF_STOCK, parse_bool};

/// Labels of a stock state in the major shop languages (folded, `_`-joined).
const LABELS: &[&str] = &[
    "availability",
    "available",
    "stock",
    "in_stock",
    "stock_status",
    "status",
    "verfugbarkeit",
    "lieferbarkeit",
    "lagerstatus",
    "lagerbestand",
    "disponibilite",
    "disponibilita",
    "disponibilidad",
    "disponibilidade",
    "beschikbaarheid",
    "voorraad",
    "dostepnosc",
    "dostupnost",
    "razpolozljivost",
    "zaloga",
    "stanje",
    "na_stanju",
    "sklad",
    "skladom",
    "dostupnost_tovaru",
    "lagersaldo",
    "lager",
    "saatavuus",
    "elerhetoseg",
    "stok_durumu",
    "stok",
    "наличие",
    "в_наличии",
    "tinh_trang",
    "tinh_trang_hang",
    "trang_thai",
    "kho_hang",
    "在庫",
    "在庫状況",
    "库存",
    "庫存",
    "재고",
];

/// Longest line a stock phrase may stand in and still stand alone.
const STANDALONE_LINE: usize = 60;

/// A stock state read from a short text: a schema.org word, a stock phrase
/// (out-of-stock phrases first: `nicht auf Lager`), or a count (`solo 1`,
/// `5 pcs`: more than zero is in stock).
pub(super) fn read_state(text: &str, labelled: bool) -> Option<bool> {
    if let Some(b) = availability(text) {
        return Some(b);
    }
    let f = fold(text);
    let t = f.trim().trim_end_matches(['.', '!']);
    if OUT_OF_STOCK.iter().any(|w| find_phrase(t, w).is_some()) {
        return Some(false);
    }
    if IN_STOCK.iter().any(|w| find_phrase(t, w).is_some()) {
        return Some(true);
    }
    if !labelled {
        return None;
    }
    // A count: one number of at most four digits among at most four words (`solo 1`, `5 Stk.`).
    let numbers: Vec<&str> = t.split(|c: char| !c.is_ascii_digit()).filter(|n| !n.is_empty()).collect();
    if let [n] = numbers[..]
        && n.len() <= 4
        && t.split_whitespace().count() <= 4
        && let Ok(n) = n.parse::<u64>()
    {
        return Some(n > 0);
    }
    parse_bool(t)
}

/// Where `phrase` stands in `t` as whole words (`dostupno` is not in
/// `dostupnost`); phrases in scripts written without spaces (`在庫切れ`,
/// `품절`) match anywhere.
fn find_phrase(t: &str, phrase: &str) -> Option<usize> {
    let spaced = phrase.chars().all(|c| !c.is_alphabetic() || c.is_ascii() || ('\u{0400}'..='\u{04ff}').contains(&c));
    let mut from = 0;
    while let Some(pos) = t[from..].find(phrase) {
        let (s, e) = (from + pos, from + pos + phrase.len());
        let starts = t[..s].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let ends = t[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if !spaced || (starts && ends) {
            return Some(s);
        }
        from = e;
    }
    None
}

fn state_value(in_stock: bool) -> Value {
    Value::String(if in_stock { "InStock" } else { "OutOfStock" }.into())
}

/// A stock phrase standing alone on a line (`In stock.`, `Only 2 left in
/// stock.`, `Disponibile presso questi venditori.`): the line starts with
/// the phrase, or the phrase is a good part of a short line.
fn standalone(line: &str) -> Option<(bool, String)> {
    let f = fold(line);
    let t = f.trim().trim_matches(|c: char| !c.is_alphanumeric());
    let len = t.chars().count();
    if len == 0 || len > STANDALONE_LINE {
        return None;
    }
    let phrase_at = |list: &[&str]| -> Option<(usize, usize)> {
        list.iter()
            .filter_map(|p| find_phrase(t, p).map(|at| (at, p.chars().count())))
            .min_by_key(|(at, l)| (*at, usize::MAX - l))
    };
    let (state, (at, plen)) = match (phrase_at(OUT_OF_STOCK), phrase_at(IN_STOCK)) {
        (Some(o), _) => (false, o),
        (None, Some(i)) => (true, i),
        (None, None) => return None,
    };
    let starts = at == 0;
    (starts || plen * 10 >= len * 3).then(|| (state, line.trim().to_string()))
}

/// Candidates for an availability field, best first (see the module's order).
pub(super) fn candidates(page: &Page<'_>, spec: &FieldSpec) -> Vec<Candidate> {
    let facts = page.facts;
    let mut out = Vec::new();
    // 1. What the page says: labelled, then phrases standing alone.
    let label_ok = |l: &str| {
        let k = fold_camel_key(l);
        LABELS.iter().any(|w| *w == k)
    };
    let labelled =
        facts.pairs.iter().chain(page.text.id_pairs()).filter(|(l, v)| label_ok(l) && v.chars().count() <= 80);
    for (label, value) in labelled {
        if let Some(state) = read_state(value, true) {
            let mut c = Candidate::new(state_value(state), Source::Label);
            c.note = Some(format!("\"{label}: {value}\""));
            out.push(c);
            break;
        }
    }
    // A line right after `Label:` is that label's value (`International
    // delivery:` / `Not available for this item`), read above when it is a stock label.
    let lines: Vec<&str> = facts.text.lines().map(str::trim).filter(|l| !l.is_empty()).take(5_000).collect();
    let alone = lines.iter().enumerate().find_map(|(i, line)| {
        let after_label = i > 0 && lines[i - 1].ends_with([':', '：']);
        if after_label { None } else { standalone(line) }
    });
    if out.is_empty()
        && let Some((state, line)) = alone
    {
        let mut c = Candidate::new(state_value(state), Source::Fragment);
        c.note = Some(format!("the page says \"{line}\""));
        out.push(c);
    }
    let said: Vec<Candidate> = std::mem::take(&mut out);
    // 2. Structured data: in stock when any offer is.
    if page.dom {
        let mut structured_states: Vec<(bool, Source)> = Vec::new();
        for (entities, source) in [(&page.jsonld, Source::JsonLd), (&page.microdata, Source::Microdata)] {
            for c in structured::candidates(entities, spec, source) {
                if let Some(text) = super::coerce::text_of(&c.value)
                    && let Some(state) = availability(&text).or_else(|| read_state(&text, true))
                {
                    structured_states.push((state, source));
                }
            }
        }
        let twitter = structured::twitter_pairs(&facts.meta);
        let labelled_meta = twitter
            .iter()
            .filter(|(l, _)| label_ok(l))
            .map(|(_, v)| Candidate::new(Value::String(v.clone()), Source::Meta));
        for c in structured::meta_candidates(&facts.meta, spec).into_iter().chain(labelled_meta) {
            if let Some(text) = super::coerce::text_of(&c.value)
                && let Some(state) = availability(&text).or_else(|| read_state(&text, true))
            {
                structured_states.push((state, Source::Meta));
            }
        }
        if let Some((_, source)) = structured_states.first() {
            let any_in = structured_states.iter().any(|(s, _)| *s);
            let mut c = Candidate::new(state_value(any_in), *source);
            let n = structured_states.len();
            if n > 1 {
                let ins = structured_states.iter().filter(|(s, _)| *s).count();
                c.note = Some(format!("{ins} of {n} offers in stock"));
            }
            // Out of stock in the structured data, yet the page sells it:
            // the button the user would press wins (the data is often a
            // variant's or stale).
            let selling = facts.buy.iter().find(|b| !b.disabled);
            if !any_in && let Some(b) = selling {
                let mut first = Candidate::new(state_value(true), Source::Button);
                first.note = Some(format!(
                    "the buy button \"{}\" is enabled, though the structured data says out of stock",
                    b.text
                ));
                out.push(first);
            }
            out.push(c);
        }
    }
    // 3. The buy button.
    if !facts.buy.is_empty() {
        let enabled = facts.buy.iter().find(|b| !b.disabled);
        let mut c = Candidate::new(state_value(enabled.is_some()), Source::Button);
        c.note = Some(match enabled {
            Some(b) => format!("the buy button \"{}\" is enabled", b.text),
            None => format!("the buy button \"{}\" is disabled", facts.buy[0].text),
        });
        out.push(c);
    }
    // What the page says goes first when it contradicts the rest; when it
    // agrees, the structured data answers (with its confidence).
    match (said.first(), out.first()) {
        (Some(s), Some(o)) if s.value == o.value => {
            out.extend(said);
            out
        }
        _ => {
            let mut all = said;
            all.extend(out);
            all
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn phrases_standing_alone_count_sentences_do_not() {
        let s = |l: &str| standalone(l).map(|(b, _)| b);
        assert_eq!(s("In stock."), Some(true));
        assert_eq!(s("Only 2 left in stock."), Some(true));
        assert_eq!(s("Auf Lager"), Some(true));
        assert_eq!(s("Hết hàng"), Some(false));
        assert_eq!(s("Tạm hết hàng"), Some(false));
        assert_eq!(s("在庫切れ"), Some(false));
        assert_eq!(s("在庫あり"), Some(true));
        assert_eq!(s("품절"), Some(false));
        assert_eq!(s("Épuisé"), Some(false));
        assert_eq!(s("We’ll let you know when it’s in stock"), None);
        assert_eq!(s("If the price is not shown, the item is not in stock at the moment."), None);
        assert_eq!(s("Strážiť cenu a dostupnosť"), None);
    }

    #[test]
    fn labelled_states() {
        assert_eq!(read_state("solo 1", true), Some(true));
        assert_eq!(read_state("0 pcs", true), Some(false));
        assert_eq!(read_state("Na zalogi", true), Some(true));
        assert_eq!(read_state("https://schema.org/OutOfStock", false), Some(false));
        assert_eq!(read_state("Red", false), None);
        assert_eq!(read_state("July 31, 2016", true), None);
    }
}
