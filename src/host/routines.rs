//! The routine ops: save a finished run as a routine, list, show, edit its
//! parameters, delete, replay it (`crate::routine`) for the caller, whose
//! confirmer answers the questions its steps raise; schedule, pause and
//! unschedule it. The scheduled replays themselves: the watch scheduler's
//! pass (`host::watches`) calls [`Host::run_due_routines`], which claims
//! each due routine and replays it on a task of its own as a background
//! run whose questions go to the panel (a dialog, and a notification when
//! the panel is hidden), its result to the inbox.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Caller, Host};
use crate::context::{CallContext, Cancel, FrontEnd};
use crate::error::{Error, Result};
use crate::protocol::{Event, Reply};
use crate::routine::schedule::{self, Ended, ScheduleView};
use crate::routine::{self, ParamEdits, ReplayOptions, RoutineView};
use crate::store::routines::{DueRoutine, RoutineRow};
use crate::store::watch_alerts::AlertChannel;

/// How many replays `ShowRoutine` lists.
const SHOWN_REPLAYS: u32 = 10;

fn value<T: serde::Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::internal("cannot serialise a routine").with_source(e))
}

impl Host {
    /// [`Op::SaveRoutine`](crate::protocol::Op::SaveRoutine).
    pub(super) async fn save_routine(&self, run_id: &str, name: &str) -> Result<Reply> {
        let saved = routine::save(self.core.store(), run_id, name).await?;
        Ok(Reply::Routine { routine: value(&saved)? })
    }

    /// [`Op::ListRoutines`](crate::protocol::Op::ListRoutines): each with
    /// its schedule and last replay.
    pub(super) async fn list_routines(&self) -> Result<Reply> {
        let rows = self.core.store().routines().list().await?;
        let mut routines = Vec::with_capacity(rows.len());
        for row in rows {
            routines.push(self.routine_json(row, SHOWN_REPLAYS).await?);
        }
        Ok(Reply::Routines { routines })
    }

    /// [`Op::ShowRoutine`](crate::protocol::Op::ShowRoutine).
    pub(super) async fn show_routine(&self, name: &str) -> Result<Reply> {
        let row = routine::find(self.core.store(), name).await?;
        Ok(Reply::Routine { routine: self.routine_json(row, SHOWN_REPLAYS).await? })
    }

    /// A routine as the front ends get it: its plan, `schedule` (null when
    /// none), `last` (its latest replay: status, answer, when, who started
    /// it) and its latest `replays`.
    async fn routine_json(&self, row: RoutineRow, replays: u32) -> Result<Value> {
        let store = self.core.store();
        let schedule = store.routines().schedule(&row.id).await?;
        let replays = store.routines().replays(&row.id, replays).await?;
        let last = replays.first().map(|r| {
            json!({
                "status": r.status,
                "answer": r.report.as_ref().and_then(|rep| rep.get("answer").cloned()).unwrap_or(Value::Null),
                "stopped": r.report.as_ref().and_then(|rep| rep.get("stopped").cloned()).unwrap_or(Value::Null),
                "started_at": r.started_at,
                "ended_at": r.ended_at,
                "trigger": r.trigger,
            })
        });
        let id = row.id.clone();
        let mut shown = value(&RoutineView::from_row(row)?)?;
        shown["schedule"] = value(&schedule.as_ref().map(ScheduleView::of))?;
        shown["last"] = last.unwrap_or(Value::Null);
        shown["replays"] = value(&replays)?;
        let versions = store.routines().versions(&id).await?;
        shown["versions"] = Value::Array(
            versions
                .iter()
                .map(|v| json!({"revision": v.revision, "replaced_because": v.replaced_because, "replaced_at": v.replaced_at}))
                .collect(),
        );
        Ok(shown)
    }

    /// [`Op::ScheduleRoutine`](crate::protocol::Op::ScheduleRoutine): due
    /// at once, then every `every`; with `at`, at the next time the
    /// computer's clock shows it, then every `every` from there.
    pub(super) async fn schedule_routine(&self, name: &str, every: &str, at: Option<&str>) -> Result<Reply> {
        let store = self.core.store();
        let row = routine::find(store, name).await?;
        let secs = schedule::parse_every(every)?;
        let at = at.map(str::trim).filter(|a| !a.is_empty()).map(schedule::parse_at).transpose()?;
        let next = match &at {
            Some(at) => schedule::first_at(&chrono::Local, at, chrono::Utc::now()),
            None => crate::store::now(),
        };
        store.routines().set_schedule(&row.id, secs, at.as_deref(), &next).await?;
        self.tell_routine(name, None);
        self.show_routine(name).await
    }

