//! The tools around `watch_create` / `watch_poll` that users expect (not in
//! tools.md's tables): list, pause, resume, edit, delete (DESTRUCTIVE, so
//! the gate asks) and history.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::capture::ExtractFieldType;
use super::data::{TriggerRule, WatchHealth, WatchWindow};
use super::{Decl, declare};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolSpec};

/// Arguments of `watch_list`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchListArgs {
    /// How many watches, newest first.
    #[serde(default = "default_list_limit")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: u32,
}

fn default_list_limit() -> u32 {
    200
}

/// A watch as the watch tools show it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchSummary {
    pub watch_id: String,
    /// The name notifications give it (empty: the product's name is used).
    pub label: String,
    /// The product's name as its page last gave it (what notifications say
    /// when it has no label), so a list names it as its alerts do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub url: String,
    pub selector: Option<String>,
    /// The extra fields it reads.
    pub schema: BTreeMap<String, ExtractFieldType>,
    pub trigger_rules: Vec<TriggerRule>,
    /// e.g. `6h`.
    pub frequency: String,
    /// e.g. `1h`; `0m` for none.
    pub cooldown: String,
    pub window: Option<WatchWindow>,
    /// `active` or `paused`.
    pub status: String,
    pub health: WatchHealth,
    /// Why the last check failed or was not trusted.
    pub last_error: Option<String>,
    /// `http` or `browser`, once a check worked.
    pub check_method: Option<String>,
    pub last_checked_at: Option<String>,
    pub next_check_at: String,
    pub price: Option<f64>,
    pub currency: Option<String>,
    pub in_stock: Option<bool>,
    pub fields: Map<String, Value>,
    /// The first price read.
    pub baseline_price: Option<f64>,
    pub all_time_low: Option<f64>,
    pub last_alerted_price: Option<f64>,
    /// Until then its alerts reach the inbox only, no notification (the
    /// notification's "Snooze 1 day"); `None` when not snoozed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snoozed_until: Option<String>,
    pub created_at: String,
}

/// `data` of `watch_list`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchListOutput {
    pub watches: Vec<WatchSummary>,
    /// Alerts not read yet (the tray's count).
    pub unread_alerts: i64,
}

/// Arguments of the tools that act on one watch.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchIdArgs {
    /// The watch, as `watch_create` or `watch_list` gave it.
    #[schemars(length(min = 1))]
    pub watch_id: String,
}

/// Arguments of `watch_update`: what to change (the rest stays).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchUpdateArgs {
    /// The watch to edit.
    #[schemars(length(min = 1))]
    pub watch_id: String,
    /// A new label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// New rules (replace all of them; rules kept as they were keep their state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub trigger_rules: Option<Vec<TriggerRule>>,
    /// A new frequency, e.g. `30m`, `6h`, `1d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = super::FREQUENCY_PATTERN))]
    pub frequency: Option<String>,
    /// A new element to read (empty text: the whole page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// New extra fields to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<BTreeMap<String, ExtractFieldType>>,
    /// A new time window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WatchWindow>,
    /// A new cooldown, e.g. `1h`, `0m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+(m|h|d)$"))]
    pub cooldown: Option<String>,
}

/// `data` of `watch_delete`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchDeleteOutput {
    pub watch_id: String,
    pub deleted: bool,
}

/// Arguments of `watch_history`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchHistoryArgs {
    /// The watch.
    #[schemars(length(min = 1))]
    pub watch_id: String,
    /// How many checks and alerts, newest first.
    #[serde(default = "default_history_limit")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: u32,
}

fn default_history_limit() -> u32 {
    50
}

/// One check in a watch's history.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchObservation {
    pub checked_at: String,
    pub price: Option<f64>,
    pub currency: Option<String>,
    pub in_stock: Option<bool>,
    /// The reading (price, stock, fields) when it was trusted.
    pub value: Option<Value>,
    pub health: WatchHealth,
    pub method: Option<String>,
    /// Keys of the rules that fired.
    pub fired_rules: Vec<String>,
    pub error: Option<String>,
}

/// One alert (the inbox).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema, ts_rs::TS)]
pub struct WatchAlert {
    pub id: i64,
    pub watch_id: Option<String>,
    pub rule: String,
    pub title: String,
    pub message: String,
    pub created_at: String,
    /// When the native notification went out (`None`: not yet).
    pub sent_at: Option<String>,
    pub read: bool,
    /// The notification button the user pressed (`open`, `snooze`, `stop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// A routine's scheduled replay: the routine's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routine_id: Option<String>,
}

/// `data` of `watch_history`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchHistoryOutput {
    pub watch: WatchSummary,
    pub observations: Vec<WatchObservation>,
    pub alerts: Vec<WatchAlert>,
}

pub(super) fn tools() -> Vec<ToolSpec> {
    use Risk::*;
    use Scope::*;
    let primitive = Decl::primitive;
    vec![
        declare::<WatchListArgs, WatchListOutput>(primitive(
            "watch_list",
            ReadOnly,
            Low,
            false,
            "List the watches: each one's page, rules, frequency, health (ok/degraded/broken), last reading and next check, and the number of unread alerts.",
        )),
        declare::<WatchIdArgs, WatchSummary>(primitive(
            "watch_pause",
            WriteNonDestructive,
            Low,
            false,
            "Pause a watch: it is not checked until resumed. Returns the watch.",
        )),
        declare::<WatchIdArgs, WatchSummary>(primitive(
            "watch_resume",
            WriteNonDestructive,
            Low,
            false,
            "Resume a paused watch; it is checked at its next due time. Returns the watch.",
        )),
        declare::<WatchUpdateArgs, WatchSummary>(primitive(
            "watch_update",
            WriteNonDestructive,
            Low,
            false,
            "Edit a watch: its label, rules, frequency, selector, fields, window or cooldown (what is not given stays). Returns the watch.",
        )),
        declare::<WatchIdArgs, WatchDeleteOutput>(primitive(
            "watch_delete",
            Destructive,
            Medium,
            true,
            "Delete a watch: it is never checked again (its history is kept). The user confirms first.",
        )),
        declare::<WatchHistoryArgs, WatchHistoryOutput>(primitive(
            "watch_history",
            ReadOnly,
            Low,
            false,
            "A watch's history: its checks (price, stock, fields, health, rules fired) and its alerts, newest first.",
        )),
    ]
}
