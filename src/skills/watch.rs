//! The watch skills (tools.md 4A/4B), run without a model when their
//! arguments are complete: `shopping_track_price` and
//! `travel_monitor_trip` make watches by calling `watch_create` as steps of
//! a [`Skill`] (through `Core::call_in`: the same path, schema, gate and
//! audit, as a model's call of it, never around it; shown in the run's
//! timeline).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use futures::future::BoxFuture;

use crate::error::{Error, Result};
use crate::skills::Skill;
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::ExtractFieldType;
use crate::tools::catalogue::common::{Money, SkillStatus};
use crate::tools::catalogue::data::{WatchCheck, WatchCreateOutput, WatchHealth};
use crate::tools::catalogue::shopping::{ShoppingTrackPriceArgs, ShoppingTrackPriceOutput};
use crate::tools::catalogue::travel::{TravelMonitorTripArgs, TravelMonitorTripOutput, TripWatch};

/// `shopping_track_price` as a skill (registered by [`crate::skills::handlers`]).
pub fn run_track_price<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args = crate::skills::parse("shopping_track_price", args)?;
        crate::skills::to_output(&track_price(skill, args).await?)
    })
}

/// `travel_monitor_trip` as a skill (registered by [`crate::skills::handlers`]).
pub fn run_monitor_trip<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args = crate::skills::parse("travel_monitor_trip", args)?;
        crate::skills::to_output(&monitor_trip(skill, args).await?)
    })
}

/// `watch_create` as a step of the skill, as a model would call it.
async fn create_watch(skill: &Skill<'_>, args: Value) -> Result<WatchCreateOutput> {
    skill.data("watch_create", args).await
}

/// A number a field holds (`30000`, or text such as `30.000 ₫`).
fn amount(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => crate::watch::money::parse_amount(s).map(|(n, _)| n),
        _ => None,
    }
}

fn healthy(check: Option<&WatchCheck>) -> bool {
    check.is_some_and(|c| c.health == WatchHealth::Ok)
}

/// What a coupon the page shows takes off `price`: an amount (`Giảm
/// 200.000 ₫`, `-200000`, a number) or a percentage of the price (`10%`,
/// `Giảm 10 %`). A bare code (`GIAM500K`: its number glued to letters) says
/// nothing sure about its value: nothing off.
fn coupon_discount(coupon: Option<&Value>, price: f64) -> Option<f64> {
    use crate::vocab::money::{Money, parse_money};
    let off = match coupon? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => {
            let chars: Vec<char> = s.chars().collect();
            let first_digit = chars.iter().position(char::is_ascii_digit)?;
            if first_digit > 0 && chars[first_digit - 1].is_alphabetic() {
                return None;
            }
            match parse_money(s).ok()?.0 {
                Money::Percent(pct) if pct > 0.0 && pct <= 100.0 => price * pct / 100.0,
                Money::Amount { value, .. } => value,
                Money::Percent(_) => return None,
            }
        }
        _ => return None,
    };
    let off = off.abs();
    (off.is_finite() && off > 0.0 && off <= price).then_some(off)
}

/// The total a buyer pays: price + shipping − coupon, each when the page shows it.
fn total_price(price: f64, fields: &serde_json::Map<String, Value>) -> f64 {
    let shipping = amount(fields.get("shipping")).unwrap_or(0.0);
    let coupon = coupon_discount(fields.get("coupon"), price).unwrap_or(0.0);
    price + shipping - coupon
}

