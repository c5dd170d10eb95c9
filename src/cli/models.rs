//! `halley models`: the model ids the configured endpoint serves (the
//! flags', else the saved settings', else Ollama on this machine; Ollama's
//! with their size, tool calling and context), the context a run gives the
//! model in use and warnings about it, or how to start a model server; and `halley models key ...` for the API keys in
//! the OS keyring. The endpoint and its key are resolved as for a run
//! (`crate::host::settings`).

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

use super::model_keys::KeyCommand;
use super::{EXIT_FAILURE, exit_code, fail, out, warn};
use crate::agent::{ModelClient, ModelFlags};
use crate::host::models::describe;
use crate::host::settings;
use crate::paths::DataDir;
use crate::protocol::{ModelDetails, ModelInUse, ModelStatus, ModelWarning, ToolCalling};

/// `halley models` options.
#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ModelsArgs {
    #[command(subcommand)]
    pub command: Option<ModelsCommand>,
    /// Model endpoint preset: ollama (default), lmstudio, llamacpp, vllm, openai, openrouter, gemini.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// OpenAI-compatible base URL (else $OPENAI_BASE_URL, else the preset's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model id to look for in the list (else $HALLEY_MODEL).
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// Print JSON: {"base_url", "preset", "models", "model", "model_listed",
    /// "server", "details", "in_use", "warnings"}.
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
    let status = describe(&client, models, config.model.clone()).await;
    if args.json {
        let v = json!({
            "base_url": config.base_url,
            "preset": config.preset.map(|p| p.name()),
            "models": status.models,
            "model": config.model,
            "model_listed": listed,
            "server": status.server,
            "details": status.details,
            "in_use": status.in_use,
            "warnings": status.warnings.iter().map(ModelWarning::text).collect::<Vec<_>>(),
        });
        out(&v.to_string());
        return ExitCode::SUCCESS;
    }
    if status.models.is_empty() {
        let advice = match config.preset {
            Some(crate::agent::Preset::Ollama) => " (pull one with `ollama pull qwen3:8b`)",
            _ => "",
        };
        out(&format!("no models served at {}{advice}", config.base_url));
    }
    let selected = |id: &str| if status.model.as_deref() == Some(id) { "  (selected)" } else { "" };
    if status.details.is_empty() {
        for id in &status.models {
            out(&format!("{id}{}", selected(id)));
        }
    } else {
        for line in table(&status.details) {
            out(&line);
        }
    }
    if let Some(u) = &status.in_use {
        out(&in_use_line(&status, u));
    }
    for w in &status.warnings {
        warn(&w.text());
    }
    ExitCode::SUCCESS
}

/// Ollama's models as a table: name, size, parameters, tools, context.
fn table(details: &[ModelDetails]) -> Vec<String> {
    let rows: Vec<[String; 5]> = details
        .iter()
        .map(|d| {
            [
                d.name.clone(),
                d.size.map_or_else(|| "?".to_owned(), size),
                d.parameter_size.clone().unwrap_or_else(|| "?".to_owned()),
                match d.tools {
                    Some(true) => "yes".to_owned(),
                    Some(false) => "no".to_owned(),
                    None => "?".to_owned(),
                },
                d.context_length.map_or_else(|| "?".to_owned(), |c| c.to_string()),
            ]
        })
        .collect();
    let head = ["NAME", "SIZE", "PARAMS", "TOOLS", "CONTEXT"].map(str::to_owned);
    let mut widths = [0usize; 5];
    for row in std::iter::once(&head).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    std::iter::once(&head)
        .chain(&rows)
        .map(|row| {
            let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
            cells.join("  ").trim_end().to_owned()
        })
        .collect()
}

/// Bytes as Ollama's list shows them: `5.2 GB`, `815 MB`.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64;
    let mut unit = "B";
    for u in UNITS {
        if value < 1000.0 {
            break;
        }
        value /= 1000.0;
        unit = u;
    }
    if unit == "B" || value >= 100.0 { format!("{value:.0} {unit}") } else { format!("{value:.1} {unit}") }
}

/// `in use: qwen3:8b at http://…/v1 (Ollama), context 32768 tokens …`.
fn in_use_line(status: &ModelStatus, u: &ModelInUse) -> String {
    let server = if status.server.as_deref() == Some("ollama") { " (Ollama)" } else { "" };
    let context = match (u.num_ctx, u.context_length) {
        (Some(n), Some(own)) => format!("context up to {n} tokens (num_ctx; the model's own: {own})"),
        (Some(n), None) => format!("context up to {n} tokens (num_ctx)"),
        _ => "context: the server's".to_owned(),
    };
    let calling = match u.tool_calling {
        ToolCalling::Native => "tool calls: native",
        ToolCalling::Emulated => "tool calls: emulated (as text)",
    };
    format!(
        "in use: {} at {}{server}; {context}; prompt budget {} tokens; {calling}",
        u.model, status.base_url, u.prompt_budget
    )
}
