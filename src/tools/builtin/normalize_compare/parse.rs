//! Value parsers: amounts of money (number formats, magnitudes, currencies),
//! plain numbers, durations and booleans. Every parser is total: bad input
//! gives `Err(reason)`, never a panic.

use std::sync::LazyLock;

use regex::Regex;

use super::fields::{fold_char, lower_chars};

/// Why a value was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reject {
    /// The value is of another kind (a duration where money was wanted, a
    /// bare number where a unit is required): try the next candidate quietly.
    WrongKind,
    /// The value cannot be read; the reason is reported as a warning.
    Bad(String),
}

pub(crate) type Parsed<T> = std::result::Result<T, Reject>;

fn bad<T>(msg: impl Into<String>) -> Parsed<T> {
    Err(Reject::Bad(msg.into()))
}

// ---------------------------------------------------------------- currencies

/// Currencies written without minor units: their amounts never have decimals,
/// which settles `21.490` (= 21 490) style ambiguity.
pub(crate) fn zero_decimal(code: &str) -> bool {
    matches!(code, "VND" | "JPY" | "KRW" | "IDR")
}

/// ISO code of a currency word (`usd`, `euro`, `vnđ`, `dong`, `yen`, `rm`).
pub(crate) fn currency_code_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "vnd" | "vnđ" | "dong" | "đồng" | "đ" => "VND",
        "usd" | "dollar" | "dollars" => "USD",
        "eur" | "euro" | "euros" => "EUR",
        "gbp" => "GBP",
        "jpy" | "yen" => "JPY",
        "cny" | "rmb" | "yuan" => "CNY",
        "krw" | "won" => "KRW",
        "thb" | "baht" => "THB",
        "sgd" => "SGD",
        "aud" => "AUD",
        "cad" => "CAD",
        "hkd" => "HKD",
        "twd" => "TWD",
        "inr" => "INR",
        "chf" => "CHF",
        "pln" => "PLN",
        "myr" | "rm" => "MYR",
        "idr" | "rp" => "IDR",
        "php" => "PHP",
        "brl" => "BRL",
        "aed" => "AED",
        _ => return None,
    })
}

/// Symbols checked in this order (prefixed dollars before the bare `$`).
const CURRENCY_SYMBOLS: &[(&str, &str)] = &[
    ("us$", "USD"),
    ("hk$", "HKD"),
    ("nt$", "TWD"),
    ("s$", "SGD"),
    ("a$", "AUD"),
    ("c$", "CAD"),
    ("r$", "BRL"),
    ("₫", "VND"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("¥", "JPY"),
    ("円", "JPY"),
    ("元", "CNY"),
    ("₩", "KRW"),
    ("฿", "THB"),
    ("₹", "INR"),
    ("₱", "PHP"),
    ("zł", "PLN"),
    ("$", "USD"),
];

/// The currency a text states: a symbol (`₫ $ € £ ¥ ...`), then a code or
/// word (`VND`, `vnđ`, `usd`, `euro`), then a lone `đ` (`21.490.000đ`).
pub(crate) fn detect_currency(text: &str) -> Option<&'static str> {
    let lc: String = lower_chars(text).into_iter().collect();
    if let Some((_, code)) = CURRENCY_SYMBOLS.iter().find(|(sym, _)| lc.contains(sym)) {
        return Some(code);
    }
    let words = lc.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty());
    let mut saw_d = false;
    for w in words {
        if let Some(code) = currency_code_word(w) {
            return Some(code);
        }
        saw_d |= w.starts_with('đ') && w.chars().count() == 1;
    }
    // `21.490.000đ`: the letters split off the digits give a lone `đ` word.
    if saw_d { Some("VND") } else { None }
}

/// ISO code for a currency given in the arguments (`VND`, `vnd`, `₫`, `usd`, `CHF`).
pub(crate) fn currency_arg(text: &str) -> Option<String> {
    if let Some(code) = detect_currency(text) {
        return Some(code.to_string());
    }
    let t = text.trim();
    (t.len() == 3 && t.chars().all(|c| c.is_ascii_alphabetic())).then(|| t.to_ascii_uppercase())
}

// ---------------------------------------------------------------- numbers

/// How a lone `.` or `,` followed by exactly three digits is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// Prices: thousands separator (`21.490`, `1,299` → 21 490, 1 299);
    /// prices with three decimals essentially do not exist.
    Money,
    /// Other numbers: `,` groups thousands, `.` is a decimal point (`1.250` = 1.25).
    Plain,
}

