//! `travel_plan_itinerary`: the days of the trip computed by code, the
//! flight and the stay chosen from `travel_search_options` (cheapest
//! first), the activities of each day written by the model
//! ([`Skill::write`], a schema), then checked and repaired by code: days
//! outside the trip dropped, missing days filled with the bookings alone,
//! overlapping stays flagged, the total held against the budget. The score
//! is the weighted sum of its parts, each explained. Without a model: the
//! bookings and a skeleton of days, with a note.

use chrono::NaiveDate;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{date, profile, vnd};
use crate::error::{Error, Result};
use crate::skills::{Skill, parse, to_output};
use crate::tools::ToolOutput;
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::travel::{
    ItineraryBooking, ItineraryDay, ScorePart, TravelOption, TravelOptionType, TravelPlanItineraryArgs,
    TravelPlanItineraryOutput, TravelSearchOptionsOutput,
};

pub const NAME: &str = "travel_plan_itinerary";

/// The longest trip planned, in days.
const MAX_DAYS: i64 = 60;

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args: TravelPlanItineraryArgs = parse(NAME, args)?;
        to_output(&plan(skill, &args).await?)
    })
}

/// What the model writes.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Written {
    pub days: Vec<WrittenDay>,
    #[serde(default)]
    pub tradeoffs: Vec<String>,
    /// Stays other than the default (one hotel for the whole trip).
    #[serde(default)]
    pub stays: Vec<Stay>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct WrittenDay {
    pub date: String,
    #[serde(default)]
    pub location: Option<String>,
    pub items: Vec<String>,
    #[serde(default)]
    pub est_cost_vnd: Option<u64>,
}

/// A stay: hotel option `hotel` (its index) from `check_in` to `check_out`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Stay {
    pub hotel: usize,
    pub check_in: String,
    pub check_out: String,
}

fn schema() -> Value {
    let day = json!({"type": "object", "required": ["date", "items"], "properties": {
        "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "location": {"type": "string"},
        "items": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        "est_cost_vnd": {"type": "integer", "minimum": 0}}});
    let stay = json!({"type": "object", "required": ["hotel", "check_in", "check_out"], "properties": {
        "hotel": {"type": "integer", "minimum": 0},
        "check_in": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "check_out": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}}});
    json!({"type": "object", "required": ["days"], "properties": {
        "days": {"type": "array", "items": day, "minItems": 1},
        "tradeoffs": {"type": "array", "items": {"type": "string"}},
        "stays": {"type": "array", "items": stay}}})
}

const TASK: &str = "write the day-by-day plan of a trip: for each date of `dates`, where the night is spent, what \
                    happens in order (transport, visits, meals) and its estimated local cost in VND (`est_cost_vnd`, \
                    bookings excluded), within `remaining_budget_vnd`; the trade-offs you made; `stays` only to split \
                    the stay between hotels (indexes into `hotels`)";

fn cost(option: &TravelOption) -> Option<u64> {
    option.total_price.as_ref().filter(|m| m.currency == "VND").map(|m| m.amount.round() as u64)
}

/// `travel_search_options` as a step; its failure is a note.
async fn options(skill: &Skill<'_>, args: Value, what: &str) -> Vec<TravelOption> {
    match skill.data::<TravelSearchOptionsOutput>("travel_search_options", args).await {
        Ok(out) => {
            for n in out.notes {
                skill.note(format!("{what}: {n}"));
            }
            out.options
        }
        Err(e) => {
            skill.note(format!("{what} search failed: {}", e.message()));
            Vec::new()
        }
    }
}

pub async fn plan(skill: &Skill<'_>, args: &TravelPlanItineraryArgs) -> Result<TravelPlanItineraryOutput> {
    let (from, to) = (date(&args.dates.from, "dates.from")?, date(&args.dates.to, "dates.to")?);
    let length = (to - from).num_days() + 1;
    if length < 1 {
        return Err(Error::invalid_arguments("`dates.to` is before `dates.from`"));
    }
    if length > MAX_DAYS {
        return Err(Error::invalid_arguments(format!("a trip of {length} days is longer than {MAX_DAYS}")));
    }
    let days: Vec<NaiveDate> = from.iter_days().take(length as usize).collect();
    let prefs = profile(skill, &["travel".to_owned()]).await.values;
    let common = |kind: &str| {
        let mut a = json!({"type": kind, "date": args.dates.from, "return_date": args.dates.to, "pax": args.travellers,
            "max_results": 5});
        if !args.sites.is_empty() {
            a["sites"] = json!(args.sites);
        }
        a
    };
    let mut flight_args = common("flight");
    flight_args["route"] = json!(format!("{}-{}", args.origin, args.destination));
    let mut hotel_args = common("hotel");
    hotel_args["location"] = json!(args.destination);
    let flights = options(skill, flight_args, "flights").await;
    let hotels = options(skill, hotel_args, "hotels").await;
    let nights = (length - 1) as usize;

    let remaining = args.budget_vnd.map(|b| {
        b.saturating_sub(flights.first().and_then(cost).unwrap_or(0) + hotels.first().and_then(cost).unwrap_or(0))
    });
    let brief = |o: &[TravelOption]| -> Vec<Value> {
        o.iter().map(|o| json!({"summary": o.summary, "total_vnd": cost(o), "terms": o.terms})).collect()
    };
    let input = json!({
        "origin": args.origin, "destination": args.destination, "travellers": args.travellers,
        "dates": days.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        "budget_vnd": args.budget_vnd, "remaining_budget_vnd": remaining, "wishes": args.notes,
        "preferences": prefs, "flight": brief(&flights[..flights.len().min(1)]), "hotels": brief(&hotels),
    });
    let written: Option<Written> = skill.write(TASK, &input, &schema()).await?;
    let checked = check(&days, args, &flights, &hotels, nights, written.as_ref());
    for n in &checked.notes {
        skill.note(n.clone());
    }
    if written.is_none() {
        skill.note("a skeleton itinerary: the days and bookings only (the activities need a model)");
    }
    let status = if written.is_some() && !flights.is_empty() && !hotels.is_empty() && checked.within_budget {
        SkillStatus::Ok
    } else {
        SkillStatus::Partial
    };
    Ok(TravelPlanItineraryOutput {
        itinerary: checked.days,
        tradeoffs: checked.tradeoffs,
        plan_score: round2(checked.score_parts.iter().map(|p| p.score * p.weight).sum::<f64>()),
        status,
        bookings: checked.bookings,
        score_parts: checked.score_parts,
        total_cost_vnd: checked.total,
        notes: skill.notes(),
    })
}

