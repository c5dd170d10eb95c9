//! Shared vocabulary: the leaf modules every part of Halley may use and that
//! use nothing of Halley above them (only `crate::error` and each other).
//!
//! * [`text`]: folding (case, Vietnamese and Latin diacritics, `đ`), keys
//!   for names (`Phí vận chuyển` → `phi_van_chuyen`), folded text that maps
//!   back to the original.
//! * [`number`]: plain numbers in either decimal convention, magnitudes
//!   (`1.2k`, `21 triệu`, `21tr490`), exact decimals ([`number::Decimal`]).
//! * [`money`]: the one money parser (extraction, `normalize_compare`, price
//!   watches): currencies (symbols, codes, words) and exact amounts.
//! * [`duration`]: durations (`24 tháng`, `2-3 days`) and their units.
//! * [`value`]: words for "no value" (`N/A`, `Liên hệ`) and yes/no (`Còn hàng`).
//! * [`origin`]: the origin of a URL and site patterns (`*.shop.vn`).
//! * [`html`]: the visible text of HTML (hidden parts and scripts left out,
//!   blocks on lines of their own), for watches and the files read into
//!   memory's sources.

pub mod duration;
pub mod html;
pub mod json;
pub mod money;
pub mod number;
pub mod origin;
pub mod text;
pub mod value;

/// Why a text was not read as the value asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reject {
    /// The text is of another kind (a duration where money was wanted, an
    /// amount where a duration was): try the next reading quietly.
    WrongKind,
    /// The text cannot be read; the reason is worth reporting.
    Bad(String),
}

/// A parser's answer: the value, or why there is none.
pub type Parsed<T> = std::result::Result<T, Reject>;

pub(crate) fn bad<T>(msg: impl Into<String>) -> Parsed<T> {
    Err(Reject::Bad(msg.into()))
}

#[cfg(test)]
mod tests {
    /// The leaf rule: these modules name nothing of Halley but `crate::error`.
    #[test]
    fn vocab_modules_are_leaves() {
        let sources = [
            ("mod.rs", include_str!("mod.rs")),
            ("text.rs", include_str!("text.rs")),
            ("number.rs", include_str!("number.rs")),
            ("money.rs", include_str!("money.rs")),
            ("duration.rs", include_str!("duration.rs")),
            ("value.rs", include_str!("value.rs")),
            ("origin.rs", include_str!("origin.rs")),
        ];
        let needle = ["crate", "::"].concat();
        for (file, src) in sources {
            for (at, _) in src.match_indices(&needle) {
                let rest = &src[at + needle.len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                assert!(name == "error" || name == "vocab", "{file} uses {needle}{name}");
            }
        }
    }
}
