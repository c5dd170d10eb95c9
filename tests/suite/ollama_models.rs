//! Local models as people run them, against the Ollama double: what is in
//! use is said (`halley models` and the panel's `CheckModel`: Ollama's
//! models with their size, tool calling and context, the context a run
//! gives the model in use, warnings when it cannot call tools or its
//! context is small); a model without tool calling gets the tools as text
//! and its `<tool_call>` text is run; a reply the server stopped at its
//! length limit is neither run nor shown as the answer.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::common::browser::have_browser;
use crate::common::fixtures::{FixtureServer, catalogue_row, format_vnd};
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::ollama::{OllamaModel, OllamaServer, Seen};
use crate::common::{Halley, Run};

fn run(h: &Halley, base: &str, model: &str, task: &str) -> Run {
    let args = ["--headless", "run", task, "--json", "--base-url", base, "--model", model];
    h.run_piped(&args, "", &["HALLEY_DATA_DIR", "HALLEY_MODEL_API", "HALLEY_MAX_CONTEXT", "HALLEY_THINK"], &[])
}

fn of_type<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["type"] == kind).collect()
}

/// A small model with a 2,048-token context and no tool calling.
fn tiny() -> OllamaModel {
    OllamaModel {
        size: 637_700_138,
        parameter_size: "1.1B".into(),
        ..OllamaModel::new("tinyllama:1.1b", "llama", 2_048, &["completion"])
    }
}

