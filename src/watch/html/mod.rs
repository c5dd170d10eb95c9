//! Fetched HTML → [`PageFacts`], in Rust, so a watch checked over plain HTTP
//! runs the same extraction as `browser_extract` (which gets its facts from
//! the page runtime, `runtime.js` `facts`). What this reads mirrors it:
//! JSON-LD (`@graph` flattened), microdata, `<meta>` tags and the canonical
//! link, title, URL, `lang`, label → value pairs (two-cell rows, `<dt>/<dd>`,
//! two-part list items, `Label: value` lines), price-looking fragments with
//! their context and strike-through state (`<del>`, `<s>`, `<strike>`,
//! inline `line-through`), and the text. There is no layout, so "visible"
//! means not `hidden`, not `display:none`/`visibility:hidden` inline, not
//! `aria-hidden`, and not in `<script>`, `<style>`, `<template>`,
//! `<noscript>`. Fields it does not fill keep their defaults.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use dom_query::{Document, NodeRef, Selection};
use regex::Regex;
use serde_json::{Map, Value};

use crate::browser::extract::{MicrodataItem, PageFacts, PriceFragment};

/// The text kept, in characters (as the runtime caps it).
const MAX_TEXT: usize = 20_000;
const MAX_PAIRS: usize = 300;
const MAX_PRICES: usize = 200;

const CUR_PRE: &str = r"US\$|\$|€|£|¥|₫|₩|₹|VNĐ|VND|USD|EUR|GBP|JPY";
const CUR_POST: &str = r"₫|đồng|vnđ|vnd|đ|usd|eur|€|\$|£|¥|円|元|₩";
const NUMP: &str = r"\d{1,3}(?:[.,\u{a0}\u{202f} ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?";

static PRICE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(?P<pre>(?:{CUR_PRE})\s?(?:{NUMP}))|(?P<post>(?:{NUMP})\s?(?:{CUR_POST}))")).ok()
});
static LABEL_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^([^:|]{1,60}?)\s*:\s+(.{1,300})$").ok());
static PRICE_HINT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"price|gia|amount|cost|total|discount|khuyen").ok());
const PRICE_WORDS: [&str; 27] = [
    "sale", "old", "regular", "original", "giam", "was", "now", "final", "special", "km", "list", "market", "tong",
    "new", "current", "compare", "strike", "through", "save", "subtotal", "shipping", "ship", "fee", "tax", "price",
    "gia", "total",
];

/// Elements whose content is never text.
const SKIP: [&str; 8] = ["script", "style", "template", "noscript", "head", "svg", "iframe", "object"];
/// Elements that start a new line of text.
const BLOCKS: [&str; 32] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tr",
    "ul",
];

pub(crate) fn name_of(node: &NodeRef<'_>) -> String {
    node.node_name().map(|n| n.to_ascii_lowercase()).unwrap_or_default()
}

/// Collapses white space.
fn clean(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(s: String, max: usize) -> String {
    if s.chars().count() <= max { s } else { s.chars().take(max).collect() }
}

/// Not shown, as far as the markup says.
fn hidden(node: &NodeRef<'_>) -> bool {
    if !node.is_element() {
        return false;
    }
    if SKIP.contains(&name_of(node).as_str()) || node.has_attr("hidden") {
        return true;
    }
    if node.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return true;
    }
    let style = node.attr("style").map(|s| s.to_ascii_lowercase().replace(' ', "")).unwrap_or_default();
    style.contains("display:none") || style.contains("visibility:hidden")
}

pub(crate) fn hidden_or_inside_hidden(node: &NodeRef<'_>) -> bool {
    let mut at = Some(*node);
    while let Some(n) = at {
        if hidden(&n) {
            return true;
        }
        at = n.parent();
    }
    false
}

/// The text of `node` as lines: blocks on their own lines, hidden parts left out.
fn text_of(node: &NodeRef<'_>, out: &mut String) {
    if node.is_text() {
        out.push_str(&node.text());
        return;
    }
    if hidden(node) {
        return;
    }
    let block = BLOCKS.contains(&name_of(node).as_str()) || matches!(name_of(node).as_str(), "td" | "th");
    if block {
        out.push(if matches!(name_of(node).as_str(), "td" | "th") { '\t' } else { '\n' });
    }
    for child in node.children() {
        text_of(&child, out);
    }
    if block {
        out.push('\n');
    }
}