fn is_space_sep(c: char) -> bool {
    matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '\'' | '’')
}

/// The first number in a text, with its grouping/decimal characters.
struct Scanned {
    /// Char index where the digits start.
    start: usize,
    /// Char index one past the number.
    end: usize,
    /// Digits, `.`, `,` and `' '` (for a space/apostrophe thousands group).
    body: String,
    negative: bool,
}

fn scan_number(lc: &[char], from: usize) -> Option<Scanned> {
    let n = lc.len();
    let digit = |i: usize| i < n && lc[i].is_ascii_digit();
    let mut i = from;
    while i < n {
        if digit(i) || (matches!(lc[i], '.' | ',') && digit(i + 1) && (i == 0 || !digit(i - 1))) {
            break;
        }
        i += 1;
    }
    if i >= n {
        return None;
    }
    let start = i;
    let mut k = start;
    while k > 0 && lc[k - 1] == ' ' {
        k -= 1;
    }
    let negative = k > 0 && matches!(lc[k - 1], '-' | '−') && (k < 2 || !digit(k - 2));
    let mut body = String::new();
    let mut group = 0usize;
    let mut j = start;
    while j < n {
        let c = lc[j];
        if c.is_ascii_digit() {
            body.push(c);
            group += 1;
        } else if matches!(c, '.' | ',') && digit(j + 1) {
            body.push(c);
            group = 0;
        } else if is_space_sep(c)
            && (1..=3).contains(&group)
            && !body.contains(['.', ','])
            && digit(j + 1)
            && digit(j + 2)
            && digit(j + 3)
            && !digit(j + 4)
        {
            body.push(' ');
            group = 0;
        } else {
            break;
        }
        j += 1;
    }
    Some(Scanned { start, end: j, body, negative })
}

/// Splits a scanned body into integer digits and fraction digits.
///
/// * `.` and `,` both present: the last one is the decimal separator, the
///   other groups thousands (`1.299,99`, `1,299.99`).
/// * one kind, several times: thousands groups (`21.490.000`, `21,490,000`),
///   every group after the first must have three digits.
/// * one kind, once: decimal unless followed by exactly three digits, in
///   which case [`Style`] decides; always decimal when a magnitude word
///   follows (`21,49 triệu`, `1.2k`) or spaces already group thousands
///   (`1 299,99`).
fn split_digits(body: &str, style: Style, has_magnitude: bool) -> Parsed<(String, String)> {
    let spaced = body.contains(' ');
    let b: String = body.chars().filter(|c| *c != ' ').collect();
    let dots = b.matches('.').count();
    let commas = b.matches(',').count();
    let groups_ok = |int: &str, sep: char| {
        let mut parts = int.split(sep);
        parts.next().is_some_and(|p| !p.is_empty()) && parts.all(|p| p.len() == 3)
    };
    let ambiguous = || bad(format!("ambiguous number format \"{body}\""));
    if dots == 0 && commas == 0 {
        return Ok((b, String::new()));
    }
    if dots > 0 && commas > 0 {
        let (dec, grp) = match (b.rfind('.'), b.rfind(',')) {
            (Some(d), Some(c)) if d > c => ('.', ','),
            _ => (',', '.'),
        };
        let Some((int, frac)) = b.rsplit_once(dec) else { return ambiguous() };
        if int.contains(dec) || frac.contains(grp) || !groups_ok(int, grp) {
            return ambiguous();
        }
        return Ok((int.replace(grp, ""), frac.to_string()));
    }
    let sep = if dots > 0 { '.' } else { ',' };
    if dots + commas > 1 {
        if !groups_ok(&b, sep) {
            return ambiguous();
        }
        return Ok((b.replace(sep, ""), String::new()));
    }
    let Some((int, frac)) = b.split_once(sep) else { return ambiguous() };
    let thousands = frac.len() == 3
        && !spaced
        && !has_magnitude
        && !int.is_empty()
        && int != "0"
        && (style == Style::Money || sep == ',');
    if thousands {
        Ok((format!("{int}{frac}"), String::new()))
    } else {
        let int = if int.is_empty() { "0" } else { int };
        Ok((int.to_string(), frac.to_string()))
    }
}

