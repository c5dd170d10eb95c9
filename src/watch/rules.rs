//! The rules engine, pure (no I/O): given a watch's rules, a trusted
//! reading and what the watch remembers (the previous reading, the price at
//! creation, the last price alerted, the all-time low, each rule's armed
//! state, the cooldown), which rules fire now and the rules' new state.
//!
//! Rules are edge-triggered: a rule fires when it becomes true and is
//! disarmed; it is armed again once a check finds it false. A rule that
//! becomes true during the watch's cooldown stays armed (it fires on the
//! first check after the cooldown if it still holds). Every check is
//! evaluated, the first included: a watch created under its target alerts
//! at once. Each firing has an idempotency key, (watch, rule key, value):
//! the value carries the rule's firing count, so re-running a check that
//! was cut short gives the same key and re-arming gives a new one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::format::money;
use crate::error::{Error, Result};
use crate::tools::catalogue::data::{DropAgainst, RuleValue, TriggerOp, TriggerRule};
use crate::vocab::text::fold;

/// One trusted reading of a page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub price: Option<f64>,
    pub currency: Option<String>,
    pub in_stock: Option<bool>,
    #[serde(default)]
    pub fields: Map<String, Value>,
    /// The product's name, when the page gives one (for notifications).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The price or stock state read with less confidence than a watch
    /// acts on (`"in_stock"` → why): kept, but its rules wait.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unsure: BTreeMap<String, String>,
}

impl Reading {
    /// The value of `field` (`price`, `in_stock`, `currency`, `name` or a schema field).
    pub fn get(&self, field: &str) -> Option<Value> {
        match field {
            "price" => self.price.map(Value::from),
            "in_stock" => self.in_stock.map(Value::Bool),
            "currency" => self.currency.clone().map(Value::String),
            other => match self.fields.get(other) {
                Some(Value::Null) | None if other == "name" => self.name.clone().map(Value::String),
                Some(Value::Null) | None => None,
                Some(v) => Some(v.clone()),
            },
        }
    }

    /// The reading the rules may act on: the unsure fields left out, so
    /// their rules neither fire nor re-arm.
    pub fn trusted(&self) -> Reading {
        let mut r = self.clone();
        if r.unsure.contains_key("price") {
            r.price = None;
        }
        if r.unsure.contains_key("in_stock") {
            r.in_stock = None;
        }
        r.unsure.clear();
        r
    }

    /// True when nothing at all was read.
    pub fn is_empty(&self) -> bool {
        self.price.is_none() && self.in_stock.is_none() && self.fields.values().all(Value::is_null)
    }
}

/// A rule's state between checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleState {
    /// Fires when it next becomes true.
    pub armed: bool,
    /// How many times it fired.
    pub fired: u32,
}

impl Default for RuleState {
    fn default() -> Self {
        RuleState { armed: true, fired: 0 }
    }
}

/// What the watch remembers for its rules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    /// The previous trusted reading (`None` on the first check).
    pub previous: Option<Reading>,
    /// The first price read.
    pub baseline_price: Option<f64>,
    /// The price of the last price alert.
    pub last_alerted_price: Option<f64>,
    /// The lowest price read before this check.
    pub all_time_low: Option<f64>,
    /// By rule key.
    pub states: BTreeMap<String, RuleState>,
    /// True while the watch's cooldown runs: no rule fires.
    pub cooling_down: bool,
}

/// A rule that fires on this check.
#[derive(Debug, Clone, PartialEq)]
pub struct Firing {
    pub key: String,
    pub rule: TriggerRule,
    /// The idempotency value: what it fired on and the rule's firing count.
    pub value: String,
    /// What the rule says, e.g. `price ≤ 19.990.000 ₫`.
    pub description: String,
    /// True for rules on the price (they move `last_alerted_price`).
    pub on_price: bool,
}

