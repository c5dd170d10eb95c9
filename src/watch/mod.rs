//! Watches: a page's price, stock or fields, checked on a schedule, with
//! trigger rules that alert once through a native notification and the
//! panel's inbox.
//!
//! * [`check`]: reading the page (HTTP first, the managed Chromium when the
//!   fetched page yields nothing) into a [`rules::Reading`].
//! * [`html`]: fetched HTML → `PageFacts`, for the same extraction as `browser_extract`.
//! * [`rules`]: the rules engine (pure): edge-triggered, re-armed, cooldown, idempotency keys.
//! * [`format`]: money and changes as notifications show them (`19.990.000 ₫`).
//! * [`money`]: the one money parser watches use.
//! * `plan`: a check's consequences, pure ([`plan()`]); `pass`: a
//!   `watch_poll` pass over many watches ([`poll`]).
//!
//! A check ([`check_watch`]) reads the page, works out the watch's health
//! and, on a trusted reading, the rules (a price or stock state read with
//! less than [`TRUSTED`] confidence is kept, and its rules wait); then writes the observation, the
//! watch's new state and the alerts in ONE transaction
//! (`Watches::apply_check`), and sends the alerts not sent yet
//! ([`crate::notify::deliver_pending`]).

pub mod check;
pub mod format;
mod hold;
pub mod html;
pub mod money;
mod pass;
mod plan;
pub mod rules;
pub mod tools;

use std::collections::BTreeMap;

use crate::error::{Error, ErrorCode, Result};
use crate::handler::Services;
use crate::store::watches::{WatchRow, WatchStatus};
// The tests (`use super::*`) read the health a plan reports, now in `plan`.
#[cfg(test)]
use crate::store::watches::WatchHealth;
use crate::store::{Store, now};
use crate::tools::catalogue::capture::ExtractFieldType;
use crate::tools::catalogue::data::{TriggerOp, TriggerRule, WatchCheck};
use check::{Method, Outcome, Target};
pub use pass::poll;
pub use plan::{Planned, plan};

/// Checks failing in a row before a watch counts as broken.
pub const BROKEN_AFTER: i64 = 3;

/// The least confidence of a price or stock state a watch's rules act on.
/// Extraction gives a field from 0.3 (`MIN_CONFIDENCE` of
/// `browser::extract`); below this one it comes from loose text or from a
/// page that contradicts itself (a conflict costs 0.15 to 0.3), so the
/// reading is kept, the watch's health says why, and the rules on that
/// field wait (neither fire nor re-arm) until a trusted reading.
pub const TRUSTED: f64 = 0.7;

/// `30m`, `6h`, `1d` → seconds; `allow_zero` for cooldowns (`0m`).
pub fn parse_period(text: &str, allow_zero: bool) -> Result<i64> {
    let bad = || {
        Error::invalid_arguments(format!(
            "bad frequency {text:?}: write a number and a unit, `m` (minutes), `h` (hours) or `d` (days), e.g. `30m`, `6h`, `1d` (or in words: `1 ngày`, `every 6 hours`)"
        ))
    };
    let t = text.trim();
    // The last character's start: `2 giờ` ends in a two-byte letter.
    let (num, unit) = t.split_at(t.char_indices().next_back().map_or(0, |(i, _)| i));
    let (n, secs): (i64, i64) = match (num.parse(), unit) {
        (Ok(n), "m") => (n, 60),
        (Ok(n), "h") => (n, 3600),
        (Ok(n), "d") => (n, 86_400),
        _ => period_in_words(t).ok_or_else(bad)?,
    };
    if n < 0 || (n == 0 && !allow_zero) || n > 3650 * 24 * 60 {
        return Err(bad());
    }
    Ok(n * secs)
}

/// A period as a person writes it, in Vietnamese or English: `1 ngày`,
/// `mỗi 2 giờ`, `hằng ngày`, `30 phút`, `1 tuần`, `every 6 hours`,
/// `daily`: the count and the unit's seconds.
fn period_in_words(text: &str) -> Option<(i64, i64)> {
    let folded = crate::vocab::text::fold(text);
    let mut words: Vec<&str> = folded.split_whitespace().collect();
    if matches!(words.first(), Some(&("moi" | "hang" | "every" | "each"))) {
        words.remove(0);
    }
    let unit = |w: &str| -> Option<i64> {
        Some(match w {
            "phut" | "min" | "mins" | "minute" | "minutes" => 60,
            "gio" | "tieng" | "hr" | "hrs" | "hour" | "hours" | "hourly" => 3600,
            "ngay" | "day" | "days" | "daily" => 86_400,
            "tuan" | "wk" | "week" | "weeks" | "weekly" => 7 * 86_400,
            _ => return None,
        })
    };
    match words.as_slice() {
        [w] => unit(w).map(|secs| (1, secs)),
        [n, w] => Some((n.parse().ok()?, unit(w)?)),
        _ => None,
    }
}

