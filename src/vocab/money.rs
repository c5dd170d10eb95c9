//! Money as pages and people write it: currencies (symbols, ISO codes,
//! words: `₫`, `đ`, `VND`, `vnđ`, `$`, `US$`, `NT$`, `€`, `₩`, `₸`, `zł`,
//! `Kč`, `Ft`, `kr`, `CHF`, `R$`, `₹`, `₺`, `₽`, `฿`, `RM`, `Rp`, `₱`,
//! `AED`...) and amounts in any grouping convention (`21.490.000 ₫`,
//! `21,490,000 VND`, `12 990 000đ`, `1'234.50`, `1.299,99 €`, `$1,299.99`,
//! `21tr490`, `1,2 triệu`, `Miễn phí` → 0).
//!
//! The one money parser of Halley: extraction (`browser_extract`),
//! `normalize_compare` and price watches all read money here.
//!
//! * [`parse_amount`]: text → [`MoneyAmount`] (an exact [`Decimal`] and the
//!   ISO code, when the text states one), for storing and comparing.
//! * [`parse_money`]: the same reading as [`Money`] (`f64`, or a percentage
//!   for discounts).
//! * [`detect_currency`] / [`currency_code`]: the currency a text names.
//! * [`minor_digits`] / [`minor_units`]: the currency's minor unit.

use super::duration::DURATION_WORDS;
pub use super::number::Decimal;
use super::number::{Style, has_digit_after, read_number, several_numbers};
use super::text::{fold_char, lower_chars};
use super::{Parsed, Reject, bad};

/// Currencies written without minor units (ISO 4217 exponent 0, and the
/// rupiah, written without them): their amounts never have decimals.
pub fn zero_decimal(code: &str) -> bool {
    matches!(code, "VND" | "JPY" | "KRW" | "IDR" | "CLP" | "ISK" | "PYG" | "UGX" | "XAF" | "XOF")
}

/// ISO code of a currency word, code or name, lowercase (`usd`, `euro`,
/// `vnđ`, `dong`, `yen`, `rm`, `zł`, `kr`). English words that are also
/// codes (`try`, `all`, `top`, `pen`...) are left out.
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
        "twd" | "ntd" => "TWD",
        "inr" | "rupee" | "rupees" => "INR",
        "chf" => "CHF",
        "pln" | "zł" | "zloty" | "złoty" | "zlotych" | "złotych" => "PLN",
        "myr" | "rm" | "ringgit" => "MYR",
        "idr" | "rp" | "rupiah" => "IDR",
        "php" => "PHP",
        "brl" => "BRL",
        "aed" => "AED",
        "sek" | "kr" => "SEK",
        "nok" => "NOK",
        "dkk" => "DKK",
        "isk" => "ISK",
        "czk" | "kč" => "CZK",
        "huf" | "forint" => "HUF",
        "bgn" | "лв" => "BGN",
        "hrk" | "kn" => "HRK",
        "rsd" => "RSD",
        "руб" => "RUB",
        "uah" | "грн" => "UAH",
        "byn" => "BYN",
        "kzt" | "tenge" => "KZT",
        "ils" | "shekel" | "shekels" => "ILS",
        "zar" => "ZAR",
        "mxn" => "MXN",
        "ars" => "ARS",
        "clp" => "CLP",
        "uyu" => "UYU",
        "nzd" => "NZD",
        "sar" => "SAR",
        "qar" => "QAR",
        "kwd" => "KWD",
        "egp" => "EGP",
        "ngn" => "NGN",
        "kes" => "KES",
        "pkr" => "PKR",
        "bdt" => "BDT",
        "lkr" => "LKR",
        _ => return None,
    })
}

