//! Ollama's native API, spoken when the server is Ollama: its
//! OpenAI-compatible endpoint ignores `num_ctx` and runs at the server's
//! default context (4,096 tokens in current releases), cutting a longer
//! prompt from the front without a word, where the system prompt and the
//! tools are. The native `POST /api/chat` takes `options.num_ctx`, sized
//! here to the request with headroom (capped by the model's context from
//! `POST /api/show` and by [`super::ModelConfig::max_context`]: the KV cache
//! costs the user's memory), takes `think`, and streams NDJSON
//! ([`ndjson`]). Whatever the API, the prompt tokens the server says it
//! read are compared with what was sent ([`cut`]): a prompt cut anyway (a
//! server short of memory) fails the turn instead of being answered.
//!
//! Pure functions only: the HTTP side is in [`super::client`].

pub mod ndjson;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::budget;
use super::textcalls::emulate;
use crate::error::Result;

/// What Ollama's root answers (`GET /`).
pub const RUNNING: &str = "Ollama is running";
/// The context Ollama runs a model at when not told otherwise (and always
/// on its OpenAI-compatible endpoint).
pub const SERVER_DEFAULT_CONTEXT: usize = 4_096;
/// Tokens kept for the answer when the request does not say (`max_tokens`).
pub const ANSWER_TOKENS: usize = 2_048;

/// What `POST /api/show` says about a model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelInfo {
    /// `model_info["<arch>.context_length"]`, the longest context the model
    /// was trained for.
    pub context_length: Option<usize>,
    /// `capabilities` (`completion`, `tools`, `vision`, `thinking`...);
    /// `None` from servers older than the field (before 0.6.4).
    pub capabilities: Option<Vec<String>>,
}

impl ModelInfo {
    /// Read an `/api/show` answer; what is missing stays unknown.
    pub fn from_show(show: &Value) -> ModelInfo {
        let info = &show["model_info"];
        let arch = info["general.architecture"].as_str().unwrap_or_default();
        let context_length = info
            .get(format!("{arch}.context_length"))
            .or_else(|| {
                // An architecture the answer does not name: any `*.context_length`.
                info.as_object()?.iter().find(|(k, _)| k.ends_with(".context_length")).map(|(_, v)| v)
            })
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n > 0);
        let capabilities = show["capabilities"]
            .as_array()
            .map(|caps| caps.iter().filter_map(Value::as_str).map(str::to_owned).collect());
        ModelInfo { context_length, capabilities }
    }

    /// Whether the model has `capability`; `None` when the server did not say.
    pub fn can(&self, capability: &str) -> Option<bool> {
        self.capabilities.as_ref().map(|caps| caps.iter().any(|c| c == capability))
    }

    /// The largest context asked of this model: its own, capped by `max_context`.
    pub fn window(&self, max_context: usize) -> usize {
        self.context_length.map_or(max_context, |c| c.min(max_context))
    }
}

/// Below this context (what Halley gives a model at most: its own,
/// capped by `HALLEY_MAX_CONTEXT`) a task's first request, a page read and
/// the answer do not fit together: pages are cut and the run compacts early.
pub const SMALL_CONTEXT: usize = 8_192;

/// One model of Ollama's `GET /api/tags`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    /// On disk, in bytes.
    pub size: Option<u64>,
    /// `details.parameter_size` (`8.2B`), `details.quantization_level`
    /// (`Q4_K_M`), `details.family` (`qwen3`).
    pub parameter_size: Option<String>,
    pub quantization: Option<String>,
    pub family: Option<String>,
}

/// The models of an `/api/tags` answer, in its order.
pub fn tags(listing: &Value) -> Vec<Tag> {
    let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
    listing["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let name = text(&m["name"]).or_else(|| text(&m["model"]))?;
            let d = &m["details"];
            Some(Tag {
                name,
                size: m["size"].as_u64(),
                parameter_size: text(&d["parameter_size"]),
                quantization: text(&d["quantization_level"]),
                family: text(&d["family"]),
            })
        })
        .collect()
}

/// The server's root (`http://host:11434`) from an OpenAI-compatible base
/// URL (`http://host:11434/v1`).
pub fn root_url(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base).to_owned()
}

