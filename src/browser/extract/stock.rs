//! Availability: in stock, out of stock, or not said (never "in stock" by
//! default). Whose availability it is matters more than what a sentence
//! says: only the main product's own evidence counts, and a false "out of
//! stock" is worse than "unknown" (issue 30). Each kind of evidence has at
//! most one vote:
//!
//! 1. **structured data**: the offers' `availability` (in stock when any
//!    offer is: the others are sizes or colours sold out), product meta
//!    tags (`json-ld` 0.95, `microdata` 0.9, `meta` 0.85);
//! 2. **what the page says** about the product: a labelled stock line
//!    (`Availability: In stock`, `Disponibilità: solo 1`; `label` 0.75), else
//!    a stock phrase standing alone on its line (`In stock.`, `Auf Lager`,
//!    `Hết hàng`, `在庫切れ`; `text` 0.7). A line is not the product's when
//!    it speaks of something else ([`OTHER_TOPICS`]: a chat, a store or
//!    pickup, delivery to an area, an option to choose, reviews, a
//!    newsletter or alert) or when the page runtime found it in another part
//!    of the page (a chat widget, a recommendation, reviews, a store or
//!    delivery box, a variant picker, the page's furniture, a dialog). A
//!    phrase inside a longer sentence ("if the price is not shown, the item
//!    is not in stock at the moment") is boilerplate and does not count;
//! 3. **its own buy button** (not one in a recommendation, the furniture or
//!    a dialog): enabled (in stock) or all disabled (out of stock; `button` 0.6).
//!
//! When the votes agree, the best of them answers with its confidence. When
//! they disagree, the majority answers with 0.15 less confidence and a note
//! naming the dissent. A tie never answers "out of stock": the in-stock side
//! answers with 0.3 less confidence (an enabled button against the page's
//! out-of-stock data: the data is often a variant's or stale), 0.15 less
//! when all that dissents is a disabled button (many shops disable it until
//! a size is chosen). A reading left below the extraction's threshold
//! (`MIN_CONFIDENCE`, 0.3) is not given: the field is missing, with a note.
//! Watches act only on readings of at least `watch::TRUSTED` (0.7).

use std::sync::LazyLock;

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

/// Sentences saying the product cannot be bought now (folded): "Momentálne
/// nie je možné produkt kúpiť, ale je možné ho rezervovať" (it can only be
/// reserved), "This item cannot be purchased". They count only where they
/// end the line's first clause ([`not_purchasable`]): "This item cannot be
/// purchased with a gift card" says something else.
const NOT_PURCHASABLE: &[&str] = &[
    "cannot be purchased",
    "can not be purchased",
    "cannot be bought",
    "cannot be ordered",
    "can no longer be ordered",
    "can no longer be purchased",
    "not available for purchase",
    "not available to buy",
    "nicht bestellbar",
    "nicht mehr bestellbar",
    "nicht kaufbar",
    "ne peut pas etre achete",
    "ne peut plus etre commande",
    "no se puede comprar",
    "non acquistabile",
    "non e acquistabile",
    "nie mozna kupic",
    "nie je mozne kupit",
    "nie je mozne produkt kupit",
    "produkt nie je mozne kupit",
    "nelze koupit",
    "nelze zakoupit",
    "neni mozne koupit",
    "neni mozne produkt koupit",
];

/// Words of time that may follow a [`NOT_PURCHASABLE`] sentence (folded).
const FOR_NOW: &[&str] = &[
    "at the moment",
    "at present",
    "right now",
    "currently",
    "now",
    "momentan",
    "derzeit",
    "zurzeit",
    "momentalne",
    "aktualne",
    "en este momento",
    "al momento",
    "obecnie",
];

