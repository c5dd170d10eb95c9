//! The host's confirmer: each question the gate asks is broadcast as an
//! event and waits for the front end's answer (an `Op`), or for its time
//! to run out (a denial). Whatever happens, a closing event follows.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::context::StillThere;
use crate::error::{Error, Result};
use crate::gate::confirm::ANSWER_WITHIN;
use crate::gate::{ChallengeAnswer, ChallengeRequest, ConfirmationRequest, Confirmer};
use crate::protocol::Event;
use crate::tools::catalogue::safety::ConfirmResultV1;

/// A question waiting for the user.
#[derive(Debug)]
enum Asked {
    Confirmation(oneshot::Sender<ConfirmResultV1>),
    /// Where the user's answers go (each with where to say whether the
    /// challenge is still on the page), and the tab holding it.
    Challenge(mpsc::UnboundedSender<(ChallengeAnswer, oneshot::Sender<bool>)>, String),
}

/// Asks through [`Event`]s; answered with [`ChannelConfirmer::answer_confirmation`]
/// and [`ChannelConfirmer::answer_challenge`].
#[derive(Debug)]
pub struct ChannelConfirmer {
    events: broadcast::Sender<Event>,
    waiting: Mutex<HashMap<String, Asked>>,
}

impl ChannelConfirmer {
    pub fn new(events: broadcast::Sender<Event>) -> ChannelConfirmer {
        ChannelConfirmer { events, waiting: Mutex::default() }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, Asked>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answer confirmation `id`; `not_found` when it no longer waits.
    pub fn answer_confirmation(&self, id: &str, answer: ConfirmResultV1) -> Result<()> {
        let mut waiting = self.waiting();
        match waiting.remove(id) {
            Some(Asked::Confirmation(tx)) => tx.send(answer).map_err(|_| gone("confirmation", id)),
            Some(other) => {
                waiting.insert(id.to_owned(), other);
                Err(gone("confirmation", id))
            }
            None => Err(gone("confirmation", id)),
        }
    }

    /// Answer challenge `id` (`done`: the user says they solved it). The
    /// page is read: `Ok(true)` when it still shows the challenge, which
    /// then still waits; `Ok(false)` when the hand-off is over.
    pub async fn answer_challenge(&self, id: &str, done: bool) -> Result<bool> {
        let tx = match self.waiting().get(id) {
            Some(Asked::Challenge(tx, _)) => tx.clone(),
            _ => return Err(gone("challenge", id)),
        };
        let (said, heard) = oneshot::channel();
        let answer = if done { ChallengeAnswer::Done } else { ChallengeAnswer::GaveUp };
        tx.send((answer, said)).map_err(|_| gone("challenge", id))?;
        // A wait that ends meanwhile (the page cleared, the time ran out)
        // drops the sender: the hand-off is over.
        Ok(heard.await.unwrap_or(false))
    }

    /// The tab of waiting challenge `id`.
    pub fn challenge_tab(&self, id: &str) -> Result<String> {
        match self.waiting().get(id) {
            Some(Asked::Challenge(_, tab)) => Ok(tab.clone()),
            _ => Err(gone("challenge", id)),
        }
    }

    /// The tabs of the challenges waiting now (hand-offs to the user).
    pub fn challenge_tabs(&self) -> Vec<String> {
        self.waiting()
            .values()
            .filter_map(|a| match a {
                Asked::Challenge(_, tab) => Some(tab.clone()),
                Asked::Confirmation(_) => None,
            })
            .collect()
    }

    /// The ids of the questions waiting now.
    pub fn waiting_ids(&self) -> Vec<String> {
        self.waiting().keys().cloned().collect()
    }

    /// Refuse every waiting question (the host closes): confirmations are
    /// denied, challenges given up.
    pub fn refuse_all(&self) {
        self.waiting().clear();
    }

    fn send(&self, event: Event) {
        // No front end listening is fine: the answer then times out.
        let _ = self.events.send(event);
    }
}

fn gone(what: &str, id: &str) -> Error {
    Error::not_found(format!("no {what} `{id}` is waiting (answered already, or its time ran out)"))
}

/// Removes the question and says it closed, however the wait ends: an
/// answer, the time running out, or the caller dropping the future (a
/// cancelled run, a challenge the page shows is gone).
struct Closing<'a> {
    confirmer: &'a ChannelConfirmer,
    id: String,
    /// `Some(approved)` for a confirmation, `None` for a challenge.
    approved: Option<bool>,
}

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.confirmer.waiting().remove(&self.id);
        let id = std::mem::take(&mut self.id);
        self.confirmer.send(match self.approved {
            Some(approved) => Event::ConfirmationClosed { id, approved },
            None => Event::ChallengeClosed { id },
        });
    }
}

