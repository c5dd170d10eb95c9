//! Tool calls a local model wrote as text. Many local models (and the
//! servers in front of them) put the call in the message's content instead
//! of `tool_calls`: Qwen and Hermes `<tool_call>{…}</tool_call>`, Llama 3.1
//! `<|python_tag|>{…}`, `<function=name>{…}</function>` or a bare JSON
//! object, Llama 3.2 pythonic `[f(a="x")]`, Mistral `[TOOL_CALLS][…]` and
//! `[TOOL_CALLS]name[ARGS]{…}`, Liquid's `<|tool_call_start|>[f(a=1)]`,
//! Qwen2.5-Coder's `<tools>{…}</tools>`, a ```json fence after a sentence,
//! a JSON array. [`read`] tells a turn without `tool_calls` apart: an answer
//! (thinking removed), calls (the JSON repaired if need be: trailing commas,
//! single quotes, unquoted keys, arguments given as a JSON string, a few
//! missing closing brackets), or an attempt that cannot be read, which the
//! loop sends back to the model once.
//!
//! A text is read as calls only when it says so: calls after a marker that
//! end the text (any name: an unknown one is answered with the nearest
//! offered names; markup followed by more prose is not run), or
//! JSON, pythonic or fenced calls of an offered tool (or a near miss of
//! one). Prose that names a tool or quotes a JSON record stays an answer; a
//! reply that holds only thinking is not one.
//! Real outputs the tests read: `tests/fixtures/local-model-outputs/`.

pub mod emulate;
pub(crate) mod json;
mod pythonic;
#[cfg(test)]
mod tests;
pub mod think;

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use crate::error::ErrorCode;
use json::Closers;
pub use think::{TokenGate, strip as strip_thinking};

/// The markers that say "this is a tool call" (each model family's own).
pub(crate) const MARKERS: [&str; 6] =
    ["<tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "<function=", "<|tool_call_start|>", "<tools>"];

/// Tokens that close a marked call (or a turn), left out of the prose.
const CLOSERS: [&str; 8] = [
    "</tool_call>",
    "</function>",
    "[/TOOL_CALLS]",
    "<|tool_call_end|>",
    "</tools>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|im_end|>",
];

/// How close (normalized Levenshtein) an unoffered name must be to an
/// offered one for a JSON or pythonic text to count as a call of it.
const NEAR: f64 = 0.75;

/// One call read from text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCall {
    /// The offered tool's own name when it matched (case, `-` and `_`
    /// aside), else the name as written.
    pub name: String,
    /// Always a JSON object.
    pub arguments: Value,
    /// The name is one of the offered tools.
    pub known: bool,
}

/// What a turn without `tool_calls` is.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// An answer, its thinking removed and trimmed.
    Answer(String),
    /// Calls written as text; `prose` is the text around them (thinking
    /// removed), possibly empty.
    Calls { prose: String, calls: Vec<TextCall> },
    /// It tries to call a tool but cannot be read: `why` says what is wrong.
    Unreadable { prose: String, why: String },
}

/// The offered tools of a request, by name.
#[derive(Debug, Clone, Default)]
pub struct Offered {
    names: Vec<String>,
}

impl Offered {
    /// From the request's `tools` (OpenAI function definitions).
    pub fn from_definitions(tools: &[Value]) -> Offered {
        let names = tools.iter().filter_map(|t| t.pointer("/function/name")?.as_str()).map(str::to_owned).collect();
        Offered { names }
    }