/// The line's first clause when it says the product cannot be bought now
/// (a [`NOT_PURCHASABLE`] sentence ending it, but for words of time).
fn not_purchasable(line: &str) -> Option<String> {
    let clause = line.split([',', ';', '.', '!', '?', '(']).next()?.trim();
    let f = fold(clause);
    let mut t = f.trim();
    if t.chars().count() > STANDALONE_LINE {
        return None;
    }
    while let Some(rest) = FOR_NOW.iter().find_map(|w| t.strip_suffix(w).filter(|r| r.ends_with(' '))) {
        t = rest.trim_end();
    }
    // Before it only the product as its subject and words of time: "Gift
    // cards cannot be purchased" is not about the product.
    let subject = |w: &str| SUBJECT.contains(&w) || FOR_NOW.contains(&w);
    NOT_PURCHASABLE
        .iter()
        .filter_map(|p| t.strip_suffix(p))
        .any(|rest| {
            rest.chars().next_back().is_none_or(|c| !c.is_alphanumeric()) && rest.split_whitespace().all(subject)
        })
        .then(|| clause.to_string())
}

/// The words that may stand before a [`NOT_PURCHASABLE`] sentence as its
/// subject: the product (folded).
const SUBJECT: &[&str] = &[
    "this",
    "the",
    "item",
    "product",
    "article",
    "unfortunately",
    "sorry",
    "dieser",
    "dieses",
    "der",
    "das",
    "artikel",
    "produkt",
    "leider",
    "ce",
    "cet",
    "produit",
    "article",
    "el",
    "este",
    "producto",
    "questo",
    "il",
    "prodotto",
    "ten",
    "tento",
    "tovar",
    "zbozi",
    "bohuzial",
    "zial",
    "niestety",
];

/// A stock phrase standing alone on a line (`In stock.`, `Only 2 left in
/// stock.`, `Disponibile presso questi venditori.`): the line starts with
/// the phrase, or the phrase is a good part of a short line; or the line
/// begins by saying the product cannot be bought now ([`not_purchasable`]).
fn standalone(line: &str) -> Option<(bool, String)> {
    if let Some(clause) = not_purchasable(line) {
        return Some((false, clause));
    }
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
    // `Is Discontinued By Manufacturer : No`: a label and its value, read as a pair.
    if t[at..].find(':').is_some_and(|colon| t[at + colon + 1..].chars().any(char::is_alphanumeric)) {
        return None;
    }
    let starts = at == 0;
    (starts || plen * 10 >= len * 3).then(|| (state, line.trim().to_string()))
}

/// The stock phrases the page runtime looks for (folded): out of stock
/// first (with the sentences saying it cannot be bought), then in stock.
pub static PHRASES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| OUT_OF_STOCK.iter().chain(NOT_PURCHASABLE).chain(IN_STOCK).copied().collect());

/// Words of a line that speaks of something else than the product's own
/// stock (folded; whole words where words have spaces): a chat, a store or
/// pickup, delivery to an area, an option to choose, reviews, a newsletter
/// or alert. "Chat is unavailable", "w sklepie Produkt niedostępny" (not in
/// the store), "Unavailable to select" (a variant) say nothing of whether
/// the product can be bought.
pub(super) const OTHER_TOPICS: &[(&str, &[&str])] = &[
    ("a chat", &["chat", "live chat", "chatbot", "agent", "agents", "support", "hotline", "czat", "konsultant"]),
    (
        "a store or pickup",
        &[
            "store",
            "stores",
            "in-store",
            "shop",
            "shops",
            "pickup",
            "pick up",
            "pick-up",
            "collect",
            "collection",
            "reserve",
            "w sklepie",
            "sklep",
            "sklepie",
            "sklepach",
            "salonie",
            "odbior",
            "odbioru",
            "filiale",
            "im markt",
            "abholung",
            "abholen",
            "magasin",
            "retrait",
            "tienda",
            "recogida",
            "recoger",
            "retiro",
            "negozio",
            "ritiro",
            "loja",
            "retirada",
            "winkel",
            "afhalen",
            "predajni",
            "predajne",
            "predajna",
            "prodejne",
            "prodejna",
            "odber",
            "butik",
            "uzletben",
            "магазине",
            "магазин",
            "самовывоз",
            "cua hang",
            "chi nhanh",
            "sieu thi",
            "店舗",
            "店頭",
            "门店",
            "門市",
            "매장",
        ],
    ),
    (
        "delivery",
        &[
            "delivery",
            "deliver",
            "delivered",
            "shipping",
            "ship to",
            "ships to",
            "postcode",
            "zip code",
            "your area",
            "lieferung",
            "versand",
            "livraison",
            "envio",
            "entrega",
            "consegna",
            "spedizione",
            "dostawa",
            "doprava",
            "dorucenie",
            "doruceni",
            "giao hang",
            "van chuyen",
            "доставка",
            "配送",
            "配達",
            "送货",
            "배송",
        ],
    ),
    (
        "an option to choose",
        &[
            "select",
            "selected",
            "selection",
            "choose",
            "size",
            "sizes",
            "colour",
            "color",
            "variant",
            "option",
            "options",
            "combination",
            "grosse",
            "farbe",
            "auswahl",
            "taille",
            "couleur",
            "talla",
            "taglia",
            "colore",
            "rozmiar",
            "kolor",
            "wariant",
            "velikost",
            "velkost",
            "farba",
            "barva",
            "kich thuoc",
            "kich co",
            "mau sac",
            "phien ban",
            "размер",
            "цвет",
            "サイズ",
            "カラー",
            "尺寸",
            "颜色",
            "顏色",
            "사이즈",
            "색상",
        ],
    ),
    ("reviews", &["review", "reviews", "rating", "bewertung", "avis", "opinie", "recensione", "danh gia"]),
    (
        "a newsletter or alert",
        &["newsletter", "subscribe", "notify", "notified", "email me", "let you know", "benachrichtigen", "powiadom"],
    ),
];

