//! `creator_plan_calendar`: a content calendar. The slots are computed by
//! code from the cadence in the user's time zone (profile key `time_zone`,
//! else Asia/Ho_Chi_Minh), the pillars rotate over them, the model writes
//! a working title per slot and a backlog from the pillars and the stored
//! research notes (files tagged `creator-research`), and the calendar is
//! kept in the files store as an iCalendar file (RFC 5545). Without a
//! model the titles say which pillar each slot is for, and a note says so.

use std::fmt::Write as _;

use futures::future::BoxFuture;
use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Skill, stored_text};
use crate::builtin::files::FilesGetOutput;
use crate::builtin::profile::UserProfileGetOutput;
use crate::error::{Error, Result};
use crate::tools::ToolOutput;
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::creator::{CalendarSlot, CreatorPlanCalendarArgs, CreatorPlanCalendarOutput};

pub const NAME: &str = "creator_plan_calendar";
/// The zone when the profile names none.
pub const DEFAULT_TIME_ZONE: &str = "Asia/Ho_Chi_Minh";
/// The tag of the research notes the titles are written from.
pub const RESEARCH_TAG: &str = "creator-research";
/// The tag of the calendars kept in the files store.
pub const CALENDAR_TAG: &str = "creator-calendar";
/// A post's time when there is one a day or fewer and none is given.
const DEFAULT_TIME: (i8, i8) = (19, 0);
/// How much of each research note the model is shown.
const NOTE_CHARS: usize = 4000;
/// How many research notes are read at most.
const NOTES: u32 = 5;

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    super::typed(NAME, args, move |a: CreatorPlanCalendarArgs| plan(skill, a))
}

/// How often to post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cadence {
    PerDay(u32),
    PerWeek(u32),
    PerMonth(u32),
}

impl Cadence {
    /// `daily`, `weekly`, `monthly` or `<n>_per_day|week|month`.
    pub fn parse(text: &str) -> Result<Cadence> {
        let bad = || {
            Error::invalid_arguments(format!(
                "cadence {text:?}: use `daily`, `weekly`, `monthly` or `<n>_per_day`, `<n>_per_week`, `<n>_per_month` \
                 (e.g. `3_per_week`)"
            ))
        };
        let cadence = match text.trim() {
            "daily" => Cadence::PerDay(1),
            "weekly" => Cadence::PerWeek(1),
            "monthly" => Cadence::PerMonth(1),
            other => {
                let (n, unit) = other.split_once("_per_").ok_or_else(bad)?;
                let n: u32 = n.parse().ok().filter(|n| *n > 0).ok_or_else(bad)?;
                match unit {
                    "day" => Cadence::PerDay(n),
                    "week" => Cadence::PerWeek(n),
                    "month" => Cadence::PerMonth(n),
                    _ => return Err(bad()),
                }
            }
        };
        let too_many = match cadence {
            Cadence::PerDay(n) => n > 12,
            Cadence::PerWeek(n) => n > 7,
            Cadence::PerMonth(n) => n > 28,
        };
        if too_many {
            return Err(Error::invalid_arguments(format!(
                "cadence {text:?} is more than the calendar spreads: at most 12_per_day, 7_per_week (more: \
                 `<n>_per_day`) and 28_per_month"
            )));
        }
        Ok(cadence)
    }
}

