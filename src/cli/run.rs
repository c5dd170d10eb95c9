//! `halley run "TASK"` and `halley chat`: the model does the work over the
//! tools, the answer streams. Confirmations are asked on the terminal (or
//! refused with `--confirm deny` / without a terminal); there is no `--yes`
//! here: the model chooses these calls, not the user.

use std::future::Future;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, Stop, close_for};
use super::{EXIT_FAILURE, EXIT_USAGE, fail};
use crate::agent::run::{AgentEvent, RunLimits, RunOutcome, resume_run, run_task_with};
use crate::agent::{Cancel, ModelClient, ModelFieldFallback, ModelFlags};
use crate::context::{CallContext, FrontEnd};
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
    /// Prompt tokens at most per model call: older tool outputs are elided,
    /// then the oldest turns left out (set it to your model's context size).
    #[arg(long, value_name = "N", env = "HALLEY_CONTEXT_TOKENS", default_value_t = 24_000)]
    pub context_tokens: usize,
    /// Send screenshots to the model: auto (by the model's name), yes, no.
    #[arg(long, value_enum, default_value_t = Images::Auto)]
    pub images: Images,
}

/// `--images`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Images {
    Auto,
    Yes,
    No,
}

/// `halley run` options.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// What to do, in your words (any language).
    #[arg(required_unless_present = "resume")]
    pub task: Option<String>,
    /// Go on with a run that was cut short (the process ended while it ran
    /// or waited for you): `halley runs list` shows it as running or paused.
    #[arg(long, value_name = "RUN_ID", conflicts_with_all = ["task", "conversation"])]
    pub resume: Option<String>,
    #[command(flatten)]
    pub opts: AgentOpts,
}

/// A ready agent: the core, the model client and the model id.
struct Agent {
    core: Core,
    client: ModelClient,
    model: String,
    limits: RunLimits,
    /// Who answers (the terminal or nobody) and the run's model helper.
    cx: CallContext,
}

async fn open(opts: &AgentOpts, data_dir: Option<&Path>, browser: BrowserSettings) -> Result<Agent, (Error, u8)> {
    let flags = ModelFlags {
        preset: opts.preset.clone(),
        base_url: opts.base_url.clone(),
        model: opts.model.clone(),
        api_key: None,
        timeout: None,
    };
    let config = super::model_keys::resolve_model(flags).await.map_err(|e| (e, EXIT_USAGE))?;
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
    let core = Core::open_full(dir, registry, browser).await.map_err(|e| (e, EXIT_FAILURE))?;
    // browser_extract asks the run's model for the fields its rules miss.
    let cx = CallContext::new(FrontEnd::Cli)
        .with_confirmer(confirmer(opts.confirm, false))
        .with_fallback(Some(Arc::new(ModelFieldFallback::new(client.clone(), model.clone()))));
    let images = match opts.images {
        Images::Auto => None,
        Images::Yes => Some(true),
        Images::No => Some(false),
    };
    if opts.context_tokens < 1000 {
        return Err((Error::invalid_arguments("--context-tokens must be at least 1000"), EXIT_USAGE));
    }
    let limits =
        RunLimits { max_steps: opts.max_steps, context_tokens: opts.context_tokens, images, ..RunLimits::default() };
    Ok(Agent { core, client, model, limits, cx })
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
            let status = if result.is_ok() { "ok" } else { "error" };
            let err = result.error.as_ref().map_or("", |e| e.message.as_str());
            eprintln!("← {name}: {status} {err}");
        }
        AgentEvent::Final { .. } => println!(),
        AgentEvent::Error { message, .. } => eprintln!("halley: {message}"),
        // The terminal prompt shows the question itself.
        AgentEvent::ConfirmationRequest { .. } | AgentEvent::Resumed => {}
        AgentEvent::Challenge { request } => eprintln!(
            "Halley waits for you: solve the {} in the browser ({}), then answer here.",
            request.challenge_type, request.url
        ),
    }
}

/// After SIGTERM or SIGHUP, how long a cancelled run may take to end
/// `cancelled` (its history kept) before it is dropped where it stands.
const CANCEL_GRACE: Duration = Duration::from_secs(3);

/// Drive `work`, a run that `cancel` stops. The first signal cancels it:
/// after Ctrl-C it ends `cancelled` in its own time (a second signal drops
/// it), after SIGTERM or SIGHUP it gets [`CANCEL_GRACE`]. Returns the
/// run's outcome unless it was dropped, and the signal, if one came.
#[allow(clippy::print_stderr)]
async fn until_stopped<F: Future>(signals: &mut Signals, cancel: &Cancel, work: F) -> Ended<F::Output> {
    tokio::pin!(work);
    let stop = match signals.during(&mut work).await {
        Ok(out) => return Ended::Done(out),
        Err(stop) => stop,
    };
    cancel.cancel();
    let grace = async {
        if stop == Stop::Interrupt {
            eprintln!("\nhalley: cancelling the run (Ctrl-C again to quit now)");
            std::future::pending::<()>().await;
        } else {
            eprintln!("\nhalley: {}: cancelling the run", stop.name());
            tokio::time::sleep(CANCEL_GRACE).await;
        }
    };
    tokio::select! {
        out = &mut work => Ended::Cancelled(out, stop),
        _ = signals.recv() => Ended::Dropped(stop),
        () = grace => Ended::Dropped(stop),
    }
}

