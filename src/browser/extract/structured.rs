//! Candidates from structured data: JSON-LD and microdata (read through the
//! same walker, microdata first turned into JSON-LD shape) and the page's
//! OpenGraph / product meta tags.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::names::{Concept, FieldSpec, Key};
use super::{Candidate, Hint, Source};

type Obj = Map<String, Value>;

/// A structured entity and its rank: 0 product, 1 offer, 2 hotel / flight /
/// event..., 3 organisation / place, 4 anything else. Page furniture
/// (`WebSite`, `BreadcrumbList`...) is left out.
pub(super) type Entity<'a> = (u8, &'a Obj);

/// The short type names of an entity (`https://schema.org/Product` → `Product`).
fn types(e: &Obj) -> Vec<String> {
    let short = |s: &str| s.rsplit(['/', '#', ':']).next().unwrap_or(s).to_string();
    match e.get("@type").or_else(|| e.get("type")) {
        Some(Value::String(s)) => vec![short(s)],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(short).collect(),
        _ => Vec::new(),
    }
}

fn is_type(e: &Obj, names: &[&str]) -> bool {
    types(e).iter().any(|t| names.contains(&t.as_str()))
}

fn rank(e: &Obj) -> Option<u8> {
    const PRODUCT: &[&str] =
        &["Product", "ProductGroup", "IndividualProduct", "ProductModel", "SomeProducts", "Vehicle", "Car", "Book"];
    const OFFER: &[&str] = &["Offer", "AggregateOffer"];
    const BOOKABLE: &[&str] = &[
        "Hotel",
        "LodgingBusiness",
        "Accommodation",
        "HotelRoom",
        "Room",
        "Suite",
        "Apartment",
        "Hostel",
        "Resort",
        "BedAndBreakfast",
        "VacationRental",
        "Flight",
        "Trip",
        "TouristTrip",
        "BusTrip",
        "TrainTrip",
        "Event",
        "Reservation",
        "FlightReservation",
        "LodgingReservation",
        "EventReservation",
        "Course",
        "Recipe",
        "SoftwareApplication",
        "MobileApplication",
        "Service",
    ];
    const PLACE: &[&str] = &[
        "Organization",
        "Corporation",
        "LocalBusiness",
        "Store",
        "OnlineStore",
        "Restaurant",
        "Place",
        "Person",
        "Airline",
        "Airport",
    ];
    const FURNITURE: &[&str] = &[
        "WebSite",
        "BreadcrumbList",
        "SearchAction",
        "SiteNavigationElement",
        "ItemList",
        "ListItem",
        "EntryPoint",
        "WPHeader",
        "WPFooter",
        "WPSideBar",
        "ReadAction",
    ];
    if is_type(e, FURNITURE) {
        return None;
    }
    Some(if is_type(e, PRODUCT) {
        0
    } else if is_type(e, OFFER) {
        1
    } else if is_type(e, BOOKABLE) {
        2
    } else if is_type(e, PLACE) {
        3
    } else {
        4
    })
}

/// The entities of a list of JSON-LD values (arrays and `@graph` flattened),
/// best rank first, page order within a rank.
pub(super) fn entities(values: &[Value]) -> Vec<Entity<'_>> {
    fn walk<'a>(v: &'a Value, depth: usize, out: &mut Vec<&'a Obj>) {
        if depth > 4 {
            return;
        }
        match v {
            Value::Array(items) => items.iter().for_each(|i| walk(i, depth + 1, out)),
            Value::Object(map) => match map.get("@graph") {
                Some(graph) => walk(graph, depth + 1, out),
                None => out.push(map),
            },
            _ => {}
        }
    }
    let mut flat = Vec::new();
    values.iter().for_each(|v| walk(v, 0, &mut flat));
    let mut ranked: Vec<Entity<'_>> = flat.into_iter().filter_map(|e| rank(e).map(|r| (r, e))).collect();
    ranked.sort_by_key(|(r, _)| *r);
    ranked
}

