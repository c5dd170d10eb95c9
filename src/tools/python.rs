//! A client tool registered as Python source (Letta-style): its one
//! function's signature and Google-style docstring become the tool's
//! description and JSON Schema. The source is parsed (tree-sitter), never
//! run: no Python is needed, and nothing in it executes.
//!
//! Type hints → JSON Schema: `str` string, `int` integer, `float` number,
//! `bool` boolean, `list`/`List[T]`/`list[T]` array (of T), `dict`/`Dict[..]`
//! object, `Optional[T]` / `T | None` T or null, `Literal["a", "b"]` an enum.
//! A parameter with a default, or `Optional`, is not required.

use serde_json::{Map, Value, json};
use tree_sitter::{Node, Parser};

use crate::error::{Error, Result};

/// What the source declares.
#[derive(Debug, Clone, PartialEq)]
pub struct PyFunction {
    pub name: String,
    /// The docstring's summary (its first paragraph).
    pub summary: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

fn bad(message: impl Into<String>) -> Error {
    Error::invalid_arguments(message.into())
}

/// Read the function `expected` (the registration's `name`) from `source`.
pub fn parse_function(source: &str, expected: &str) -> Result<PyFunction> {
    parse(source, Some(expected))
}

/// Read the first function of `source` (Letta names a tool by its `def`).
pub fn parse_first_function(source: &str) -> Result<PyFunction> {
    parse(source, None)
}

fn parse(source: &str, expected: Option<&str>) -> Result<PyFunction> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| Error::internal("the Python grammar does not load").with_source(e))?;
    let tree = parser.parse(source, None).ok_or_else(|| bad("the source could not be parsed"))?;
    let root = tree.root_node();
    if root.has_error() {
        let at = first_error(root).unwrap_or(root);
        let p = at.start_position();
        return Err(bad(format!("Python syntax error at line {}, column {}", p.row + 1, p.column + 1)));
    }
    let text = |n: Node| n.utf8_text(source.as_bytes()).unwrap_or_default().to_owned();
    let mut functions = Vec::new();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        let def = match child.kind() {
            "function_definition" => Some(child),
            "decorated_definition" => {
                child.child_by_field_name("definition").filter(|d| d.kind() == "function_definition")
            }
            _ => None,
        };
        functions.extend(def);
    }
    let Some(&first) = functions.first() else {
        return Err(bad("the source defines no function: write one `def` with type hints and a docstring"));
    };
    let named = |f: &Node| f.child_by_field_name("name").map(text).unwrap_or_default();
    let first_name = named(&first);
    let expected = expected.unwrap_or(&first_name);
    let def = match functions.iter().find(|f| named(f) == expected) {
        Some(f) => *f,
        None => {
            return Err(bad(format!(
                "`name` is {expected:?} but the source defines `def {}`: they must be the same",
                named(&first)
            )));
        }
    };
    let mut c = def.walk();
    if def.children(&mut c).any(|n| n.kind() == "async") {
        return Err(bad(format!("`async def {expected}` is not supported: write a plain `def`")));
    }
    let docstring = def
        .child_by_field_name("body")
        .and_then(|b| b.named_child(0))
        .filter(|s| s.kind() == "expression_statement")
        .and_then(|s| s.named_child(0))
        .filter(|s| s.kind() == "string")
        .map(|s| string_value(&text(s)))
        .ok_or_else(|| {
            bad(format!("`{expected}` has no docstring: write a summary and an `Args:` entry for each parameter"))
        })?;
    let doc = Docstring::read(&docstring);
    if doc.summary.is_empty() {
        return Err(bad(format!("the docstring of `{expected}` has no summary line")));
    }
    let params = def.child_by_field_name("parameters").ok_or_else(|| bad("the function has no parameter list"))?;
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut pc = params.walk();
    for p in params.named_children(&mut pc) {
        let (name, hint, has_default) = match p.kind() {
            "identifier" => (text(p), None, false),
            "typed_parameter" => {
                let first = p.named_child(0);
                if first.is_some_and(|n| matches!(n.kind(), "list_splat_pattern" | "dictionary_splat_pattern")) {
                    return Err(bad(format!("`{}` is not supported: name each parameter", text(p))));
                }
                (first.map(text).unwrap_or_default(), p.child_by_field_name("type"), false)
            }
            "default_parameter" => (p.child_by_field_name("name").map(text).unwrap_or_default(), None, true),
            "typed_default_parameter" => {
                (p.child_by_field_name("name").map(text).unwrap_or_default(), p.child_by_field_name("type"), true)
            }
            "list_splat_pattern" | "dictionary_splat_pattern" => {
                return Err(bad(format!("`{}` is not supported: name each parameter", text(p))));
            }
            "keyword_separator" | "positional_separator" => continue,
            other => return Err(bad(format!("unsupported parameter `{}` ({other})", text(p)))),
        };
        if matches!(name.as_str(), "self" | "cls") {
            continue;
        }
        let hint = hint.ok_or_else(|| bad(format!("parameter `{name}` has no type hint (e.g. `{name}: str`)")))?;
        let (mut schema, optional) = type_schema(&text(hint))?;
        let description = doc
            .args
            .iter()
            .find(|(n, _)| n == &name)
            .map(|(_, d)| d.clone())
            .ok_or_else(|| bad(format!("parameter `{name}` has no entry in the docstring's `Args:` section")))?;
        if !description.is_empty()
            && let Some(o) = schema.as_object_mut()
        {
            o.insert("description".into(), json!(description));
        }
        if !has_default && !optional {
            required.push(json!(name));
        }
        properties.insert(name, schema);
    }
    Ok(PyFunction {
        name: expected.to_owned(),
        summary: doc.summary,
        parameters: json!({"type": "object", "properties": properties, "required": required}),
    })
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut c = node.walk();
    node.children(&mut c).filter(|n| n.has_error()).find_map(first_error)
}

