//! `halley run "TASK"` and `halley chat`: the model does the work over the
//! tools, the answer streams. Runs go through a [`Host`] as the panel's do
//! (one path for the model, its key and the run), with the CLI's flags as
//! the model overrides. Confirmations are asked on the terminal (or
//! refused with `--confirm deny` / without a terminal); there is no `--yes`
//! here: the model chooses these calls, not the user.

use std::future::Future;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError};

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, Stop, close_for};
use super::{EXIT_FAILURE, EXIT_USAGE, exit_code, fail};
use crate::agent::run::{AgentEvent, RunLimits};
use crate::agent::{ModelClient, ModelFlags};
use crate::context::FrontEnd;
use crate::core::BrowserSettings;
use crate::error::{Error, Result};
use crate::gate::Confirmer;
use crate::host::{Host, RunModel, RunRequest, settings};
use crate::paths::DataDir;
use crate::protocol::{Event, RunInfo};
use crate::store::runs::RunStatus;

/// How to reach the model and how the run behaves.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentOpts {
    /// Model endpoint preset: ollama (default), openai, lmstudio, llamacpp, vllm, openrouter, gemini.
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

impl AgentOpts {
    /// The model overrides the flags name (the rest comes from the saved
    /// settings and the environment).
    fn model_flags(&self) -> ModelFlags {
        ModelFlags {
            preset: self.preset.clone(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            ..ModelFlags::default()
        }
    }

    fn limits(&self) -> RunLimits {
        let images = match self.images {
            Images::Auto => None,
            Images::Yes => Some(true),
            Images::No => Some(false),
        };
        RunLimits { max_steps: self.max_steps, context_tokens: self.context_tokens, images, ..RunLimits::default() }
    }
}

/// A host ready for the CLI's runs: the model they use (the flags' or
/// the saved settings' or, with none named, the endpoint's first, resolved
/// once) and who answers their questions.
struct Agent {
    host: Arc<Host>,
    /// The client every run uses (its key read once).
    client: ModelClient,
    model: String,
    limits: RunLimits,
    confirmer: Arc<dyn Confirmer>,
}

/// Check the flags and the model before anything is written, then open
/// the host (exit code 2 for what the flags got wrong).
async fn open(opts: &AgentOpts, data_dir: Option<&Path>, browser: BrowserSettings) -> Result<Agent, (Error, u8)> {
    if opts.context_tokens < 1000 {
        return Err((Error::invalid_arguments("--context-tokens must be at least 1000"), EXIT_USAGE));
    }
    let dir = DataDir::resolve(data_dir).map_err(|e| (e, EXIT_FAILURE))?;
    let saved = settings::read(&dir).await.map_err(|e| (e, EXIT_FAILURE))?;
    let (client, model) = settings::agent_model(&saved, Some(opts.model_flags())).await.map_err(|e| {
        let code = exit_code(&e);
        (e, code)
    })?;
    let host = Host::open(dir, browser).await.map_err(|e| (e, EXIT_FAILURE))?;
    Ok(Agent { host, client, model, limits: opts.limits(), confirmer: confirmer(opts.confirm, false) })
}

impl Agent {
    /// Start a run (a task, or `resume` one cut short) with the CLI's
    /// model, limits and confirmer; its ids and its events from now on.
    async fn start(&self, request: RunRequest) -> Result<(RunInfo, broadcast::Receiver<Event>)> {
        let request = RunRequest {
            confirmer: Some(Arc::clone(&self.confirmer)),
            model: RunModel::Ready(Box::new(self.client.clone()), self.model.clone()),
            limits: self.limits.clone(),
            ..request
        };
        // Subscribed before the start, so no event of the run is missed.
        let events = self.host.subscribe();
        let info = self.host.start_run(request).await?;
        Ok((info, events))
    }
}

/// Print the events of run `run_id` until it ends; how it ended.
#[allow(clippy::print_stderr)]
async fn follow(events: &mut broadcast::Receiver<Event>, run_id: &str, json: bool) -> RunStatus {
    loop {
        match events.recv().await {
            Ok(Event::Agent { run_id: id, event }) if id == run_id => print_event(json, event),
            Ok(Event::RunEnded { run_id: id, status, .. }) if id == run_id => return status,
            Ok(_) => {}
            Err(RecvError::Lagged(n)) => eprintln!("halley: {n} events of the run were not shown (output too slow)"),
            Err(RecvError::Closed) => return RunStatus::Failed,
        }
    }
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

/// Follow `work`, a run that `cancel` stops (through the host). The first
/// signal cancels it: after Ctrl-C it ends `cancelled` in its own time (a
/// second signal drops it), after SIGTERM or SIGHUP it gets
/// [`CANCEL_GRACE`]. Returns the run's outcome unless it was dropped, and
/// the signal, if one came.
#[allow(clippy::print_stderr)]
async fn until_stopped<F: Future>(signals: &mut Signals, cancel: impl FnOnce(), work: F) -> Ended<F::Output> {
    tokio::pin!(work);
    let stop = match signals.during(&mut work).await {
        Ok(out) => return Ended::Done(out),
        Err(stop) => stop,
    };
    cancel();
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

/// How a run followed by [`until_stopped`] ended.
enum Ended<T> {
    /// On its own.
    Done(T),
    /// Cancelled by the signal, and it ended (`cancelled`, history kept).
    Cancelled(T, Stop),
    /// Dropped where it stood after the signal (it stays `running` in the
    /// store: `halley run --resume` goes on with it).
    Dropped(Stop),
}

/// Start `request` and follow it to its end (or a signal).
async fn task(agent: &Agent, signals: &mut Signals, request: RunRequest, json: bool) -> Started {
    let (info, mut events) = match signals.during(agent.start(request)).await {
        Ok(Ok(started)) => started,
        Ok(Err(e)) => return Started::Refused(e),
        Err(stop) => return Started::Stopped(stop),
    };
    let cancel = || {
        let _ = agent.host.stop(Some(&info.run_id));
    };
    match until_stopped(signals, cancel, follow(&mut events, &info.run_id, json)).await {
        Ended::Done(status) => Started::Ended(status, info.conversation_id),
        // Ctrl-C cancelled this run only: a chat goes on.
        Ended::Cancelled(status, Stop::Interrupt) => Started::Cancelled(status, info.conversation_id),
        Ended::Cancelled(_, stop) | Ended::Dropped(stop) => Started::Stopped(stop),
    }
}

/// What became of a run [`task`] started.
enum Started {
    /// It ended on its own: its status and conversation.
    Ended(RunStatus, String),
    /// Ctrl-C cancelled it and it ended.
    Cancelled(RunStatus, String),
    /// The host refused it.
    Refused(Error),
    /// A signal ends the process.
    Stopped(Stop),
}

/// Exit code of a run: 0 completed, 130 cancelled, 1 otherwise.
fn exit_of(status: RunStatus) -> ExitCode {
    match status {
        RunStatus::Completed => ExitCode::SUCCESS,
        RunStatus::Cancelled => ExitCode::from(EXIT_CANCELLED),
        _ => ExitCode::from(EXIT_FAILURE),
    }
}

/// Exit code of a cancelled run (as for a shell command stopped by Ctrl-C).
const EXIT_CANCELLED: u8 = 130;

pub async fn run(args: RunArgs, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let mut signals = Signals::install();
    let agent = match signals.during(open(&args.opts, data_dir, browser)).await {
        Ok(Ok(a)) => a,
        Ok(Err((e, code))) => return fail(&e, code),
        Err(stop) => return stop.exit_code(),
    };
    let request = match (args.resume, args.task) {
        (Some(run_id), _) => RunRequest { resume: Some(run_id), ..RunRequest::new(FrontEnd::Cli, "") },
        (None, Some(task)) => {
            RunRequest { conversation_id: args.opts.conversation.clone(), ..RunRequest::new(FrontEnd::Cli, task) }
        }
        (None, None) => {
            agent.host.close().await;
            return fail(&Error::invalid_arguments("give a task, or --resume RUN_ID"), EXIT_USAGE);
        }
    };
    match task(&agent, &mut signals, request, args.opts.json).await {
        Started::Ended(status, _) => {
            agent.host.close().await;
            exit_of(status)
        }
        Started::Refused(e) => {
            agent.host.close().await;
            fail(&e, EXIT_FAILURE)
        }
        Started::Cancelled(..) => close_for(agent.host.core(), Stop::Interrupt).await,
        Started::Stopped(stop) => close_for(agent.host.core(), stop).await,
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
        let text = match signals.during(line).await {
            Ok(Ok(Ok((n, text)))) if n > 0 && !text.trim().is_empty() => text.trim().to_owned(),
            Ok(_) => break,
            Err(stop) => return close_for(agent.host.core(), stop).await,
        };
        let request = RunRequest { conversation_id: conversation.clone(), ..RunRequest::new(FrontEnd::Cli, text) };
        match task(&agent, &mut signals, request, opts.json).await {
            Started::Ended(status, id) | Started::Cancelled(status, id) => {
                failed = status != RunStatus::Completed;
                conversation = Some(id);
            }
            Started::Refused(e) => {
                let wire = e.to_wire();
                eprintln!("halley: error [{}]: {}", wire.code, wire.message);
                failed = true;
            }
            Started::Stopped(stop) => return close_for(agent.host.core(), stop).await,
        }
    }
    if let Some(c) = &conversation {
        eprintln!("conversation {c} (go on later with `halley chat --conversation {c}`)");
    }
    agent.host.close().await;
    if failed { ExitCode::from(EXIT_FAILURE) } else { ExitCode::SUCCESS }
}