/// The outcome of evaluating a watch's rules on one reading.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    pub fired: Vec<Firing>,
    /// Every rule's state after this check, by key (rules no longer on the
    /// watch are dropped).
    pub states: BTreeMap<String, RuleState>,
    /// The all-time low including this reading.
    pub all_time_low: Option<f64>,
    /// The baseline price (set by the first price read).
    pub baseline_price: Option<f64>,
}

fn field_of(rule: &TriggerRule) -> &str {
    match rule.op {
        TriggerOp::DropPct | TriggerOp::AllTimeLow => "price",
        TriggerOp::BackInStock => "in_stock",
        _ => rule.field.as_deref().unwrap_or("price"),
    }
}

fn op_symbol(op: TriggerOp) -> &'static str {
    match op {
        TriggerOp::Lt => "<",
        TriggerOp::Le => "<=",
        TriggerOp::Gt => ">",
        TriggerOp::Ge => ">=",
        TriggerOp::Eq => "==",
        TriggerOp::Ne => "!=",
        TriggerOp::Changed => " changed",
        TriggerOp::Contains => " contains ",
        TriggerOp::DropPct => " drop>=",
        TriggerOp::AllTimeLow => "all_time_low",
        TriggerOp::BackInStock => "back_in_stock",
    }
}

fn value_text(v: &RuleValue) -> String {
    match v {
        RuleValue::Number(n) => number_text(*n),
        RuleValue::Text(t) => t.clone(),
    }
}

/// `19990000`, `12.5`: no `.0` on whole numbers.
pub fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { format!("{n}") }
}

/// The rule's stable key: `price<=19990000`, `status changed`,
/// `price drop>=10% vs created`, `all_time_low`, `back_in_stock`.
pub fn rule_key(rule: &TriggerRule) -> String {
    let field = field_of(rule);
    match rule.op {
        TriggerOp::AllTimeLow | TriggerOp::BackInStock => op_symbol(rule.op).to_owned(),
        TriggerOp::Changed => format!("{field} changed"),
        TriggerOp::DropPct => {
            let against = match rule.against.unwrap_or_default() {
                DropAgainst::Created => "created",
                DropAgainst::LastAlert => "last_alert",
            };
            let pct = rule.value.as_ref().map(|v| number_of(v).map(number_text).unwrap_or_else(|| value_text(v)));
            format!("price drop>={}% vs {against}", pct.unwrap_or_default())
        }
        op => {
            let numeric = matches!(op, TriggerOp::Lt | TriggerOp::Le | TriggerOp::Gt | TriggerOp::Ge);
            let value = match rule.value.as_ref() {
                Some(v) if numeric => number_of(v).map(number_text).unwrap_or_else(|| value_text(v)),
                Some(v) => value_text(v),
                None => String::new(),
            };
            format!("{field}{}{value}", op_symbol(op))
        }
    }
}

/// A rule's value as a number: a number, or a text read as money (`19.990.000 ₫`).
fn number_of(v: &RuleValue) -> Option<f64> {
    match v {
        RuleValue::Number(n) => Some(*n),
        RuleValue::Text(t) => super::money::parse_amount(t).map(|(a, _)| a),
    }
}

