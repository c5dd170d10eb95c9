//! Tool calling for a model that has none (Ollama's `/api/show` without
//! `tools`): the offered tools are described in the system prompt as text
//! (name, parameters, one line of what it does) with the instruction to
//! answer `<tool_call>{"name": …, "arguments": …}</tool_call>`, and the
//! conversation's calls and results are written as text any chat template
//! takes: an assistant's calls as `<tool_call>` lines in its content, the
//! results as one user message of `<tool_response>` blocks. The model's
//! reply is read back by [`super::read`] like any call written as text.
//!
//! OpenAI-shaped messages in, OpenAI-shaped messages out (no `tool_calls`,
//! no `tool` role), so the native body is built from them as from any other.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

/// The longest line of what a tool does, in characters.
const DESCRIPTION_CHARS: usize = 140;
/// The most values of an `enum` written out.
const ENUM_VALUES: usize = 6;

/// The instruction that opens the tool list.
const HOW_TO_CALL: &str = "You can call tools. To call one, reply with only this, one line per call:\n\
<tool_call>{\"name\": \"<tool name>\", \"arguments\": {<the arguments as JSON>}}</tool_call>\n\
Halley runs the call and gives you its result in a <tool_response> block. When you have what the user needs, \
answer in plain text, without <tool_call>.\n\
Tools (name(parameters): what it does; `?` marks an optional parameter):";

/// The offered tools (OpenAI function definitions) as compact text, after
/// the instruction to call them; empty when none is offered.
pub fn describe_tools(tools: &[Value]) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let mut out = String::from(HOW_TO_CALL);
    for t in tools {
        let f = t.get("function").unwrap_or(t);
        let Some(name) = f["name"].as_str() else { continue };
        let _ = write!(out, "\n- {name}({})", parameters(&f["parameters"]));
        let line = first_line(f["description"].as_str().unwrap_or_default());
        if !line.is_empty() {
            let _ = write!(out, ": {line}");
        }
    }
    out
}

