//! The product's identifiers (`sku`: the shop's reference; `gtin`): which
//! labels name them in the major shop languages, data attributes, and the
//! reference in the page's own address.
//!
//! # Order for `sku`
//!
//! 1. a value labelled as the shop's reference (`SKU`, `ASIN`, `Product
//!    code`, `Item number`, `Art.-Nr.`, `Artikelnummer`, `Référence`,
//!    `Codice articolo`, `Mã SP`, `Šifra`, `商品編號`...), in a spec table,
//!    a definition list or a `Label: value` line: what the shop shows as its
//!    reference beats an internal id in the structured data;
//! 2. structured data (`sku`, `mpn`, `productID`) and product meta tags;
//! 3. `data-sku` / `data-asin` attributes (`data-product-id` and the like
//!    only when the value also stands in the page's address or text);
//! 4. a model or part number (`Model`, `Item model number`, `MPN`);
//! 5. the reference in the canonical address (`/dp/B07FW264WL`,
//!    `/itm/302474151804`, `/Prod/144432/`, `-987929.html`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::names::FieldSpec;
use super::{Candidate, Page, Source, structured};
use crate::vocab::text::fold_camel_key;

/// Labels of the shop's own reference, folded and `_`-joined (a label is
/// one of these, maybe followed by `no`/`nr`/`number`/`#`).
const REFERENCE_LABELS: &[&str] = &[
    "sku",
    "asin",
    "item_number",
    "item_no",
    "item_code",
    "item_id",
    "ebay_item_number",
    "product_code",
    "product_no",
    "product_number",
    "product_id",
    "product_ref",
    "product_reference",
    "reference",
    "ref",
    "article_number",
    "article_no",
    "art_nr",
    "art_no",
    "artikelnummer",
    "artikel_nr",
    "artikel",
    "artikelnr",
    "bestellnummer",
    "best_nr",
    "reference_produit",
    "ref_produit",
    "code_produit",
    "code_article",
    "codice_articolo",
    "codice_prodotto",
    "codice",
    "cod_articolo",
    "referencia",
    "referencia_produto",
    "referencia_do_produto",
    "codigo",
    "codigo_producto",
    "codigo_do_produto",
    "cod",
    "artikelcode",
    "artikelnummer_ean",
    "numer_katalogowy",
    "kod_produktu",
    "kod_produkta",
    "kod",
    "katalogove_cislo",
    "katalogove_c",
    "sifra",
    "sifra_proizvoda",
    "sifra_artikla",
    "catalogue_number",
    "cat_no",
    "ad_number",
    "ad_id",
    "ad",
    "anzeige",
    "anzeigennummer",
    "anzeige_nr",
    "ilan_no",
    "urun_kodu",
    "stok_kodu",
    "artikul",
    "артикул",
    "код_товара",
    "код",
    "ma_sp",
    "ma_san_pham",
    "ma_hang",
    "ma_hang_hoa",
    "商品編號",
    "商品编号",
    "商品番号",
    "品番",
    "货号",
    "貨號",
    "상품번호",
    "상품코드",
    "קוד_מוצר",
    "מק_ט",
    "מקט",
];

/// Labels of a maker's model or part number (used after structured data).
const MODEL_LABELS: &[&str] = &[
    "model",
    "model_number",
    "item_model_number",
    "model_no",
    "model_nr",
    "modell",
    "modellnummer",
    "modele",
    "modello",
    "modelo",
    "mpn",
    "part_number",
    "manufacturer_part_number",
    "herstellernummer",
    "hersteller_artikelnummer",
    "reference_fabricant",
    "ma_model",
    "型番",
    "型号",
    "型號",
    "모델명",
    "דגם",
];

/// Labels of a GTIN / EAN / UPC / ISBN.
const GTIN_LABELS: &[&str] =
    &["gtin", "ean", "ean13", "ean_code", "upc", "isbn", "isbn_13", "isbn_10", "barcode", "ma_vach", "jan", "jan_code"];

/// Labels that can only mean the shop's own reference (before `Reference`,
/// `Artikelnummer`, which some shops use for the maker's).
const SKU_LABELS: &[&str] = &["sku", "asin", "item_number", "ebay_item_number", "item_no"];

