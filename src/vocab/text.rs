//! Text folding, once for all of Halley: lowercase without diacritics
//! (Vietnamese tones and vowel marks, `đ`, the common Latin letters), keys
//! for names (`Phí vận chuyển` → `phi_van_chuyen`), and folded text that
//! still knows where each piece came from in the original.
//!
//! Text is read as a person reads it: invisible format characters (zero-width
//! spaces and joiners, soft hyphens, bidi controls, word joiners, the BOM)
//! are dropped by every fold, and [`readable`] also folds look-alike letters
//! of other scripts to the Latin letter they pass for (Greek `Ρ`, Cyrillic
//! `о` → `P`, `o`: their UTS #39 skeleton), which is what every label, key
//! and text is passed through before it is classified.

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_security::skeleton;

/// Whether `c` is a combining diacritical mark (as in decomposed, NFD, text).
pub fn is_mark(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// The plain letter under a lowercase accented one: Vietnamese first
/// (`ắ`→`a`, `ơ`→`o`, `ư`→`u`, `đ`→`d`), plus the common Latin-1 and
/// Latin Extended-A letters. Anything else is returned as it is.
pub fn fold_char(c: char) -> char {
    match c {
        'à' | 'á' | 'ả' | 'ã' | 'ạ' | 'ă' | 'ằ' | 'ắ' | 'ẳ' | 'ẵ' | 'ặ' | 'â' | 'ầ' | 'ấ' | 'ẩ' | 'ẫ' | 'ậ' | 'ä'
        | 'å' | 'ā' | 'ą' => 'a',
        'è' | 'é' | 'ẻ' | 'ẽ' | 'ẹ' | 'ê' | 'ề' | 'ế' | 'ể' | 'ễ' | 'ệ' | 'ë' | 'ē' | 'ę' | 'ě' => {
            'e'
        }
        'ì' | 'í' | 'ỉ' | 'ĩ' | 'ị' | 'î' | 'ï' => 'i',
        'ò' | 'ó' | 'ỏ' | 'õ' | 'ọ' | 'ô' | 'ồ' | 'ố' | 'ổ' | 'ỗ' | 'ộ' | 'ơ' | 'ờ' | 'ớ' | 'ở' | 'ỡ' | 'ợ' | 'ö'
        | 'ø' | 'ō' | 'ő' => 'o',
        'ù' | 'ú' | 'ủ' | 'ũ' | 'ụ' | 'ư' | 'ừ' | 'ứ' | 'ử' | 'ữ' | 'ự' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => {
            'u'
        }
        'ỳ' | 'ý' | 'ỷ' | 'ỹ' | 'ỵ' | 'ÿ' => 'y',
        'đ' | 'ð' | 'ď' => 'd',
        'ç' | 'ć' | 'č' => 'c',
        'ñ' | 'ń' | 'ň' => 'n',
        'ł' | 'ľ' | 'ĺ' => 'l',
        'ś' | 'š' | 'ş' | 'ș' => 's',
        'ź' | 'ż' | 'ž' => 'z',
        'ř' | 'ŕ' => 'r',
        'ť' | 'ţ' | 'ț' => 't',
        'ğ' => 'g',
        'ı' => 'i',
        _ => c,
    }
}

/// Whether `c` is invisible: a format character (general category Cf:
/// ZWSP, ZWNJ, ZWJ, soft hyphen, bidi controls, word joiner, BOM...) or
/// another default-ignorable one (variation selectors, the Hangul fillers,
/// the combining grapheme joiner). A person does not see it, so nothing
/// that classifies text may either.
pub fn is_invisible(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    get_general_category(c) == GeneralCategory::Format
        || matches!(c, '\u{34f}' | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' | '\u{180b}'..='\u{180f}')
        || ('\u{fe00}'..='\u{fe0f}').contains(&c)
        || ('\u{e0100}'..='\u{e01ef}').contains(&c)
}

/// `s` with its invisible characters ([`is_invisible`]) dropped.
pub fn visible(s: &str) -> String {
    s.chars().filter(|c| !is_invisible(*c)).collect()
}

/// `s` as a person reads it: invisible characters dropped, and every
/// character of another script that passes for a Latin letter or digit
/// replaced by it, through its UTS #39 confusable skeleton (`unicode-security`):
/// `"Ρlace оrder"` (Greek Rho, Cyrillic o) → `"Place order"`, fullwidth and
/// mathematical letters likewise. ASCII is kept as it is, and so are the
/// Latin letters with diacritics (`Đặt hàng` stays `Đặt hàng`: the skeleton
/// would take `đ` for `d` but keeps the tone marks, and the classifier reads
/// Vietnamese tones itself). Case is kept.
pub fn readable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if is_invisible(c) {
            // Dropped.
        } else if is_mark(c) || is_latin_letter(c) {
            out.push(c);
        } else {
            out.push_str(&look_alike(c, &mut buf));
        }
    }
    out
}

