//! A routine on a schedule: how often (`--every 1d`, the watches' own
//! periods), when it is due, and what a scheduled replay leaves in the
//! inbox. The host's scheduler (`host::watches`, the same pass that checks
//! the watches) claims the due ones and replays them in the background;
//! this module holds the rules, the host the running.

use serde::Serialize;

use super::replay::ReplayReport;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::routines::ScheduleRow;
use crate::store::watch_alerts::{AlertChannel, AlertRow, NewAlert};

/// `1d`, `6h`, `30m` (the watches' periods: a minute at least) to
/// seconds; `invalid_arguments` for anything else.
pub fn parse_every(text: &str) -> Result<i64> {
    crate::watch::parse_period(text, false).map_err(|_| {
        Error::invalid_arguments(format!(
            "bad period {text:?}: write a number and a unit, `m` (minutes), `h` (hours) or `d` (days), e.g. `30m`, \
             `6h`, `1d`"
        ))
    })
}

/// `86400` → `1d`.
pub fn every_text(secs: i64) -> String {
    crate::watch::period_text(secs)
}

/// The time `secs` after `at` (both RFC 3339, as the store writes them).
pub fn after(at: &str, secs: i64) -> String {
    let base = chrono::DateTime::parse_from_rfc3339(at).map_or_else(|_| chrono::Utc::now(), |t| t.to_utc());
    (base + chrono::Duration::seconds(secs)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A time of day as a person writes it (`08:00`, `8:30`, `8h30`, `20h`,
/// `8 giờ 30`) to `HH:MM`; `invalid_arguments` for anything else.
pub fn parse_at(text: &str) -> Result<String> {
    let bad = || {
        Error::invalid_arguments(format!(
            "bad time {text:?}: write hours and minutes on a 24-hour clock, e.g. `08:00` or `20:30`"
        ))
    };
    let t = text.trim().to_lowercase();
    let t = t.replace("giờ", "h").replace("phút", "");
    let t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let (h, m) = match t.split_once([':', 'h']) {
        Some((h, m)) => (h, m),
        None => (t.as_str(), ""),
    };
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.chars().all(|c| c.is_ascii_digit());
    if !digits(h) || !(m.is_empty() || digits(m)) {
        return Err(bad());
    }
    let (h, m): (u32, u32) =
        (h.parse().map_err(|_| bad())?, if m.is_empty() { 0 } else { m.parse().map_err(|_| bad())? });
    if h > 23 || m > 59 {
        return Err(bad());
    }
    Ok(format!("{h:02}:{m:02}"))
}

/// The first time at or after `now` that the clock of `tz` shows
/// `at_time` (`HH:MM`), as the store writes times (RFC 3339, UTC).
pub fn first_at<Tz: chrono::TimeZone>(tz: &Tz, at_time: &str, now: chrono::DateTime<chrono::Utc>) -> String {
    let (h, m) = at_time.split_once(':').unwrap_or(("0", "0"));
    let (h, m): (u32, u32) = (h.parse().unwrap_or(0), m.parse().unwrap_or(0));
    let local = now.with_timezone(tz).date_naive();
    let mut day = local;
    for _ in 0..3 {
        let at = day.and_hms_opt(h, m, 0).and_then(|t| t.and_local_timezone(tz.clone()).earliest());
        if let Some(at) = at.map(|t| t.to_utc())
            && at >= now
        {
            return at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        }
        day = day.succ_opt().unwrap_or(day);
    }
    now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// When a schedule's replay claimed at `now` (due at `was`) is due next:
/// on a time of day, the due time moved on by whole periods past `now`
/// (missed replays are skipped, the time of day kept); else a period
/// after `now`.
pub fn next_after(at_time: Option<&str>, every_secs: i64, was: &str, now: &str) -> String {
    let Some(_) = at_time else { return after(now, every_secs) };
    let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).map(|t| t.to_utc()).ok();
    let (Some(mut next), Some(now_t)) = (parse(was), parse(now)) else { return after(now, every_secs) };
    let step = chrono::Duration::seconds(every_secs.max(60));
    while next <= now_t {
        next += step;
    }
    next.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A schedule as the front ends show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScheduleView {
    /// `1d`, `6h`, `30m`.
    pub every: String,
    pub every_secs: i64,
    /// `HH:MM`, local time, its replays fall on (none: from when it was set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    pub paused: bool,
    /// When it runs next (none while paused).
    pub next_run_at: Option<String>,
    pub last_run_at: Option<String>,
    pub last_status: Option<String>,
    pub last_answer: Option<String>,
}

impl ScheduleView {
    pub fn of(row: &ScheduleRow) -> ScheduleView {
        ScheduleView {
            every: every_text(row.every_secs),
            every_secs: row.every_secs,
            at: row.at_time.clone(),
            paused: row.paused,
            next_run_at: (!row.paused).then(|| row.next_run_at.clone()),
            last_run_at: row.last_run_at.clone(),
            last_status: row.last_status.clone(),
            last_answer: row.last_answer.clone(),
        }
    }
}

/// What a scheduled replay tells the user, against the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The first scheduled result, or the same values as the last: to the
    /// inbox only.
    Same,
    /// The answer's values changed since the last scheduled replay: the
    /// inbox and a notification, as a watch's rule firing.
    Changed { before: String },
    /// It stopped or failed after a replay that completed (or as the
    /// first): the inbox and a notification, as a watch breaking.
    Stopped,
    /// Still stopped, as the last one: the inbox only.
    StillStopped,
}

/// Compare a scheduled replay's status and answer with the last
/// scheduled one's (`last_answer`: the last answer a scheduled replay
/// wrote, kept across replays that stopped).
pub fn outcome(last_status: Option<&str>, last_answer: Option<&str>, status: &str, answer: Option<&str>) -> Outcome {
    if status == "completed" {
        return match (last_answer, answer) {
            (Some(before), Some(now)) if before != now => Outcome::Changed { before: before.to_owned() },
            _ => Outcome::Same,
        };
    }
    match last_status {
        Some(last) if last != "completed" => Outcome::StillStopped,
        _ => Outcome::Stopped,
    }
}

/// What a scheduled replay ended with: its replay id (the alert's key),
/// status, answer, and why it stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    pub key: String,
    pub status: String,
    pub answer: Option<String>,
    pub why: Option<String>,
}

impl Ended {
    pub fn of(report: &ReplayReport) -> Ended {
        Ended {
            key: report.replay_id.clone(),
            status: report.status.clone(),
            answer: report.answer.clone(),
            why: report.stopped.as_ref().map(|s| format!("Stopped at step {} ({}): {}", s.step, s.tool, s.why)),
        }
    }
}

/// The alert a scheduled replay of `name` leaves in the inbox (a push
/// notification too when it changed or stopped), in the user's language.
/// Returns the stored row (`None`: recorded before).
pub async fn record_result(
    store: &Store,
    routine_id: &str,
    name: &str,
    ended: &Ended,
    outcome: &Outcome,
) -> Result<Option<AlertRow>> {
    let vi = crate::notify::buttons::vietnamese(store).await;
    let answer = ended.answer.clone().unwrap_or_else(|| if vi { "Đã chạy xong." } else { "Completed." }.to_owned());
    let (rule, title, body) = match outcome {
        Outcome::Changed { before } => {
            let title = if vi { format!("{name}: đã thay đổi") } else { format!("{name}: changed") };
            let was = if vi { "Trước đó" } else { "Before" };
            ("routine:changed", title, format!("{answer}\n{was}: {before}"))
        }
        Outcome::Same => ("routine:result", name.to_owned(), answer),
        Outcome::Stopped | Outcome::StillStopped => {
            let title = if vi { format!("{name}: đã dừng") } else { format!("{name}: stopped") };
            ("routine:stopped", title, ended.why.clone().unwrap_or_default())
        }
    };
    let channel = match outcome {
        Outcome::Changed { .. } | Outcome::Stopped => AlertChannel::Push,
        Outcome::Same | Outcome::StillStopped => AlertChannel::InApp,
    };
    store
        .watch_alerts()
        .insert(&NewAlert {
            watch_id: None,
            rule: rule.to_owned(),
            value: ended.key.clone(),
            title,
            body,
            url: None,
            channel,
            routine_id: Some(routine_id.to_owned()),
        })
        .await
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn periods_are_the_watches_and_never_below_the_minimum() {
        assert_eq!(parse_every("1d").unwrap(), 86_400);
        assert_eq!(parse_every("6h").unwrap(), 21_600);
        assert_eq!(parse_every(" 30m ").unwrap(), 1800);
        for bad in ["", "0m", "-1h", "1w", "abc", "5s", "0s", "1.5h"] {
            let e = parse_every(bad).unwrap_err();
            assert_eq!(e.code(), crate::error::ErrorCode::InvalidArguments, "{bad}");
        }
        assert_eq!(every_text(86_400), "1d");
        assert_eq!(every_text(90 * 60), "90m");
        assert_eq!(after("2026-01-01T00:00:00.000Z", 3600), "2026-01-01T01:00:00.000Z");
    }

    #[test]
    fn only_a_change_or_a_new_stop_is_told() {
        assert_eq!(outcome(None, None, "completed", Some("19.990.000 ₫")), Outcome::Same);
        assert_eq!(outcome(Some("completed"), Some("a"), "completed", Some("a")), Outcome::Same);
        assert_eq!(
            outcome(Some("completed"), Some("a"), "completed", Some("b")),
            Outcome::Changed { before: "a".into() }
        );
        assert_eq!(outcome(Some("stopped"), None, "completed", Some("b")), Outcome::Same);
        // Across a stop, compared with the last answer a replay wrote.
        assert_eq!(
            outcome(Some("stopped"), Some("a"), "completed", Some("b")),
            Outcome::Changed { before: "a".into() }
        );
        assert_eq!(outcome(Some("completed"), Some("a"), "stopped", None), Outcome::Stopped);
        assert_eq!(outcome(None, None, "failed", None), Outcome::Stopped);
        assert_eq!(outcome(Some("stopped"), None, "stopped", None), Outcome::StillStopped);
    }
}
