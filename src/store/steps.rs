//! Steps: one model call inside a run, with its token usage and latency
//! (Letta's `steps`). Numbered 0, 1, 2, ... within their run.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::{Store, new_id, now};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum StepStatus {
    Running,
    Completed,
    Failed,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct StepRow {
    pub id: String,
    pub run_id: String,
    pub idx: i64,
    pub model: String,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub latency_ms: Option<i64>,
    pub status: StepStatus,
    pub error: Option<String>,
    pub created_at: String,
}

/// A step to record; its `idx` is the next free one in the run.
#[derive(Debug, Clone, PartialEq)]
pub struct NewStep {
    pub run_id: String,
    pub model: String,
    pub status: StepStatus,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub latency_ms: Option<i64>,
    pub error: Option<String>,
}

impl NewStep {
    /// A step that has just started: no usage yet.
    pub fn started(run_id: &str, model: &str) -> Self {
        Self {
            run_id: run_id.to_string(),
            model: model.to_string(),
            status: StepStatus::Running,
            prompt_tokens: None,
            completion_tokens: None,
            latency_ms: None,
            error: None,
        }
    }
}

/// How a step ended.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    pub status: StepStatus,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub latency_ms: Option<i64>,
    pub error: Option<String>,
}

/// Accessor for the `steps` table.
pub struct Steps<'a> {
    store: &'a Store,
}

impl Store {
    pub fn steps(&self) -> Steps<'_> {
        Steps { store: self }
    }
}

impl Steps<'_> {
    pub async fn insert(&self, new: &NewStep) -> Result<StepRow> {
        let mut tx = self.store.begin_write().await?;
        let row: StepRow = sqlx::query_as(
            "INSERT INTO steps (id, run_id, idx, model, prompt_tokens, completion_tokens, latency_ms,
                 status, error, created_at)
             VALUES (?1, ?2, (SELECT COALESCE(MAX(idx) + 1, 0) FROM steps WHERE run_id = ?2),
                 ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             RETURNING *",
        )
        .bind(new_id("step"))
        .bind(&new.run_id)
        .bind(&new.model)
        .bind(new.prompt_tokens)
        .bind(new.completion_tokens)
        .bind(new.latency_ms)
        .bind(new.status)
        .bind(new.error.as_deref())
        .bind(now())
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Record how a step ended; `not_found` for an unknown step.
    pub async fn finish(&self, id: &str, outcome: &StepOutcome) -> Result<StepRow> {
        let row: Option<StepRow> = sqlx::query_as(
            "UPDATE steps SET status = ?2, prompt_tokens = ?3, completion_tokens = ?4, latency_ms = ?5, error = ?6
             WHERE id = ?1 RETURNING *",
        )
        .bind(id)
        .bind(outcome.status)
        .bind(outcome.prompt_tokens)
        .bind(outcome.completion_tokens)
        .bind(outcome.latency_ms)
        .bind(outcome.error.as_deref())
        .fetch_all(self.store.pool())
        .await?
        .into_iter()
        .next();
        row.ok_or_else(|| Error::not_found(format!("no step {id}")))
    }

    /// A run's steps in order.
    pub async fn for_run(&self, run_id: &str) -> Result<Vec<StepRow>> {
        Ok(sqlx::query_as("SELECT * FROM steps WHERE run_id = ?1 ORDER BY idx")
            .bind(run_id)
            .fetch_all(self.store.pool())
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::{agent, open_temp};

    #[tokio::test]
    async fn insert_numbers_steps_and_finish_records_usage() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let run = store.runs().create(&agent, None).await.unwrap();
        let s0 = store.steps().insert(&NewStep::started(&run.id, "gpt-x")).await.unwrap();
        let s1 = store
            .steps()
            .insert(&NewStep {
                status: StepStatus::Failed,
                error: Some("timeout".into()),
                ..NewStep::started(&run.id, "m")
            })
            .await
            .unwrap();
        assert_eq!((s0.idx, s1.idx), (0, 1));
        let outcome = StepOutcome {
            status: StepStatus::Completed,
            prompt_tokens: Some(1200),
            completion_tokens: Some(80),
            latency_ms: Some(950),
            error: None,
        };
        let s0 = store.steps().finish(&s0.id, &outcome).await.unwrap();
        assert_eq!(
            (s0.status, s0.prompt_tokens, s0.completion_tokens, s0.latency_ms),
            (StepStatus::Completed, Some(1200), Some(80), Some(950))
        );
        assert_eq!(store.steps().for_run(&run.id).await.unwrap(), vec![s0, s1]);
        let err = store.steps().finish("step-none", &outcome).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn deleting_a_run_deletes_its_steps() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let run = store.runs().create(&agent, None).await.unwrap();
        store.steps().insert(&NewStep::started(&run.id, "m")).await.unwrap();
        store.steps().insert(&NewStep::started(&run.id, "m")).await.unwrap();
        assert!(store.runs().delete(&run.id).await.unwrap());
        assert_eq!(store.steps().for_run(&run.id).await.unwrap(), vec![]);
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM steps").fetch_one(store.pool()).await.unwrap();
        assert_eq!(n, 0);
    }

    #[tokio::test]
    async fn negative_tokens_are_rejected_by_the_schema() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let run = store.runs().create(&agent, None).await.unwrap();
        let bad = NewStep { prompt_tokens: Some(-1), ..NewStep::started(&run.id, "m") };
        assert_eq!(store.steps().insert(&bad).await.unwrap_err().code(), ErrorCode::Storage);
    }
}
