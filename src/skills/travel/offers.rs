//! Results pages of flight and hotel sites → offers, by code: the result
//! cards are found as the repeated siblings that each show a price, and
//! each card's text is read for the terms travellers compare (fees,
//! duration, stops, baggage, refundability), in English and Vietnamese.
//! Pure: the HTML comes from `browser_get_dom`, the money from the one
//! money parser, the total from `normalize_compare`.

use std::collections::HashMap;
use std::sync::LazyLock;

use dom_query::{Document, NodeRef, Selection};
use regex::Regex;
use serde_json::{Map, Value, json};

use crate::vocab::text::fold;
use crate::watch::html::{content_text, hidden_or_inside_hidden, lines_of, name_of, price_matches};
use crate::watch::money::parse_amount;

/// How many elements of a page are looked at for cards.
const MAX_ELEMENTS: usize = 5_000;

/// One result card as read from the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    /// The card's heading (carrier and flight, hotel name).
    pub name: String,
    /// Its link, absolute; the page's address when it has none.
    pub url: String,
    /// The raw money fields for `normalize_compare` (`price`, `fees`,
    /// `total`, `currency`).
    pub money: Map<String, Value>,
    /// The terms read from its text, by name (see [`FLIGHT_TERMS`], [`HOTEL_TERMS`]).
    pub terms: Map<String, Value>,
}

/// The terms every flight option is normalised to.
pub const FLIGHT_TERMS: [&str; 10] = [
    "price",
    "fees",
    "currency",
    "depart",
    "arrive",
    "duration_minutes",
    "stops",
    "checked_baggage_kg",
    "cabin_baggage_kg",
    "refundable",
];

/// The terms every hotel option is normalised to.
pub const HOTEL_TERMS: [&str; 6] = ["price", "fees", "currency", "nights", "refundable", "rating"];

fn re(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

/// The result cards of `html` (the page at `url`): the elements of
/// `selector` when given, else the largest group of same-looking siblings
/// that each show a price.
pub fn cards(html: &str, url: &str, selector: Option<&str>) -> Vec<Card> {
    let doc = Document::from(html);
    let nodes: Vec<NodeRef<'_>> = match selector {
        Some(sel) => doc.try_select(sel).map(|s| s.nodes().to_vec()).unwrap_or_default(),
        None => repeated_priced(&doc),
    };
    nodes.iter().filter(|n| !hidden_or_inside_hidden(n)).filter_map(|n| card(n, url)).collect()
}

/// The largest group of siblings of the same tag and class that each show a price.
fn repeated_priced<'a>(doc: &'a Document) -> Vec<NodeRef<'a>> {
    let mut groups: HashMap<(dom_query::NodeId, String), Vec<NodeRef<'a>>> = HashMap::new();
    for el in doc.select("body *").nodes().iter().take(MAX_ELEMENTS) {
        let Some(parent) = el.parent() else { continue };
        if matches!(name_of(el).as_str(), "script" | "style" | "template" | "option" | "select")
            || price_matches(&content_text(el)).is_empty()
        {
            continue;
        }
        let class = el.attr("class").map(|c| c.split_whitespace().next().unwrap_or_default().to_owned());
        groups.entry((parent.id, format!("{}.{}", name_of(el), class.unwrap_or_default()))).or_default().push(*el);
    }
    groups
        .into_values()
        .filter(|g| g.len() >= 2)
        .max_by_key(|g| (g.len(), g.iter().map(|n| content_text(n).len()).sum::<usize>()))
        .unwrap_or_default()
}

/// Reads one card: struck-through prices left out.
fn card(node: &NodeRef<'_>, url: &str) -> Option<Card> {
    let html = Selection::from(*node).html().to_string();
    let doc = Document::from(html.as_str());
    doc.select("del, s, strike, [style*=line-through]").remove();
    let body = doc.body()?;
    let lines = lines_of(&body);
    let name = doc
        .select("h1, h2, h3, h4, h5, h6, [class*=name], [class*=title]")
        .nodes()
        .first()
        .map(content_text)
        .filter(|t| !t.is_empty())
        .or_else(|| lines.first().cloned())?;
    let link = doc.select("a[href]").attr("href").map(|h| h.to_string());
    let url = link
        .and_then(|h| url::Url::parse(url).ok().and_then(|base| base.join(&h).ok()))
        .map_or_else(|| url.to_owned(), |u| u.to_string());
    let money = money_fields(&lines);
    if money.is_empty() {
        return None;
    }
    Some(Card { name, url, money, terms: terms(&lines) })
}

