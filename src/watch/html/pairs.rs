//! Label → value pairs: two-cell table rows, `<dt>/<dd>`, two-part list
//! items and `Label: value` lines.

use std::sync::LazyLock;

use dom_query::{NodeRef, Selection};
use regex::Regex;

use super::text::{clean, content_text, hidden_or_inside_hidden, name_of};

const MAX_PAIRS: usize = 300;

static LABEL_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^([^:|]{1,60}?)\s*:\s+(.{1,300})$").ok());

pub(super) fn pairs(scope: &NodeRef<'_>, text: &str) -> Vec<(String, String)> {
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
