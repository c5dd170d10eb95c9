//! `shopping_compare_options`: several offers, read from their pages,
//! normalised and ranked by code.
//!
//! Each page is opened (`browser_navigate`), its variant chosen when one is
//! asked (`browser_click` on the option's label) and its offer read
//! (`browser_extract`: price, currency, shipping, warranty, returns,
//! delivery time, stock, by their English and Vietnamese labels). The
//! offers go to `normalize_compare` with the schema `shopping_compare_v1`
//! (total cost = price + shipping − discount, warranty in months, returns
//! and delivery in days) ranked by total cost, then warranty, then return
//! days; the user's `priorities` may put warranty, returns or delivery
//! first. Offers in another currency are converted only with a rate the
//! user set in the profile (`shopping.fx.USD_VND`: dong per dollar); with
//! none they keep their own currency, outside the ranking, and a note says
//! so. Never an invented rate.
//!
//! The choice is code's; with a model the reason is reworded for the user
//! (a language step), without one the code's reason stands.

use std::collections::BTreeMap;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::shopping_specs::{Read, Wanted, read_fields};
use super::{Skill, parse, to_output};
use crate::builtin::profile::UserProfileGetOutput;
use crate::compare::NormalizeCompareOutput;
use crate::error::{Error, Result};
use crate::tools::ToolOutput;
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::shopping::{
    CompareItem, Recommendation, ShoppingCompareOptionsArgs, ShoppingCompareOptionsOutput,
};
use crate::vocab::money::{Money, parse_money};

/// The comparison schemas this skill knows.
pub const COMPARE_SCHEMAS: [&str; 1] = ["shopping_compare_v1"];

/// The profile key below which the user's exchange rates live
/// (`shopping.fx.USD_VND`: how many VND one USD is).
pub const FX_KEY: &str = "shopping.fx";

/// What is read from each offer's page.
fn offer_fields() -> Vec<Wanted> {
    vec![
        Wanted::new("name", &["Tên sản phẩm", "Product name"]),
        Wanted::new("price", &["Giá", "Giá bán", "Price"]),
        Wanted::new("currency", &["Tiền tệ"]),
        Wanted::new("shipping", &["Phí vận chuyển", "Phí giao hàng", "Shipping", "Shipping fee", "Delivery fee"]),
        Wanted::new("warranty", &["Bảo hành", "Warranty"]),
        Wanted::new("returns", &["Đổi trả", "Chính sách đổi trả", "Returns", "Return policy"]),
        Wanted::new("delivery_time", &["Thời gian giao hàng", "Delivery time", "Shipping time"]),
        Wanted::new("in_stock", &["Tình trạng", "Còn hàng", "Availability"]),
    ]
}

/// `shopping_compare_v1`: field → type for `normalize_compare`.
fn compare_schema() -> Value {
    json!({
        "total_cost": "number", "price": "number", "shipping": "number", "warranty_months": "number",
        "return_days": "number", "delivery_days": "number", "in_stock": "boolean",
    })
}

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args: ShoppingCompareOptionsArgs = parse("shopping_compare_options", args)?;
        if !COMPARE_SCHEMAS.contains(&args.schema.as_str()) {
            return Err(Error::invalid_arguments(format!(
                "unknown comparison schema `{}`; Halley compares offers with: {}",
                args.schema,
                COMPARE_SCHEMAS.join(", ")
            )));
        }
        to_output(&compare(skill, &args).await?)
    })
}

/// One offer as read from its page.
struct Offer<'a> {
    item: &'a CompareItem,
    fields: BTreeMap<String, Read>,
    currency: Option<String>,
}

