//! The person's own words, sealed before the model reads them: in a message
//! the person writes, each value sensitive by its shape (a card number, an
//! IBAN, a passport or ID number, a phone number, an email, a postal
//! address: [`crate::secrets::shapes`]) reaches the model as a placeholder,
//! `{{secret.msg.<kind>_<id>}}`, which the browser tools fill in for real
//! (`browser_type`), as they do `{{profile.KEY}}`. The model never holds the
//! raw value, so no page can have it re-encode or send it anywhere (base64,
//! reversed, spelled in words...): a value has only the way out the gate
//! already watches, a fill into a page.
//!
//! Other programs' words are sealed the same way before the model reads
//! them (an MCP or client tool's result, a file's text: `Core::call_in`),
//! their labels naming the tool.
//!
//! The placeholder's id is a digest of the value: the same message sealed
//! twice (the same conversation's next run reads it again from the store)
//! gives the same placeholders. A word before a number helps read it
//! (`hộ chiếu 123456789` is a passport number, `CCCD 001234567890` an ID).

use std::ops::Range;

use sha2::{Digest, Sha256};

use crate::secrets::shapes::{ADDRESS_WORDS, Shape, shape_of};

/// The placeholders' namespace (`{{secret.msg.…}}`).
pub const NAMESPACE: &str = "secret.msg.";

/// One value found and sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedValue {
    /// Its placeholder's name, without the braces (`secret.msg.passport_3fa2c1`).
    pub name: String,
    /// What it is, for questions ("your passport number (from your message)").
    pub label: String,
    pub value: String,
    pub shape: Shape,
}

/// A message with its sensitive values replaced by placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub text: String,
    pub values: Vec<SealedValue>,
}

/// Seal `text`, a message of the person's: every sensitive value in it
/// replaced by its placeholder.
pub fn seal(text: &str) -> Sealed {
    seal_from(text, "your message")
}

/// Seal `text`, read from `from` (`your message`, `the result of
/// \`read_file\``): the values' labels say where they came from.
pub fn seal_from(text: &str, from: &str) -> Sealed {
    let spans = sensitive_spans(text);
    let mut out = String::with_capacity(text.len());
    let mut values: Vec<SealedValue> = Vec::new();
    let mut at = 0;
    for (range, shape) in spans {
        out.push_str(&text[at..range.start]);
        let value = text[range.clone()].to_owned();
        let name = format!("{NAMESPACE}{}_{}", kind(shape), digest(&value));
        out.push_str(&format!("{{{{{name}}}}}"));
        if !values.iter().any(|v| v.name == name) {
            let what = shape.name().trim_start_matches("a ").trim_start_matches("an ");
            let label = format!("{what} from {from}");
            values.push(SealedValue { name, label, value, shape });
        }
        at = range.end;
    }
    out.push_str(&text[at..]);
    Sealed { text: out, values }
}

fn kind(shape: Shape) -> &'static str {
    match shape {
        Shape::Card => "card",
        Shape::Iban => "iban",
        Shape::Passport => "passport",
        Shape::NationalId => "id",
        Shape::Phone => "phone",
        Shape::Email => "email",
        Shape::Address => "address",
    }
}

fn digest(value: &str) -> String {
    let hash = Sha256::digest(value.as_bytes());
    hash.iter().take(3).map(|b| format!("{b:02x}")).collect()
}

/// Where `text` holds sensitive values, in order, not overlapping.
pub fn sensitive_spans(text: &str) -> Vec<(Range<usize>, Shape)> {
    let mut found: Vec<(Range<usize>, Shape)> = Vec::new();
    let take = |range: Range<usize>, shape: Shape, found: &mut Vec<(Range<usize>, Shape)>| {
        if !found.iter().any(|(r, _)| r.start < range.end && range.start < r.end) {
            found.push((range, shape));
        }
    };
    // Emails first: their digits are not a phone's.
    for m in email_re().into_iter().flat_map(|re| re.find_iter(text)) {
        if shape_of("", m.as_str()) == Some(Shape::Email) {
            take(m.range(), Shape::Email, &mut found);
        }
    }
    // Runs of letters-then-digits (passports) and of digits with separators
    // (cards, IDs, phones, IBANs), read with the words before them.
    for m in number_re().into_iter().flat_map(|re| re.find_iter(text)) {
        for (range, shape) in numbers_in(text, m.range()) {
            take(range, shape, &mut found);
        }
    }
    // Addresses: a clause from a house number or an address word, as long
    // as it still reads as an address (one that overlaps a number found
    // above is not one).
    for (range, shape) in addresses(text, &found) {
        take(range, shape, &mut found);
    }
    found.sort_by_key(|(r, _)| r.start);
    found
}

fn email_re() -> Option<&'static regex::Regex> {
    static RE: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+").ok());
    RE.as_ref()
}

