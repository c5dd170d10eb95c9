use super::*;
use crate::error::{ErrorCode, Result};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Feed JSON chunks; return the completion and the events.
fn assemble(chunks: &[Value]) -> (Result<Completion>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let mut asm = Assembler::new();
    for c in chunks {
        let chunk: Chunk = serde_json::from_value(c.clone()).unwrap();
        if let Err(e) = asm.push(chunk, &mut |e| events.push(e)) {
            return (Err(e), events);
        }
    }
    (Ok(asm.finish()), events)
}

fn delta(d: Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m1", "choices": [{"index": 0, "delta": d, "finish_reason": null}]})
}

fn finish(reason: &str) -> Value {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

fn call(id: &str, name: &str, args: &str) -> ToolCallOut {
    ToolCallOut { id: id.into(), name: name.into(), arguments: args.into() }
}

#[test]
fn an_empty_fragment_moves_no_announced_call() {
    // Found by `make fuzz`: a first call whose `function` key was
    // garbled (an id, no name, no arguments) was dropped at the end, so
    // the second call was announced at index 1 but ended at index 0.
    let (c, events) = assemble(&[delta(json!({"tool_calls": [
        {"index": 0, "id": "function-call-1", "type": "function", "fun'ction": {"name": "normalize_compare"}},
        {"index": 1, "id": "function-call-2", "type": "function", "function": {"name": "files_list", "arguments": {}}}
    ]}))]);
    let c = c.unwrap();
    assert_eq!(c.tool_calls, vec![call("function-call-2", "files_list", "{}")]);
    assert_eq!(
        events,
        vec![StreamEvent::ToolCallStarted { index: 0, id: "function-call-2".into(), name: "files_list".into() }]
    );
}

#[test]
fn text_with_usage() {
    let (c, events) = assemble(&[
        delta(json!({"role": "assistant", "content": ""})),
        delta(json!({"content": "Hel"})),
        delta(json!({"content": "lo"})),
        finish("stop"),
        json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}}),
    ]);
    assert_eq!(
        c.unwrap(),
        Completion {
            content: "Hello".into(),
            tool_calls: vec![],
            finish_reason: Some("stop".into()),
            usage: Some(Usage { prompt_tokens: 12, completion_tokens: 2 }),
            model: Some("m1".into()),
            raw: RawResponse::default(),
        }
    );
    assert_eq!(events, vec![StreamEvent::Token("Hel".into()), StreamEvent::Token("lo".into())]);
}

#[test]
fn parallel_calls_keyed_by_index() {
    let (c, events) = assemble(&[
        delta(
            json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "search", "arguments": ""}}]}),
        ),
        delta(
            json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "open", "arguments": "{\"u"}}]}),
        ),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"q\":"}}]})),
        delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": "rl\":1}"}}]})),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"x\"}"}}]})),
        finish("tool_calls"),
    ]);
    let c = c.unwrap();
    assert_eq!(c.tool_calls, vec![call("call_a", "search", r#"{"q":"x"}"#), call("call_b", "open", r#"{"url":1}"#)]);
    assert_eq!(
        events,
        vec![
            StreamEvent::ToolCallStarted { index: 0, id: "call_a".into(), name: "search".into() },
            StreamEvent::ToolCallStarted { index: 1, id: "call_b".into(), name: "open".into() },
        ]
    );
}

#[test]
fn calls_without_index_keyed_by_id_or_appended() {
    let (c, _) = assemble(&[
        // by id
        delta(json!({"tool_calls": [{"id": "a", "function": {"name": "one", "arguments": "{"}}]})),
        delta(json!({"tool_calls": [{"id": "b", "function": {"name": "two", "arguments": "["}}]})),
        delta(json!({"tool_calls": [{"id": "a", "function": {"arguments": "}"}}]})),
        // no id, no index: the last call
        delta(json!({"tool_calls": [{"function": {"arguments": "]"}}]})),
        // a new name without index or id: a new call
        delta(json!({"tool_calls": [{"function": {"name": "three", "arguments": "{}"}}]})),
    ]);
    let c = c.unwrap();
    assert_eq!(c.tool_calls.len(), 3);
    assert_eq!((c.tool_calls[0].id.as_str(), c.tool_calls[0].arguments.as_str()), ("a", "{}"));
    assert_eq!((c.tool_calls[1].id.as_str(), c.tool_calls[1].arguments.as_str()), ("b", "[]"));
    assert_eq!((c.tool_calls[2].name.as_str(), c.tool_calls[2].arguments.as_str()), ("three", "{}"));
    assert!(c.tool_calls[2].id.starts_with("call_"), "made-up id: {}", c.tool_calls[2].id);
    assert_eq!(c.finish_reason, None);
}

#[test]
fn whole_call_in_one_chunk_without_index_and_reused_index() {
    // Ollama style: whole calls, no index, arguments as an object.
    let (c, _) = assemble(&[delta(json!({"tool_calls": [
        {"id": "c1", "function": {"name": "a", "arguments": {"x": 1}}},
        {"id": "c2", "function": {"name": "b", "arguments": "{}"}}
    ]}))]);
    assert_eq!(c.unwrap().tool_calls, vec![call("c1", "a", r#"{"x":1}"#), call("c2", "b", "{}")]);
    // Every call with index 0 but its own id and name.
    let (c, _) = assemble(&[
        delta(json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "a", "arguments": "{}"}}]})),
        delta(json!({"tool_calls": [{"index": 0, "id": "c2", "function": {"name": "b", "arguments": "{}"}}]})),
    ]);
    assert_eq!(c.unwrap().tool_calls, vec![call("c1", "a", "{}"), call("c2", "b", "{}")]);
}