/// Which identifier a label names: 0 the shop's reference by name (`SKU`,
/// `ASIN`, `Item number`), 1 a reference, 2 a model or part number, 3 a GTIN.
pub(super) fn label_kind(label: &str) -> Option<u8> {
    let key = fold_camel_key(label);
    let key = key.trim_matches('_');
    let trimmed = ["_no", "_nr", "_number", "_num", "_c", "_"]
        .iter()
        .find_map(|s| key.strip_suffix(s).filter(|k| !k.is_empty()))
        .unwrap_or(key);
    let is = |list: &[&str]| list.iter().any(|l| *l == key || *l == trimmed);
    if is(SKU_LABELS) {
        Some(0)
    } else if is(GTIN_LABELS) {
        Some(3)
    } else if is(MODEL_LABELS) {
        Some(2)
    } else if is(REFERENCE_LABELS) {
        Some(1)
    } else {
        None
    }
}

/// The identifier in a labelled value: the value itself when it is short,
/// else its first word (`VE900 Guides des tailles` → `VE900`); `None` for
/// what does not look like an identifier (no digit and not a capitalised
/// code, a sentence).
pub(super) fn clean_id(value: &str) -> Option<String> {
    let v = value.trim().trim_start_matches(['|', ':', '#', '-', '–', '·', '〈', '《', '(', '[', '【']).trim();
    let v = v.trim_end_matches(['〉', '》', ')', ']', '】', '.', ',', ';', ':']).trim();
    let words: Vec<&str> = v.split_whitespace().collect();
    let first = *words.first()?;
    // Every word a code (`GARNI 570 EASY II`, `MQ2Y2SL/A`), not prose (`VE900 Guides des tailles`).
    let code =
        |w: &&str| looks_like_id(w) && (w.chars().any(|c| c.is_ascii_digit()) || !w.chars().any(char::is_lowercase));
    let id = if words.len() <= 5 && v.chars().count() <= 40 && (words.len() == 1 || words.iter().all(code)) {
        v.to_string()
    } else if looks_like_id(first) && first.chars().any(|c| c.is_ascii_digit()) {
        first.trim_end_matches([',', ';', '.']).to_string()
    } else {
        return None;
    };
    let ok = id.chars().any(|c| c.is_ascii_digit()) || (id.len() >= 4 && !id.chars().any(char::is_lowercase));
    (ok && id.split_whitespace().all(looks_like_id)).then_some(id)
}

fn looks_like_id(word: &str) -> bool {
    word.chars().count() <= 40 && word.chars().all(|c| c.is_alphanumeric() || "-_/.#".contains(c))
}

/// A reference token in the page's address: the last path segments, from
/// the end (`/dp/B07FW264WL`, `/itm/Title-/302474151804`, `/Prod/144432/`,
/// `Name-987929.html`, `/p4781720`).
pub(super) fn url_reference(url: &str) -> Option<String> {
    static DIGITS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\d{5,16}$").ok());
    static LETTER_DIGITS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^[A-Z]{1,2}\d{5,14}$").ok());
    static CODE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^[A-Z0-9]{8,14}$").ok());
    static P_DIGITS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^[a-z](\d{6,14})$").ok());
    let parsed = url::Url::parse(url.trim()).ok()?;
    let segments: Vec<&str> = parsed.path_segments()?.filter(|s| !s.is_empty()).collect();
    for seg in segments.iter().rev().take(2) {
        let stem = [".html", ".htm", ".php", ".aspx", ".asp", ".jsp", ".shtml"]
            .iter()
            .find_map(|e| seg.strip_suffix(e))
            .unwrap_or(seg);
        let tokens: Vec<&str> = stem.split(['-', '_', '.', ',', '~', '+']).filter(|t| !t.is_empty()).collect();
        for t in tokens.iter().rev() {
            let is = |re: &LazyLock<Option<Regex>>| re.as_ref().is_some_and(|r| r.is_match(t));
            let letters = t.chars().filter(char::is_ascii_alphabetic).count();
            let digits = t.chars().filter(char::is_ascii_digit).count();
            if is(&DIGITS) || is(&LETTER_DIGITS) || (is(&CODE) && letters >= 2 && digits >= 2) {
                return Some((*t).to_string());
            }
            if let Some(c) = P_DIGITS.as_ref().and_then(|r| r.captures(t)).and_then(|c| c.get(1)) {
                return Some(c.as_str().to_string());
            }
        }
    }
    None
}

