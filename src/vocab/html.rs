//! Visible text of HTML: which elements are hidden or never text, element
//! names, and the text of a node as lines or one line, white space
//! collapsed. Watches read fetched pages with it (`watch/html`), memory's
//! sources the HTML files put into them ([`visible_lines`]).

use dom_query::NodeRef;

/// The visible text of a whole HTML document as lines (see [`lines_of`]).
pub fn visible_lines(html: &str) -> Vec<String> {
    let doc = dom_query::Document::from(html);
    let root = doc.root();
    lines_of(&root)
}

/// Elements whose content is never text.
const SKIP: [&str; 8] = ["script", "style", "template", "noscript", "head", "svg", "iframe", "object"];
/// Elements that start a new line of text.
pub(crate) const BLOCKS: [&str; 32] = [
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
pub(crate) fn clean(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn cut(s: String, max: usize) -> String {
    if s.chars().count() <= max { s } else { s.chars().take(max).collect() }
}

/// Not shown, as far as the markup says.
pub(crate) fn hidden(node: &NodeRef<'_>) -> bool {
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

/// The text nodes under `scope` that are not hidden, in document order.
pub(crate) fn text_nodes<'a>(scope: &NodeRef<'a>) -> Vec<NodeRef<'a>> {
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
    texts
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
