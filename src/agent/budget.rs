//! The context budget: what the model is sent each turn is kept under a
//! token budget by eliding old tool outputs first, then leaving out the
//! oldest turns; screenshots go only to models that accept images.

use base64::Engine;
use serde_json::{Value, json};

use crate::tools::{ArtifactType, ToolResultV2};

/// The newest tool results are never elided (the model is working on them).
pub const KEEP_RECENT_RESULTS: usize = 2;
/// Tool outputs shorter than this are kept: eliding them saves nothing.
const ELIDE_OVER_CHARS: usize = 400;
/// What one image costs, roughly (OpenAI's "low detail" price is 85; a
/// 1280x900 page in "auto" detail costs ~800).
const IMAGE_TOKENS: usize = 800;
/// Screenshots larger than this are not inlined (the model gets the path).
const MAX_IMAGE_BYTES: u64 = 4 * 1024 * 1024;

/// A rough token count: a token is ~4 bytes of English and fewer of
/// Vietnamese (its accented letters take 2-3 bytes), so bytes / 4 errs on
/// the safe side for both.
pub fn estimate_text(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Tokens of one message as sent (content, tool calls, a few for framing).
pub fn estimate_message(message: &Value) -> usize {
    let mut n = 4;
    match message.get("content") {
        Some(Value::String(s)) => n += estimate_text(s),
        Some(Value::Array(parts)) => {
            for p in parts {
                n += match p.get("type").and_then(Value::as_str) {
                    Some("image_url") => IMAGE_TOKENS,
                    _ => p.get("text").and_then(Value::as_str).map_or(0, estimate_text),
                };
            }
        }
        _ => {}
    }
    if let Some(calls) = message.get("tool_calls") {
        n += estimate_text(&calls.to_string());
    }
    n
}

/// Tokens of the tool definitions (sent with every request).
pub fn estimate_tools(tools: &[Value]) -> usize {
    tools.iter().map(|t| estimate_text(&t.to_string())).sum()
}

/// What fitting the budget did, for the step's record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fitted {
    /// Estimated prompt tokens after fitting.
    pub tokens: usize,
    /// Tool outputs (and images) replaced by a short note.
    pub elided: usize,
    /// Whole earlier messages left out.
    pub dropped: usize,
    /// Still over the budget (a single message larger than it was cut).
    pub cut: bool,
}