/// Visible text of `node` as lines, each cleaned, blank ones dropped.
pub(crate) fn lines_of(node: &NodeRef<'_>) -> Vec<String> {
    let mut raw = String::new();
    text_of(node, &mut raw);
    raw.split('\n').map(|l| clean(&l.replace('\t', " | "))).filter(|l| !l.is_empty()).collect()
}

/// One line of visible text (cells apart by spaces).
pub(crate) fn content_text(node: &NodeRef<'_>) -> String {
    let mut raw = String::new();
    text_of(node, &mut raw);
    clean(&raw)
}

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

fn json_ld(doc: &Document) -> (Vec<Value>, u64) {
    fn add(v: Value, out: &mut Vec<Value>, depth: usize) {
        if depth > 4 {
            return;
        }
        match v {
            Value::Array(items) => items.into_iter().for_each(|i| add(i, out, depth + 1)),
            Value::Object(mut map) => match map.remove("@graph") {
                Some(Value::Array(items)) => items.into_iter().for_each(|i| add(i, out, depth + 1)),
                Some(other) => {
                    map.insert("@graph".into(), other);
                    out.push(Value::Object(map));
                }
                None => out.push(Value::Object(map)),
            },
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut errors = 0;
    for script in doc.select("script").nodes() {
        let kind = script.attr("type").map(|t| t.trim().to_ascii_lowercase()).unwrap_or_default();
        if kind != "application/ld+json" {
            continue;
        }
        let raw = script.text();
        let body = raw.trim().trim_start_matches("<!--").trim_end_matches("-->");
        match serde_json::from_str::<Value>(body) {
            Ok(v) => add(v, &mut out, 0),
            Err(_) => errors += 1,
        }
    }
    (out, errors)
}

fn meta(doc: &Document) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for m in doc.select("meta[content]").nodes() {
        let key = m.attr("property").or_else(|| m.attr("name")).map(|k| k.to_ascii_lowercase()).unwrap_or_default();
        let content = cut(clean(&m.attr("content").unwrap_or_default()), 500);
        if !key.is_empty() {
            out.entry(key).or_insert(content);
        }
    }
    if let Some(href) = doc.select("link[rel=canonical]").attr("href") {
        out.insert("canonical".into(), href.to_string());
    }
    out
}

fn microdata(scope: &NodeRef<'_>) -> Vec<MicrodataItem> {
    fn item_of(el: &NodeRef<'_>, depth: usize) -> Value {
        let mut props = Map::new();
        visit(el, &mut props, depth);
        let kind = el.attr("itemtype").map(|t| Value::String(t.to_string())).unwrap_or(Value::Null);
        serde_json::json!({"type": kind, "properties": props})
    }
    fn visit(node: &NodeRef<'_>, props: &mut Map<String, Value>, depth: usize) {
        for c in node.element_children() {
            let scoped = c.has_attr("itemscope");
            if let Some(names) = c.attr("itemprop") {
                let tag = name_of(&c);
                let v = if scoped {
                    if depth < 5 { item_of(&c, depth + 1) } else { Value::Null }
                } else if let Some(content) = c.attr("content") {
                    Value::String(content.to_string())
                } else if matches!(tag.as_str(), "a" | "link" | "area") {
                    Value::String(c.attr("href").map(|h| h.to_string()).unwrap_or_default())
                } else if matches!(tag.as_str(), "img" | "audio" | "video" | "source" | "iframe" | "embed") {
                    Value::String(c.attr("src").map(|h| h.to_string()).unwrap_or_default())
                } else if tag == "time" && c.has_attr("datetime") {
                    Value::String(c.attr("datetime").map(|h| h.to_string()).unwrap_or_default())
                } else if matches!(tag.as_str(), "data" | "meter" | "input") && c.has_attr("value") {
                    Value::String(c.attr("value").map(|h| h.to_string()).unwrap_or_default())
                } else {
                    Value::String(cut(clean(&c.text()), 500))
                };
                for name in names.split_whitespace() {
                    match props.get_mut(name) {
                        None => {
                            props.insert(name.to_owned(), v.clone());
                        }
                        Some(Value::Array(items)) => items.push(v.clone()),
                        Some(old) => *old = Value::Array(vec![old.clone(), v.clone()]),
                    }
                }
                if scoped {
                    continue;
                }
            }
            if !scoped {
                visit(&c, props, depth);
            }
        }
    }
    let mut roots: Vec<NodeRef<'_>> = Vec::new();
    if scope.has_attr("itemscope") && !scope.has_attr("itemprop") {
        roots.push(*scope);
    }
    roots.extend(
        Selection::from(*scope)
            .select("[itemscope]:not([itemprop])")
            .nodes()
            .iter()
            .filter(|n| n.id != scope.id)
            .take(50)
            .cloned(),
    );
    roots.iter().filter_map(|el| serde_json::from_value(item_of(el, 0)).ok()).collect()
}

fn pairs(scope: &NodeRef<'_>, text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |l: &str, v: &str| {
        let l = clean(l);
        let l = l.strip_suffix(':').unwrap_or(&l).trim().to_owned();
        let v = clean(v);
        let ok = !l.is_empty()
            && !v.is_empty()
            && l.chars().count() <= 60
            && v.chars().count() <= 300
            && l.chars().any(char::is_alphabetic)
            && out.len() < MAX_PAIRS;
        if ok && !out.iter().any(|(a, b)| *a == l && *b == v) {
            out.push((l, v));
        }
    };
    let within = |sel: &str| Selection::from(*scope).select(sel).nodes().to_vec();
    for tr in within("tr") {
        if hidden_or_inside_hidden(&tr) {
            continue;
        }
        let cells: Vec<NodeRef<'_>> =
            tr.element_children().into_iter().filter(|c| matches!(name_of(c).as_str(), "td" | "th")).collect();
        if cells.len() == 2 {
            add(&content_text(&cells[0]), &content_text(&cells[1]));
        } else if cells.len() > 2 && name_of(&cells[0]) == "th" && cells[1..].iter().all(|c| name_of(c) == "td") {
            let rest: Vec<String> = cells[1..].iter().map(content_text).collect();
            add(&content_text(&cells[0]), &rest.join(" | "));
        }
    }
    for dt in within("dt") {
        if hidden_or_inside_hidden(&dt) {
            continue;
        }
        let mut values = Vec::new();
        let mut next = dt.next_element_sibling();
        while let Some(dd) = next.filter(|d| name_of(d) == "dd") {
            values.push(content_text(&dd));
            next = dd.next_element_sibling();
        }
        add(&content_text(&dt), &values.join("; "));
    }
    for el in within("li,div,p") {
        let children = el.element_children();
        if children.len() != 2 || hidden_or_inside_hidden(&el) {
            continue;
        }
        let leafy = |c: &NodeRef<'_>| {
            !c.is("a,button,input,select,textarea")
                && Selection::from(*c)
                    .select("a,button,input,select,textarea,div,p,li,tr,table,ul,ol,dl,section")
                    .is_empty()
        };
        if !leafy(&children[0]) || !leafy(&children[1]) {
            continue;
        }
        let own_text = el.children().iter().any(|n| n.is_text() && !n.text().trim().is_empty());
        let label = content_text(&children[0]);
        if !own_text && label.chars().count() <= 40 {
            add(&label, &content_text(&children[1]));
        }
    }
    if let Some(re) = LABEL_LINE.as_ref() {
        for line in text.lines() {
            if let Some(c) = re.captures(line) {
                let label = c.get(1).map_or("", |m| m.as_str());
                let value = c.get(2).map_or("", |m| m.as_str());
                let sentence = [". ", "! ", "? ", "; "].iter().any(|p| label.contains(p));
                let url_like =
                    label.to_ascii_lowercase().ends_with("http") || label.to_ascii_lowercase().ends_with("https");
                if !sentence && !url_like && label.split(' ').count() <= 6 {
                    add(label, value);
                }
            }
        }
    }
    out
}