/// The letter an ASCII digit passes for inside a word (`0` → `o`, `1` →
/// `l`: `P1ace 0rder`), from its UTS #39 skeleton; `None` for a digit that
/// passes for no letter, or for anything else.
pub fn letter_look_alike(c: char) -> Option<char> {
    if !c.is_ascii_digit() {
        return None;
    }
    let mut buf = [0u8; 4];
    let mut sk = skeleton(c.encode_utf8(&mut buf));
    match (sk.next(), sk.next()) {
        (Some(l), None) if l.is_ascii_alphabetic() => Some(l.to_ascii_lowercase()),
        _ => None,
    }
}

/// A letter of the Latin script with diacritics (Latin-1 Supplement to
/// Latin Extended Additional, where the Vietnamese letters are), or `đ`.
fn is_latin_letter(c: char) -> bool {
    c.is_alphabetic() && (('\u{c0}'..='\u{24f}').contains(&c) || ('\u{1e00}'..='\u{1eff}').contains(&c))
}

/// The ASCII letters or digits `c` passes for, or `c` itself when its
/// skeleton is not plain ASCII (a Cyrillic `Ж` is no Latin letter).
fn look_alike(c: char, buf: &mut [u8; 4]) -> String {
    let sk: String = skeleton(c.encode_utf8(buf)).collect();
    if !sk.is_empty() && sk.chars().all(|k| k.is_ascii_alphanumeric()) { sk } else { c.to_string() }
}

/// `s` lowercased with its combining marks dropped, precomposed letters
/// kept (`đ` and `₫` survive, for currency detection).
pub fn lower_chars(s: &str) -> Vec<char> {
    s.chars().filter(|c| !is_invisible(*c)).flat_map(char::to_lowercase).filter(|c| !is_mark(*c)).collect()
}

/// Lowercase text without diacritics nor invisible characters, every other
/// character kept: `"Khách sạn Đà Lạt"` → `"khach san da lat"` (precomposed
/// or decomposed input).
pub fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| !is_invisible(*c))
        .flat_map(char::to_lowercase)
        .filter(|c| !is_mark(*c))
        .map(fold_char)
        .collect()
}

/// A name in matching form: folded, every run of anything but letters and
/// digits (`_`, `-`, spaces, punctuation) one `_`, none at the ends:
/// `"Phí vận chuyển"` → `"phi_van_chuyen"`, `"Warranty-Months"` → `"warranty_months"`.
pub fn fold_key(s: &str) -> String {
    let mut out = String::new();
    let mut pending = false;
    for c in fold(s).chars() {
        if c.is_alphanumeric() {
            if pending && !out.is_empty() {
                out.push('_');
            }
            pending = false;
            out.push(c);
        } else {
            pending = true;
        }
    }
    out
}

/// [`fold_key`] with camelCase humps as separators too:
/// `"priceCurrency"` → `"price_currency"`, `"Giá bán"` → `"gia_ban"`.
pub fn fold_camel_key(s: &str) -> String {
    let mut spaced = String::with_capacity(s.len() + 4);
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_uppercase() && prev_lower {
            spaced.push(' ');
        }
        prev_lower = c.is_lowercase();
        spaced.push(c);
    }
    fold_key(&spaced)
}

/// Folded text that maps back to the original: search the folded text,
/// cut what was found from the original (diacritics and all).
#[derive(Debug, Clone, Default)]
pub struct Folded {
    text: String,
    /// For every byte of `text`, the byte where its character starts in the original.
    starts: Vec<usize>,
}

impl Folded {
    pub fn new(s: &str) -> Self {
        let mut text = String::with_capacity(s.len());
        let mut starts = Vec::with_capacity(s.len() + 1);
        let mut buf = [0u8; 4];
        for (i, c) in s.char_indices() {
            let f = fold(c.encode_utf8(&mut buf));
            starts.extend(std::iter::repeat_n(i, f.len()));
            text.push_str(&f);
        }
        starts.push(s.len());
        Self { text, starts }
    }