/// The value of a string literal's source text (prefixes and quotes off;
/// escapes are left as written, which a docstring rarely needs).
fn string_value(literal: &str) -> String {
    let s = literal.trim_start_matches(|c: char| "rRbBuUfF".contains(c));
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = s.strip_prefix(q).and_then(|x| x.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    s.to_owned()
}

/// A type hint as a JSON Schema; `true` when it admits `None`.
fn type_schema(hint: &str) -> Result<(Value, bool)> {
    let hint = hint.trim();
    let unsupported = || {
        bad(format!(
            "unsupported type hint `{hint}`: use str, int, float, bool, list[T], dict, Optional[T] or Literal[...]"
        ))
    };
    // `T | None`
    let parts = split_top(hint, '|');
    if parts.len() > 1 {
        let (nones, rest): (Vec<&str>, Vec<&str>) = parts.iter().partition(|p| p.trim() == "None");
        if nones.is_empty() || rest.len() != 1 {
            return Err(unsupported());
        }
        let (inner, _) = type_schema(rest[0])?;
        return Ok((nullable(inner), true));
    }
    let (head, args) = match hint.find('[') {
        Some(i) if hint.ends_with(']') => (hint[..i].trim(), Some(&hint[i + 1..hint.len() - 1])),
        Some(_) => return Err(unsupported()),
        None => (hint, None),
    };
    let head = head.strip_prefix("typing.").unwrap_or(head);
    let schema = match (head, args) {
        ("str", None) => json!({"type": "string"}),
        ("int", None) => json!({"type": "integer"}),
        ("float", None) => json!({"type": "number"}),
        ("bool", None) => json!({"type": "boolean"}),
        ("list" | "List", None) => json!({"type": "array"}),
        ("list" | "List", Some(a)) => json!({"type": "array", "items": type_schema(a)?.0}),
        ("dict" | "Dict", _) => json!({"type": "object"}),
        ("Any", None) => json!({}),
        ("Optional", Some(a)) => return Ok((nullable(type_schema(a)?.0), true)),
        ("Literal", Some(a)) => {
            let values: Vec<Value> = split_top(a, ',').iter().map(|v| literal(v.trim())).collect::<Result<_>>()?;
            if values.is_empty() {
                return Err(unsupported());
            }
            json!({"enum": values})
        }
        _ => return Err(unsupported()),
    };
    Ok((schema, false))
}

fn nullable(schema: Value) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some(t) => {
            let mut s = schema.clone();
            s["type"] = json!([t, "null"]);
            s
        }
        None => json!({"anyOf": [schema, {"type": "null"}]}),
    }
}

