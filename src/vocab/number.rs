//! Numbers as pages write them: `.` or `,` as the decimal point or the
//! thousands separator (settled by the text, or by [`Style`] when it cannot
//! be), spaces grouping thousands, magnitudes (`1.2k`, `21 triệu`, `1 tỷ 2`,
//! `21tr490`, `21 triệu rưỡi`) and a trailing `%`. Total: bad input gives
//! a [`Reject`], never a panic.

use super::text::{fold_char, lower_chars};
use super::{Parsed, bad};

/// How a lone `.` or `,` followed by exactly three digits is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
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
    // Thousands (`1.234.567`), or the Indian lakh grouping (`1,23,45,678`).
    let groups_ok = |int: &str, sep: char| {
        let parts: Vec<&str> = int.split(sep).collect();
        let Some((last, middle)) = parts[1..].split_last() else { return !parts[0].is_empty() };
        !parts[0].is_empty()
            && last.len() == 3
            && (middle.iter().all(|p| p.len() == 3) || (sep == ',' && middle.iter().all(|p| p.len() == 2)))
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

/// An exact decimal number: `units × 10^−scale` (`12.50` is `{1250, 2}`).
/// What the parsers read is kept exactly; [`Decimal::to_f64`] rounds once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decimal {
    pub units: i128,
    pub scale: u32,
}

/// Largest scale kept (digits after the point).
const MAX_SCALE: u32 = 30;

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

impl Decimal {
    pub const ZERO: Self = Self { units: 0, scale: 0 };

    pub fn new(units: i128, scale: u32) -> Self {
        Self { units, scale }
    }

    /// Without trailing zeros after the point (`12.50` → `12.5`, `100` stays).
    pub fn normalized(self) -> Self {
        let (mut units, mut scale) = (self.units, self.scale);
        while scale > 0 && units % 10 == 0 {
            units /= 10;
            scale -= 1;
        }
        Self { units, scale }
    }

    /// The nearest `f64` (correctly rounded).
    pub fn to_f64(self) -> f64 {
        format!("{}e-{}", self.units, self.scale).parse().unwrap_or(f64::NAN)
    }

    /// The same number with `scale` digits after the point; `None` when it
    /// would lose digits or overflow.
    pub fn rescaled(self, scale: u32) -> Option<Self> {
        if scale >= self.scale {
            Some(Self { units: self.units.checked_mul(pow10(scale - self.scale)?)?, scale })
        } else {
            let d = pow10(self.scale - scale)?;
            (self.units % d == 0).then(|| Self { units: self.units / d, scale })
        }
    }

    /// Rounded (half away from zero) to `scale` digits after the point.
    pub fn round_to(self, scale: u32) -> Option<Self> {
        if scale >= self.scale {
            return self.rescaled(scale);
        }
        let d = pow10(self.scale - scale)?;
        let (q, r) = (self.units / d, self.units % d);
        let q = if r.abs() * 2 >= d { q + self.units.signum() } else { q };
        Some(Self { units: q, scale })
    }

    pub fn checked_add(self, other: Self) -> Option<Self> {
        let scale = self.scale.max(other.scale);
        let (a, b) = (self.rescaled(scale)?, other.rescaled(scale)?);
        Some(Self { units: a.units.checked_add(b.units)?, scale })
    }

    pub fn is_integer(self) -> bool {
        self.normalized().scale == 0
    }

    /// `int` digits, `frac` digits, times `10^pow10`.
    fn from_digits(int: &str, frac: &str, exp10: i32) -> Parsed<Self> {
        let digits: String = format!("{int}{frac}");
        let trimmed = digits.trim_start_matches('0');
        let out_of_range = || bad(format!("number \"{int}{frac}\" is out of range"));
        let units: i128 = if trimmed.is_empty() {
            0
        } else {
            match trimmed.parse() {
                Ok(u) => u,
                Err(_) => return out_of_range(),
            }
        };
        let exp = exp10 - i32::try_from(frac.len()).unwrap_or(i32::MAX);
        let d = if exp >= 0 {
            u32::try_from(exp).ok().and_then(pow10).and_then(|m| units.checked_mul(m)).map(|u| Self::new(u, 0))
        } else {
            u32::try_from(-exp).ok().filter(|s| *s <= MAX_SCALE).map(|s| Self::new(units, s))
        };
        match d {
            Some(d) => Ok(d.normalized()),
            None => out_of_range(),
        }
    }
}

impl std::ops::Neg for Decimal {
    type Output = Self;

    fn neg(self) -> Self {
        Self { units: -self.units, scale: self.scale }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        let scale = self.scale.max(other.scale);
        match (self.rescaled(scale), other.rescaled(scale)) {
            (Some(a), Some(b)) => Some(a.units.cmp(&b.units)),
            _ => self.to_f64().partial_cmp(&other.to_f64()),
        }
    }
}

/// Plain decimal notation: `1234.5`, `-0.05`, `21490000`.
impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.units.unsigned_abs().to_string();
        let sign = if self.units < 0 { "-" } else { "" };
        let scale = usize::try_from(self.scale).unwrap_or(0);
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        write!(f, "{sign}{int}.{frac}")
    }
}