    /// [`Op::PauseRoutine`](crate::protocol::Op::PauseRoutine): resumed,
    /// due at once (on a time of day: the next time the clock shows it).
    pub(super) async fn pause_routine(&self, name: &str, paused: bool) -> Result<Reply> {
        let store = self.core.store();
        let row = routine::find(store, name).await?;
        let at = store.routines().schedule(&row.id).await?.and_then(|s| s.at_time);
        let next = (!paused).then(|| match &at {
            Some(at) => schedule::first_at(&chrono::Local, at, chrono::Utc::now()),
            None => crate::store::now(),
        });
        if store.routines().pause_schedule(&row.id, paused, next.as_deref()).await?.is_none() {
            return Err(not_scheduled(name));
        }
        if paused && let Some(cancel) = self.replaying().get(&row.id) {
            cancel.cancel();
        }
        self.tell_routine(name, None);
        self.show_routine(name).await
    }

    /// [`Op::UnscheduleRoutine`](crate::protocol::Op::UnscheduleRoutine).
    pub(super) async fn unschedule_routine(&self, name: &str) -> Result<Reply> {
        let store = self.core.store();
        let row = routine::find(store, name).await?;
        if !store.routines().remove_schedule(&row.id).await? {
            return Err(not_scheduled(name));
        }
        self.tell_routine(name, None);
        self.show_routine(name).await
    }

    /// [`Op::SetRoutineRepair`](crate::protocol::Op::SetRoutineRepair).
    pub(super) async fn set_routine_repair(&self, name: &str, allowed: bool) -> Result<Reply> {
        let store = self.core.store();
        let row = routine::find(store, name).await?;
        let mut plan = routine::plan_of(&row)?;
        plan.repair = allowed;
        store.routines().set_plan(name, &value(&plan)?).await?;
        self.tell_routine(name, None);
        self.show_routine(name).await
    }

    /// The model that may repair routine `name`'s steps: the saved model
    /// settings' when the routine allows repairs (none when it does not, or
    /// when no model is configured: such a step then stops the replay).
    async fn repairer(&self, name: &str) -> Option<Arc<dyn crate::context::Language>> {
        let row = routine::find(self.core.store(), name).await.ok()?;
        if !routine::plan_of(&row).ok()?.repair {
            return None;
        }
        match self.agent_model(None).await {
            Ok((client, model)) => Some(Arc::new(crate::agent::ModelFieldFallback::new(client, model))),
            Err(e) => {
                tracing::warn!("routine `{name}`: no model to repair a step with: {}", e.message());
                None
            }
        }
    }

    fn tell_routine(&self, name: &str, status: Option<&str>) {
        let _ = self.events.send(Event::Routines { name: name.to_owned(), status: status.map(str::to_owned) });
    }

    fn replaying(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Cancel>> {
        self.replaying.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stop the scheduled replays going on (the tray's pause, closing).
    pub(super) fn stop_scheduled_replays(&self) {
        self.replaying().values().for_each(Cancel::cancel);
    }

    /// Start the replays of the routines due now, each claimed first (so
    /// another process serving the same data directory does not start it
    /// too) with its next run moved on, and replayed on a task of its own:
    /// a replay waiting for the user's answer holds no watch check back.
    /// A routine still replaying from an earlier pass is left for later.
    pub(super) async fn run_due_routines(self: &Arc<Self>) {
        let store = self.core.store();
        let at = crate::store::now();
        let due = match store.routines().due(&at).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!("routine scheduler: cannot read the due routines: {}", e.message());
                return;
            }
        };
        for d in due {
            if self.replaying().contains_key(&d.routine_id) {
                continue;
            }
            let next = schedule::next_after(d.at_time.as_deref(), d.every_secs, &d.next_run_at, &at);
            match store.routines().claim_due(&d.routine_id, &d.next_run_at, &at, &next).await {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!("routine scheduler: cannot claim `{}`: {}", d.name, e.message());
                    continue;
                }
            }
            let cancel = Cancel::new();
            self.replaying().insert(d.routine_id.clone(), cancel.clone());
            let host = Arc::clone(self);
            tokio::spawn(async move { Box::pin(host.scheduled_replay(d, cancel)).await });
        }
    }