/// A code the page shows (`1002/710`, `KT-1200`) that also names the
/// product's picture file (`…/p/1002/710/040/…jpg`): shops name pictures
/// after their reference.
fn pictured_code(page: &Page<'_>) -> Option<String> {
    static CODE: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(?:^|[\s(])([A-Z0-9]{2,}(?:[/.\-][A-Z0-9]{2,}){1,2})(?:$|[\s),])").ok());
    static DATE_OR_AMOUNT: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^\d{1,4}[/.\-]\d{1,2}(?:[/.\-]\d{1,4})?$|^\d+\.\d{1,2}$").ok());
    let facts = page.facts;
    let mut pictures: Vec<&str> = ["og:image", "twitter:image", "og:image:url"]
        .iter()
        .filter_map(|k| facts.meta.get(*k).map(String::as_str))
        .collect();
    for (_, e) in page.jsonld.iter().filter(|(rank, _)| *rank == 0) {
        match e.get("image") {
            Some(Value::String(u)) => pictures.push(u),
            Some(Value::Array(items)) => pictures.extend(items.iter().filter_map(Value::as_str)),
            _ => {}
        }
    }
    if pictures.is_empty() {
        return None;
    }
    let re = CODE.as_ref()?;
    for line in facts.text.lines().take(2_000) {
        for c in re.captures_iter(line) {
            let Some(code) = c.get(1).map(|m| m.as_str()) else { continue };
            let plausible = (6..=20).contains(&code.len())
                && code.chars().any(|ch| ch.is_ascii_digit())
                && !DATE_OR_AMOUNT.as_ref().is_some_and(|r| r.is_match(code));
            if plausible && pictures.iter().any(|p| p.contains(code)) {
                return Some(code.to_string());
            }
        }
    }
    None
}

/// Attributes whose value is the shop's reference as such.
const SKU_ATTRS: &[&str] = &["data-sku", "data-product-sku", "data-asin"];

/// Candidates for the shop's reference, best first (see the module's order).
pub(super) fn sku_candidates(page: &Page<'_>, spec: &FieldSpec) -> Vec<Candidate> {
    let facts = page.facts;
    let labelled = |kind: u8| -> Vec<Candidate> {
        let mut out = Vec::new();
        let sources =
            facts.pairs.iter().map(|p| (p, Source::Label)).chain(page.text.id_pairs().map(|p| (p, Source::Text)));
        for ((label, value), source) in sources {
            if label_kind(label) == Some(kind)
                && let Some(id) = clean_id(value)
                && !out.iter().any(|c: &Candidate| c.value == Value::String(id.clone()))
            {
                out.push(Candidate::new(Value::String(id), source));
            }
        }
        out
    };
    let mut out = labelled(0);
    out.extend(labelled(1));
    if page.dom {
        // Structured values that are not identifiers (a name in `sku`) are left out.
        let id_like = |c: &Candidate| match &c.value {
            Value::String(s) => clean_id(s).is_some_and(|id| id == s.trim()),
            _ => true,
        };
        let from_data: Vec<Candidate> =
            structured::candidates(&page.jsonld, spec, Source::JsonLd).into_iter().filter(id_like).collect();
        // The structured reference is not shown anywhere: an internal id.
        // A code the page shows that names the product's picture is the shop's.
        let shown = |c: &Candidate| super::coerce::text_of(&c.value).is_some_and(|t| facts.text.contains(&t));
        if from_data.first().is_some_and(|c| !shown(c))
            && let Some(code) = pictured_code(page)
        {
            let mut c = Candidate::new(Value::String(code), Source::Fragment);
            c.note = Some("shown on the page and in the product picture's address".into());
            out.push(c);
        }
        out.extend(from_data);
        out.extend(structured::candidates(&page.microdata, spec, Source::Microdata).into_iter().filter(id_like));
        out.extend(structured::meta_candidates(&facts.meta, spec).into_iter().filter(id_like));
        let address = [facts.meta.get("canonical"), facts.meta.get("og:url"), Some(&facts.url)];
        let in_page = |v: &str| address.iter().flatten().any(|a| a.contains(v)) || facts.text.contains(v);
        for (attr, value, _) in &facts.ids {
            let named = SKU_ATTRS.contains(&attr.as_str());
            if (named || in_page(value)) && !attr.contains("ean") && !attr.contains("gtin") {
                out.push(Candidate::new(Value::String(value.clone()), Source::Meta));
            }
        }
    }
    out.extend(labelled(2));
    if page.dom {
        let address = [facts.meta.get("canonical"), facts.meta.get("og:url")].into_iter().flatten().chain([&facts.url]);
        if let Some(id) = address.filter_map(|a| url_reference(a)).next() {
            out.push(Candidate::new(Value::String(id), Source::Url));
        }
    }
    out
}