/// How a run driven by [`until_stopped`] ended.
enum Ended<T> {
    /// On its own.
    Done(T),
    /// Cancelled by the signal, and it ended (`cancelled`, history kept).
    Cancelled(T, Stop),
    /// Dropped where it stood after the signal (it stays `running` in the
    /// store: `halley run --resume` goes on with it).
    Dropped(Stop),
}

/// Exit code of a run: 0 completed, 130 cancelled, 1 otherwise.
fn exit_of(outcome: Result<RunOutcome>) -> ExitCode {
    match outcome {
        Ok(o) if o.status == RunStatus::Completed => ExitCode::SUCCESS,
        Ok(o) if o.status == RunStatus::Cancelled => ExitCode::from(EXIT_CANCELLED),
        Ok(_) => ExitCode::from(EXIT_FAILURE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

/// Exit code of a cancelled run (as for a shell command stopped by Ctrl-C).
const EXIT_CANCELLED: u8 = 130;

impl Agent {
    async fn task(&self, task: &str, conversation: Option<&str>, json: bool, cancel: &Cancel) -> Result<RunOutcome> {
        let on_event = |ev| print_event(json, ev);
        let cx = self.cx.clone().with_cancel(cancel.clone());
        run_task_with(&self.core, &self.client, &self.model, task, conversation, &self.limits, &cx, on_event).await
    }
}

pub async fn run(args: RunArgs, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let mut signals = Signals::install();
    let agent = match signals.during(open(&args.opts, data_dir, browser)).await {
        Ok(Ok(a)) => a,
        Ok(Err((e, code))) => return fail(&e, code),
        Err(stop) => return stop.exit_code(),
    };
    let cancel = Cancel::new();
    let json = args.opts.json;
    let work = async {
        match (&args.resume, &args.task) {
            (Some(run_id), _) => {
                let on_event = |ev| print_event(json, ev);
                let cx = agent.cx.clone().with_cancel(cancel.clone());
                resume_run(&agent.core, &agent.client, &agent.model, run_id, &agent.limits, &cx, on_event).await
            }
            (None, Some(task)) => agent.task(task, args.opts.conversation.as_deref(), json, &cancel).await,
            (None, None) => Err(Error::invalid_arguments("give a task, or --resume RUN_ID")),
        }
    };
    match until_stopped(&mut signals, &cancel, work).await {
        Ended::Done(outcome) => {
            agent.core.close().await;
            exit_of(outcome)
        }
        Ended::Cancelled(_, stop) | Ended::Dropped(stop) => close_for(&agent.core, stop).await,
    }
}

/// `halley chat`: one conversation, a task per line, until an empty line or
/// the end of input. It can be picked up later with `--conversation`.
/// Ctrl-C during a task cancels that task; at the prompt (or a second one)
/// it ends the chat, as SIGTERM and SIGHUP do at any time.
#[allow(clippy::print_stderr)]
pub async fn chat(opts: AgentOpts, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let mut signals = Signals::install();
    let agent = match signals.during(open(&opts, data_dir, browser)).await {
        Ok(Ok(a)) => a,
        Ok(Err((e, code))) => return fail(&e, code),
        Err(stop) => return stop.exit_code(),
    };
    eprintln!("Halley ({}). Write a task and press Enter; an empty line or Ctrl-D ends.", agent.model);
    let mut conversation = opts.conversation.clone();
    let mut failed = false;
    loop {
        eprint!("> ");
        let line = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map(|n| (n, line))
        });
        let task = match signals.during(line).await {
            Ok(Ok(Ok((n, text)))) if n > 0 && !text.trim().is_empty() => text.trim().to_owned(),
            Ok(_) => break,
            Err(stop) => return close_for(&agent.core, stop).await,
        };
        let cancel = Cancel::new();
        let work = agent.task(&task, conversation.as_deref(), opts.json, &cancel);
        let outcome = match until_stopped(&mut signals, &cancel, work).await {
            // Ctrl-C cancelled this task only: the conversation goes on.
            Ended::Done(outcome) | Ended::Cancelled(outcome, Stop::Interrupt) => outcome,
            Ended::Cancelled(_, stop) | Ended::Dropped(stop) => return close_for(&agent.core, stop).await,
        };
        match outcome {
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
