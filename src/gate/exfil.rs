//! Finding the user's values (profile secrets: passport number, card, phone)
//! inside a URL or a request body, in the encodings a page or a model could
//! use to carry them out: raw or in any case, without diacritics, reversed,
//! percent-encoded (up to three times), `+` for spaces, `\uXXXX` escapes,
//! hex, base64 (standard or URL-safe, padded or not, alone or inside a
//! larger blob), and, for numbers, with or without separators; and in
//! normal form (`crate::secrets::matching`): look-alike letters and
//! invisible characters read through, case, diacritics, spaces, dashes,
//! dots and spelled `at` / `dot` ignored (`B-7-6-5-4-3-2-1`,
//! `an.nguyen at example dot vn`, `+84 90 123 4567`).
//!
//! Secrets shorter than [`MIN_SECRET_CHARS`] are ignored: three characters
//! turn up in too many URLs by chance. The caller passes only identifying
//! values (a city or a gender is not a secret).

use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;

use super::action::SecretValue;
use crate::secrets::matching::{carries_normalised, normal};
use crate::vocab::text::fold;

/// The shortest secret (in characters, after trimming) that is looked for.
pub const MIN_SECRET_CHARS: usize = 4;

/// The fewest digits for a number to be also looked for as digits alone
/// (`0901 234 567` found as `0901234567`, and the other way round).
const MIN_DIGITS: usize = 6;

/// The first secret (in `secrets` order) whose value `haystack` carries.
pub fn find_secret<'a>(haystack: &str, secrets: &'a [SecretValue]) -> Option<&'a SecretValue> {
    find_secrets(haystack, secrets).into_iter().next()
}

/// Every secret whose value `haystack` carries, in `secrets` order.
pub fn find_secrets<'a>(haystack: &str, secrets: &'a [SecretValue]) -> Vec<&'a SecretValue> {
    if haystack.is_empty() || secrets.is_empty() {
        return Vec::new();
    }
    let hay = Haystack::new(haystack);
    secrets.iter().filter(|s| hay.carries(&s.value)).collect()
}

/// `s` and what it decodes to: percent-decoded up to three times, each of
/// those with `+` read as a space, and with `\uXXXX` escapes decoded.
/// Deduplicated, `s` first.
pub fn decode_layers(s: &str) -> Vec<String> {
    let mut layers = vec![s.to_owned()];
    let mut cur = s.to_owned();
    for _ in 0..3 {
        let next = percent_decode(&cur);
        if next == cur {
            break;
        }
        layers.push(next.clone());
        cur = next;
    }
    let extra: Vec<String> = layers
        .iter()
        .flat_map(|l| [l.contains('+').then(|| l.replace('+', " ")), l.contains("\\u").then(|| unescape_u(l))])
        .flatten()
        .collect();
    for l in extra {
        if !layers.contains(&l) {
            layers.push(l);
        }
    }
    layers
}