#[test]
fn content_and_tool_calls_in_one_message_both_kept() {
    let (c, events) = assemble(&[
        delta(
            json!({"content": "Let me look.", "tool_calls": [{"index": 0, "id": "k", "function": {"name": "look", "arguments": "{}"}}]}),
        ),
        finish("tool_calls"),
    ]);
    let c = c.unwrap();
    assert_eq!((c.content.as_str(), c.tool_calls.clone()), ("Let me look.", vec![call("k", "look", "{}")]));
    assert_eq!(events.len(), 2);
    // A whole non-streamed message reads the same way.
    let whole = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "x", "tool_calls": [{"id": "k", "type": "function", "function": {"name": "look", "arguments": "{}"}}]}}]});
    let (c, _) = assemble(&[whole]);
    let c = c.unwrap();
    assert_eq!(
        (c.content.as_str(), c.tool_calls, c.finish_reason),
        ("x", vec![call("k", "look", "{}")], Some("tool_calls".into()))
    );
}

#[test]
fn arguments_split_in_many_fragments() {
    let args = r#"{"query": "flights from Lisbon to Tokyo", "max": 5, "note": "ünïcödé ✈"}"#;
    let mut chunks = vec![delta(json!({"tool_calls": [{"index": 0, "id": "s", "function": {"name": "search"}}]}))];
    for ch in args.chars() {
        chunks.push(delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": ch.to_string()}}]})));
    }
    let (c, events) = assemble(&chunks);
    assert_eq!(c.unwrap().tool_calls, vec![call("s", "search", args)]);
    assert_eq!(events.len(), 1);
}

#[test]
fn unknown_finish_reason_and_fields_are_kept_or_ignored() {
    let (c, _) = assemble(&[
        json!({"weird": true, "choices": [{"index": "0", "delta": {"content": "a", "reasoning_content": "hmm"}, "logprobs": {"x": 1}}]}),
        json!({"choices": [{"delta": null, "finish_reason": "eos_token"}]}),
        json!({"choices": "not a list"}),
        json!([1, 2, 3]),
        json!("text"),
    ]);
    let c = c.unwrap();
    assert_eq!((c.content.as_str(), c.finish_reason.as_deref()), ("a", Some("eos_token")));
}

#[test]
fn malformed_arguments_are_kept_raw() {
    let (c, _) = assemble(&[delta(
        json!({"tool_calls": [{"index": 0, "id": "m", "function": {"name": "f", "arguments": "{\"a\": tru"}}]}),
    )]);
    assert_eq!(c.unwrap().tool_calls, vec![call("m", "f", "{\"a\": tru")]);
}

#[test]
fn error_in_stream_is_a_model_error() {
    let (c, _) = assemble(&[delta(json!({"content": "a"})), json!({"error": {"message": "overloaded"}})]);
    let err = c.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ModelError);
    assert!(err.message().contains("overloaded"));
}

#[test]
fn ten_megabytes_of_arguments_pass_and_more_than_the_cap_fails() {
    let ten_mb = "x".repeat(10 * 1024 * 1024);
    let (c, _) = assemble(&[
        delta(json!({"tool_calls": [{"index": 0, "id": "big", "function": {"name": "f", "arguments": "\""}}]})),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": ten_mb}}]})),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\""}}]})),
    ]);
    assert_eq!(c.unwrap().tool_calls[0].arguments.len(), 10 * 1024 * 1024 + 2);

    let eight_mb = "y".repeat(8 * 1024 * 1024);
    let piece =
        delta(json!({"tool_calls": [{"index": 0, "id": "big", "function": {"name": "f", "arguments": eight_mb}}]}));
    let (c, _) = assemble(&[piece.clone(), piece.clone(), piece]);
    let err = c.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ModelError);
    assert!(err.message().contains("too large"), "{}", err.message());
}

#[test]
fn clip_respects_char_boundaries() {
    assert_eq!(clip("héllo", 2), "h…");
    assert_eq!(clip("abc", 5), "abc");
}