/// Exact decimal → f64: `digits × 10^(pow10 − frac.len())`, correctly rounded.
fn to_f64(int: &str, frac: &str, pow10: i32) -> Parsed<f64> {
    let exp = pow10 - i32::try_from(frac.len()).unwrap_or(i32::MAX);
    match format!("{int}{frac}e{exp}").parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => bad(format!("number \"{int}{frac}\" is out of range")),
    }
}

/// Magnitude words, longest first; the flag marks ones only read in money
/// (`12m` is a duration elsewhere, `5b` ambiguous).
const MAGNITUDES: &[(&str, i32, bool)] = &[
    ("billions", 9, false),
    ("billion", 9, false),
    ("millions", 6, false),
    ("million", 6, false),
    ("thousand", 3, false),
    ("trieu", 6, false),
    ("nghin", 3, false),
    ("ngan", 3, false),
    ("mil", 6, false),
    ("mio", 6, false),
    ("bn", 9, false),
    ("mn", 6, false),
    ("tr", 6, false),
    ("ty", 9, false),
    ("ti", 9, false),
    ("k", 3, false),
    ("m", 6, true),
    ("b", 9, true),
];

fn skip_spaces(fd: &[char], mut i: usize) -> usize {
    while i < fd.len() && is_space_sep(fd[i]) {
        i += 1;
    }
    i
}

/// A magnitude word at `from` (after optional spaces): (power of ten, end).
fn magnitude_at(fd: &[char], from: usize, money: bool) -> Option<(i32, usize)> {
    let i = skip_spaces(fd, from);
    MAGNITUDES.iter().filter(|(_, _, money_only)| money || !money_only).find_map(|(w, p, _)| {
        let len = w.chars().count();
        let matches = i + len <= fd.len() && fd[i..i + len].iter().copied().eq(w.chars());
        let boundary = fd.get(i + len).is_none_or(|c| !c.is_alphabetic());
        (matches && boundary).then_some((*p, i + len))
    })
}

/// A number read from a text, with where it ended.
struct NumberRead {
    value: f64,
    end: usize,
    percent: bool,
}

/// Reads the first number of `lc`/`fd` (lowercase / folded chars): the
/// digits, an optional magnitude (`k`, `tr`/`triệu`, `tỷ`, `M`...), compound
/// forms (`21tr490` = 21 490 000, `21 triệu 490 nghìn`, `21 triệu rưỡi`) and
/// a trailing `%`.
fn read_number(lc: &[char], fd: &[char], style: Style, money: bool) -> Parsed<Option<NumberRead>> {
    let Some(sc) = scan_number(lc, 0) else { return Ok(None) };
    let mag = magnitude_at(fd, sc.end, money);
    let (int, frac) = split_digits(&sc.body, style, mag.is_some())?;
    let Some((pow, mut end)) = mag else {
        let mut value = to_f64(&int, &frac, 0)?;
        if sc.negative {
            value = -value;
        }
        let p = skip_spaces(fd, sc.end);
        let percent = fd.get(p) == Some(&'%');
        let end = if percent { p + 1 } else { sc.end };
        return Ok(Some(NumberRead { value, end, percent }));
    };
    let mut value = to_f64(&int, &frac, pow)?;
    let mut pow = pow;
    loop {
        // `21tr490`, `5k5`: digits glued to the magnitude fill the next lower unit.
        let attached = fd.get(end).is_some_and(char::is_ascii_digit);
        let Some(next) = scan_number(lc, end).filter(|n| {
            n.body.chars().all(|c| c.is_ascii_digit())
                && n.body.len() <= 3
                && lc[end..n.start].iter().all(|c| is_space_sep(*c))
        }) else {
            break;
        };
        if let Some((p2, e2)) = magnitude_at(fd, next.end, money).filter(|(p2, _)| *p2 < pow) {
            value += to_f64(&next.body, "", p2)?;
            pow = p2;
            end = e2;
        } else if attached && frac.is_empty() && pow >= 3 {
            let pad = 3 - i32::try_from(next.body.len()).unwrap_or(3);
            value += to_f64(&next.body, "", pow - 3 + pad)?;
            end = next.end;
            break;
        } else {
            break;
        }
    }
    let p = skip_spaces(fd, end);
    let rest: String = fd[p..].iter().take(4).collect();
    if rest == "ruoi" && fd.get(p + 4).is_none_or(|c| !c.is_alphabetic()) {
        value += to_f64("5", "", pow - 1)?;
        end = p + 4;
    }
    if sc.negative {
        value = -value;
    }
    Ok(Some(NumberRead { value, end, percent: false }))
}

