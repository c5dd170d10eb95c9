//! Fetched HTML → [`PageFacts`], in Rust, so a watch checked over plain HTTP
//! runs the same extraction as `browser_extract` (which gets its facts from
//! the page runtime, `runtime.js` `facts`). What this reads mirrors it:
//! JSON-LD (`@graph` flattened), microdata, `<meta>` tags and the canonical
//! link, title, URL, `lang`, label → value pairs (two-cell rows, `<dt>/<dd>`,
//! two-part list items, `Label: value` lines), price-looking fragments with
//! their context and strike-through state (`<del>`, `<s>`, `<strike>`,
//! inline `line-through`), stock lines with what their part of the page is
//! about (`stock.rs`), and the text. There is no layout, so "visible"
//! means not `hidden`, not `display:none`/`visibility:hidden` inline, not
//! `aria-hidden`, and not in `<script>`, `<style>`, `<template>`,
//! `<noscript>`. Fields it does not fill keep their defaults.

mod pairs;
mod prices;
mod stock;
mod structured;

use crate::vocab::html as text;

use dom_query::{Document, NodeRef};
use serde_json::Value;

use crate::browser::extract::PageFacts;
use pairs::pairs;
pub(crate) use prices::price_matches;
use prices::prices;
use stock::stock_lines;
use structured::{json_ld, meta, microdata};
use text::{clean, cut};
pub(crate) use text::{content_text, hidden_or_inside_hidden, lines_of, name_of};

/// The text kept, in characters (as the runtime caps it).
const MAX_TEXT: usize = 20_000;

/// Builds the facts of `html` fetched from `url`; `selector` limits what
/// is read to the first element it matches (`None` when it matches
/// nothing). JSON-LD and meta tags are page-wide, as in the runtime; with a
/// selector, JSON-LD describing several products is left out, since the
/// element says which one is meant.
pub fn facts_from_html(html: &str, url: &str, selector: Option<&str>) -> Option<PageFacts> {
    let doc = Document::from(html);
    let scope: NodeRef<'_> = match selector {
        Some(sel) => *doc.try_select(sel)?.nodes().first()?,
        None => doc.body().unwrap_or_else(|| doc.root()),
    };
    let (mut jsonld, jsonld_errors) = json_ld(&doc);
    if selector.is_some() && products(&jsonld) > 1 {
        jsonld.clear();
    }
    let text = cut(lines_of(&scope).join("\n"), MAX_TEXT);
    // `..Default::default()`: fields added to PageFacts later keep their defaults here.
    #[allow(clippy::needless_update)]
    Some(PageFacts {
        jsonld,
        jsonld_errors,
        microdata: microdata(&scope),
        meta: meta(&doc),
        pairs: pairs(&scope, &text),
        prices: prices(&scope),
        stock: stock_lines(&scope),
        title: clean(&doc.select("title").text()),
        url: url.to_owned(),
        lang: doc.select("html").attr("lang").map(|l| l.to_string()).unwrap_or_default(),
        text,
        ..Default::default()
    })
}

