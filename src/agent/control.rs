//! Hearing when a run pauses on the user (a confirmation or a challenge)
//! or on a client application (a client tool's call) and goes on. Cancelling it is `crate::context::Cancel`.

pub use crate::context::Cancel;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::context::StillThere;
use crate::gate::{ChallengeAnswer, ChallengeRequest, ConfirmationRequest, Confirmer};
use crate::tools::catalogue::safety::ConfirmResultV1;

/// What the user is being asked while the run waits.
#[derive(Debug, Clone)]
pub enum Waiting {
    Confirmation(ConfirmationRequest),
    Challenge(ChallengeRequest),
    /// A client application runs a call of this tool.
    Client(String),
    /// The answer came: the run goes on.
    Answered,
    /// A step of a skill the run called (shown in its timeline).
    Step(crate::agent::run::AgentEvent),
}

/// Relays a skill's steps to the run's loop, which tells the front end.
#[derive(Debug)]
pub(crate) struct StepRelay {
    pub tx: mpsc::UnboundedSender<Waiting>,
}

impl crate::context::StepSink for StepRelay {
    fn step(&self, event: crate::agent::run::AgentEvent) {
        let _ = self.tx.send(Waiting::Step(event));
    }
}

/// Wraps the confirmer of the gate for the length of a run, so the run
/// can report that it is paused (and on what) and when it resumes.
#[derive(Debug)]
pub(crate) struct Observed {
    pub inner: Arc<dyn Confirmer>,
    pub tx: mpsc::UnboundedSender<Waiting>,
}

impl Confirmer for Observed {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async move {
            let _ = self.tx.send(Waiting::Confirmation(request.clone()));
            let answer = self.inner.confirm(request).await;
            let _ = self.tx.send(Waiting::Answered);
            answer
        })
    }

    fn challenge<'a>(
        &'a self,
        request: &'a ChallengeRequest,
        still_there: StillThere<'a>,
    ) -> Pin<Box<dyn Future<Output = ChallengeAnswer> + Send + 'a>> {
        Box::pin(async move {
            let _ = self.tx.send(Waiting::Challenge(request.clone()));
            let answer = self.inner.challenge(request, still_there).await;
            let _ = self.tx.send(Waiting::Answered);
            answer
        })
    }

    fn answered_by(&self) -> &'static str {
        self.inner.answered_by()
    }

    fn waits_for_client(&self, tool: Option<&str>) {
        let _ = self.tx.send(tool.map_or(Waiting::Answered, |t| Waiting::Client(t.to_owned())));
    }
}
