//! Runs: many at once, each on its own task with its own conversation,
//! context and cancel switch. The panel starts one with `SendMessage`, a
//! watch or another front end (the CLI's `run` and `chat`) with
//! [`Host::start_run`], which also resumes a run cut short; `Stop` cancels
//! one run (or the panel's), the tray's pause cancels them all.

use std::collections::HashMap;
use std::sync::Arc;

use crate::agent::run::{AgentEvent, BegunRun, RunLimits, begin_run, drive_run, resumable, resume_run};
use crate::agent::{ModelClient, ModelFieldFallback, ModelFlags};
use crate::context::{CallContext, Cancel, FrontEnd};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::Confirmer;
use crate::protocol::{Event, Reply, RunInfo};
use crate::store::runs::{RunStatus, StopReason};

use super::Host;

/// Which model a run uses.
#[derive(Debug, Clone, Default)]
pub enum RunModel {
    /// The saved settings.
    #[default]
    Saved,
    /// The endpoint a front end names (the CLI's flags) over the saved
    /// settings ([`settings::with_overrides`]).
    Flags(ModelFlags),
    /// A client and model the front end has already resolved (its key read
    /// once, not again for every run).
    Ready(Box<ModelClient>, String),
}

/// What a front end asks for when it starts a run.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub text: String,
    /// Go on with this conversation (else a new one).
    pub conversation_id: Option<String>,
    /// Instead of a new task: go on with this run, cut short earlier (the
    /// process ended while it ran or waited); `text` and `conversation_id`
    /// are then the run's own and not read.
    pub resume: Option<String>,
    pub front_end: FrontEnd,
    /// Who answers the run's questions: the front end's own channel, or
    /// (none) the panel's, which also notifies.
    pub confirmer: Option<Arc<dyn Confirmer>>,
    /// Acting outside these origins asks first (empty: no limit).
    pub allowed_origins: Vec<String>,
    /// The model the run uses.
    pub model: RunModel,
    pub limits: RunLimits,
    /// Its client-tool calls go to this client key (a Letta agent's
    /// requester) instead of the clients that registered the tools.
    pub client: Option<String>,
    /// Open tabs the task is about, read before the first turn.
    pub tabs: Vec<String>,
}

/// The most tabs one task may be about ("Compare these tabs").
const MAX_TABS: usize = 8;

impl RunRequest {
    /// A run of `front_end` on `text`, in a new conversation, asking the
    /// panel, on the saved model settings.
    pub fn new(front_end: FrontEnd, text: impl Into<String>) -> RunRequest {
        RunRequest {
            text: text.into(),
            conversation_id: None,
            resume: None,
            front_end,
            confirmer: None,
            allowed_origins: Vec::new(),
            model: RunModel::Saved,
            limits: RunLimits::default(),
            client: None,
            tabs: Vec::new(),
        }
    }
}

/// How a run starts: a new task, recorded, or a run cut short earlier.
#[derive(Debug)]
enum Start {
    Task(BegunRun),
    Resume { run_id: String, conversation_id: String },
}

impl Start {
    fn ids(&self) -> (&str, &str) {
        match self {
            Start::Task(begun) => (&begun.run_id, &begun.conversation_id),
            Start::Resume { run_id, conversation_id } => (run_id, conversation_id),
        }
    }
}

/// A run going on.
#[derive(Debug, Clone)]
pub(super) struct Running {
    pub info: RunInfo,
    pub cancel: Cancel,
}

/// The runs going on, by run id. `starting` holds conversations whose run
/// is being recorded (it has no id yet), so two runs never start on one.
#[derive(Debug, Default)]
pub(super) struct RunTable {
    pub going: HashMap<String, Running>,
    pub starting: Vec<(Option<String>, FrontEnd)>,
}

