//! Runs: one execution of an agent's turn loop (Letta's `runs`), made of
//! steps. A run is running or paused until it ends completed, failed or
//! cancelled; an ended run does not change again.

use crate::error::{Error, Result};
pub use crate::protocol::status::{RunStatus, StopReason};
use crate::store::{Store, new_id, now};

impl RunStatus {
    /// Completed, failed and cancelled runs are over.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

impl StopReason {
    /// The stored and wire name, e.g. `"too_many_failures"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EndTurn => "end_turn",
            Self::MaxSteps => "max_steps",
            Self::TooManyFailures => "too_many_failures",
            Self::RepeatedAction => "repeated_action",
            Self::Cancelled => "cancelled",
            Self::ModelError => "model_error",
            Self::ModelUnavailable => "model_unavailable",
            Self::InternalError => "internal_error",
            Self::WaitingForConfirmation => "waiting_for_confirmation",
            Self::WaitingForChallenge => "waiting_for_challenge",
            Self::WaitingForClient => "waiting_for_client",
            Self::Interrupted => "interrupted",
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct RunRow {
    pub id: String,
    pub agent_id: String,
    pub conversation_id: Option<String>,
    pub status: RunStatus,
    /// Why the loop stopped: a [`StopReason`]'s name (`end_turn`,
    /// `max_steps`, ...). Text, as runs recorded by older versions may hold
    /// other words.
    pub stop_reason: Option<String>,
    pub started_at: String,
    /// Set when the run reaches a terminal status.
    pub ended_at: Option<String>,
}

/// Accessor for the `runs` table.
pub struct Runs<'a> {
    store: &'a Store,
}

impl Store {
    pub fn runs(&self) -> Runs<'_> {
        Runs { store: self }
    }
}

impl Runs<'_> {
    /// Start a run (status `running`).
    pub async fn create(&self, agent_id: &str, conversation_id: Option<&str>) -> Result<RunRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO runs (id, agent_id, conversation_id, status, started_at)
             VALUES (?1, ?2, ?3, 'running', ?4) RETURNING *",
            )
            .bind(new_id("run"))
            .bind(agent_id)
            .bind(conversation_id)
            .bind(now())
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    pub async fn get(&self, id: &str) -> Result<Option<RunRow>> {
        Ok(sqlx::query_as("SELECT * FROM runs WHERE id = ?1").bind(id).fetch_optional(self.store.pool()).await?)
    }

    /// Move a run to `status`; a terminal status sets `ended_at`.
    /// `not_found` for an unknown run, `invalid_arguments` for a run that has
    /// already ended.
    pub async fn set_status(&self, id: &str, status: RunStatus, stop_reason: Option<StopReason>) -> Result<RunRow> {
        let ended_at = status.is_terminal().then(now);
        let mut tx = self.store.begin_write().await?;
        let row: Option<RunRow> = sqlx::query_as(
            "UPDATE runs SET status = ?2, stop_reason = ?3, ended_at = ?4
             WHERE id = ?1 AND status IN ('running', 'paused') RETURNING *",
        )
        .bind(id)
        .bind(status)
        .bind(stop_reason)
        .bind(ended_at)
        .fetch_optional(&mut *tx)
        .await?;
        let row = match row {
            Some(row) => row,
            None => {
                let current: Option<(RunStatus,)> =
                    sqlx::query_as("SELECT status FROM runs WHERE id = ?1").bind(id).fetch_optional(&mut *tx).await?;
                return Err(match current {
                    None => Error::not_found(format!("no run {id}")),
                    Some((s,)) => Error::invalid_arguments(format!("run {id} has already ended ({s:?})")),
                });
            }
        };
        tx.commit().await?;
        Ok(row)
    }

    /// The latest `limit` runs, newest first.
    pub async fn list(&self, limit: u32) -> Result<Vec<RunRow>> {
        Ok(sqlx::query_as("SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?1")
            .bind(limit)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Runs not yet ended (running or paused), oldest first: what to resume
    /// or fail after a restart.
    pub async fn unfinished(&self) -> Result<Vec<RunRow>> {
        Ok(sqlx::query_as("SELECT * FROM runs WHERE status IN ('running', 'paused') ORDER BY started_at, rowid")
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Delete a run and its steps. `false` if it did not exist.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM runs WHERE id = ?1").bind(id).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::{agent, open_temp};

    #[tokio::test]
    async fn lifecycle_sets_ended_at_once() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let conv = store.conversations().create(&agent, "").await.unwrap();
        let r = store.runs().create(&agent, Some(&conv.id)).await.unwrap();
        assert_eq!(
            (r.status, r.ended_at.as_deref(), r.conversation_id.as_deref()),
            (RunStatus::Running, None, Some(conv.id.as_str()))
        );
        let r =
            store.runs().set_status(&r.id, RunStatus::Paused, Some(StopReason::WaitingForConfirmation)).await.unwrap();
        assert_eq!((r.status, r.ended_at.as_deref()), (RunStatus::Paused, None));
        assert_eq!(store.runs().unfinished().await.unwrap(), vec![r.clone()]);
        let r = store.runs().set_status(&r.id, RunStatus::Completed, Some(StopReason::EndTurn)).await.unwrap();
        assert_eq!(r.stop_reason.as_deref(), Some("end_turn"));
        assert!(r.ended_at.is_some());
        assert_eq!(store.runs().get(&r.id).await.unwrap(), Some(r.clone()));
        assert_eq!(store.runs().unfinished().await.unwrap(), vec![]);

        let err = store.runs().set_status(&r.id, RunStatus::Running, None).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        let err = store.runs().set_status("run-none", RunStatus::Failed, None).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
    }

    #[test]
    fn stop_reasons_are_stored_by_their_serde_names() {
        use StopReason::*;
        for reason in [
            EndTurn,
            MaxSteps,
            TooManyFailures,
            RepeatedAction,
            Cancelled,
            ModelError,
            ModelUnavailable,
            InternalError,
            WaitingForConfirmation,
            WaitingForChallenge,
            WaitingForClient,
        ] {
            assert_eq!(serde_json::to_value(reason).unwrap(), reason.as_str());
        }
    }

    #[tokio::test]
    async fn list_is_newest_first_and_conversation_delete_keeps_runs() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let conv = store.conversations().create(&agent, "").await.unwrap();
        let r1 = store.runs().create(&agent, Some(&conv.id)).await.unwrap();
        let r2 = store.runs().create(&agent, None).await.unwrap();
        let ids: Vec<String> = store.runs().list(10).await.unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![r2.id.clone(), r1.id.clone()]);
        assert_eq!(store.runs().list(1).await.unwrap().len(), 1);
        store.conversations().delete(&conv.id).await.unwrap();
        assert_eq!(store.runs().get(&r1.id).await.unwrap().unwrap().conversation_id, None);
        assert!(store.runs().delete(&r1.id).await.unwrap());
        store.agents().delete(&agent).await.unwrap();
        assert_eq!(store.runs().list(10).await.unwrap(), vec![]);
    }
}
