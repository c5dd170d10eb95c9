//! Steering a run from outside: cancelling it at any point, and hearing
//! when it pauses on the user (a confirmation or a challenge) and goes on.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{Notify, mpsc};

use crate::gate::{ChallengeAnswer, ChallengeRequest, ConfirmationRequest, Confirmer};
use crate::tools::catalogue::safety::ConfirmResultV1;

/// A cancel switch shared by whoever may stop the run (Ctrl-C, a Stop
/// button) and the run itself. Cloning shares the switch.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    inner: Arc<(AtomicBool, Notify)>,
}

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Stop the run: the model stream or tool call in flight is dropped and
    /// the run ends `cancelled`.
    pub fn cancel(&self) {
        self.inner.0.store(true, Ordering::SeqCst);
        self.inner.1.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.0.load(Ordering::SeqCst)
    }

    /// Resolves once [`Cancel::cancel`] has been called.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.1.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
            if self.is_cancelled() {
                return;
            }
        }
    }
}

/// What the user is being asked while the run waits.
#[derive(Debug, Clone)]
pub enum Waiting {
    Confirmation(ConfirmationRequest),
    Challenge(ChallengeRequest),
    /// The answer came: the run goes on.
    Answered,
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
    ) -> Pin<Box<dyn Future<Output = ChallengeAnswer> + Send + 'a>> {
        Box::pin(async move {
            let _ = self.tx.send(Waiting::Challenge(request.clone()));
            let answer = self.inner.challenge(request).await;
            let _ = self.tx.send(Waiting::Answered);
            answer
        })
    }

    fn answered_by(&self) -> &'static str {
        self.inner.answered_by()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn cancel_wakes_every_waiter_even_a_late_one() {
        let cancel = Cancel::new();
        let c2 = cancel.clone();
        let waiter = tokio::spawn(async move { c2.cancelled().await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!cancel.is_cancelled());
        cancel.cancel();
        tokio::time::timeout(Duration::from_secs(2), waiter).await.unwrap().unwrap();
        // Already cancelled: resolves at once.
        tokio::time::timeout(Duration::from_millis(100), cancel.cancelled()).await.unwrap();
    }
}
