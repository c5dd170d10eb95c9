//! `browser_extract`, deterministic first: turns [`PageFacts`] (gathered by
//! the page runtime) into the typed fields a schema asks for, with a
//! confidence and a source per field, and notes on every judgement call.
//!
//! # Order of sources
//!
//! For each field the candidates are gathered in this order, and the first
//! that can be coerced to the requested type wins:
//!
//! | source | `sources` | confidence |
//! |---|---|---|
//! | JSON-LD (`Product`, `Offer`, `AggregateOffer`, nested offers; hotels, flights, events, organisations by property name) | `json-ld` | 0.95 |
//! | microdata (read as JSON-LD) | `microdata` | 0.9 |
//! | OpenGraph / `product:` meta tags, the page URL, `twitter:labelN` pairs | `meta` | 0.85 |
//! | the page's inline JSON state: the priced object named like the page (prices) | `state` | 0.8 |
//! | label → value pairs | `label` | 0.75 |
//! | price fragments (struck-through ones are old prices), stock phrases standing alone | `text` | 0.7 |
//! | the buy button (enabled / disabled) | `button` | 0.6 |
//! | a reference in the page's own address | `url` | 0.55 |
//! | regexes over the visible text (`Label: value` lines, amounts, warranty...) | `text` | 0.5 |
//!
//! Three fields have their own order (each module says why): `sku` (the
//! shop's labelled reference first: [`ids`]), availability ([`stock`]) and
//! the current price (price fragments ranked by prominence, the structured
//! offer the page shows: [`visible`]).
//!
//! With `source.type = text` (and `screenshot`, whose pixels only the model
//! reads) only pairs, price fragments and visible text are used. The winner
//! loses 0.15 when other candidates from as good a tier (structured data and
//! labels; price fragments and buttons; text) gave different values, 0.05
//! more for each further different value (0.3 at most). A winner left
//! below [`MIN_CONFIDENCE`] (0.3) is not reported: the field is missing,
//! with a note naming the reading. A field found gets a note when its
//! reading was a judgement (which offer, which stock signal, which of the
//! different values).
//!
//! # Field names
//!
//! Names are folded (lowercase, no diacritics, camelCase and `_`/`-`/spaces
//! unified) and matched to concepts, English and Vietnamese (see
//! `names`): `price`/`giá`/`gia_ban` is the current price, `price_total`/
//! `total`/`tổng tiền` a total, `old_price`/`giá gốc` the struck or list
//! price, `currency`, `name`, `brand`, `sku`, `gtin`, `in_stock`/`còn hàng`,
//! `rating`, `review_count`, `description`, `image`, `url`,
//! `warranty[_months]`/`bảo hành`, `shipping`/`phí vận chuyển`. Any other
//! name is matched against page labels and structured property names
//! (`cancellation_policy` ↔ "Cancellation policy" / "Chính sách hủy").
//! Nothing is invented: a field not found is listed in `missing_fields`.
//!
//! The model-assisted pass for what is left is a separate step, run by the
//! executor when a front end set a model (`halley run`, `halley chat`): see
//! [`fallback`]. Its fields have source `model` and confidence 0.6, and a
//! note names them.

mod coerce;
mod facts;
pub mod fallback;
mod ids;
mod lexicon;
mod names;
mod stock;
mod structured;
mod text;
mod visible;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

pub use facts::{BuyButton, MicrodataItem, PageFacts, PriceFragment, StateItem, StockLine};
pub use stock::PHRASES as STOCK_PHRASES;

use crate::tools::catalogue::capture::{BrowserExtractOutput, ExtractFieldType, ExtractSourceType};
use crate::vocab::money::{currency_code, detect_currency};
use coerce::{Coerced, Ctx, Reject, coerce, fold_eq, plain, show};
use names::{Concept, FieldSpec};
use structured::Entity;
use text::TextFacts;
use visible::Pair;

