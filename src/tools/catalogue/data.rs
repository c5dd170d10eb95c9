//! Search, the user's data (profile, files), auth, watches and
//! notifications. The six tools that run today (normalize_compare, the
//! profile and files tools) take their types from `catalogue::{files, profile}` and `crate::compare`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::capture::ExtractFieldType;
use super::common::FREQUENCY_PATTERN;
use super::files::{FileOutput, FilesGetArgs, FilesGetOutput, FilesStoreArgs, FilesTagArgs};
use super::profile::{UserProfileGetArgs, UserProfileGetOutput, UserProfileSetArgs, UserProfileSetOutput};
use super::{Decl, declare};
use crate::compare::{NormalizeCompareArgs, NormalizeCompareOutput};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolKind, ToolSpec};

/// Arguments of `web_search`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchArgs {
    /// What to search for, in any language (e.g. `carry-on size ANA 2025`).
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// BCP 47 locale for results, e.g. `vi-VN` or `en-US`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$"))]
    pub locale: Option<String>,
    /// How many results to return.
    #[serde(default = "default_max_results")]
    #[schemars(range(min = 1, max = 20))]
    pub max_results: u8,
}

fn default_max_results() -> u8 {
    10
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct SearchResult {
    pub title: String,
    /// The page (tracking parameters and fragment removed).
    pub url: String,
    /// The provider's excerpt of the page.
    pub snippet: String,
    /// The provider that found it: `searxng`, `brave` or `duckduckgo`.
    pub source: String,
    /// Its place in the results, from 1.
    pub rank: u32,
}

/// `data` of `web_search`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WebSearchOutput {
    /// Best first, each page once.
    pub results: Vec<SearchResult>,
    /// The provider that answered.
    pub provider: String,
    /// The locale searched, e.g. `vi-VN`.
    pub locale: String,
    /// Providers skipped or failed before this one, and why.
    pub notes: Vec<String>,
}

/// Arguments of `auth_oauth_connect`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthOauthConnectArgs {
    /// The provider to connect, lowercase (e.g. `google`, `github`, `microsoft`).
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_-]*$"))]
    pub provider: String,
    /// The scopes to request, as the provider names them
    /// (e.g. `["youtube.upload", "openid", "email"]`). Ask for the fewest needed.
    #[schemars(length(min = 1), inner(length(min = 1)))]
    pub scopes: Vec<String>,
}

/// `data` of `auth_oauth_connect`. Tokens never appear: they stay in the OS keyring.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct AuthOauthConnectOutput {
    pub provider: String,
    /// The account connected (e-mail, login or subject).
    pub account: String,
    /// The scopes the user actually granted (may be fewer than asked).
    pub scopes_granted: Vec<String>,
    /// `connected`, or `partial` when some scopes asked for were not granted.
    pub status: AccountStatus,
}

/// What a watch looks at.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchTarget {
    /// The page to check (product, booking status, flight status).
    #[schemars(url)]
    pub url: String,
    /// The element to read (e.g. `#price`, or the product's box on a page
    /// listing several products); omit to read the whole page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// Extra fields to read besides price, currency and stock, as for
    /// `browser_extract`, e.g. `{"status": "string", "gate": "string",
    /// "departure_time": "string"}` for a flight.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub schema: BTreeMap<String, ExtractFieldType>,
}

/// Comparison of a trigger rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum TriggerOp {
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
    #[serde(rename = "changed")]
    Changed,
    #[serde(rename = "contains")]
    Contains,
    #[serde(rename = "drop_pct")]
    DropPct,
    #[serde(rename = "all_time_low")]
    AllTimeLow,
    #[serde(rename = "back_in_stock")]
    BackInStock,
}

/// What a `drop_pct` rule measures the drop against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DropAgainst {
    #[default]
    Created,
    LastAlert,
}

/// The value a rule compares with: a number or a text.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RuleValue {
    Number(f64),
    Text(String),
}

/// `{"type": ["number", "string", "null"]}`: flatter than the `anyOf`
/// schemars derives for an optional untagged enum.
fn number_or_text(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": ["number", "string", "null"]})
}

/// One trigger rule: the watch alerts when a rule becomes true (again only
/// after it was false).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TriggerRule {
    /// `<`, `<=`, `>`, `>=`, `==`, `!=` compare the field with `value`;
    /// `contains` holds when its text contains `value`; `changed` when it
    /// differs from the previous check (no `value`); `drop_pct` when the
    /// price dropped by at least `value` percent (see `against`);
    /// `all_time_low` when the price is lower than ever; `back_in_stock`
    /// when the product is in stock again.
    pub op: TriggerOp,
    /// What to compare with: a number (prices are parsed, so `19.990.000 ₫`
    /// compares as `19990000`), a text, or the percentage of `drop_pct`.
    /// Required for every op except `changed`, `all_time_low` and
    /// `back_in_stock` (checked at execution).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "number_or_text")]
    pub value: Option<RuleValue>,
    /// The field the rule reads: `price` (default), `in_stock`, `currency`
    /// or a field of the target's `schema` (e.g. `status`, `gate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// `drop_pct` only: `created` (the price when the watch was created,
    /// default) or `last_alert` (the price of the last price alert).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against: Option<DropAgainst>,
}