/// What a line says a price is.
#[derive(Debug, PartialEq)]
enum PriceKind {
    Total,
    Fee,
    /// A refund or change fee: a term, not part of the price.
    Other,
    PerNight,
    Price,
}

fn price_kind(folded: &str) -> PriceKind {
    let has = |words: &[&str]| words.iter().any(|w| contains_word(folded, w));
    if has(&["tong", "total", "tong cong", "thanh tien"]) {
        PriceKind::Total
    } else if has(&["hoan", "huy", "refund", "cancel", "cancellation", "change", "doi"]) {
        PriceKind::Other
    } else if has(&["/dem", "moi dem", "per night", "/night", "a night", "mot dem"]) {
        PriceKind::PerNight
    } else if has(&["thue", "phi", "fee", "fees", "tax", "taxes", "surcharge", "phu thu", "le phi"]) {
        PriceKind::Fee
    } else {
        PriceKind::Price
    }
}

/// Whether `word` occurs in `text` at word boundaries (`/` starts a word too).
fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        (edge(before) || word.starts_with('/')) && edge(after)
    })
}

/// `price`, `fees` (summed), `total` and `currency` from the card's lines.
fn money_fields(lines: &[String]) -> Map<String, Value> {
    let mut out = Map::new();
    let (mut fees, mut currency) = (None::<f64>, None::<String>);
    for line in lines {
        let folded = fold(line);
        for text in price_matches(line) {
            let Some((amount, cur)) = parse_amount(&text) else { continue };
            if currency.is_none() {
                currency = cur;
            }
            match price_kind(&folded) {
                PriceKind::Total if !out.contains_key("total") => {
                    out.insert("total".into(), json!(text));
                }
                PriceKind::Fee => fees = Some(fees.unwrap_or(0.0) + amount),
                PriceKind::Price if !out.contains_key("price") => {
                    out.insert("price".into(), json!(text));
                }
                _ => {}
            }
        }
    }
    if !out.contains_key("price") && !out.contains_key("total") {
        return Map::new();
    }
    if let Some(fees) = fees {
        out.insert("fees".into(), json!(fees));
    }
    if let Some(c) = currency {
        out.insert("currency".into(), json!(c));
    }
    out
}

static TIME: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"\b([01]?\d|2[0-3])[:h]([0-5]\d)\b"));
static DURATION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"\b(\d{1,2})\s*(?:h|hr|hrs|gio|tieng)\b\s*(?:(\d{1,2})\s*(?:m|min|mins|phut|p)\b)?|\b(\d{2,3})\s*(?:min|mins|phut)\b",
    )
});
static STOPS: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"\b(\d)\s*(?:stops?|diem dung|lan dung|chang dung|diem transit|lan qua canh|qua canh)\b"));
static KG: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"(?:(\d)\s*[x×]\s*)?(\d{1,2})\s*kg\b"));
static NIGHTS: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"\b(\d{1,2})\s*(?:dem|nights?)\b"));
static RATING: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"\b(\d{1,2}(?:[.,]\d)?)\s*/\s*(10|5)\b"));

/// Refundability in the words of a card: `Some(false)` for "Không hoàn
/// tiền" / "Non-refundable", `Some(true)` for "Hoàn tiền" / "Refundable" /
/// "Miễn phí hủy", `None` when the card does not say.
pub fn refundable(folded: &str) -> Option<bool> {
    const NO: [&str; 8] = [
        "khong hoan tien",
        "khong hoan huy",
        "khong duoc hoan",
        "non-refundable",
        "nonrefundable",
        "non refundable",
        "no refund",
        "khong hoan",
    ];
    const YES: [&str; 7] =
        ["hoan tien", "refundable", "mien phi huy", "free cancellation", "huy mien phi", "duoc hoan", "hoan huy"];
    if NO.iter().any(|w| folded.contains(w)) {
        Some(false)
    } else if YES.iter().any(|w| folded.contains(w)) {
        Some(true)
    } else {
        None
    }
}