/// `int` and `frac` digits times `10^exp10`, exactly.
fn to_dec(int: &str, frac: &str, exp10: i32) -> Parsed<Decimal> {
    Decimal::from_digits(int, frac, exp10)
}

fn add(a: Decimal, b: Decimal) -> Parsed<Decimal> {
    a.checked_add(b).map_or_else(|| bad("number is out of range"), Ok)
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
pub(super) struct NumberRead {
    pub value: f64,
    /// The same number, exactly.
    pub exact: Decimal,
    /// Char index one past the number (and its magnitude or `%`).
    pub end: usize,
    pub percent: bool,
}

impl NumberRead {
    fn new(exact: Decimal, negative: bool, end: usize, percent: bool) -> Self {
        let exact = if negative { -exact } else { exact };
        Self { value: exact.to_f64(), exact, end, percent }
    }
}

/// Reads the first number of `lc`/`fd` (lowercase / folded chars): the
/// digits, an optional magnitude (`k`, `tr`/`triệu`, `tỷ`, `M`...), compound
/// forms (`21tr490` = 21 490 000, `21 triệu 490 nghìn`, `21 triệu rưỡi`) and
/// a trailing `%`.
pub(super) fn read_number(lc: &[char], fd: &[char], style: Style, money: bool) -> Parsed<Option<NumberRead>> {
    let Some(sc) = scan_number(lc, 0) else { return Ok(None) };
    let mag = magnitude_at(fd, sc.end, money);
    let (int, frac) = split_digits(&sc.body, style, mag.is_some())?;
    let Some((pow, mut end)) = mag else {
        let value = to_dec(&int, &frac, 0)?;
        let p = skip_spaces(fd, sc.end);
        let percent = fd.get(p) == Some(&'%');
        let end = if percent { p + 1 } else { sc.end };
        return Ok(Some(NumberRead::new(value, sc.negative, end, percent)));
    };
    let mut value = to_dec(&int, &frac, pow)?;
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
            value = add(value, to_dec(&next.body, "", p2)?)?;
            pow = p2;
            end = e2;
        } else if attached && frac.is_empty() && pow >= 3 {
            let pad = 3 - i32::try_from(next.body.len()).unwrap_or(3);
            value = add(value, to_dec(&next.body, "", pow - 3 + pad)?)?;
            end = next.end;
            break;
        } else {
            break;
        }
    }
    let p = skip_spaces(fd, end);
    let rest: String = fd[p..].iter().take(4).collect();
    if rest == "ruoi" && fd.get(p + 4).is_none_or(|c| !c.is_alphabetic()) {
        value = add(value, to_dec("5", "", pow - 1)?)?;
        end = p + 4;
    }
    Ok(Some(NumberRead::new(value, sc.negative, end, false)))
}

pub(super) fn has_digit_after(lc: &[char], end: usize) -> bool {
    lc.get(end..).is_some_and(|rest| rest.iter().any(char::is_ascii_digit))
}

pub(super) fn several_numbers(text: &str) -> String {
    format!("\"{text}\" holds several numbers; used the first")
}

/// Reads a plain number (`"4,8"`, `"4.5/5"`, `"1.2k"`, `"1,250"`): the first
/// number in the text, `.` decimal / `,` thousands when ambiguous.
pub fn parse_number(text: &str) -> Parsed<(f64, Vec<String>)> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Reject;
    use pretty_assertions::assert_eq;

    fn n(t: &str) -> Option<f64> {
        parse_number(t).map(|r| r.0).ok()
    }

    #[test]
    fn either_decimal_convention() {
        assert_eq!(n("4,8"), Some(4.8));
        assert_eq!(n("4.5/5"), Some(4.5));
        assert_eq!(n("1.250"), Some(1.25));
        assert_eq!(n("1,250"), Some(1250.0));
        assert_eq!(n("1.299,99"), Some(1299.99));
        assert_eq!(n("1,299.99"), Some(1299.99));
        assert_eq!(n("21.490.000"), Some(21_490_000.0));
        assert_eq!(n("1 299,99"), Some(1299.99));
        assert_eq!(n("-3"), Some(-3.0));
        assert_eq!(n(".5"), Some(0.5));
    }

    #[test]
    fn magnitudes() {
        assert_eq!(n("1.2k"), Some(1200.0));
        assert_eq!(n("1,2 triệu"), Some(1_200_000.0));
        assert_eq!(n("21tr490"), Some(21_490_000.0));
        assert_eq!(n("3 tỷ"), Some(3_000_000_000.0));
        // `m` is months outside money.
        assert_eq!(n("12m"), Some(12.0));
    }

    #[test]
    fn rejects_and_warns() {
        assert_eq!(n("xyz"), None);
        assert!(matches!(parse_number("1.2.3"), Err(Reject::Bad(_))));
        assert_eq!(parse_number("4.5/5").map(|r| r.1.len()), Ok(0));
        assert_eq!(parse_number("3 or 4").map(|r| r.1.len()), Ok(1));
    }
}
