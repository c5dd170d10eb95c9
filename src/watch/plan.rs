//! A check's consequences, worked out without I/O ([`plan`]): the watch's
//! health, its rules' alerts and their texts, and its new state.

use std::collections::BTreeMap;

use serde_json::Value;

use super::BROKEN_AFTER;
use super::check::Outcome;
use super::format;
use super::rules::{self, Memory, Reading, RuleState};
use crate::store::watch_alerts::{AlertChannel, NewAlert};
use crate::store::watches::{CheckWrite, NewObservation, ObservedReading, WatchHealth, WatchRow};
use crate::tools::catalogue::data::{FiredRule, TriggerOp, TriggerRule, WatchCheck};

/// The name a notification gives the watch: its label, else the product's
/// name, else the page's host.
fn label_of(row: &WatchRow, reading: Option<&Reading>, previous: Option<&Reading>) -> String {
    if !row.title.trim().is_empty() {
        return row.title.trim().to_owned();
    }
    if let Some(name) = reading.and_then(|r| r.name.clone()).or_else(|| previous.and_then(|r| r.name.clone())) {
        return name;
    }
    url::Url::parse(&row.target_url).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default()
}

fn shown(v: Option<Value>) -> String {
    match v {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => "—".to_owned(),
        Some(other) => other.to_string(),
    }
}

/// The alert's text for a rule that fired.
fn message(f: &rules::Firing, reading: &Reading, previous: Option<&Reading>, vi: bool) -> String {
    let cur = reading.currency.as_deref().or(previous.and_then(|p| p.currency.as_deref()));
    let field = f.rule.field.as_deref().unwrap_or("price");
    // In the user's language: Vietnamese when `vi`.
    let description = if vi { rules::describe_in(&f.rule, cur, true) } else { f.description.clone() };
    match f.rule.op {
        TriggerOp::BackInStock => match (reading.price, vi) {
            (Some(p), false) => format!("back in stock at {}", format::money(p, cur)),
            (Some(p), true) => format!("có hàng lại, giá {}", format::money(p, cur)),
            (None, false) => "back in stock".to_owned(),
            (None, true) => "có hàng lại".to_owned(),
        },
        TriggerOp::Changed if field != "price" => {
            format!("{field}: {} → {}", shown(previous.and_then(|p| p.get(field))), shown(reading.get(field)))
        }
        _ if f.on_price => match reading.price {
            Some(p) => format!("{} ({description})", format::change_in(previous.and_then(|r| r.price), p, cur, vi)),
            None => description,
        },
        _ if vi => format!("{description} (hiện: {})", shown(reading.get(field))),
        _ => format!("{description} (now {})", shown(reading.get(field))),
    }
}

/// A whole check's plan: what to write, and what to report.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub write: CheckWrite,
    pub check: WatchCheck,
}

fn seconds_between(from: &str, to: &str) -> Option<i64> {
    let a = chrono::DateTime::parse_from_rfc3339(from).ok()?;
    let b = chrono::DateTime::parse_from_rfc3339(to).ok()?;
    Some((b - a).num_seconds())
}