fn has_digit_after(lc: &[char], end: usize) -> bool {
    lc.get(end..).is_some_and(|rest| rest.iter().any(char::is_ascii_digit))
}

fn several_numbers(text: &str) -> String {
    format!("\"{text}\" holds several numbers; used the first")
}

/// Words that make a text a duration, not an amount of money.
const DURATION_WORDS: &[&str] = &[
    "day", "days", "ngay", "week", "weeks", "tuan", "month", "months", "thang", "year", "years", "nam", "hour",
    "hours", "gio", "tieng",
];

/// Texts that mean "nothing to pay".
fn is_free(folded: &str) -> bool {
    let t = folded.trim().trim_matches(|c: char| !c.is_alphanumeric());
    t.contains("mien phi")
        || t.starts_with("free")
        || t.contains("freeship")
        || t.contains("free shipping")
        || t.contains("khong mat phi")
        || matches!(t, "included" | "incl" | "da bao gom" | "bao gom" | "none" | "khong" | "no")
}

/// Texts that mean "no value given" (not an error, just missing).
pub(crate) fn is_blank(text: &str) -> bool {
    let f = fold(text);
    let t = f.trim();
    t.is_empty()
        || matches!(
            t,
            "n/a"
                | "na"
                | "-"
                | "—"
                | "–"
                | "?"
                | "null"
                | "unknown"
                | "khong ro"
                | "chua co"
                | "dang cap nhat"
                | "lien he"
                | "contact"
                | "call"
        )
}

pub(crate) fn fold(text: &str) -> String {
    super::fields::fold(text)
}

/// An amount of money or a percentage (only meaningful for discounts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Money {
    Amount { value: f64, currency: Option<&'static str> },
    Percent(f64),
}

/// Reads an amount of money and its currency.
///
/// `"21.490.000 ₫"`, `"21.490.000đ"`, `"21,490,000 VND"`, `"21tr490"`,
/// `"21,49 triệu"`, `"1.299,99 €"`, `"€89,90"`, `"$1,299.99"`,
/// `"1 299,99 zł"`, `"19.99M"`, `"19,99tr"`, `"1.2k"`, `"Miễn phí"` → 0.
/// Texts naming a duration (`"2-3 ngày"`) are [`Reject::WrongKind`].
pub(crate) fn parse_money(text: &str) -> Parsed<(Money, Vec<String>)> {
    let lc = lower_chars(text);
    let fd: Vec<char> = lc.iter().map(|c| fold_char(*c)).collect();
    let folded: String = fd.iter().collect();
    let currency = detect_currency(text);
    let words: Vec<&str> = folded.split(|c: char| !c.is_alphabetic()).collect();
    if currency.is_none() && words.iter().any(|w| DURATION_WORDS.contains(w)) {
        return Err(Reject::WrongKind);
    }
    if is_free(&folded) {
        let warnings = if lc.iter().any(|c| c.is_ascii_digit() && *c != '0') {
            vec![format!("\"{}\" reads as free (0); check any condition it states", text.trim())]
        } else {
            Vec::new()
        };
        return Ok((Money::Amount { value: 0.0, currency }, warnings));
    }
    let style = Style::Money;
    let Some(read) = read_number(&lc, &fd, style, true)? else {
        return bad(format!("no amount in \"{}\"", text.trim()));
    };
    let mut warnings = Vec::new();
    if has_digit_after(&lc, read.end) {
        warnings.push(several_numbers(text.trim()));
    }
    if read.percent {
        return Ok((Money::Percent(read.value), warnings));
    }
    Ok((Money::Amount { value: read.value, currency }, warnings))
}

/// Reads a plain number (`"4,8"`, `"4.5/5"`, `"1.2k"`, `"1,250"`): the first
/// number in the text, `.` decimal / `,` thousands when ambiguous.
pub(crate) fn parse_number(text: &str) -> Parsed<(f64, Vec<String>)> {
    let lc = lower_chars(text);
    let fd: Vec<char> = lc.iter().map(|c| fold_char(*c)).collect();
    let Some(read) = read_number(&lc, &fd, Style::Plain, false)? else {
        return bad(format!("no number in \"{}\"", text.trim()));
    };
    let mut warnings = Vec::new();
    let rest: String = lc[read.end..].iter().collect();
    // `4.5/5`, `4.5 / 5 sao` are scores, not two numbers worth a warning.
    if has_digit_after(&lc, read.end) && !rest.trim_start().starts_with('/') {
        warnings.push(several_numbers(text.trim()));
    }
    Ok((read.value, warnings))
}