/// Price-looking matches in `text`, with the runtime regex's boundaries.
pub(crate) fn price_matches(text: &str) -> Vec<String> {
    let Some(re) = PRICE_RE.as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    for c in re.captures_iter(text) {
        let (m, post) = match (c.name("pre"), c.name("post")) {
            (Some(m), _) => (m, false),
            (None, Some(m)) => (m, true),
            _ => continue,
        };
        let after = text[m.end()..].chars().next();
        let before = text[..m.start()].chars().next_back();
        let bad_after =
            if post { after.is_some_and(|a| a.is_alphanumeric()) } else { after.is_some_and(|a| a.is_ascii_digit()) };
        let bad_before = post && before.is_some_and(|b| b.is_ascii_digit() || b == '.' || b == ',');
        if !bad_after && !bad_before {
            out.push(clean(m.as_str()));
        }
    }
    out
}

fn is_price_hint(token: &str) -> bool {
    let folded = crate::vocab::text::fold(token);
    PRICE_HINT.as_ref().is_some_and(|re| re.is_match(&folded))
        || folded.split(['-', '_']).any(|w| PRICE_WORDS.contains(&w))
}

fn price_context(el: &NodeRef<'_>, before: &str) -> String {
    let mut hints: Vec<String> = Vec::new();
    let mut at = Some(*el);
    for _ in 0..5 {
        let Some(e) = at.filter(NodeRef::is_element) else { break };
        let tokens = [e.attr("id"), e.attr("class"), e.attr("itemprop")];
        for tk in tokens.iter().flatten().flat_map(|t| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>()) {
            if tk.len() < 40 && is_price_hint(&tk) && !hints.contains(&tk) {
                hints.push(tk);
            }
        }
        at = e.parent();
    }
    let before = clean(before);
    let before = before.trim_end_matches(':').trim_end();
    let label: String = before
        .rsplit(|c: char| !(c.is_alphabetic() || c == ' '))
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .rev()
        .take(30)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let hints = hints.into_iter().take(3).collect::<Vec<_>>().join(" ");
    let parts: Vec<String> = [label.trim().to_owned(), hints].into_iter().filter(|s| !s.is_empty()).collect();
    cut(parts.join(" / "), 100)
}

