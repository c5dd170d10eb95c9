//! Money as pages and people write it: currencies (symbols, ISO codes,
//! words: `₫`, `đ`, `VND`, `vnđ`, `$`, `US$`, `€`, `euro`...) and amounts
//! (`21.490.000 ₫`, `21,490,000 VND`, `21tr490`, `1,2 triệu`, `1.299,99 €`,
//! `$1,299.99`, `Miễn phí` → 0). Amounts are `f64` in the currency's major
//! unit; [`minor_units`] gives the exact integer count for storing and comparing.

use super::duration::DURATION_WORDS;
use super::number::{Style, has_digit_after, read_number, several_numbers};
use super::text::{fold_char, lower_chars};
use super::{Parsed, Reject, bad};

/// Currencies written without minor units: their amounts never have decimals,
/// which settles `21.490` (= 21 490) style ambiguity.
pub fn zero_decimal(code: &str) -> bool {
    matches!(code, "VND" | "JPY" | "KRW" | "IDR")
}

/// ISO code of a currency word (`usd`, `euro`, `vnđ`, `dong`, `yen`, `rm`).
pub fn currency_code_word(word: &str) -> Option<&'static str> {
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
/// `¥` is yen unless `元`, `CN¥`, `CNY` or `RMB` says yuan.
pub fn detect_currency(text: &str) -> Option<&'static str> {
    let lc: String = lower_chars(text).into_iter().collect();
    if let Some((_, code)) = CURRENCY_SYMBOLS.iter().find(|(sym, _)| lc.contains(sym)) {
        let yuan = lc.contains('元') || ["cn¥", "cny", "rmb"].iter().any(|w| lc.contains(w));
        return Some(if *code == "JPY" && yuan { "CNY" } else { code });
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

/// The ISO code a code, symbol or word names (`VND`, `vnd`, `₫`, `usd`,
/// `RMB` → CNY); any other three letters pass as a code (`CHF`, `nzd`).
pub fn currency_code(text: &str) -> Option<String> {
    if let Some(code) = detect_currency(text) {
        return Some(code.to_string());
    }
    let t = text.trim();
    (t.len() == 3 && t.chars().all(|c| c.is_ascii_alphabetic())).then(|| t.to_ascii_uppercase())
}

/// Digits after the decimal point in `code`'s amounts: 0 for [`zero_decimal`] currencies, else 2.
pub fn minor_digits(code: &str) -> u32 {
    if zero_decimal(code) { 0 } else { 2 }
}

/// `value` (in `code`'s major unit) as a whole number of minor units,
/// rounded: 21 490 000 VND → 21490000, 1 299.99 EUR → 129999. `None` when
/// it does not fit an `i64` (or is not finite).
pub fn minor_units(value: f64, code: &str) -> Option<i64> {
    let scaled = (value * 10f64.powi(i32::try_from(minor_digits(code)).unwrap_or(2))).round();
    (scaled.is_finite() && scaled.abs() < 9.0e18).then_some(scaled as i64)
}

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

/// An amount of money or a percentage (only meaningful for discounts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Money {
    Amount { value: f64, currency: Option<&'static str> },
    Percent(f64),
}

/// Reads an amount of money and its currency.
///
/// `"21.490.000 ₫"`, `"21.490.000đ"`, `"21,490,000 VND"`, `"21tr490"`,
/// `"21,49 triệu"`, `"1.299,99 €"`, `"€89,90"`, `"$1,299.99"`,
/// `"1 299,99 zł"`, `"19.99M"`, `"19,99tr"`, `"1.2k"`, `"Miễn phí"` → 0.
/// Texts naming a duration (`"2-3 ngày"`) are [`Reject::WrongKind`].
pub fn parse_money(text: &str) -> Parsed<(Money, Vec<String>)> {
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
    let Some(read) = read_number(&lc, &fd, Style::Money, true)? else {
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
    fn currencies() {
        assert_eq!(detect_currency("21.490.000đ"), Some("VND"));
        assert_eq!(detect_currency("đã bao gồm"), None);
        assert_eq!(detect_currency("S$ 12"), Some("SGD"));
        assert_eq!(currency_code("vnd").as_deref(), Some("VND"));
        assert_eq!(currency_code("₫").as_deref(), Some("VND"));
        assert_eq!(currency_code("CHF").as_deref(), Some("CHF"));
        assert_eq!(currency_code("dollars!?").as_deref(), Some("USD"));
        assert_eq!(currency_code("xx"), None);
    }

    #[test]
    fn yuan_and_codes_named_by_words() {
        assert_eq!(detect_currency("¥1,280"), Some("JPY"));
        assert_eq!(detect_currency("CN¥ 99"), Some("CNY"));
        assert_eq!(detect_currency("¥99 (元)"), Some("CNY"));
        assert_eq!(currency_code("RMB").as_deref(), Some("CNY"));
        assert_eq!(currency_code("nzd").as_deref(), Some("NZD"));
        assert_eq!(money("1,2 triệu"), (1_200_000.0, None));
    }

    #[test]
    fn minor_units_follow_the_currency() {
        assert_eq!(minor_units(21_490_000.0, "VND"), Some(21_490_000));
        assert_eq!(minor_units(1299.99, "EUR"), Some(129_999));
        assert_eq!(minor_units(19.99, "USD"), Some(1999));
        assert_eq!(minor_units(f64::NAN, "USD"), None);
        assert_eq!(minor_units(1e30, "VND"), None);
    }
}
