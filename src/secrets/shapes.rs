//! Sensitive by what a value is, not by what its key is called: card
//! numbers (Luhn), IBANs (mod 97), passport numbers, national ID numbers,
//! phone numbers, email addresses and postal addresses are recognised by
//! their shape, whatever the profile key (`travel.passportNumber`,
//! `contact.mobile`, `dia_chi`, `x.y`).
//!
//! Where a shape alone would take ordinary values for sensitive ones, the
//! key decides (its words are read folded and split at camelCase humps and
//! any separator):
//! - a 12-digit number is a Vietnamese citizen ID (CCCD) by itself only when
//!   written with a leading `0` (every CCCD starts with its province code,
//!   001 to 096; a price or an amount never starts with 0); other 9- or
//!   12-digit numbers (the old CMND has 9) count under a key that names an
//!   ID (`id`, `cccd`, `cmnd`, `can_cuoc`, `identity`, `citizen`...);
//! - a phone number by itself is a Vietnamese mobile or landline (`0` then
//!   9 or 10 digits, `+84`/`84` then 9 or 10) or an international one written
//!   with `+`; under a key that names a phone (`phone`, `mobile`, `tel`,
//!   `sdt`, `zalo`...) any 8 to 15 digits count;
//! - a passport number is one or two letters and 7 or 8 digits (Vietnam's
//!   `B7654321`), separators allowed; 9 bare digits only under a passport key.
//!
//! So prices (`21.490.000 ₫`, `25000000`), dates, order numbers and
//! postcodes stay plain.

use crate::vocab::text::{fold_camel_key, readable};

/// What kind of sensitive value a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Card,
    Iban,
    Passport,
    NationalId,
    Phone,
    Email,
    Address,
}

impl Shape {
    /// In English, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Card => "a card number",
            Shape::Iban => "an IBAN",
            Shape::Passport => "a passport number",
            Shape::NationalId => "a national ID number",
            Shape::Phone => "a phone number",
            Shape::Email => "an email address",
            Shape::Address => "a postal address",
        }
    }
}

/// Key words (folded, as `_`-separated parts) that say a number is an ID.
const ID_WORDS: &[&str] =
    &["id", "cccd", "cmnd", "cmt", "identity", "citizen", "national", "can_cuoc", "cancuoc", "chung_minh", "ssn"];
/// Key words that say a number is a phone number.
const PHONE_WORDS: &[&str] =
    &["phone", "mobile", "tel", "telephone", "cell", "sdt", "dien_thoai", "dienthoai", "zalo", "whatsapp", "hotline"];
/// Key words that say a value is a passport number.
const PASSPORT_WORDS: &[&str] = &["passport", "ho_chieu", "hochieu"];

/// The sensitive shape of `value` under `key` (the key's words only help
/// with numbers that could be something else), if any.
pub fn shape_of(key: &str, value: &str) -> Option<Shape> {
    let value = readable(value);
    let value = value.trim();
    if value.is_empty() || value.chars().count() > 200 {
        return None;
    }
    let key = fold_camel_key(&readable(key));
    let says = |words: &[&str]| words.iter().any(|w| has_part(&key, w));
    if is_email(value) {
        return Some(Shape::Email);
    }
    if is_iban(value) {
        return Some(Shape::Iban);
    }
    if let Some(digits) = number_digits(value) {
        if (13..=19).contains(&digits.len()) && luhn(&digits) {
            return Some(Shape::Card);
        }
        if says(PHONE_WORDS) && (8..=15).contains(&digits.len()) {
            return Some(Shape::Phone);
        }
        if says(PASSPORT_WORDS) && (7..=9).contains(&digits.len()) {
            return Some(Shape::Passport);
        }
        if says(ID_WORDS) && matches!(digits.len(), 9 | 12) {
            return Some(Shape::NationalId);
        }
        if digits.len() == 12 && digits.starts_with('0') && !value.contains('+') {
            return Some(Shape::NationalId);
        }
        if is_phone(value, &digits) {
            return Some(Shape::Phone);
        }
        return None;
    }
    if is_passport(value) {
        return Some(Shape::Passport);
    }
    if is_address(value) {
        return Some(Shape::Address);
    }
    None
}

