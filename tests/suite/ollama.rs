//! Halley against the Ollama double (tests/common/ollama.rs), a server that
//! behaves as Ollama does: on its native API the run asks for the context
//! it needs and a long page is read whole; on the OpenAI-compatible
//! endpoint, or on a server short of memory, the prompt is cut from the
//! front and the run stops with a model_error instead of passing on the
//! answer to a prompt the model never saw; a model not pulled is named with
//! `ollama pull`; tool calls streamed with object arguments run once.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, catalogue_row, format_vnd};
use crate::common::model_server::{ToolCall, Turn};
use crate::common::ollama::{DEFAULT_CONTEXT, OllamaModel, OllamaServer, Seen};
use crate::common::{Halley, Run};

/// What the model says when the browsing tools were cut out of its prompt.
const CANNOT_BROWSE: &str = "Xin lỗi, tôi không thể mở trang web.";

fn run(h: &Halley, base: &str, model: &str, task: &str, env: &[(&str, &str)]) -> Run {
    let args = ["--headless", "run", task, "--json", "--base-url", base, "--model", model];
    h.run_piped(&args, "", &["HALLEY_DATA_DIR", "HALLEY_MODEL_API", "HALLEY_MAX_CONTEXT", "HALLEY_THINK"], env)
}

fn of_type<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["type"] == kind).collect()
}

/// A model that browses to the catalogue, reads it, and answers with the
/// last product's price, if it can see the tools and the page.
fn shopper(rows: usize, site: String) -> impl Fn(&Seen) -> Turn + Send + Sync + 'static {
    move |seen: &Seen| {
        if !seen.has_tool("browser_navigate") {
            return Turn::text(CANNOT_BROWSE);
        }
        match seen.tool_results() {
            0 => Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site}))]),
            1 => Turn::tool_calls(vec![ToolCall::new("browser_read_text", json!({"max_chars": 40000}))]),
            _ => {
                let last = catalogue_row(rows);
                match seen.last_tool_result() {
                    Some(page) if page.contains(&last.name) => {
                        Turn::text(&format!("{} giá {}.", last.name, format_vnd(last.price)))
                    }
                    _ => Turn::text("Tôi không thấy sản phẩm cuối cùng."),
                }
            }
        }
    }
}

#[test]
fn on_the_native_api_a_long_page_is_read_whole_with_num_ctx_raised() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let rows = 200;
    let ollama = OllamaServer::responding(
        vec![OllamaModel::qwen3_8b()],
        shopper(rows, site.url(&format!("catalogue?rows={rows}"))),
    );
    let h = Halley::new();
    let out = run(&h, &ollama.base_url(), "qwen3:8b", "Sản phẩm cuối cùng trong danh mục giá bao nhiêu?", &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    let last = catalogue_row(rows);
    let answer = format!("{} giá {}.", last.name, format_vnd(last.price));
    assert_eq!(evs.last().unwrap()["type"], "final", "{evs:?}");
    assert_eq!(evs.last().unwrap()["text"], answer.as_str());

    // Native only: asked what it is, what the model is (once), then chats.
    let paths = ollama.paths();
    assert_eq!(paths[0], ("GET".into(), "/".into()));
    assert_eq!(paths.iter().filter(|(_, p)| p == "/api/show").count(), 1, "{paths:?}");
    assert!(paths.iter().all(|(_, p)| p != "/v1/chat/completions"), "{paths:?}");
    let chats = ollama.bodies("/api/chat");
    assert_eq!(chats.len(), 3);
    let seen = ollama.seen();
    for (body, seen) in chats.iter().zip(&seen) {
        let num_ctx = body["options"]["num_ctx"].as_u64().unwrap() as usize;
        assert!(num_ctx >= seen.prompt_tokens && num_ctx <= 32_768, "{num_ctx}");
        assert_eq!(seen.num_ctx, num_ctx);
        assert!(!seen.truncated, "read {} of {} at {num_ctx}", seen.prompt_eval_count, seen.prompt_tokens);
        assert_eq!(body["stream"], true);
        assert_eq!(body["think"], true, "qwen3 thinks");
    }
    // The first request (small: the core tools) fits the default; the one
    // holding the page does not, and is read whole with num_ctx raised.
    assert!(seen[0].prompt_tokens < DEFAULT_CONTEXT, "{}", seen[0].prompt_tokens);
    assert!(seen[2].prompt_tokens > DEFAULT_CONTEXT, "the prompt would not fit the default: {}", seen[2].prompt_tokens);
    assert!(seen[2].num_ctx > DEFAULT_CONTEXT, "{}", seen[2].num_ctx);
    // The page itself was long: more than the default context on its own.
    let page = seen[2].last_tool_result().unwrap();
    assert!(crate::common::ollama::tokens(&page) > DEFAULT_CONTEXT / 2, "{}", page.len());
}

/// A task with a long note pasted in: about 20,000 tokens, more than twice what a
/// server short of memory holds and the default context (the first
/// request of a one-line task fits 4,096 tokens).
fn long_task() -> String {
    format!("Mở shopee.vn giúp tôi. Ghi chú của tôi: {}", "laptop ".repeat(10_000))
}