/// Topics an in-stock line may mention and still be the product's ("In
/// stock, delivery in 2 days").
const IN_STOCK_MAY_MENTION: &[&str] = &["delivery", "reviews"];

/// What a stock line speaks of, if something else than the product's own stock.
pub(super) fn other_topic(line: &str, in_stock: bool) -> Option<&'static str> {
    let f = fold(line);
    OTHER_TOPICS
        .iter()
        .filter(|(topic, _)| !(in_stock && IN_STOCK_MAY_MENTION.contains(topic)))
        .find(|(_, words)| words.iter().any(|w| find_phrase(&f, w).is_some()))
        .map(|(topic, _)| *topic)
}

/// Where the page runtime found `line`: what its part of the page is about
/// when it is not the product's own (`chat`, `recommendation`...). A block
/// of the runtime holds the line when its text is the line or contains it
/// (a card's block holds more than one line); the same words in the
/// product's own part are the product's.
fn region_of<'a>(page: &'a Page<'_>, line: &str) -> Option<&'a str> {
    let f = fold(line);
    let f = f.trim();
    let holds = |text: &str| {
        let t = fold(text);
        t.trim() == f || (f.chars().count() >= 6 && t.contains(f))
    };
    let mut found = None;
    for s in page.facts.stock.iter().filter(|s| holds(&s.text)) {
        if s.other.is_empty() {
            return None;
        }
        found = found.or(Some(s.other.as_str()));
    }
    found
}

/// One kind of evidence's vote.
struct Vote {
    in_stock: bool,
    source: Source,
    why: String,
    /// Not worth a note when it answers alone (one offer's plain state).
    quiet: bool,
}

/// The product's own stock line: the first phrase standing alone on its
/// line that is not about something else, and the lines passed over (for
/// the note).
fn own_line(page: &Page<'_>) -> (Option<(bool, String)>, Vec<String>) {
    let lines: Vec<&str> = page.facts.text.lines().map(str::trim).filter(|l| !l.is_empty()).take(5_000).collect();
    let mut passed = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        // A line right after `Label:` is that label's value (`International
        // delivery:` / `Not available for this item`), read as a pair when it is a stock label.
        if i > 0 && lines[i - 1].ends_with([':', '：']) {
            continue;
        }
        let Some((state, text)) = standalone(line) else { continue };
        let other = other_topic(&text, state).or_else(|| region_of(page, &text).map(region_name));
        match other {
            Some(about) => {
                let said = format!("\"{text}\" ({about})");
                if passed.len() < 3 && !passed.contains(&said) {
                    passed.push(said);
                }
            }
            None => return (Some((state, text)), passed),
        }
    }
    (None, passed)
}