fn literal(v: &str) -> Result<Value> {
    if (v.starts_with('"') && v.ends_with('"') || v.starts_with('\'') && v.ends_with('\'')) && v.len() >= 2 {
        return Ok(json!(v[1..v.len() - 1]));
    }
    if let Ok(n) = v.parse::<i64>() {
        return Ok(json!(n));
    }
    match v {
        "True" => Ok(json!(true)),
        "False" => Ok(json!(false)),
        _ => Err(bad(format!("unsupported Literal value `{v}`: use strings, integers or booleans"))),
    }
}

/// `s` split on `sep` outside brackets and quotes.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let (mut depth, mut quote, mut start, mut out) = (0i32, None::<char>, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// A Google-style docstring: the summary and the `Args:` entries.
struct Docstring {
    summary: String,
    args: Vec<(String, String)>,
}

impl Docstring {
    fn read(doc: &str) -> Docstring {
        let lines: Vec<&str> = doc.lines().collect();
        let mut summary = Vec::new();
        let mut i = 0;
        while i < lines.len() && lines[i].trim().is_empty() {
            i += 1;
        }
        while i < lines.len() && !lines[i].trim().is_empty() && !is_section(lines[i]) {
            summary.push(lines[i].trim());
            i += 1;
        }
        let mut args: Vec<(String, String)> = Vec::new();
        if let Some(start) = lines.iter().position(|l| matches!(l.trim(), "Args:" | "Arguments:" | "Parameters:")) {
            let indent_of = |l: &str| l.len() - l.trim_start().len();
            let mut entry_indent = None;
            for line in &lines[start + 1..] {
                if line.trim().is_empty() {
                    continue;
                }
                let indent = indent_of(line);
                if indent <= indent_of(lines[start]) {
                    break; // the next section
                }
                let at = *entry_indent.get_or_insert(indent);
                if indent > at {
                    if let Some((_, d)) = args.last_mut() {
                        d.push(' ');
                        d.push_str(line.trim());
                    }
                    continue;
                }
                let (head, desc) = line.trim().split_once(':').unwrap_or((line.trim(), ""));
                let name = head.split(['(', ' ']).next().unwrap_or_default().trim().trim_start_matches('*');
                args.push((name.to_owned(), desc.trim().to_owned()));
            }
        }
        Docstring { summary: summary.join(" "), args }
    }
}