// ---------------------------------------------------------------- mass

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MassUnit {
    G,
    Kg,
    Lb,
}

impl MassUnit {
    fn grams(self) -> f64 {
        match self {
            Self::G => 1.0,
            Self::Kg => 1000.0,
            Self::Lb => 453.592_37,
        }
    }

    pub fn convert(value: f64, from: Self, to: Self) -> f64 {
        value * from.grams() / to.grams()
    }
}

/// The mass unit a text states after its first number (`1.5 kg`, `850g`).
pub(crate) fn mass_unit_in(text: &str) -> Option<MassUnit> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\d\s*(kgs?|grams?|gr|g|lbs?)\b").ok());
    let folded = fold(text);
    let caps = RE.as_ref()?.captures(&folded)?;
    Some(match caps.get(1)?.as_str() {
        "kg" | "kgs" => MassUnit::Kg,
        "lb" | "lbs" => MassUnit::Lb,
        _ => MassUnit::G,
    })
}

// ---------------------------------------------------------------- durations

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DurUnit {
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
pub(crate) enum RangePick {
    Low,
    High,
}

/// A duration read from a text; `unit` is `None` for a bare number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Duration {
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

fn plain_decimal(s: &str) -> Option<f64> {
    s.replace(',', ".").parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Reads a duration: `"12m"`, `"12 months"`, `"2 years"`, `"2y"`, `"1 năm"`,
/// `"24 tháng"`, `"30 days"`, `"30 ngày"`, `"2 tuần"`, `"1,5 năm"`, ranges
/// (`"2-3 ngày"`, `pick` chooses the end), the first number+unit pair in a
/// sentence (`"1 đổi 1 trong 30 ngày"` → 30 days), bare numbers (unit `None`),
/// and "none" words (`"không"`, `"no returns"` → 0). Amounts of money are
/// [`Reject::WrongKind`]; "lifetime"/"trọn đời" is rejected (no finite value).
pub(crate) fn parse_duration(text: &str, pick: RangePick) -> Parsed<(Duration, Vec<String>)> {
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

// ---------------------------------------------------------------- booleans

/// Reads yes/no: `true/false`, `yes/no`, `có/không`, `in stock`/`còn hàng`,
/// `out of stock`/`hết hàng`, `1/0`, `✓/✗`.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    let f = fold(text);
    let t = f.trim().trim_end_matches(['.', '!']);
    let falsy = ["het hang", "out of stock", "sold out", "unavailable", "ngung kinh doanh"];
    if falsy.iter().any(|w| t.contains(w)) {
        return Some(false);
    }
    if ["con hang", "in stock", "san hang", "available"].iter().any(|w| t.contains(w)) {
        return Some(true);
    }
    match t {
        "true" | "yes" | "y" | "co" | "1" | "x" | "✓" | "✔" | "ok" | "instock" => Some(true),
        "false" | "no" | "n" | "khong" | "0" | "✗" | "✘" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn money(text: &str) -> (f64, Option<&'static str>) {
        match parse_money(text) {
            Ok((Money::Amount { value, currency }, _)) => (value, currency),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn money_formats() {
        assert_eq!(money("100"), (100.0, None));
        assert_eq!(money("21.490.000 ₫"), (21_490_000.0, Some("VND")));
        assert_eq!(money("21.490.000đ"), (21_490_000.0, Some("VND")));
        assert_eq!(money("21,490,000 VND"), (21_490_000.0, Some("VND")));
        assert_eq!(money("21.490.000 vnđ"), (21_490_000.0, Some("VND")));
        assert_eq!(money("21tr490"), (21_490_000.0, None));
        assert_eq!(money("21tr5"), (21_500_000.0, None));
        assert_eq!(money("21,49 triệu"), (21_490_000.0, None));
        assert_eq!(money("21 triệu 490 nghìn đồng"), (21_490_000.0, Some("VND")));
        assert_eq!(money("21 triệu rưỡi"), (21_500_000.0, None));
        assert_eq!(money("1 tỷ 2"), (1_000_000_000.0, None));
        assert_eq!(money("1tỷ2"), (1_200_000_000.0, None));
        assert_eq!(money("1.299,99 €"), (1299.99, Some("EUR")));
        assert_eq!(money("€89,90"), (89.9, Some("EUR")));
        assert_eq!(money("$1,299.99"), (1299.99, Some("USD")));
        assert_eq!(money("US$ 15"), (15.0, Some("USD")));
        assert_eq!(money("1 299,99 zł"), (1299.99, Some("PLN")));
        assert_eq!(money("1\u{a0}299,99 €"), (1299.99, Some("EUR")));
        assert_eq!(money("19.99M"), (19_990_000.0, None));
        assert_eq!(money("19,99tr"), (19_990_000.0, None));
        assert_eq!(money("1.2k"), (1200.0, None));
        assert_eq!(money("150k"), (150_000.0, None));
        assert_eq!(money("150.000"), (150_000.0, None));
        assert_eq!(money("19.99"), (19.99, None));
        assert_eq!(money("¥1,280"), (1280.0, Some("JPY")));
        assert_eq!(money("1280円"), (1280.0, Some("JPY")));
        assert_eq!(money("£9.50"), (9.5, Some("GBP")));
        assert_eq!(money("-500.000đ"), (-500_000.0, Some("VND")));
        assert_eq!(money("Miễn phí"), (0.0, None));
        assert_eq!(money("free"), (0.0, None));
        assert_eq!(money("0đ"), (0.0, Some("VND")));
        assert_eq!(money("Giá: 21.490.000 ₫ (đã gồm VAT)"), (21_490_000.0, Some("VND")));
    }

    #[test]
    fn money_rejects_and_warns() {
        assert_eq!(parse_money("2-3 ngày").err(), Some(Reject::WrongKind));
        assert_eq!(parse_money("2 days").err(), Some(Reject::WrongKind));
        assert!(matches!(parse_money("abc"), Err(Reject::Bad(_))));
        assert!(matches!(parse_money("NaN"), Err(Reject::Bad(_))));
        assert!(matches!(parse_money("1.2.3"), Err(Reject::Bad(_))));
        assert!(matches!(parse_money("1,23.4"), Err(Reject::Bad(_))));
        assert!(matches!(parse_money(&"9".repeat(400)), Err(Reject::Bad(_))));
        assert_eq!(parse_money("10%").ok().map(|m| m.0), Some(Money::Percent(10.0)));
        let (m, w) = parse_money("21.000.000 - 23.000.000đ").unwrap();
        assert_eq!(m, Money::Amount { value: 21_000_000.0, currency: Some("VND") });
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn plain_numbers() {
        let n = |t: &str| parse_number(t).map(|r| r.0).ok();
        assert_eq!(n("4,8"), Some(4.8));
        assert_eq!(n("4.5/5"), Some(4.5));
        assert_eq!(n("1.250"), Some(1.25));
        assert_eq!(n("1,250"), Some(1250.0));
        assert_eq!(n("1.2k"), Some(1200.0));
        assert_eq!(n("12m"), Some(12.0));
        assert_eq!(n("xyz"), None);
        assert_eq!(mass_unit_in("850g"), Some(MassUnit::G));
        assert_eq!(mass_unit_in("1,5 kg"), Some(MassUnit::Kg));
    }

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
    fn booleans() {
        for t in ["yes", "True", "có", "Còn hàng", "in stock", "✓"] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for t in ["no", "false", "Không", "Hết hàng", "out of stock"] {
            assert_eq!(parse_bool(t), Some(false), "{t}");
        }
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn currencies() {
        assert_eq!(detect_currency("21.490.000đ"), Some("VND"));
        assert_eq!(detect_currency("đã bao gồm"), None);
        assert_eq!(detect_currency("S$ 12"), Some("SGD"));
        assert_eq!(currency_arg("vnd").as_deref(), Some("VND"));
        assert_eq!(currency_arg("₫").as_deref(), Some("VND"));
        assert_eq!(currency_arg("CHF").as_deref(), Some("CHF"));
        assert_eq!(currency_arg("dollars!?").as_deref(), Some("USD"));
        assert_eq!(currency_arg("xx"), None);
    }
}
