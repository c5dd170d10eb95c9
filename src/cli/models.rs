//! `halley models`: the model ids the configured endpoint serves (the
//! flags', else the saved settings', else Ollama on this machine), or how
//! to start a model server; and `halley models key ...` for the API keys in
//! the OS keyring. The endpoint and its key are resolved as for a run
//! (`crate::host::settings`).

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

use super::model_keys::KeyCommand;
use super::{EXIT_FAILURE, exit_code, fail, out, warn};
use crate::agent::{ModelClient, ModelFlags};
use crate::host::settings;
use crate::paths::DataDir;

/// `halley models` options.
#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ModelsArgs {
    #[command(subcommand)]
    pub command: Option<ModelsCommand>,
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

#[derive(Debug, Clone, clap::Subcommand)]
pub enum ModelsCommand {
    /// API keys kept in the OS keyring (Secret Service, Keychain, Credential
    /// Manager); used when no flag or environment variable gives one.
    #[command(subcommand)]
    Key(KeyCommand),
}

pub async fn run(args: ModelsArgs, data_dir: Option<&Path>) -> ExitCode {
    let saved = match DataDir::resolve(data_dir) {
        Ok(dir) => settings::read(&dir).await,
        Err(e) => Err(e),
    };
    let saved = match saved {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if let Some(ModelsCommand::Key(cmd)) = args.command {
        return super::model_keys::run(cmd, &saved).await;
    }
    let flags = ModelFlags { preset: args.preset, base_url: args.base_url, model: args.model, ..ModelFlags::default() };
    let config = match settings::model_config(&settings::with_overrides(&saved, Some(&flags))).await {
        Ok(c) => c,
        Err(e) => return fail(&e, exit_code(&e)),
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