#[test]
fn halley_models_describes_ollamas_models_and_warns_about_the_one_in_use() {
    let ollama = OllamaServer::start(vec![OllamaModel::qwen3_8b(), OllamaModel::gemma3_1b(), tiny()], vec![]);
    let h = Halley::new();
    let base = ollama.base_url();
    let listed = h.run(&["models", "--base-url", &base, "--model", "qwen3:8b", "--json"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    let v = listed.json();
    assert_eq!(v["server"], "ollama");
    assert_eq!(v["models"], json!(["qwen3:8b", "gemma3:1b", "tinyllama:1.1b"]));
    assert_eq!(
        v["details"],
        json!([
            {"name": "qwen3:8b", "size": 5_225_376_047_u64, "parameter_size": "8.2B", "quantization": "Q4_K_M",
             "family": "qwen3", "tools": true, "context_length": 40_960},
            {"name": "gemma3:1b", "size": 815_319_791, "parameter_size": "999.89M", "quantization": "Q4_K_M",
             "family": "gemma3", "tools": false, "context_length": 32_768},
            {"name": "tinyllama:1.1b", "size": 637_700_138, "parameter_size": "1.1B", "quantization": "Q4_K_M",
             "family": "llama", "tools": false, "context_length": 2_048},
        ])
    );
    // The context a run gives qwen3: its 40,960 capped at HALLEY_MAX_CONTEXT's 32,768.
    assert_eq!(
        v["in_use"],
        json!({"model": "qwen3:8b", "context_length": 40_960, "num_ctx": 32_768, "prompt_budget": 24_000,
               "tool_calling": "native"})
    );
    assert_eq!(v["warnings"], json!([]));

    // The text form: a table, the model in use, no warning.
    let text = h.run(&["models", "--base-url", &base, "--model", "qwen3:8b"]);
    assert_eq!(text.code, 0, "{text:?}");
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(
        lines,
        vec![
            "NAME            SIZE    PARAMS   TOOLS  CONTEXT",
            "qwen3:8b        5.2 GB  8.2B     yes    40960",
            "gemma3:1b       815 MB  999.89M  no     32768",
            "tinyllama:1.1b  638 MB  1.1B     no     2048",
            &format!(
                "in use: qwen3:8b at {base} (Ollama); context up to 32768 tokens (num_ctx; the model's own: 40960); \
                 prompt budget 24000 tokens; tool calls: native"
            ),
        ]
    );
    assert!(!text.stderr.contains("warning"), "{}", text.stderr);

    // A model without tool calling and a small context: both said.
    let text = h.run(&["models", "--base-url", &base, "--model", "tinyllama:1.1b"]);
    assert_eq!(text.code, 0, "{text:?}");
    assert!(
        text.stdout.contains("context up to 2048 tokens") && text.stdout.contains("tool calls: emulated"),
        "{}",
        text.stdout
    );
    assert!(text.stderr.contains("`tinyllama:1.1b` cannot call tools"), "{}", text.stderr);
    assert!(text.stderr.contains("a context of 2048 tokens, less than the 8192"), "{}", text.stderr);
    let v = h.run(&["models", "--base-url", &base, "--model", "tinyllama:1.1b", "--json"]).json();
    assert_eq!(v["in_use"]["tool_calling"], "emulated");
    assert_eq!(v["in_use"]["prompt_budget"], 0, "2,048 tokens leave nothing once the answer's 2,048 are kept");
    assert_eq!(v["warnings"].as_array().unwrap().len(), 2, "{}", v["warnings"]);

    // A model the server does not have.
    let text = h.run(&["models", "--base-url", &base, "--model", "qwen9:404b"]);
    assert_eq!(text.code, 0, "{text:?}");
    assert!(text.stderr.contains("`qwen9:404b` is not served"), "{}", text.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panels_check_finds_ollama_describes_its_models_and_says_what_is_in_use() {
    use halley::core::BrowserSettings;
    use halley::host::Host;
    use halley::paths::DataDir;
    use halley::protocol::{ModelWarning, Op, Reply, Settings, ToolCalling};

    let ollama = OllamaServer::start(vec![OllamaModel::qwen3_8b(), OllamaModel::gemma3_1b()], vec![]);
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::open(DataDir::at(tmp.path()), BrowserSettings::default()).await.unwrap();
    let settings = Settings { base_url: Some(ollama.base_url()), ..Settings::default() };
    host.handle(Op::SaveSettings { settings }).await.unwrap();

    // First run: no model chosen; Ollama's are listed to choose from.
    let Reply::ModelStatus { status } = host.handle(Op::CheckModel { endpoint: None }).await.unwrap() else { panic!() };
    assert!(status.reachable && !status.chosen, "{status:?}");
    assert_eq!(status.server.as_deref(), Some("ollama"));
    let described: Vec<Value> = status
        .details
        .iter()
        .map(|d| json!([d.name, d.tools, d.size, d.context_length, d.parameter_size, d.quantization]))
        .collect();
    assert_eq!(
        described,
        vec![
            json!(["qwen3:8b", true, 5_225_376_047_u64, 40_960, "8.2B", "Q4_K_M"]),
            json!(["gemma3:1b", false, 815_319_791, 32_768, "999.89M", "Q4_K_M"]),
        ]
    );
    assert_eq!(status.model.as_deref(), Some("qwen3:8b"), "the endpoint's first until one is chosen");

    // The user picks gemma3:1b: the settings say what a run gives it, and warn.
    let settings =
        Settings { base_url: Some(ollama.base_url()), model: Some("gemma3:1b".into()), ..Settings::default() };
    host.handle(Op::SaveSettings { settings }).await.unwrap();
    let Reply::ModelStatus { status } = host.handle(Op::CheckModel { endpoint: None }).await.unwrap() else { panic!() };
    assert!(status.chosen);
    let in_use = status.in_use.clone().unwrap();
    assert_eq!(
        (in_use.model.as_str(), in_use.num_ctx, in_use.context_length, in_use.tool_calling),
        ("gemma3:1b", Some(32_768), Some(32_768), ToolCalling::Emulated)
    );
    assert_eq!(status.warnings, vec![ModelWarning::NoTools { model: "gemma3:1b".into() }]);
    host.close().await;
}

/// A model without tool calling that follows the prompt's instructions:
/// writes `<tool_call>` text to open the catalogue and read it, then
/// answers with the last product's price from the `<tool_response>`.
fn text_shopper(rows: usize, site: String) -> impl Fn(&Seen) -> Turn + Send + Sync + 'static {
    move |seen: &Seen| {
        let system = seen.system();
        if !(system.contains("<tool_call>") && system.contains("- browser_navigate(")) {
            return Turn::text("Xin lỗi, tôi không thể mở trang web.");
        }
        let results = seen.text_tool_results();
        match results.len() {
            0 => Turn::text(&format!(
                "Tôi sẽ mở trang.\n<tool_call>{}</tool_call>",
                json!({"name": "browser_navigate", "arguments": {"url": site}})
            )),
            1 => Turn::text(
                "<tool_call>{\"name\": \"browser_read_text\", \"arguments\": {\"max_chars\": 40000}}</tool_call>",
            ),
            _ => {
                let last = catalogue_row(rows);
                match results.last() {
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
fn a_model_without_tool_calling_gets_the_tools_as_text_and_answers_a_shopping_question() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    // A long page: more than the server's 4,096-token default on its own.
    let rows = 200;
    let ollama = OllamaServer::responding(
        vec![OllamaModel::gemma3_1b()],
        text_shopper(rows, site.url(&format!("catalogue?rows={rows}"))),
    );
    let h = Halley::new();
    let out = run(&h, &ollama.base_url(), "gemma3:1b", "Sản phẩm cuối cùng trong danh mục giá bao nhiêu?");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    let last = catalogue_row(rows);
    let answer = format!("{} giá {}.", last.name, format_vnd(last.price));
    assert_eq!(evs.last().unwrap()["type"], "final", "{evs:?}");
    assert_eq!(evs.last().unwrap()["text"], answer.as_str());
    let calls: Vec<&str> = of_type(&evs, "tool_call").iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(calls, vec!["browser_navigate", "browser_read_text"]);
    let results = of_type(&evs, "tool_result");
    assert!(results.iter().all(|r| r["result"]["status"] == "ok"), "{results:?}");
    let streamed: String = of_type(&evs, "token").iter().filter_map(|e| e["text"].as_str()).collect();
    assert!(!streamed.contains("<tool_call>"), "{streamed}");

    // No `tools` field ever (Ollama would answer 400); the calls and results
    // went back as text the model's template renders.
    let chats = ollama.bodies("/api/chat");
    assert_eq!(chats.len(), 3);
    for body in &chats {
        assert!(body.get("tools").is_none(), "{body}");
        let messages = body["messages"].as_array().unwrap();
        assert!(messages.iter().all(|m| m["role"] != "tool" && m.get("tool_calls").is_none()), "{body}");
    }
    let history = chats[2]["messages"].as_array().unwrap();
    let assistant: Vec<&str> =
        history.iter().filter(|m| m["role"] == "assistant").filter_map(|m| m["content"].as_str()).collect();
    assert!(assistant[0].starts_with("Tôi sẽ mở trang.\n<tool_call>{\"name\": \"browser_navigate\""), "{assistant:?}");
    let seen = ollama.seen();
    assert!(seen.iter().all(|s| !s.truncated), "nothing cut");
    assert_eq!(seen[2].text_tool_results().len(), 2);
    assert!(seen[2].text_tool_results()[1].starts_with("<tool_response name=\"browser_read_text\">"));
}

#[test]
fn on_ollama_a_reply_cut_at_the_length_limit_is_asked_again_never_run_nor_shown() {
    let h = Halley::new();
    assert_eq!(h.call("user_profile_set", &json!({"set": {"travel.seat": "cửa sổ"}})).code, 0);
    let ollama = OllamaServer::start(
        vec![OllamaModel::qwen3_8b()],
        vec![
            // A call cut short: not run (it would have changed the profile).
            Turn::tool_calls(vec![ToolCall::new("user_profile_set", json!({"set": {"travel.seat": "lối"}}))])
                .finish_reason("length"),
            Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({"keys": ["travel"]}))]),
            // An answer cut short: not the run's answer.
            Turn::text("Bạn thích ghế cạnh cửa sổ, vì theo hồ sơ của bạn thì").finish_reason("length"),
            Turn::text("Bạn thích ghế cạnh cửa sổ."),
        ],
    );
    let out = run(&h, &ollama.base_url(), "qwen3:8b", "Tôi thích ngồi ở đâu trên máy bay?");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    let calls: Vec<&str> = of_type(&evs, "tool_call").iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(calls, vec!["user_profile_get"]);
    let last = evs.last().unwrap();
    assert_eq!((last["type"].as_str(), last["text"].as_str()), (Some("final"), Some("Bạn thích ghế cạnh cửa sổ.")));
    let profile = h.call("user_profile_get", &json!({"keys": ["travel"]}));
    assert!(profile.stdout.contains("cửa sổ") && !profile.stdout.contains("\"lối\""), "{}", profile.stdout);

    // What the model was told each time.
    let seen = ollama.seen();
    assert_eq!(seen.len(), 4);
    assert!(seen[1].last_user().contains("Your tool call was cut off at the length limit, so it was not run"));
    assert!(seen[3].last_user().contains("Your answer was cut off at the length limit"));
    let said: Vec<&Value> = seen[3].messages.iter().filter(|m| m["role"] == "assistant").collect();
    assert_eq!(said.last().unwrap()["content"], "Bạn thích ghế cạnh cửa sổ, vì theo hồ sơ của bạn thì");

    // Cut twice in a row: the run stops with a clear error, no answer.
    let ollama = OllamaServer::start(
        vec![OllamaModel::qwen3_8b()],
        vec![Turn::text("Danh sách dài:").finish_reason("length"), Turn::text("Vẫn dài:").finish_reason("length")],
    );
    let out = run(&h, &ollama.base_url(), "qwen3:8b", "Liệt kê mọi thứ");
    assert_ne!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    assert!(of_type(&evs, "final").is_empty(), "{evs:?}");
    let errors = of_type(&evs, "error");
    assert_eq!(errors.len(), 1, "{evs:?}");
    assert_eq!(errors[0]["code"], "model_error");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("length limit twice in a row") && message.contains("not shown as the answer"),
        "{message}"
    );
}

#[test]
fn on_the_openai_api_finish_reason_length_is_acted_on_too() {
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("user_profile_get", json!({"keys": ["travel"]}))]).finish_reason("length"),
        Turn::text("Hồ sơ của bạn trống."),
    ]);
    let h = Halley::new();
    let out = run(&h, &model.base_url(), "m1", "Hồ sơ của tôi có gì?");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    assert!(of_type(&evs, "tool_call").is_empty(), "{evs:?}");
    assert_eq!(evs.last().unwrap()["text"], "Hồ sơ của bạn trống.");
    let second = &model.requests()[1];
    let last = second["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");
    assert!(last["content"].as_str().unwrap().contains("Your tool call was cut off"), "{last}");
}