fn is_section(line: &str) -> bool {
    matches!(line.trim(), "Args:" | "Arguments:" | "Parameters:" | "Returns:" | "Raises:" | "Yields:" | "Examples:")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request of the user's document, as written.
    const SEED: &str = "def query_local_db(query: str, category: str = None):\n    \"\"\"\n    Search articles in the local DB.\n\n    Args:\n        query (str): Search keyword.\n        category (str): Article category (optional).\n    \"\"\"\n    return \"WAITING_FOR_CLIENT_EXECUTION\"";

    #[test]
    fn the_seed_example_gives_query_required_and_category_optional() {
        let f = parse_function(SEED, "query_local_db").unwrap();
        assert_eq!(f.summary, "Search articles in the local DB.");
        assert_eq!(
            f.parameters,
            json!({"type": "object", "properties": {
                "query": {"type": "string", "description": "Search keyword."},
                "category": {"type": "string", "description": "Article category (optional)."}
            }, "required": ["query"]})
        );
    }

    #[test]
    fn type_hints_become_schema_types() {
        let src = r#"
from typing import List, Literal, Optional

def book(city: str, nights: int, budget: float, breakfast: bool, tags: List[str], extra: dict,
         room: Literal["single", "double"] = "double", note: Optional[str] = None, floor: int | None = None):
    """Book a hotel room.

    A longer explanation that is not the summary.

    Args:
        city: Thành phố, e.g. Đà Nẵng.
        nights: How many nights.
        budget: Budget per night in VND,
            before taxes.
        breakfast: With breakfast.
        tags: Wishes.
        extra: Anything else.
        room: Room type.
        note (str, optional): A note.
        floor: Preferred floor.

    Returns:
        dict: the booking.
    """
"#;
        let f = parse_function(src, "book").unwrap();
        let p = &f.parameters["properties"];
        assert_eq!(f.summary, "Book a hotel room.");
        assert_eq!(p["city"]["description"], json!("Thành phố, e.g. Đà Nẵng."));
        assert_eq!(p["nights"]["type"], json!("integer"));
        assert_eq!(p["budget"], json!({"type": "number", "description": "Budget per night in VND, before taxes."}));
        assert_eq!(p["breakfast"]["type"], json!("boolean"));
        assert_eq!(p["tags"]["items"], json!({"type": "string"}));
        assert_eq!(p["extra"]["type"], json!("object"));
        assert_eq!(p["room"]["enum"], json!(["single", "double"]));
        assert_eq!(p["note"]["type"], json!(["string", "null"]));
        assert_eq!(p["floor"]["type"], json!(["integer", "null"]));
        assert_eq!(f.parameters["required"], json!(["city", "nights", "budget", "breakfast", "tags", "extra"]));
    }

    #[test]
    fn every_mistake_is_named() {
        let cases = [
            ("x = 1\n", "q", "defines no function"),
            ("def q(a: str:\n    pass\n", "q", "syntax error at line 1"),
            ("async def q(a: str):\n    \"\"\"Q.\n\n    Args:\n        a: A.\n    \"\"\"\n", "q", "`async def q`"),
            (
                "def q(a):\n    \"\"\"Q.\n\n    Args:\n        a: A.\n    \"\"\"\n",
                "q",
                "parameter `a` has no type hint",
            ),
            ("def q(a: str, b: int):\n    \"\"\"Q.\n\n    Args:\n        a: A.\n    \"\"\"\n", "q", "`b` has no entry"),
            ("def q(a: str):\n    return a\n", "q", "has no docstring"),
            ("def other(a: str):\n    \"\"\"Q.\n\n    Args:\n        a: A.\n    \"\"\"\n", "q", "defines `def other`"),
            (
                "def q(a: set):\n    \"\"\"Q.\n\n    Args:\n        a: A.\n    \"\"\"\n",
                "q",
                "unsupported type hint `set`",
            ),
            ("def q(*a: str):\n    \"\"\"Q.\n\n    Args:\n        a: A.\n    \"\"\"\n", "q", "not supported"),
        ];
        for (src, name, want) in cases {
            let err = parse_function(src, name).unwrap_err();
            assert_eq!(err.code(), crate::error::ErrorCode::InvalidArguments);
            assert!(err.message().contains(want), "{src:?}: {}", err.message());
        }
    }

    #[test]
    fn nothing_in_any_input_panics() {
        let mut seeds: Vec<String> = vec![SEED.to_owned()];
        for cut in (0..SEED.len()).step_by(3) {
            if SEED.is_char_boundary(cut) {
                seeds.push(SEED[..cut].to_owned());
                seeds.push(format!("{}]]'\"\"\"[", &SEED[cut..]));
            }
        }
        for s in seeds {
            let _ = parse_function(&s, "query_local_db");
        }
    }
}