#[test]
fn the_openai_endpoint_cutting_the_prompt_is_a_model_error_not_an_answer() {
    let ollama = OllamaServer::responding(vec![OllamaModel::qwen3_8b()], |seen: &Seen| {
        if seen.has_tool("browser_navigate") { Turn::text("Tôi sẽ mở trang.") } else { Turn::text(CANNOT_BROWSE) }
    });
    let h = Halley::new();
    let base = ollama.base_url();
    let task = long_task();
    let args = ["--headless", "run", &task, "--json", "--preset", "ollama", "--base-url", &base, "--model", "qwen3:8b"];
    let out = h.run_piped(&args, "", &["HALLEY_DATA_DIR"], &[("HALLEY_MODEL_API", "openai")]);
    assert_ne!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    assert!(of_type(&evs, "final").is_empty(), "the cut prompt's answer is not the run's: {evs:?}");
    assert!(!out.stdout.contains(CANNOT_BROWSE), "{}", out.stdout);
    let errors = of_type(&evs, "error");
    assert_eq!(errors.len(), 1, "{evs:?}");
    assert_eq!(errors[0]["code"], "model_error");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("ignores num_ctx") && message.contains("4096") && message.contains("HALLEY_MODEL_API"),
        "{message}"
    );

    // The double did what Ollama does: ran at 4,096 whatever was asked, cut silently.
    let seen = ollama.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].path.as_str(), seen[0].num_ctx, seen[0].truncated),
        ("/v1/chat/completions", DEFAULT_CONTEXT, true)
    );
    assert!(!seen[0].has_tool("browser_navigate"));
    assert!(ollama.paths().iter().all(|(_, p)| p != "/api/chat" && p != "/"), "{:?}", ollama.paths());
}

#[test]
fn a_server_short_of_memory_cutting_anyway_is_a_model_error_naming_num_ctx() {
    let ollama = OllamaServer::responding(vec![OllamaModel::qwen3_8b()], |seen: &Seen| {
        if seen.has_tool("browser_navigate") { Turn::text("Tôi sẽ mở trang.") } else { Turn::text(CANNOT_BROWSE) }
    });
    ollama.limit_memory(8192);
    let h = Halley::new();
    let out = run(&h, &ollama.base_url(), "qwen3:8b", &long_task(), &[]);
    assert_ne!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    assert!(of_type(&evs, "final").is_empty(), "{evs:?}");
    let errors = of_type(&evs, "error");
    assert_eq!(errors.len(), 1, "{evs:?}");
    assert_eq!(errors[0]["code"], "model_error");
    let message = errors[0]["message"].as_str().unwrap();
    let asked = ollama.bodies("/api/chat")[0]["options"]["num_ctx"].as_u64().unwrap();
    assert!(asked > 8192, "{asked}");
    assert!(message.contains(&format!("num_ctx {asked}")) && message.contains("40960 tokens"), "{message}");
    let seen = ollama.seen();
    assert_eq!((seen[0].num_ctx, seen[0].truncated), (8192, true));
}

#[test]
fn a_model_not_pulled_is_named_with_ollama_pull() {
    let ollama = OllamaServer::start(vec![OllamaModel::qwen3_8b()], vec![]);
    let h = Halley::new();
    let out = run(&h, &ollama.base_url(), "qwen9:404b", "Chào bạn", &[]);
    assert_ne!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    let errors = of_type(&evs, "error");
    assert_eq!(errors.len(), 1, "{evs:?}");
    assert_eq!(errors[0]["code"], "model_unavailable");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("`ollama pull qwen9:404b`") && message.contains("not found"), "{message}");
    assert!(ollama.bodies("/api/chat").is_empty(), "{:?}", ollama.paths());
}

