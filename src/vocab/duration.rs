//! Durations as shops and people write them: `12 months`, `24 tháng`,
//! `2y`, `1,5 năm`, `30 ngày`, `24h`, compounds (`2h 30m`, `2 giờ 30 phút`,
//! `1 năm 6 tháng`), ISO 8601 (`PT2H30M`, `P1Y6M`), ranges (`2-3 ngày`),
//! the first number-and-unit of a sentence, "none" words (`Không bảo hành`
//! → 0), and the unit words a field name may end in (`warranty_months`).

use std::sync::LazyLock;

use regex::Regex;

use super::money::detect_currency;
use super::text::fold;
use super::{Parsed, Reject, bad};

/// Words that make a text a duration, not an amount of money.
pub(super) const DURATION_WORDS: &[&str] = &[
    "day", "days", "ngay", "week", "weeks", "tuan", "month", "months", "thang", "year", "years", "nam", "hour",
    "hours", "gio", "tieng",
];

/// Units from the shortest up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DurUnit {
    Hours,
    Days,
    Weeks,
    Months,
    Years,
}

impl DurUnit {
    fn days(self) -> f64 {
        match self {
            Self::Hours => 1.0 / 24.0,
            Self::Days => 1.0,
            Self::Weeks => 7.0,
            Self::Months => 30.0,
            Self::Years => 365.0,
        }
    }

    /// Converts between units: months↔years exactly (×12), everything else
    /// through days (week = 7, month = 30, year = 365 days). Rounded to 2 decimals.
    pub fn convert(value: f64, from: Self, to: Self) -> f64 {
        let v = match (from, to) {
            (Self::Years, Self::Months) => value * 12.0,
            (Self::Months, Self::Years) => value / 12.0,
            _ => value * from.days() / to.days(),
        };
        (v * 100.0).round() / 100.0
    }
}

/// Which end of a range (`2-3 ngày`) to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangePick {
    Low,
    High,
}

/// A duration read from a text; `unit` is `None` for a bare number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Duration {
    pub value: f64,
    pub unit: Option<DurUnit>,
}

fn dur_unit(word: &str) -> Option<DurUnit> {
    Some(match word {
        "hours" | "hour" | "hrs" | "hr" | "h" | "gio" | "tieng" => DurUnit::Hours,
        "days" | "day" | "d" | "ngay" => DurUnit::Days,
        "weeks" | "week" | "wks" | "wk" | "w" | "tuan" => DurUnit::Weeks,
        "months" | "month" | "mths" | "mth" | "mos" | "mo" | "m" | "thang" => DurUnit::Months,
        "years" | "year" | "yrs" | "yr" | "y" | "nam" => DurUnit::Years,
        _ => return None,
    })
}

/// The unit a field name's last token names (`hours`, `ngay`, `mo`,
/// `thang`, `yrs`...): whole words only, so `size_m` is not months.
pub fn suffix_unit(token: &str) -> Option<DurUnit> {
    Some(match token {
        "hours" | "hour" | "hrs" | "gio" => DurUnit::Hours,
        "days" | "day" | "ngay" => DurUnit::Days,
        "weeks" | "week" | "wks" | "tuan" => DurUnit::Weeks,
        "months" | "month" | "mos" | "mo" | "thang" => DurUnit::Months,
        "years" | "year" | "yrs" | "nam" => DurUnit::Years,
        _ => return None,
    })
}

/// A number and a unit read so far, and what follows: smaller units
/// (`1 năm 6 tháng` → 18 months, `2 weeks 3 days` → 17 days) and minutes
/// after hours (`2h 30m`, `2 giờ 30 phút` → 2.5 hours) are added in.
fn compound(value: f64, unit: DurUnit, rest: &str) -> Duration {
    static NEXT: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"^\s*(?:,|and|va)?\s*(\d+(?:[.,]\d+)?)\s*(minutes|minute|mins|min|phut|hours|hour|hrs|hr|h|gio|tieng|days|day|d|ngay|weeks|week|wks|wk|w|tuan|months|month|mths|mth|mos|mo|m|thang)\b",
        )
        .ok()
    });
    let (first, first_len) = (value, rest.len());
    let (mut value, mut unit, mut rest) = (value, unit, rest);
    while let Some(caps) = NEXT.as_ref().and_then(|re| re.captures(rest)) {
        let (Some(n), Some(word)) = (caps.get(1).and_then(|m| plain_decimal(m.as_str())), caps.get(2)) else { break };
        let minutes = matches!(word.as_str(), "minutes" | "minute" | "mins" | "min" | "phut" | "m");
        if unit == DurUnit::Hours && minutes {
            value += n / 60.0;
        } else {
            match dur_unit(word.as_str()).filter(|u| *u < unit) {
                Some(smaller) => {
                    value = DurUnit::convert(value, unit, smaller) + n;
                    unit = smaller;
                }
                None => break,
            }
        }
        rest = &rest[caps.get(0).map_or(rest.len(), |m| m.end())..];
    }
    // Rounded only when something was added in: `1,555 năm` stays as written.
    let value = if rest.len() == first_len { first } else { (value * 100.0).round() / 100.0 };
    Duration { value, unit: Some(unit) }
}

