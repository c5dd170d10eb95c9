//! `halley models`: the model ids the configured endpoint serves (Ollama on
//! this machine unless told otherwise), or how to start a model server.

use std::process::ExitCode;

use serde_json::json;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::agent::{ModelClient, ModelConfig, ModelFlags};

/// `halley models` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelsArgs {
    /// Model endpoint preset: ollama (default), lmstudio, vllm, openai, openrouter, gemini.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// OpenAI-compatible base URL (else $OPENAI_BASE_URL, else the preset's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model id to look for in the list (else $HALLEY_MODEL).
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// Print JSON: {"base_url", "preset", "models", "model", "model_listed"}.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: ModelsArgs) -> ExitCode {
    let flags =
        ModelFlags { preset: args.preset, base_url: args.base_url, model: args.model, api_key: None, timeout: None };
    let config = match ModelConfig::resolve(flags, |k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_USAGE),
    };
    let client = match ModelClient::new(config.clone()) {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let models = match client.list_models().await {
        Ok(m) => m,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let listed = config.model.as_ref().map(|m| models.contains(m));
    if args.json {
        let v = json!({
            "base_url": config.base_url,
            "preset": config.preset.map(|p| p.name()),
            "models": models,
            "model": config.model,
            "model_listed": listed,
        });
        out(&v.to_string());
        return ExitCode::SUCCESS;
    }
    if models.is_empty() {
        let advice = match config.preset {
            Some(crate::agent::Preset::Ollama) => " (pull one with `ollama pull qwen2.5:7b`)",
            _ => "",
        };
        out(&format!("no models served at {}{advice}", config.base_url));
    }
    for id in &models {
        let mark = if config.model.as_ref() == Some(id) { "  (selected)" } else { "" };
        out(&format!("{id}{mark}"));
    }
    if let (Some(model), Some(false)) = (&config.model, listed) {
        warn(&format!("the selected model `{model}` is not in this list"));
    }
    ExitCode::SUCCESS
}

#[allow(clippy::print_stderr)]
fn warn(line: &str) {
    eprintln!("halley: warning: {line}");
}