/// A run of tokens made of digits, ASCII letters and number separators,
/// with at least one digit, separated by single spaces.
fn number_re() -> Option<&'static regex::Regex> {
    static RE: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:\+|\(|\b)[A-Za-z0-9(][A-Za-z0-9().\-/]*(?: [A-Za-z0-9(][A-Za-z0-9().\-/]*)*").ok()
    });
    RE.as_ref()
}

/// The sensitive values among the tokens of the run at `run` of `text`:
/// from each token, the longest run of tokens that has a shape, read under
/// the words just before it.
fn numbers_in(text: &str, run: Range<usize>) -> Vec<(Range<usize>, Shape)> {
    let mut tokens: Vec<Range<usize>> = Vec::new();
    let mut start = run.start;
    for (i, c) in text[run.clone()].char_indices() {
        if c == ' ' {
            tokens.push(start..run.start + i);
            start = run.start + i + 1;
        }
    }
    tokens.push(start..run.end);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let mut matched = None;
        for j in (i..tokens.len().min(i + 6)).rev() {
            let range = tokens[i].start..tokens[j].end;
            let candidate = text[range.clone()].trim_end_matches(['.', ')', '-', '/']);
            if !candidate.chars().any(|c| c.is_ascii_digit()) {
                continue;
            }
            let key = words_before(text, range.start);
            let shape = shape_of(&key, candidate)
                .filter(|s| *s != Shape::Address && *s != Shape::Email)
                .filter(|s| *s != Shape::Passport || passport_in_prose(candidate));
            if let Some(shape) = shape {
                matched = Some((range.start..range.start + candidate.len(), shape, j));
                break;
            }
        }
        match matched {
            Some((range, shape, j)) => {
                out.push((range, shape));
                i = j + 1;
            }
            None => i += 1,
        }
    }
    out
}

/// A passport number read in prose: its letters joined to its digits
/// (`B7654321`, `b7654321`), or a capital apart (`C 1234 5678`), never a
/// word such as `a` or `I` before a number (`a 12.500.000 budget`).
fn passport_in_prose(candidate: &str) -> bool {
    let first = candidate.split([' ', '-', '.']).next().unwrap_or_default();
    if first.chars().any(|c| c.is_ascii_digit()) {
        return true;
    }
    first.chars().all(|c| c.is_ascii_uppercase()) && !matches!(first, "A" | "I")
}

/// Whether `candidate` has a word of an address ([`ADDRESS_WORDS`]): an
/// address in prose must (a house number and names alone are too many
/// other things).
fn has_address_word(candidate: &str) -> bool {
    candidate.split(|c: char| !c.is_alphanumeric()).any(|w| ADDRESS_WORDS.contains(&w.to_lowercase().as_str()))
}

/// The (up to three) words before byte `at` of `text`, as a key reads them
/// (`số hộ chiếu:` → `số hộ chiếu`).
fn words_before(text: &str, at: usize) -> String {
    let before = &text[..at];
    let words: Vec<&str> = before
        .split(|c: char| c.is_whitespace() || ":,;()=#".contains(c))
        .filter(|w| !w.is_empty())
        .rev()
        .take(3)
        .collect();
    words.into_iter().rev().collect::<Vec<_>>().join(" ")
}

/// Abbreviations whose full stop does not end a clause (`TP. Hồ Chí Minh`).
const ABBREVIATIONS: &[&str] = &["tp", "q", "p", "st", "rd", "ave", "tx", "h", "dr", "no", "apt"];

/// Address words a clause may start at, when it does not start with a
/// house number.
const ADDRESS_STARTS: &[&str] =
    &["số", "đường", "phố", "phường", "quận", "huyện", "xã", "ngõ", "ngách", "hẻm", "kiệt", "thôn", "ấp", "tổ", "khu"];

/// Addresses in `text`: in each clause, from the first token that starts
/// one (a house number, `số`, an address word), the longest run of its
/// comma-separated parts that reads as an address.
fn addresses(text: &str, taken: &[(Range<usize>, Shape)]) -> Vec<(Range<usize>, Shape)> {
    let free = |r: &Range<usize>| !taken.iter().any(|(t, _)| t.start < r.end && r.start < t.end);
    let mut out = Vec::new();
    for clause in clauses(text) {
        let part = &text[clause.clone()];
        let mut starts: Vec<usize> = Vec::new();
        let mut offset = 0;
        for token in part.split(' ') {
            let lower = token.to_lowercase();
            let bare = lower.trim_matches(|c: char| !c.is_alphanumeric());
            let numbered = bare.chars().next().is_some_and(|c| c.is_ascii_digit());
            if numbered || ADDRESS_STARTS.contains(&bare) {
                starts.push(offset);
            }
            offset += token.len() + 1;
        }
        for s in starts {
            let from = clause.start + s;
            let rest = &text[from..clause.end];
            // Cut at each comma from the end: the longest that is an address.
            let mut ends: Vec<usize> = rest.match_indices(',').map(|(i, _)| i).collect();
            ends.push(rest.trim_end().len());
            let hit = ends.iter().rev().find(|e| {
                let candidate = rest[..**e].trim_end_matches(['.', ' ']);
                free(&(from..from + candidate.len()))
                    && candidate.contains(' ')
                    && has_address_word(candidate)
                    && shape_of("", candidate) == Some(Shape::Address)
            });
            if let Some(e) = hit {
                let candidate = rest[..*e].trim_end_matches(['.', ' ']);
                out.push((from..from + candidate.len(), Shape::Address));
                break;
            }
        }
    }
    out
}

