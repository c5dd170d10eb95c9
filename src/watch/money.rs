//! The one place watches read money: every price a watch compares (rule
//! values given as text, prices on fetched pages) goes through
//! [`parse_amount`], so the shared money parser can be swapped in here.

use crate::vocab::money::{Money, parse_money};

/// `"19.990.000 ₫"` → `(19990000, Some("VND"))`; `None` when the text holds no amount.
pub fn parse_amount(text: &str) -> Option<(f64, Option<String>)> {
    match parse_money(text) {
        Ok((Money::Amount { value, currency }, _)) if value.is_finite() => Some((value, currency.map(str::to_owned))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vnd_and_usd() {
        assert_eq!(parse_amount("21.490.000 ₫"), Some((21_490_000.0, Some("VND".into()))));
        assert_eq!(parse_amount("490.000 ₫"), Some((490_000.0, Some("VND".into()))));
        assert_eq!(parse_amount("$1,299.99"), Some((1299.99, Some("USD".into()))));
        assert_eq!(parse_amount("cheap"), None);
    }
}