/// Symbols checked in this order (prefixed dollars before the bare `$`).
const CURRENCY_SYMBOLS: &[(&str, &str)] = &[
    ("us$", "USD"),
    ("hk$", "HKD"),
    ("nt$", "TWD"),
    ("nz$", "NZD"),
    ("mx$", "MXN"),
    ("au$", "AUD"),
    ("ca$", "CAD"),
    ("s$", "SGD"),
    ("a$", "AUD"),
    ("c$", "CAD"),
    ("r$", "BRL"),
    ("cn¥", "CNY"),
    ("₫", "VND"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("円", "JPY"),
    ("元", "CNY"),
    ("₩", "KRW"),
    ("원", "KRW"),
    ("฿", "THB"),
    ("₹", "INR"),
    ("₱", "PHP"),
    ("₸", "KZT"),
    ("₺", "TRY"),
    ("₽", "RUB"),
    ("₴", "UAH"),
    ("₪", "ILS"),
    ("₦", "NGN"),
    ("₡", "CRC"),
    ("₲", "PYG"),
    ("₭", "LAK"),
    ("៛", "KHR"),
    ("₮", "MNT"),
    ("₼", "AZN"),
    ("₾", "GEL"),
    ("৳", "BDT"),
    ("₨", "PKR"),
    ("zł", "PLN"),
    ("kč", "CZK"),
    ("ر.س", "SAR"),
    ("د.إ", "AED"),
];

/// ISO codes read when written in capitals (`1 234,50 CZK`), beyond the
/// lowercase words: codes that are also words (`TRY`, `PEN`, `GEL`, `RUB`,
/// `RON`...) only count in capitals right before or after a number. Every
/// code a symbol stands for is here or among the words, so that an amount
/// shown with its code (`89.90 LAK`) reads back.
const CAPITAL_CODES: &[&str] =
    &["TRY", "PEN", "GEL", "AMD", "RON", "COP", "RUB", "CRC", "PYG", "LAK", "KHR", "MNT", "AZN"];

/// Words read only as written (`Ft`, `TL`, `Rs`): lowercase they are other words.
const CASED_WORDS: &[(&str, &str)] = &[("Ft", "HUF"), ("TL", "TRY"), ("Rs", "INR")];

/// The currency a text states: a symbol (`₫ € £ ₩ ₸ zł Kč NT$...`), an ISO
/// code or a currency word (`VND`, `vnđ`, `usd`, `euro`, `kr`), the bare
/// `$` (USD) and `¥` (yen unless `元`, `CN¥`, `CNY` or `RMB` says yuan),
/// then a lone `đ` (`21.490.000đ`).
pub fn detect_currency(text: &str) -> Option<&'static str> {
    let lc: String = lower_chars(text).into_iter().collect();
    if let Some((_, code)) = CURRENCY_SYMBOLS.iter().find(|(sym, _)| lc.contains(sym)) {
        return Some(code);
    }
    let words = || text.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty());
    let mut saw_d = false;
    for w in words() {
        let lw = w.to_lowercase();
        if let Some(code) = currency_code_word(&lw) {
            if lw == "đ" {
                saw_d = true;
                continue;
            }
            return Some(code);
        }
        if let Some((_, code)) = CASED_WORDS.iter().find(|(cw, _)| *cw == w) {
            return Some(code);
        }
        if let Some(code) = CAPITAL_CODES.iter().find(|c| **c == w && next_to_number(text, c)) {
            return Some(code);
        }
    }
    if lc.contains('$') {
        return Some("USD");
    }
    if lc.contains(['¥', '￥']) {
        let yuan = ["cny", "rmb"].iter().any(|w| lc.contains(w));
        return Some(if yuan { "CNY" } else { "JPY" });
    }
    // `21.490.000đ`: the letters split off the digits give a lone `đ` word.
    if saw_d { Some("VND") } else { None }
}