/// A page region's name as said in a note.
fn region_name(region: &str) -> &'static str {
    match region {
        "chat" => "in a chat widget",
        "recommendation" => "in a recommendation",
        "review" => "in the reviews",
        "newsletter" => "in a newsletter box",
        "store" => "in a store or pickup box",
        "delivery" => "in a delivery box",
        "variant" => "in an option picker",
        "furniture" => "in the page's header, footer or sidebar",
        "dialog" => "in a dialog",
        _ => "elsewhere on the page",
    }
}

/// Candidates for an availability field: one, the decision of the votes
/// (see the module), with its confidence; none when nothing was said.
pub(super) fn candidates(page: &Page<'_>, spec: &FieldSpec) -> Vec<Candidate> {
    let facts = page.facts;
    let mut votes: Vec<Vote> = Vec::new();
    // 1. Structured data: in stock when any offer is.
    if page.dom {
        let label_ok = |l: &str| LABELS.iter().any(|w| *w == fold_camel_key(l));
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
            let n = structured_states.len();
            let ins = structured_states.iter().filter(|(s, _)| *s).count();
            let why = match n {
                1 => format!("the structured data says {}", if ins > 0 { "in stock" } else { "out of stock" }),
                _ => format!("{ins} of {n} offers in stock"),
            };
            votes.push(Vote { in_stock: ins > 0, source: *source, why, quiet: n == 1 });
        }
    }
    // 2. What the page says: labelled, else the product's own line.
    let label_ok = |l: &str| LABELS.iter().any(|w| *w == fold_camel_key(l));
    let labelled =
        facts.pairs.iter().chain(page.text.id_pairs()).filter(|(l, v)| label_ok(l) && v.chars().count() <= 80);
    let mut said = None;
    for (label, value) in labelled {
        if let Some(state) = read_state(value, true)
            && other_topic(value, state).is_none()
        {
            said = Some(Vote {
                in_stock: state,
                source: Source::Label,
                why: format!("\"{label}: {value}\""),
                quiet: false,
            });
            break;
        }
    }
    let (line, passed) = own_line(page);
    if said.is_none()
        && let Some((state, text)) = line
    {
        said = Some(Vote {
            in_stock: state,
            source: Source::Fragment,
            why: format!("the page says \"{text}\""),
            quiet: false,
        });
    }
    votes.extend(said);
    // 3. Its own buy button.
    let own: Vec<_> = facts.buy.iter().filter(|b| b.other.is_empty()).collect();
    if !own.is_empty() {
        let enabled = own.iter().find(|b| !b.disabled);
        let why = match enabled {
            Some(b) => format!("the buy button \"{}\" is enabled", b.text),
            None => format!("the buy button \"{}\" is disabled", own[0].text),
        };
        votes.push(Vote { in_stock: enabled.is_some(), source: Source::Button, why, quiet: false });
    }
    let passed_note = (!passed.is_empty()).then(|| format!("not the product's: {}", passed.join(", ")));
    decide(&votes, passed_note).into_iter().collect()
}

