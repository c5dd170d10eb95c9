//! The run in flight: one at a time, started by `SendMessage`, driven on
//! its own task, its events broadcast; stopped by `Stop` or a pause.

use std::sync::Arc;

use crate::agent::run::{AgentEvent, BegunRun, RunLimits, begin_run, drive_run};
use crate::agent::{Cancel, ModelFieldFallback};
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::{Event, Reply};
use crate::store::runs::{RunStatus, StopReason};

use super::{Host, settings};

/// The run in flight.
#[derive(Debug, Clone)]
pub(super) struct Running {
    pub run_id: String,
    pub cancel: Cancel,
}

impl Host {
    /// `SendMessage`: record the run, answer its ids, drive it on a task.
    pub(super) async fn send_message(self: &Arc<Self>, text: String, conversation: Option<String>) -> Result<Reply> {
        if text.trim().is_empty() {
            return Err(Error::invalid_arguments("the message is empty"));
        }
        let cancel = Cancel::new();
        // Claim the slot before any await, so two messages cannot both start.
        {
            let mut running = self.running();
            if self.is_paused() {
                return Err(Error::invalid_arguments("the agent is paused: resume it to send a message"));
            }
            if running.is_some() {
                return Err(Error::invalid_arguments(
                    "a run is already going on: wait for it to end, or stop it first",
                ));
            }
            *running = Some(Running { run_id: String::new(), cancel: cancel.clone() });
        }
        let begun = match begin_run(&self.core, &text, conversation.as_deref()).await {
            Ok(b) => b,
            Err(e) => {
                *self.running() = None;
                return Err(e);
            }
        };
        if let Some(r) = self.running().as_mut() {
            r.run_id = begun.run_id.clone();
        }
        let reply = Reply::RunStarted { run_id: begun.run_id.clone(), conversation_id: begun.conversation_id.clone() };
        let host = Arc::clone(self);
        tokio::spawn(async move { host.drive(begun, cancel).await });
        Ok(reply)
    }

    /// Drive a begun run to its end; `RunEnded` always closes it.
    async fn drive(self: Arc<Self>, begun: BegunRun, cancel: Cancel) {
        let (run_id, conversation_id) = (begun.run_id.clone(), begun.conversation_id.clone());
        let emit = |event: AgentEvent| {
            let _ = self.events.send(Event::Agent { run_id: run_id.clone(), event });
        };
        let settings = self.settings.read().await.clone();
        let model = tokio::select! {
            m = settings::agent_model(&settings) => Some(m),
            () = cancel.cancelled() => None,
        };
        let (status, stop_reason, answer) = match model {
            None => {
                let stopped = Error::new(ErrorCode::Cancelled, "the run was stopped");
                emit(error_event(&run_id, &stopped));
                (RunStatus::Cancelled, StopReason::Cancelled, None)
            }
            Some(Err(e)) => {
                emit(error_event(&run_id, &e));
                (RunStatus::Failed, StopReason::ModelUnavailable, None)
            }
            Some(Ok((client, model))) => {
                // browser_extract asks the run's model for the fields its rules miss.
                self.core.set_field_fallback(Some(Arc::new(ModelFieldFallback::new(client.clone(), model.clone()))));
                let limits = RunLimits::default();
                match drive_run(&self.core, &client, &model, begun, &limits, &cancel, emit).await {
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
        {
            let mut running = self.running();
            if running.as_ref().is_some_and(|r| r.run_id == run_id) {
                *running = None;
            }
        }
        let _ = self.events.send(Event::RunEnded { run_id, conversation_id, status, stop_reason, answer });
    }

    /// `Stop`: cancel the run in flight, if any.
    pub(super) fn stop(&self) {
        if let Some(r) = self.running().as_ref() {
            r.cancel.cancel();
        }
    }

    /// `SetPaused`.
    pub(super) fn set_paused(&self, paused: bool) {
        self.paused.store(paused, std::sync::atomic::Ordering::SeqCst);
        if paused {
            self.stop();
        }
        let _ = self.events.send(Event::Paused { paused });
    }

    /// Whether the agent is paused.
    pub fn is_paused(&self) -> bool {
        self.paused.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The id of the run in flight.
    pub fn current_run(&self) -> Option<String> {
        self.running().as_ref().map(|r| r.run_id.clone()).filter(|id| !id.is_empty())
    }

    pub(super) fn running(&self) -> std::sync::MutexGuard<'_, Option<Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The run's error, as an agent event.
fn error_event(run_id: &str, e: &Error) -> AgentEvent {
    let wire = e.to_wire();
    AgentEvent::Error { run_id: run_id.to_owned(), code: wire.code, message: wire.message }
}