/// Works out a check's consequences (pure): health, rules, alerts, the
/// watch's new state.
/// The alerts' texts are in Vietnamese when `vi` (the user's language).
pub fn plan(row: &WatchRow, rules: &[TriggerRule], outcome: Outcome, at: &str, vi: bool) -> Planned {
    let previous: Option<Reading> = row.last_value.clone().and_then(|v| serde_json::from_value(v).ok());
    let states: BTreeMap<String, RuleState> = serde_json::from_value(row.rule_state.clone()).unwrap_or_default();
    let mut write = CheckWrite {
        observation: NewObservation {
            observed_at: at.to_owned(),
            value: None,
            raw_text: None,
            triggered: false,
            error: None,
            reading: None,
        },
        health: row.health,
        consecutive_failures: row.consecutive_failures,
        last_error: row.last_error.clone(),
        check_method: None,
        currency: None,
        baseline_price: row.baseline_price,
        last_alerted_price: row.last_alerted_price,
        all_time_low: row.all_time_low,
        rule_state: row.rule_state.clone(),
        last_alert_at: row.last_alert_at.clone(),
        breaks: row.breaks,
        alerts: Vec::new(),
        jitter_secs: jitter(&row.id, at, row.frequency_secs),
    };
    let mut fired: Vec<FiredRule> = Vec::new();
    let mut typed = ObservedReading::default();
    let mut read: Option<Reading> = None;
    let alert = |rule: &str, value: String, description: String, body: String, fired: &mut Vec<FiredRule>| {
        fired.push(FiredRule { rule: rule.to_owned(), description, message: body.clone() });
        (rule.to_owned(), value, body)
    };
    let mut pending: Vec<(String, String, String)> = Vec::new();
    let mut error: Option<String> = None;
    let mut rule_fired = false;
    match outcome {
        Outcome::Read { reading, method, doubt } => {
            typed.price = reading.price;
            typed.currency = reading.currency.clone();
            typed.in_stock = reading.in_stock;
            typed.method = Some(method.as_str().to_owned());
            write.observation.value = serde_json::to_value(&reading).ok();
            write.check_method = Some(method.as_str().to_owned());
            match doubt {
                Some(d) => {
                    // Not trusted: rules wait; a broken watch stays broken.
                    write.health =
                        if row.health == WatchHealth::Broken { WatchHealth::Broken } else { WatchHealth::Degraded };
                    write.last_error = Some(d.clone());
                    error = Some(d);
                    // The observation keeps the reading; the watch's last value does not.
                    write.observation.value = None;
                    write.observation.raw_text = serde_json::to_string(&reading).ok();
                }
                None => {
                    let cooling_down = row
                        .last_alert_at
                        .as_deref()
                        .and_then(|last| seconds_between(last, at))
                        .is_some_and(|s| s < row.cooldown_secs);
                    let memory = Memory {
                        previous: previous.clone(),
                        baseline_price: row.baseline_price,
                        last_alerted_price: row.last_alerted_price,
                        all_time_low: row.all_time_low,
                        states,
                        cooling_down,
                    };
                    // Rules act on the trusted part of the reading only.
                    let eval = rules::evaluate(rules, &reading.trusted(), &memory);
                    for f in &eval.fired {
                        let body = message(f, &reading, previous.as_ref(), vi);
                        pending.push(alert(&f.key, f.value.clone(), f.description.clone(), body, &mut fired));
                        rule_fired = true;
                        if f.on_price {
                            write.last_alerted_price = reading.price;
                        }
                    }
                    if rule_fired {
                        write.last_alert_at = Some(at.to_owned());
                    }
                    if row.health == WatchHealth::Broken {
                        let body = format!("works again: {}", summary(&reading));
                        pending.push(alert(
                            "health:recovered",
                            format!("#{}", row.breaks),
                            "the watch works again".into(),
                            body,
                            &mut fired,
                        ));
                    }
                    write.consecutive_failures = 0;
                    if reading.unsure.is_empty() {
                        write.health = WatchHealth::Ok;
                        write.last_error = None;
                    } else {
                        // Read, but not trusted in part: the health says which and why.
                        let why: Vec<&str> = reading.unsure.values().map(String::as_str).collect();
                        let fields: Vec<&str> = reading.unsure.keys().map(String::as_str).collect();
                        let e = format!("rules on {} wait: {}", fields.join(" and "), why.join("; "));
                        write.health = WatchHealth::Degraded;
                        write.last_error = Some(e.clone());
                        error = Some(e);
                    }
                    write.currency = reading.currency.clone();
                    write.baseline_price = eval.baseline_price;
                    write.all_time_low = eval.all_time_low;
                    write.rule_state =
                        serde_json::to_value(&eval.states).unwrap_or_else(|_| Value::Object(Default::default()));
                    read = Some(reading);
                }
            }
        }
        Outcome::Gone { status } => {
            let e = format!("the page is gone (HTTP {status})");
            write.consecutive_failures += 1;
            write.health = WatchHealth::Broken;
            write.last_error = Some(e.clone());
            error = Some(e);
        }
        Outcome::Failed { error: e } => {
            write.consecutive_failures += 1;
            write.health = if row.health == WatchHealth::Broken || write.consecutive_failures >= BROKEN_AFTER {
                WatchHealth::Broken
            } else {
                WatchHealth::Degraded
            };
            write.last_error = Some(e.clone());
            error = Some(e);
        }
    }
    if write.health == WatchHealth::Broken && row.health != WatchHealth::Broken {
        write.breaks += 1;
        let why = error.clone().unwrap_or_default();
        let body = format!("stopped working: {why}. Halley keeps checking and says when it works again.");
        pending.push(alert("health:broken", format!("#{}", write.breaks), "the watch broke".into(), body, &mut fired));
    }
    let label = label_of(row, read.as_ref(), previous.as_ref());
    for (rule, value, body) in pending {
        write.alerts.push(NewAlert {
            watch_id: Some(row.id.clone()),
            rule,
            value,
            title: label.clone(),
            body,
            url: Some(row.target_url.clone()),
            // Snoozed: to the inbox only.
            channel: if row.snoozed_until.as_deref().is_some_and(|until| until > at) {
                AlertChannel::InApp
            } else {
                AlertChannel::Push
            },
            routine_id: None,
        });
    }
    typed.health = write.health;
    typed.fired_rules = fired.iter().map(|f| f.rule.clone()).collect();
    write.observation.triggered = rule_fired;
    write.observation.error = error.clone();
    write.observation.reading = Some(typed.clone());
    let value = read.as_ref().and_then(|r| match r.price {
        Some(p) => Some(Value::from(p)),
        None if !r.fields.is_empty() => Some(Value::Object(r.fields.clone())),
        None => None,
    });
    let check = WatchCheck {
        watch_id: row.id.clone(),
        checked_at: at.to_owned(),
        price: typed.price,
        currency: typed.currency.clone(),
        in_stock: typed.in_stock,
        fields: read.as_ref().map(|r| r.fields.clone()).unwrap_or_default(),
        fired_rules: fired,
        health: write.health,
        method: typed.method.clone(),
        value,
        triggered: rule_fired,
        error,
    };
    Planned { write, check }
}

/// Up to 2 % of the period (at most 5 minutes), the same for the same
/// watch and time: checks of many watches spread out instead of landing together.
fn jitter(id: &str, at: &str, period: i64) -> i64 {
    let span = (period / 50).min(300);
    if span <= 0 {
        return 0;
    }
    let hash = id
        .bytes()
        .chain(at.bytes())
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    (hash % (span as u64 + 1)) as i64
}

/// `19.990.000 ₫, in stock` / `status: Delayed`.
fn summary(r: &Reading) -> String {
    let mut parts = Vec::new();
    if let Some(p) = r.price {
        parts.push(format::money(p, r.currency.as_deref()));
    }
    match r.in_stock {
        Some(true) => parts.push("in stock".to_owned()),
        Some(false) => parts.push("out of stock".to_owned()),
        None => {}
    }
    for (k, v) in &r.fields {
        parts.push(format!("{k}: {}", shown(Some(v.clone()))));
    }
    parts.join(", ")
}
