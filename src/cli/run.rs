//! `halley run "TASK"`: one task, run by the model over the tools, with the
//! answer streamed. Confirmations are asked on the terminal (or refused
//! with `--confirm deny` / without a terminal); there is no `--yes` here:
//! the model chooses these calls, not the user.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use super::confirm::{ConfirmMode, confirmer};
use super::{EXIT_FAILURE, fail};
use crate::agent::run::{AgentEvent, RunLimits, run_task};
use crate::agent::{ModelClient, ModelConfig, ModelFlags};
use crate::core::{BrowserSettings, Core};
use crate::paths::DataDir;
use crate::store::runs::RunStatus;
use crate::tools::Registry;

/// `halley run` options.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// What to do, in your words (any language).
    pub task: String,
    /// Print events as JSON lines (token, tool_call, tool_result, final, error).
    #[arg(long)]
    pub json: bool,
    /// Model endpoint preset: ollama (default), openai, lmstudio, vllm, openrouter, gemini.
    #[arg(long)]
    pub preset: Option<String>,
    /// OpenAI-compatible base URL (else $OPENAI_BASE_URL, else the preset's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model id (else $HALLEY_MODEL).
    #[arg(long)]
    pub model: Option<String>,
    /// Ask on the terminal (refused without one), or deny every action that needs consent.
    #[arg(long, value_enum, default_value_t = ConfirmMode::Ask)]
    pub confirm: ConfirmMode,
    /// Model turns at most.
    #[arg(long, default_value_t = 20)]
    pub max_steps: u32,
}

#[allow(clippy::print_stdout, clippy::print_stderr)]
pub async fn run(args: RunArgs, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let flags = ModelFlags {
        preset: args.preset.clone(),
        base_url: args.base_url.clone(),
        model: args.model.clone(),
        api_key: None,
        timeout: None,
    };
    let config = match ModelConfig::resolve(flags, |k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => return fail(&e, super::EXIT_USAGE),
    };
    let chosen = config.model.clone();
    let client = match ModelClient::new(config) {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    // No model named: the endpoint's first one (a local server usually has one loaded).
    let model = match chosen {
        Some(m) => m,
        None => match client.list_models().await {
            Ok(models) if !models.is_empty() => models[0].clone(),
            Ok(_) => {
                return fail(
                    &crate::error::Error::invalid_arguments(
                        "the endpoint serves no model: pass --model or set HALLEY_MODEL",
                    ),
                    super::EXIT_USAGE,
                );
            }
            Err(e) => return fail(&e, EXIT_FAILURE),
        },
    };
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let registry = match Registry::builtin() {
        Ok(r) => r,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let mut core = match Core::open_full(dir, registry, browser).await {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    core.set_confirmer(confirmer(args.confirm, false));
    let limits = RunLimits { max_steps: args.max_steps, ..RunLimits::default() };
    let json = args.json;
    let outcome = run_task(&core, &client, &model, &args.task, &limits, |ev| {
        if json {
            if let Ok(line) = serde_json::to_string(&ev) {
                println!("{line}");
            }
            return;
        }
        match ev {
            AgentEvent::Token { text } => {
                print!("{text}");
                let _ = std::io::stdout().flush();
            }
            AgentEvent::ToolCall { name, arguments, .. } => eprintln!("→ {name} {arguments}"),
            AgentEvent::ToolResult { name, result, .. } => {
                let status = result.get("status").and_then(|s| s.as_str()).unwrap_or("?");
                let err = result.pointer("/error/message").and_then(|m| m.as_str()).unwrap_or("");
                eprintln!("← {name}: {status} {err}");
            }
            AgentEvent::Final { .. } => println!(),
            AgentEvent::Error { message, .. } => eprintln!("halley: {message}"),
        }
    })
    .await;
    core.close().await;
    match outcome {
        Ok(o) if o.status == RunStatus::Completed => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(EXIT_FAILURE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}