/// Whether the folded key `key` (`travel_passport_number`) has `word`
/// (`passport`, or `ho_chieu`) as whole `_`-separated parts.
pub(crate) fn has_part(key: &str, word: &str) -> bool {
    let parts: Vec<&str> = key.split('_').collect();
    let want: Vec<&str> = word.split('_').collect();
    parts.windows(want.len()).any(|w| w == want.as_slice())
}

/// The digits of a value written with digits and separators only (spaces,
/// `-`, `.`, `/`, parentheses, a leading `+`); `None` for anything else.
fn number_digits(value: &str) -> Option<String> {
    let body = value.strip_prefix('+').unwrap_or(value);
    if !body.chars().all(|c| c.is_ascii_digit() || " -.()/".contains(c)) {
        return None;
    }
    let digits: String = body.chars().filter(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some(digits)
}

/// The Luhn checksum of a card number.
pub fn luhn(digits: &str) -> bool {
    let mut sum = 0u32;
    for (i, c) in digits.chars().rev().enumerate() {
        let Some(mut d) = c.to_digit(10) else { return false };
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    !digits.is_empty() && sum.is_multiple_of(10)
}

/// An IBAN: two letters, two check digits, 11 to 30 letters or digits
/// (spaces allowed), whose mod-97 check is 1.
pub fn is_iban(value: &str) -> bool {
    let compact: String = value.chars().filter(|c| *c != ' ' && *c != '-').collect::<String>().to_ascii_uppercase();
    let b = compact.as_bytes();
    if !(15..=34).contains(&b.len())
        || !b[..2].iter().all(u8::is_ascii_uppercase)
        || !b[2..4].iter().all(u8::is_ascii_digit)
        || !b.iter().all(u8::is_ascii_alphanumeric)
    {
        return false;
    }
    let mut rem = 0u32;
    for &c in b[4..].iter().chain(&b[..4]) {
        let v = if c.is_ascii_digit() { u32::from(c - b'0') } else { u32::from(c - b'A') + 10 };
        rem = if v >= 10 { (rem * 100 + v) % 97 } else { (rem * 10 + v) % 97 };
    }
    rem == 1
}

/// A phone number with no help from its key: a Vietnamese one (`0` and 9
/// or 10 digits, `84` and 9 or 10 digits; mobiles start `03`, `05`, `07`,
/// `08`, `09`, landlines `02`) or an international one written with `+`
/// (8 to 15 digits).
fn is_phone(value: &str, digits: &str) -> bool {
    let national = digits.strip_prefix("84").filter(|_| value.trim_start().starts_with('+') || digits.len() == 11);
    let national = national.map(|n| format!("0{n}"));
    let vn = national.as_deref().unwrap_or(digits);
    let vietnamese = matches!(vn.len(), 10 | 11)
        && vn.starts_with('0')
        && matches!(vn.as_bytes().get(1), Some(b'2' | b'3' | b'5' | b'7' | b'8' | b'9'))
        && (vn.len() == 10 || vn.starts_with("02"));
    vietnamese || (value.trim_start().starts_with('+') && (8..=15).contains(&digits.len()))
}

/// An email address: `local@domain.tld`, nothing else around it.
pub fn is_email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else { return false };
    let ok_local = !local.is_empty() && local.chars().all(|c| c.is_alphanumeric() || "._%+-'".contains(c));
    let labels: Vec<&str> = domain.split('.').collect();
    ok_local
        && labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|t| t.chars().count() >= 2 && t.chars().all(char::is_alphabetic))
}