/// `a: string, b?: integer` from a JSON Schema's `properties` (the
/// optional `_reasoningForCall` every tool takes left out).
fn parameters(schema: &Value) -> String {
    let Some(props) = schema["properties"].as_object() else { return String::new() };
    let required: Vec<&str> =
        schema["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    props
        .iter()
        .filter(|(name, _)| name.as_str() != "_reasoningForCall")
        .map(|(name, p)| {
            let optional = if required.contains(&name.as_str()) { "" } else { "?" };
            format!("{name}{optional}: {}", type_of(p))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A property's type in a few characters: `string`, `integer[]`, `"a"|"b"`.
fn type_of(p: &Value) -> String {
    if let Some(values) = p["enum"].as_array() {
        let mut listed: Vec<String> = values.iter().take(ENUM_VALUES).map(Value::to_string).collect();
        if values.len() > ENUM_VALUES {
            listed.push("…".to_owned());
        }
        return listed.join("|");
    }
    let ty = match &p["type"] {
        Value::String(s) => s.clone(),
        // `["string", "null"]`: the first that is not null.
        Value::Array(types) => {
            types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("any").to_owned()
        }
        _ if p.get("anyOf").or_else(|| p.get("oneOf")).is_some() => {
            let alts = p.get("anyOf").or_else(|| p.get("oneOf")).and_then(Value::as_array);
            let first = alts.and_then(|a| a.iter().find(|v| v["type"] != "null"));
            return first.map_or_else(|| "any".to_owned(), type_of);
        }
        _ => "any".to_owned(),
    };
    if ty == "array" {
        let items = &p["items"];
        if items.is_object() {
            return format!("{}[]", type_of(items));
        }
    }
    ty
}

/// The first line (or sentence) of a description, at most [`DESCRIPTION_CHARS`].
fn first_line(description: &str) -> String {
    let line = description.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let sentence = match line.find(". ") {
        Some(i) => &line[..=i],
        None => line,
    };
    if sentence.chars().count() <= DESCRIPTION_CHARS {
        return sentence.to_owned();
    }
    let mut cut: String = sentence.chars().take(DESCRIPTION_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// `messages` (OpenAI's form) for a model without tool calling: the tools
/// described at the end of the system message (one is added when there is
/// none), calls written as `<tool_call>` lines, results as user messages.
pub fn messages(messages: &[Value], tools: &[Value]) -> Vec<Value> {
    let names: HashMap<&str, &str> = messages
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .filter_map(|c| Some((c["id"].as_str()?, c["function"]["name"].as_str()?)))
        .collect();
    let described = describe_tools(tools);
    let mut out: Vec<Value> = Vec::with_capacity(messages.len() + 1);
    if !described.is_empty() && messages.first().is_none_or(|m| m["role"] != "system") {
        out.push(json!({"role": "system", "content": described}));
    }
    for (i, m) in messages.iter().enumerate() {
        match m["role"].as_str() {
            Some("system") if i == 0 && !described.is_empty() => {
                let text = text_of(&m["content"]);
                let content = if text.trim().is_empty() { described.clone() } else { format!("{text}\n\n{described}") };
                out.push(json!({"role": "system", "content": content}));
            }
            Some("assistant") if m["tool_calls"].as_array().is_some_and(|c| !c.is_empty()) => {
                let mut lines: Vec<String> =
                    Some(text_of(&m["content"])).filter(|t| !t.trim().is_empty()).into_iter().collect();
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    let f = &c["function"];
                    let (name, args) = (&f["name"], arguments(&f["arguments"]));
                    lines.push(format!("<tool_call>{{\"name\": {name}, \"arguments\": {args}}}</tool_call>"));
                }
                out.push(json!({"role": "assistant", "content": lines.join("\n")}));
            }
            Some("tool") => {
                let name = m["tool_call_id"].as_str().and_then(|id| names.get(id)).copied().unwrap_or("tool");
                let block = format!("<tool_response name=\"{name}\">\n{}\n</tool_response>", text_of(&m["content"]));
                // The results of one turn go together, in one user message.
                let follows_result = i > 0 && messages[i - 1]["role"] == "tool";
                match out.last_mut() {
                    Some(last) if follows_result => {
                        let before = last["content"].as_str().unwrap_or_default().to_owned();
                        last["content"] = json!(format!("{before}\n{block}"));
                    }
                    _ => out.push(json!({"role": "user", "content": block})),
                }
            }
            _ => out.push(m.clone()),
        }
    }
    out
}

/// A call's arguments as an object (they travel as a JSON string).
fn arguments(v: &Value) -> Value {
    match v {
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| if s.trim().is_empty() { json!({}) } else { json!({"arguments": s}) }),
        Value::Object(_) => v.clone(),
        _ => json!({}),
    }
}

/// A message's text (the text parts of a list of parts).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::agent::textcalls::{Offered, Reading, read};

    fn tools() -> Vec<Value> {
        vec![
            json!({"type": "function", "function": {"name": "browser_navigate",
                "description": "Open a URL in the current tab. Waits for the page to load.\nMore details.",
                "parameters": {"type": "object", "required": ["url"], "properties": {
                    "url": {"type": "string"}, "new_tab": {"type": "boolean"},
                    "_reasoningForCall": {"type": "string"}}}}}),
            json!({"type": "function", "function": {"name": "browser_read_text", "description": "",
                "parameters": {"type": "object", "properties": {
                    "max_chars": {"type": ["integer", "null"]},
                    "mode": {"enum": ["main", "all"]},
                    "fields": {"type": "array", "items": {"type": "string"}}}}}}),
        ]
    }

    #[test]
    fn tools_are_described_in_a_line_each() {
        let text = describe_tools(&tools());
        assert!(text.starts_with(HOW_TO_CALL), "{text}");
        let lines: Vec<&str> = text.lines().skip(HOW_TO_CALL.lines().count()).collect();
        assert_eq!(
            lines,
            vec![
                "- browser_navigate(url: string, new_tab?: boolean): Open a URL in the current tab.",
                "- browser_read_text(max_chars?: integer, mode?: \"main\"|\"all\", fields?: string[])",
            ]
        );
        assert_eq!(describe_tools(&[]), "");
        let long = "x".repeat(300);
        assert_eq!(first_line(&long).chars().count(), DESCRIPTION_CHARS);
    }

    #[test]
    fn calls_and_results_become_text_the_model_reads_back() {
        let history = vec![
            json!({"role": "system", "content": "Bạn là Halley."}),
            json!({"role": "user", "content": "Giá bao nhiêu?"}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "browser_navigate", "arguments": "{\"url\":\"https://a.vn\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "browser_read_text", "arguments": ""}}]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "{\"ok\":true}"}),
            json!({"role": "tool", "tool_call_id": "c2", "content": "Áo thun 199.000 ₫"}),
        ];
        let out = messages(&history, &tools());
        assert_eq!(out.len(), 4);
        let system = out[0]["content"].as_str().unwrap();
        assert!(system.starts_with("Bạn là Halley.\n\nYou can call tools."), "{system}");
        assert_eq!(out[1], history[1]);
        let written = out[2]["content"].as_str().unwrap();
        assert_eq!(
            written,
            "<tool_call>{\"name\": \"browser_navigate\", \"arguments\": {\"url\":\"https://a.vn\"}}</tool_call>\n\
             <tool_call>{\"name\": \"browser_read_text\", \"arguments\": {}}</tool_call>"
        );
        assert!(out[2].get("tool_calls").is_none());
        assert_eq!(
            out[3],
            json!({"role": "user", "content": "<tool_response name=\"browser_navigate\">\n{\"ok\":true}\n</tool_response>\n\
                <tool_response name=\"browser_read_text\">\nÁo thun 199.000 ₫\n</tool_response>"})
        );
        // What the model is shown of its own calls, it can write again.
        let offered = Offered::from_definitions(&tools());
        let Reading::Calls { calls, .. } = read(written, &offered) else { panic!("{written}") };
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, json!({"url": "https://a.vn"}));

        // No system message: one is added; no tools: nothing is described.
        let out = messages(&history[1..2], &tools());
        assert_eq!(out[0]["role"], "system");
        assert_eq!(messages(&history[..2], &[]), history[..2].to_vec());
    }
}
