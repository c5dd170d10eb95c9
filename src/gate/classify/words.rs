//! Words for keyword matching, Vietnamese-aware: lowercase, split at word
//! boundaries (and at camelCase humps in ids, classes and URLs), with the
//! Vietnamese marks kept apart from the letters so that both an accented and
//! an unaccented page can be matched.
//!
//! A word keeps its vowel marks (ă â ê ô ơ ư đ) and its one tone (grave,
//! acute, hook, tilde, dot), wherever the tone was written: "xóa" and "xoá",
//! "hủy" and "huỷ" are the same word, and "đăng" (post) is not "đang" (in
//! progress), nor "mua" (buy) "mùa" (season). A page word written without any
//! accent (`btn-dang-bai`, `/thanh-toan`, "Mua ngay" in capitals) matches on
//! its folded form alone, since it could be either.

use super::phrases::Phrase;
use crate::vocab::text::{fold_char, is_mark, letter_look_alike, readable};

/// Vietnamese vowels and their five toned forms: grave, acute, hook, tilde, dot.
const TONED: [(char, &str); 12] = [
    ('a', "àáảãạ"),
    ('ă', "ằắẳẵặ"),
    ('â', "ầấẩẫậ"),
    ('e', "èéẻẽẹ"),
    ('ê', "ềếểễệ"),
    ('i', "ìíỉĩị"),
    ('o', "òóỏõọ"),
    ('ô', "ồốổỗộ"),
    ('ơ', "ờớởỡợ"),
    ('u', "ùúủũụ"),
    ('ư', "ừứửữự"),
    ('y', "ỳýỷỹỵ"),
];

/// Splits a (lowercase, precomposed) letter into its base and its tone (0: none).
fn untone(c: char) -> (char, u8) {
    for (base, toned) in TONED {
        if let Some(i) = toned.chars().position(|t| t == c) {
            return (base, u8::try_from(i + 1).unwrap_or(0));
        }
    }
    (c, 0)
}

/// The tone a combining mark writes, in `TONED` order.
fn combining_tone(c: char) -> Option<u8> {
    match c {
        '\u{300}' => Some(1),
        '\u{301}' => Some(2),
        '\u{309}' => Some(3),
        '\u{303}' => Some(4),
        '\u{323}' => Some(5),
        _ => None,
    }
}

/// A base letter with a combining vowel mark (breve, circumflex, horn).
fn with_mark(base: char, mark: char) -> Option<char> {
    match (base, mark) {
        ('a', '\u{306}') => Some('ă'),
        ('a', '\u{302}') => Some('â'),
        ('e', '\u{302}') => Some('ê'),
        ('o', '\u{302}') => Some('ô'),
        ('o', '\u{31b}') => Some('ơ'),
        ('u', '\u{31b}') => Some('ư'),
        _ => None,
    }
}

/// One word of a page text or of a phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::gate) struct Word {
    /// Lowercase, no diacritics (`dang`).
    pub folded: String,
    /// Lowercase with vowel marks, without the tone (`đăng`).
    marked: String,
    /// The tone, 0 for none.
    tone: u8,
    /// Written with any non-ASCII letter or mark.
    accented: bool,
}

impl Word {
    fn new(raw: &[char]) -> Word {
        let mut marked = String::new();
        let mut tone = 0;
        for c in raw.iter().flat_map(|c| c.to_lowercase()) {
            if let Some(t) = combining_tone(c) {
                tone = if tone == 0 { t } else { tone };
            } else if is_mark(c) {
                if let Some(m) = marked.pop() {
                    marked.push(with_mark(m, c).unwrap_or(m));
                }
            } else {
                let (base, t) = untone(c);
                marked.push(base);
                tone = if tone == 0 { t } else { tone };
            }
        }
        let folded = marked.chars().map(fold_char).collect();
        Word { folded, marked, tone, accented: !raw.iter().all(char::is_ascii) }
    }

    /// Whether this page word is the phrase word `p`: same folded letters,
    /// and, when the page wrote accents, the same marks and tone.
    fn is(&self, p: &Word) -> bool {
        self.folded == p.folded && (!self.accented || (self.marked == p.marked && self.tone == p.tone))
    }
}

/// The words of `s` as a person reads it (invisible characters dropped,
/// look-alike letters of other scripts read as the Latin ones:
/// [`readable`]); with `camel`, `placeOrderBtn` is three words.
pub(in crate::gate) fn words(s: &str, camel: bool) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur: Vec<char> = Vec::new();
    let mut prev_lower = false;
    for c in readable(s).chars() {
        if !(c.is_alphanumeric() || is_mark(c)) {
            flush(&mut cur, &mut out);
            prev_lower = false;
            continue;
        }
        if camel && prev_lower && c.is_uppercase() {
            flush(&mut cur, &mut out);
        }
        prev_lower = c.is_lowercase();
        cur.push(c);
    }
    flush(&mut cur, &mut out);
    out
}

/// Ends the word in `cur`. A word of letters with a digit or two among them
/// is read with its digits as the letters they pass for (`P1ace`, `0rder`,
/// `b00k`: `letter_look_alike`); a number with a letter (`24h`, `4K`,
/// `1080p`) is left alone.
fn flush(cur: &mut Vec<char>, out: &mut Vec<Word>) {
    if cur.is_empty() {
        return;
    }
    let letters = cur.iter().filter(|c| c.is_alphabetic()).count();
    let digits = cur.iter().filter(|c| c.is_ascii_digit()).count();
    if digits > 0
        && letters >= 2
        && letters >= digits
        && cur.iter().all(|c| !c.is_ascii_digit() || letter_look_alike(*c).is_some())
    {
        for c in cur.iter_mut() {
            *c = letter_look_alike(*c).unwrap_or(*c);
        }
    }
    out.push(Word::new(cur));
    cur.clear();
}

