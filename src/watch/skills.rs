//! The watch skills (tools.md 4A/4B), run without a model when their
//! arguments are complete: `shopping_track_price` and
//! `travel_monitor_trip` make watches by calling `watch_create` through
//! [`Core::call_in`], the same path (schema, gate, audit) as a model's
//! call of it, never around it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::context::CallContext;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::tools::Registry;
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::ExtractFieldType;
use crate::tools::catalogue::common::{Money, SkillStatus};
use crate::tools::catalogue::data::{WatchCheck, WatchCreateOutput, WatchHealth};
use crate::tools::catalogue::shopping::{ShoppingTrackPriceArgs, ShoppingTrackPriceOutput};
use crate::tools::catalogue::travel::{TravelMonitorTripArgs, TravelMonitorTripOutput, TripWatch};

/// The skills this module runs.
pub const NAMES: [&str; 2] = ["shopping_track_price", "travel_monitor_trip"];

/// Runs the skill `name`; `None` when it is not one of [`NAMES`].
pub async fn run(
    core: &Core,
    registry: &Registry,
    cx: &CallContext,
    name: &str,
    args: &Value,
) -> Option<Result<ToolOutput>> {
    let out = match name {
        "shopping_track_price" => match parse(name, args) {
            Ok(a) => track_price(core, registry, cx, a).await.and_then(|o| to_output(&o)),
            Err(e) => Err(e),
        },
        "travel_monitor_trip" => match parse(name, args) {
            Ok(a) => monitor_trip(core, registry, cx, a).await.and_then(|o| to_output(&o)),
            Err(e) => Err(e),
        },
        _ => return None,
    };
    Some(out)
}

fn parse<T: serde::de::DeserializeOwned>(name: &str, args: &Value) -> Result<T> {
    serde_json::from_value(args.clone())
        .map_err(|e| Error::invalid_arguments(format!("invalid arguments for `{name}`: {e}")))
}

fn to_output<T: serde::Serialize>(data: &T) -> Result<ToolOutput> {
    serde_json::to_value(data)
        .map(ToolOutput::data)
        .map_err(|e| Error::internal("cannot serialise a skill's result").with_source(e))
}

/// `watch_create` through the core, as a model would call it.
async fn create_watch(core: &Core, registry: &Registry, cx: &CallContext, args: Value) -> Result<WatchCreateOutput> {
    let result = Box::pin(core.call_in(registry, cx, "watch_create", args)).await;
    if let Some(e) = result.error {
        return Err(Error::new(e.code, e.message));
    }
    serde_json::from_value(result.data).map_err(|e| Error::internal("unexpected watch_create output").with_source(e))
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
pub async fn track_price(
    core: &Core,
    registry: &Registry,
    cx: &CallContext,
    args: ShoppingTrackPriceArgs,
) -> Result<ShoppingTrackPriceOutput> {
    let rule = match args.target_price_vnd {
        Some(target) => json!({"op": "<=", "value": target}),
        None => json!({"op": "all_time_low"}),
    };
    let schema = BTreeMap::from([("shipping", ExtractFieldType::Number), ("coupon", ExtractFieldType::String)]);
    let made = create_watch(
        core,
        registry,
        cx,
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
pub async fn monitor_trip(
    core: &Core,
    registry: &Registry,
    cx: &CallContext,
    args: TravelMonitorTripArgs,
) -> Result<TravelMonitorTripOutput> {
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
        let made = create_watch(core, registry, cx, args).await?;
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