/// How long until `expires_at` (RFC 3339), at most [`ANSWER_WITHIN`].
fn time_left(expires_at: &str) -> Duration {
    chrono::DateTime::parse_from_rfc3339(expires_at)
        .ok()
        .and_then(|at| (at.with_timezone(&chrono::Utc) - chrono::Utc::now()).to_std().ok())
        .map_or(ANSWER_WITHIN, |left| left.min(ANSWER_WITHIN))
}

fn denied(reason: &str) -> ConfirmResultV1 {
    ConfirmResultV1 { approved: false, user_edits: Map::<String, Value>::new(), reason: reason.to_owned() }
}

impl Confirmer for ChannelConfirmer {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            self.waiting().insert(request.id.clone(), Asked::Confirmation(tx));
            let mut closing = Closing { confirmer: self, id: request.id.clone(), approved: Some(false) };
            self.send(Event::ConfirmationWaiting { request: request.clone() });
            let answer = match tokio::time::timeout(time_left(&request.expires_at), rx).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(_)) => denied("the question was withdrawn before it was answered"),
                Err(_) => denied("no answer in time"),
            };
            closing.approved = Some(answer.approved);
            answer
        })
    }

    fn challenge<'a>(
        &'a self,
        request: &'a ChallengeRequest,
        still_there: StillThere<'a>,
    ) -> Pin<Box<dyn Future<Output = ChallengeAnswer> + Send + 'a>> {
        Box::pin(async move {
            let id = uuid::Uuid::new_v4().to_string();
            let (tx, mut rx) = mpsc::unbounded_channel();
            self.waiting().insert(id.clone(), Asked::Challenge(tx, request.tab_id.clone()));
            let _closing = Closing { confirmer: self, id: id.clone(), approved: None };
            self.send(Event::ChallengeWaiting { id, request: request.clone() });
            // The challenge tool watches the page and its own time limit;
            // "done" is checked against the page here, so the window can say
            // the challenge is still there and go on waiting.
            loop {
                let Some((answer, said)) = rx.recv().await else { return ChallengeAnswer::GaveUp };
                if answer == ChallengeAnswer::Done && still_there().await {
                    let _ = said.send(true);
                    continue;
                }
                let _ = said.send(false);
                return answer;
            }
        })
    }

    fn answered_by(&self) -> &'static str {
        "user"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{PermissionScope, RiskLevel};

    fn request(id: &str, within: chrono::Duration) -> ConfirmationRequest {
        ConfirmationRequest {
            id: id.into(),
            tool: "browser_click".into(),
            action_summary: "Click button \"Gửi\"".into(),
            fields: vec![],
            destination: None,
            url: None,
            origin: None,
            page_total: Some("21.490.000 ₫".into()),
            risks: vec![],
            grading: vec![],
            method: None,
            scope: PermissionScope::Submit,
            risk_level: RiskLevel::High,
            expires_at: (chrono::Utc::now() + within).to_rfc3339(),
            run_id: None,
            kind: crate::protocol::ConfirmKind::Send,
            amount: None,
            site: None,
            target: None,
            plain: vec![],
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_the_waiting_question_and_it_closes() {
        let (tx, mut rx) = broadcast::channel(16);
        let c = std::sync::Arc::new(ChannelConfirmer::new(tx));
        let req = request("c1", chrono::Duration::seconds(30));
        let c2 = std::sync::Arc::clone(&c);
        let waiter = tokio::spawn(async move { c2.confirm(&req).await });
        assert!(matches!(rx.recv().await.unwrap(), Event::ConfirmationWaiting { .. }));
        assert_eq!(c.answer_challenge("c1", true).await.unwrap_err().code(), crate::error::ErrorCode::NotFound);
        c.answer_confirmation("c1", ConfirmResultV1 { approved: true, ..denied("") }).unwrap();
        assert!(waiter.await.unwrap().approved);
        assert_eq!(rx.recv().await.unwrap(), Event::ConfirmationClosed { id: "c1".into(), approved: true });
        let again = c.answer_confirmation("c1", denied("")).unwrap_err();
        assert_eq!(again.code(), crate::error::ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn an_expired_question_is_denied_and_a_dropped_one_still_closes() {
        let (tx, mut rx) = broadcast::channel(16);
        let c = ChannelConfirmer::new(tx);
        let req = request("c2", chrono::Duration::milliseconds(50));
        assert!(!c.confirm(&req).await.approved);
        assert!(matches!(rx.recv().await.unwrap(), Event::ConfirmationWaiting { .. }));
        assert_eq!(rx.recv().await.unwrap(), Event::ConfirmationClosed { id: "c2".into(), approved: false });

        let challenge = ChallengeRequest {
            tab_id: "tab-1".into(),
            url: "https://shop.vn".into(),
            challenge_type: crate::tools::catalogue::safety::ChallengeType::Captcha,
            page_hint: None,
            run_id: None,
        };
        let never = || -> futures::future::BoxFuture<'_, bool> { Box::pin(async { true }) };
        let dropped = tokio::time::timeout(Duration::from_millis(50), c.challenge(&challenge, &never)).await;
        assert!(dropped.is_err());
        let Event::ChallengeWaiting { id, .. } = rx.recv().await.unwrap() else { panic!("not a challenge") };
        assert_eq!(rx.recv().await.unwrap(), Event::ChallengeClosed { id });
        assert!(c.waiting_ids().is_empty());
    }

    /// Done while the page still shows the challenge: the one who answered
    /// hears so, the question still waits (no closing event); Done once the
    /// page is clear ends it; an answer to a closed question is `not_found`.
    #[tokio::test]
    async fn done_while_the_challenge_is_still_there_is_told_and_keeps_waiting() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let (tx, mut rx) = broadcast::channel(16);
        let c = std::sync::Arc::new(ChannelConfirmer::new(tx));
        let present = std::sync::Arc::new(AtomicBool::new(true));
        let challenge = ChallengeRequest {
            tab_id: "tab-1".into(),
            url: "https://shop.vn/login".into(),
            challenge_type: crate::tools::catalogue::safety::ChallengeType::Captcha,
            page_hint: None,
            run_id: None,
        };
        let (c2, p2) = (std::sync::Arc::clone(&c), std::sync::Arc::clone(&present));
        let waiter = tokio::spawn(async move {
            let probe = move || -> futures::future::BoxFuture<'_, bool> {
                let p = std::sync::Arc::clone(&p2);
                Box::pin(async move { p.load(Ordering::SeqCst) })
            };
            c2.challenge(&challenge, &probe).await
        });
        let Event::ChallengeWaiting { id, .. } = rx.recv().await.unwrap() else { panic!("not a challenge") };
        assert!(c.answer_challenge(&id, true).await.unwrap(), "the page still shows it");
        assert!(c.answer_challenge(&id, true).await.unwrap(), "asked twice, still there");
        assert_eq!(c.waiting_ids(), vec![id.clone()]);
        assert!(rx.try_recv().is_err(), "no closing event while it still waits");
        assert_eq!(c.challenge_tab(&id).unwrap(), "tab-1");
        present.store(false, Ordering::SeqCst);
        assert!(!c.answer_challenge(&id, true).await.unwrap());
        assert_eq!(waiter.await.unwrap(), ChallengeAnswer::Done);
        assert_eq!(rx.recv().await.unwrap(), Event::ChallengeClosed { id: id.clone() });
        assert_eq!(c.answer_challenge(&id, false).await.unwrap_err().code(), crate::error::ErrorCode::NotFound);
    }
}