    /// With `more` names known too (each once).
    #[must_use]
    pub fn with_names<'a>(mut self, more: impl IntoIterator<Item = &'a str>) -> Offered {
        for name in more {
            if !self.names.iter().any(|n| n == name) {
                self.names.push(name.to_owned());
            }
        }
        self
    }

    pub fn names(&self) -> Vec<&str> {
        self.names.iter().map(String::as_str).collect()
    }

    /// The offered tool `name` means (case, `-`, `_`, a `functions.` prefix aside).
    pub fn canonical(&self, name: &str) -> Option<&str> {
        let wanted = normalize(name);
        self.names.iter().map(String::as_str).find(|n| normalize(n) == wanted)
    }

    /// `name` is offered or a near miss of an offered tool (`web_serach`).
    fn accepts(&self, name: &str) -> bool {
        let wanted = normalize(name);
        self.canonical(name).is_some()
            || self.names.iter().any(|n| strsim::normalized_levenshtein(&normalize(n), &wanted) >= NEAR)
    }

    /// Up to three offered names nearest to `name`, nearest first (see
    /// `similarity`), only those near the nearest.
    pub fn nearest(&self, name: &str) -> Vec<&str> {
        let wanted = normalize(name);
        let mut scored: Vec<(f64, &str)> = self
            .names
            .iter()
            .map(|n| (similarity(&wanted, &normalize(n)), n.as_str()))
            .filter(|(score, _)| *score >= 0.35)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let best = scored.first().map_or(0.0, |s| s.0);
        scored.into_iter().take_while(|s| s.0 >= best - 0.2).take(3).map(|(_, n)| n).collect()
    }

    /// The error a call of an unknown tool gets: its code and a message
    /// naming the nearest offered tools.
    pub fn unknown(&self, name: &str) -> (ErrorCode, String) {
        let near = self.nearest(name);
        let hint = if near.is_empty() {
            "; call one of the tools you were given".to_owned()
        } else {
            let listed: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
            format!("; the nearest tools offered are {}", listed.join(", "))
        };
        (ErrorCode::UnknownTool, format!("unknown tool `{name}`{hint}. Nothing was done."))
    }
}

/// How near two normalized names are, 0 to 1: mostly the share of the
/// wanted name's words (`_`-separated) found in the other, each allowing a
/// typo (Jaro-Winkler), then the names' normalized Damerau-Levenshtein
/// similarity. `profile_lookup` is near `user_profile_get`, not `files_store`.
fn similarity(wanted: &str, name: &str) -> f64 {
    let words: Vec<&str> = wanted.split('_').filter(|w| !w.is_empty()).collect();
    let theirs: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    let matched = words
        .iter()
        .filter(|w| {
            theirs.iter().any(|t| t == *w || (w.len() >= 3 && t.starts_with(*w)) || strsim::jaro_winkler(w, t) >= 0.9)
        })
        .count();
    #[allow(clippy::cast_precision_loss)]
    let share = if words.is_empty() { 0.0 } else { matched as f64 / words.len() as f64 };
    0.6 * share + 0.4 * strsim::normalized_damerau_levenshtein(wanted, name)
}

/// A name as compared: lowercase, `-`, `.` and spaces as `_`, without a
/// `functions.` prefix.
pub(crate) fn normalize(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_prefix("functions.").unwrap_or(name);
    name.chars().map(|c| if matches!(c, '-' | '.' | ' ') { '_' } else { c.to_ascii_lowercase() }).collect()
}

/// Read the content of a turn that has no `tool_calls`.
pub fn read(content: &str, offered: &Offered) -> Reading {
    let text = think::strip(content);
    let text = text.trim();
    if text.is_empty() {
        if content.trim().is_empty() {
            return Reading::Answer(String::new());
        }
        // Cut while thinking, or the answer forgotten: not an answer to show.
        let why = "it holds only thinking (<think>…</think>): no answer and no tool call".to_owned();
        return Reading::Unreadable { prose: String::new(), why };
    }
    if let Some(reading) = marked(text, offered) {
        return reading;
    }
    // JSON calls ending the text (or making it up), after a sentence or not.
    if let Some((at, calls)) = trailing_json(text, offered) {
        return Reading::Calls { prose: text[..at].trim().to_owned(), calls };
    }
    if let Some(calls) = pythonic::calls(text).and_then(|c| accepted(c, offered, false)) {
        return Reading::Calls { prose: String::new(), calls };
    }
    if let Some(reading) = fenced(text, offered) {
        return reading;
    }
    match attempt(text, offered) {
        Some(why) => Reading::Unreadable { prose: String::new(), why },
        None => Reading::Answer(text.to_owned()),
    }
}

/// The calls of `found` when every name is acceptable: any name after a
/// marker (`marked`), else an offered one or a near miss.
fn accepted(found: Vec<(String, Value)>, offered: &Offered, marked: bool) -> Option<Vec<TextCall>> {
    found
        .into_iter()
        .map(|(name, arguments)| {
            if !marked && !offered.accepts(&name) {
                return None;
            }
            Some(match offered.canonical(&name) {
                Some(real) => TextCall { name: real.to_owned(), arguments, known: true },
                None => TextCall { name, arguments, known: false },
            })
        })
        .collect()
}