#[test]
fn streamed_tool_calls_with_object_arguments_run_once_and_thinking_stays_out() {
    let h = Halley::new();
    assert_eq!(h.call("user_profile_set", &json!({"set": {"travel.seat": "cửa sổ"}})).code, 0);
    let ollama = OllamaServer::start(
        vec![OllamaModel::qwen3_8b(), OllamaModel::gemma3_1b()],
        vec![
            Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({"keys": ["travel"]}))])
                .with_text("<think>Cần đọc hồ sơ của người dùng.</think>"),
            Turn::text("<think>Hồ sơ ghi cửa sổ.</think>\n\nBạn thích ghế cạnh cửa sổ."),
        ],
    );
    let out = run(&h, &ollama.base_url(), "qwen3:8b", "Tôi thích ngồi ở đâu trên máy bay?", &[]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    let calls = of_type(&evs, "tool_call");
    assert_eq!(calls.len(), 1, "{evs:?}");
    let results = of_type(&evs, "tool_result");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["result"]["data"]["values"]["travel.seat"], "cửa sổ", "{}", results[0]);
    let last = evs.last().unwrap();
    assert_eq!((last["type"].as_str(), last["text"].as_str()), (Some("final"), Some("Bạn thích ghế cạnh cửa sổ.")));
    let streamed: String = of_type(&evs, "token").iter().filter_map(|e| e["text"].as_str()).collect();
    assert_eq!(streamed, "Bạn thích ghế cạnh cửa sổ.", "no thinking streamed");

    // The call went back as Ollama takes it: arguments an object, the result named.
    let chats = ollama.bodies("/api/chat");
    assert_eq!(chats.len(), 2);
    let history = chats[1]["messages"].as_array().unwrap();
    let assistant = history.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(
        assistant["tool_calls"],
        json!([{"function": {"name": "user_profile_get", "arguments": {"keys": ["travel"]}}}])
    );
    assert!(!assistant["content"].as_str().unwrap_or_default().contains("think"), "{assistant}");
    let tool = history.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_name"], "user_profile_get");

    // `halley models` lists what the server has.
    let models = h.run(&["models", "--base-url", &ollama.base_url(), "--json"]);
    assert_eq!(models.code, 0, "{models:?}");
    assert_eq!(models.json()["models"], json!(["qwen3:8b", "gemma3:1b"]));
}

/// A tool call as a local model writes it in its text, one way per
/// model family (issue 28, item 3).
fn written(format: &str, name: &str, args: &Value) -> String {
    let pythonic = || {
        let pairs: Vec<String> = args
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k}={}", if v.is_string() { format!("{v}") } else { v.to_string() }))
            .collect();
        format!("{name}({})", pairs.join(", "))
    };
    match format {
        "qwen" => format!("<tool_call>\n{}\n</tool_call>", json!({"name": name, "arguments": args})),
        "llama-python-tag" => format!("<|python_tag|>{}<|eom_id|>", json!({"name": name, "parameters": args})),
        "llama-json" => json!({"name": name, "parameters": args}).to_string(),
        "fenced" => format!("Tôi sẽ làm việc này.\n```json\n{}\n```", json!({"name": name, "arguments": args})),
        "mistral" => format!("[TOOL_CALLS]{}", json!([{"name": name, "arguments": args}])),
        "pythonic" => format!("[{}]", pythonic()),
        "function-tag" => format!("<function={name}>{args}</function>"),
        other => panic!("unknown format {other}"),
    }
}

/// The `make run` default path (issue 28, Done when): no settings but the
/// model, Ollama on its own port. Whichever way the model writes its
/// calls, the Vietnamese shopping question about a fixture page is
/// answered with the page's price, and no call markup reaches the answer.
#[test]
fn the_default_path_answers_a_shopping_question_whatever_way_the_model_writes_its_calls() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let rows = 5;
    let page = site.url(&format!("catalogue?rows={rows}"));
    let formats = ["qwen", "llama-python-tag", "llama-json", "fenced", "mistral", "pythonic", "function-tag"];
    let format = std::sync::Arc::new(std::sync::Mutex::new(formats[0]));
    let chosen = std::sync::Arc::clone(&format);
    let respond = move |seen: &Seen| {
        let format = *chosen.lock().unwrap();
        match seen.tool_results() {
            0 => Turn::text(&written(format, "browser_navigate", &json!({"url": page}))),
            1 => Turn::text(&written(format, "browser_read_text", &json!({"max_chars": 20000}))),
            _ => {
                let last = catalogue_row(rows);
                match seen.last_tool_result() {
                    Some(text) if text.contains(&last.name) => {
                        Turn::text(&format!("{} giá {}.", last.name, format_vnd(last.price)))
                    }
                    _ => Turn::text("Tôi không thấy sản phẩm cuối cùng."),
                }
            }
        }
    };
    let Some(ollama) = OllamaServer::responding_on_default_port(vec![OllamaModel::qwen3_8b()], respond) else {
        eprintln!("port 11434 is in use (a real Ollama?): the default path is not tested here");
        return;
    };
    let last = catalogue_row(rows);
    let answer = format!("{} giá {}.", last.name, format_vnd(last.price));
    for f in formats {
        *format.lock().unwrap() = f;
        let h = Halley::new();
        let args =
            ["--headless", "run", "Sản phẩm cuối cùng trong danh mục giá bao nhiêu?", "--json", "--model", "qwen3:8b"];
        let removed = ["HALLEY_DATA_DIR", "HALLEY_MODEL_API", "HALLEY_MODEL", "OPENAI_BASE_URL", "HALLEY_MAX_CONTEXT"];
        let out = h.run_piped(&args, "", &removed, &[]);
        assert_eq!(out.code, 0, "{f}: {}\n{}", out.stdout, out.stderr);
        let evs = out.events();
        let last_event = evs.last().unwrap();
        assert_eq!(
            (last_event["type"].as_str(), last_event["text"].as_str()),
            (Some("final"), Some(answer.as_str())),
            "{f}: {evs:?}"
        );
    }
    assert!(ollama.paths().iter().any(|(_, p)| p == "/api/chat"), "{:?}", ollama.paths());
}