/// Where a candidate value came from; the order is the priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    JsonLd,
    Microdata,
    Meta,
    /// The page's inline JSON state.
    State,
    Label,
    Fragment,
    /// The state of the page's buy button.
    Button,
    Text,
    /// The page's own address (a reference in its path).
    Url,
    Model,
}

impl Source {
    /// The name reported in `sources`.
    fn name(self) -> &'static str {
        match self {
            Self::JsonLd => "json-ld",
            Self::Microdata => "microdata",
            Self::Meta => "meta",
            Self::State => "state",
            Self::Label => "label",
            Self::Fragment | Self::Text => "text",
            Self::Button => "button",
            Self::Url => "url",
            Self::Model => "model",
        }
    }

    fn confidence(self) -> f64 {
        match self {
            Self::JsonLd => 0.95,
            Self::Microdata => 0.9,
            Self::Meta => 0.85,
            Self::State => 0.8,
            Self::Label => 0.75,
            Self::Fragment => 0.7,
            Self::Model => 0.6,
            Self::Button => 0.6,
            Self::Url => 0.55,
            Self::Text => 0.5,
        }
    }

    /// Disagreement tiers: structured data and labels, price fragments,
    /// text guesses. A winner is only questioned by its tier or a better one.
    fn tier(self) -> u8 {
        match self {
            Self::JsonLd | Self::Microdata | Self::Meta | Self::State | Self::Label => 0,
            Self::Fragment | Self::Button => 1,
            Self::Text | Self::Url => 2,
            Self::Model => 3,
        }
    }
}

/// Confidence lost when candidates disagreed.
const DISAGREEMENT_PENALTY: f64 = 0.15;

/// Confidence lost for each further different value (a third, a fourth...), up to [`MAX_PENALTY`].
const MORE_VALUES_PENALTY: f64 = 0.05;
const MAX_PENALTY: f64 = 0.3;

/// Below this confidence a field is left out (listed in `missing_fields`,
/// with a note naming the reading): a guess from loose text among three or
/// more different values (0.5 − 0.15 − 0.05...) is not an answer.
const MIN_CONFIDENCE: f64 = 0.3;

/// Why a price candidate is special (for notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    Plain,
    /// Shown struck through.
    Struck,
    /// An `AggregateOffer`'s `highPrice`.
    HighPrice,
}

/// One value found for a field, before coercion.
#[derive(Debug, Clone)]
struct Candidate {
    value: Value,
    source: Source,
    /// The currency stated with it (prices).
    currency: Option<String>,
    hint: Hint,
    /// Why this value, for the notes when it wins (`the buy button "Add to cart" is enabled`).
    note: Option<String>,
    /// Its confidence, when the field's module weighed the evidence itself
    /// (availability): then other candidates do not lower it again.
    fixed: Option<f64>,
    /// Confidence it loses whatever the other candidates say: a pick among
    /// several amounts it holds itself (a row comparing several products).
    doubt: f64,
}

impl Candidate {
    fn new(value: Value, source: Source) -> Self {
        Self { value, source, currency: None, hint: Hint::Plain, note: None, fixed: None, doubt: 0.0 }
    }

    fn with_currency(mut self, currency: Option<String>) -> Self {
        if currency.is_some() {
            self.currency = currency;
        }
        self
    }
}

/// Everything read from the facts once, shared by all fields.
struct Page<'a> {
    facts: &'a PageFacts,
    dom: bool,
    jsonld: Vec<Entity<'a>>,
    microdata: Vec<Entity<'a>>,
    pairs: Vec<Pair>,
    meta_pairs: Vec<Pair>,
    text: TextFacts,
    ctx: Ctx,
}