/// The calls a JSON value holds: a call object, an array of them, an
/// OpenAI-shaped call or `{"tool_calls": [...]}`. `marked`: the arguments
/// may be left out (a call without them).
fn json_calls(value: &Value, marked: bool) -> Option<Vec<(String, Value)>> {
    match value {
        Value::Array(items) if !items.is_empty() => {
            items.iter().map(|v| json_calls(v, marked)).collect::<Option<Vec<_>>>().map(|v| v.concat())
        }
        Value::Object(obj) => match obj.get("tool_calls") {
            Some(inner) if obj.len() == 1 => json_calls(inner, marked),
            _ => one_call(value, marked).map(|c| vec![c]),
        },
        _ => None,
    }
}

fn one_call(value: &Value, marked: bool) -> Option<(String, Value)> {
    let obj = value.as_object()?;
    if let Some(function) = obj.get("function").filter(|f| f.is_object()) {
        let wrapper = obj.keys().all(|k| matches!(k.as_str(), "function" | "type" | "id"));
        return if wrapper { one_call(function, true) } else { None };
    }
    if !obj.keys().all(|k| matches!(k.as_str(), "name" | "arguments" | "parameters" | "type" | "id")) {
        return None;
    }
    let name = obj.get("name")?.as_str()?.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let arguments = match obj.get("arguments").or_else(|| obj.get("parameters")) {
        None if marked => json!({}),
        None => return None,
        Some(Value::Null) => json!({}),
        Some(args @ Value::Object(_)) => args.clone(),
        // Arguments as a JSON string inside the JSON.
        Some(Value::String(s)) if s.trim().is_empty() => json!({}),
        Some(Value::String(s)) => match json::values(s, Closers::Add)?.as_slice() {
            [object @ Value::Object(_)] => object.clone(),
            _ => return None,
        },
        Some(_) => return None,
    };
    Some((name.to_owned(), arguments))
}

/// A text with call markers: the calls after them, the prose around.
fn marked(text: &str, offered: &Offered) -> Option<Reading> {
    let earliest = |s: &str| MARKERS.iter().filter_map(|m| s.find(m).map(|at| (at, *m))).min();
    earliest(text)?;
    let mut prose = String::new();
    let mut found = Vec::new();
    let mut broken: Option<String> = None;
    let mut rest = text;
    while let Some((at, marker)) = earliest(rest) {
        prose.push_str(&rest[..at]);
        let after = &rest[at + marker.len()..];
        let ends: &[&str] = match marker {
            "<tool_call>" => &["</tool_call>", "<tool_call>"],
            "<|python_tag|>" => &["<|eom_id|>", "<|eot_id|>", "<|python_tag|>"],
            "[TOOL_CALLS]" => &["[/TOOL_CALLS]", "[TOOL_CALLS]"],
            "<|tool_call_start|>" => &["<|tool_call_end|>", "<|tool_call_start|>"],
            "<tools>" => &["</tools>", "<tools>"],
            _ => &["</function>"],
        };
        let end = ends.iter().filter_map(|e| after.find(e)).min().unwrap_or(after.len());
        let body = &after[..end];
        match segment(marker, body) {
            Ok(mut calls) => found.append(&mut calls),
            Err(why) => {
                broken.get_or_insert(why);
            }
        }
        rest = &after[end..];
    }
    let prose = CLOSERS.iter().fold(prose, |p, c| p.replace(c, "")).trim().to_owned();
    // Text after the last call: markup quoted in an answer (a page the
    // model cites) or a call with more to say; neither is run.
    let tail = CLOSERS.iter().fold(rest.to_owned(), |t, c| t.replace(c, ""));
    if !tail.trim().is_empty() {
        let why = "the call markup is followed by more text; a call must end the message".to_owned();
        return Some(Reading::Unreadable { prose, why });
    }
    if let Some(why) = broken {
        return Some(Reading::Unreadable { prose, why });
    }
    match accepted(found, offered, true) {
        Some(calls) if !calls.is_empty() => Some(Reading::Calls { prose, calls }),
        _ => Some(Reading::Unreadable { prose, why: "the call marker held no call".to_owned() }),
    }
}