    /// The folded text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The part of the original `s` (the text this was made from) that the
    /// folded bytes `start..end` come from, trimmed.
    pub fn original<'a>(&self, s: &'a str, start: usize, end: usize) -> &'a str {
        let from = self.starts.get(start).copied().unwrap_or(s.len());
        let to = self.starts.get(end).copied().unwrap_or(s.len());
        s.get(from..to).unwrap_or("").trim()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn fold_strips_vietnamese_and_latin_marks() {
        assert_eq!(fold("Khách sạn Đà Lạt"), "khach san da lat");
        assert_eq!(fold("ĐẶT NGAY"), "dat ngay");
        assert_eq!(fold("Nguyễn Văn ĐỨC, Hà Nội"), "nguyen van duc, ha noi");
        assert_eq!(fold("Phí vận chuyển: 30.000₫"), "phi van chuyen: 30.000₫");
        assert_eq!(fold("Crème Brûlée, Łódź, Ñandú"), "creme brulee, lodz, nandu");
        // Decomposed (NFD) input folds the same way.
        assert_eq!(fold("Nguye\u{302}\u{303}n Đa\u{306}ng"), "nguyen dang");
        // Every toned Vietnamese vowel.
        assert_eq!(fold("àáảãạ ằắẳẵặ ầấẩẫậ èéẻẽẹ ềếểễệ ìíỉĩị"), "aaaaa aaaaa aaaaa eeeee eeeee iiiii");
        assert_eq!(fold("òóỏõọ ồốổỗộ ờớởỡợ ùúủũụ ừứửữự ỳýỷỹỵ"), "ooooo ooooo ooooo uuuuu uuuuu yyyyy");
    }

    #[test]
    fn invisible_characters_are_dropped() {
        let hidden = "Pl\u{200b}ace\u{200c} or\u{200d}der\u{ad}\u{2060}\u{feff}\u{202e}\u{2066}";
        assert_eq!(fold(hidden), "place order");
        assert_eq!(visible(hidden), "Place order");
        assert_eq!(readable(hidden), "Place order");
        assert_eq!(fold_key("pass\u{200b}port"), "passport");
        for c in
            ['\u{200b}', '\u{200c}', '\u{200d}', '\u{ad}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{2060}', '\u{feff}']
        {
            assert!(is_invisible(c), "{c:?}");
        }
        for c in ['a', ' ', 'đ', 'Ρ', '₫', '\u{301}'] {
            assert!(!is_invisible(c), "{c:?}");
        }
    }

    #[test]
    fn look_alikes_of_other_scripts_read_as_latin() {
        // Greek capital Rho and Cyrillic small o.
        assert_eq!(readable("\u{3a1}lace \u{43e}rder"), "Place order");
        // Cyrillic а, е, о, р, с and fullwidth and mathematical letters.
        assert_eq!(readable("\u{440}\u{430}\u{443}"), "pay");
        assert_eq!(readable("\u{ff30}ay \u{1d40f}ow"), "Pay Pow");
        // A Cyrillic letter that passes for no Latin one is kept; one that
        // does is read as it (letter by letter: `у` is `y`).
        assert_eq!(readable("Жук"), "Жyк");
        assert_eq!(readable("ЖЛ"), "ЖЛ");
        // Vietnamese is kept as written, tones and đ included.
        for vi in ["Đặt hàng", "Thanh toán", "Hủy đơn", "Xoá", "Đăng bài", "Nguye\u{302}\u{303}n"] {
            assert_eq!(readable(vi), vi);
        }
        assert_eq!(readable("21.490.000 ₫"), "21.490.000 ₫");
    }

    #[test]
    fn digits_that_pass_for_letters() {
        assert_eq!(letter_look_alike('0'), Some('o'));
        assert_eq!(letter_look_alike('1'), Some('l'));
        assert_eq!(letter_look_alike('a'), None);
    }

    #[test]
    fn lower_chars_keeps_precomposed_letters() {
        assert_eq!(lower_chars("21.490.000Đ").into_iter().collect::<String>(), "21.490.000đ");
        assert_eq!(lower_chars("Gia\u{301}").into_iter().collect::<String>(), "gia");
    }

    #[test]
    fn keys() {
        assert_eq!(fold_key("Phí vận chuyển"), "phi_van_chuyen");
        assert_eq!(fold_key("  Giá "), "gia");
        assert_eq!(fold_key("Bảo hành / Đổi trả"), "bao_hanh_doi_tra");
        assert_eq!(fold_key("Warranty-Months"), "warranty_months");
        assert_eq!(fold_key("TỔNG TIỀN"), "tong_tien");
        assert_eq!(fold_key("Gia\u{301}"), "gia");
        assert_eq!(fold_camel_key("priceCurrency"), "price_currency");
        assert_eq!(fold_camel_key("Giá bán"), "gia_ban");
        assert_eq!(fold_camel_key("ĐặtNgay"), "dat_ngay");
    }

    #[test]
    fn folded_text_maps_back_to_the_original() {
        let s = "Còn hàng - Bảo hành 24 tháng";
        let f = Folded::new(s);
        assert_eq!(f.as_str(), "con hang - bao hanh 24 thang");
        let at = f.as_str().find("bao hanh").unwrap_or_default();
        assert_eq!(f.original(s, at, at + "bao hanh".len()), "Bảo hành");
        assert_eq!(f.original(s, 100, 200), "");
    }
}