/// A passport number: one or two letters then 7 or 8 digits (`B7654321`,
/// `C 1234 5678`, `B-765-4321`).
fn is_passport(value: &str) -> bool {
    if !value.chars().all(|c| c.is_ascii_alphanumeric() || " -.".contains(c)) {
        return false;
    }
    let compact: Vec<char> = value.chars().filter(char::is_ascii_alphanumeric).collect();
    let letters = compact.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let digits = compact.len() - letters;
    (1..=2).contains(&letters) && (7..=8).contains(&digits) && compact[letters..].iter().all(char::is_ascii_digit)
}

/// Words of a postal address, written with their accents (Vietnamese) or in
/// English. Unaccented Vietnamese (`quan`, `phuong`) counts only before a
/// number (`Quan 1`): alone it is too many other words (`quần`, clothes).
pub(crate) const ADDRESS_WORDS: &[&str] = &[
    "đường",
    "phố",
    "phường",
    "quận",
    "huyện",
    "xã",
    "thị",
    "ngõ",
    "ngách",
    "hẻm",
    "kiệt",
    "thôn",
    "ấp",
    "tổ",
    "khu",
    "tp",
    "tp.",
    "tphcm",
    "street",
    "st",
    "st.",
    "road",
    "rd",
    "rd.",
    "avenue",
    "ave",
    "ave.",
    "lane",
    "boulevard",
    "blvd",
    "ward",
    "district",
    "apt",
    "apartment",
    "suite",
    "floor",
];
const ADDRESS_WORDS_BEFORE_NUMBER: &[&str] = &["quan", "phuong", "q", "p", "q.", "p.", "duong", "so"];