/// Candidates for a field from a ranked entity list: the first rank that
/// has any wins (a product's name, not the shop's).
pub(super) fn candidates(entities: &[Entity<'_>], spec: &FieldSpec, source: Source) -> Vec<Candidate> {
    // A reservation's `totalPrice` is the total (and its currency the
    // page's), whatever else the page sells.
    let totals = || entities.iter().flat_map(|(_, e)| total_prices(e, source));
    match spec.concept {
        Some(Concept::Total) => {
            let found: Vec<Candidate> = totals().collect();
            if !found.is_empty() {
                return found;
            }
        }
        Some(Concept::Currency) => {
            let found: Vec<Candidate> =
                totals().filter_map(|c| c.currency).map(|code| Candidate::new(Value::String(code), source)).collect();
            if !found.is_empty() {
                return found;
            }
        }
        _ => {}
    }
    let mut i = 0;
    while i < entities.len() {
        let r = entities[i].0;
        let group: Vec<&Obj> = entities[i..].iter().take_while(|(rr, _)| *rr == r).map(|(_, e)| *e).collect();
        i += group.len();
        let mut found: Vec<Candidate> = group.iter().flat_map(|e| entity_candidates(e, spec, source)).collect();
        // A known concept not found where schema.org puts it: a property
        // named like the field (money is only read from offers).
        if found.is_empty() && spec.concept.is_some_and(|c| !c.is_money()) {
            found = group.iter().flat_map(|e| generic(e, &spec.key, source)).collect();
        }
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

fn get<'a>(e: &'a Obj, key: &str) -> Option<&'a Value> {
    e.get(key)
        .or_else(|| {
            e.iter().find(|(k, _)| k.eq_ignore_ascii_case(key) || k.ends_with(&format!(":{key}"))).map(|(_, v)| v)
        })
        .filter(|v| !v.is_null())
}

/// The objects in a value (one object, or the objects of an array, nested arrays flattened).
fn objects(v: Option<&Value>) -> Vec<&Obj> {
    fn walk<'a>(v: &'a Value, depth: usize, out: &mut Vec<&'a Obj>) {
        match v {
            Value::Object(m) => out.push(m),
            Value::Array(items) if depth < 3 => items.iter().for_each(|i| walk(i, depth + 1, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(v) = v {
        walk(v, 0, &mut out);
    }
    out
}

/// The values of a property: one value, or each item of an array.
fn each(v: Option<&Value>) -> Vec<&Value> {
    match v {
        Some(Value::Array(items)) => items.iter().filter(|i| !i.is_null()).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other],
    }
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) => items.iter().find_map(|i| text(Some(i))),
        Value::Object(m) => text(m.get("name").or_else(|| m.get("@value"))),
        _ => None,
    }
}

/// The offers of an entity (itself when it is an offer; an aggregate's
/// sub-offers only when it states no price of its own).
fn offers(e: &Obj) -> Vec<&Obj> {
    if is_type(e, &["Offer", "AggregateOffer"]) {
        return vec![e];
    }
    let mut out = Vec::new();
    for o in objects(get(e, "offers")).into_iter().chain(objects(get(e, "makesOffer"))) {
        out.push(o);
        let priced = ["price", "lowPrice", "highPrice"].iter().any(|k| get(o, k).is_some());
        if !priced {
            out.extend(objects(get(o, "offers")));
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PriceKind {
    Current,
    Low,
    Old,
    High,
}

fn offer_prices(o: &Obj) -> Vec<(PriceKind, &Value, Option<String>)> {
    let currency = text(get(o, "priceCurrency"));
    let mut out = Vec::new();
    let aggregate = is_type(o, &["AggregateOffer"]) || get(o, "lowPrice").is_some();
    if aggregate {
        if let Some(low) = get(o, "lowPrice") {
            out.push((PriceKind::Low, low, currency.clone()));
        } else if let Some(p) = get(o, "price") {
            out.push((PriceKind::Current, p, currency.clone()));
        }
        if let Some(high) = get(o, "highPrice") {
            out.push((PriceKind::High, high, currency.clone()));
        }
        return out;
    }
    let direct = get(o, "price");
    if let Some(p) = direct {
        out.push((PriceKind::Current, p, currency.clone()));
    }
    for spec in objects(get(o, "priceSpecification")) {
        let Some(p) = get(spec, "price") else { continue };
        let kind_text = text(get(spec, "priceType")).unwrap_or_default().to_ascii_lowercase();
        let old =
            ["listprice", "strikethrough", "msrp", "srp", "regular", "invoice"].iter().any(|w| kind_text.contains(w));
        let cur = text(get(spec, "priceCurrency")).or_else(|| currency.clone());
        if old {
            out.push((PriceKind::Old, p, cur));
        } else if direct.is_none() {
            out.push((PriceKind::Current, p, cur));
        }
    }
    out
}

fn entity_prices(e: &Obj, kinds: &[PriceKind], source: Source) -> Vec<Candidate> {
    let mut out = Vec::new();
    for o in offers(e) {
        for (kind, value, currency) in offer_prices(o) {
            if kinds.contains(&kind) {
                let hint = if kind == PriceKind::High { Hint::HighPrice } else { Hint::Plain };
                out.push(Candidate {
                    value: value.clone(),
                    source,
                    currency,
                    hint,
                    note: None,
                    fixed: None,
                    doubt: 0.0,
                });
            }
        }
    }
    if out.is_empty() && kinds.contains(&PriceKind::Current) && !is_type(e, &["Offer", "AggregateOffer"]) {
        // `price` straight on a product (not valid schema.org, but common).
        if let Some(p) = get(e, "price") {
            out.push(Candidate::new(p.clone(), source).with_currency(text(get(e, "priceCurrency"))));
        }
    }
    out
}

/// A reservation's `totalPrice` (a number, a text or a `PriceSpecification`).
fn total_prices(e: &Obj, source: Source) -> Vec<Candidate> {
    let mut out = Vec::new();
    for v in each(get(e, "totalPrice")) {
        match v {
            Value::Object(spec) => {
                if let Some(p) = get(spec, "price").or_else(|| get(spec, "value")) {
                    let currency = text(get(spec, "priceCurrency")).or_else(|| text(get(spec, "currency")));
                    out.push(Candidate::new(p.clone(), source).with_currency(currency));
                }
            }
            other => {
                out.push(Candidate::new(other.clone(), source).with_currency(text(get(e, "priceCurrency"))));
            }
        }
    }
    out
}

fn currencies(e: &Obj, source: Source) -> Vec<Candidate> {
    let mut codes: Vec<String> = Vec::new();
    for o in offers(e) {
        codes.extend(offer_prices(o).into_iter().filter_map(|(_, _, c)| c));
    }
    codes.extend(total_prices(e, source).into_iter().filter_map(|c| c.currency));
    codes.extend(text(get(e, "priceCurrency")));
    let mut unique: Vec<String> = Vec::new();
    for code in codes {
        if !unique.contains(&code) {
            unique.push(code);
        }
    }
    unique.into_iter().map(|c| Candidate::new(Value::String(c), source)).collect()
}

fn shipping(e: &Obj, source: Source) -> Vec<Candidate> {
    let mut out = Vec::new();
    for o in offers(e) {
        for details in objects(get(o, "shippingDetails")) {
            for rate in each(get(details, "shippingRate")) {
                match rate {
                    Value::Object(r) => {
                        if let Some(v) = get(r, "value").or_else(|| get(r, "price")) {
                            let currency = text(get(r, "currency")).or_else(|| text(get(r, "priceCurrency")));
                            out.push(Candidate::new(v.clone(), source).with_currency(currency));
                        }
                    }
                    other => out.push(Candidate::new(other.clone(), source)),
                }
            }
        }
    }
    out
}

/// A warranty as text the duration parser reads: `durationOfWarranty`
/// `{value: 24, unitCode: "MON"}` → `"24 months"`.
fn warranty_value(v: &Value) -> Option<Value> {
    let Value::Object(w) = v else { return Some(v.clone()) };
    if let Some(Value::Object(d)) = get(w, "durationOfWarranty") {
        let value = text(get(d, "value"))?;
        let unit = match text(get(d, "unitCode")).unwrap_or_default().to_ascii_uppercase().as_str() {
            "MON" => "months".to_string(),
            "ANN" => "years".to_string(),
            "DAY" => "days".to_string(),
            "WEE" => "weeks".to_string(),
            _ => text(get(d, "unitText")).unwrap_or_default(),
        };
        return Some(Value::String(format!("{value} {unit}").trim().to_string()));
    }
    text(get(w, "name").or_else(|| get(w, "description"))).map(Value::String)
}

fn props(e: &Obj, keys: &[&str], source: Source) -> Vec<Candidate> {
    keys.iter().filter_map(|k| get(e, k)).map(|v| Candidate::new(v.clone(), source)).collect()
}

fn entity_candidates(e: &Obj, spec: &FieldSpec, source: Source) -> Vec<Candidate> {
    let offer_props =
        |keys: &[&str]| -> Vec<Candidate> { offers(e).into_iter().flat_map(|o| props(o, keys, source)).collect() };
    let rating = |keys: &[&str]| -> Vec<Candidate> {
        objects(get(e, "aggregateRating")).into_iter().flat_map(|r| props(r, keys, source)).take(1).collect()
    };
    let Some(concept) = spec.concept else { return generic(e, &spec.key, source) };
    match concept {
        Concept::Price => entity_prices(e, &[PriceKind::Current, PriceKind::Low], source),
        Concept::Total => entity_prices(e, &[PriceKind::Current, PriceKind::Low], source),
        Concept::OldPrice => entity_prices(e, &[PriceKind::Old, PriceKind::High], source),
        Concept::Currency => currencies(e, source),
        Concept::Shipping => shipping(e, source),
        Concept::Availability => offer_props(&["availability"]),
        Concept::Warranty => {
            let mut all = offer_props(&["warranty"]);
            all.extend(props(e, &["warranty"], source));
            all.into_iter().filter_map(|c| warranty_value(&c.value).map(|v| Candidate::new(v, source))).collect()
        }
        Concept::Rating => rating(&["ratingValue"]),
        Concept::ReviewCount => rating(&["reviewCount", "ratingCount"]),
        Concept::Brand => props(e, &["brand", "manufacturer"], source).into_iter().take(1).collect(),
        Concept::Sku => {
            let mut all = props(e, &["sku", "mpn", "productID"], source);
            all.extend(offer_props(&["sku"]));
            all.into_iter().take(1).collect()
        }
        Concept::Gtin => {
            let keys = ["gtin13", "gtin", "gtin14", "gtin12", "gtin8", "isbn"];
            let mut all = props(e, &keys, source);
            all.extend(offer_props(&keys));
            all.into_iter().take(1).collect()
        }
        Concept::Image => props(e, &["image", "photo", "logo"], source).into_iter().take(1).collect(),
        Concept::Url => {
            let mut all = props(e, &["url"], source);
            all.extend(offer_props(&["url"]));
            all.into_iter().take(1).collect()
        }
        Concept::Description => props(e, &["description"], source),
        Concept::Name => props(e, &["name", "headline"], source).into_iter().take(1).collect(),
    }
}

/// Any property whose name is the field's name (`checkin_time` ↔
/// `checkinTime`, `departure_airport` ↔ `departureAirport`), direct
/// properties before nested ones.
fn generic(e: &Obj, key: &Key, source: Source) -> Vec<Candidate> {
    let mut level: Vec<&Obj> = vec![e];
    for _ in 0..3 {
        let mut found = Vec::new();
        let mut next = Vec::new();
        for obj in &level {
            for (k, v) in obj.iter() {
                if k.starts_with('@') || v.is_null() {
                    continue;
                }
                if key.similarity(&Key::new(k)) >= 1.0 {
                    found.push(Candidate::new(v.clone(), source));
                }
                next.extend(objects(Some(v)));
            }
        }
        if !found.is_empty() {
            return found;
        }
        level = next;
    }
    Vec::new()
}

/// Candidates from `<meta>` tags (`twitter:labelN`/`dataN` pairs: see [`twitter_pairs`]).
pub(super) fn meta_candidates(meta: &BTreeMap<String, String>, spec: &FieldSpec) -> Vec<Candidate> {
    let src = Source::Meta;
    let get_meta = |keys: &[&str]| -> Vec<Candidate> {
        keys.iter()
            .filter_map(|k| meta.get(*k))
            .filter(|v| !v.trim().is_empty())
            .map(|v| Candidate::new(Value::String(v.clone()), src))
            .take(1)
            .collect()
    };
    let price_currency = ["product:price:currency", "og:price:currency", "product:sale_price:currency"]
        .iter()
        .find_map(|k| meta.get(*k).cloned());
    let Some(concept) = spec.concept else {
        return meta
            .iter()
            .filter(|(k, v)| !v.trim().is_empty() && spec.key.similarity(&meta_key(k)) >= 1.0)
            .map(|(_, v)| Candidate::new(Value::String(v.clone()), src))
            .take(1)
            .collect();
    };
    match concept {
        Concept::Price | Concept::Total => {
            get_meta(&["product:price:amount", "og:price:amount", "product:sale_price:amount", "price"])
                .into_iter()
                .map(|c| c.with_currency(price_currency.clone()))
                .collect()
        }
        Concept::OldPrice => {
            let currency = meta.get("product:original_price:currency").cloned().or(price_currency);
            get_meta(&["product:original_price:amount", "og:original_price:amount"])
                .into_iter()
                .map(|c| c.with_currency(currency.clone()))
                .collect()
        }
        Concept::Currency => get_meta(&[
            "product:price:currency",
            "og:price:currency",
            "product:sale_price:currency",
            "product:original_price:currency",
        ]),
        Concept::Shipping => get_meta(&["product:shipping_cost:amount"]),
        Concept::Name => get_meta(&["og:title", "twitter:title", "product:title"]),
        Concept::Brand => get_meta(&["product:brand", "og:brand", "brand"]),
        Concept::Availability => get_meta(&["product:availability", "og:availability"]),
        Concept::Description => get_meta(&["og:description", "description", "twitter:description"]),
        Concept::Image => {
            get_meta(&["og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src"])
        }
        Concept::Url => get_meta(&["og:url", "canonical", "twitter:url"]),
        Concept::Sku => get_meta(&["product:retailer_item_id", "product:sku", "sku"]),
        Concept::Gtin => get_meta(&["product:gtin", "product:ean", "product:upc", "product:isbn", "gtin"]),
        Concept::Warranty | Concept::Rating | Concept::ReviewCount => Vec::new(),
    }
}

/// A meta name without its vocabulary prefix (`article:published_time` → `published_time`).
fn meta_key(name: &str) -> Key {
    let rest = ["og:", "product:", "article:", "twitter:", "book:", "profile:", "music:", "video:"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .filter(|r| !r.is_empty())
        .unwrap_or(name);
    Key::new(rest)
}

/// `twitter:label1`/`twitter:data1`... as label → value pairs.
pub(super) fn twitter_pairs(meta: &BTreeMap<String, String>) -> Vec<(String, String)> {
    (1..=8)
        .filter_map(|i| {
            Some((meta.get(&format!("twitter:label{i}"))?.clone(), meta.get(&format!("twitter:data{i}"))?.clone()))
        })
        .collect()
}
