//! `travel_search_options`: flights for a route or hotels in a place, from
//! the sites the user prefers (`travel.preferred_sites`: URL templates)
//! and from `web_search` when it is there; every results page opened with
//! `browser_navigate`, read with `browser_get_dom`, its cards read by code
//! ([`super::offers`]) and the totals (price + fees) worked out and ranked
//! by `normalize_compare`. No model needed.

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::offers::{self, Card, FLIGHT_TERMS, HOTEL_TERMS};
use super::{date, failure, profile};
use crate::compare::NormalizeCompareOutput;
use crate::error::{Error, Result};
use crate::skills::{Skill, parse, to_output};
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::BrowserGetDomOutput;
use crate::tools::catalogue::common::{Money, SkillStatus};
use crate::tools::catalogue::travel::{
    TravelOption, TravelOptionType, TravelSearchOptionsArgs, TravelSearchOptionsOutput,
};

pub const NAME: &str = "travel_search_options";

/// The profile key holding the user's search sites.
pub const SITES_KEY: &str = "travel.preferred_sites";

/// How many pages found by `web_search` are read.
const SEARCH_PAGES: usize = 2;

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args: TravelSearchOptionsArgs = parse(NAME, args)?;
        to_output(&search(skill, &args).await?)
    })
}

/// One place to read results from.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub name: String,
    pub url: String,
    /// CSS selector of the result cards, when the site entry gives one.
    pub cards: Option<String>,
}

/// Checks the arguments: `(from, to)` of a flight's route.
fn check(args: &TravelSearchOptionsArgs) -> Result<Option<(String, String)>> {
    let day = date(&args.date, "date")?;
    if let Some(back) = &args.return_date
        && date(back, "return_date")? < day
    {
        return Err(Error::invalid_arguments("`return_date` is before `date`"));
    }
    match args.kind {
        TravelOptionType::Flight => {
            let route = args.route.as_deref().unwrap_or_default();
            match route.split_once('-') {
                Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                    Ok(Some((a.trim().to_uppercase(), b.trim().to_uppercase())))
                }
                _ => Err(Error::invalid_arguments(format!(
                    "a flight search needs `route` as two places joined by `-` (e.g. `HAN-NRT`), not {route:?}"
                ))),
            }
        }
        TravelOptionType::Hotel if args.location.as_deref().is_none_or(|l| l.trim().is_empty()) => {
            Err(Error::invalid_arguments("a hotel search needs `location` (e.g. `Shinjuku, Tokyo`)"))
        }
        TravelOptionType::Hotel => Ok(None),
    }
}

/// The sites of the profile's `travel.preferred_sites` (strings, or
/// objects `{"url", "type", "name", "cards"}`) that search `kind`.
pub fn sites_for(entries: &[Value], kind: TravelOptionType) -> Vec<(String, Option<String>, Option<String>)> {
    entries
        .iter()
        .filter_map(|e| match e {
            Value::String(url) => Some((url.clone(), None, None, None)),
            Value::Object(o) => Some((
                o.get("url")?.as_str()?.to_owned(),
                o.get("type").and_then(Value::as_str).map(str::to_lowercase),
                o.get("name").and_then(Value::as_str).map(str::to_owned),
                o.get("cards").and_then(Value::as_str).map(str::to_owned),
            )),
            _ => None,
        })
        .filter(|(url, kind_of, _, _)| match (kind_of.as_deref(), kind) {
            (Some("flight"), TravelOptionType::Flight) | (Some("hotel"), TravelOptionType::Hotel) => true,
            (Some(_), _) => false,
            (None, TravelOptionType::Flight) => !url.contains("{location}"),
            (None, TravelOptionType::Hotel) => !url.contains("{from}") && !url.contains("{to}"),
        })
        .map(|(url, _, name, cards)| (url, name, cards))
        .collect()
}