/// When a watch checks: never before `start`, never after `end` (RFC 3339).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchWindow {
    /// The first check is not before this time (RFC 3339), e.g. `2026-02-09T00:00:00+07:00`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub start: Option<String>,
    /// No check after this time (RFC 3339), e.g. the flight's departure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub end: Option<String>,
}

/// Arguments of `watch_create`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchCreateArgs {
    /// The page and element to watch.
    pub target: WatchTarget,
    /// The watch alerts when a rule becomes true.
    #[schemars(length(min = 1))]
    pub trigger_rules: Vec<TriggerRule>,
    /// How often to check: a number and a unit, `m` (minutes), `h` (hours)
    /// or `d` (days), e.g. `30m`, `6h`, `1d`.
    #[schemars(regex(pattern = FREQUENCY_PATTERN))]
    pub frequency: String,
    /// A short name shown in notifications, e.g. "Laptop ABC price".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Only check within this window (e.g. until a flight leaves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WatchWindow>,
    /// The least time between two alerts of this watch, like `frequency`
    /// (`0m` for none); default `1h`. Broken/recovered alerts ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+(m|h|d)$"))]
    pub cooldown: Option<String>,
    /// Check now (default): the first reading is returned, and rules are
    /// evaluated on it (a price already under the target alerts at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_now: Option<bool>,
}

/// A watch's health: `ok`, `degraded` (the last reading could not be
/// trusted, or a check failed: rules wait) or `broken` (the page is gone, or
/// checks failed 3 times in a row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, Serialize, JsonSchema, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum WatchHealth {
    #[default]
    Ok,
    Degraded,
    Broken,
}

/// `data` of `watch_create`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchCreateOutput {
    pub watch_id: String,
    /// The value read at creation (the price, else the fields), the baseline
    /// for `changed` and `drop_pct`.
    pub current_value: Option<Value>,
    /// When the next check runs (RFC 3339).
    pub next_check_at: String,
    /// The first check, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<WatchCheck>,
}

/// Arguments of `watch_poll`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchPollArgs {
    /// Check this watch now; omit to check every watch that is due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_id: Option<String>,
    /// With no `watch_id`: check every active watch, due or not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
}

/// A rule that fired on a check (its alert is sent once).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct FiredRule {
    /// The rule's key, e.g. `price<=19990000`, `status changed`, `health:broken`.
    pub rule: String,
    /// What it says, e.g. `price ≤ 19.990.000 ₫`.
    pub description: String,
    /// The alert's text.
    pub message: String,
}

/// The result of checking one watch.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchCheck {
    pub watch_id: String,
    /// When it was checked (RFC 3339).
    pub checked_at: String,
    /// The price read (in the currency's main unit), if any.
    pub price: Option<f64>,
    /// ISO 4217 code of the price.
    pub currency: Option<String>,
    /// Whether the product is in stock, when the page says.
    pub in_stock: Option<bool>,
    /// The target schema's fields read (e.g. `status`, `gate`).
    pub fields: Map<String, Value>,
    /// The rules that fired on this check (each alerts once).
    pub fired_rules: Vec<FiredRule>,
    pub health: WatchHealth,
    /// How the page was read: `http` (a plain fetch) or `browser` (the
    /// managed Chromium, for pages drawn by script).
    pub method: Option<String>,
    /// The value read (the price, else the fields), absent when the check failed.
    pub value: Option<Value>,
    /// True when a trigger rule fired.
    pub triggered: bool,
    /// Why the check failed or the reading was not trusted, if so.
    pub error: Option<String>,
}

/// `data` of `watch_poll`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WatchPollOutput {
    pub checks: Vec<WatchCheck>,
}

/// Where a notification goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum NotifyChannel {
    #[serde(rename = "push")]
    Push,
    #[serde(rename = "in-app")]
    InApp,
    #[serde(rename = "email")]
    Email,
}

/// Arguments of `notify_send`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotifySendArgs {
    /// `push` (native desktop notification), `in-app` (Halley's panel) or
    /// `email` (to the user's own address).
    pub channel: NotifyChannel,
    /// Short title, e.g. "Giá đã giảm" / "Price dropped".
    #[schemars(length(min = 1, max = 120))]
    pub title: String,
    /// The message body.
    #[schemars(length(min = 1, max = 2000))]
    pub message: String,
    /// A page to open when the user clicks the notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(url)]
    pub url: Option<String>,
}

/// `data` of `notify_send`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct NotifySendOutput {
    pub notification_id: String,
    /// False when the channel is unavailable (e.g. notifications disabled).
    pub delivered: bool,
}