/// The local times of the posts from `start` for `days` days.
pub fn slot_times(cadence: Cadence, start: Date, days: i64, time: (i8, i8)) -> Result<Vec<jiff::civil::DateTime>> {
    let day = |i: i64| start.checked_add(jiff::Span::new().days(i)).map_err(time_error);
    let at = |d: Date, (h, m): (i8, i8)| d.at(h, m, 0, 0);
    let mut out = Vec::new();
    match cadence {
        Cadence::PerDay(n) => {
            for i in 0..days {
                let d = day(i)?;
                if n == 1 {
                    out.push(at(d, time));
                    continue;
                }
                // Spread over 08:00..=20:00.
                for k in 0..n {
                    let minutes = 8 * 60 + i64::from(k) * 12 * 60 / i64::from(n - 1);
                    out.push(at(
                        d,
                        (i8::try_from(minutes / 60).unwrap_or(20), i8::try_from(minutes % 60).unwrap_or(0)),
                    ));
                }
            }
        }
        Cadence::PerWeek(n) => {
            // Week by week from the start day, the posts spread over the week
            // (3 a week from a Monday: Monday, Wednesday, Friday).
            for week in 0..(days + 6) / 7 {
                for k in 0..i64::from(n) {
                    let offset = week * 7 + k * 7 / i64::from(n);
                    if offset < days {
                        out.push(at(day(offset)?, time));
                    }
                }
            }
        }
        Cadence::PerMonth(n) => {
            // Each month the calendar touches, the posts spread over the month
            // (2 a month: the 1st and the 16th of a 30-day month).
            let end = day(days)?;
            let mut month = start.first_of_month();
            while month < end {
                let len = i64::from(month.days_in_month());
                for k in 0..i64::from(n) {
                    let d = month.checked_add(jiff::Span::new().days(k * len / i64::from(n))).map_err(time_error)?;
                    if d >= start && d < end {
                        out.push(at(d, time));
                    }
                }
                month = month.checked_add(jiff::Span::new().months(1)).map_err(time_error)?;
            }
        }
    }
    Ok(out)
}

fn time_error(e: jiff::Error) -> Error {
    Error::invalid_arguments(format!("the calendar runs out of the dates Halley can count: {e}"))
}

/// The first Monday after `today`.
pub fn next_monday(today: Date) -> Date {
    let mut d = today.tomorrow().unwrap_or(today);
    while d.weekday() != Weekday::Monday {
        d = d.tomorrow().unwrap_or(d);
    }
    d
}