/// How many products the JSON-LD objects describe.
pub fn products(jsonld: &[Value]) -> usize {
    let is_product = |v: &Value| match v.get("@type") {
        Some(Value::String(t)) => t.ends_with("Product"),
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str().is_some_and(|t| t.ends_with("Product"))),
        _ => false,
    };
    jsonld.iter().filter(|v| is_product(v)).count()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use std::collections::BTreeMap;

    use super::*;
    use crate::browser::extract::extract;
    use crate::tools::catalogue::capture::{ExtractFieldType, ExtractSourceType};

    const SHOP: &str = r#"<!doctype html><html lang="vi"><head><title>Laptop ASUS | Shop</title>
        <meta property="og:title" content="Laptop ASUS Vivobook">
        <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Product","name":"Laptop ASUS Vivobook",
          "offers":{"@type":"Offer","price":"21490000","priceCurrency":"VND","availability":"https://schema.org/InStock"}}]}</script>
        </head><body><h1>Laptop ASUS Vivobook</h1>
        <div class="price-box"><del class="old-price">25.990.000 ₫</del> <span class="price">21.490.000 ₫</span></div>
        <table><tr><th>Bảo hành</th><td>24 tháng</td></tr></table>
        <dl><dt>Trạng thái</dt><dd>Còn hàng</dd></dl>
        <p hidden>HIDDEN 1.000 ₫</p><script>var x = "99.000 ₫";</script>
        </body></html>"#;

    fn schema(fields: &[(&str, ExtractFieldType)]) -> BTreeMap<String, ExtractFieldType> {
        fields.iter().map(|(k, t)| ((*k).to_owned(), *t)).collect()
    }

    #[test]
    fn reads_structured_data_pairs_prices_and_text() {
        let f = facts_from_html(SHOP, "http://shop.test/p/1", None).unwrap();
        assert_eq!(f.jsonld.len(), 1);
        assert_eq!(f.meta.get("og:title").map(String::as_str), Some("Laptop ASUS Vivobook"));
        assert_eq!((f.title.as_str(), f.lang.as_str()), ("Laptop ASUS | Shop", "vi"));
        assert!(f.pairs.contains(&("Bảo hành".into(), "24 tháng".into())), "{:?}", f.pairs);
        assert!(f.pairs.contains(&("Trạng thái".into(), "Còn hàng".into())), "{:?}", f.pairs);
        let prices: Vec<(&str, bool)> = f.prices.iter().map(|p| (p.text.as_str(), p.struck)).collect();
        assert_eq!(prices, vec![("25.990.000 ₫", true), ("21.490.000 ₫", false)]);
        assert!(f.prices[1].context.contains("price"), "{:?}", f.prices[1]);
        assert!(!f.text.contains("HIDDEN") && !f.text.contains("99.000"), "{}", f.text);
        let out = extract(
            &f,
            &schema(&[("price", ExtractFieldType::Number), ("in_stock", ExtractFieldType::Boolean)]),
            ExtractSourceType::Dom,
        );
        assert_eq!(out.data.get("price"), Some(&json!(21_490_000)));
        assert_eq!(out.data.get("in_stock"), Some(&json!(true)));
    }

    #[test]
    fn prices_from_fragments_when_there_is_no_structured_data() {
        let html = r#"<html><body><div class="product"><span>Giá:</span> <b class="gia">19.990.000₫</b>
            <s>21.990.000₫</s></div></body></html>"#;
        let f = facts_from_html(html, "http://shop.test/", None).unwrap();
        let out = extract(&f, &schema(&[("price", ExtractFieldType::Number)]), ExtractSourceType::Dom);
        assert_eq!(out.data.get("price"), Some(&json!(19_990_000)));
    }

    #[test]
    fn a_selector_limits_the_facts_and_several_products_are_counted() {
        let html = r#"<html><head><script type="application/ld+json">[{"@type":"Product","name":"A","offers":{"price":"100","priceCurrency":"USD"}},
            {"@type":"Product","name":"B","offers":{"price":"200","priceCurrency":"USD"}}]</script></head>
            <body><div id="a"><span class="price">$100.00</span></div><div id="b"><span class="price">$200.00</span></div></body></html>"#;
        let whole = facts_from_html(html, "http://x/", None).unwrap();
        assert_eq!(products(&whole.jsonld), 2);
        let b = facts_from_html(html, "http://x/", Some("#b")).unwrap();
        assert!(b.jsonld.is_empty());
        let out = extract(&b, &schema(&[("price", ExtractFieldType::Number)]), ExtractSourceType::Dom);
        assert_eq!(out.data.get("price"), Some(&json!(200)));
        assert!(facts_from_html(html, "http://x/", Some("#nope")).is_none());
    }

    #[test]
    fn microdata_items() {
        let html = r#"<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Phone</span>
            <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="4990000">
            <meta itemprop="priceCurrency" content="VND"></div></div>"#;
        let f = facts_from_html(html, "http://x/", None).unwrap();
        assert_eq!(f.microdata.len(), 1);
        let out = extract(&f, &schema(&[("price", ExtractFieldType::Number)]), ExtractSourceType::Dom);
        assert_eq!(out.data.get("price"), Some(&json!(4_990_000)));
    }
}
