//! Routines (a finished run's calls kept as a plan, `crate::routine`) and
//! their replays, journaled step by step so a replay cut short by a crash
//! is reported and never redoes a side effect on its own.

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::{Store, new_id, now};

#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct RoutineRow {
    pub id: String,
    pub name: String,
    pub source_run_id: Option<String>,
    #[sqlx(json)]
    pub plan: Value,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct ReplayRow {
    pub id: String,
    pub routine_id: String,
    pub run_id: Option<String>,
    /// `running`, `completed`, `failed`, `stopped`, `interrupted`.
    pub status: String,
    #[sqlx(json)]
    pub params: Value,
    /// The step started last (0-based).
    pub step: Option<i64>,
    /// The step `step` may change something and had not ended.
    pub in_flight: bool,
    /// Steps ended.
    pub done: i64,
    /// The process replaying it.
    pub pid: Option<i64>,
    #[sqlx(json(nullable))]
    pub report: Option<Value>,
    pub started_at: String,
    pub ended_at: Option<String>,
}

/// Accessor for the `routines` and `routine_replays` tables.
pub struct Routines<'a> {
    store: &'a Store,
}

impl Store {
    pub fn routines(&self) -> Routines<'_> {
        Routines { store: self }
    }
}

impl Routines<'_> {
    /// Keep a new routine; `invalid_arguments` when the name is taken.
    pub async fn create(&self, name: &str, source_run_id: Option<&str>, plan: &Value) -> Result<RoutineRow> {
        let at = now();
        let rows = sqlx::query_as(
            "INSERT INTO routines (id, name, source_run_id, plan, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5)
             ON CONFLICT (name) DO NOTHING RETURNING *",
        )
        .bind(new_id("routine"))
        .bind(name)
        .bind(source_run_id)
        .bind(plan.to_string())
        .bind(at)
        .fetch_all(self.store.pool())
        .await?;
        rows.into_iter().next().ok_or_else(|| {
            Error::invalid_arguments(format!(
                "a routine named `{name}` exists already: choose another name or `halley routine delete {name}` first"
            ))
        })
    }

    /// A routine by name.
    pub async fn get(&self, name: &str) -> Result<Option<RoutineRow>> {
        Ok(sqlx::query_as("SELECT * FROM routines WHERE name = ?1")
            .bind(name)
            .fetch_optional(self.store.pool())
            .await?)
    }

    /// Every routine, by name.
    pub async fn list(&self) -> Result<Vec<RoutineRow>> {
        Ok(sqlx::query_as("SELECT * FROM routines ORDER BY name").fetch_all(self.store.pool()).await?)
    }

    /// Replace a routine's plan (its parameters edited).
    pub async fn set_plan(&self, name: &str, plan: &Value) -> Result<()> {
        let done = sqlx::query("UPDATE routines SET plan = ?2, updated_at = ?3 WHERE name = ?1")
            .bind(name)
            .bind(plan.to_string())
            .bind(now())
            .execute(self.store.pool())
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found(format!("no routine `{name}`")));
        }
        Ok(())
    }

    /// Delete a routine and its replays. `false` if it did not exist.
    pub async fn delete(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM routines WHERE name = ?1").bind(name).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }

    /// Start a replay (status `running`).
    pub async fn begin_replay(&self, routine_id: &str, run_id: Option<&str>, params: &Value) -> Result<ReplayRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO routine_replays (id, routine_id, run_id, status, params, pid, started_at)
                 VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6) RETURNING *",
            )
            .bind(new_id("replay"))
            .bind(routine_id)
            .bind(run_id)
            .bind(params.to_string())
            .bind(i64::from(std::process::id()))
            .bind(now())
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    /// Step `step` starts. One that may change something is written
    /// durably first (`synchronous=FULL`): a crash after this never lets
    /// the step run again on its own.
    pub async fn step_started(&self, replay_id: &str, step: usize, side_effect: bool) -> Result<()> {
        let mut tx = if side_effect { self.store.begin_durable().await? } else { self.store.begin_write().await? };
        sqlx::query("UPDATE routine_replays SET step = ?2, in_flight = ?3 WHERE id = ?1")
            .bind(replay_id)
            .bind(i64::try_from(step).unwrap_or(i64::MAX))
            .bind(side_effect)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Step `step` ended (whatever its outcome).
    pub async fn step_ended(&self, replay_id: &str, step: usize) -> Result<()> {
        sqlx::query("UPDATE routine_replays SET in_flight = 0, done = ?2 WHERE id = ?1")
            .bind(replay_id)
            .bind(i64::try_from(step + 1).unwrap_or(i64::MAX))
            .execute(self.store.pool())
            .await?;
        Ok(())
    }

    /// The replay ended with `status` and its report.
    pub async fn end_replay(&self, replay_id: &str, status: &str, report: &Value) -> Result<()> {
        sqlx::query(
            "UPDATE routine_replays SET status = ?2, report = ?3, in_flight = 0, ended_at = ?4
             WHERE id = ?1 AND status = 'running'",
        )
        .bind(replay_id)
        .bind(status)
        .bind(report.to_string())
        .bind(now())
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Replays of `routine_id` still `running`: a process that died left
    /// them (one process replays a routine at a time).
    pub async fn running_replays(&self, routine_id: &str) -> Result<Vec<ReplayRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM routine_replays WHERE routine_id = ?1 AND status = 'running' ORDER BY started_at",
        )
        .bind(routine_id)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// The latest `limit` replays of a routine, newest first.
    pub async fn replays(&self, routine_id: &str, limit: u32) -> Result<Vec<ReplayRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM routine_replays WHERE routine_id = ?1 ORDER BY started_at DESC, rowid DESC LIMIT ?2",
        )
        .bind(routine_id)
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    #[tokio::test]
    async fn routines_are_named_once_and_replays_journaled() {
        let (_dir, store) = open_temp().await;
        let r = store.routines().create("giá laptop", Some("run-1"), &json!({"steps": []})).await.unwrap();
        let again = store.routines().create("giá laptop", None, &json!({})).await.unwrap_err();
        assert_eq!(again.code(), ErrorCode::InvalidArguments);
        assert_eq!(store.routines().get("giá laptop").await.unwrap().unwrap().id, r.id);

        let replay = store.routines().begin_replay(&r.id, None, &json!({"url": "x"})).await.unwrap();
        store.routines().step_started(&replay.id, 2, true).await.unwrap();
        let left = store.routines().running_replays(&r.id).await.unwrap();
        assert_eq!((left.len(), left[0].step, left[0].in_flight), (1, Some(2), true));
        store.routines().step_ended(&replay.id, 2).await.unwrap();
        store.routines().end_replay(&replay.id, "completed", &json!({"answer": "ok"})).await.unwrap();
        assert!(store.routines().running_replays(&r.id).await.unwrap().is_empty());
        let done = &store.routines().replays(&r.id, 5).await.unwrap()[0];
        assert_eq!((done.status.as_str(), done.done, done.in_flight), ("completed", 3, false));

        assert!(store.routines().delete("giá laptop").await.unwrap());
        assert!(!store.routines().delete("giá laptop").await.unwrap());
        assert_eq!(store.routines().set_plan("giá laptop", &json!({})).await.unwrap_err().code(), ErrorCode::NotFound);
    }
}