/// Labelled GTINs (after structured data, which the generic path reads).
pub(super) fn gtin_candidates(page: &Page<'_>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (label, value) in &page.facts.pairs {
        if label_kind(label) == Some(3) {
            let digits: String = value.chars().filter(char::is_ascii_digit).collect();
            if (8..=14).contains(&digits.len()) {
                out.push(Candidate::new(Value::String(digits), Source::Label));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn labels_of_references_models_and_gtins() {
        for l in [
            "SKU",
            "ASIN",
            "Product code",
            "Item number",
            "Art.-Nr.",
            "Artikelnummer",
            "Référence",
            "Réf.",
            "Mã SP",
            "Mã sản phẩm",
            "Codice articolo",
            "Šifra",
            "Ref",
            "Item No",
            "商品編號",
            "קוד מוצר",
            "Anzeige",
        ] {
            assert!(matches!(label_kind(l), Some(0 | 1)), "{l}");
        }
        for l in ["Model", "Item model number", "Model Number", "MPN", "Modell", "型番"] {
            assert_eq!(label_kind(l), Some(2), "{l}");
        }
        for l in ["EAN", "UPC", "GTIN", "ISBN-13"] {
            assert_eq!(label_kind(l), Some(3), "{l}");
        }
        for l in ["Price", "Colour", "Reference price", "Available from"] {
            assert_eq!(label_kind(l), None, "{l}");
        }
    }

    #[test]
    fn identifiers_in_values() {
        assert_eq!(clean_id("B07FW264WL").as_deref(), Some("B07FW264WL"));
        assert_eq!(clean_id("VE900 Guides des tailles").as_deref(), Some("VE900"));
        assert_eq!(clean_id("| awe299").as_deref(), Some("awe299"));
        assert_eq!(clean_id("466/7999").as_deref(), Some("466/7999"));
        assert_eq!(clean_id("GARNI 570 EASY II").as_deref(), Some("GARNI 570 EASY II"));
        assert_eq!(clean_id("see the description below"), None);
        assert_eq!(clean_id("Black"), None);
        assert_eq!(clean_id("M14876706〉").as_deref(), Some("M14876706"));
    }

    #[test]
    fn references_in_addresses() {
        let r = |u: &str| url_reference(u);
        assert_eq!(r("https://shop.example/Some-Name/dp/B07FW264WL").as_deref(), Some("B07FW264WL"));
        assert_eq!(r("https://shop.example/itm/Some-Title-/302474151804").as_deref(), Some("302474151804"));
        assert_eq!(r("https://shop.example/Prod/144432/").as_deref(), Some("144432"));
        assert_eq!(r("https://shop.example/cat/Brand_One-987929.html").as_deref(), Some("987929"));
        assert_eq!(r("https://shop.example/store/M67296549.htm").as_deref(), Some("M67296549"));
        assert_eq!(r("https://shop.example/name-of-thing/p4781720").as_deref(), Some("4781720"));
        assert_eq!(r("https://shop.example/category/shoes/red-shoes"), None);
        assert_eq!(r("https://shop.example/2024/05/article"), None);
    }
}