/// The clauses of `text`: split at line breaks, `;`, `!`, `?`, and at a
/// full stop followed by a space unless it closes an abbreviation.
fn clauses(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes: Vec<(usize, char)> = text.char_indices().collect();
    for (n, (i, c)) in bytes.iter().enumerate() {
        let ends = match c {
            '\n' | ';' | '!' | '?' => true,
            '.' => {
                let next_is_space = bytes.get(n + 1).is_some_and(|(_, c)| *c == ' ');
                let word: String =
                    text[start..*i].rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or_default().to_lowercase();
                next_is_space && !ABBREVIATIONS.contains(&word.as_str())
            }
            _ => false,
        };
        if ends {
            out.push(start..*i);
            start = i + c.len_utf8();
        }
    }
    out.push(start..text.len());
    out.retain(|r| !text[r.clone()].trim().is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed(text: &str) -> (String, Vec<(Shape, String)>) {
        let s = seal(text);
        (s.text, s.values.into_iter().map(|v| (v.shape, v.value)).collect())
    }

    #[test]
    fn the_values_of_a_vietnamese_message_are_sealed_by_their_shape() {
        let (text, values) = sealed(
            "Đặt vé HAN→NRT ngày 10/02/2026 cho tôi, hộ chiếu B7654321, sđt 0901 234 567, \
             email lan.nguyen@example.vn, giao vé đến 12 Lê Lợi, Phường Bến Nghé, Quận 1, TP. Hồ Chí Minh. \
             Thẻ 4111 1111 1111 1111, giá tối đa 12.500.000 ₫.",
        );
        let shapes: Vec<Shape> = values.iter().map(|(s, _)| *s).collect();
        assert!(shapes.contains(&Shape::Passport), "{values:?}");
        assert!(shapes.contains(&Shape::Phone), "{values:?}");
        assert!(shapes.contains(&Shape::Email), "{values:?}");
        assert!(shapes.contains(&Shape::Card), "{values:?}");
        assert!(shapes.contains(&Shape::Address), "{values:?}");
        for raw in ["B7654321", "0901 234 567", "lan.nguyen@example.vn", "4111 1111 1111 1111", "12 Lê Lợi"] {
            assert!(!text.contains(raw), "{raw} left in {text}");
        }
        // What is not the person's: the trip, the date, the price.
        for kept in ["HAN→NRT", "10/02/2026", "12.500.000 ₫", "Đặt vé"] {
            assert!(text.contains(kept), "{kept} lost from {text}");
        }
        assert!(text.contains("{{secret.msg.passport_"), "{text}");
    }

    #[test]
    fn a_word_before_a_number_says_what_it_is() {
        let (_, values) = sealed("số hộ chiếu: 123456789 và CCCD 001234567890");
        assert_eq!(
            values,
            vec![(Shape::Passport, "123456789".to_owned()), (Shape::NationalId, "001234567890".to_owned())]
        );
    }

    #[test]
    fn english_values_and_international_numbers() {
        let (text, values) =
            sealed("Book it for me: passport C 1234 5678, call +44 20 7946 0958, IBAN GB82 WEST 1234 5698 7654 32.");
        let shapes: Vec<Shape> = values.iter().map(|(s, _)| *s).collect();
        assert_eq!(shapes, vec![Shape::Passport, Shape::Phone, Shape::Iban], "{values:?} in {text}");
    }

    #[test]
    fn the_same_value_gets_the_same_placeholder_every_time() {
        let a = seal("hộ chiếu B7654321");
        let b = seal("nhắc lại: B7654321 nhé");
        assert_eq!(a.values[0].name, b.values[0].name);
        assert_ne!(seal("B7654322").values[0].name, a.values[0].name);
    }

    #[test]
    fn ordinary_messages_are_left_as_they_are() {
        for text in [
            "So sánh giá iPhone 16 Pro 256GB ở 3 shop, dưới 30.000.000 ₫",
            "Tìm chuyến bay VN123 ngày 12/03/2026 lúc 07:45",
            "Mua 2 hộp sữa, mã giảm giá SALE50",
            "What is on page 2 of the report (version 1.2.3)?",
        ] {
            assert_eq!(seal(text).text, text, "{:?}", seal(text).values);
        }
    }
}
