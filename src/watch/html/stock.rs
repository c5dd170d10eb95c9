//! Stock lines: short texts holding one of extraction's stock phrases, with
//! what their part of the page is about when it is not the main product's
//! (the runtime's `regionOf`, as far as markup tells: landmarks, roles, and
//! whole id/class words). A chat widget's "unavailable" or a review's "sold
//! out" then never decides the product's availability over plain HTTP either.

use dom_query::NodeRef;

use super::text::{BLOCKS, content_text, name_of, text_nodes};
use crate::browser::extract::{STOCK_PHRASES, StockLine};
use crate::vocab::text::fold;

const MAX_LINES: usize = 60;

/// Region names and the whole id/class words that say them (the runtime's `REGION_WORDS`).
const REGION_WORDS: &[(&str, &[&str])] = &[
    (
        "chat",
        &["chat", "livechat", "chatbot", "intercom", "zendesk", "tawk", "messenger", "helpdesk", "zopim", "olark"],
    ),
    (
        "recommendation",
        &[
            "recommendation",
            "recommendations",
            "recommended",
            "related",
            "similar",
            "upsell",
            "upsells",
            "crosssell",
            "crosssells",
            "carousel",
            "slick",
            "swiper",
            "recently",
            "accessories",
            "bundle",
            "bundles",
        ],
    ),
    (
        "review",
        &[
            "review",
            "reviews",
            "testimonial",
            "testimonials",
            "comment",
            "comments",
            "question",
            "questions",
            "qa",
            "faq",
        ],
    ),
    ("newsletter", &["newsletter", "subscribe", "subscription", "signup"]),
    ("store", &["store", "stores", "instore", "pickup", "shops", "branches", "warehouse"]),
    ("delivery", &["delivery", "shipping", "postcode", "zipcode"]),
    ("variant", &["variant", "variants", "variation", "variations", "swatch", "swatches"]),
];

/// The words of an element's id, class, `aria-label` and `data-testid`
/// (camelCase split, lowercase, on anything but letters and digits).
fn words_of(node: &NodeRef<'_>) -> Vec<String> {
    let raw: Vec<String> = ["id", "class", "aria-label", "data-testid"]
        .iter()
        .filter_map(|a| node.attr(a).map(|v| v.to_string()))
        .collect();
    let mut spaced = String::new();
    let mut prev_lower = false;
    for c in raw.join(" ").chars() {
        if c.is_ascii_uppercase() && prev_lower {
            spaced.push(' ');
        }
        prev_lower = c.is_ascii_lowercase();
        spaced.push(c.to_ascii_lowercase());
    }
    spaced.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// What the part of the page around `node` is about ('' when its own).
fn region_of(node: &NodeRef<'_>) -> &'static str {
    let mut at = Some(*node);
    let mut depth = 0;
    let mut region = "";
    while let Some(n) = at.filter(NodeRef::is_element) {
        let name = name_of(&n);
        let role = n.attr("role").map(|r| r.to_ascii_lowercase()).unwrap_or_default();
        if matches!(name.as_str(), "nav" | "header" | "footer" | "aside")
            || matches!(role.as_str(), "navigation" | "banner" | "contentinfo" | "complementary")
        {
            return "furniture";
        }
        if name == "dialog"
            || matches!(role.as_str(), "dialog" | "alertdialog")
            || n.attr("aria-modal").is_some_and(|v| &*v == "true")
        {
            return "dialog";
        }
        if matches!(name.as_str(), "select" | "option") || matches!(role.as_str(), "listbox" | "radiogroup") {
            return "variant";
        }
        if region.is_empty() && depth < 7 && name != "body" {
            let words = words_of(&n);
            if let Some((r, _)) = REGION_WORDS.iter().find(|(_, ws)| words.iter().any(|w| ws.contains(&w.as_str()))) {
                region = r;
            }
        }
        depth += 1;
        at = n.parent();
    }
    region
}

/// The stock lines under `scope`, in document order.
pub(super) fn stock_lines(scope: &NodeRef<'_>) -> Vec<StockLine> {
    let mut out: Vec<StockLine> = Vec::new();
    let mut seen = Vec::new();
    let block_of = |node: &NodeRef<'_>| {
        let name = name_of(node);
        BLOCKS.contains(&name.as_str()) || matches!(name.as_str(), "td" | "th")
    };
    for n in text_nodes(scope) {
        if out.len() >= MAX_LINES {
            break;
        }
        let text = n.text();
        if !(3..=400).contains(&text.chars().count()) {
            continue;
        }
        let f = fold(&text);
        if !STOCK_PHRASES.iter().any(|p| f.contains(p)) {
            continue;
        }
        let Some(parent) = n.parent() else { continue };
        // The smallest block around it: its line.
        let mut block = parent;
        while !block_of(&block) {
            match block.parent().filter(NodeRef::is_element) {
                Some(p) if p.id != scope.id => block = p,
                _ => break,
            }
        }
        if seen.contains(&block.id) {
            continue;
        }
        seen.push(block.id);
        let line: String = content_text(&block).chars().take(200).collect();
        out.push(StockLine { text: line, other: region_of(&parent).to_owned() });
    }
    out
}