/// `shopping_track_price`: a price watch (at or below the target; without
/// one, every new lowest price), reading shipping and coupon fields when
/// the page shows them. `last_price` is the price plus shipping minus the
/// coupon, each when shown.
pub async fn track_price(skill: &Skill<'_>, args: ShoppingTrackPriceArgs) -> Result<ShoppingTrackPriceOutput> {
    let rule = match args.target_price_vnd {
        Some(target) => json!({"op": "<=", "value": target}),
        None => json!({"op": "all_time_low"}),
    };
    let schema = BTreeMap::from([("shipping", ExtractFieldType::Number), ("coupon", ExtractFieldType::String)]);
    let made = create_watch(
        skill,
        json!({"target": {"url": args.url, "schema": schema}, "trigger_rules": [rule], "frequency": args.frequency}),
    )
    .await?;
    let check = made.check.as_ref();
    let last_price = check.and_then(|c| {
        Some(Money {
            amount: total_price(c.price?, &c.fields),
            currency: c.currency.clone().unwrap_or_else(|| "VND".to_owned()),
        })
    });
    let status = if last_price.is_some() && healthy(check) { SkillStatus::Ok } else { SkillStatus::Partial };
    Ok(ShoppingTrackPriceOutput { watch_id: made.watch_id, last_price, status })
}

/// `travel_monitor_trip`: a watch of each booking or flight-status page,
/// alerting when its status (a delay, a cancellation) or gate changes.
/// Booking confirmations given as files need the agent to find their
/// status page: they are refused when alone, left out (status `partial`)
/// beside pages.
pub async fn monitor_trip(skill: &Skill<'_>, args: TravelMonitorTripArgs) -> Result<TravelMonitorTripOutput> {
    let (pages, others): (Vec<&String>, Vec<&String>) =
        args.booking_refs.iter().partition(|r| crate::watch::check_url(r).is_ok());
    if pages.is_empty() {
        return Err(Error::invalid_arguments(format!(
            "travel_monitor_trip watches booking or flight-status pages (http:// or https:// URLs); {} {} no such page. \
             Finding the status page of a booking confirmation needs the agent: ask it, or give the page's URL",
            others.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>().join(", "),
            if others.len() == 1 { "is" } else { "are" },
        )));
    }
    let schema = BTreeMap::from([("status", ExtractFieldType::String), ("gate", ExtractFieldType::String)]);
    let rules = json!([{"op": "changed", "field": "status"}, {"op": "changed", "field": "gate"}]);
    let mut watches = Vec::with_capacity(pages.len());
    let mut all_read = true;
    for page in pages {
        let args = json!({"target": {"url": page, "schema": schema}, "trigger_rules": rules,
            "frequency": args.frequency, "cooldown": "0m"});
        let made = create_watch(skill, args).await?;
        all_read &= made.check.is_none() || healthy(made.check.as_ref());
        let alerts = made.check.iter().flat_map(|c| c.fired_rules.iter().map(|f| f.message.clone())).collect();
        watches.push(TripWatch { watch_id: made.watch_id, url: page.clone(), alerts });
    }
    let status = if others.is_empty() && all_read { SkillStatus::Ok } else { SkillStatus::Partial };
    Ok(TravelMonitorTripOutput {
        watch_id: watches[0].watch_id.clone(),
        alerts: watches.iter().flat_map(|w| w.alerts.iter().cloned()).collect(),
        status,
        watch_ids: watches.iter().map(|w| w.watch_id.clone()).collect(),
        watches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coupon_is_an_amount_or_a_percentage_never_a_bare_code() {
        let price = 21_490_000.0;
        let off = |v: Value| coupon_discount(Some(&v), price);
        assert_eq!(off(json!("Giảm 200.000 ₫")), Some(200_000.0));
        assert_eq!(off(json!("-200.000đ")), Some(200_000.0));
        assert_eq!(off(json!(150000)), Some(150_000.0));
        assert_eq!(off(json!("150000")), Some(150_000.0));
        assert_eq!(off(json!("Giảm 10%")), Some(2_149_000.0));
        assert_eq!(off(json!("5 % off")), Some(1_074_500.0));
        assert_eq!(off(json!("GIAM500K")), None);
        assert_eq!(off(json!("Nhập mã")), None);
        // More than the price is not a discount of this product.
        assert_eq!(off(json!("Giảm 30.000.000 ₫")), None);
        assert_eq!(coupon_discount(None, price), None);
        let fields = json!({"shipping": 30_000, "coupon": "Giảm 200.000 ₫"});
        assert_eq!(total_price(price, fields.as_object().unwrap()), 21_320_000.0);
    }
}