async fn compare(skill: &Skill<'_>, args: &ShoppingCompareOptionsArgs) -> Result<ShoppingCompareOptionsOutput> {
    let mut offers = Vec::new();
    for item in &args.items {
        if let Some(offer) = read_offer(skill, item).await {
            offers.push(offer);
        }
    }
    if offers.is_empty() {
        skill.note("no offer could be read");
        return Ok(ShoppingCompareOptionsOutput {
            comparison_table: Vec::new(),
            recommendation: None,
            status: SkillStatus::Failed,
            currency: None,
            notes: skill.notes(),
        });
    }
    let (currency, fx) = common_currency(skill, &offers).await;
    let mut compare_args = json!({
        "schema": compare_schema(),
        "items": offers.iter().map(|o| json!({"source": o.item.url, "raw": raw_of(o)})).collect::<Vec<_>>(),
        "rank_by": rank_keys(args.priorities.as_deref()).iter().map(|f| json!({"field": f})).collect::<Vec<_>>(),
    });
    if let Some(currency) = &currency {
        compare_args["currency"] = json!(currency);
    }
    if !fx.is_empty() {
        compare_args["fx"] = json!(fx);
    }
    let compared: NormalizeCompareOutput = skill.data("normalize_compare", compare_args).await?;
    for item in &compared.unranked {
        skill.note(format!("{} is not in the ranking: {}", item.source, item.reason));
    }
    let table = table(&offers, &compared);
    let mut recommendation = recommend(&offers, &compared);
    if let Some(rec) = &mut recommendation {
        let input =
            json!({"recommended": rec.url, "why": rec.reason, "comparison": table, "priorities": args.priorities});
        let schema = json!({"type": "object", "required": ["reason"], "additionalProperties": false,
            "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 600}}});
        #[derive(Deserialize)]
        struct Worded {
            reason: String,
        }
        let task = "explain to the user in one or two sentences why the recommended offer is the best choice; the \
                    choice is made, do not change it, and keep its figures";
        if let Some(worded) = skill.write::<Worded>(task, &input, &schema).await? {
            rec.reason = worded.reason;
        }
    }
    let complete = offers.len() == args.items.len()
        && compared.unranked.is_empty()
        && compared.items.iter().all(|i| i.normalized.get("total_cost").is_some_and(|v| !v.is_null()));
    let status = match (&recommendation, complete) {
        (None, _) => SkillStatus::Failed,
        (Some(_), true) => SkillStatus::Ok,
        (Some(_), false) => SkillStatus::Partial,
    };
    Ok(ShoppingCompareOptionsOutput {
        comparison_table: table,
        recommendation,
        status,
        currency: compared.currency.clone(),
        notes: skill.notes(),
    })
}

/// Opens the offer's page, chooses its variant, reads its fields; `None`
/// (with a note) when the page cannot be read.
async fn read_offer<'a>(skill: &Skill<'_>, item: &'a CompareItem) -> Option<Offer<'a>> {
    if let Err(e) = skill.data::<Value>("browser_navigate", json!({"url": item.url})).await {
        skill.note(format!("{}: not compared, the page did not open ([{}] {})", item.url, e.code(), e.message()));
        return None;
    }
    if let Some(variant) = &item.variant {
        choose_variant(skill, &item.url, variant).await;
    }
    let fields = match read_fields(skill, &offer_fields(), Some("a shop's offer for a product")).await {
        Ok(fields) => fields,
        Err(e) => {
            skill.note(format!(
                "{}: not compared, the page could not be read ([{}] {})",
                item.url,
                e.code(),
                e.message()
            ));
            return None;
        }
    };
    let currency = fields
        .get("price")
        .and_then(|r| money_of(&r.text))
        .and_then(|(_, c)| c)
        .or_else(|| fields.get("currency").and_then(|r| crate::vocab::money::currency_code(&r.text)));
    Some(Offer { item, fields, currency })
}

/// Clicks the option labelled `variant` (a button or a link: the gate
/// grades the click like any other); a note when there is none.
pub(super) async fn choose_variant(skill: &Skill<'_>, url: &str, variant: &str) -> bool {
    let clicked = skill.call("browser_click", json!({"selector": format!("text={variant}")})).await;
    match clicked.error {
        None => true,
        Some(e) => {
            skill.note(format!("{url}: the variant `{variant}` could not be chosen ([{}] {})", e.code, e.message));
            false
        }
    }
}

/// An amount and its currency, from text such as `42.990.000 ₫` or `$1,699.00`.
pub(super) fn money_of(text: &str) -> Option<(f64, Option<String>)> {
    match parse_money(text) {
        Ok((Money::Amount { value, currency }, _)) => Some((value, currency.map(str::to_owned))),
        _ => None,
    }
}

/// The offer as `normalize_compare`'s raw item.
fn raw_of(offer: &Offer<'_>) -> Map<String, Value> {
    let mut raw = Map::new();
    let text = |name: &str| offer.fields.get(name).map(|r| r.text.clone());
    for (from, to) in [
        ("price", "price"),
        ("shipping", "shipping"),
        ("warranty", "warranty_months"),
        ("returns", "return_days"),
        ("delivery_time", "delivery_days"),
        ("in_stock", "in_stock"),
    ] {
        if let Some(t) = text(from) {
            raw.insert(to.to_owned(), json!(t));
        }
    }
    if let Some(currency) = &offer.currency {
        raw.insert("currency".to_owned(), json!(currency));
    }
    raw
}

/// The ranking keys: total cost, warranty, return days, delivery; what the
/// user's priorities name comes first.
fn rank_keys(priorities: Option<&str>) -> Vec<&'static str> {
    let mut keys = vec!["total_cost", "warranty_months", "return_days", "delivery_days"];
    let Some(p) = priorities.map(crate::vocab::text::fold) else { return keys };
    let wants = |words: &[&str]| words.iter().filter_map(|w| p.find(w)).min();
    let mut named: Vec<(usize, &'static str)> = [
        ("total_cost", wants(&["cheap", "price", "cost", "re nhat", "gia", "tiet kiem"])),
        ("warranty_months", wants(&["warranty", "bao hanh"])),
        ("return_days", wants(&["return", "doi tra"])),
        ("delivery_days", wants(&["fast", "delivery", "giao nhanh", "giao hang"])),
    ]
    .into_iter()
    .filter_map(|(k, at)| at.map(|at| (at, k)))
    .collect();
    named.sort();
    let first: Vec<&'static str> = named.into_iter().map(|(_, k)| k).collect();
    keys.retain(|k| !first.contains(k));
    first.into_iter().chain(keys).collect()
}

/// The currency to compare in and the user's rates into it. Offers in one
/// currency need none; otherwise the most common currency (the first
/// offer's on a tie), converted with `shopping.fx.*` when the profile has
/// every rate needed.
async fn common_currency(skill: &Skill<'_>, offers: &[Offer<'_>]) -> (Option<String>, BTreeMap<String, f64>) {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for c in offers.iter().filter_map(|o| o.currency.clone()) {
        match counts.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c, 1)),
        }
    }
    let Some(top) = counts.iter().map(|(_, n)| *n).max() else { return (None, BTreeMap::new()) };
    let target = counts.iter().find(|(_, n)| *n == top).map(|(c, _)| c.clone()).unwrap_or_default();
    if counts.len() < 2 {
        return (Some(target), BTreeMap::new());
    }
    let rates = match skill.data::<UserProfileGetOutput>("user_profile_get", json!({"keys": [FX_KEY]})).await {
        Ok(profile) => profile.values,
        Err(e) => {
            skill.note(format!("the exchange rates in the profile could not be read: [{}] {}", e.code(), e.message()));
            BTreeMap::new()
        }
    };
    let rate = |from: &str| {
        let direct = rates.get(&format!("{FX_KEY}.{from}_{target}")).and_then(Value::as_f64);
        let inverse = rates.get(&format!("{FX_KEY}.{target}_{from}")).and_then(Value::as_f64).map(|r| 1.0 / r);
        direct.or(inverse).filter(|r| r.is_finite() && *r > 0.0)
    };
    let mut fx = BTreeMap::new();
    for (other, _) in counts.iter().filter(|(c, _)| *c != target) {
        match rate(other) {
            Some(r) => {
                skill.note(format!("{other} converted to {target} at your rate {r} ({FX_KEY}.{other}_{target})"));
                fx.insert(other.clone(), r);
            }
            None => skill.note(format!(
                "offers in {other} are shown in {other} and left out of the ranking: no {other}→{target} rate in your \
                 profile (set one with `halley profile set {FX_KEY}.{other}_{target} RATE`); Halley never invents one"
            )),
        }
    }
    (Some(target), fx)
}