pub(super) fn tools() -> Vec<ToolSpec> {
    use Risk::*;
    use Scope::*;
    let primitive = |name, scope, risk, confirm, needs, description| Decl {
        name,
        kind: ToolKind::Primitive,
        scope,
        risk,
        confirm,
        needs,
        description,
    };
    vec![
        declare::<WebSearchArgs, WebSearchOutput>(primitive(
            "web_search",
            ReadOnly,
            Low,
            false,
            None,
            "Search the web (SearXNG, Brave or DuckDuckGo, as the user set it up). Set `locale` (e.g. `vi-VN`) for local results; a Vietnamese query is searched in Vietnam by default. Returns ranked results with title, URL and snippet, each page once, the provider that answered and notes on those that failed.",
        )),
        declare::<NormalizeCompareArgs, NormalizeCompareOutput>(primitive(
            "normalize_compare",
            ReadOnly,
            Low,
            false,
            None,
            "Normalise offers scraped from different sources onto one schema (synonyms, units, currencies, number formats like `21.490.000 ₫`) so they can be compared. Returns each item normalised, its missing fields, and a ranking.",
        )),
        declare::<UserProfileGetArgs, UserProfileGetOutput>(primitive(
            "user_profile_get",
            ReadOnly,
            Medium,
            false,
            None,
            "Read the user's saved preferences and constraints by dotted key (e.g. `travel.preferred_airlines`, `shopping.budget_vnd`); a prefix like `travel` reads every key below it. Returns the values found and the keys missing.",
        )),
        declare::<UserProfileSetArgs, UserProfileSetOutput>(primitive(
            "user_profile_set",
            WriteNonDestructive,
            Medium,
            false,
            None,
            "Save the user's preferences as dotted key → JSON value (e.g. `{\"shopping.budget_vnd\": 25000000}`), or remove keys. Only save what the user said or confirmed.",
        )),
        declare::<FilesStoreArgs, FileOutput>(primitive(
            "files_store",
            WriteNonDestructive,
            Medium,
            false,
            None,
            "Keep a copy of a local file (passport scan, booking PDF, media) in Halley's store with tags and a note. Returns the stored file with its id, for `files_get` or `browser_upload_file`.",
        )),
        declare::<FilesGetArgs, FilesGetOutput>(primitive(
            "files_get",
            ReadOnly,
            Medium,
            false,
            None,
            "Find stored files by id, or by tags (files carrying all of them). Returns the files with their `file://` refs.",
        )),
        declare::<FilesTagArgs, FileOutput>(primitive(
            "files_tag",
            WriteNonDestructive,
            Medium,
            false,
            None,
            "Add or remove tags and set the note of a stored file, chosen by id or by the path it was stored from. Returns the updated file.",
        )),
        declare::<AuthOauthConnectArgs, AuthOauthConnectOutput>(primitive(
            "auth_oauth_connect",
            Submit,
            High,
            true,
            None,
            "Connect the user's account at a provider (`google`, `github`, `microsoft`, or `oidc` for the OpenID issuer the user set up) through OAuth in the browser, asking for the given scopes (Google's short names allowed, e.g. `youtube.upload`). The user confirms first and signs in; tokens stay in the OS keyring and never come back. Returns the account, the scopes granted and the status (`partial` when the user granted fewer scopes).",
        )),
        declare::<WatchCreateArgs, WatchCreateOutput>(primitive(
            "watch_create",
            ReadOnly,
            Low,
            false,
            None,
            "Watch a page (price, stock, booking or flight status) on a schedule and alert the user once when a rule becomes true, e.g. `{\"op\": \"<=\", \"value\": 19990000}` for a price at or under 19,990,000 VND; also `drop_pct`, `all_time_low`, `back_in_stock`, and `changed` on a field of `target.schema` (a flight's `status`, `gate`). Checks at once: a price already under the target alerts now. Returns the watch id and the first reading.",
        )),
        declare::<WatchPollArgs, WatchPollOutput>(primitive(
            "watch_poll",
            ReadOnly,
            Low,
            false,
            None,
            "Check one watch now, or every watch that is due (`all`: every active one). Returns each reading (price, currency, stock, fields), the rules that fired (each alerts once) and the watch's health.",
        )),
        declare::<NotifySendArgs, NotifySendOutput>(primitive(
            "notify_send",
            WriteNonDestructive,
            Low,
            false,
            None,
            "Notify the user: `push` (a native desktop notification, also kept in Halley's inbox) or `in-app` (the inbox only), with a title, a message and an optional link. `email` is not available. Returns whether it was delivered.",
        )),
    ]
}

/// An account's standing.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, sqlx::Type, schemars::JsonSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[sqlx(rename_all = "snake_case")]
pub enum AccountStatus {
    /// Every scope asked for was granted.
    Connected,
    /// Connected, but the user granted fewer scopes than asked for.
    Partial,
    /// The provider refused the refresh token (`invalid_grant`): connect again.
    NeedsReconnect,
}
