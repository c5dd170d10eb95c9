//! The user's values found however they are written: in page text shown
//! to the model (masked to their placeholders) and in everything that
//! leaves (`crate::gate::exfil`).
//!
//! Both the value and the text are brought to one normal form: read as a
//! person reads them (invisible characters dropped, look-alike letters of
//! other scripts read as Latin: [`readable`]), lowercase, without
//! diacritics, and with everything but letters and digits dropped (spaces,
//! dashes, dots, `@`, brackets), as are the words `at`, `dot` and `chấm`
//! standing alone (`an.nguyen at example dot vn` is `An.Nguyen@Example.vn`
//! is `annguyenexamplevn`). A number is also looked for in its other
//! Vietnamese phone form (`0901…` ⇄ `84901…`), so `0901234567` is found in
//! `090 123 4567`, `090-123-4567` and `+84 90 123 4567`, and `B7654321` in
//! `B-7-6-5-4-3-2-1`.
//!
//! In page text a match must stand alone: it may not start or end in the
//! middle of a word or a number (`20901234567` does not hold `0901234567`).
//! The text is normalised once and every value is looked for in one pass
//! (Aho-Corasick), so a 200 KB page costs a few milliseconds.

use aho_corasick::{AhoCorasick, MatchKind};

use super::keys::SecretValue;
use crate::vocab::text::{fold_char, is_invisible, is_mark, readable};

/// The fewest characters of a normal form that is looked for: shorter ones
/// turn up by chance.
pub const MIN_NORMAL_CHARS: usize = 4;

/// The fewest digits for a number's other phone form to be looked for.
const MIN_DIGITS: usize = 6;

/// Words that stand for `@` and `.` in a written-out email address.
const SPELLED_SEPARATORS: &[&str] = &["at", "dot", "cham"];

/// One character of the normal form and where it came from.
#[derive(Debug, Clone, Copy)]
struct Unit {
    c: char,
    /// The original character's byte range.
    start: usize,
    end: usize,
    /// Something was dropped between this and the previous unit (a space, a
    /// dash, a spelled `at`).
    gap: bool,
}

/// A text in normal form that maps back to the original.
pub struct Normal {
    units: Vec<Unit>,
    text: String,
    /// For every byte of `text`, its unit.
    unit_of: Vec<usize>,
}

impl Normal {
    pub fn new(s: &str) -> Normal {
        let mut units = Vec::with_capacity(s.len());
        let mut gap = false;
        let mut buf = [0u8; 4];
        for (i, c) in s.char_indices() {
            let end = i + c.len_utf8();
            let mut push = |f: char, units: &mut Vec<Unit>| {
                if f.is_alphanumeric() {
                    units.push(Unit { c: f, start: i, end, gap });
                    gap = false;
                } else {
                    gap = true;
                }
            };
            if c.is_ascii() {
                push(c.to_ascii_lowercase(), &mut units);
            } else if is_invisible(c) || is_mark(c) {
                // Not seen; a mark's letter is already there.
            } else {
                for r in readable(c.encode_utf8(&mut buf)).chars() {
                    for l in r.to_lowercase() {
                        if !is_mark(l) {
                            push(fold_char(l), &mut units);
                        }
                    }
                }
            }
        }
        drop_spelled_separators(&mut units);
        let mut text = String::with_capacity(units.len());
        let mut unit_of = Vec::with_capacity(units.len());
        for (n, u) in units.iter().enumerate() {
            text.push(u.c);
            unit_of.extend(std::iter::repeat_n(n, u.c.len_utf8()));
        }
        Normal { units, text, unit_of }
    }

    /// The normal form.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the normal-form bytes `from..to` stand alone: no letter
    /// right before a letter nor digit before a digit without a gap, at
    /// either end.
    fn stands_alone(&self, from: usize, to: usize) -> bool {
        let (Some(&first), Some(&last)) = (self.unit_of.get(from), self.unit_of.get(to.saturating_sub(1))) else {
            return false;
        };
        let glued = |a: usize, b: usize| {
            let (x, y) = (self.units[a], self.units[b]);
            !y.gap && (x.c.is_numeric() == y.c.is_numeric())
        };
        (first == 0 || !glued(first - 1, first)) && (last + 1 >= self.units.len() || !glued(last, last + 1))
    }

    /// The original byte range of the normal-form bytes `from..to`, with
    /// the `+` written right before a number (`+84 90…`).
    fn original(&self, s: &str, from: usize, to: usize) -> Option<(usize, usize)> {
        let first = *self.unit_of.get(from)?;
        let last = *self.unit_of.get(to.checked_sub(1)?)?;
        let mut start = self.units[first].start;
        if self.units[first].c.is_ascii_digit() && start > 0 && s.as_bytes().get(start - 1) == Some(&b'+') {
            start -= 1;
        }
        Some((start, self.units[last].end))
    }
}

