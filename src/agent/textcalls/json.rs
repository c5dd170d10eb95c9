//! JSON as local models write it: read strictly first, then as JSON5
//! (trailing commas, single quotes, unquoted keys, comments: the `json5`
//! crate), then, for calls written as text, with the closing brackets a
//! cut-short output lacks (a few at most; never a string cut short: its
//! value is lost). Only the extent of a value is found here (brackets
//! counted outside strings); the reading itself is the libraries'.

use serde_json::Value;

/// Brackets a cut-short value may lack and still be closed.
const MAX_CLOSERS: usize = 3;

/// Whether missing closing brackets may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closers {
    Add,
    Never,
}

/// The JSON value at the start of `text` (after white space), repaired if
/// need be, and the bytes of `text` it took.
pub(super) fn value_at(text: &str, closers: Closers) -> Option<(Value, usize)> {
    let lead = text.len() - text.trim_start().len();
    let rest = text.get(lead..)?;
    let mut strict = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    if let Some(Ok(value)) = strict.next() {
        return Some((value, lead + strict.byte_offset()));
    }
    let span = span(rest)?;
    let slice = rest.get(..span.end)?;
    if span.open_quote.is_some() {
        return None;
    }
    if span.missing.is_empty() {
        let value = json5::from_str::<Value>(slice).ok()?;
        return Some((value, lead + span.end));
    }
    if closers == Closers::Never || span.missing.len() > MAX_CLOSERS {
        return None;
    }
    let closed: String = slice.chars().chain(span.missing.iter().rev().copied()).collect();
    let value = serde_json::from_str::<Value>(&closed).ok().or_else(|| json5::from_str::<Value>(&closed).ok())?;
    Some((value, lead + span.end))
}

/// Every JSON value of `text`, one after the other (separated by white
/// space, `,` or `;`), when nothing else is there but a stray closing
/// bracket after a value (one too many, as models write at times).
pub(super) fn values(text: &str, closers: Closers) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let after_value = !out.is_empty();
        rest = rest.trim_start_matches(|c: char| {
            c.is_whitespace() || c == ',' || c == ';' || (after_value && (c == '}' || c == ']'))
        });
        if rest.is_empty() {
            return (!out.is_empty()).then_some(out);
        }
        let (value, used) = value_at(rest, closers)?;
        out.push(value);
        rest = rest.get(used..)?;
    }
}

/// A call's arguments sent in `tool_calls`, read leniently: one JSON object
/// (JSON5 spellings, a stray closing bracket), or a JSON string holding one
/// (arguments encoded twice). No brackets are added: arguments cut short
/// may have lost fields.
pub(crate) fn arguments(text: &str) -> Option<Value> {
    let mut values = values(text, Closers::Never)?;
    if values.len() != 1 {
        return None;
    }
    match values.pop()? {
        object @ Value::Object(_) => Some(object),
        Value::String(inner) => {
            let mut inner = values_once(&inner)?;
            inner.is_object().then(|| std::mem::take(&mut inner))
        }
        _ => None,
    }
}

/// `text` as exactly one value, without closers.
fn values_once(text: &str) -> Option<Value> {
    let mut values = values(text, Closers::Never)?;
    (values.len() == 1).then(|| values.pop()).flatten()
}

/// Where a bracketed value ends.
struct Span {
    /// Bytes up to its closing bracket (or the end of the text).
    end: usize,
    /// The closers still expected at the end of the text, innermost last.
    missing: Vec<char>,
    /// The quote of a string still open at the end of the text.
    open_quote: Option<char>,
}

/// The extent of the object or array `text` starts with: brackets counted
/// outside strings (either quote), escapes skipped. `None` when `text` does
/// not start with a bracket or its brackets do not match.
fn span(text: &str) -> Option<Span> {
    let mut missing = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' if !missing.is_empty() => quote = Some(c),
            '{' => missing.push('}'),
            '[' => missing.push(']'),
            '}' | ']' => {
                if missing.pop() != Some(c) {
                    return None;
                }
                if missing.is_empty() {
                    return Some(Span { end: i + c.len_utf8(), missing, open_quote: None });
                }
            }
            _ if missing.is_empty() => return None,
            _ => {}
        }
    }
    (!missing.is_empty()).then_some(Span { end: text.len(), missing, open_quote: quote })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_json5_and_cut_short_values_are_read() {
        let at = |t: &str| value_at(t, Closers::Add).map(|v| v.0);
        assert_eq!(value_at(r#" {"a": 1} tail"#, Closers::Add), Some((json!({"a": 1}), 9)));
        assert_eq!(at("{'a': 'it\\'s', b: [1, 2,],}"), Some(json!({"a": "it's", "b": [1, 2]})));
        assert_eq!(at(r#"{"a": {"b": "x"}"#), Some(json!({"a": {"b": "x"}})));
        assert_eq!(value_at(r#"{"a": {"b": "x"}"#, Closers::Never), None);
        // Brackets inside strings do not count.
        assert_eq!(at(r#"{"q": "a } b {", }"#), Some(json!({"q": "a } b {"})));
        // A value cut right after its bracket is empty; a string cut short,
        // or past a few missing closers, it is lost.
        assert_eq!(at("{"), Some(json!({})));
        for broken in ["", "x", "{{{{{\"a\": 1", "{\"a\": }", "[1, 2}", "{\"a\": nope}", r#"{"url": "https://a.b"#] {
            assert_eq!(at(broken), None, "{broken}");
        }
        let all = |t: &str| values(t, Closers::Add);
        assert_eq!(all(r#"{"a":1} {"b":2}; [3]"#), Some(vec![json!({"a": 1}), json!({"b": 2}), json!([3])]));
        assert_eq!(all(r#"{"a":1}} "#), Some(vec![json!({"a": 1})]));
        assert_eq!(all(r#"{"a":1} and more"#), None);
        assert_eq!(all("}{\"a\":1}"), None);
        assert_eq!(all("  "), None);
    }

    #[test]
    fn arguments_in_tool_calls_are_repaired_but_never_completed() {
        assert_eq!(arguments(r#"{"q": "x",}"#), Some(json!({"q": "x"})));
        assert_eq!(arguments(r#""{\"q\": \"x\"}""#), Some(json!({"q": "x"})));
        assert_eq!(arguments(r#"{"q": "x"}}"#), Some(json!({"q": "x"})));
        for bad in ["", "[1]", "\"x\"", r#"{"q": "x""#, r#"{"a": 1, "b": 2"#, r#"{"a":1} {"b":2}"#, r#""\"{}\"""#] {
            assert_eq!(arguments(bad), None, "{bad}");
        }
    }
}