#[derive(Debug, Deserialize)]
struct Titles {
    titles: Vec<Titled>,
    #[serde(default)]
    backlog: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Titled {
    slot: usize,
    title: String,
}

fn titles_schema(slots: usize) -> Value {
    json!({
        "type": "object",
        "required": ["titles", "backlog"],
        "properties": {
            "titles": {
                "type": "array", "minItems": slots, "maxItems": slots,
                "items": {
                    "type": "object", "required": ["slot", "title"],
                    "properties": {
                        "slot": {"type": "integer", "minimum": 1, "maximum": slots},
                        "title": {"type": "string", "minLength": 3, "maxLength": 200}
                    }
                }
            },
            "backlog": {"type": "array", "maxItems": 20, "items": {"type": "string", "minLength": 3, "maxLength": 200}}
        }
    })
}

async fn time_zone(skill: &Skill<'_>) -> (String, TimeZone) {
    let fallback = || (DEFAULT_TIME_ZONE.to_owned(), TimeZone::get(DEFAULT_TIME_ZONE).unwrap_or(TimeZone::UTC));
    let profile: UserProfileGetOutput =
        match skill.data("user_profile_get", json!({"keys": ["time_zone", "timezone"]})).await {
            Ok(p) => p,
            Err(e) => {
                skill
                    .note(format!("the profile could not be read ({}): times are in {DEFAULT_TIME_ZONE}", e.message()));
                return fallback();
            }
        };
    let Some(name) = profile.values.values().find_map(Value::as_str).map(str::trim) else {
        return fallback();
    };
    match TimeZone::get(name) {
        Ok(tz) => (name.to_owned(), tz),
        Err(_) => {
            skill.note(format!(
                "the profile's time zone {name:?} is not an IANA zone: times are in {DEFAULT_TIME_ZONE}"
            ));
            fallback()
        }
    }
}

/// The stored research notes: `{name, text}` each.
async fn research_notes(skill: &Skill<'_>) -> Vec<Value> {
    let found: FilesGetOutput = match skill.data("files_get", json!({"tags": [RESEARCH_TAG], "limit": NOTES})).await {
        Ok(f) => f,
        Err(e) => {
            skill.note(format!("the research notes could not be read: {}", e.message()));
            return Vec::new();
        }
    };
    found
        .files
        .iter()
        .filter_map(|f| match stored_text(f, NOTE_CHARS) {
            Ok(text) => Some(json!({"name": f.name, "text": text})),
            Err(e) => {
                skill.note(format!("the research note {} was left out: {}", f.name, e.message()));
                None
            }
        })
        .collect()
}

async fn plan(skill: &Skill<'_>, args: CreatorPlanCalendarArgs) -> Result<CreatorPlanCalendarOutput> {
    let cadence = Cadence::parse(&args.cadence)?;
    let channels: Vec<String> = args.channels.iter().map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()).collect();
    if channels.is_empty() {
        return Err(Error::invalid_arguments("name at least one channel (e.g. `youtube`)"));
    }
    let pillars: Vec<String> = args.pillars.iter().map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()).collect();
    let time = match args.time_of_day.as_deref() {
        None => DEFAULT_TIME,
        Some(t) => parse_time(t)?,
    };
    let (zone_name, tz) = time_zone(skill).await;
    let start = match args.start_date.as_deref() {
        Some(d) => d
            .parse::<Date>()
            .map_err(|e| Error::invalid_arguments(format!("start_date {d:?} is not a date (YYYY-MM-DD): {e}")))?,
        None => next_monday(jiff::Zoned::now().with_time_zone(tz.clone()).date()),
    };
    let times = slot_times(cadence, start, i64::from(args.weeks) * 7, time)?;
    let starts: Vec<jiff::Zoned> =
        times.iter().map(|t| t.to_zoned(tz.clone()).map_err(time_error)).collect::<Result<_>>()?;
    let pillar_of = |i: usize| (!pillars.is_empty()).then(|| pillars[i % pillars.len()].clone());

    // The titles: the model's, from the pillars and the research notes.
    let notes = research_notes(skill).await;
    let input = json!({
        "channels": channels,
        "pillars": pillars,
        "slots": starts.iter().enumerate().map(|(i, z)| json!({
            "slot": i + 1,
            "date": z.date().to_string(),
            "weekday": format!("{:?}", z.weekday()),
            "pillar": pillar_of(i),
        })).collect::<Vec<_>>(),
        "research_notes": notes,
    });
    let task = "write a working title for each slot of a content calendar (one post per slot, on its pillar, \
                drawing on the research notes when there are any; no two alike), and a backlog of further post ideas";
    let written: Option<Titles> =
        if starts.is_empty() { None } else { skill.write(task, &input, &titles_schema(starts.len())).await? };
    let mut status = SkillStatus::Ok;
    let mut titles: Vec<Option<String>> = vec![None; starts.len()];
    let mut backlog = Vec::new();
    if let Some(w) = written {
        for t in w.titles {
            if let Some(slot) = titles.get_mut(t.slot.wrapping_sub(1)) {
                *slot = Some(t.title.trim().to_owned());
            }
        }
        backlog = w.backlog.into_iter().map(|b| b.trim().to_owned()).filter(|b| !b.is_empty()).collect();
    }
    let missing = titles.iter().filter(|t| t.is_none()).count();
    if missing > 0 {
        status = SkillStatus::Partial;
        skill.note(format!(
            "{missing} of {} slots have no title from the model: they name their pillar, the topic is yours to choose",
            starts.len()
        ));
    }
    let mut calendar = Vec::with_capacity(starts.len() * channels.len());
    for (i, z) in starts.iter().enumerate() {
        let pillar = pillar_of(i);
        let title = titles[i].clone().unwrap_or_else(|| match &pillar {
            Some(p) => format!("{p}: topic to choose"),
            None => format!("Post {}: topic to choose", i + 1),
        });
        for channel in &channels {
            calendar.push(CalendarSlot {
                date: z.date().to_string(),
                channel: channel.clone(),
                pillar: pillar.clone(),
                title: title.clone(),
                start: Some(z.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()),
            });
        }
    }
    if calendar.is_empty() {
        skill.note("the cadence gives no post within the weeks planned");
    }

    // The iCalendar file, in the files store.
    let ics = icalendar(&calendar, &starts, channels.len(), &zone_name, jiff::Timestamp::now());
    let file_name = format!("content-calendar-{start}.ics");
    let note = format!("{} posts, {} from {start}", calendar.len(), args.cadence);
    let calendar_ref = match skill.store_text(&file_name, &ics, &[CALENDAR_TAG], &note).await {
        Ok(file) => Some(file.id),
        Err(e) => {
            status = SkillStatus::Partial;
            skill.note(format!("the iCalendar file was not stored: {}", e.message()));
            None
        }
    };
    Ok(CreatorPlanCalendarOutput {
        calendar,
        backlog,
        status,
        calendar_ref,
        time_zone: zone_name,
        notes: skill.notes(),
    })
}