/// `word` stands as a word right before or after a number (`1 299 TRY`, `RUB 990`).
fn next_to_number(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let (before, after) = (&text[..at], &text[at + word.len()..]);
        let bounded = !before.ends_with(char::is_alphabetic) && !after.starts_with(char::is_alphabetic);
        bounded
            && (before.trim_end().ends_with(|c: char| c.is_ascii_digit())
                || after.trim_start().starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// The ISO code a code, symbol or word names (`VND`, `vnd`, `₫`, `usd`,
/// `RMB` → CNY); any other three letters pass as a code (`XAU`, `nzd`).
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

/// An amount of money read exactly: `12.990.000 ₫` is `{12990000, VND}`,
/// `1'234.50 CHF` is `{1234.5, CHF}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoneyAmount {
    /// In the currency's major unit, exactly as written (trailing zeros dropped).
    pub amount: Decimal,
    /// The ISO code the text states, if any.
    pub currency: Option<&'static str>,
}

impl MoneyAmount {
    /// The amount as a whole number of the currency's minor units, rounded
    /// half away from zero (two decimals when the currency is unknown).
    pub fn minor_units(&self) -> Option<i128> {
        let digits = self.currency.map_or(2, minor_digits);
        self.amount.round_to(digits).map(|d| d.units)
    }
}

/// Reads an amount of money exactly, with its currency: the first amount in
/// the text (a warning when more numbers follow). Percentages and
/// durations are [`Reject::WrongKind`]; `Miễn phí` / `free` is 0.
///
/// `"12.990.000 ₫"`, `"12,990,000đ"`, `"490.000 ₫"` (490 000), `"1.234,56 €"`,
/// `"1 234,56 zł"`, `"1,234.56"`, `"1'234.50 CHF"`, `"₩12,900"`,
/// `"NT$1,290"`, `"1.2 triệu"`, `"21tr490"`.
pub fn parse_amount(text: &str) -> Parsed<(MoneyAmount, Vec<String>)> {
    let (read, warnings) = read_money(text)?;
    if read.percent {
        return Err(Reject::WrongKind);
    }
    Ok((MoneyAmount { amount: read.amount, currency: read.currency }, warnings))
}

struct MoneyRead {
    amount: Decimal,
    currency: Option<&'static str>,
    percent: bool,
}

fn read_money(text: &str) -> Parsed<(MoneyRead, Vec<String>)> {
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
        return Ok((MoneyRead { amount: Decimal::ZERO, currency, percent: false }, warnings));
    }
    let Some(read) = read_number(&lc, &fd, Style::Money, true)? else {
        return bad(format!("no amount in \"{}\"", text.trim()));
    };
    let mut warnings = Vec::new();
    if has_digit_after(&lc, read.end) {
        warnings.push(several_numbers(text.trim()));
    }
    Ok((MoneyRead { amount: read.exact, currency, percent: read.percent }, warnings))
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

/// Reads an amount of money and its currency (the [`parse_amount`]
/// reading, as `f64`; a percentage is [`Money::Percent`]).
///
/// `"21.490.000 ₫"`, `"21.490.000đ"`, `"21,490,000 VND"`, `"21tr490"`,
/// `"21,49 triệu"`, `"1.299,99 €"`, `"€89,90"`, `"$1,299.99"`,
/// `"1 299,99 zł"`, `"19.99M"`, `"19,99tr"`, `"1.2k"`, `"Miễn phí"` → 0.
/// Texts naming a duration (`"2-3 ngày"`) are [`Reject::WrongKind`].
pub fn parse_money(text: &str) -> Parsed<(Money, Vec<String>)> {
    let (read, warnings) = read_money(text)?;
    let value = read.amount.to_f64();
    if read.percent {
        return Ok((Money::Percent(value), warnings));
    }
    Ok((Money::Amount { value, currency: read.currency }, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_code_of_every_symbol_reads_as_that_currency() {
        // Found by `make fuzz`: "₭89,90" read as LAK was shown as
        // "89.90 LAK", which read back without a currency.
        for (_, code) in CURRENCY_SYMBOLS {
            for text in [format!("89.90 {code}"), format!("{code} 1,299")] {
                assert_eq!(detect_currency(&text), Some(*code), "{text}");
            }
        }
    }

    fn money(text: &str) -> (f64, Option<&'static str>) {
        match parse_money(text) {
            Ok((Money::Amount { value, currency }, _)) => (value, currency),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn exact(text: &str) -> (String, Option<&'static str>) {
        match parse_amount(text) {
            Ok((m, _)) => (m.amount.to_string(), m.currency),
            Err(e) => panic!("{text}: {e:?}"),
        }
    }

    #[test]
    fn amounts_are_exact_in_every_grouping() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("1.234,56", "1234.56", None),
            ("1 234,56 €", "1234.56", Some("EUR")),
            ("1\u{202f}234,56\u{a0}€", "1234.56", Some("EUR")),
            ("1,234.56", "1234.56", None),
            ("12.990.000 ₫", "12990000", Some("VND")),
            ("21.490.000 ₫", "21490000", Some("VND")),
            ("490.000 ₫", "490000", Some("VND")),
            ("12,990,000đ", "12990000", Some("VND")),
            ("12 990 000 VNĐ", "12990000", Some("VND")),
            ("1'234.50 CHF", "1234.5", Some("CHF")),
            ("CHF 1’234.50", "1234.5", Some("CHF")),
            ("1.2 triệu", "1200000", None),
            ("1,2 triệu đồng", "1200000", Some("VND")),
            ("21tr490", "21490000", None),
            ("0.10", "0.1", None),
            ("$0.99", "0.99", Some("USD")),
            ("US$ 1,299.99", "1299.99", Some("USD")),
            ("€ 89,90", "89.9", Some("EUR")),
            ("£1,049.00", "1049", Some("GBP")),
            ("¥12,800", "12800", Some("JPY")),
            ("12,800円", "12800", Some("JPY")),
            ("￥3,999", "3999", Some("JPY")),
            ("CN¥ 99.50", "99.5", Some("CNY")),
            ("₩12,900", "12900", Some("KRW")),
            ("12,900원", "12900", Some("KRW")),
            ("24 990 ₸", "24990", Some("KZT")),
            ("NT$1,290", "1290", Some("TWD")),
            ("1 299,99 zł", "1299.99", Some("PLN")),
            ("2 499 Kč", "2499", Some("CZK")),
            ("12 990 Ft", "12990", Some("HUF")),
            ("1 295 kr", "1295", Some("SEK")),
            ("1.295,00 DKK", "1295", Some("DKK")),
            ("CHF 49.90", "49.9", Some("CHF")),
            ("R$ 1.299,90", "1299.9", Some("BRL")),
            ("₹1,23,456", "123456", Some("INR")),
            ("1.299,90 ₺", "1299.9", Some("TRY")),
            ("1 299 ₽", "1299", Some("RUB")),
            ("฿1,290", "1290", Some("THB")),
            ("RM 129.00", "129", Some("MYR")),
            ("Rp 1.250.000", "1250000", Some("IDR")),
            ("₱1,499.00", "1499", Some("PHP")),
            ("AED 1,299", "1299", Some("AED")),
            ("1 299 грн", "1299", Some("UAH")),
            ("49,90 лв", "49.9", Some("BGN")),
            ("Rs. 2,499", "2499", Some("INR")),
            ("1.299,00 RON", "1299", Some("RON")),
            ("S$ 12", "12", Some("SGD")),
            ("HK$ 1,200", "1200", Some("HKD")),
            ("A$ 99.95", "99.95", Some("AUD")),
            ("₪ 349.90", "349.9", Some("ILS")),
        ];
        for (text, amount, currency) in cases {
            assert_eq!(exact(text), (amount.to_string(), *currency), "{text}");
        }
    }

    #[test]
    fn amounts_in_minor_units() {
        let (m, _) = parse_amount("12.990.000 ₫").unwrap();
        assert_eq!(m.minor_units(), Some(12_990_000));
        let (m, _) = parse_amount("1.299,99 €").unwrap();
        assert_eq!(m.minor_units(), Some(129_999));
        let (m, _) = parse_amount("$0.995").unwrap();
        assert_eq!(m.minor_units(), Some(100));
        assert_eq!(parse_amount("10%").err(), Some(Reject::WrongKind));
        assert_eq!(parse_amount("2-3 ngày").err(), Some(Reject::WrongKind));
        let (m, _) = parse_amount("Miễn phí").unwrap();
        assert_eq!(m.amount, Decimal::ZERO);
    }

    #[test]
    fn words_that_are_not_currencies() {
        assert_eq!(detect_currency("6 ft cable"), None);
        assert_eq!(detect_currency("Lei ha 3 figli"), None);
        assert_eq!(detect_currency("rub 2 times"), None);
        assert_eq!(detect_currency("TRY IT FREE FOR 10 DAYS"), None);
        assert_eq!(detect_currency("TRY NOW: 10 days"), None);
        assert_eq!(detect_currency("1.299,90 TRY"), Some("TRY"));
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