/// Checks a rule's shape (what the schema cannot say): a `value` where one
/// is needed, a number where one is compared, a sane percentage.
pub fn check_rule(rule: &TriggerRule) -> Result<()> {
    let key = rule_key(rule);
    if let Some(field) = &rule.field
        && field.trim().is_empty()
    {
        return Err(Error::invalid_arguments("a trigger rule's `field` cannot be empty"));
    }
    if rule.against.is_some() && rule.op != TriggerOp::DropPct {
        return Err(Error::invalid_arguments(format!("`against` is for `drop_pct` rules only (rule `{key}`)")));
    }
    let needs_value = !matches!(rule.op, TriggerOp::Changed | TriggerOp::AllTimeLow | TriggerOp::BackInStock);
    let Some(value) = rule.value.as_ref() else {
        if needs_value {
            return Err(Error::invalid_arguments(format!(
                "trigger rule `{}` needs a `value` (e.g. {{\"op\": \"<=\", \"value\": 19990000}})",
                op_symbol(rule.op).trim()
            )));
        }
        return Ok(());
    };
    if !needs_value {
        return Err(Error::invalid_arguments(format!("trigger rule `{key}` takes no `value`")));
    }
    let numeric = matches!(rule.op, TriggerOp::Lt | TriggerOp::Le | TriggerOp::Gt | TriggerOp::Ge | TriggerOp::DropPct);
    if numeric && number_of(value).is_none() {
        return Err(Error::invalid_arguments(format!(
            "trigger rule `{key}` compares numbers, and {:?} is not one",
            value_text(value)
        )));
    }
    if rule.op == TriggerOp::DropPct {
        let pct = number_of(value).unwrap_or(0.0);
        if !(pct > 0.0 && pct < 100.0) {
            return Err(Error::invalid_arguments(format!(
                "`drop_pct` takes a percentage above 0 and below 100, not {pct}"
            )));
        }
    }
    Ok(())
}

/// What the rule says, for people: `price ≤ 19.990.000 ₫`.
pub fn describe(rule: &TriggerRule, currency: Option<&str>) -> String {
    describe_in(rule, currency, false)
}

/// [`describe`] in Vietnamese when `vi` (an alert the user reads): `giá ≤
/// 19.990.000 ₫`, `giá giảm 9,8 % trở lên so với lần báo trước`.
pub fn describe_in(rule: &TriggerRule, currency: Option<&str>, vi: bool) -> String {
    let field = field_of(rule);
    let shown = |v: &RuleValue| match (field, number_of(v)) {
        ("price", Some(n)) => money(n, currency),
        _ => value_text(v),
    };
    let value = rule.value.as_ref().map(shown).unwrap_or_default();
    let name = match (vi, field) {
        (true, "price") => "giá",
        (true, "in_stock") => "còn hàng",
        _ => field,
    };
    match (rule.op, vi) {
        (TriggerOp::Lt, _) => format!("{name} < {value}"),
        (TriggerOp::Le, _) => format!("{name} ≤ {value}"),
        (TriggerOp::Gt, _) => format!("{name} > {value}"),
        (TriggerOp::Ge, _) => format!("{name} ≥ {value}"),
        (TriggerOp::Eq, _) => format!("{name} = {value}"),
        (TriggerOp::Ne, _) => format!("{name} ≠ {value}"),
        (TriggerOp::Contains, false) => format!("{name} contains \"{value}\""),
        (TriggerOp::Contains, true) => format!("{name} có \"{value}\""),
        (TriggerOp::Changed, false) => format!("{name} changed"),
        (TriggerOp::Changed, true) => format!("{name} đã thay đổi"),
        (TriggerOp::DropPct, _) => {
            let pct = rule.value.as_ref().map(value_text).unwrap_or_default();
            match (rule.against.unwrap_or_default(), vi) {
                (DropAgainst::Created, false) => format!("price down {pct} % or more since the watch was created"),
                (DropAgainst::LastAlert, false) => format!("price down {pct} % or more since the last alert"),
                (DropAgainst::Created, true) => {
                    format!("giá giảm {} % trở lên so với lúc bắt đầu theo dõi", pct.replace('.', ","))
                }
                (DropAgainst::LastAlert, true) => {
                    format!("giá giảm {} % trở lên so với lần báo trước", pct.replace('.', ","))
                }
            }
        }
        (TriggerOp::AllTimeLow, false) => "lowest price ever seen".to_owned(),
        (TriggerOp::AllTimeLow, true) => "giá thấp nhất từng thấy".to_owned(),
        (TriggerOp::BackInStock, false) => "back in stock".to_owned(),
        (TriggerOp::BackInStock, true) => "có hàng lại".to_owned(),
    }
}