/// A postal address: a house number first (`123`, `12A`, `12/3`, `số 5`)
/// with an address word or, after a comma, names (`123 Nguyễn Huệ, Quận 1`,
/// `1 Infinite Loop, Cupertino`); or two address words
/// (`Phường Bến Nghé, Quận 1`).
fn is_address(value: &str) -> bool {
    let tokens: Vec<String> = value.split([' ', ',']).filter(|t| !t.is_empty()).map(str::to_lowercase).collect();
    if tokens.len() < 2 {
        return false;
    }
    let is_number = |t: &str| {
        t.chars().next().is_some_and(|c| c.is_ascii_digit())
            && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '/' || c == '-')
            && t.chars().filter(char::is_ascii_alphabetic).count() <= 1
    };
    let mut words = 0;
    for (i, t) in tokens.iter().enumerate() {
        let next_is_number = tokens.get(i + 1).is_some_and(|n| is_number(n));
        if ADDRESS_WORDS.contains(&t.as_str()) || (next_is_number && ADDRESS_WORDS_BEFORE_NUMBER.contains(&t.as_str()))
        {
            words += 1;
        }
    }
    let house_number = is_number(&tokens[0]) || (matches!(tokens[0].as_str(), "số" | "so") && is_number(&tokens[1]));
    let capitalised = value.split([' ', ',']).filter(|w| w.chars().next().is_some_and(char::is_uppercase)).count();
    (house_number && (words >= 1 || (value.contains(',') && capitalised >= 2))) || words >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(key: &str, value: &str) -> Option<Shape> {
        shape_of(key, value)
    }

    #[test]
    fn cards_by_luhn_with_any_separators() {
        for v in ["4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "5500 0000 0000 0004"] {
            assert_eq!(shape("x.y", v), Some(Shape::Card), "{v}");
        }
        // Luhn fails: not a card (and not anything else).
        assert_eq!(shape("x.y", "4111 1111 1111 1112"), None);
    }

    #[test]
    fn ibans_by_mod_97() {
        assert_eq!(shape("x", "GB82 WEST 1234 5698 7654 32"), Some(Shape::Iban));
        assert_eq!(shape("x", "DE89370400440532013000"), Some(Shape::Iban));
        assert_eq!(shape("x", "GB82 WEST 1234 5698 7654 33"), None);
    }

    #[test]
    fn passports() {
        for v in ["B7654321", "B-7-6-5-4-3-2-1", "C 1234 5678", "b7654321"] {
            assert_eq!(shape("travel.doc", v), Some(Shape::Passport), "{v}");
        }
        assert_eq!(shape("travel.passportNumber", "123456789"), Some(Shape::Passport));
        assert_eq!(shape("travel.số_hộ_chiếu", "12345678"), Some(Shape::Passport));
        assert_eq!(shape("order.sku", "ABC1234567"), None);
    }

    #[test]
    fn national_ids() {
        // CCCD: 12 digits from a province code; alone, with a leading 0.
        assert_eq!(shape("x", "079203001234"), Some(Shape::NationalId));
        assert_eq!(shape("x", "079 203 001 234"), Some(Shape::NationalId));
        // CMND (9 digits) and a 12-digit number only under an ID key.
        assert_eq!(shape("identity.cmnd", "123456789"), Some(Shape::NationalId));
        assert_eq!(shape("giấy_tờ.căn_cước", "179203001234"), Some(Shape::NationalId));
        assert_eq!(shape("me.nationalId", "123456789"), Some(Shape::NationalId));
        assert_eq!(shape("shopping.order_number", "123456789"), None);
        assert_eq!(shape("x", "179203001234"), None);
    }

    #[test]
    fn phones() {
        for v in ["0901234567", "090 123 4567", "090-123-4567", "+84 90 123 4567", "+84901234567", "(028) 3822 1234"] {
            assert_eq!(shape("x.y", v), Some(Shape::Phone), "{v}");
        }
        assert_eq!(shape("x", "+1 415 555 0100"), Some(Shape::Phone));
        assert_eq!(shape("contact.mobile", "555 0100 22"), Some(Shape::Phone));
        assert_eq!(shape("contact.sđt", "91234567"), Some(Shape::Phone));
    }

    #[test]
    fn emails() {
        for v in ["an.nguyen@example.vn", "An.Nguyen@Example.VN", "a+b@mail.co.uk"] {
            assert_eq!(shape("contact.e-mail", v), Some(Shape::Email), "{v}");
            assert_eq!(shape("x", v), Some(Shape::Email), "{v}");
        }
        assert_eq!(shape("x", "@handle"), None);
        assert_eq!(shape("x", "a@b"), None);
    }

    #[test]
    fn addresses() {
        for v in [
            "123 Nguyễn Huệ, Quận 1, TP.HCM",
            "123 Nguyen Hue, Quan 1",
            "12/3 Lê Lợi, Phường Bến Thành",
            "Phường Bến Nghé, Quận 1",
            "Số 5 ngõ 42 Trần Duy Hưng",
            "1 Infinite Loop, Cupertino",
            "221B Baker Street",
        ] {
            assert_eq!(shape("x", v), Some(Shape::Address), "{v}");
        }
    }

    /// Prices, dates, order numbers, postcodes and ordinary text are not sensitive.
    #[test]
    fn ordinary_values_are_not() {
        for (k, v) in [
            ("shopping.budget_vnd", "25000000"),
            ("shopping.last_price", "21.490.000 ₫"),
            ("shopping.last_price", "21490000"),
            ("shopping.big_budget", "150000000000"),
            ("travel.date", "2026-12-24"),
            ("travel.date", "24/12/2026"),
            ("shopping.last_order", "DH123456"),
            ("shopping.last_order", "1234567890123"),
            ("home.postcode", "700000"),
            ("travel.party", "2 adults, 1 child"),
            ("shopping.quan_ao", "Quần jean"),
            ("travel.city", "Hà Nội"),
            ("travel.note", "Đặt phòng gần biển, 2 giường"),
            ("travel.seat", "12A"),
            ("travel.flight", "VN 245"),
            ("x", "iPhone 15 Pro Max 256GB"),
        ] {
            assert_eq!(shape(k, v), None, "{k}={v}");
        }
    }
}
