//! Small words every value reader needs: texts that mean "no value given"
//! (`N/A`, `—`, `Liên hệ`, `Đang cập nhật`) and yes/no (`có`/`không`,
//! `Còn hàng`/`Hết hàng`, `in stock`, `✓`).

use super::text::fold;

/// Texts that mean "no value given" (not an error, just missing).
pub fn is_blank(text: &str) -> bool {
    let f = fold(text);
    let t = f.trim();
    t.is_empty()
        || matches!(
            t,
            "n/a"
                | "na"
                | "-"
                | "—"
                | "–"
                | "?"
                | "null"
                | "unknown"
                | "khong ro"
                | "chua co"
                | "dang cap nhat"
                | "lien he"
                | "contact"
                | "call"
        )
}

/// Reads yes/no: `true/false`, `yes/no`, `có/không`, `in stock`/`còn hàng`,
/// `out of stock`/`hết hàng`, `1/0`, `✓/✗`.
pub fn parse_bool(text: &str) -> Option<bool> {
    let f = fold(text);
    let t = f.trim().trim_end_matches(['.', '!']);
    let falsy = ["het hang", "out of stock", "sold out", "unavailable", "ngung kinh doanh"];
    if falsy.iter().any(|w| t.contains(w)) {
        return Some(false);
    }
    if ["con hang", "in stock", "san hang", "available"].iter().any(|w| t.contains(w)) {
        return Some(true);
    }
    match t {
        "true" | "yes" | "y" | "co" | "1" | "x" | "✓" | "✔" | "ok" | "instock" => Some(true),
        "false" | "no" | "n" | "khong" | "0" | "✗" | "✘" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn booleans() {
        for t in ["yes", "True", "có", "Còn hàng", "in stock", "✓"] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for t in ["no", "false", "Không", "Hết hàng", "out of stock"] {
            assert_eq!(parse_bool(t), Some(false), "{t}");
        }
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn blanks() {
        for t in ["", "  ", "N/A", "—", "Liên hệ", "Đang cập nhật", "unknown"] {
            assert!(is_blank(t), "{t}");
        }
        assert!(!is_blank("0"));
        assert!(!is_blank("Không"));
    }
}
