//! Durations as shops and people write them: `12 months`, `24 tháng`,
//! `2y`, `1,5 năm`, `30 ngày`, `24h`, ranges (`2-3 ngày`), the first
//! number-and-unit of a sentence, "none" words (`Không bảo hành` → 0), and
//! the unit words a field name may end in (`warranty_months`, `bao_hanh_thang`).

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    if let Some(caps) = RE.as_ref().and_then(|re| re.captures(&folded)) {
        let unit = caps.get(3).and_then(|m| dur_unit(m.as_str()));
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
                (None, _) => low,
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
    fn suffixes() {
        assert_eq!(suffix_unit("thang"), Some(DurUnit::Months));
        assert_eq!(suffix_unit("wks"), Some(DurUnit::Weeks));
        assert_eq!(suffix_unit("m"), None);
        assert_eq!(suffix_unit("vnd"), None);
    }
}