/// Decodes `%XX` escapes (invalid ones are kept as written; bytes that are
/// not UTF-8 become U+FFFD).
pub(crate) fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// Decodes `\uXXXX` escapes (JSON, JavaScript); others are kept.
fn unescape_u(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\\u") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.get(..4).and_then(|h| u32::from_str_radix(h, 16).ok()).and_then(char::from_u32) {
            Some(c) => {
                out.push(c);
                rest = &after[4..];
            }
            None => {
                out.push_str("\\u");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A haystack, decoded every way once, then searched for each secret.
struct Haystack {
    /// The decoded layers as written (base64 is case-sensitive).
    raw: Vec<String>,
    /// The same, folded (lowercase, no diacritics).
    folded: Vec<String>,
    /// The same, as runs of digits with separators between digits dropped.
    digits: Vec<String>,
    /// The same in normal form (letters and digits only, read as a person reads them).
    normal: Vec<String>,
}

impl Haystack {
    fn new(s: &str) -> Haystack {
        let raw = decode_layers(s);
        let folded = raw.iter().map(|l| fold(l)).collect();
        let digits = raw.iter().map(|l| digit_runs(l)).collect();
        let normal = raw.iter().map(|l| normal(l)).collect();
        Haystack { raw, folded, digits, normal }
    }

    fn carries(&self, value: &str) -> bool {
        let value = value.trim();
        if value.chars().count() < MIN_SECRET_CHARS {
            return false;
        }
        let in_folded = |needle: &str| self.folded.iter().any(|l| l.contains(needle));
        let in_raw = |needle: &str| self.raw.iter().any(|l| l.contains(needle));
        let folded = fold(value);
        let reversed: String = folded.chars().rev().collect();
        if in_folded(&folded) || in_folded(&reversed) || in_folded(&hex::encode(value)) {
            return true;
        }
        let mut forms = vec![value.to_owned()];
        let numbers = number_forms(value);
        forms.extend(numbers.iter().cloned());
        if forms.iter().flat_map(|f| base64_needles(f.as_bytes())).any(|n| in_raw(&n)) {
            return true;
        }
        numbers.iter().any(|n| self.digits.iter().any(|l| l.contains(n.as_str())))
            || self.normal.iter().any(|l| carries_normalised(l, value))
    }
}

/// A number written with only digits and separators (`+84 901-234-567`,
/// `4111 1111 1111 1111`) as digits alone, with its other Vietnamese phone
/// form (`0901…` ⇄ `84901…`). Empty for anything else (a passport number
/// `B1234567` is not a number: its digits alone would match too much).
fn number_forms(value: &str) -> Vec<String> {
    let numeric = value.chars().all(|c| c.is_ascii_digit() || " -.()+/".contains(c));
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    if !numeric || digits.len() < MIN_DIGITS {
        return Vec::new();
    }
    let other = if let Some(rest) = digits.strip_prefix("84") {
        Some(format!("0{rest}"))
    } else {
        digits.strip_prefix('0').map(|rest| format!("84{rest}"))
    };
    std::iter::once(digits).chain(other.filter(|o| o.len() >= 10)).collect()
}

/// `s` as runs of digits: separators between digits (` -.()/+_`) are
/// dropped, anything else ends the run (`"p=0901-234-567&q=1"` →
/// `"|0901234567|1"`).
fn digit_runs(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let in_number = out.ends_with(|d: char| d.is_ascii_digit());
        if c.is_ascii_digit() {
            out.push(c);
        } else if in_number && " -.()/+_".contains(c) {
            // A separator inside a number: dropped.
        } else if !out.ends_with('|') {
            out.push('|');
        }
    }
    out
}

/// The stable part of `bytes`' base64 at each of the three alignments it
/// can have inside a larger blob (0, 1 or 2 bytes before it), in the
/// standard and the URL-safe alphabets, without padding. Characters that
/// also hold bits of the neighbouring bytes are cut off.
fn base64_needles(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for (prefix, cut) in [(0usize, 0usize), (1, 2), (2, 3)] {
        let mut buf = vec![0u8; prefix];
        buf.extend_from_slice(bytes);
        let enc = STANDARD_NO_PAD.encode(&buf);
        let end = if buf.len() % 3 == 0 { enc.len() } else { enc.len().saturating_sub(1) };
        let Some(core) = enc.get(cut..end) else { continue };
        if core.len() < MIN_SECRET_CHARS {
            continue;
        }
        let url_safe = core.replace('+', "-").replace('/', "_");
        out.push(core.to_owned());
        if url_safe != core {
            out.push(url_safe);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};

    use super::*;

    fn secrets() -> Vec<SecretValue> {
        [
            ("travel.passport_no", "B1234567"),
            ("contact.phone", "0901 234 567"),
            ("identity.full_name", "Nguyễn Văn Đức"),
            ("payment.card", "4111-1111-1111-1111"),
            ("identity.gender", "Nam"),
        ]
        .into_iter()
        .map(|(k, v)| SecretValue::profile(k, v))
        .collect()
    }

    fn key(hay: &str) -> Option<String> {
        find_secret(hay, &secrets()).map(|s| s.key.clone())
    }

    fn passport(hay: &str) {
        assert_eq!(key(hay).as_deref(), Some("travel.passport_no"), "{hay}");
    }

    #[test]
    fn raw_and_any_case() {
        passport("https://collector.evil/?p=B1234567");
        passport("https://collector.evil/b1234567/x");
        passport("https://collector.evil/?p=7654321B");
    }

    #[test]
    fn percent_encoded_once_twice_and_plus_for_spaces() {
        passport("https://collector.evil/?p=%42%31%32%33%34%35%36%37");
        passport("https://collector.evil/?p=%2542%2531234567");
        assert_eq!(
            key("https://x.evil/?n=Nguy%E1%BB%85n+V%C4%83n+%C4%90%E1%BB%A9c").as_deref(),
            Some("identity.full_name")
        );
        assert_eq!(key("https://x.evil/?n=nguyen%20van%20duc").as_deref(), Some("identity.full_name"));
        assert_eq!(key(r#"{"n":"Nguy\u1ec5n V\u0103n \u0110\u1ee9c"}"#).as_deref(), Some("identity.full_name"));
    }

    #[test]
    fn base64_alone_or_inside_a_blob_in_both_alphabets() {
        passport(&format!("https://collector.evil/?d={}", STANDARD.encode("B1234567")));
        passport(&format!("https://collector.evil/?d={}", STANDARD_NO_PAD.encode("B1234567")));
        for prefix in ["", "a", "ab", "abc", "{\"passport\":\""] {
            let blob = format!("{prefix}B1234567\",\"x\":1}}");
            passport(&format!("https://c.evil/?d={}", STANDARD.encode(&blob)));
            passport(&format!("https://c.evil/?d={}", URL_SAFE.encode(&blob)));
            // Percent-encoded base64 ('+', '/', '=' escaped).
            let pct = STANDARD.encode(&blob).replace('+', "%2B").replace('/', "%2F").replace('=', "%3D");
            passport(&format!("https://c.evil/?d={pct}"));
        }
    }

    #[test]
    fn hex_in_either_case() {
        passport(&format!("https://c.evil/?h={}", hex::encode("B1234567")));
        passport(&format!("https://c.evil/?h={}", hex::encode_upper("xxB1234567")));
    }

    #[test]
    fn numbers_with_or_without_separators() {
        assert_eq!(key("https://c.evil/?tel=0901234567").as_deref(), Some("contact.phone"));
        assert_eq!(key("https://c.evil/?tel=0901-234-567").as_deref(), Some("contact.phone"));
        assert_eq!(key("https://c.evil/?tel=%2B84%20901%20234%20567").as_deref(), Some("contact.phone"));
        assert_eq!(key("https://c.evil/?c=4111111111111111").as_deref(), Some("payment.card"));
        assert_eq!(key("https://c.evil/?c=4111+1111+1111+1111").as_deref(), Some("payment.card"));
    }

    #[test]
    fn every_secret_carried_is_found() {
        let all = secrets();
        let found: Vec<&str> =
            find_secrets("https://c.evil/?p=B1234567&t=0901234567", &all).iter().map(|s| s.key.as_str()).collect();
        assert_eq!(found, ["travel.passport_no", "contact.phone"]);
    }

    /// Written as a person would read it the same: separators between
    /// every character, look-alike letters, invisible characters, an email
    /// spelled out, a phone in its international form.
    #[test]
    fn normalised_spellings() {
        passport("https://collector.evil/?p=B-1-2-3-4-5-6-7");
        passport("https://collector.evil/?p=b.123.4567");
        passport("https://collector.evil/?p=%D0%921234567"); // Cyrillic В
        passport("https://collector.evil/?p=B12%E2%80%8B34567"); // a zero-width space
        let all =
            [SecretValue::profile("contact.e-mail", "an.nguyen@example.vn"), SecretValue::profile("m", "0901234567")];
        let found = |hay: &str| find_secret(hay, &all).map(|s| s.key.clone());
        for hay in [
            "https://c.evil/?e=An.Nguyen%40Example.vn",
            "https://c.evil/?e=an.nguyen+at+example+dot+vn",
            "https://c.evil/?e=an.nguyen%20(at)%20example%20(dot)%20vn",
        ] {
            assert_eq!(found(hay).as_deref(), Some("contact.e-mail"), "{hay}");
        }
        for hay in [
            "https://c.evil/?t=090%20123%204567",
            "https://c.evil/?t=%2B84%2090%20123%204567",
            "https://c.evil/t/090.123.4567",
        ] {
            assert_eq!(found(hay).as_deref(), Some("m"), "{hay}");
        }
        assert_eq!(found("https://shop.vn/search?q=example+vn&page=2"), None);
        assert_eq!(found("https://shop.vn/p/21490000?price=21.490.000"), None);
    }

    #[test]
    fn no_false_positives() {
        // "Nam" is too short to look for; the passport's digits alone are not the passport.
        assert_eq!(key("https://vnexpress.net/viet-nam-1234567.html?name=nam"), None);
        assert_eq!(key("https://shop.vn/search?q=iphone+15&page=2"), None);
        assert_eq!(key("https://c.evil/?tel=0901-234-568"), None);
        assert_eq!(key(""), None);
        assert!(find_secret("B1234567", &[]).is_none());
    }

    #[test]
    fn layers_decode_in_turn() {
        assert_eq!(
            decode_layers("a%2520b+c"),
            ["a%2520b+c", "a%20b+c", "a b+c", "a%2520b c", "a%20b c", "a b c"].map(String::from).to_vec()
        );
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }
}