fn struck(el: &NodeRef<'_>) -> bool {
    let mut at = Some(*el);
    for _ in 0..5 {
        let Some(e) = at.filter(NodeRef::is_element) else { return false };
        if matches!(name_of(&e).as_str(), "del" | "s" | "strike") {
            return true;
        }
        if e.attr("style").is_some_and(|s| s.to_ascii_lowercase().contains("line-through")) {
            return true;
        }
        at = e.parent();
    }
    false
}

/// Whether an ancestor of `el` is one of `tags`.
fn inside(el: &NodeRef<'_>, tags: &[&str]) -> bool {
    let mut at = Some(*el);
    while let Some(e) = at.filter(NodeRef::is_element) {
        if tags.contains(&name_of(&e).as_str()) {
            return true;
        }
        at = e.parent();
    }
    false
}

fn prices(scope: &NodeRef<'_>) -> Vec<PriceFragment> {
    let mut out: Vec<PriceFragment> = Vec::new();
    let mut seen: Vec<(dom_query::NodeId, String)> = Vec::new();
    let mut stack = vec![*scope];
    let mut texts = Vec::new();
    while let Some(n) = stack.pop() {
        if n.is_text() {
            texts.push(n);
            continue;
        }
        if hidden(&n) {
            continue;
        }
        let mut children = n.children();
        children.reverse();
        stack.extend(children);
    }
    for t in texts {
        if out.len() >= MAX_PRICES {
            break;
        }
        if !t.text().chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let Some(mut el) = t.parent() else { continue };
        let mut joined = content_text(&el);
        for _ in 0..2 {
            if !price_matches(&joined).is_empty() {
                break;
            }
            let Some(parent) = el.parent().filter(NodeRef::is_element) else { break };
            let up = content_text(&parent);
            if up.chars().count() > 80 {
                break;
            }
            el = parent;
            joined = up;
        }
        for found in price_matches(&joined) {
            if seen.iter().any(|(id, s)| *id == el.id && *s == found) {
                continue;
            }
            seen.push((el.id, found.clone()));
            let before = match joined.find(&found) {
                Some(pos) if pos > 0 => joined[..pos].to_owned(),
                _ => el.prev_sibling().map(|p| p.text().to_string()).unwrap_or_default(),
            };
            let before: String = before.chars().rev().take(50).collect::<Vec<_>>().into_iter().rev().collect();
            out.push(PriceFragment {
                context: price_context(&el, &before),
                struck: struck(&el),
                text: found,
                link: inside(&el, &["a"]),
                furniture: inside(&el, &["nav", "header", "footer", "aside"]),
                // Sizes and the distance to the `<h1>` need a layout: unknown here.
                ..PriceFragment::default()
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

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