/// Extracts `schema`'s fields from the page facts, deterministically (same
/// facts, same output). `source_kind` `text`/`screenshot` limits the
/// sources to what is visible: pairs, price fragments and text.
pub fn extract(
    facts: &PageFacts,
    schema: &BTreeMap<String, ExtractFieldType>,
    source_kind: ExtractSourceType,
) -> BrowserExtractOutput {
    let micro: Vec<Value> = facts.microdata.iter().map(MicrodataItem::to_jsonld).collect();
    let dom = source_kind == ExtractSourceType::Dom;
    let page = Page {
        facts,
        dom,
        jsonld: structured::entities(&facts.jsonld),
        microdata: structured::entities(&micro),
        pairs: visible::prepare(&facts.pairs),
        meta_pairs: visible::prepare(&structured::twitter_pairs(&facts.meta)),
        text: TextFacts::read(&facts.text),
        ctx: Ctx::new(&facts.url, &facts.lang),
    };
    let mut out = empty_output();
    if source_kind == ExtractSourceType::Screenshot {
        out.notes.push(
            "screenshot: read the visible text and prices only; values drawn in images or canvas need the model".into(),
        );
    }
    if dom && facts.jsonld_errors > 0 {
        out.notes.push(format!("{} JSON-LD block(s) on the page could not be parsed", facts.jsonld_errors));
    }
    for (name, ty) in schema {
        resolve(&page, &FieldSpec::new(name), *ty, &mut out);
    }
    out
}

fn empty_output() -> BrowserExtractOutput {
    BrowserExtractOutput {
        data: Map::new(),
        confidence: BTreeMap::new(),
        sources: BTreeMap::new(),
        missing_fields: Vec::new(),
        notes: Vec::new(),
    }
}

/// All candidates for a field, best source first.
fn gather(page: &Page<'_>, spec: &FieldSpec) -> Vec<Candidate> {
    let facts = page.facts;
    match spec.concept {
        Some(Concept::Sku) => return ids::sku_candidates(page, spec),
        Some(Concept::Availability) => {
            let mut out = stock::candidates(page, spec);
            if !page.dom {
                out.retain(|c| matches!(c.source, Source::Label | Source::Fragment | Source::Button));
            }
            return out;
        }
        _ => {}
    }
    let mut out = Vec::new();
    if page.dom {
        out.extend(structured::candidates(&page.jsonld, spec, Source::JsonLd));
        out.extend(structured::candidates(&page.microdata, spec, Source::Microdata));
        out.extend(structured::meta_candidates(&facts.meta, spec));
        out.extend(visible::pair_candidates(&page.meta_pairs, spec, Source::Meta));
    }
    if page.dom && matches!(spec.concept, Some(Concept::Price | Concept::Total)) {
        out.extend(state_prices(page));
    }
    if spec.concept == Some(Concept::Price) {
        prefer_the_shown_offer(page, spec, &mut out);
    }
    if spec.concept == Some(Concept::Gtin) {
        out.extend(ids::gtin_candidates(page));
    }
    out.extend(visible::pair_candidates(&page.pairs, spec, Source::Label));
    out.extend(visible::fragment_candidates(&facts.prices, spec));
    out.extend(page.text.candidates(spec));
    if page.dom && spec.concept == Some(Concept::Name) {
        // The <title>, without a ` | Shop name` tail.
        let title = [" | ", " – ", " — "].iter().fold(facts.title.as_str(), |t, sep| t.split(sep).next().unwrap_or(t));
        let title = title.trim();
        if !title.is_empty() {
            out.push(Candidate::new(Value::String(title.to_string()), Source::Text));
        }
    }
    if page.dom && spec.concept == Some(Concept::Url) && out.is_empty() && !facts.url.trim().is_empty() {
        // The page's own address, when nothing names another.
        out.push(Candidate::new(Value::String(facts.url.trim().to_string()), Source::Meta));
    }
    if spec.concept == Some(Concept::Currency) {
        // The currency the prices are written in.
        let prices = FieldSpec::new("price");
        for c in gather(page, &prices) {
            let code = c.currency.as_deref().and_then(currency_code).or_else(|| match &c.value {
                Value::String(s) => detect_currency(s).map(str::to_owned),
                _ => None,
            });
            if let Some(code) = code {
                out.push(Candidate::new(Value::String(code), c.source));
            }
        }
        out.sort_by_key(|c| c.source);
    }
    out
}

