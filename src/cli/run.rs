//! `halley run "TASK"` and `halley chat`: the model does the work over the
//! tools, the answer streams. Confirmations are asked on the terminal (or
//! refused with `--confirm deny` / without a terminal); there is no `--yes`
//! here: the model chooses these calls, not the user.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use super::confirm::{ConfirmMode, confirmer};
use super::{EXIT_FAILURE, EXIT_USAGE, fail};
use crate::agent::run::{AgentEvent, RunLimits, RunOutcome, run_task};
use crate::agent::{ModelClient, ModelConfig, ModelFieldFallback, ModelFlags};
use crate::core::{BrowserSettings, Core};
use crate::error::{Error, Result};
use crate::paths::DataDir;
use crate::store::runs::RunStatus;
use crate::tools::Registry;

/// How to reach the model and how the run behaves.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentOpts {
    /// Model endpoint preset: ollama (default), openai, lmstudio, vllm, openrouter, gemini.
    #[arg(long)]
    pub preset: Option<String>,
    /// OpenAI-compatible base URL (else $OPENAI_BASE_URL, else the preset's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model id (else $HALLEY_MODEL, else the endpoint's first model).
    #[arg(long)]
    pub model: Option<String>,
    /// Ask on the terminal (refused without one), or deny every action that needs consent.
    #[arg(long, value_enum, default_value_t = ConfirmMode::Ask)]
    pub confirm: ConfirmMode,
    /// Model turns at most, per task.
    #[arg(long, default_value_t = 20)]
    pub max_steps: u32,
    /// Print events as JSON lines (token, tool_call, tool_result, final, error).
    #[arg(long)]
    pub json: bool,
    /// Go on with an earlier conversation (its id is in `halley runs show`).
    #[arg(long, value_name = "ID")]
    pub conversation: Option<String>,
}

/// `halley run` options.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// What to do, in your words (any language).
    pub task: String,
    #[command(flatten)]
    pub opts: AgentOpts,
}

/// A ready agent: the core, the model client and the model id.
struct Agent {
    core: Core,
    client: ModelClient,
    model: String,
    limits: RunLimits,
}

async fn open(opts: &AgentOpts, data_dir: Option<&Path>, browser: BrowserSettings) -> Result<Agent, (Error, u8)> {
    let flags = ModelFlags {
        preset: opts.preset.clone(),
        base_url: opts.base_url.clone(),
        model: opts.model.clone(),
        api_key: None,
        timeout: None,
    };
    let config = ModelConfig::resolve(flags, |k| std::env::var(k).ok()).map_err(|e| (e, EXIT_USAGE))?;
    let chosen = config.model.clone();
    let client = ModelClient::new(config).map_err(|e| (e, EXIT_FAILURE))?;
    // No model named: the endpoint's first one (a local server usually has one loaded).
    let model = match chosen {
        Some(m) => m,
        None => match client.list_models().await {
            Ok(models) if !models.is_empty() => models[0].clone(),
            Ok(_) => {
                return Err((
                    Error::invalid_arguments("the endpoint serves no model: pass --model or set HALLEY_MODEL"),
                    EXIT_USAGE,
                ));
            }
            Err(e) => return Err((e, EXIT_FAILURE)),
        },
    };
    let dir = DataDir::resolve(data_dir).map_err(|e| (e, EXIT_FAILURE))?;
    let registry = Registry::builtin().map_err(|e| (e, EXIT_FAILURE))?;
    let mut core = Core::open_full(dir, registry, browser).await.map_err(|e| (e, EXIT_FAILURE))?;
    core.set_confirmer(confirmer(opts.confirm, false));
    // browser_extract asks the run's model for the fields its rules miss.
    core.set_field_fallback(Some(Arc::new(ModelFieldFallback::new(client.clone(), model.clone()))));
    let limits = RunLimits { max_steps: opts.max_steps, ..RunLimits::default() };
    Ok(Agent { core, client, model, limits })
}

/// Print one event: JSON lines, or the answer on stdout and the tool calls on stderr.
#[allow(clippy::print_stdout, clippy::print_stderr)]
fn print_event(json: bool, ev: AgentEvent) {
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
}

impl Agent {
    async fn task(&self, task: &str, conversation: Option<&str>, json: bool) -> Result<RunOutcome> {
        run_task(&self.core, &self.client, &self.model, task, conversation, &self.limits, |ev| print_event(json, ev))
            .await
    }
}

pub async fn run(args: RunArgs, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let agent = match open(&args.opts, data_dir, browser).await {
        Ok(a) => a,
        Err((e, code)) => return fail(&e, code),
    };
    let outcome = agent.task(&args.task, args.opts.conversation.as_deref(), args.opts.json).await;
    agent.core.close().await;
    match outcome {
        Ok(o) if o.status == RunStatus::Completed => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(EXIT_FAILURE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

/// `halley chat`: one conversation, a task per line, until an empty line or
/// the end of input. It can be picked up later with `--conversation`.
#[allow(clippy::print_stderr)]
pub async fn chat(opts: AgentOpts, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let agent = match open(&opts, data_dir, browser).await {
        Ok(a) => a,
        Err((e, code)) => return fail(&e, code),
    };
    eprintln!("Halley ({}). Write a task and press Enter; an empty line or Ctrl-D ends.", agent.model);
    let mut conversation = opts.conversation.clone();
    let mut failed = false;
    loop {
        eprint!("> ");
        let line = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map(|n| (n, line))
        })
        .await;
        let task = match line {
            Ok(Ok((n, text))) if n > 0 && !text.trim().is_empty() => text.trim().to_owned(),
            _ => break,
        };
        match agent.task(&task, conversation.as_deref(), opts.json).await {
            Ok(o) => {
                failed = o.status != RunStatus::Completed;
                conversation = Some(o.conversation_id);
            }
            Err(e) => {
                let wire = e.to_wire();
                eprintln!("halley: error [{}]: {}", wire.code, wire.message);
                failed = true;
            }
        }
    }
    if let Some(c) = &conversation {
        eprintln!("conversation {c} (go on later with `halley chat --conversation {c}`)");
    }
    agent.core.close().await;
    if failed { ExitCode::from(EXIT_FAILURE) } else { ExitCode::SUCCESS }
}