/// A URL template filled with the search (values percent-encoded).
pub fn fill_template(template: &str, args: &TravelSearchOptionsArgs, route: Option<&(String, String)>) -> String {
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let (from, to) = route.map_or((String::new(), String::new()), |(a, b)| (a.clone(), b.clone()));
    template
        .replace("{from}", &enc(&from))
        .replace("{to}", &enc(&to))
        .replace("{date}", &enc(&args.date))
        .replace("{return_date}", &enc(args.return_date.as_deref().unwrap_or_default()))
        .replace("{pax}", &args.pax.to_string())
        .replace("{location}", &enc(args.location.as_deref().unwrap_or_default()))
}

fn host_of(url: &str) -> String {
    url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_else(|| url.to_owned())
}

/// The sources of this search: the given or preferred sites, then pages
/// `web_search` finds (when it runs).
async fn sources(skill: &Skill<'_>, args: &TravelSearchOptionsArgs, route: Option<&(String, String)>) -> Vec<Source> {
    let entries: Vec<Value> = if args.sites.is_empty() {
        let got = profile(skill, &[SITES_KEY.to_owned()]).await;
        match got.values.get(SITES_KEY) {
            Some(Value::Array(a)) => a.clone(),
            Some(v @ (Value::String(_) | Value::Object(_))) => vec![v.clone()],
            _ => Vec::new(),
        }
    } else {
        args.sites.iter().map(|s| json!(s)).collect()
    };
    let mut out: Vec<Source> = sites_for(&entries, args.kind)
        .into_iter()
        .map(|(template, name, cards)| {
            let url = fill_template(&template, args, route);
            Source { name: name.unwrap_or_else(|| host_of(&url)), url, cards }
        })
        .collect();
    if out.is_empty() {
        skill.note(format!(
            "no preferred {} sites: save URL templates in the profile's `{SITES_KEY}` or pass `sites`",
            if args.kind == TravelOptionType::Flight { "flight" } else { "hotel" }
        ));
    }
    let query = match (args.kind, route) {
        (TravelOptionType::Flight, Some((a, b))) => format!("vé máy bay {a} {b} {}", args.date),
        _ => format!("khách sạn {} {}", args.location.as_deref().unwrap_or_default(), args.date),
    };
    let found = skill.call("web_search", json!({"query": query, "locale": "vi-VN", "max_results": 5})).await;
    if found.is_ok() {
        let urls = found.data.get("results").and_then(Value::as_array).cloned().unwrap_or_default();
        for r in urls.iter().filter_map(|r| r.get("url").and_then(Value::as_str)).take(SEARCH_PAGES) {
            if !out.iter().any(|s| s.url == r) {
                out.push(Source { name: host_of(r), url: r.to_owned(), cards: None });
            }
        }
    } else {
        skill.note(format!("web search left out ({}): searched the preferred sites only", failure(&found)));
    }
    out
}

/// The cards of one source's results page, read through the browser.
async fn read(skill: &Skill<'_>, source: &Source) -> Result<Vec<Card>> {
    let nav = skill.call("browser_navigate", json!({"url": source.url, "wait_until": "networkidle"})).await;
    if let Some(e) = nav.error {
        return Err(Error::new(e.code, format!("{} could not be opened: {}", source.url, e.message)));
    }
    let dom: BrowserGetDomOutput = skill.data("browser_get_dom", json!({"max_chars": 500_000})).await?;
    let url = nav.current_url.clone().unwrap_or_else(|| source.url.clone());
    Ok(offers::cards(&dom.html, &url, source.cards.as_deref()))
}