const EPSILON: f64 = 1e-9;

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => super::money::parse_amount(s).map(|(a, _)| a),
        _ => None,
    }
}

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.as_f64().map(number_text).unwrap_or_else(|| n.to_string()),
        other => other.to_string(),
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => {
            as_number(a).zip(as_number(b)).is_some_and(|(x, y)| (x - y).abs() <= EPSILON * x.abs().max(1.0))
        }
        _ => fold(&as_text(a)) == fold(&as_text(b)),
    }
}

/// Whether the rule holds on `reading`; `None` when it cannot be told (the
/// field was not read): the rule's state is then left as it was.
fn holds(rule: &TriggerRule, reading: &Reading, memory: &Memory) -> Option<bool> {
    let field = field_of(rule);
    let current = reading.get(field);
    match rule.op {
        TriggerOp::Lt | TriggerOp::Le | TriggerOp::Gt | TriggerOp::Ge => {
            let x = as_number(&current?)?;
            let y = number_of(rule.value.as_ref()?)?;
            Some(match rule.op {
                TriggerOp::Lt => x < y - EPSILON,
                TriggerOp::Le => x <= y + EPSILON,
                TriggerOp::Gt => x > y + EPSILON,
                _ => x >= y - EPSILON,
            })
        }
        TriggerOp::Eq | TriggerOp::Ne => {
            let current = current?;
            let wanted = match rule.value.as_ref()? {
                RuleValue::Number(n) => Value::from(*n),
                RuleValue::Text(t) => match (&current, number_of(&RuleValue::Text(t.clone()))) {
                    (Value::Number(_), Some(n)) => Value::from(n),
                    _ => Value::String(t.clone()),
                },
            };
            let eq = same(&current, &wanted);
            Some(if rule.op == TriggerOp::Eq { eq } else { !eq })
        }
        TriggerOp::Contains => {
            let wanted = value_text(rule.value.as_ref()?);
            Some(fold(&as_text(&current?)).contains(&fold(&wanted)))
        }
        TriggerOp::Changed => {
            let current = current?;
            match memory.previous.as_ref().and_then(|p| p.get(field)) {
                Some(before) => Some(!same(&before, &current)),
                None => Some(false),
            }
        }
        TriggerOp::DropPct => {
            let price = reading.price?;
            let pct = number_of(rule.value.as_ref()?)?;
            let reference = match rule.against.unwrap_or_default() {
                DropAgainst::Created => memory.baseline_price,
                DropAgainst::LastAlert => memory.last_alerted_price.or(memory.baseline_price),
            };
            Some(reference.is_some_and(|r| r > 0.0 && price <= r * (1.0 - pct / 100.0) + EPSILON))
        }
        TriggerOp::AllTimeLow => {
            let price = reading.price?;
            Some(memory.all_time_low.is_some_and(|low| price < low - EPSILON))
        }
        TriggerOp::BackInStock => reading.in_stock,
    }
}

/// The value a firing is keyed on.
fn fired_value(rule: &TriggerRule, reading: &Reading) -> String {
    match reading.get(field_of(rule)) {
        Some(v) => as_text(&v),
        None => String::new(),
    }
}

