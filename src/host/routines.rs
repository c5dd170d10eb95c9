//! The routine ops: save a finished run as a routine, list, show, edit its
//! parameters, delete, replay it (`crate::routine`) for the caller, whose
//! confirmer answers the questions its steps raise.

use serde_json::Value;

use super::{Caller, Host};
use crate::error::{Error, Result};
use crate::protocol::Reply;
use crate::routine::{self, ParamEdits, ReplayOptions, RoutineView};

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

    /// [`Op::ListRoutines`](crate::protocol::Op::ListRoutines).
    pub(super) async fn list_routines(&self) -> Result<Reply> {
        let rows = self.core.store().routines().list().await?;
        let routines = rows.into_iter().map(|r| value(&RoutineView::from_row(r)?)).collect::<Result<_>>()?;
        Ok(Reply::Routines { routines })
    }

    /// [`Op::ShowRoutine`](crate::protocol::Op::ShowRoutine).
    pub(super) async fn show_routine(&self, name: &str) -> Result<Reply> {
        let store = self.core.store();
        let row = routine::find(store, name).await?;
        let replays = store.routines().replays(&row.id, SHOWN_REPLAYS).await?;
        let mut shown = value(&RoutineView::from_row(row)?)?;
        shown["replays"] = value(&replays)?;
        Ok(Reply::Routine { routine: shown })
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
        let report = routine::replay(&self.core, caller.context(), name, options).await?;
        Ok(Reply::RoutineReplayed { report: value(&report)? })
    }
}
