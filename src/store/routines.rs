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
    /// `user` (a replay asked for) or `schedule` (the host's scheduler).
    pub trigger: String,
}

/// A routine's schedule (`routine_schedules`).
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct ScheduleRow {
    pub routine_id: String,
    pub every_secs: i64,
    /// `HH:MM` local time its replays fall on (none: from the last claim).
    pub at_time: Option<String>,
    pub paused: bool,
    /// When it is due next (RFC 3339, UTC).
    pub next_run_at: String,
    pub last_run_at: Option<String>,
    /// The last scheduled replay's status and answer.
    pub last_status: Option<String>,
    pub last_answer: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// An earlier plan of a routine (`routine_versions`).
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct VersionRow {
    pub routine_id: String,
    pub revision: i64,
    #[sqlx(json)]
    pub plan: Value,
    pub replaced_because: String,
    pub replaced_at: String,
}

/// A schedule that is due, with its routine's name.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct DueRoutine {
    pub routine_id: String,
    pub name: String,
    pub every_secs: i64,
    pub at_time: Option<String>,
    pub next_run_at: String,
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

    /// Start a replay (status `running`); `trigger`: `user` or `schedule`.
    pub async fn begin_replay(
        &self,
        routine_id: &str,
        run_id: Option<&str>,
        params: &Value,
        trigger: &str,
    ) -> Result<ReplayRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO routine_replays (id, routine_id, run_id, status, params, pid, started_at, trigger)
                 VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7) RETURNING *",
            )
            .bind(new_id("replay"))
            .bind(routine_id)
            .bind(run_id)
            .bind(params.to_string())
            .bind(i64::from(std::process::id()))
            .bind(now())
            .bind(trigger)
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

    /// Replace a routine's plan by a new version: the plan it had
    /// (`old`, version `revision`) kept with why, in one transaction.
    pub async fn new_version(
        &self,
        routine_id: &str,
        revision: u32,
        old: &Value,
        new: &Value,
        because: &str,
    ) -> Result<()> {
        let at = now();
        let mut tx = self.store.begin_write().await?;
        sqlx::query(
            "INSERT INTO routine_versions (routine_id, revision, plan, replaced_because, replaced_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .bind(routine_id)
        .bind(i64::from(revision))
        .bind(old.to_string())
        .bind(because)
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE routines SET plan = ?2, updated_at = ?3 WHERE id = ?1")
            .bind(routine_id)
            .bind(new.to_string())
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// A routine's earlier plans, newest first.
    pub async fn versions(&self, routine_id: &str) -> Result<Vec<VersionRow>> {
        Ok(sqlx::query_as("SELECT * FROM routine_versions WHERE routine_id = ?1 ORDER BY revision DESC")
            .bind(routine_id)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Schedule a routine every `every_secs` (at the local time `at_time`
    /// when given), due at `next_run_at` (active: a paused schedule
    /// resumes). Its last result is kept.
    pub async fn set_schedule(
        &self,
        routine_id: &str,
        every_secs: i64,
        at_time: Option<&str>,
        next_run_at: &str,
    ) -> Result<ScheduleRow> {
        let at = now();
        super::returned(
            sqlx::query_as(
                "INSERT INTO routine_schedules
                     (routine_id, every_secs, at_time, paused, next_run_at, created_at, updated_at)
                 VALUES (?1, ?2, ?5, 0, ?3, ?4, ?4)
                 ON CONFLICT (routine_id) DO UPDATE SET every_secs = ?2, at_time = ?5, paused = 0,
                     next_run_at = ?3, updated_at = ?4
                 RETURNING *",
            )
            .bind(routine_id)
            .bind(every_secs)
            .bind(next_run_at)
            .bind(at)
            .bind(at_time)
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    /// A routine's schedule, if it has one.
    pub async fn schedule(&self, routine_id: &str) -> Result<Option<ScheduleRow>> {
        Ok(sqlx::query_as("SELECT * FROM routine_schedules WHERE routine_id = ?1")
            .bind(routine_id)
            .fetch_optional(self.store.pool())
            .await?)
    }

    /// Pause or resume a schedule (resumed: due at `next_run_at`). `None`
    /// when the routine has no schedule.
    pub async fn pause_schedule(
        &self,
        routine_id: &str,
        paused: bool,
        next_run_at: Option<&str>,
    ) -> Result<Option<ScheduleRow>> {
        Ok(sqlx::query_as(
            "UPDATE routine_schedules SET paused = ?2, next_run_at = coalesce(?3, next_run_at), updated_at = ?4
             WHERE routine_id = ?1 RETURNING *",
        )
        .bind(routine_id)
        .bind(paused)
        .bind(next_run_at)
        .bind(now())
        .fetch_optional(self.store.pool())
        .await?)
    }

    /// Remove a routine's schedule; `false` when it had none.
    pub async fn remove_schedule(&self, routine_id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM routine_schedules WHERE routine_id = ?1")
            .bind(routine_id)
            .execute(self.store.pool())
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The active schedules due at `at` (RFC 3339, as [`now`] writes),
    /// most overdue first.
    pub async fn due(&self, at: &str) -> Result<Vec<DueRoutine>> {
        Ok(sqlx::query_as(
            "SELECT s.routine_id, r.name, s.every_secs, s.at_time, s.next_run_at
             FROM routine_schedules s JOIN routines r ON r.id = s.routine_id
             WHERE s.paused = 0 AND s.next_run_at <= ?1 ORDER BY s.next_run_at",
        )
        .bind(at)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// Claim a due replay: its next run moved to `next`, its start written
    /// `at`, only while it is still due as `was` (another process claiming
    /// it first makes this `false`).
    pub async fn claim_due(&self, routine_id: &str, was: &str, at: &str, next: &str) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE routine_schedules SET next_run_at = ?4, last_run_at = ?3
             WHERE routine_id = ?1 AND next_run_at = ?2 AND paused = 0",
        )
        .bind(routine_id)
        .bind(was)
        .bind(at)
        .bind(next)
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A scheduled replay's outcome, what the next one compares with (an
    /// answer only replaces the last one when there is one).
    pub async fn set_last_result(&self, routine_id: &str, status: &str, answer: Option<&str>) -> Result<()> {
        sqlx::query(
            "UPDATE routine_schedules SET last_status = ?2, last_answer = coalesce(?3, last_answer)
             WHERE routine_id = ?1",
        )
        .bind(routine_id)
        .bind(status)
        .bind(answer)
        .execute(self.store.pool())
        .await?;
        Ok(())
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

        let replay = store.routines().begin_replay(&r.id, None, &json!({"url": "x"}), "user").await.unwrap();
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

    #[tokio::test]
    async fn a_schedule_is_due_claimed_once_paused_and_removed_with_its_routine() {
        let (_dir, store) = open_temp().await;
        let r = store.routines().create("giá", None, &json!({"steps": []})).await.unwrap();
        let s = store.routines().set_schedule(&r.id, 3600, None, "2026-01-01T00:00:00.000Z").await.unwrap();
        assert_eq!((s.every_secs, s.paused, s.last_status), (3600, false, None));
        let routines = store.routines();
        assert!(routines.due("2025-12-31T23:59:59.999Z").await.unwrap().is_empty());
        let due = routines.due("2026-01-01T00:00:00.000Z").await.unwrap();
        assert_eq!((due.len(), due[0].name.as_str()), (1, "giá"));
        let (was, at, next) = (&due[0].next_run_at, "2026-01-01T00:00:01.000Z", "2026-01-01T01:00:01.000Z");
        assert!(routines.claim_due(&r.id, was, at, next).await.unwrap());
        assert!(!routines.claim_due(&r.id, was, at, next).await.unwrap(), "claimed once");
        assert!(routines.due("2026-01-01T00:30:00.000Z").await.unwrap().is_empty());

        routines.set_last_result(&r.id, "completed", Some("19.990.000 ₫")).await.unwrap();
        routines.set_last_result(&r.id, "stopped", None).await.unwrap();
        let s = routines.schedule(&r.id).await.unwrap().unwrap();
        assert_eq!((s.last_status.as_deref(), s.last_answer.as_deref()), (Some("stopped"), Some("19.990.000 ₫")));

        let paused = routines.pause_schedule(&r.id, true, None).await.unwrap().unwrap();
        assert!(paused.paused);
        assert!(routines.due("2027-01-01T00:00:00.000Z").await.unwrap().is_empty(), "paused: never due");
        routines.pause_schedule(&r.id, false, Some("2026-02-01T00:00:00.000Z")).await.unwrap();
        assert_eq!(routines.due("2026-02-01T00:00:00.000Z").await.unwrap().len(), 1);

        assert!(routines.delete("giá").await.unwrap());
        assert!(routines.schedule(&r.id).await.unwrap().is_none(), "gone with its routine");
        assert!(!routines.remove_schedule(&r.id).await.unwrap());
    }
}
