use pretty_assertions::assert_eq;
use serde_json::json;

use super::ndjson::{Lines, Reader};
use super::*;
use crate::agent::stream::{Assembler, StreamEvent, Usage};

fn show(caps: &[&str]) -> Value {
    json!({
        "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960, "qwen3.embedding_length": 4096},
        "capabilities": caps,
    })
}

#[test]
fn show_gives_the_context_of_the_named_architecture_and_the_capabilities() {
    let info = ModelInfo::from_show(&show(&["completion", "tools", "thinking"]));
    assert_eq!(info.context_length, Some(40960));
    assert_eq!((info.can("tools"), info.can("vision")), (Some(true), Some(false)));
    assert_eq!(info.window(32_768), 32_768);
    assert_eq!(info.window(65_536), 40_960);
    // An older server: no capabilities, context under another key.
    let old = ModelInfo::from_show(&json!({"model_info": {"llama.context_length": 131072}}));
    assert_eq!((old.context_length, old.can("tools")), (Some(131072), None));
    assert_eq!(ModelInfo::from_show(&json!({})), ModelInfo::default());
}

#[test]
fn num_ctx_grows_in_powers_of_two_within_the_window() {
    assert_eq!(num_ctx(100, ANSWER_TOKENS, 32_768), SERVER_DEFAULT_CONTEXT);
    assert_eq!(num_ctx(18_000, ANSWER_TOKENS, 32_768), 32_768);
    assert_eq!(num_ctx(5_000, ANSWER_TOKENS, 32_768), 16_384);
    assert_eq!(num_ctx(50_000, ANSWER_TOKENS, 32_768), 32_768);
    assert_eq!(num_ctx(100, ANSWER_TOKENS, 2_048), 2_048, "a model smaller than the default");
    // The budget a run keeps to never needs more than the window.
    let budget = prompt_budget(32_768);
    assert!(num_ctx(budget, ANSWER_TOKENS, usize::MAX) <= 32_768, "{budget}");
}

#[test]
fn a_cut_is_a_prompt_read_at_less_than_half() {
    assert!(cut(20_000, 4_096));
    assert!(!cut(20_000, 14_000), "a tokenizer's difference");
    assert!(!cut(20_000, 0), "not reported");
    assert!(!cut(600, 100), "too small to tell");
    let m = cut_message("http://h:11434/v1", "qwen3:8b", 20_000, 4_096, None);
    assert!(m.contains("num_ctx") && m.contains("4096") && m.contains("HALLEY_MODEL_API"), "{m}");
    let m = cut_message(
        "http://h",
        "qwen3:8b",
        20_000,
        8_192,
        Some(Sizing { num_ctx: 32_768, context_length: Some(40_960), prompt_tokens: 20_000 }),
    );
    assert!(m.contains("num_ctx 32768") && m.contains("40960 tokens"), "{m}");
}

