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

/// Out-of-stock phrases of shop pages, folded (see `fold`): Vietnamese,
/// English, the major European shop languages, Russian, Turkish, Japanese,
/// Chinese and Korean. Each is checked before `IN_STOCK`, whose phrases
/// some of them contain (`нет в наличии`, `not in stock`, `在庫ありません`).
pub const OUT_OF_STOCK: &[&str] = &[
    "tam het hang",
    "khong con hang",
    "het hang",
    "ngung kinh doanh",
    "ngung ban",
    "out of stock",
    "not in stock",
    "sold out",
    "currently unavailable",
    "temporarily unavailable",
    "no longer available",
    "not available",
    "unavailable",
    "discontinued",
    "nicht auf lager",
    "nicht lieferbar",
    "nicht verfugbar",
    "nicht vorratig",
    "ausverkauft",
    "vergriffen",
    "epuise",
    "rupture de stock",
    "en rupture",
    "plus disponible",
    "indisponible",
    "agotado",
    "sin stock",
    "sin existencias",
    "no disponible",
    "esgotado",
    "indisponivel",
    "sem estoque",
    "fora de estoque",
    "esaurito",
    "non disponibile",
    "niet op voorraad",
    "niet leverbaar",
    "uitverkocht",
    "slutsald",
    "ej i lager",
    "ikke pa lager",
    "udsolgt",
    "utsolgt",
    "loppu varastosta",
    "elfogyott",
    "nincs raktaron",
    "stokta yok",
    "tukendi",
    "brak w magazynie",
    "niedostepny",
    "wyprzedany",
    "vyprodano",
    "neni skladem",
    "nie je na sklade",
    "vypredane",
    "nedostupne",
    "nedostupny",
    "nedostupno",
    "ni na zalogi",
    "razprodano",
    "nema na stanju",
    "nije dostupno",
    "rasprodano",
    "нет в наличии",
    "немає в наявності",
    "нет на складе",
    "распродано",
    "在庫ありません",
    "在庫切れ",
    "在庫なし",
    "品切れ",
    "売り切れ",
    "完売",
    "缺货",
    "缺貨",
    "无货",
    "無貨",
    "售罄",
    "已售完",
    "已售罄",
    "품절",
    "일시품절",
    "재고 없음",
    "재고없음",
];

/// In-stock phrases of shop pages, folded, in the same languages.
pub const IN_STOCK: &[&str] = &[
    "con hang",
    "san hang",
    "in stock",
    "available now",
    "ready to ship",
    "not sold",
    "auf lager",
    "sofort lieferbar",
    "lieferbar",
    "verfugbar",
    "en stock",
    "disponible",
    "en existencia",
    "disponibile",
    "disponibilita immediata",
    "in magazzino",
    "disponivel",
    "em estoque",
    "op voorraad",
    "in voorraad",
    "pa lager",
    "i lager",
    "varastossa",
    "raktaron",
    "stokta",
    "na stanie",
    "в наличии",
    "є в наявності",
    "skladem",
    "na sklade",
    "skladom",
    "na zalogi",
    "na stanju",
    "dostupno",
    "在庫あり",
    "在庫有り",
    "有货",
    "有貨",
    "现货",
    "現貨",
    "재고 있음",
    "재고있음",
    "구매 가능",
];

/// Reads yes/no: `true/false`, `yes/no`, `có/không`, `in stock`/`còn hàng`,
/// `out of stock`/`hết hàng` (and `OUT_OF_STOCK`/`IN_STOCK`), `1/0`, `✓/✗`.
pub fn parse_bool(text: &str) -> Option<bool> {
    let f = fold(text);
    let t = f.trim().trim_end_matches(['.', '!']);
    if OUT_OF_STOCK.iter().any(|w| t.contains(w)) {
        return Some(false);
    }
    if IN_STOCK.iter().chain(&["available"]).any(|w| t.contains(w)) {
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
    fn stock_in_european_languages() {
        for t in ["Auf Lager", "En stock", "Op voorraad", "В наличии", "Skladem"] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for t in ["Nicht auf Lager", "Épuisé", "Agotado", "нет в наличии", "Hết hàng", "Esaurito", "Rupture de stock"]
        {
            assert_eq!(parse_bool(t), Some(false), "{t}");
        }
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