/// Prices of the page's inline JSON state: the objects named like the page
/// (its title, `og:title`, the structured product's name), or the only one.
fn state_prices(page: &Page<'_>) -> Vec<Candidate> {
    let facts = page.facts;
    let mut names: Vec<&str> = vec![facts.title.as_str()];
    names.extend(facts.meta.get("og:title").map(String::as_str));
    for (_, e) in page.jsonld.iter().filter(|(rank, _)| *rank == 0) {
        names.extend(e.get("name").and_then(Value::as_str));
    }
    let named = |item: &&StateItem| {
        item.name.trim().chars().count() >= 4 && names.iter().any(|n| !n.trim().is_empty() && fold_eq(n, &item.name))
    };
    let mut items: Vec<&StateItem> = facts.state.iter().filter(named).collect();
    if items.is_empty() && facts.state.len() == 1 {
        items = facts.state.iter().collect();
    }
    items
        .into_iter()
        .map(|item| {
            let mut c = Candidate::new(Value::String(item.price.clone()), Source::State)
                .with_currency((!item.currency.is_empty()).then(|| item.currency.clone()));
            c.note = Some(format!("from the page's inline data for \"{}\"", plain(&Value::String(item.name.clone()))));
            c
        })
        .collect()
}

/// Among several structured offers, the one whose price the page shows
/// most prominently comes first (variants, a card-holder price).
fn prefer_the_shown_offer(page: &Page<'_>, spec: &FieldSpec, out: &mut [Candidate]) {
    let structured = out.iter().take_while(|c| c.source <= Source::Microdata).count();
    if structured < 2 {
        return;
    }
    let amount =
        |c: &Candidate| coerce(c, ExtractFieldType::Number, spec, &page.ctx).ok().and_then(|v| v.value.as_f64());
    let first = amount(&out[0]);
    if out[..structured].iter().all(|c| amount(c) == first) {
        return;
    }
    let shown = visible::ranked(&page.facts.prices, &[visible::PriceRole::Current]).into_iter().next().and_then(|f| {
        let c = Candidate::new(Value::String(f.text.clone()), Source::Fragment);
        amount(&c)
    });
    if let Some(shown) = shown
        && let Some(i) = out[..structured].iter().position(|c| amount(c) == Some(shown))
    {
        out[..=i].rotate_right(1);
        if let Some(c) = out.first_mut() {
            c.note = Some(format!("{} offers; took the one the page shows ({})", structured, plain(&c.value)));
        }
    }
}

/// Two coerced values say the same thing (strings: one contains the other, folded).
fn agree(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => fold_eq(x, y),
        _ => a == b,
    }
}