/// Bring `messages` (the system message first) under `budget` tokens,
/// counting `fixed` tokens for the tool definitions. The system message,
/// the newest user message and the newest [`KEEP_RECENT_RESULTS`] tool
/// results are kept whole when at all possible.
pub fn fit(messages: &mut Vec<Value>, fixed: usize, budget: usize) -> Fitted {
    let total = |m: &[Value]| fixed + m.iter().map(estimate_message).sum::<usize>();
    let mut fitted = Fitted { tokens: total(messages), ..Fitted::default() };
    if fitted.tokens <= budget {
        return fitted;
    }
    // 1. Old images, then old tool outputs, oldest first.
    let newest_image = messages.iter().rposition(has_image);
    for i in 0..messages.len() {
        if fitted.tokens <= budget {
            break;
        }
        if has_image(&messages[i]) && Some(i) != newest_image {
            messages[i] =
                json!({"role": "user", "content": "(Halley) An older screenshot was left out to save context."});
            fitted.elided += 1;
            fitted.tokens = total(messages);
        }
    }
    let tool_idx: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.get("role").and_then(Value::as_str) == Some("tool"))
        .map(|(i, _)| i)
        .collect();
    let elidable = tool_idx.len().saturating_sub(KEEP_RECENT_RESULTS);
    for &i in tool_idx.iter().take(elidable) {
        if fitted.tokens <= budget {
            break;
        }
        let len = messages[i].get("content").and_then(Value::as_str).map_or(0, |s| s.chars().count());
        if len <= ELIDE_OVER_CHARS {
            continue;
        }
        let tool = tool_name_for(messages, i).unwrap_or_else(|| "tool".to_owned());
        let note = json!({
            "elided": format!(
                "Halley left out this {tool} result ({len} characters) to fit the model's context; \
                 call the tool again if you need it."
            )
        });
        messages[i]["content"] = Value::String(note.to_string());
        fitted.elided += 1;
        fitted.tokens = total(messages);
    }
    // 2. The oldest turns, whole: from after the system message up to the
    // next user message, never the newest user message.
    let newest_user = messages.iter().rposition(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    while fitted.tokens > budget {
        let Some(last_user) = newest_user.map(|n| n - fitted.dropped) else { break };
        let next_user = messages
            .iter()
            .enumerate()
            .skip(2)
            .find(|(_, m)| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(|(i, _)| i);
        match next_user {
            Some(end) if end <= last_user && end > 1 => {
                let removed = messages.drain(1..end).count();
                fitted.dropped += removed;
                fitted.tokens = total(messages);
            }
            _ => break,
        }
    }
    if fitted.dropped > 0 {
        if let Some(Value::String(system)) = messages.first_mut().and_then(|m| m.get_mut("content")) {
            system.push_str(&format!(
                "\n\n(Halley left out the {} oldest messages of this conversation to fit the model's context.)",
                fitted.dropped
            ));
        }
        fitted.tokens = total(messages);
    }
    // 3. Still over: cut the largest message's text.
    if fitted.tokens > budget {
        let largest = (1..messages.len()).max_by_key(|&i| estimate_message(&messages[i]));
        if let Some(i) = largest
            && let Some(Value::String(text)) = messages[i].get_mut("content")
        {
            let over = fitted.tokens - budget;
            let keep_bytes = text.len().saturating_sub(over * 4 + 200);
            let mut cut_at = keep_bytes.min(text.len());
            while !text.is_char_boundary(cut_at) {
                cut_at -= 1;
            }
            text.truncate(cut_at);
            text.push_str("\n[... Halley cut the rest to fit the model's context]");
            fitted.cut = true;
            fitted.tokens = total(messages);
        }
    }
    fitted
}

fn has_image(m: &Value) -> bool {
    m.get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| parts.iter().any(|p| p.get("type").and_then(Value::as_str) == Some("image_url")))
}

/// The tool a `role: tool` message answers, from the assistant's calls.
fn tool_name_for(messages: &[Value], i: usize) -> Option<String> {
    let id = messages[i].get("tool_call_id")?.as_str()?;
    messages[..i].iter().rev().find_map(|m| {
        m.get("tool_calls")?.as_array()?.iter().find_map(|c| {
            (c.get("id")?.as_str()? == id).then(|| c.pointer("/function/name")?.as_str().map(str::to_owned))?
        })
    })
}

/// Whether a model accepts images, guessed from its name when the user did
/// not say (`--images yes|no`). Unknown models get none: a text model sent
/// an image fails the request.
pub fn accepts_images(model: &str) -> bool {
    let m = model.to_lowercase();
    const VISION: &[&str] = &[
        "gpt-4o",
        "gpt-4.1",
        "gpt-4-turbo",
        "gpt-5",
        "o3",
        "o4",
        "gemini",
        "claude",
        "llava",
        "bakllava",
        "-vl",
        "vision",
        "pixtral",
        "gemma3",
        "gemma-3",
        "minicpm-v",
        "moondream",
        "llama4",
        "qwen2.5vl",
    ];
    VISION.iter().any(|v| m.contains(v))
}

