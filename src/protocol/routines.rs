//! Why a finished run cannot be kept as a routine, said by kind so that each
//! front end has its own words for it ([`super::Op::CanSaveRoutine`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What stops a run from being saved as a routine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoutineRefusal {
    /// No run has that id.
    NotFound,
    /// The run did not complete: it is still running, was stopped, failed,
    /// or waits (`status`, the run's own, as `RunStatus` writes it).
    NotCompleted { status: String },
    /// The run used a tool a replay cannot redo without the model.
    NotReplayable {
        tool: String,
        /// Why, in the CLI's words.
        why: String,
    },
    /// The run made no call a routine replays (it only answered).
    NothingToReplay,
}