/// Drops the words `at`, `dot`, `chấm` standing alone between gaps (the
/// next unit keeps the gap).
fn drop_spelled_separators(units: &mut Vec<Unit>) {
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        let word_start = i == 0 || units[i].gap;
        if word_start && units[i].c.is_alphabetic() {
            let mut j = i + 1;
            while j < units.len() && !units[j].gap && units[j].c.is_alphabetic() {
                j += 1;
            }
            let word_end = j == units.len() || units[j].gap;
            let word: String = units[i..j].iter().map(|u| u.c).collect();
            if word_end && SPELLED_SEPARATORS.contains(&word.as_str()) && i > 0 && j < units.len() {
                if let Some(next) = units.get_mut(j) {
                    next.gap = true;
                }
                i = j;
                continue;
            }
            out.extend_from_slice(&units[i..j]);
            i = j;
            continue;
        }
        out.push(units[i]);
        i += 1;
    }
    *units = out;
}

/// `value`'s normal form.
pub fn normal(value: &str) -> String {
    Normal::new(value).text
}

/// The normal forms `value` is looked for in: its own, and for a number its
/// other phone form. Empty when it is too short to look for.
pub fn needles(value: &str) -> Vec<String> {
    let own = normal(value);
    if own.chars().count() < MIN_NORMAL_CHARS {
        return Vec::new();
    }
    let mut out = vec![own.clone()];
    if own.len() >= MIN_DIGITS && own.bytes().all(|b| b.is_ascii_digit()) {
        let other = match own.strip_prefix("84") {
            Some(rest) if own.len() >= 11 => Some(format!("0{rest}")),
            _ => own.strip_prefix('0').map(|rest| format!("84{rest}")),
        };
        out.extend(other.filter(|o| o.len() >= 10));
    }
    out
}

/// Where each secret stands in `text`, as original byte ranges with the
/// secret's index: normalised, standing alone, left to right, longest
/// first where two overlap.
pub fn find_in_text(text: &str, secrets: &[SecretValue]) -> Vec<(usize, usize, usize)> {
    let mut patterns = Vec::new();
    let mut owner = Vec::new();
    for (n, s) in secrets.iter().enumerate() {
        for needle in needles(&s.value) {
            patterns.push(needle);
            owner.push(n);
        }
    }
    if patterns.is_empty() || text.is_empty() {
        return Vec::new();
    }
    let Ok(ac) = AhoCorasick::builder().match_kind(MatchKind::Standard).build(&patterns) else { return Vec::new() };
    let hay = Normal::new(text);
    let mut found: Vec<(usize, usize, usize)> = ac
        .find_overlapping_iter(hay.as_str())
        .filter(|m| hay.stands_alone(m.start(), m.end()))
        .filter_map(|m| hay.original(text, m.start(), m.end()).map(|(a, b)| (a, b, owner[m.pattern().as_usize()])))
        .collect();
    // Left to right; of two starting together, the longer.
    found.sort_by_key(|&(a, b, _)| (a, std::cmp::Reverse(b)));
    let mut kept: Vec<(usize, usize, usize)> = Vec::new();
    for f in found {
        if kept.last().is_none_or(|k| f.0 >= k.1) {
            kept.push(f);
        }
    }
    kept
}

/// `text` with every secret replaced by its placeholder, found in normal
/// form and standing alone; a secret whose normal form is too short to look
/// for (`p@ss`) but that has 4 characters or more is replaced where it is
/// written exactly as stored.
pub fn mask(text: &str, secrets: &[SecretValue]) -> String {
    let mut sorted: Vec<&SecretValue> = secrets
        .iter()
        .filter(|s| s.value.chars().count() >= MIN_NORMAL_CHARS && needles(&s.value).is_empty())
        .collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.value.len()));
    let mut out = text.to_owned();
    for s in sorted {
        if out.contains(&s.value) {
            out = out.replace(&s.value, &s.placeholder);
        }
    }
    let found = find_in_text(&out, secrets);
    if found.is_empty() {
        return out;
    }
    let mut masked = String::with_capacity(out.len());
    let mut at = 0;
    for (a, b, n) in found {
        masked.push_str(&out[at..a]);
        masked.push_str(&secrets[n].placeholder);
        at = b;
    }
    masked.push_str(&out[at..]);
    masked
}

