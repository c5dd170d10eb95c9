//! Money and changes as notifications show them: `19.990.000 ₫` (VND the
//! Vietnamese way), `$1,299.99`, `1.299,99 €`; `21.490.000 ₫ → 19.990.000 ₫ (−7 %)`.

use crate::vocab::money::zero_decimal;

/// Groups `digits` by three with `sep`.
fn grouped(digits: &str, sep: char) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// An amount in `currency` (ISO code), as people there write it.
pub fn money(amount: f64, currency: Option<&str>) -> String {
    let code = currency.unwrap_or("");
    let negative = amount < 0.0;
    let amount = amount.abs();
    let decimals = if zero_decimal(code) || (code.is_empty() && amount.fract() == 0.0) { 0 } else { 2 };
    // Rounded half away from zero first, as `minor_units` rounds (`{:.0}`
    // alone rounds 1234.5 to even: 1.234 ₫ shown for 1.235 ₫ compared).
    let scale = 10f64.powi(decimals as i32);
    let text = format!("{:.decimals$}", (amount * scale).round() / scale);
    let (whole, frac) = text.split_once('.').map_or((text.as_str(), None), |(w, f)| (w, Some(f)));
    let sign = if negative { "-" } else { "" };
    match code {
        "VND" => format!("{sign}{} ₫", grouped(whole, '.')),
        "EUR" => format!("{sign}{}{} €", grouped(whole, '.'), frac.map(|f| format!(",{f}")).unwrap_or_default()),
        "USD" => format!("{sign}${}{}", grouped(whole, ','), frac.map(|f| format!(".{f}")).unwrap_or_default()),
        "" => format!("{sign}{}{}", grouped(whole, ','), frac.map(|f| format!(".{f}")).unwrap_or_default()),
        other => format!("{sign}{}{} {other}", grouped(whole, ','), frac.map(|f| format!(".{f}")).unwrap_or_default()),
    }
}

/// `21.490.000 ₫ → 19.990.000 ₫ (−7 %)`; without an old price just the new one.
pub fn change(old: Option<f64>, new: f64, currency: Option<&str>) -> String {
    change_in(old, new, currency, false)
}

/// [`change`] with the percentage written the Vietnamese way when `vi`
/// (`−9,8 %`).
pub fn change_in(old: Option<f64>, new: f64, currency: Option<&str>, vi: bool) -> String {
    match old {
        Some(old) if old > 0.0 && (old - new).abs() > f64::EPSILON => {
            let pct = (new - old) / old * 100.0;
            let shown = if pct.abs() >= 10.0 { format!("{:.0}", pct.abs()) } else { format!("{:.1}", pct.abs()) };
            let shown = shown.strip_suffix(".0").unwrap_or(&shown);
            let shown = if vi { shown.replace('.', ",") } else { shown.to_owned() };
            let sign = if pct < 0.0 { "−" } else { "+" };
            format!("{} → {} ({sign}{shown} %)", money(old, currency), money(new, currency))
        }
        _ => money(new, currency),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn rounds_half_away_from_zero_like_minor_units() {
        // Found by `make fuzz`: "1'234.50 ₫" read as 1234.5 VND was shown as
        // "1.234 ₫" (rounded to even) and read back as 1234.
        assert_eq!(money(1234.5, Some("VND")), "1.235 ₫");
        assert_eq!(money(12.5, Some("VND")), "13 ₫");
        assert_eq!(money(-2.5, Some("VND")), "-3 ₫");
        for (text, code) in [("1'234.50 ₫", "VND"), ("£₫12.50", "VND"), ("2,125 €", "EUR")] {
            let Ok((crate::vocab::money::Money::Amount { value, currency }, _)) =
                crate::vocab::money::parse_money(text)
            else {
                panic!("{text} reads as an amount");
            };
            let shown = money(value, currency);
            let Ok((crate::vocab::money::Money::Amount { value: again, .. }, _)) =
                crate::vocab::money::parse_money(&shown)
            else {
                panic!("{shown} reads as an amount");
            };
            let minor = |v| crate::vocab::money::minor_units(v, code);
            assert_eq!(minor(again), minor(value), "{text} shown as {shown}");
        }
    }

    #[test]
    fn formats_money_per_currency() {
        assert_eq!(money(19_990_000.0, Some("VND")), "19.990.000 ₫");
        assert_eq!(money(490_000.0, Some("VND")), "490.000 ₫");
        assert_eq!(money(1299.99, Some("USD")), "$1,299.99");
        assert_eq!(money(1299.9, Some("EUR")), "1.299,90 €");
        assert_eq!(money(120.0, Some("JPY")), "120 JPY");
        assert_eq!(money(1500.0, None), "1,500");
    }

    #[test]
    fn formats_changes() {
        assert_eq!(change(Some(21_490_000.0), 19_990_000.0, Some("VND")), "21.490.000 ₫ → 19.990.000 ₫ (−7 %)");
        assert_eq!(change(Some(100.0), 80.0, Some("USD")), "$100.00 → $80.00 (−20 %)");
        assert_eq!(change_in(Some(1_000_000.0), 902_000.0, Some("VND"), true), "1.000.000 ₫ → 902.000 ₫ (−9,8 %)");
        assert_eq!(change_in(Some(1_000_000.0), 902_000.0, Some("VND"), false), "1.000.000 ₫ → 902.000 ₫ (−9.8 %)");
        assert_eq!(change(None, 80.0, Some("USD")), "$80.00");
    }
}