/// The decision of the votes (see the module's rules).
fn decide(votes: &[Vote], passed: Option<String>) -> Option<Candidate> {
    let best = |side: bool| votes.iter().filter(|v| v.in_stock == side).min_by_key(|v| v.source);
    let ins = votes.iter().filter(|v| v.in_stock).count();
    let outs = votes.len() - ins;
    let (winner, penalty) = match (ins, outs) {
        (0, 0) => return None,
        (_, 0) => (best(true)?, 0.0),
        (0, _) => (best(false)?, 0.0),
        (i, o) if i > o => (best(true)?, super::DISAGREEMENT_PENALTY),
        (i, o) if o > i => (best(false)?, super::DISAGREEMENT_PENALTY),
        // A tie: the in-stock side, less sure; only a little less against a
        // disabled button alone (many shops disable it until a size is chosen).
        _ if votes.iter().all(|v| v.in_stock || v.source == Source::Button) => {
            (best(true)?, super::DISAGREEMENT_PENALTY)
        }
        _ => (best(true)?, super::MAX_PENALTY),
    };
    let mut c = Candidate::new(state_value(winner.in_stock), winner.source);
    c.fixed = Some(((winner.source.confidence() - penalty).max(0.0) * 100.0).round() / 100.0);
    let dissent: Vec<&str> = votes.iter().filter(|v| v.in_stock != winner.in_stock).map(|v| v.why.as_str()).collect();
    let mut parts: Vec<String> = Vec::new();
    if !winner.quiet || !dissent.is_empty() {
        parts.push(winner.why.clone());
    }
    if !dissent.is_empty() {
        parts.push(format!("but {} (a conflict: less confidence)", dissent.join(" and ")));
    }
    parts.extend(passed);
    c.note = (!parts.is_empty()).then(|| parts.join("; "));
    Some(c)
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

    fn availability_of(facts: serde_json::Value) -> crate::tools::catalogue::capture::BrowserExtractOutput {
        super::super::tests::run(facts, serde_json::json!({"availability": "string"}))
    }

    fn in_stock_offer() -> serde_json::Value {
        serde_json::json!([{"@type": "Product", "name": "Lamp", "offers": {"@type": "Offer", "price": "49",
            "availability": "https://schema.org/InStock"}}])
    }

    #[test]
    fn lines_about_something_else_never_decide() {
        // A chat, a store, a variant, a newsletter say "unavailable"; the product is in stock.
        let out = availability_of(serde_json::json!({
            "jsonld": in_stock_offer(),
            "buy": [{"text": "Add to cart", "disabled": false}],
            "text": "Chat is unavailable\nLamp\nw sklepie Produkt niedostępny\nUnavailable to select\nNewsletter unavailable\n$49.00"
        }));
        assert_eq!(out.data["availability"], "InStock", "{out:?}");
        assert_eq!(out.confidence["availability"], 0.95);
        // Alone, they say nothing: missing, never out of stock.
        let out =
            availability_of(serde_json::json!({"text": "Lamp\nw sklepie Produkt niedostępny\nChat is unavailable"}));
        assert!(out.data.get("availability").is_none(), "{out:?}");
        assert_eq!(other_topic("Hết hàng tại cửa hàng Quận 1", false), Some("a store or pickup"));
        assert_eq!(other_topic("Out of stock", false), None);
        assert_eq!(other_topic("In stock, delivery in 2 days", true), None);
        assert_eq!(other_topic("Not available for delivery to your area", false), Some("delivery"));
    }

    #[test]
    fn a_line_the_runtime_found_elsewhere_is_not_the_products() {
        let facts = |other: &str| {
            serde_json::json!({
                "jsonld": in_stock_offer(),
                "stock": [{"text": "Sold out", "other": other}],
                "text": "Lamp\nSold out\n$49.00"
            })
        };
        let out = availability_of(facts("recommendation"));
        assert_eq!((out.data["availability"].as_str(), out.confidence["availability"]), (Some("InStock"), 0.95));
        assert!(out.notes.iter().any(|n| n.contains("\"Sold out\" (in a recommendation)")), "{:?}", out.notes);
        // A longer sentence elsewhere holding the same words does not make the product's line another's.
        let out = availability_of(serde_json::json!({
            "stock": [{"text": "Auf Lager", "other": ""}, {"text": "Der Artikel ist nicht auf Lager, wenn...", "other": "furniture"}],
            "text": "Schuh\nAuf Lager\nDer Artikel ist nicht auf Lager, wenn..."
        }));
        assert_eq!(out.data["availability"], "InStock", "{out:?}");
        // A recommendation card's block holds its stock line with its name: still not the product's.
        let out = availability_of(serde_json::json!({
            "stock": [{"text": "Heater 1500 W Nur noch 1 auf Lager", "other": "recommendation"}],
            "text": "Heater 2000 W\nHeater 1500 W\nNur noch 1 auf Lager"
        }));
        assert!(out.data.get("availability").is_none(), "{out:?}");
        // Its own line: a conflict with the offer, no button to tell: in stock, less sure.
        let out = availability_of(facts(""));
        assert_eq!((out.data["availability"].as_str(), out.confidence["availability"]), (Some("InStock"), 0.65));
        assert!(out.notes.iter().any(|n| n.contains("conflict")), "{:?}", out.notes);
    }

    #[test]
    fn the_products_own_evidence_votes() {
        let page = |availability: &str, line: &str, disabled: Option<bool>| {
            let buy =
                disabled.map(|d| vec![serde_json::json!({"text": "Add to cart", "disabled": d})]).unwrap_or_default();
            availability_of(serde_json::json!({
                "jsonld": [{"@type": "Product", "name": "Lamp", "offers": {"availability": availability}}],
                "buy": buy,
                "text": format!("Lamp\n{line}\n$49.00")
            }))
        };
        let got = |o: &crate::tools::catalogue::capture::BrowserExtractOutput| {
            (
                o.data.get("availability").and_then(|v| v.as_str()).map(str::to_owned),
                o.confidence.get("availability").copied(),
            )
        };
        // All agree: the best source's confidence.
        assert_eq!(got(&page("OutOfStock", "Sold out", Some(true))), (Some("OutOfStock".into()), Some(0.95)));
        // Two against one: the majority, 0.15 less.
        assert_eq!(got(&page("InStock", "Sold out", Some(true))), (Some("OutOfStock".into()), Some(0.55)));
        assert_eq!(got(&page("OutOfStock", "In stock", Some(false))), (Some("InStock".into()), Some(0.55)));
        // A tie never says out of stock.
        assert_eq!(got(&page("OutOfStock", "", Some(false))), (Some("InStock".into()), Some(0.3)));
        assert_eq!(got(&page("InStock", "", Some(true))), (Some("InStock".into()), Some(0.8)));
        // A buy button in a recommendation is not the product's.
        let out = availability_of(serde_json::json!({
            "buy": [{"text": "Add to cart", "disabled": false, "other": "recommendation"}],
            "text": "Lamp\nSold out"
        }));
        assert_eq!(got(&out), (Some("OutOfStock".into()), Some(0.7)));
    }

    #[test]
    fn a_product_that_cannot_be_bought_now_is_out_of_stock() {
        let s = |l: &str| standalone(l);
        assert_eq!(
            s("Momentálne nie je možné produkt kúpiť, ale je možné ho rezervovať"),
            Some((false, "Momentálne nie je možné produkt kúpiť".to_owned()))
        );
        assert_eq!(s("This item cannot be purchased at the moment.").map(|(b, _)| b), Some(false));
        assert_eq!(s("Derzeit nicht bestellbar").map(|(b, _)| b), Some(false));
        // Something else it cannot be bought with, or a limit: not its stock.
        assert_eq!(s("This item cannot be purchased with a gift card"), None);
        assert_eq!(s("Cannot be purchased together with other offers, sorry"), None);
        assert_eq!(s("Gift cards cannot be purchased online"), None);
        assert_eq!(s("Gift cards cannot be purchased"), None);
        // The whole page: the offer (stale) says in stock, the product's own line and its disabled button say it
        // cannot be bought: two against one, out of stock, less sure (watches wait on it).
        let out = availability_of(serde_json::json!({
            "jsonld": in_stock_offer(),
            "buy": [{"text": "Add to cart", "disabled": true}],
            "text": "Lamp\nThis product cannot be bought at the moment, but you can reserve it in a store\n$49.00"
        }));
        assert_eq!(out.data["availability"], "OutOfStock", "{out:?}");
        assert_eq!(out.confidence["availability"], 0.55, "{out:?}");
    }

    #[test]
    fn a_label_and_its_value_on_one_line_is_a_pair() {
        assert_eq!(standalone("Is Discontinued By Manufacturer : No"), None);
        assert_eq!(standalone("Currently unavailable.").map(|(b, _)| b), Some(false));
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