/// A user message carrying the screenshot a result points at, for a model
/// that accepts images; `None` when there is none or it cannot be read.
pub fn screenshot_message(tool_call_id: &str, result: &ToolResultV2) -> Option<Value> {
    let art = result.artifacts.iter().find(|a| a.kind == ArtifactType::Screenshot)?;
    let path = url::Url::parse(&art.reference).ok()?.to_file_path().ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    if meta.len() > MAX_IMAGE_BYTES {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let mime = match path.extension().and_then(|e| e.to_str()) {
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        _ => "image/png",
    };
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    Some(json!({
        "role": "user",
        "content": [
            {"type": "text", "text": format!("(Halley) The screenshot taken by call {tool_call_id}:")},
            {"type": "image_url", "image_url": {"url": format!("data:{mime};base64,{data}")}}
        ]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str) -> Value {
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}}]})
    }
    fn result(id: &str, chars: usize) -> Value {
        json!({"role": "tool", "tool_call_id": id, "content": "x".repeat(chars)})
    }

    #[test]
    fn under_budget_nothing_changes() {
        let mut m = vec![json!({"role": "system", "content": "s"}), json!({"role": "user", "content": "hi"})];
        let before = m.clone();
        let f = fit(&mut m, 100, 10_000);
        assert_eq!(m, before);
        assert_eq!(f, Fitted { tokens: 100 + 5 + 5, elided: 0, dropped: 0, cut: false });
    }

    #[test]
    fn old_tool_outputs_are_elided_first_newest_kept() {
        let mut m = vec![
            json!({"role": "system", "content": "s"}),
            json!({"role": "user", "content": "find the price"}),
            call("a", "browser_snapshot"),
            result("a", 8000),
            call("b", "browser_read_text"),
            result("b", 8000),
            call("c", "browser_extract"),
            result("c", 8000),
        ];
        let f = fit(&mut m, 0, 5000);
        assert_eq!(f.elided, 1);
        assert_eq!(f.dropped, 0);
        assert!(f.tokens <= 5000, "{f:?}");
        let elided = m[3]["content"].as_str().unwrap();
        assert!(elided.contains("browser_snapshot result (8000 characters)"), "{elided}");
        assert_eq!(m[5]["content"].as_str().unwrap().len(), 8000);
        assert_eq!(m[7]["content"].as_str().unwrap().len(), 8000);
    }

    #[test]
    fn oldest_turns_are_dropped_whole_and_the_task_stays() {
        let mut m = vec![json!({"role": "system", "content": "s"})];
        for i in 0..5 {
            m.push(json!({"role": "user", "content": format!("old question {i} {}", "y".repeat(4000))}));
            m.push(json!({"role": "assistant", "content": "an answer"}));
        }
        m.push(json!({"role": "user", "content": "the task now"}));
        let f = fit(&mut m, 0, 2500);
        assert!(f.dropped >= 6 && f.dropped.is_multiple_of(2), "{f:?}");
        assert_eq!(m.last().unwrap()["content"], "the task now");
        assert_eq!(m[1]["role"], "user");
        assert!(m[0]["content"].as_str().unwrap().contains("left out the"));
        assert!(f.tokens <= 2500, "{f:?}");
    }

    #[test]
    fn a_single_huge_result_is_cut_on_a_char_boundary() {
        let mut m = vec![
            json!({"role": "system", "content": "s"}),
            json!({"role": "user", "content": "giá bao nhiêu?"}),
            call("a", "browser_read_text"),
            json!({"role": "tool", "tool_call_id": "a", "content": "giá ₫ ".repeat(20_000)}),
        ];
        let f = fit(&mut m, 0, 3000);
        assert!(f.cut);
        assert!(f.tokens <= 3000, "{f:?}");
        assert!(m[3]["content"].as_str().unwrap().ends_with("to fit the model's context]"));
    }

    #[test]
    fn image_models_are_recognised_by_name() {
        assert!(accepts_images("gpt-4o-mini"));
        assert!(accepts_images("qwen2.5-vl:7b"));
        assert!(accepts_images("llava:13b"));
        assert!(!accepts_images("qwen2.5:7b"));
        assert!(!accepts_images("llama3.1:8b"));
    }
}
