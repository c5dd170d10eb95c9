//! JSON as local models write it: read strictly first, then as JSON5
//! (trailing commas, single quotes, unquoted keys, comments: the `json5`
//! crate), then with the closing brackets a cut-short output lacks (a few at
//! most). Only the extent of a value is found here (brackets counted outside
//! strings); the reading itself is the libraries'.

use serde_json::Value;

/// Brackets a cut-short value may lack and still be closed.
const MAX_CLOSERS: usize = 3;

/// The JSON value at the start of `text` (after white space), repaired if
/// need be, and the bytes of `text` it took.
pub(super) fn value_at(text: &str) -> Option<(Value, usize)> {
    let lead = text.len() - text.trim_start().len();
    let rest = text.get(lead..)?;
    let mut strict = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    if let Some(Ok(value)) = strict.next() {
        return Some((value, lead + strict.byte_offset()));
    }
    let span = span(rest)?;
    let slice = rest.get(..span.end)?;
    if span.missing.is_empty() && span.open_quote.is_none() {
        let value = json5::from_str::<Value>(slice).ok()?;
        return Some((value, lead + span.end));
    }
    if span.missing.len() > MAX_CLOSERS {
        return None;
    }
    let mut closed = slice.to_owned();
    if let Some(quote) = span.open_quote {
        closed.push(quote);
    }
    closed.extend(span.missing.iter().rev());
    let value = serde_json::from_str::<Value>(&closed).ok().or_else(|| json5::from_str::<Value>(&closed).ok())?;
    Some((value, lead + span.end))
}

/// Every JSON value of `text`, one after the other (separated by white
/// space, `,` or `;`), when nothing else is there.
pub(super) fn values(text: &str) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',' || c == ';');
        if rest.is_empty() {
            return (!out.is_empty()).then_some(out);
        }
        let (value, used) = value_at(rest)?;
        out.push(value);
        rest = rest.get(used..)?;
    }
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
        assert_eq!(value_at(r#" {"a": 1} tail"#), Some((json!({"a": 1}), 9)));
        assert_eq!(value_at("{'a': 'it\\'s', b: [1, 2,],}").map(|v| v.0), Some(json!({"a": "it's", "b": [1, 2]})));
        assert_eq!(value_at(r#"{"a": {"b": "x"#).map(|v| v.0), Some(json!({"a": {"b": "x"}})));
        // Brackets inside strings do not count.
        assert_eq!(value_at(r#"{"q": "a } b {", }"#).map(|v| v.0), Some(json!({"q": "a } b {"})));
        // A value cut right after its bracket is empty; past a few missing closers, it is lost.
        assert_eq!(value_at("{").map(|v| v.0), Some(json!({})));
        for broken in ["", "x", "{{{{{\"a\": 1", "{\"a\": }", "[1, 2}", "{\"a\": nope}"] {
            assert_eq!(value_at(broken), None, "{broken}");
        }
        assert_eq!(values(r#"{"a":1} {"b":2}; [3]"#), Some(vec![json!({"a": 1}), json!({"b": 2}), json!([3])]));
        assert_eq!(values(r#"{"a":1} and more"#), None);
        assert_eq!(values("  "), None);
    }
}
