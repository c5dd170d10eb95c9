//! Price-looking fragments: matches of the runtime's price regex, with
//! their context (a label, price-like ids and classes), strike-through
//! state, and whether they sit in a link or the page's furniture.

use std::sync::LazyLock;

use dom_query::NodeRef;
use regex::Regex;

use super::text::{clean, content_text, cut, name_of, text_nodes};
use crate::browser::extract::PriceFragment;

const MAX_PRICES: usize = 200;

const CUR_PRE: &str = r"US\$|\$|€|£|¥|₫|₩|₹|VNĐ|VND|USD|EUR|GBP|JPY";
const CUR_POST: &str = r"₫|đồng|vnđ|vnd|đ|usd|eur|€|\$|£|¥|円|元|₩";
const NUMP: &str = r"\d{1,3}(?:[.,\u{a0}\u{202f} ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?";

static PRICE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(?P<pre>(?:{CUR_PRE})\s?(?:{NUMP}))|(?P<post>(?:{NUMP})\s?(?:{CUR_POST}))")).ok()
});
static PRICE_HINT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"price|gia|amount|cost|total|discount|khuyen").ok());
const PRICE_WORDS: [&str; 27] = [
    "sale", "old", "regular", "original", "giam", "was", "now", "final", "special", "km", "list", "market", "tong",
    "new", "current", "compare", "strike", "through", "save", "subtotal", "shipping", "ship", "fee", "tax", "price",
    "gia", "total",
];

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

pub(super) fn prices(scope: &NodeRef<'_>) -> Vec<PriceFragment> {
    let mut out: Vec<PriceFragment> = Vec::new();
    let mut seen: Vec<(dom_query::NodeId, String)> = Vec::new();
    for t in text_nodes(scope) {
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