    /// One scheduled replay, in the background: its questions go to the
    /// panel's channel (the desktop shows the dialog, and notifies when the
    /// panel is hidden; nobody answering is a denial), its result to the
    /// inbox, and to a notification when its values changed or it stopped.
    async fn scheduled_replay(self: Arc<Self>, due: DueRoutine, cancel: Cancel) {
        let cx =
            CallContext::new(FrontEnd::Background).with_confirmer(self.panel_confirmer()).with_cancel(cancel.clone());
        let options =
            ReplayOptions { scheduled: true, repairer: self.repairer(&due.name).await, ..ReplayOptions::default() };
        let ended = match routine::replay(&self.core, cx, &due.name, options).await {
            Ok(report) => Ended::of(&report),
            Err(e) => Ended {
                key: crate::store::new_id("replay-refused"),
                status: "failed".into(),
                answer: None,
                why: Some(e.message().to_owned()),
            },
        };
        self.replaying().remove(&due.routine_id);
        // Stopped by the tray's pause or the host closing: nothing to tell.
        if cancel.is_cancelled() || self.closing() {
            return;
        }
        if let Err(e) = self.tell_result(&due, &ended).await {
            tracing::warn!("routine scheduler: the result of `{}` is not in the inbox: {}", due.name, e.message());
        }
        self.tell_routine(&due.name, Some(&ended.status));
    }

    /// A scheduled replay's result into the inbox (and a notification when
    /// it changed or stopped), then the tray's count.
    async fn tell_result(&self, due: &DueRoutine, ended: &Ended) -> Result<()> {
        let store = self.core.store();
        let last = store.routines().schedule(&due.routine_id).await?;
        let (last_status, last_answer) = last.map(|s| (s.last_status, s.last_answer)).unwrap_or_default();
        let outcome =
            schedule::outcome(last_status.as_deref(), last_answer.as_deref(), &ended.status, ended.answer.as_deref());
        let row = schedule::record_result(store, &due.routine_id, &due.name, ended, &outcome).await?;
        store.routines().set_last_result(&due.routine_id, &ended.status, ended.answer.as_deref()).await?;
        if let Some(row) = row.filter(|r| r.channel == AlertChannel::Push) {
            crate::notify::deliver(store, vec![row]).await?;
        }
        let unread = store.watch_alerts().unread_count().await?;
        let _ = self.events.send(Event::Watches { checked: 0, unread: u32::try_from(unread).unwrap_or(u32::MAX) });
        Ok(())
    }

    /// [`Op::DeleteRoutine`](crate::protocol::Op::DeleteRoutine).
    pub(super) async fn delete_routine(&self, name: &str) -> Result<Reply> {
        let store = self.core.store();
        routine::find(store, name).await?;
        store.routines().delete(name).await?;
        Ok(Reply::Done)
    }

    /// [`Op::EditRoutineParams`](crate::protocol::Op::EditRoutineParams).
    pub(super) async fn edit_routine_params(&self, name: &str, edits: ParamEdits) -> Result<Reply> {
        let store = self.core.store();
        let row = routine::find(store, name).await?;
        let mut plan = routine::plan_of(&row)?;
        routine::edit_params(&mut plan, &edits)?;
        store.routines().set_plan(name, &value(&plan)?).await?;
        self.show_routine(name).await
    }

    /// [`Op::ForgetRoutineApprovals`](crate::protocol::Op::ForgetRoutineApprovals).
    pub(super) async fn forget_routine_approvals(&self, name: &str) -> Result<Reply> {
        let store = self.core.store();
        let row = routine::find(store, name).await?;
        let mut plan = routine::plan_of(&row)?;
        plan.standing.clear();
        store.routines().set_plan(name, &value(&plan)?).await?;
        self.show_routine(name).await
    }

    /// [`Op::RunRoutine`](crate::protocol::Op::RunRoutine): refused while the
    /// agent is paused.
    pub(super) async fn run_routine(&self, caller: &Caller, name: &str, options: ReplayOptions) -> Result<Reply> {
        if self.paused.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(Error::invalid_arguments("the agent is paused: resume it before replaying a routine"));
        }
        let options = ReplayOptions { repairer: self.repairer(name).await, ..options };
        let report = routine::replay(&self.core, caller.context(), name, options).await?;
        self.tell_routine(name, Some(&report.status));
        Ok(Reply::RoutineReplayed { report: value(&report)? })
    }
}

fn not_scheduled(name: &str) -> Error {
    Error::invalid_arguments(format!(
        "routine `{name}` has no schedule: `halley routine schedule {name} --every 1d` gives it one"
    ))
}