impl Host {
    /// Start a run: record it (or, with `resume`, check the run can go
    /// on), answer its ids, drive it on its own task. Refused
    /// (`invalid_arguments`) for an empty text, while the agent is paused,
    /// while another run goes on in the same conversation, and for the
    /// panel while another panel run goes on (it shows one at a time); a
    /// run to resume that does not exist is `not_found`, one that has
    /// ended `invalid_arguments`. Its events are broadcast
    /// ([`Event::RunStarted`], [`Event::Agent`], [`Event::RunEnded`]).
    pub async fn start_run(self: &Arc<Self>, request: RunRequest) -> Result<RunInfo> {
        let resumed = match &request.resume {
            Some(run_id) => Some(resumable(&self.core, run_id).await?),
            None if request.text.trim().is_empty() => return Err(Error::invalid_arguments("the message is empty")),
            None => None,
        };
        let conversation = match &resumed {
            Some((_, conversation_id)) => Some(conversation_id.clone()),
            None => request.conversation_id.clone(),
        };
        let claim = (conversation.clone(), request.front_end);
        // Claim the start before any await, so two starts cannot race.
        {
            let mut runs = self.runs();
            if self.is_paused() {
                return Err(Error::invalid_arguments("the agent is paused: resume it to send a message"));
            }
            let busy_conversation = conversation.as_ref().is_some_and(|c| {
                runs.going.values().any(|r| &r.info.conversation_id == c)
                    || runs.starting.iter().any(|(s, _)| s.as_ref() == Some(c))
            });
            if busy_conversation {
                return Err(Error::invalid_arguments(
                    "a run is already going on in this conversation: wait for it to end, or stop it first",
                ));
            }
            let panel_busy = request.front_end == FrontEnd::Panel
                && (runs.going.values().any(|r| r.info.front_end == FrontEnd::Panel)
                    || runs.starting.iter().any(|(_, f)| *f == FrontEnd::Panel));
            if panel_busy {
                return Err(Error::invalid_arguments(
                    "a run is already going on: wait for it to end, or stop it first",
                ));
            }
            runs.starting.push(claim.clone());
        }
        let begun = match resumed {
            Some((run, conversation_id)) => Ok(Start::Resume { run_id: run.id, conversation_id }),
            None => begin_run(&self.core, &request.text, conversation.as_deref())
                .await
                .map(|begun| Start::Task(begun.about_tabs(request.tabs.clone()))),
        };
        let cancel = Cancel::new();
        let info = {
            let mut runs = self.runs();
            if let Some(i) = runs.starting.iter().position(|c| *c == claim) {
                runs.starting.remove(i);
            }
            let begun = begun?;
            let (run_id, conversation_id) = begun.ids();
            let info = RunInfo {
                run_id: run_id.to_owned(),
                conversation_id: conversation_id.to_owned(),
                front_end: request.front_end,
            };
            runs.going.insert(info.run_id.clone(), Running { info: info.clone(), cancel: cancel.clone() });
            let _ = self.events.send(Event::RunStarted {
                run_id: info.run_id.clone(),
                conversation_id: info.conversation_id.clone(),
                front_end: info.front_end,
            });
            (info, begun)
        };
        let (info, begun) = info;
        let confirmer = request.confirmer.clone().unwrap_or_else(|| Arc::clone(&self.confirmer) as Arc<dyn Confirmer>);
        let cx = CallContext::new(request.front_end)
            .with_run(info.run_id.clone())
            .with_confirmer(confirmer)
            .with_cancel(cancel)
            .with_allowed_origins(request.allowed_origins.clone())
            .with_client(request.client.as_deref());
        let host = Arc::clone(self);
        tokio::spawn(async move { host.drive(begun, cx, request).await });
        Ok(info)
    }

    /// `SendMessage`: a panel run.
    pub(super) async fn send_message(
        self: &Arc<Self>,
        text: String,
        conversation: Option<String>,
        tabs: Vec<String>,
    ) -> Result<Reply> {
        if tabs.len() > MAX_TABS {
            return Err(Error::invalid_arguments(format!(
                "a task can be about {MAX_TABS} tabs at most, not {}",
                tabs.len()
            )));
        }
        let request = RunRequest { conversation_id: conversation, tabs, ..RunRequest::new(FrontEnd::Panel, text) };
        let info = self.start_run(request).await?;
        Ok(Reply::RunStarted { run_id: info.run_id, conversation_id: info.conversation_id })
    }