/// The calls of one marked segment.
fn segment(marker: &str, body: &str) -> Result<Vec<(String, Value)>, String> {
    let trimmed = body.trim();
    match marker {
        "<function=" => return function_tag(trimmed),
        "<tool_call>" if trimmed.starts_with("<function=") => {
            let inner = trimmed.trim_start_matches("<function=");
            return function_tag(inner.split("</function>").next().unwrap_or(inner).trim());
        }
        "[TOOL_CALLS]" if trimmed.starts_with(|c: char| c.is_alphabetic() || c == '_') => {
            return mistral_named(trimmed);
        }
        // Pythonic calls after a marker: Liquid's LFM2 between its own,
        // Llama 3.1's built-in tools (`<|python_tag|>brave_search.call(query="…")`).
        _ if !trimmed.starts_with(['{', '[']) || marker == "<|tool_call_start|>" => {
            if let Some(calls) = pythonic::calls(trimmed) {
                return Ok(calls
                    .into_iter()
                    .map(|(name, args)| (name.strip_suffix(".call").map(str::to_owned).unwrap_or(name), args))
                    .collect());
            }
        }
        _ => {}
    }
    if trimmed.is_empty() {
        return Err(format!("nothing followed {marker}"));
    }
    let values = json::values(trimmed, Closers::Add)
        .ok_or_else(|| format!("the JSON after {marker} could not be read, even leniently"))?;
    let calls: Option<Vec<Vec<(String, Value)>>> = values.iter().map(|v| json_calls(v, true)).collect();
    calls.map(|c| c.concat()).ok_or_else(|| {
        format!("the JSON after {marker} is not a call: write {{\"name\": <tool>, \"arguments\": {{...}}}}")
    })
}

/// `name>{"a": 1}` or `name>\n<parameter=a>1</parameter>…` (what follows `<function=`).
fn function_tag(body: &str) -> Result<Vec<(String, Value)>, String> {
    let (name, rest) = body.split_once('>').ok_or("`<function=` is not closed by `>`")?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err("`<function=` does not name a tool".to_owned());
    }
    let rest = rest.trim();
    if rest.is_empty() {
        return Ok(vec![(name.to_owned(), json!({}))]);
    }
    if rest.starts_with('{') {
        let (args, used) =
            json::value_at(rest, Closers::Add).ok_or(format!("the arguments of `{name}` could not be read"))?;
        if !args.is_object() || !rest[used..].trim().is_empty() {
            return Err(format!("the arguments of `{name}` are not one JSON object"));
        }
        return Ok(vec![(name.to_owned(), args)]);
    }
    // Qwen3-Coder's XML parameters: values are text; JSON ones are read.
    static PARAMETER: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(?s)<parameter=([^>\s]+)>\n?(.*?)\n?</parameter>").ok());
    let re = PARAMETER.as_ref().ok_or("the parameter pattern did not compile")?;
    let mut args = serde_json::Map::new();
    for cap in re.captures_iter(rest) {
        let (Some(key), Some(value)) = (cap.get(1), cap.get(2)) else { continue };
        let raw = value.as_str();
        let parsed = serde_json::from_str::<Value>(raw.trim()).ok().filter(|v| !v.is_string());
        args.insert(key.as_str().to_owned(), parsed.unwrap_or_else(|| Value::String(raw.to_owned())));
    }
    let leftover = re.replace_all(rest, "").replace("</tool_call>", "");
    if args.is_empty() || !leftover.trim().is_empty() {
        return Err(format!("the arguments of `{name}` could not be read"));
    }
    Ok(vec![(name.to_owned(), Value::Object(args))])
}