/// `21600` → `6h`: the largest unit that divides it.
pub fn period_text(secs: i64) -> String {
    if secs > 0 && secs % 86_400 == 0 {
        format!("{}d", secs / 86_400)
    } else if secs > 0 && secs % 3600 == 0 {
        format!("{}h", secs / 3600)
    } else {
        format!("{}m", secs / 60)
    }
}

/// A page a watch may check: absolute `http(s)` with a host.
pub fn check_url(url: &str) -> Result<()> {
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(()),
        _ => Err(Error::invalid_arguments(format!("bad URL {url:?}: a watch checks an http:// or https:// page"))),
    }
}

/// An RFC 3339 time, as the store writes timestamps.
pub fn normalize_time(text: &str) -> Result<String> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .map_err(|_| {
            Error::invalid_arguments(format!("bad time {text:?}: use RFC 3339, e.g. 2026-02-10T08:00:00+07:00"))
        })
}

/// Whether rules of this set read the price (else the watch is about its fields).
pub fn wants_price(rules: &[TriggerRule], schema: &BTreeMap<String, ExtractFieldType>) -> bool {
    schema.is_empty()
        || rules.iter().any(|r| {
            matches!(r.op, TriggerOp::DropPct | TriggerOp::AllTimeLow | TriggerOp::BackInStock)
                || matches!(r.field.as_deref(), None | Some("price" | "in_stock" | "currency"))
        })
}

/// What extraction is asked for: price, currency, stock and name for a
/// price watch, plus the watch's own fields.
pub fn target_of(row: &WatchRow) -> Result<(Target, Vec<TriggerRule>)> {
    let rules: Vec<TriggerRule> = serde_json::from_value(row.trigger_rules.clone())
        .map_err(|e| Error::internal(format!("watch {} has unreadable rules", row.id)).with_source(e))?;
    let own: BTreeMap<String, ExtractFieldType> = serde_json::from_value(row.schema.clone()).unwrap_or_default();
    let price = wants_price(&rules, &own);
    let mut schema = BTreeMap::new();
    if price {
        schema.insert("price".to_owned(), ExtractFieldType::Number);
        schema.insert("currency".to_owned(), ExtractFieldType::String);
        schema.insert("in_stock".to_owned(), ExtractFieldType::Boolean);
    }
    schema.insert("name".to_owned(), ExtractFieldType::String);
    schema.extend(own);
    let target = Target { url: row.target_url.clone(), selector: row.selector.clone(), schema, wants_price: price };
    Ok((target, rules))
}

/// A watch that is not deleted; `not_found` (an unknown watch id) otherwise.
pub async fn get_watch(store: &Store, id: &str) -> Result<WatchRow> {
    match store.watches().get(id).await? {
        Some(row) if row.status != WatchStatus::Deleted => Ok(row),
        _ => Err(Error::new(ErrorCode::NotFound, format!("unknown watch id {id:?}; `watch_list` shows the watches"))),
    }
}

/// Checks one watch now: read the page, write the observation, state and
/// alerts in one transaction, then send the alerts not sent yet.
pub async fn check_watch(ctx: &Services, row: &WatchRow) -> Result<WatchCheck> {
    let (target, rules) = target_of(row)?;
    let known = row.check_method.as_deref().and_then(Method::parse);
    let outcome = check::read(ctx, &target, known, None).await;
    let check = finish(ctx, row, &rules, outcome).await?;
    crate::notify::deliver_pending(&ctx.store).await?;
    Ok(check)
}

/// A check's reading written: the observation, the watch's state and its
/// alerts in one transaction (sent by whoever delivers).
async fn finish(ctx: &Services, row: &WatchRow, rules: &[TriggerRule], outcome: Outcome) -> Result<WatchCheck> {
    // The alert is written in the user's language, as they read it.
    let vi = crate::notify::buttons::vietnamese(&ctx.store).await;
    let planned = plan(row, rules, outcome, &now(), vi);
    ctx.store.watches().apply_check(&row.id, &planned.write).await?;
    Ok(planned.check)
}

#[cfg(test)]
mod tests;
