//! Pythonic calls (Llama 3.2's zero-shot format): `[f(a="x", b=2), g()]`
//! or `f(a="x")`, read with tree-sitter-python (parsed, never run). Only
//! keyword arguments with literal values are accepted: strings, numbers,
//! `True`/`False`/`None`, lists, tuples and dicts of them.

use serde_json::{Map, Value};
use tree_sitter::{Node, Parser};

/// The calls `text` is made of, as (name, arguments), or `None` when it is
/// anything else.
pub(super) fn calls(text: &str) -> Option<Vec<(String, Value)>> {
    let text = text.trim();
    if !text.ends_with([')', ']']) {
        return None;
    }
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() != 1 {
        return None;
    }
    let statement = root.named_child(0).filter(|n| n.kind() == "expression_statement")?;
    if statement.named_child_count() != 1 {
        return None;
    }
    let expr = statement.named_child(0)?;
    let calls: Vec<Node> = match expr.kind() {
        "call" => vec![expr],
        "list" => named(expr),
        _ => return None,
    };
    if calls.is_empty() {
        return None;
    }
    calls.into_iter().map(|c| call(c, text)).collect()
}

fn named(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect()
}

fn call(node: Node, src: &str) -> Option<(String, Value)> {
    if node.kind() != "call" {
        return None;
    }
    let function = node.child_by_field_name("function").filter(|f| matches!(f.kind(), "identifier" | "attribute"))?;
    let name = function.utf8_text(src.as_bytes()).ok()?.to_owned();
    let mut args = Map::new();
    for arg in named(node.child_by_field_name("arguments").filter(|a| a.kind() == "argument_list")?) {
        if arg.kind() != "keyword_argument" {
            return None;
        }
        let key = arg.child_by_field_name("name")?.utf8_text(src.as_bytes()).ok()?.to_owned();
        args.insert(key, literal(arg.child_by_field_name("value")?, src)?);
    }
    Some((name, Value::Object(args)))
}

fn literal(node: Node, src: &str) -> Option<Value> {
    let text = node.utf8_text(src.as_bytes()).ok()?;
    match node.kind() {
        // Prefixed (f"", b"") and triple-quoted strings are not literals JSON5 reads.
        "string" => json5::from_str::<String>(text).ok().map(Value::String),
        "integer" | "float" => serde_json::from_str::<serde_json::Number>(text).ok().map(Value::Number),
        "unary_operator" if text.starts_with('-') => match literal(node.named_child(0)?, src)? {
            Value::Number(n) => serde_json::from_str::<serde_json::Number>(&format!("-{n}")).ok().map(Value::Number),
            _ => None,
        },
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "none" => Some(Value::Null),
        "list" | "tuple" => {
            named(node).into_iter().map(|n| literal(n, src)).collect::<Option<Vec<_>>>().map(Value::Array)
        }
        "dictionary" => {
            let mut map = Map::new();
            for pair in named(node) {
                let key = match literal(pair.child_by_field_name("key")?, src)? {
                    Value::String(s) => s,
                    _ => return None,
                };
                map.insert(key, literal(pair.child_by_field_name("value")?, src)?);
            }
            Some(Value::Object(map))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pythonic_calls_are_read_and_anything_else_is_not() {
        assert_eq!(
            calls(r#"[web_search(query='giá iPhone 15', count=5), browser_snapshot()]"#),
            Some(vec![
                ("web_search".to_owned(), json!({"query": "giá iPhone 15", "count": 5})),
                ("browser_snapshot".to_owned(), json!({})),
            ])
        );
        assert_eq!(
            calls(r#"f(a=-1.5, b=True, c=None, d=[1, "x"], e={"k": (1, 2)})"#),
            Some(vec![("f".to_owned(), json!({"a": -1.5, "b": true, "c": null, "d": [1, "x"], "e": {"k": [1, 2]}}))])
        );
        for other in [
            "Xin chào, giá là 1.290.000 ₫.",
            "f(x)",
            "f(a=g())",
            "f(a=b)",
            "f(a=f\"{x}\")",
            "[1, 2]",
            "[]",
            "import os; f(a=1)",
            "f(a=1) g(b=2)",
            "Tôi sẽ gọi web_search(query=\"x\")",
            "[Shopee](https://shopee.vn)",
        ] {
            assert_eq!(calls(other), None, "{other}");
        }
    }
}