pub async fn search(skill: &Skill<'_>, args: &TravelSearchOptionsArgs) -> Result<TravelSearchOptionsOutput> {
    let route = check(args)?;
    let terms: &[&str] = if args.kind == TravelOptionType::Flight { &FLIGHT_TERMS } else { &HOTEL_TERMS };
    let normalized_terms: Vec<String> = terms.iter().map(|t| (*t).to_owned()).collect();
    let sources = sources(skill, args, route.as_ref()).await;
    let mut found: Vec<(String, Card)> = Vec::new();
    let mut failed = 0;
    for source in &sources {
        match read(skill, source).await {
            Ok(cards) if cards.is_empty() => skill.note(format!("{}: no results found on {}", source.name, source.url)),
            Ok(cards) => found.extend(cards.into_iter().map(|c| (source.name.clone(), c))),
            Err(e) => {
                failed += 1;
                skill.note(format!("{}: {}", source.name, e.message()));
            }
        }
    }
    let status_of = |options: &[TravelOption]| match (options.is_empty(), sources.is_empty(), failed) {
        (true, true, _) => SkillStatus::NeedsUser,
        (true, false, _) => SkillStatus::Failed,
        (false, _, 0) => SkillStatus::Ok,
        (false, _, _) => SkillStatus::Partial,
    };
    if found.is_empty() {
        return Ok(TravelSearchOptionsOutput {
            options: Vec::new(),
            normalized_terms,
            status: status_of(&[]),
            notes: skill.notes(),
        });
    }
    let items: Vec<Value> =
        found.iter().enumerate().map(|(i, (_, c))| json!({"source": format!("#{i}"), "raw": c.money})).collect();
    let compared: NormalizeCompareOutput = skill
        .data(
            "normalize_compare",
            json!({"schema": {"total_cost": "number", "price": "number", "fees": "number"}, "items": items}),
        )
        .await?;
    for w in &compared.warnings {
        skill.note(w.clone());
    }
    let order: Vec<usize> =
        compared.ranking.iter().map(|r| r.item).chain(compared.unranked.iter().map(|u| u.item)).collect();
    let mut options = Vec::new();
    for i in order {
        let (Some((source, card)), Some(norm)) = (found.get(i), compared.items.get(i)) else { continue };
        let total = norm.normalized.get("total_cost").and_then(Value::as_f64);
        let currency = norm.currency.clone().unwrap_or_else(|| "VND".to_owned());
        if let (Some(max), Some(t)) = (args.max_price_vnd, total)
            && currency == "VND"
            && t > max as f64
        {
            continue;
        }
        let mut terms = Map::new();
        for name in &normalized_terms {
            let value = match name.as_str() {
                "price" | "fees" => norm.normalized.get(name.as_str()).cloned().unwrap_or(Value::Null),
                "currency" => json!(currency),
                other => card.terms.get(other).cloned().unwrap_or(Value::Null),
            };
            terms.insert(name.clone(), value);
        }
        options.push(TravelOption {
            source: source.clone(),
            url: card.url.clone(),
            summary: summary(args.kind, &card.name, &card.terms),
            total_price: total.map(|amount| Money { amount, currency }),
            terms,
        });
        if options.len() >= args.max_results as usize {
            break;
        }
    }
    if options.iter().any(|o| o.total_price.is_none()) {
        skill.note("some options show no readable price: listed last");
    }
    Ok(TravelSearchOptionsOutput { status: status_of(&options), options, normalized_terms, notes: skill.notes() })
}

/// One line: the name, then times, duration and stops (flights) or nights
/// and refundability (hotels).
pub fn summary(kind: TravelOptionType, name: &str, terms: &Map<String, Value>) -> String {
    let mut parts = vec![name.to_owned()];
    let num = |k: &str| terms.get(k).and_then(Value::as_u64);
    if kind == TravelOptionType::Flight {
        if let (Some(d), Some(a)) =
            (terms.get("depart").and_then(Value::as_str), terms.get("arrive").and_then(Value::as_str))
        {
            parts.push(format!("{d}–{a}"));
        }
        if let Some(m) = num("duration_minutes") {
            parts.push(format!("{}h{:02}", m / 60, m % 60));
        }
        match num("stops") {
            Some(0) => parts.push("nonstop".to_owned()),
            Some(1) => parts.push("1 stop".to_owned()),
            Some(n) => parts.push(format!("{n} stops")),
            None => {}
        }
    } else if let Some(n) = num("nights") {
        parts.push(format!("{n} nights"));
    }
    match terms.get("refundable").and_then(Value::as_bool) {
        Some(true) => parts.push("refundable".to_owned()),
        Some(false) => parts.push("non-refundable".to_owned()),
        None => {}
    }
    parts.join(" · ")
}