/// The phrases of `table` found in `text`. Where one found phrase lies
/// inside a longer found one ("đặt phòng" inside "hủy đặt phòng"), only the
/// longer one is kept; of two on the same words, the first in the table.
/// A multi-word phrase also matches its run-together
/// form written without accents (`placeorder`, `thanhtoan`).
pub(in crate::gate) fn find<'p>(text: &[Word], table: &'p [Phrase]) -> Vec<&'p Phrase> {
    let mut hits: Vec<(usize, usize, &Phrase)> = Vec::new();
    for phrase in table {
        let pw = words(phrase.text, false);
        if pw.is_empty() {
            continue;
        }
        for (i, win) in text.windows(pw.len()).enumerate() {
            if win.iter().zip(&pw).all(|(t, p)| t.is(p)) {
                hits.push((i, i + pw.len(), phrase));
            }
        }
        if pw.len() > 1 {
            let joined: String = pw.iter().map(|w| w.folded.as_str()).collect();
            for (i, w) in text.iter().enumerate() {
                if !w.accented && w.folded == joined {
                    hits.push((i, i + 1, phrase));
                }
            }
        }
    }
    let inside_longer =
        |&(s, e, _): &(usize, usize, &Phrase)| hits.iter().any(|&(s2, e2, _)| s2 <= s && e <= e2 && e2 - s2 > e - s);
    let mut kept: Vec<(usize, usize, &Phrase)> = Vec::new();
    for h in hits.iter().filter(|h| !inside_longer(h)) {
        // Two phrases on the same words ("checkout", and "check out" run
        // together): the first in the table speaks for both.
        if !kept.iter().any(|k| (k.0, k.1) == (h.0, h.1)) {
            kept.push(*h);
        }
    }
    kept.into_iter().map(|(_, _, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::classify::phrases::{Effect, Phrase};

    fn found(text: &str, camel: bool, table: &'static [Phrase]) -> Vec<&'static str> {
        find(&words(text, camel), table).iter().map(|p| p.text).collect()
    }

    static TABLE: &[Phrase] = &[
        Phrase::new("đăng", Effect::Neutral, ""),
        Phrase::new("mua", Effect::Neutral, ""),
        Phrase::new("xóa", Effect::Neutral, ""),
        Phrase::new("hủy", Effect::Neutral, ""),
        Phrase::new("đặt phòng", Effect::Neutral, ""),
        Phrase::new("hủy đặt phòng", Effect::Neutral, ""),
        Phrase::new("place order", Effect::Neutral, ""),
        Phrase::new("book", Effect::Neutral, ""),
    ];

    #[test]
    fn tones_and_marks_separate_accented_words() {
        assert_eq!(found("Đăng bài", false, TABLE), ["đăng"]);
        assert!(found("Đang tải", false, TABLE).is_empty());
        assert!(found("Mùa hè", false, TABLE).is_empty());
        assert!(found("Trời mưa", false, TABLE).is_empty());
        assert_eq!(found("MUA NGAY", false, TABLE), ["mua"]);
        // Either tone placement, precomposed or decomposed.
        assert_eq!(found("Xoá", false, TABLE), ["xóa"]);
        assert_eq!(found("Huỷ", false, TABLE), ["hủy"]);
        assert_eq!(found("Xo\u{301}a", false, TABLE), ["xóa"]);
        assert_eq!(found("Đa\u{306}ng", false, TABLE), ["đăng"]);
    }

    #[test]
    fn look_alikes_and_invisible_characters_are_read_through() {
        // Greek Ρ, Cyrillic о; zero-width spaces, joiners, soft hyphens, bidi controls.
        assert_eq!(found("\u{3a1}lace \u{43e}rder", false, TABLE), ["place order"]);
        assert_eq!(found("P\u{200b}l\u{200c}a\u{200d}c\u{ad}e o\u{2060}rd\u{feff}er", false, TABLE), ["place order"]);
        assert_eq!(found("\u{202e}Place\u{202c} order", false, TABLE), ["place order"]);
        assert_eq!(found("\u{3a1}lace\u{200b}\u{41e}rder\u{200b}Btn", true, TABLE), ["place order"]);
        // Digits that pass for letters inside a word.
        assert_eq!(found("P1ace 0rder", false, TABLE), ["place order"]);
        assert_eq!(found("B00K now", false, TABLE), ["book"]);
        assert!(found("Mua 1 tặng 1, 24h, 4K, 1080p", false, TABLE).iter().all(|p| *p == "mua"));
        // Vietnamese tones still tell words apart.
        assert_eq!(found("Đ\u{200b}ăng bài", false, TABLE), ["đăng"]);
        assert!(found("Đ\u{200b}ang tải", false, TABLE).is_empty());
    }

    #[test]
    fn unaccented_words_match_on_their_folded_form() {
        assert_eq!(found("btn-dang-bai", false, TABLE), ["đăng"]);
        assert_eq!(found("/huy-dat-phong", false, TABLE), ["hủy đặt phòng"]);
    }

    #[test]
    fn whole_words_only_and_longest_wins() {
        assert!(found("Facebook notebook", false, TABLE).is_empty());
        assert_eq!(found("Hủy đặt phòng", false, TABLE), ["hủy đặt phòng"]);
        assert_eq!(found("placeOrderBtn", true, TABLE), ["place order"]);
        assert!(found("placeOrderBtn", false, TABLE).is_empty());
        assert_eq!(found("placeorder", false, TABLE), ["place order"]);
        assert_eq!(found("Book now", false, TABLE), ["book"]);
    }
}