    /// Drive a begun (or resumed) run to its end; `RunEnded` always closes
    /// it, and the tabs it held become the user's.
    async fn drive(self: Arc<Self>, start: Start, cx: CallContext, request: RunRequest) {
        let (run_id, conversation_id) = {
            let (run, conversation) = start.ids();
            (run.to_owned(), conversation.to_owned())
        };
        let emit = |event: AgentEvent| {
            if let AgentEvent::ToolResult { name, result, .. } = &event
                && result.error.is_none()
                && self.changes_watches(name)
            {
                // A run's call that changed the watches tells the front
                // ends, as a direct call does (`Host::after_tool_call`).
                let (host, name, result) = (Arc::clone(&self), name.clone(), result.clone());
                tokio::spawn(async move { host.after_tool_call(&name, &result).await });
            }
            let _ = self.events.send(Event::Agent { run_id: run_id.clone(), event });
        };
        let resolve = async {
            match request.model.clone() {
                RunModel::Ready(client, model) => Ok((*client, model)),
                RunModel::Flags(flags) => self.agent_model(Some(flags)).await,
                RunModel::Saved => self.agent_model(None).await,
            }
        };
        let model = cx.cancel.or_cancelled(resolve).await;
        let (status, stop_reason, answer) = match model {
            None => {
                let stopped = Error::new(ErrorCode::Cancelled, "the run was stopped");
                emit(error_event(&run_id, &stopped));
                let (status, reason) = crate::agent::run::cancelled_stop(&cx.cancel);
                (status, reason, None)
            }
            Some(Err(e)) => {
                emit(error_event(&run_id, &e));
                (RunStatus::Failed, StopReason::ModelUnavailable, None)
            }
            Some(Ok((client, model))) => {
                // browser_extract asks the run's model for the fields its rules miss.
                // Skills ask it for the parts that need language.
                let fallback = Arc::new(ModelFieldFallback::new(client.clone(), model.clone()));
                let cx = cx.with_fallback(Some(fallback.clone())).with_language(Some(fallback));
                let limits = &request.limits;
                let driven = match start {
                    Start::Task(begun) => drive_run(&self.core, &client, &model, begun, limits, &cx, emit).await,
                    Start::Resume { .. } => resume_run(&self.core, &client, &model, &run_id, limits, &cx, emit).await,
                };
                match driven {
                    Ok(outcome) => (outcome.status, outcome.stop_reason, outcome.answer),
                    Err(e) => {
                        let _ =
                            self.events.send(Event::Agent { run_id: run_id.clone(), event: error_event(&run_id, &e) });
                        (RunStatus::Failed, StopReason::InternalError, None)
                    }
                }
            }
        };
        // The loop records how it ended; a run that never reached it is closed here.
        let store = self.core.store();
        if let Ok(Some(row)) = store.runs().get(&run_id).await
            && !row.status.is_terminal()
        {
            let _ = store.runs().set_status(&run_id, status, Some(stop_reason)).await;
        }
        self.runs().going.remove(&run_id);
        let ended = Event::RunEnded { run_id: run_id.clone(), conversation_id, status, stop_reason, answer };
        let _ = self.events.send(ended);
        // After the end is told: giving the tabs back waits for a call of
        // another run that may hold the browser.
        self.core.browser().release(&run_id).await;
    }

    /// `Stop`: cancel run `run_id`, or every run the panel started.
    pub fn stop(&self, run_id: Option<&str>) -> Result<()> {
        let runs = self.runs();
        match run_id {
            Some(id) => {
                let run = runs.going.get(id).ok_or_else(|| Error::not_found(format!("no run `{id}` is going on")))?;
                run.cancel.cancel();
            }
            None => {
                runs.going.values().filter(|r| r.info.front_end == FrontEnd::Panel).for_each(|r| r.cancel.cancel());
            }
        }
        Ok(())
    }

    /// Cancel every run, whoever started it.
    pub(super) fn stop_all(&self) {
        self.runs().going.values().for_each(|r| r.cancel.cancel());
        self.stop_scheduled_replays();
    }

    /// Halley is closing: every run stops where it is and is left paused
    /// (`interrupted`), to be resumed (`halley run --resume`), instead of
    /// cancelled; the scheduled replays stop.
    pub(super) fn interrupt_runs(&self) {
        self.runs().going.values().for_each(|r| r.cancel.interrupt());
        self.stop_scheduled_replays();
    }

    /// `SetPaused`: a pause cancels every run and refuses new ones.
    pub(super) fn set_paused(&self, paused: bool) {
        self.paused.store(paused, std::sync::atomic::Ordering::SeqCst);
        if paused {
            self.stop_all();
        }
        let _ = self.events.send(Event::Paused { paused });
    }

    /// Whether the agent is paused.
    pub fn is_paused(&self) -> bool {
        self.paused.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The runs going on, by run id.
    pub fn runs_going(&self) -> Vec<RunInfo> {
        let mut runs: Vec<RunInfo> = self.runs().going.values().map(|r| r.info.clone()).collect();
        runs.sort_by(|a, b| a.run_id.cmp(&b.run_id));
        runs
    }

    pub(super) fn runs(&self) -> std::sync::MutexGuard<'_, RunTable> {
        self.runs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The run's error, as an agent event.
fn error_event(run_id: &str, e: &Error) -> AgentEvent {
    let wire = e.to_wire();
    AgentEvent::Error { run_id: run_id.to_owned(), code: wire.code, message: wire.message }
}