/// An ISO 8601 duration (`PT2H30M`, `P1Y6M`, `P2DT12H`, `P3W`): in its
/// smallest unit down to hours; minutes and seconds as parts of an hour.
fn iso_8601(text: &str) -> Option<Duration> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        let n = r"(\d+(?:[.,]\d+)?)";
        Regex::new(&format!(r"^(?i)P(?:{n}Y)?(?:{n}M)?(?:{n}W)?(?:{n}D)?(?:T(?:{n}H)?(?:{n}M)?(?:{n}S)?)?$")).ok()
    });
    let caps = RE.as_ref()?.captures(text)?;
    let part = |i: usize| caps.get(i).and_then(|m| plain_decimal(m.as_str()));
    let units = [DurUnit::Years, DurUnit::Months, DurUnit::Weeks, DurUnit::Days, DurUnit::Hours];
    let parts: Vec<(f64, DurUnit)> =
        units.iter().enumerate().filter_map(|(i, u)| part(i + 1).map(|v| (v, *u))).collect();
    let (minutes, seconds) = (part(6), part(7));
    let smallest = if minutes.is_some() || seconds.is_some() { DurUnit::Hours } else { parts.last()?.1 };
    let mut value: f64 = parts.iter().map(|(v, u)| DurUnit::convert(*v, *u, smallest)).sum();
    value += minutes.unwrap_or(0.0) / 60.0 + seconds.unwrap_or(0.0) / 3600.0;
    Some(Duration { value: (value * 100.0).round() / 100.0, unit: Some(smallest) })
}