/// The terms of one card, from its lines.
fn terms(lines: &[String]) -> Map<String, Value> {
    let folded: Vec<String> = lines.iter().map(|l| fold(l)).collect();
    let all = folded.join("\n");
    let mut out = Map::new();
    if let Some(re) = TIME.as_ref() {
        let times: Vec<String> = re
            .captures_iter(&all)
            .filter_map(|c| Some(format!("{:02}:{}", c.get(1)?.as_str().parse::<u32>().ok()?, c.get(2)?.as_str())))
            .take(2)
            .collect();
        if let [depart, arrive] = times.as_slice() {
            out.insert("depart".into(), json!(depart));
            out.insert("arrive".into(), json!(arrive));
        }
    }
    if let Some(minutes) = duration_minutes(&all) {
        out.insert("duration_minutes".into(), json!(minutes));
    }
    if let Some(stops) = stops(&all) {
        out.insert("stops".into(), json!(stops));
    }
    let (checked, cabin) = baggage(&folded);
    if let Some(kg) = checked {
        out.insert("checked_baggage_kg".into(), json!(kg));
    }
    if let Some(kg) = cabin {
        out.insert("cabin_baggage_kg".into(), json!(kg));
    }
    if let Some(r) = refundable(&all) {
        out.insert("refundable".into(), json!(r));
    }
    if let Some(n) =
        NIGHTS.as_ref().and_then(|re| re.captures(&all)).and_then(|c| c.get(1)?.as_str().parse::<u32>().ok())
    {
        out.insert("nights".into(), json!(n));
    }
    if let Some(c) = RATING.as_ref().and_then(|re| re.captures(&all))
        && let Some(v) = c.get(1).and_then(|m| m.as_str().replace(',', ".").parse::<f64>().ok())
    {
        out.insert("rating".into(), json!(v));
    }
    out
}

/// `2h 35m`, `2 giờ 35 phút`, `155 min` → minutes (the first one shown).
pub fn duration_minutes(folded: &str) -> Option<u32> {
    let c = DURATION.as_ref()?.captures(folded)?;
    if let Some(m) = c.get(3) {
        return m.as_str().parse().ok();
    }
    let hours: u32 = c.get(1)?.as_str().parse().ok()?;
    let minutes: u32 = c.get(2).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
    Some(hours * 60 + minutes)
}

/// `Bay thẳng` / `Nonstop` → 0, `1 điểm dừng` / `2 stops` → the number.
pub fn stops(folded: &str) -> Option<u32> {
    if ["bay thang", "nonstop", "non-stop", "direct", "khong dung", "khong qua canh"].iter().any(|w| folded.contains(w))
    {
        return Some(0);
    }
    STOPS.as_ref()?.captures(folded)?.get(1)?.as_str().parse().ok()
}

/// Checked and cabin baggage in kg: a line naming "ký gửi"/"checked" or
/// "xách tay"/"cabin"/"carry-on"; a plain "Hành lý 20kg" is checked; "no
/// checked bag" is 0.
fn baggage(lines: &[String]) -> (Option<u32>, Option<u32>) {
    let (mut checked, mut cabin) = (None, None);
    for line in lines.iter().flat_map(|l| l.split(['·', '|', ',', ';'])) {
        let kg = KG.as_ref().and_then(|re| re.captures(line)).and_then(|c| {
            let pieces = c.get(1).map_or(Some(1), |m| m.as_str().parse::<u32>().ok())?;
            Some(pieces * c.get(2)?.as_str().parse::<u32>().ok()?)
        });
        let is_cabin = ["xach tay", "cabin", "carry-on", "carry on", "hand"].iter().any(|w| line.contains(w));
        let is_checked = ["ky gui", "checked"].iter().any(|w| line.contains(w));
        let none = ["khong bao gom", "khong co", "no checked", "not included", "chua bao gom"]
            .iter()
            .any(|w| line.contains(w));
        match (kg, is_cabin, is_checked) {
            (_, _, true) if none => checked = checked.or(Some(0)),
            (Some(kg), true, false) => cabin = cabin.or(Some(kg)),
            (Some(kg), _, _) => checked = checked.or(Some(kg)),
            _ => {}
        }
    }
    (checked, cabin)
}