/// Evaluates `rules` on a trusted `reading`. Pure: the caller stores the
/// new states with the observation and the alerts, in one transaction.
pub fn evaluate(rules: &[TriggerRule], reading: &Reading, memory: &Memory) -> Evaluation {
    let mut out = Evaluation {
        baseline_price: memory.baseline_price.or(reading.price),
        all_time_low: match (memory.all_time_low, reading.price) {
            (Some(low), Some(p)) => Some(low.min(p)),
            (low, p) => low.or(p),
        },
        ..Evaluation::default()
    };
    // The first reading is the baseline of the drop rules.
    let memory = Memory { baseline_price: out.baseline_price, ..memory.clone() };
    for rule in rules {
        let key = rule_key(rule);
        let mut state = memory.states.get(&key).copied().unwrap_or_default();
        match holds(rule, reading, &memory) {
            None => {}
            Some(false) => state.armed = true,
            Some(true) if rule.op == TriggerOp::BackInStock && memory.previous.is_none() => {
                // In stock at the first check: nothing came back.
                state.armed = false;
            }
            Some(true) if state.armed && !memory.cooling_down => {
                state.armed = false;
                state.fired += 1;
                out.fired.push(Firing {
                    key: key.clone(),
                    rule: rule.clone(),
                    value: format!("{}#{}", fired_value(rule, reading), state.fired),
                    description: describe(rule, reading.currency.as_deref()),
                    on_price: field_of(rule) == "price",
                });
            }
            Some(true) => {}
        }
        out.states.insert(key, state);
    }
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn rule(v: Value) -> TriggerRule {
        serde_json::from_value(v).unwrap()
    }

    fn price(p: f64) -> Reading {
        Reading { price: Some(p), currency: Some("VND".into()), ..Reading::default() }
    }

    /// Runs `rules` over successive readings as the engine does, returning
    /// the keys fired at each check.
    fn run(rules: &[TriggerRule], readings: &[Reading], cooldown_at: &[usize]) -> Vec<Vec<String>> {
        let mut memory = Memory::default();
        let mut out = Vec::new();
        for (i, r) in readings.iter().enumerate() {
            memory.cooling_down = cooldown_at.contains(&i);
            let e = evaluate(rules, r, &memory);
            if let Some(f) = e.fired.iter().find(|f| f.on_price) {
                memory.last_alerted_price = r.price;
                let _ = f;
            }
            out.push(e.fired.iter().map(|f| format!("{} {}", f.key, f.value)).collect());
            memory.states = e.states;
            memory.all_time_low = e.all_time_low;
            memory.baseline_price = e.baseline_price;
            memory.previous = Some(r.clone());
        }
        out
    }

    #[test]
    fn comparisons_fire_on_the_first_check_and_re_arm() {
        let rules = [rule(json!({"op": "<=", "value": 19_990_000}))];
        let got = run(&rules, &[price(19_000_000.0), price(19_000_000.0), price(21e6), price(19_990_000.0)], &[]);
        assert_eq!(
            got,
            vec![
                vec!["price<=19990000 19000000#1".to_string()],
                vec![],
                vec![],
                vec!["price<=19990000 19990000#2".to_string()]
            ]
        );
    }

    #[test]
    fn every_comparison_operator() {
        let cases =
            [("<", 10.0, 9.0, true), ("<", 10.0, 10.0, false), ("<=", 10.0, 10.0, true), (">", 10.0, 10.0, false)];
        for (op, v, p, want) in cases {
            let r = rule(json!({"op": op, "value": v}));
            let e = evaluate(&[r], &price(p), &Memory::default());
            assert_eq!(!e.fired.is_empty(), want, "{op} {v} on {p}");
        }
        for (op, v, p, want) in [(">=", 10.0, 10.0, true), (">=", 10.0, 9.99, false), ("==", 10.0, 10.0, true)] {
            let e = evaluate(&[rule(json!({"op": op, "value": v}))], &price(p), &Memory::default());
            assert_eq!(!e.fired.is_empty(), want, "{op} {v} on {p}");
        }
        // A money text compares as its amount.
        let e =
            evaluate(&[rule(json!({"op": "<", "value": "19.990.000 ₫"}))], &price(19_989_999.0), &Memory::default());
        assert_eq!(e.fired.len(), 1);
    }

    #[test]
    fn drop_against_creation_and_last_alert() {
        let created = rule(json!({"op": "drop_pct", "value": 10}));
        let got = run(std::slice::from_ref(&created), &[price(100.0), price(95.0), price(90.0), price(80.0)], &[]);
        assert_eq!(got[3], Vec::<String>::new(), "still true since 90: no second alert");
        assert_eq!(got[2], vec!["price drop>=10% vs created 90#1".to_string()]);
        let last = rule(json!({"op": "drop_pct", "value": 10, "against": "last_alert"}));
        let got = run(&[last], &[price(100.0), price(90.0), price(85.0), price(81.0), price(80.0)], &[]);
        let fired: Vec<usize> = got.iter().enumerate().filter(|(_, f)| !f.is_empty()).map(|(i, _)| i).collect();
        // 90 is 10 % under 100; 81 is 10 % under 90 (the last alert).
        assert_eq!(fired, vec![1, 3]);
    }

    #[test]
    fn all_time_low_back_in_stock_and_changed() {
        let low = rule(json!({"op": "all_time_low"}));
        let got = run(&[low], &[price(100.0), price(90.0), price(90.0), price(95.0), price(89.0)], &[]);
        let fired: Vec<usize> = got.iter().enumerate().filter(|(_, f)| !f.is_empty()).map(|(i, _)| i).collect();
        assert_eq!(fired, vec![1, 4]);

        let stock = |s| Reading { in_stock: Some(s), ..Reading::default() };
        let back = rule(json!({"op": "back_in_stock"}));
        let got = run(std::slice::from_ref(&back), &[stock(true), stock(false), stock(true), stock(true)], &[]);
        assert_eq!(got, vec![vec![], vec![], vec!["back_in_stock true#1".to_string()], vec![]]);
        let got = run(&[back], &[stock(false), stock(true)], &[]);
        assert_eq!(got[1].len(), 1);

        let trip = |status: &str, gate: &str| Reading {
            fields: json!({"status": status, "gate": gate}).as_object().cloned().unwrap(),
            ..Reading::default()
        };
        let rules =
            [rule(json!({"op": "changed", "field": "status"})), rule(json!({"op": "changed", "field": "gate"}))];
        let got = run(
            &rules,
            &[trip("On time", "A1"), trip("on time", "A1"), trip("Delayed", "A1"), trip("Delayed", "B4")],
            &[],
        );
        assert_eq!(
            got,
            vec![vec![], vec![], vec!["status changed Delayed#1".to_string()], vec!["gate changed B4#1".to_string()]]
        );
        let contains = rule(json!({"op": "contains", "field": "status", "value": "delay"}));
        assert_eq!(evaluate(&[contains], &trip("Delayed 40 min", "A1"), &Memory::default()).fired.len(), 1);
    }

    #[test]
    fn cooldown_holds_a_rule_armed_and_unknown_fields_change_nothing() {
        let rules = [rule(json!({"op": "<", "value": 50}))];
        let got = run(&rules, &[price(40.0), price(60.0), price(40.0), price(40.0)], &[2]);
        assert_eq!(got, vec![vec!["price<50 40#1".to_string()], vec![], vec![], vec!["price<50 40#2".to_string()]]);

        let mut memory = Memory::default();
        memory.states.insert("price<50".into(), RuleState { armed: false, fired: 1 });
        let e = evaluate(&rules, &Reading::default(), &memory);
        assert_eq!(e.states["price<50"], RuleState { armed: false, fired: 1 });
    }

    #[test]
    fn rules_are_checked() {
        for bad in [
            json!({"op": "<="}),
            json!({"op": "<=", "value": "cheap"}),
            json!({"op": "drop_pct", "value": 0}),
            json!({"op": "drop_pct", "value": 120}),
            json!({"op": "all_time_low", "value": 3}),
            json!({"op": "<", "value": 3, "against": "created"}),
            json!({"op": "changed", "field": " "}),
        ] {
            assert!(check_rule(&rule(bad.clone())).is_err(), "{bad}");
        }
        for good in [
            json!({"op": "<=", "value": "19.990.000 ₫"}),
            json!({"op": "changed", "field": "gate"}),
            json!({"op": "drop_pct", "value": 5, "against": "last_alert"}),
            json!({"op": "==", "field": "status", "value": "Boarding"}),
        ] {
            assert!(check_rule(&rule(good.clone())).is_ok(), "{good}");
        }
        assert_eq!(
            describe(&rule(json!({"op": "<=", "value": 19_990_000})), Some("VND")),
            "price ≤ 19.990.000 ₫".to_string()
        );
    }
}
