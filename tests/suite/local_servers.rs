//! Halley against doubles of llama.cpp server, vLLM and LM Studio
//! (tests/common/local_servers.rs): the context each gives the model is
//! read where its own API says it, and a run keeps its prompt within it;
//! LM Studio cutting a prompt too long for it is a model_error naming the
//! context, never an answer passed on.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::common::Halley;
use crate::common::local_servers::{ANSWERED, CUT, Kind, LocalServer};
use halley::agent::client::ModelClient;
use halley::agent::provider::{ModelConfig, Preset};

const MODEL: &str = "qwen2.5-7b-instruct";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_servers_context_is_read_where_its_api_says_it() {
    for (kind, preset) in [
        (Kind::LlamaCpp, None),
        (Kind::Vllm, Some(Preset::Vllm)),
        (Kind::Vllm, None),
        (Kind::LmStudio, Some(Preset::LmStudio)),
        (Kind::LmStudio, None),
    ] {
        let server = LocalServer::start(kind, MODEL, 8192);
        let mut config = ModelConfig::for_preset(preset.unwrap_or(Preset::Vllm));
        config.preset = preset;
        config.base_url = server.base_url();
        config.model = Some(MODEL.into());
        let client = ModelClient::new(config).unwrap();
        let budget = client.prompt_budget(MODEL).await;
        assert_eq!(
            budget,
            Some(halley::agent::ollama::prompt_budget(8192)),
            "{kind:?} {preset:?}: {:?}",
            server.paths()
        );
        // Asked once per model.
        let asked = server.paths().len();
        assert_eq!(client.prompt_budget(MODEL).await, budget);
        assert_eq!(server.paths().len(), asked, "{kind:?}: {:?}", server.paths());
        // A model the server does not describe: the run's own budget.
        if kind != Kind::LlamaCpp {
            assert_eq!(client.prompt_budget("other-model").await, None, "{kind:?}");
        }
    }
}

fn long_task() -> String {
    format!("Đọc ghi chú của tôi rồi trả lời câu hỏi ở cuối. Ghi chú: {} Câu hỏi: tóm tắt?", "laptop ".repeat(10_000))
}

/// A long task on LM Studio: when the server says the model's context
/// (4,096 loaded), the run fits its prompt to it and the answer comes
/// from a prompt the server read whole; when it does not say (a model its
/// API does not describe), the prompt goes whole, the server cuts it
/// without a word, and the run stops with a model_error naming what was
/// read, never passing the answer on.
#[test]
fn lm_studio_cutting_the_prompt_is_a_model_error_and_its_context_is_kept_when_known() {
    let server = LocalServer::start(Kind::LmStudio, MODEL, 4096);
    let h = Halley::new();
    let base = server.base_url();
    let task = long_task();
    let run = |model: &str| {
        let args =
            ["--headless", "run", &task, "--json", "--preset", "lmstudio", "--base-url", &base, "--model", model];
        h.run_piped(&args, "", &["HALLEY_DATA_DIR"], &[])
    };

    let out = run(MODEL);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(ANSWERED) && !out.stdout.contains(CUT), "{}", out.stdout);
    assert!(server.paths().iter().any(|p| p.starts_with("GET /api/v0/models/")), "{:?}", server.paths());

    let out = run("a-model-it-does-not-describe");
    assert_ne!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let evs = out.events();
    let of = |kind: &str| evs.iter().filter(|e| e["type"] == kind).cloned().collect::<Vec<Value>>();
    assert!(of("final").is_empty(), "the cut prompt's answer is not the run's: {evs:?}");
    assert!(!out.stdout.contains(CUT), "{}", out.stdout);
    let errors = of("error");
    assert_eq!(errors.len(), 1, "{evs:?}");
    assert_eq!(errors[0]["code"], "model_error");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("read only 4096") && message.contains("not reported") && !message.contains("  "),
        "{message}"
    );
}
