//! The gatekeeper's confirmation channel: before a tool that is declared to
//! need the user's consent runs (an upload sends a file off the machine),
//! the front end is asked. No answer, or no one to ask, is a refusal.
//!
//! The full gate (effective scope of the real action, policies, the audit
//! log, challenge hand-off) builds on this in the gatekeeper issue.

pub mod action;

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::tools::ToolSpec;
use crate::tools::catalogue::safety::ConfirmResultV1;

/// What the user is asked to approve, written by code from the call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfirmationRequest {
    pub tool: String,
    pub action_summary: String,
    pub scope: String,
    pub risk_level: String,
    pub arguments: Value,
}

impl ConfirmationRequest {
    pub fn for_call(spec: &ToolSpec, args: &Value) -> ConfirmationRequest {
        ConfirmationRequest {
            tool: spec.name.clone(),
            action_summary: summary(spec, args),
            scope: spec.permission_scope.as_str().to_owned(),
            risk_level: spec.risk_level.as_str().to_owned(),
            arguments: args.clone(),
        }
    }
}

fn summary(spec: &ToolSpec, args: &Value) -> String {
    let s = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or_default();
    match spec.name.as_str() {
        "browser_upload_file" => {
            let target = if s("ref").is_empty() { s("selector") } else { s("ref") };
            format!(
                "Upload {} into the file field {target} of the current page (the file leaves this computer)",
                s("file_ref")
            )
        }
        "browser_close_tab" => format!("Close tab {} (anything typed there is lost)", s("tab_id")),
        _ => format!("Run {} ({})", spec.name, spec.permission_scope),
    }
}

/// Who answers confirmation requests.
pub trait Confirmer: Send + Sync + std::fmt::Debug {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>>;
}

/// Refuses everything: the default when nobody can be asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Confirmer for DenyAll {
    fn confirm<'a>(
        &'a self,
        _request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async {
            ConfirmResultV1 {
                approved: false,
                user_edits: Map::new(),
                reason: "no one was there to confirm it (use --yes where you wrote the calls yourself, or run in a terminal)"
                    .into(),
            }
        })
    }
}

/// Approves everything: `halley tools call|script --yes`, where the user
/// wrote every call themselves. Never used for model-chosen calls.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

impl Confirmer for ApproveAll {
    fn confirm<'a>(
        &'a self,
        _request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async {
            ConfirmResultV1 { approved: true, user_edits: Map::new(), reason: "approved in advance with --yes".into() }
        })
    }
}
