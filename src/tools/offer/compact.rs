//! The short form of a built-in tool the model reads: a description cut to
//! what a call needs (the core tools' written here, the full text stays in
//! the catalogue and tools.md), each argument's description to its first
//! sentence, and the schema without what only validation uses (bounds,
//! patterns, `additionalProperties: false`, `null` in optional types):
//! Halley validates every call against the full schema and says what was
//! wrong.

use serde_json::{Map, Value, json};

use crate::tools::blueprint::{self, REASONING_FIELD};
use crate::tools::{Executor, ToolKind, ToolSpec};

/// The core tools' descriptions as the model reads them.
const SHORT: [(&str, &str); 10] = [
    ("browser_navigate", "Open a URL in the current tab and wait for it to load. Returns the final URL and the title."),
    (
        "browser_snapshot",
        "See the current page as compact text: headings, short visible text and every interactive element with a ref \
         (`[e12] button \"Mua\"`) to pass as `ref` to other tools. Long pages: ask for `page` 2, 3...",
    ),
    ("browser_read_text", "Read the visible text of the page or of one element (e.g. a policy before booking)."),
    (
        "browser_click",
        "Click an element by `ref` or `selector`. A click on a Pay/Submit/Delete button is gated as that action.",
    ),
    (
        "browser_type",
        "Type text into a field (`ref` or `selector`). Never submits: press Enter with browser_press_key.",
    ),
    ("browser_press_key", "Press keys in order (Enter, Tab, Escape, ArrowDown, Ctrl+A...), optionally on an element."),
    (
        "browser_extract",
        "Extract typed fields (price, name, policy...) from the page. Returns `data`, a `confidence` per field and \
         `missing_fields` (never guessed). Prices like `21.490.000 ₫` come back as numbers.",
    ),
    ("web_search", "Search the web. Returns ranked results with title, URL and snippet."),
    (
        "request_user_confirmation",
        "Ask the user to approve a sensitive action (submit, publish, pay, delete) before doing it; go on only when \
         `approved`.",
    ),
    (
        "human_solve_challenge",
        "Hand a CAPTCHA, OTP, 2FA prompt or login to the user and wait until they finish. Never solve these yourself.",
    ),
];

/// Arguments many tools share, by the start of their description.
const SHARED: [(&str, &str); 3] = [
    ("Which element: a CSS selector", "CSS, `text=...` or `role=button[name=\"...\"]` selector."),
    ("An element reference from the latest page snapshot", "Element ref from the latest snapshot (`e12`)."),
    ("CSS selector of the iframe", "CSS selector of the element's iframe, if any."),
];

/// Schema keywords only validation needs.
const VALIDATION_ONLY: [&str; 9] =
    ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "pattern", "format", "minProperties"];

/// `spec` as an OpenAI function definition, short for a built-in tool; a
/// user's blueprint keeps its own schema. Every tool gets the optional
/// `_reasoningForCall` (the system prompt says what it is for).
pub fn compact(spec: &ToolSpec) -> Value {
    let (description, parameters) = for_model(spec);
    json!({"type": "function", "function": {"name": spec.name, "description": description, "parameters": parameters}})
}

/// The description and parameters the model reads of `spec` (not for
/// another program's tools: those are fenced by the gate's `foreign`).
pub fn for_model(spec: &ToolSpec) -> (String, Value) {
    let builtin = spec.executor == Executor::Builtin && spec.kind != ToolKind::Custom;
    if !builtin {
        return (spec.description.clone(), blueprint::with_reasoning_field(&spec.parameters));
    }
    let description = SHORT
        .iter()
        .find(|(name, _)| *name == spec.name)
        .map_or_else(|| spec.description.clone(), |(_, short)| (*short).to_owned());
    let mut parameters = spec.parameters.clone();
    shorten(&mut parameters);
    if let Some(obj) = parameters.as_object_mut() {
        let mut props = Map::new();
        props.insert(REASONING_FIELD.into(), json!({"type": "string"}));
        if let Some(Value::Object(old)) = obj.remove("properties") {
            props.extend(old);
        }
        obj.insert("properties".into(), Value::Object(props));
    }
    (description, parameters)
}

/// A tool's description in one line: its first sentence.
pub fn summary(spec: &ToolSpec) -> String {
    first_sentence(&spec.description)
}

/// A schema made short, with its subschemas.
fn shorten(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    for key in VALIDATION_ONLY {
        map.remove(key);
    }
    if map.get("additionalProperties") == Some(&Value::Bool(false)) {
        map.remove("additionalProperties");
    }
    // `["string", "null"]`: the argument may be left out instead.
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if kept.len() == 1 {
            map.insert("type".into(), kept[0].clone());
        }
    }
    if let Some(Value::String(text)) = map.get_mut("description") {
        *text = match SHARED.iter().find(|(start, _)| text.starts_with(start)) {
            Some((_, short)) => (*short).to_owned(),
            None => first_sentence(text),
        };
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = map.get_mut(key) {
            shorten(sub);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(subs)) = map.get_mut(key) {
            subs.iter_mut().for_each(shorten);
        }
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.values_mut().for_each(shorten);
    }
}

/// The text up to the end of its first sentence: a `.` followed by a space
/// and not ending `e.g.`/`i.e.`, outside backticks and brackets.
fn first_sentence(text: &str) -> String {
    let mut depth = 0i32;
    let mut in_code = false;
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        match c {
            '`' => in_code = !in_code,
            '(' | '[' | '{' if !in_code => depth += 1,
            ')' | ']' | '}' if !in_code => depth -= 1,
            '.' if !in_code && depth <= 0 && chars.get(i + 1) == Some(&' ') => {
                let before: String = chars[..=i].iter().collect();
                if !(before.ends_with("e.g.") || before.ends_with("i.e.") || before.ends_with("etc.")) {
                    return before;
                }
            }
            _ => {}
        }
    }
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_ends_at_its_full_stop_outside_code_and_abbreviations() {
        assert_eq!(first_sentence("Open it (e.g. `a.b`). Then more."), "Open it (e.g. `a.b`).");
        assert_eq!(first_sentence("Pick e.g. this one. More."), "Pick e.g. this one.");
        assert_eq!(first_sentence("No full stop"), "No full stop");
    }
}