/// Mistral's newer form: `name[ARGS]{…}` (or `name[CALL_ID]id[ARGS]{…}`, or `name{…}`).
fn mistral_named(body: &str) -> Result<Vec<(String, Value)>, String> {
    let split = body.find(['[', '{']).ok_or("[TOOL_CALLS] names a tool but gives no arguments")?;
    let name = body[..split].trim();
    let mut rest = &body[split..];
    if rest.starts_with("[CALL_ID]") {
        rest = rest.find("[ARGS]").map_or("", |i| &rest[i..]);
    }
    let rest = rest.strip_prefix("[ARGS]").unwrap_or(rest);
    let (args, used) =
        json::value_at(rest, Closers::Add).ok_or(format!("the arguments of `{name}` could not be read"))?;
    if !args.is_object() || !rest[used..].trim().is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("the arguments of `{name}` are not one JSON object"));
    }
    Ok(vec![(name.to_owned(), args)])
}

/// JSON calls that end the text: the first `{` or `[` from which the rest
/// is calls of acceptable tools (a bare call, an array, several objects).
fn trailing_json(text: &str, offered: &Offered) -> Option<(usize, Vec<TextCall>)> {
    text.match_indices(['{', '[']).take(64).find_map(|(at, _)| {
        let values = json::values(&text[at..], Closers::Add)?;
        let found: Option<Vec<Vec<(String, Value)>>> = values.iter().map(|v| json_calls(v, false)).collect();
        accepted(found?.concat(), offered, false).map(|calls| (at, calls))
    })
}

/// Code fences (```json, ```tool_call or plain) holding a call of an
/// acceptable tool; a fenced call that does not parse is unreadable.
fn fenced(text: &str, offered: &Offered) -> Option<Reading> {
    static FENCE: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(?s)```[ \t]*(json5?|tool_calls?|javascript|js)?[ \t]*\n(.*?)```").ok());
    let re = FENCE.as_ref()?;
    for cap in re.captures_iter(text) {
        let (Some(all), Some(body)) = (cap.get(0), cap.get(2)) else { continue };
        let body = body.as_str().trim();
        if !body.starts_with(['{', '[']) {
            continue;
        }
        let prose = format!("{}{}", &text[..all.start()], &text[all.end()..]).trim().to_owned();
        let found = json::values(body, Closers::Add).and_then(|values| {
            let calls: Option<Vec<Vec<(String, Value)>>> = values.iter().map(|v| json_calls(v, false)).collect();
            calls.map(|c| c.concat())
        });
        match found.and_then(|f| accepted(f, offered, false)) {
            Some(calls) => return Some(Reading::Calls { prose, calls }),
            None => {
                if let Some(why) = attempt(body, offered) {
                    return Some(Reading::Unreadable { prose, why });
                }
            }
        }
    }
    None
}

/// Why a text that was read as no call still looks like one: it has a
/// call's `name` key (in an object, other keys may come first) and an
/// `arguments` or `parameters` key, and it starts like JSON (`{`, `[{`, a
/// fence), or the name is an offered tool's.
fn attempt(text: &str, offered: &Offered) -> Option<String> {
    static IN_OBJECT: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r#"\{[^{}]*?["']?name["']?\s*:\s*["']?([A-Za-z0-9_.\-]+)"#).ok());
    static ANYWHERE: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r#"["']?name["']?\s*:\s*["']?([A-Za-z0-9_.\-]+)"#).ok());
    static ARGUMENTS: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r#"["']?(?:arguments|parameters)["']?\s*:"#).ok());
    let lead = text.trim_start();
    let starts = lead.starts_with('{')
        || lead.starts_with("```")
        || lead.strip_prefix('[').is_some_and(|rest| rest.trim_start().starts_with('{'));
    let name_key = if starts { &ANYWHERE } else { &IN_OBJECT };
    let name = name_key.as_ref()?.captures(text)?.get(1)?.as_str();
    if !ARGUMENTS.as_ref()?.is_match(text) {
        return None;
    }
    (starts || offered.accepts(name))
        .then(|| format!("it has the shape of a call of `{name}` but is not valid JSON, even leniently read"))
}

/// What the model is told after a turn that could not be used (`why`):
/// a call that could not be read, or thinking alone.
pub fn correction(why: &str) -> String {
    format!(
        "(Halley) Your last message could not be used: {why}. Nothing was done. \
         To call a tool, use the tool-calling interface, or write only one JSON object: \
         {{\"name\": \"<tool name>\", \"arguments\": {{...}}}}. \
         To answer the user, write the answer as plain text, outside <think>."
    )
}