fn parse_time(t: &str) -> Result<(i8, i8)> {
    let bad = || Error::invalid_arguments(format!("time_of_day {t:?}: write it as HH:MM (e.g. 19:00)"));
    let (h, m) = t.split_once(':').ok_or_else(bad)?;
    let (h, m): (i8, i8) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if !(0..24).contains(&h) || !(0..60).contains(&m) {
        return Err(bad());
    }
    Ok((h, m))
}

/// The calendar as an RFC 5545 iCalendar text: one event per post (its
/// time in UTC, so no VTIMEZONE is needed), lines folded at 75 octets,
/// CRLF line ends.
pub fn icalendar(
    calendar: &[CalendarSlot],
    starts: &[jiff::Zoned],
    per_slot: usize,
    zone: &str,
    now: jiff::Timestamp,
) -> String {
    let mut out = String::new();
    let stamp = now.strftime("%Y%m%dT%H%M%SZ").to_string();
    for line in ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Halley//Content calendar//EN", "CALSCALE:GREGORIAN"] {
        push_line(&mut out, line);
    }
    push_line(&mut out, &format!("X-WR-TIMEZONE:{}", escape_text(zone)));
    for (i, entry) in calendar.iter().enumerate() {
        let Some(start) = starts.get(i / per_slot.max(1)) else { continue };
        let utc = start.timestamp().strftime("%Y%m%dT%H%M%SZ").to_string();
        let uid = {
            use sha2::Digest;
            let digest = sha2::Sha256::digest(format!("{utc}|{}|{}", entry.channel, entry.title));
            format!("{}@halley.calendar", hex::encode(&digest[..12]))
        };
        push_line(&mut out, "BEGIN:VEVENT");
        push_line(&mut out, &format!("UID:{uid}"));
        push_line(&mut out, &format!("DTSTAMP:{stamp}"));
        push_line(&mut out, &format!("DTSTART:{utc}"));
        push_line(&mut out, "DURATION:PT30M");
        push_line(&mut out, &format!("SUMMARY:{}", escape_text(&format!("[{}] {}", entry.channel, entry.title))));
        let mut description = format!("Channel: {}", entry.channel);
        if let Some(p) = &entry.pillar {
            let _ = write!(description, "\nPillar: {p}");
            push_line(&mut out, &format!("CATEGORIES:{}", escape_text(p)));
        }
        push_line(&mut out, &format!("DESCRIPTION:{}", escape_text(&description)));
        push_line(&mut out, "END:VEVENT");
    }
    push_line(&mut out, "END:VCALENDAR");
    out
}

/// RFC 5545 3.3.11: backslash, semicolon, comma and newlines escaped.
fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// One content line, folded (RFC 5545 3.1): at most 75 octets a line, never
/// inside a UTF-8 character, continuation lines starting with a space.
fn push_line(out: &mut String, line: &str) {
    let mut used = 0;
    for c in line.chars() {
        let len = c.len_utf8();
        if used + len > 75 {
            out.push_str("\r\n ");
            used = 1;
        }
        out.push(c);
        used += len;
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests;