/// #43 item 2, the model set up by clicking: Test connection tries exactly
/// what is typed and saves nothing; each thing that stops a run is named
/// for a person (`ModelProblem`), never only in the CLI's words; and the
/// model servers running on this computer are found with their models
/// (pulling nothing), a server that is not there left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_typed_is_tested_unsaved_and_local_servers_are_found() {
    use crate::common::local_servers::{Kind, LocalServer};
    use halley::core::BrowserSettings;
    use halley::host::Host;
    use halley::paths::DataDir;
    use halley::protocol::{ModelEndpoint, ModelProblem, Op, Reply, Settings};

    let ollama = OllamaServer::start(vec![OllamaModel::qwen3_8b(), OllamaModel::gemma3_1b()], vec![]);
    let empty = OllamaServer::start(vec![], vec![]);
    let lmstudio = LocalServer::start(Kind::LmStudio, "qwen/qwen3-8b", 32_768);
    let llamacpp = LocalServer::start(Kind::LlamaCpp, "qwen3-8b-q4_k_m.gguf", 16_384);
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let tmp = tempfile::tempdir().unwrap();
    let host = Host::open(DataDir::at(tmp.path()), BrowserSettings::default()).await.unwrap();
    let saved = Settings { base_url: Some(dead.clone()), ..Settings::default() };
    host.handle(Op::SaveSettings { settings: saved.clone() }).await.unwrap();
    let check = |endpoint: Option<ModelEndpoint>| {
        let host = &host;
        async move {
            let Reply::ModelStatus { status } = host.handle(Op::CheckModel { endpoint }).await.unwrap() else {
                panic!("not a model status")
            };
            status
        }
    };
    let typed = |url: &str, model: Option<&str>| ModelEndpoint {
        base_url: Some(url.to_owned()),
        model: model.map(str::to_owned),
        ..ModelEndpoint::default()
    };

    // The saved endpoint: nothing there.
    let s = check(None).await;
    assert!(!s.reachable);
    assert_eq!(s.problem, Some(ModelProblem::NotRunning));
    assert!(s.message.as_deref().is_some_and(|m| m.contains("no model server is reachable")), "{s:?}");

    // The URL typed, not saved: it works, and the saved one is still the dead one.
    let s = check(Some(typed(&ollama.base_url(), None))).await;
    assert!(s.reachable && s.problem.is_none(), "{s:?}");
    assert_eq!((s.product.as_deref(), s.base_url.as_str()), (Some("Ollama"), ollama.base_url().as_str()));
    assert_eq!(s.models, vec!["qwen3:8b", "gemma3:1b"]);
    let Reply::Settings { settings, .. } = host.handle(Op::GetSettings).await.unwrap() else { panic!() };
    assert_eq!(settings.base_url.as_deref(), Some(dead.as_str()), "a test saves nothing");
    assert_eq!(check(None).await.problem, Some(ModelProblem::NotRunning));

    // Each problem by its name.
    let s = check(Some(typed(&ollama.base_url(), Some("qwen9:404b")))).await;
    assert_eq!(s.problem, Some(ModelProblem::NotPulled { model: "qwen9:404b".into() }), "{s:?}");
    let s = check(Some(typed(&empty.base_url(), None))).await;
    assert_eq!((s.reachable, s.problem), (true, Some(ModelProblem::NoModels)));
    // Ollama's root without /v1: something answers, not a model list.
    let s = check(Some(typed(&ollama.root_url(), None))).await;
    assert_eq!(s.problem, Some(ModelProblem::WrongAddress), "{s:?}");
    for bad in ["127.0.0.1:11434", "ftp://127.0.0.1/v1", "không phải địa chỉ"] {
        let s = check(Some(typed(bad, None))).await;
        assert_eq!((s.reachable, s.problem), (false, Some(ModelProblem::BadAddress)), "{bad}");
    }
    // A hosted provider with no key: named as such (no network here, or a refusal).
    let s = check(Some(ModelEndpoint { preset: Some("openrouter".into()), ..ModelEndpoint::default() })).await;
    assert_eq!(s.product.as_deref(), Some("OpenRouter"));
    assert!(matches!(s.problem, Some(ModelProblem::NotRunning | ModelProblem::KeyMissing)), "{s:?}");

    // The servers on this computer, side by side, each with its models.
    let urls = vec![ollama.base_url(), empty.base_url(), dead.clone(), lmstudio.base_url(), llamacpp.base_url()];
    let started = std::time::Instant::now();
    let found = halley::host::settings::find_local_at(&settings, urls).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(6), "{:?}", started.elapsed());
    let summary: Vec<(String, Option<String>, Vec<String>)> =
        found.iter().map(|f| (f.product.clone(), f.preset.clone(), f.status.models.clone())).collect();
    let port = |url: &str| url::Url::parse(url).unwrap().port().unwrap();
    assert_eq!(
        summary,
        vec![
            ("Ollama".into(), Some("ollama".into()), vec!["qwen3:8b".into(), "gemma3:1b".into()]),
            ("Ollama".into(), Some("ollama".into()), vec![]),
            (format!("127.0.0.1:{}", port(&lmstudio.base_url())), None, vec!["qwen/qwen3-8b".into()]),
            (format!("127.0.0.1:{}", port(&llamacpp.base_url())), None, vec!["qwen3-8b-q4_k_m.gguf".into()]),
        ]
    );
    // Ollama's models are described (size, tool calling), for the card's list.
    assert_eq!(found[0].status.details.iter().map(|d| d.tools).collect::<Vec<_>>(), vec![Some(true), Some(false)]);
    // Nothing was pulled nor chatted with: the servers were only asked for their lists.
    for (method, path) in ollama.paths() {
        assert!(!path.contains("pull") && !path.contains("chat"), "{method} {path}");
    }
    host.close().await;
}