fn resolve(page: &Page<'_>, spec: &FieldSpec, ty: ExtractFieldType, out: &mut BrowserExtractOutput) {
    let name = &spec.name;
    let candidates = gather(page, spec);
    let mut found: Vec<(&Candidate, Coerced)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let price = matches!(spec.concept, Some(Concept::Price | Concept::Total));
    let mut priced_at_zero = false;
    for c in &candidates {
        match coerce(c, ty, spec, &page.ctx) {
            // A price of 0 is a placeholder ("price on request"), not a price.
            Ok(v) if price && v.value.as_f64() == Some(0.0) && c.source != Source::Model => {
                priced_at_zero |= c.source <= Source::Meta;
                let line = format!("a price of 0 ({})", c.source.name());
                if !skipped.contains(&line) {
                    skipped.push(line);
                }
            }
            Ok(v) => found.push((c, v)),
            // Text-tier guesses that do not fit are not worth a note.
            Err(Reject::Bad(reason)) if found.is_empty() && c.source != Source::Text => {
                let line = format!("{reason} ({})", c.source.name());
                if !skipped.contains(&line) {
                    skipped.push(line);
                }
            }
            Err(_) => {}
        }
    }
    skipped.truncate(2);
    // The structured data prices the product at 0 (no price shown): what
    // the page shows elsewhere is another product's.
    if priced_at_zero && found.first().is_some_and(|(c, _)| c.source > Source::Meta) {
        found.clear();
    }
    let Some((winner, value)) = found.first() else {
        out.missing_fields.push(name.clone());
        if !skipped.is_empty() {
            out.notes.push(format!("{name}: not found; skipped {}", skipped.join("; ")));
        }
        return;
    };
    if !skipped.is_empty() {
        out.notes.push(format!("{name}: skipped {}", skipped.join("; ")));
    }
    out.notes.extend(value.warnings.iter().map(|w| format!("{name}: {w}")));

    // Disagreement among the candidates that count against this winner.
    let mut distinct: Vec<(&Value, Source)> = Vec::new();
    for (c, v) in &found {
        let counts = c.source.tier() <= winner.source.tier();
        if counts && !distinct.iter().any(|(d, _)| agree(d, &v.value)) {
            distinct.push((&v.value, c.source));
        }
    }
    let mut confidence = winner.fixed.unwrap_or_else(|| winner.source.confidence()) - winner.doubt;
    if distinct.len() > 1 && winner.fixed.is_none() {
        let more = MORE_VALUES_PENALTY * (distinct.len() - 2) as f64;
        confidence -= (DISAGREEMENT_PENALTY + more).min(MAX_PENALTY);
        let listed: Vec<String> =
            distinct.iter().take(3).map(|(v, s)| format!("{} from {}", show(v), s.name())).collect();
        let more = if distinct.len() > 3 { ", ..." } else { "" };
        out.notes.push(format!(
            "{name}: {} different values ({}{more}); took {}",
            distinct.len(),
            listed.join(", "),
            show(&value.value)
        ));
    }
    let confidence = (confidence.max(0.0) * 100.0).round() / 100.0;
    if confidence < MIN_CONFIDENCE {
        out.missing_fields.push(name.clone());
        let why =
            winner.note.as_ref().filter(|_| winner.fixed.is_some()).map(|n| format!(" ({n})")).unwrap_or_default();
        out.notes.push(format!(
            "{name}: left out: the best reading, {} from {}{why}, has confidence {confidence:.2}, below {MIN_CONFIDENCE}",
            show(&value.value),
            winner.source.name()
        ));
        return;
    }
    if let Some(note) = &winner.note {
        out.notes.push(format!("{name}: {note}"));
    }
    if price {
        old_price_note(page, spec, winner, out);
    }
    out.data.insert(name.clone(), value.value.clone());
    out.confidence.insert(name.clone(), confidence);
    out.sources.insert(name.clone(), winner.source.name().to_string());
}

/// "took the current one, not the struck-through 25.990.000 ₫".
fn old_price_note(page: &Page<'_>, spec: &FieldSpec, winner: &Candidate, out: &mut BrowserExtractOutput) {
    let amount = |c: &Candidate, s: &FieldSpec| {
        let plain = FieldSpec { unit: None, ..s.clone() };
        coerce(c, ExtractFieldType::Number, &plain, &page.ctx).ok().and_then(|v| v.value.as_f64())
    };
    let Some(current) = amount(winner, spec) else { return };
    let old_spec = FieldSpec::new("old_price");
    let olds: Vec<(Candidate, f64)> = gather(page, &old_spec)
        .into_iter()
        .filter_map(|c| amount(&c, &old_spec).map(|a| (c, a)))
        .filter(|(_, a)| *a != current)
        .collect();
    let Some((first, _)) = olds.first() else { return };
    let mut values: Vec<f64> = vec![current];
    for (_, a) in &olds {
        if !values.contains(a) {
            values.push(*a);
        }
    }
    let name = &spec.name;
    let (now, old) = (plain(&winner.value), plain(&first.value));
    out.notes.push(match first.hint {
        Hint::HighPrice => format!("{name}: offers range from {now} to {old}; took the lowest"),
        Hint::Struck => format!(
            "{name}: {} different prices on the page; took the current one ({now}), not the struck-through {old}",
            values.len()
        ),
        Hint::Plain => format!(
            "{name}: {} different prices on the page; took the current one ({now}), not the old/list price {old}",
            values.len()
        ),
    });
}