/// Whether `haystack` carries `value` in normal form anywhere, standing
/// alone or not (for what leaves: a URL glues values to anything). Only
/// values whose normal form has 6 characters or more.
pub fn carries_normalised(haystack_normal: &str, value: &str) -> bool {
    needles(value).iter().filter(|n| n.chars().count() >= 6).any(|n| haystack_normal.contains(n.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn secrets() -> Vec<SecretValue> {
        [
            ("travel.passportNumber", "B7654321"),
            ("contact.mobile", "0901234567"),
            ("contact.e-mail", "an.nguyen@example.vn"),
            ("billing.cardNumber", "4111 1111 1111 1111"),
            ("identity.cccd", "079203001234"),
            ("dia_chi", "123 Nguyễn Huệ, Quận 1"),
        ]
        .into_iter()
        .map(|(k, v)| SecretValue::profile(k, v))
        .collect()
    }

    fn masked(text: &str) -> String {
        mask(text, &secrets())
    }

    #[test]
    fn normal_forms() {
        assert_eq!(normal("An.Nguyen@Example.vn"), "annguyenexamplevn");
        assert_eq!(normal("an.nguyen at example dot vn"), "annguyenexamplevn");
        assert_eq!(normal("an.nguyen [at] example (dot) vn"), "annguyenexamplevn");
        assert_eq!(normal("B-7-6-5-4-3-2-1"), "b7654321");
        assert_eq!(normal("+84 90 123 4567"), "84901234567");
        assert_eq!(normal("123 Nguyễn Huệ, QUẬN 1"), "123nguyenhuequan1");
        // Look-alikes and invisible characters.
        assert_eq!(normal("\u{412}7654\u{200b}321"), "b7654321");
        // "at" and "dot" at the ends are words, not separators.
        assert_eq!(normal("look at"), "lookat");
    }

    #[test]
    fn phones_in_every_spelling() {
        for t in ["090 123 4567", "090-123-4567", "+84 90 123 4567", "090.123.4567", "090 1234 567", "84901234567"] {
            assert_eq!(masked(&format!("Gọi {t} nhé")), "Gọi {{profile.contact.mobile}} nhé", "{t}");
        }
    }

    #[test]
    fn passports_emails_cards_ids_addresses() {
        assert_eq!(masked("Hộ chiếu: B-7-6-5-4-3-2-1."), "Hộ chiếu: {{profile.travel.passportNumber}}.");
        assert_eq!(masked("số b 765 4321"), "số {{profile.travel.passportNumber}}");
        for t in ["An.Nguyen@Example.vn", "an.nguyen at example dot vn", "AN.NGUYEN (at) EXAMPLE (dot) VN"] {
            assert_eq!(masked(&format!("Email: {t}")), "Email: {{profile.contact.e-mail}}", "{t}");
        }
        assert_eq!(masked("Thẻ 4111-1111-1111-1111 hết hạn"), "Thẻ {{profile.billing.cardNumber}} hết hạn");
        assert_eq!(masked("CCCD 079 203 001 234"), "CCCD {{profile.identity.cccd}}");
        assert_eq!(masked("Giao tới 123 nguyen hue, quan 1 nhé"), "Giao tới {{profile.dia_chi}} nhé");
        // Cyrillic В for B, a zero-width space inside.
        assert_eq!(masked("\u{412}765\u{200b}4321"), "{{profile.travel.passportNumber}}");
    }

    /// Prices, dates, order numbers and ordinary text are left alone, and
    /// so is a value glued inside a longer number or word.
    #[test]
    fn ordinary_text_is_not_masked() {
        for t in [
            "Giá: 21.490.000 ₫, giảm còn 19.990.000 ₫",
            "Ngày 24/12/2026, đơn hàng #DH20901234567",
            "Mã đơn 20901234567 và 09012345678",
            "Mua tại example.vn, gửi tới an nguyen",
            "Khách sạn 123 Nguyễn Trãi, Quận 5",
            "079203001234567",
            "XB7654321",
        ] {
            assert_eq!(masked(t), t);
        }
    }

    /// A short secret is left to the exact pass; a secret of 3 characters
    /// is not looked for at all.
    #[test]
    fn short_values() {
        let s = vec![SecretValue::profile("me.pin", "1234"), SecretValue::profile("me.gender", "Nam")];
        assert_eq!(mask("pin 1 2 3 4, Nam", &s), "pin {{profile.me.pin}}, Nam");
        assert_eq!(mask("đơn 12345", &s), "đơn 12345");
    }

    #[test]
    fn a_large_page_is_masked_quickly() {
        let para = "Sản phẩm iPhone 15 Pro Max 256GB giá 29.990.000 ₫, giao hàng miễn phí toàn quốc. ";
        let mut page = para.repeat(200_000 / para.len());
        page.push_str("Liên hệ: 090 123 4567 hoặc an.nguyen at example dot vn.");
        page.push_str(&para.repeat(5));
        let start = std::time::Instant::now();
        let out = masked(&page);
        let took = start.elapsed();
        assert!(out.contains("Liên hệ: {{profile.contact.mobile}} hoặc {{profile.contact.e-mail}}."));
        assert!(!out.contains("090 123 4567"));
        assert_eq!(
            out.len(),
            page.len() - "090 123 4567".len() - "an.nguyen at example dot vn".len()
                + "{{profile.contact.mobile}}".len()
                + "{{profile.contact.e-mail}}".len()
        );
        // Generous for a debug build on a loaded machine; linear work is a few ms.
        assert!(took.as_secs() < 5, "{took:?}");
    }

    #[test]
    fn carried_in_normal_form() {
        let hay = normal("https://c.evil/?p=b-7-6-5-4-3-2-1&e=an.nguyen+at+example+dot+vn");
        assert!(carries_normalised(&hay, "B7654321"));
        assert!(carries_normalised(&hay, "an.nguyen@example.vn"));
        assert!(!carries_normalised(&hay, "0901234567"));
    }
}