/// Whether a root's answer is Ollama's.
pub fn is_running_text(body: &str) -> bool {
    body.trim().eq_ignore_ascii_case(RUNNING)
}

/// The prompt tokens of an OpenAI chat body, estimated as the context
/// budget does (bytes / 4: generous for Vietnamese, near for English).
pub fn prompt_tokens(body: &Value) -> usize {
    let messages = body["messages"].as_array().map_or(0, |m| m.iter().map(budget::estimate_message).sum());
    let tools = body["tools"].as_array().map_or(0, |t| budget::estimate_tools(t));
    messages + tools
}

/// The `num_ctx` for a prompt of about `prompt` tokens and an answer of
/// `answer`: a quarter more than the estimate, plus the answer, rounded up
/// to a power of two (Ollama reloads the model whenever `num_ctx` changes,
/// so it changes in few, large steps), at least the server's default and
/// at most `window`.
pub fn num_ctx(prompt: usize, answer: usize, window: usize) -> usize {
    let need = prompt.saturating_add(prompt / 4).saturating_add(answer);
    need.checked_next_power_of_two().unwrap_or(usize::MAX).max(SERVER_DEFAULT_CONTEXT).min(window)
}

/// The context budget a run should keep its prompt under so that
/// [`num_ctx`] never needs more than `window`.
pub fn prompt_budget(window: usize) -> usize {
    window.saturating_sub(ANSWER_TOKENS).saturating_mul(4) / 5
}

/// Whether the server read markedly fewer prompt tokens than were sent:
/// less than half of the estimate. The estimate counts bytes / 4, which
/// real tokenizers give or take a third (fewer for Vietnamese, more for
/// JSON), so half is never a tokenizer's difference; a prompt cut to the
/// 4,096 default, or to a server's smaller memory, is far below it.
pub fn cut(sent: usize, read: u64) -> bool {
    let read = usize::try_from(read).unwrap_or(usize::MAX);
    sent >= 1_024 && read > 0 && read.saturating_mul(2) < sent
}

/// How the native request is sized, for the message when it was cut anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    pub num_ctx: usize,
    /// The prompt's estimated tokens as sent (tools as text included).
    pub prompt_tokens: usize,
    /// The model's own context, when `/api/show` gave it.
    pub context_length: Option<usize>,
}

/// The message of a turn whose prompt the server cut.
pub fn cut_message(base: &str, model: &str, sent: usize, read: u64, sizing: Option<Sizing>) -> String {
    match sizing {
        Some(s) => {
            let context = s.context_length.map_or_else(|| "not reported".to_owned(), |c| format!("{c} tokens"));
            format!(
                "the Ollama server at {base} read only {read} of the about {sent} prompt tokens sent for `{model}` \
                 with num_ctx {} (the model's context: {context}): it cut the prompt from the front, likely short of \
                 memory, and its answer was dropped. Free memory or use a smaller model, or lower --context-tokens \
                 (or HALLEY_MAX_CONTEXT) to what the server can hold",
                s.num_ctx
            )
        }
        None => format!(
            "the Ollama server at {base} read only {read} of the about {sent} prompt tokens sent for `{model}`: its \
             OpenAI-compatible endpoint ignores num_ctx and cut the prompt to the server's default context (usually \
             {SERVER_DEFAULT_CONTEXT} tokens) from the front, so its answer was dropped. Let Halley use Ollama's \
             native API (unset HALLEY_MODEL_API), or start the server with a larger OLLAMA_CONTEXT_LENGTH"
        ),
    }
}

