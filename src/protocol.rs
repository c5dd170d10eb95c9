//! The one contract between Halley's core and a long-lived front end (the
//! desktop panel now, the local API later): [`Op`]s come in, [`Event`]s go
//! out. Each `Op` says what answers it: a direct [`Reply`] and/or events.
//! Serialised as JSON with a `type` tag in snake_case; statuses, reasons,
//! roles and codes are enums. The UI's TypeScript types
//! (`ui/src/protocol.gen.ts`) are generated from these types by
//! [`typescript::render`]: after changing anything reachable from `Op`,
//! `Reply` or `Event`, run `make protocol` (a unit test fails while the
//! committed file is stale).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

pub use crate::error::ErrorCode;
// The contract's vocabulary, defined here; the store keeps it, the gate
// and the agent produce it.
pub use crate::tools::catalogue::watches::WatchAlert;
pub use crate::tools::{PermissionScope, ToolResultV2, ToolSpec};
pub use agent::AgentEvent;
pub use asks::{
    Act, AmountParts, AmountSource, Carry, ChallengeAnswer, ChallengeEvidence, ChallengeRequest, ConfirmAmount,
    ConfirmField, ConfirmKind, ConfirmationRequest, Control, Grading, Means, Place, PlainReason,
};
pub use status::{GateRuleRow, Role, RuleDecision, RuleKind, RunStatus, StopReason, ToolCallStatus};

mod agent;
mod asks;
mod event;
mod models;
mod op;
mod reply;
mod routines;
mod settings;
pub mod status;
pub mod typescript;

pub use event::*;
pub use models::*;
pub use op::*;
pub use reply::*;
pub use routines::*;
pub use settings::*;

/// Who started a run (or made a direct call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FrontEnd {
    /// The desktop side panel.
    #[default]
    Panel,
    /// The `halley` command line.
    Cli,
    /// A background run (a watch): its questions go to the panel and a
    /// notification; it never takes the user's focus.
    Background,
    /// A client of the local HTTP API.
    Api,
    /// An MCP client.
    Mcp,
}

impl FrontEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            FrontEnd::Panel => "panel",
            FrontEnd::Cli => "cli",
            FrontEnd::Background => "background",
            FrontEnd::Api => "api",
            FrontEnd::Mcp => "mcp",
        }
    }

    /// Whether runs of this front end act in front of the user: they start
    /// on the tab the user looks at and may bring their tabs forward. The
    /// others open their own tabs in the background.
    pub fn in_foreground(self) -> bool {
        matches!(self, FrontEnd::Panel | FrontEnd::Cli)
    }
}

impl std::fmt::Display for FrontEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;
