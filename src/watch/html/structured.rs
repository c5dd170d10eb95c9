//! Structured data: JSON-LD (`@graph` flattened), `<meta>` tags with the
//! canonical link, and microdata items.

use std::collections::BTreeMap;

use dom_query::{Document, NodeRef, Selection};
use serde_json::{Map, Value};

use super::text::{clean, cut, name_of};
use crate::browser::extract::MicrodataItem;

pub(super) fn json_ld(doc: &Document) -> (Vec<Value>, u64) {
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

pub(super) fn meta(doc: &Document) -> BTreeMap<String, String> {
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

pub(super) fn microdata(scope: &NodeRef<'_>) -> Vec<MicrodataItem> {
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