/// A native `/api/chat` body from an OpenAI chat body (with its `model`),
/// and how it is sized. Tools go as they are (Ollama takes OpenAI's
/// format), except to a model whose `/api/show` lacks `tools` (Ollama would
/// answer 400): it gets them described in its system prompt and writes its
/// calls as text ([`emulate`]), read back by the loop like any call
/// written as text.
pub fn chat_body(request: &Value, info: &ModelInfo, max_context: usize, think: bool) -> Result<(Value, Sizing)> {
    let model = request["model"].as_str().unwrap_or_default();
    let offered = request["tools"].as_array().filter(|t| !t.is_empty());
    let emulated = info.can("tools") == Some(false);
    let tools = offered.filter(|_| !emulated);
    let vision = info.can("vision") != Some(false);
    // The prompt as the model gets it: with tools as text, no schemas.
    let (messages, prompt): (Vec<Value>, usize) = match request["messages"].as_array() {
        Some(list) if emulated => {
            let list = emulate::messages(list, offered.map_or(&[][..], Vec::as_slice));
            let prompt = list.iter().map(budget::estimate_message).sum();
            (list.iter().map(|m| message(m, &HashMap::new(), vision)).collect(), prompt)
        }
        Some(list) => {
            let names = call_names(list);
            (list.iter().map(|m| message(m, &names, vision)).collect(), prompt_tokens(request))
        }
        None => (Vec::new(), 0),
    };
    let answer = ["max_completion_tokens", "max_tokens"]
        .iter()
        .find_map(|k| request[*k].as_u64())
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(ANSWER_TOKENS);
    let window = info.window(max_context);
    let ctx = num_ctx(prompt, answer, window);
    let mut options = Map::new();
    options.insert("num_ctx".into(), json!(ctx));
    for (from, to) in [("temperature", "temperature"), ("top_p", "top_p"), ("seed", "seed"), ("stop", "stop")] {
        if let Some(v) = request.get(from).filter(|v| !v.is_null()) {
            options.insert(to.into(), v.clone());
        }
    }
    if answer != ANSWER_TOKENS {
        options.insert("num_predict".into(), json!(answer));
    }
    let mut body = json!({"model": model, "messages": messages, "stream": true, "options": options});
    if let Some(tools) = tools {
        body["tools"] = Value::Array(tools.clone());
    }
    if request["response_format"]["type"] == "json_object" {
        body["format"] = json!("json");
    }
    if info.can("thinking") == Some(true) {
        body["think"] = json!(think);
    }
    Ok((body, Sizing { num_ctx: ctx, context_length: info.context_length, prompt_tokens: prompt }))
}

/// Tool names by call id, for the `tool_name` of tool results.
fn call_names(messages: &[Value]) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for m in messages {
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            if let (Some(id), Some(name)) = (call["id"].as_str(), call["function"]["name"].as_str()) {
                names.insert(id.to_owned(), name.to_owned());
            }
        }
    }
    names
}

/// One message in Ollama's form: text content, images as base64 beside
/// it, tool-call arguments as objects, tool results named.
fn message(m: &Value, names: &HashMap<String, String>, vision: bool) -> Value {
    let role = match m["role"].as_str().unwrap_or("user") {
        "developer" => "system",
        other => other,
    };
    let mut images = Vec::new();
    let mut content = match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut texts = Vec::new();
            for p in parts {
                match p["type"].as_str() {
                    Some("image_url") => {
                        let url = p["image_url"]["url"].as_str().or_else(|| p["image_url"].as_str()).unwrap_or("");
                        if let Some((_, data)) = url.split_once(";base64,") {
                            images.push(data.to_owned());
                        }
                    }
                    _ => texts.extend(p["text"].as_str().map(str::to_owned)),
                }
            }
            texts.join("\n")
        }
        _ => String::new(),
    };
    if !vision && !images.is_empty() {
        content.push_str(&format!("\n[{} image(s) left out: this model does not read images]", images.len()));
        images.clear();
    }
    let mut out = json!({"role": role, "content": content});
    if !images.is_empty() {
        out["images"] = json!(images);
    }
    if let Some(calls) = m["tool_calls"].as_array().filter(|c| !c.is_empty()) {
        let calls: Vec<Value> = calls
            .iter()
            .map(|c| {
                let f = &c["function"];
                let arguments = match &f["arguments"] {
                    Value::String(s) => match serde_json::from_str::<Value>(s) {
                        Ok(v @ Value::Object(_)) => v,
                        // Ollama takes an object only; text that is not one is
                        // kept where the model can read it back.
                        _ if s.trim().is_empty() => json!({}),
                        _ => json!({"arguments": s}),
                    },
                    v @ Value::Object(_) => v.clone(),
                    _ => json!({}),
                };
                json!({"function": {"name": f["name"], "arguments": arguments}})
            })
            .collect();
        out["tool_calls"] = Value::Array(calls);
    }
    if role == "tool"
        && let Some(name) = m["tool_call_id"].as_str().and_then(|id| names.get(id))
    {
        out["tool_name"] = json!(name);
    }
    out
}