/// What the checks made of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub days: Vec<ItineraryDay>,
    pub bookings: Vec<ItineraryBooking>,
    pub tradeoffs: Vec<String>,
    pub score_parts: Vec<ScorePart>,
    pub total: Option<u64>,
    pub within_budget: bool,
    pub notes: Vec<String>,
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Checks and repairs the model's plan (or builds the skeleton): pure.
pub fn check(
    days: &[NaiveDate],
    args: &TravelPlanItineraryArgs,
    flights: &[TravelOption],
    hotels: &[TravelOption],
    nights: usize,
    written: Option<&Written>,
) -> Checked {
    let (mut notes, mut tradeoffs) = (Vec::new(), Vec::new());
    let (first, last) = (days[0], days[days.len() - 1]);
    let mut bookings = Vec::new();
    if let Some(f) = flights.first() {
        bookings.push(ItineraryBooking {
            kind: TravelOptionType::Flight,
            from: first.to_string(),
            to: last.to_string(),
            summary: f.summary.clone(),
            url: f.url.clone(),
            cost_vnd: cost(f),
        });
        let refundable = |o: &TravelOption| o.terms.get("refundable").and_then(Value::as_bool);
        if refundable(f) == Some(false)
            && let Some(r) = flights.iter().skip(1).find(|o| refundable(o) == Some(true))
            && let (Some(a), Some(b)) = (cost(f), cost(r))
        {
            tradeoffs.push(format!(
                "Flight: {} is non-refundable; the cheapest refundable one, {}, costs {} ({} more)",
                f.summary,
                r.summary,
                vnd(b),
                vnd(b.saturating_sub(a))
            ));
        }
        if let Some(fast) = flights.iter().skip(1).find(|o| minutes(o) < minutes(f))
            && let (Some(a), Some(b)) = (cost(f), cost(fast))
        {
            tradeoffs.push(format!(
                "Flight: {} for {} rather than the faster {} for {} ({} more)",
                f.summary,
                vnd(a),
                fast.summary,
                vnd(b),
                vnd(b.saturating_sub(a))
            ));
        }
    }
    // Stays: the model's, checked, else the cheapest hotel for every night.
    let mut stays: Vec<(usize, NaiveDate, NaiveDate)> = Vec::new();
    for s in written.map(|w| w.stays.as_slice()).unwrap_or_default() {
        let (Ok(a), Ok(b)) = (date(&s.check_in, "check_in"), date(&s.check_out, "check_out")) else { continue };
        if s.hotel >= hotels.len() || b <= a || a < first || b > last {
            notes.push(format!(
                "a stay the model proposed ({} {}→{}) was left out: not a hotel found or not within the trip",
                s.hotel, s.check_in, s.check_out
            ));
            continue;
        }
        if let Some(&(h, x, y)) = stays.iter().find(|(_, x, y)| a < *y && *x < b) {
            tradeoffs.push(format!(
                "Overlapping bookings: {} {a}→{b} overlaps {} {x}→{y}; the later one was left out",
                hotels[s.hotel].summary, hotels[h].summary
            ));
            continue;
        }
        stays.push((s.hotel, a, b));
    }
    if stays.is_empty() && !hotels.is_empty() && nights > 0 {
        stays.push((0, first, last));
    }
    stays.sort_by_key(|s| s.1);
    let mut covered = 0usize;
    for &(h, a, b) in &stays {
        let n = (b - a).num_days() as usize;
        covered += n;
        let option = &hotels[h];
        let offered = option.terms.get("nights").and_then(Value::as_u64).map_or(nights, |n| n as usize).max(1);
        bookings.push(ItineraryBooking {
            kind: TravelOptionType::Hotel,
            from: a.to_string(),
            to: b.to_string(),
            summary: option.summary.clone(),
            url: option.url.clone(),
            cost_vnd: cost(option).map(|c| if n == offered { c } else { c * n as u64 / offered as u64 }),
        });
    }
    if covered < nights && !hotels.is_empty() {
        tradeoffs.push(format!("{} of {nights} nights have no stay booked", nights - covered));
    }

    // Days: the model's within the trip, one per date, the rest from the bookings.
    let mut planned: Vec<Option<ItineraryDay>> = vec![None; days.len()];
    for d in written.map(|w| w.days.as_slice()).unwrap_or_default() {
        match date(&d.date, "date").ok().and_then(|x| days.iter().position(|y| *y == x)) {
            None => notes.push(format!("the model planned {} outside the trip ({first} to {last}): left out", d.date)),
            Some(i) if planned[i].is_some() => notes.push(format!("{} was planned twice: the first plan kept", d.date)),
            Some(i) => {
                planned[i] = Some(ItineraryDay {
                    date: days[i].to_string(),
                    location: d
                        .location
                        .clone()
                        .filter(|l| !l.trim().is_empty())
                        .unwrap_or_else(|| args.destination.clone()),
                    items: d.items.clone(),
                    est_cost_vnd: d.est_cost_vnd,
                });
            }
        }
    }
    let written_days = planned.iter().filter(|d| d.is_some()).count();
    if written.is_some() && written_days < days.len() {
        notes.push(format!(
            "{} of {} days had no plan from the model: only their bookings are listed",
            days.len() - written_days,
            days.len()
        ));
    }
    let itinerary: Vec<ItineraryDay> = days
        .iter()
        .zip(planned)
        .enumerate()
        .map(|(i, (day, p))| {
            let mut d = p.unwrap_or_else(|| ItineraryDay {
                date: day.to_string(),
                location: args.destination.clone(),
                items: Vec::new(),
                est_cost_vnd: None,
            });
            let mut head = Vec::new();
            if let Some(f) = flights.first() {
                if i == 0 {
                    head.push(format!("Flight {} → {}: {}", args.origin, args.destination, f.summary));
                } else if i == days.len() - 1 {
                    head.push(format!("Return flight {} → {}", args.destination, args.origin));
                    d.location = args.origin.clone();
                }
            }
            for b in bookings.iter().filter(|b| b.kind == TravelOptionType::Hotel) {
                if b.from == d.date {
                    head.push(format!("Check in: {}", b.summary));
                } else if b.to == d.date {
                    head.push(format!("Check out: {}", b.summary));
                }
            }
            d.items.splice(0..0, head);
            d
        })
        .collect();

    let booked: u64 = bookings.iter().filter_map(|b| b.cost_vnd).sum();
    let local: u64 = itinerary.iter().filter_map(|d| d.est_cost_vnd).sum();
    let total = (booked + local > 0).then_some(booked + local);
    let (budget_score, why, within_budget) = match (args.budget_vnd, total) {
        (None, _) => (1.0, "no budget given".to_owned(), true),
        (Some(b), None) => (0.5, format!("no price known to hold against the budget of {}", vnd(b)), true),
        (Some(b), Some(t)) if t <= b => (1.0, format!("{} within the budget of {}", vnd(t), vnd(b)), true),
        (Some(b), Some(t)) => {
            tradeoffs.push(format!("Over budget by {}: {} for a budget of {}", vnd(t - b), vnd(t), vnd(b)));
            (round2(b as f64 / t as f64), format!("{} is over the budget of {}", vnd(t), vnd(b)), false)
        }
    };
    let days_score = round2(written_days as f64 / days.len() as f64);
    let overlaps = tradeoffs.iter().filter(|t| t.starts_with("Overlapping")).count();
    let flight_part = if flights.is_empty() { 0.0 } else { 0.5 };
    let stay_part = if nights == 0 { 0.5 } else { 0.5 * covered.min(nights) as f64 / nights as f64 };
    let bookings_score = round2((flight_part + stay_part - 0.25 * overlaps as f64).max(0.0));
    let score_parts = vec![
        ScorePart { name: "budget".into(), score: budget_score, weight: 0.4, why },
        ScorePart {
            name: "days".into(),
            score: days_score,
            weight: 0.3,
            why: format!("{written_days} of {} days planned within the trip's dates", days.len()),
        },
        ScorePart {
            name: "bookings".into(),
            score: bookings_score,
            weight: 0.3,
            why: format!(
                "{}; {covered} of {nights} nights booked{}",
                if flights.is_empty() { "no flight found" } else { "flight found" },
                if overlaps > 0 { format!("; {overlaps} overlapping stay(s) left out") } else { String::new() }
            ),
        },
    ];
    tradeoffs.extend(written.map(|w| w.tradeoffs.clone()).unwrap_or_default());
    Checked { days: itinerary, bookings, tradeoffs, score_parts, total, within_budget, notes }
}

fn minutes(o: &TravelOption) -> u64 {
    o.terms.get("duration_minutes").and_then(Value::as_u64).unwrap_or(u64::MAX)
}