fn plain_decimal(s: &str) -> Option<f64> {
    s.replace(',', ".").parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Reads a duration: `"12m"`, `"12 months"`, `"2 years"`, `"2y"`, `"1 năm"`,
/// `"24 tháng"`, `"30 days"`, `"30 ngày"`, `"2 tuần"`, `"1,5 năm"`, ranges
/// (`"2-3 ngày"`, `pick` chooses the end), the first number+unit pair in a
/// sentence (`"1 đổi 1 trong 30 ngày"` → 30 days), bare numbers (unit `None`),
/// and "none" words (`"không"`, `"no returns"` → 0). Amounts of money are
/// [`Reject::WrongKind`]; "lifetime"/"trọn đời" is rejected (no finite value).
pub fn parse_duration(text: &str, pick: RangePick) -> Parsed<(Duration, Vec<String>)> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"(\d+(?:[.,]\d+)?)\s*(?:(?:-|–|—|~|to|den|toi)\s*(\d+(?:[.,]\d+)?)\s*)?(hours|hour|hrs|hr|h|gio|tieng|days|day|d|ngay|weeks|week|wks|wk|w|tuan|months|month|mths|mth|mos|mo|m|thang|years|year|yrs|yr|y|nam)\b",
        )
        .ok()
    });
    static BARE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\s*(\d+(?:[.,]\d+)?)\s*$").ok());
    if detect_currency(text).is_some() {
        return Err(Reject::WrongKind);
    }
    let folded = fold(text);
    let trimmed = text.trim();
    if let Some(d) = iso_8601(trimmed) {
        return Ok((d, Vec::new()));
    }
    if let Some(caps) = RE.as_ref().and_then(|re| re.captures(&folded)) {
        let unit = caps.get(3).and_then(|m| dur_unit(m.as_str()));
        let end = caps.get(0).map_or(folded.len(), |m| m.end());
        let low = caps.get(1).and_then(|m| plain_decimal(m.as_str()));
        let high = caps.get(2).and_then(|m| plain_decimal(m.as_str()));
        if let (Some(unit), Some(low)) = (unit, low) {
            let mut warnings = Vec::new();
            let value = match (high, pick) {
                (Some(high), RangePick::High) => {
                    warnings.push(format!("\"{trimmed}\" is a range; used the upper end"));
                    high
                }
                (Some(_), RangePick::Low) => {
                    warnings.push(format!("\"{trimmed}\" is a range; used the lower end"));
                    low
                }
                (None, _) => return Ok((compound(low, unit, &folded[end..]), warnings)),
            };
            return Ok((Duration { value, unit: Some(unit) }, warnings));
        }
    }
    if let Some(caps) = BARE.as_ref().and_then(|re| re.captures(&folded))
        && let Some(v) = caps.get(1).and_then(|m| plain_decimal(m.as_str()))
    {
        return Ok((Duration { value: v, unit: None }, Vec::new()));
    }
    let t = folded.trim();
    if ["lifetime", "tron doi", "vinh vien", "unlimited", "khong gioi han", "forever"].iter().any(|w| t.contains(w)) {
        return bad(format!("\"{trimmed}\" is unlimited, not a number"));
    }
    if t == "no" || t == "none" || t == "0" || t.starts_with("no ") || t.starts_with("khong") || t.starts_with("not ") {
        return Ok((Duration { value: 0.0, unit: None }, Vec::new()));
    }
    bad(format!("no duration in \"{trimmed}\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn durations() {
        let d = |t: &str| parse_duration(t, RangePick::Low).map(|r| r.0).ok();
        let du = |v: f64, u: DurUnit| Some(Duration { value: v, unit: Some(u) });
        assert_eq!(d("12m"), du(12.0, DurUnit::Months));
        assert_eq!(d("12 months"), du(12.0, DurUnit::Months));
        assert_eq!(d("2 years"), du(2.0, DurUnit::Years));
        assert_eq!(d("2y"), du(2.0, DurUnit::Years));
        assert_eq!(d("1 năm"), du(1.0, DurUnit::Years));
        assert_eq!(d("24 tháng"), du(24.0, DurUnit::Months));
        assert_eq!(d("30 days"), du(30.0, DurUnit::Days));
        assert_eq!(d("30 ngày"), du(30.0, DurUnit::Days));
        assert_eq!(d("2 weeks"), du(2.0, DurUnit::Weeks));
        assert_eq!(d("2 tuần"), du(2.0, DurUnit::Weeks));
        assert_eq!(d("1,5 năm"), du(1.5, DurUnit::Years));
        assert_eq!(d("24h"), du(24.0, DurUnit::Hours));
        assert_eq!(d("1 đổi 1 trong 30 ngày"), du(30.0, DurUnit::Days));
        assert_eq!(d("2-3 ngày"), du(2.0, DurUnit::Days));
        assert_eq!(parse_duration("2-3 ngày", RangePick::High).map(|r| r.0).ok(), du(3.0, DurUnit::Days));
        assert_eq!(d("24"), Some(Duration { value: 24.0, unit: None }));
        assert_eq!(d("Không bảo hành"), Some(Duration { value: 0.0, unit: None }));
        assert_eq!(parse_duration("30.000đ", RangePick::Low).err(), Some(Reject::WrongKind));
        assert!(matches!(parse_duration("Trọn đời", RangePick::Low), Err(Reject::Bad(_))));
        assert!(matches!(parse_duration("soon", RangePick::Low), Err(Reject::Bad(_))));
        assert_eq!(DurUnit::convert(2.0, DurUnit::Years, DurUnit::Months), 24.0);
        assert_eq!(DurUnit::convert(1.0, DurUnit::Months, DurUnit::Days), 30.0);
        assert_eq!(DurUnit::convert(2.0, DurUnit::Weeks, DurUnit::Days), 14.0);
        assert_eq!(DurUnit::convert(1.0, DurUnit::Years, DurUnit::Days), 365.0);
    }

    #[test]
    fn compounds_and_iso_8601() {
        let d = |t: &str| parse_duration(t, RangePick::Low).map(|r| r.0).ok();
        let du = |v: f64, u: DurUnit| Some(Duration { value: v, unit: Some(u) });
        assert_eq!(d("2h 30m"), du(2.5, DurUnit::Hours));
        assert_eq!(d("2 giờ 30 phút"), du(2.5, DurUnit::Hours));
        assert_eq!(d("2 hours and 15 minutes"), du(2.25, DurUnit::Hours));
        assert_eq!(d("1 năm 6 tháng"), du(18.0, DurUnit::Months));
        assert_eq!(d("2 weeks, 3 days"), du(17.0, DurUnit::Days));
        // A larger unit after a smaller one is another number, not a compound.
        assert_eq!(d("12 tháng 1 năm"), du(12.0, DurUnit::Months));
        assert_eq!(d("30 ngày, bảo hành 12 tháng"), du(30.0, DurUnit::Days));
        assert_eq!(d("PT2H30M"), du(2.5, DurUnit::Hours));
        assert_eq!(d("pt45m"), du(0.75, DurUnit::Hours));
        assert_eq!(d("P1Y6M"), du(18.0, DurUnit::Months));
        assert_eq!(d("P2DT12H"), du(60.0, DurUnit::Hours));
        assert_eq!(d("P3W"), du(3.0, DurUnit::Weeks));
        assert_eq!(d("1,555 năm"), du(1.555, DurUnit::Years));
        assert_eq!(d("P"), None);
        assert_eq!(d("PT"), None);
    }

    #[test]
    fn suffixes() {
        assert_eq!(suffix_unit("thang"), Some(DurUnit::Months));
        assert_eq!(suffix_unit("wks"), Some(DurUnit::Weeks));
        assert_eq!(suffix_unit("m"), None);
        assert_eq!(suffix_unit("vnd"), None);
    }
}