/// One row per offer read: its URL, variant, name, price as listed,
/// normalised fields, currency and rank.
fn table(offers: &[Offer<'_>], compared: &NormalizeCompareOutput) -> Vec<Map<String, Value>> {
    offers
        .iter()
        .zip(&compared.items)
        .enumerate()
        .map(|(i, (offer, item))| {
            let mut row = Map::new();
            row.insert("url".into(), json!(offer.item.url));
            row.insert("variant".into(), json!(offer.item.variant));
            row.insert("name".into(), json!(offer.fields.get("name").map(|r| r.text.clone())));
            // As the shop shows it, before any conversion.
            row.insert("listed_price".into(), json!(offer.fields.get("price").map(|r| r.text.clone())));
            for (k, v) in &item.normalized {
                row.insert(k.clone(), v.clone());
            }
            row.insert("currency".into(), json!(item.currency));
            row.insert("rank".into(), json!(compared.ranking.iter().find(|r| r.item == i).map(|r| r.rank)));
            row.insert("missing_fields".into(), json!(item.missing_fields));
            row
        })
        .collect()
}

/// The best ranked offer and code's reason for it.
fn recommend(offers: &[Offer<'_>], compared: &NormalizeCompareOutput) -> Option<Recommendation> {
    let best = compared.ranking.first()?;
    let offer = offers.get(best.item)?;
    let item = compared.items.get(best.item)?;
    let currency = item.currency.as_deref();
    let money =
        |k: &str| item.normalized.get(k).and_then(Value::as_f64).map(|v| crate::watch::format::money(v, currency));
    let number = |k: &str| item.normalized.get(k).and_then(Value::as_f64);
    let mut facts = Vec::new();
    if let Some(total) = money("total_cost") {
        let parts: Vec<String> = [("price", money("price")), ("shipping", money("shipping"))]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| format!("{k} {v}")))
            .collect();
        facts.push(format!("total {total} ({})", parts.join(" + ")));
    }
    if let Some(w) = number("warranty_months") {
        facts.push(format!("warranty {w} months"));
    }
    if let Some(r) = number("return_days") {
        facts.push(format!("returns within {r} days"));
    }
    let keys: Vec<String> = compared.rank_by.iter().map(|k| k.field.replace('_', " ")).collect();
    let name = offer.fields.get("name").map_or_else(|| offer.item.url.clone(), |r| r.text.clone());
    let reason = format!(
        "{name}: ranked first of {} by {}: {}; {}.",
        compared.ranking.len(),
        keys.join(", then "),
        best.reason,
        facts.join(", ")
    );
    Some(Recommendation { url: offer.item.url.clone(), reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_priorities_come_first_in_the_order_said() {
        assert_eq!(rank_keys(None), ["total_cost", "warranty_months", "return_days", "delivery_days"]);
        assert_eq!(
            rank_keys(Some("Bảo hành dài, rồi giá rẻ")),
            ["warranty_months", "total_cost", "return_days", "delivery_days"]
        );
        assert_eq!(rank_keys(Some("fast delivery")), ["delivery_days", "total_cost", "warranty_months", "return_days"]);
    }

    #[test]
    fn money_keeps_its_currency() {
        assert_eq!(money_of("42.990.000 ₫"), Some((42_990_000.0, Some("VND".into()))));
        assert_eq!(money_of("$1,699.00"), Some((1699.0, Some("USD".into()))));
        assert_eq!(money_of("2-3 ngày"), None);
    }
}