#[test]
fn the_native_body_has_num_ctx_object_arguments_named_results_and_images() {
    let request = json!({
        "model": "qwen3:8b",
        "messages": [
            {"role": "system", "content": "Bạn là Halley."},
            {"role": "user", "content": [{"type": "text", "text": "Xem ảnh"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "browser_navigate", "arguments": "{\"url\":\"https://a.vn\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ],
        "tools": [{"type": "function", "function": {"name": "browser_navigate", "parameters": {"type": "object"}}}],
        "tool_choice": "auto",
        "stream_options": {"include_usage": true},
    });
    let info = ModelInfo::from_show(&show(&["completion", "tools", "vision", "thinking"]));
    let (body, sizing) = chat_body(&request, &info, 32_768, true).unwrap();
    assert_eq!(sizing, Sizing { num_ctx: 4_096, context_length: Some(40_960), prompt_tokens: prompt_tokens(&request) });
    assert_eq!(body["options"], json!({"num_ctx": 4096}));
    assert_eq!((body["stream"].clone(), body["think"].clone()), (json!(true), json!(true)));
    assert_eq!(body["tools"], request["tools"]);
    assert!(body.get("tool_choice").is_none() && body.get("stream_options").is_none());
    let m = body["messages"].as_array().unwrap();
    assert_eq!(m[1], json!({"role": "user", "content": "Xem ảnh", "images": ["iVBOR"]}));
    assert_eq!(
        m[2]["tool_calls"],
        json!([{"function": {"name": "browser_navigate", "arguments": {"url": "https://a.vn"}}}])
    );
    assert_eq!(m[3], json!({"role": "tool", "content": "ok", "tool_name": "browser_navigate"}));

    // Thinking not wanted; a model that sees no images gets a note instead.
    let text_only = ModelInfo::from_show(&show(&["completion", "tools", "thinking"]));
    let (body, _) = chat_body(&request, &text_only, 32_768, false).unwrap();
    assert_eq!(body["think"], json!(false));
    assert!(body["messages"][1].get("images").is_none());
    assert!(body["messages"][1]["content"].as_str().unwrap().contains("image(s) left out"));

    // A model that cannot call tools gets them as text: no `tools`, its
    // calls and their results written in the messages.
    let no_tools = ModelInfo::from_show(&show(&["completion"]));
    let (body, _) = chat_body(&request, &no_tools, 32_768, true).unwrap();
    assert!(body.get("tools").is_none() && body.get("think").is_none(), "{body}");
    let m = body["messages"].as_array().unwrap();
    assert_eq!(m.len(), 4);
    let system = m[0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("Bạn là Halley.\n\nYou can call tools.") && system.contains("\n- browser_navigate()"),
        "{system}"
    );
    assert_eq!(
        m[2],
        json!({"role": "assistant", "content": "<tool_call>{\"name\": \"browser_navigate\", \"arguments\": {\"url\":\"https://a.vn\"}}</tool_call>"})
    );
    assert_eq!(
        m[3],
        json!({"role": "user", "content": "<tool_response name=\"browser_navigate\">\nok\n</tool_response>"})
    );
    assert!(chat_body(&json!({"model": "x", "messages": []}), &no_tools, 32_768, true).is_ok());
}

#[test]
fn ndjson_lines_become_text_whole_calls_and_usage() {
    let stream = concat!(
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Cần mở\"},\"done\":false}\n",
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"Để tôi \"},\"done\":false}\r\n",
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"web_search\",\"arguments\":{\"query\":\"giá\"}}}]},\"done\":false}\n",
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"index\":1,\"name\":\"web_search\",\"arguments\":{\"query\":\"rẻ\"}}}]},\"done\":false}\n",
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":5210,\"eval_count\":42}\n",
    );
    let mut lines = Lines::default();
    let mut got = Vec::new();
    // In awkward pieces, split inside multi-byte characters.
    for piece in stream.as_bytes().chunks(7) {
        got.extend(lines.feed(piece).unwrap());
    }
    assert_eq!(lines.finish(), None);
    assert_eq!(got.len(), 5);
    let mut reader = Reader::default();
    let mut asm = Assembler::new();
    let mut events = Vec::new();
    for line in got {
        asm.push(reader.chunk(serde_json::from_str(&line).unwrap()), &mut |e| events.push(e)).unwrap();
    }
    assert!(reader.done);
    let c = asm.finish();
    assert_eq!(c.content, "Để tôi ", "thinking is not the answer");
    let calls: Vec<(&str, &str)> = c.tool_calls.iter().map(|t| (t.name.as_str(), t.arguments.as_str())).collect();
    assert_eq!(calls, vec![("web_search", "{\"query\":\"giá\"}"), ("web_search", "{\"query\":\"rẻ\"}")]);
    assert_ne!(c.tool_calls[0].id, c.tool_calls[1].id);
    assert_eq!(c.usage, Some(Usage { prompt_tokens: 5210, completion_tokens: 42 }));
    assert_eq!(c.finish_reason.as_deref(), Some("stop"));
    let started = events.iter().filter(|e| matches!(e, StreamEvent::ToolCallStarted { .. })).count();
    assert_eq!(started, 2);

    // An error line, and a cut-off answer.
    let mut reader = Reader::default();
    let err = Assembler::new()
        .push(reader.chunk(json!({"error": "an error was encountered while running the model"})), &mut |_| {})
        .unwrap_err();
    assert!(err.message().contains("while running the model"), "{}", err.message());
    let mut reader = Reader::default();
    let chunk = reader.chunk(json!({"message": {"content": "Giá là"}, "done": true, "done_reason": "length"}));
    assert_eq!(chunk.delta.unwrap().finish_reason.as_deref(), Some("length"));
    // A last line without its newline.
    let mut lines = Lines::default();
    assert!(lines.feed(b"{\"done\":true}").unwrap().is_empty());
    assert_eq!(lines.finish().as_deref(), Some("{\"done\":true}"));
}

#[test]
fn the_root_of_an_ollama_endpoint() {
    assert_eq!(root_url("http://127.0.0.1:11434/v1"), "http://127.0.0.1:11434");
    assert_eq!(root_url("http://gpu:11434/v1/"), "http://gpu:11434");
    assert_eq!(root_url("http://gpu:11434"), "http://gpu:11434");
    assert!(is_running_text("Ollama is running"));
    assert!(!is_running_text("<html>Ollama is running somewhere</html>"));
}

#[test]
fn tags_list_the_models_with_their_size_and_details() {
    let listing = json!({"models": [
        {"name": "qwen3:8b", "model": "qwen3:8b", "size": 5_225_376_047_u64,
         "details": {"format": "gguf", "family": "qwen3", "parameter_size": "8.2B", "quantization_level": "Q4_K_M"}},
        {"model": "gemma3:1b", "details": {}},
        {"name": ""},
    ]});
    assert_eq!(
        tags(&listing),
        vec![
            Tag {
                name: "qwen3:8b".into(),
                size: Some(5_225_376_047),
                parameter_size: Some("8.2B".into()),
                quantization: Some("Q4_K_M".into()),
                family: Some("qwen3".into()),
            },
            Tag { name: "gemma3:1b".into(), ..Tag::default() },
        ]
    );
    assert_eq!(tags(&json!({"error": "no"})), vec![]);
}
