//! `halley audit`: the audit trail, newest first — every gate decision with
//! its run, tool, declared and effective scope, decision, who answered and
//! origin, and every skill's own call (who called it, how it ended);
//! through the host's `AuditLog` as any front end's.

use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use super::{EXIT_FAILURE, fail, out};
use crate::core::BrowserSettings;
use crate::error::Error;
use crate::host::Host;
use crate::paths::DataDir;
use crate::protocol::{AuditEntry, Op, Reply};

/// How many entries `halley audit` shows without `--limit`.
pub const DEFAULT_LIMIT: u32 = 50;

pub async fn run(data_dir: Option<&Path>, json: bool, limit: u32) -> ExitCode {
    let rows = match read(data_dir, limit).await {
        Ok(rows) => rows,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    // As `--json` prints them: the host's entries as JSON objects.
    let entries: Vec<Value> = rows.iter().map(|e| serde_json::to_value(e).unwrap_or(Value::Null)).collect();
    if json {
        return print_json(&entries);
    }
    if entries.is_empty() {
        out("no audit entries yet");
        return ExitCode::SUCCESS;
    }
    let text = |v: &Value, k: &str| v[k].as_str().unwrap_or("-").to_owned();
    // What an entry is about: a gate decision's tool, a skill call's skill
    // and how it ended, else the event.
    let about = |e: &Value| match e["event"].as_str() {
        Some("gate_decision") => text(e, "tool"),
        Some(crate::gate::audit::SKILL_CALL) => format!("{} ({})", text(e, "tool"), text(e, "outcome")),
        _ => text(e, "event"),
    };
    let tool_width = entries.iter().map(|e| about(e).chars().count()).max().unwrap_or(4).max(4);
    // A run id is a UUID: its first 8 characters tell runs apart on screen
    // (`--json` has it whole).
    out(&format!(
        "{:24}  {:8}  {:tool_width$}  {:46}  {:8}  {:8}  ORIGIN",
        "TIME", "RUN", "TOOL", "SCOPE", "DECISION", "BY"
    ));
    for e in &entries {
        let scope = match (e["declared"].as_str(), e["effective"].as_str()) {
            (Some(d), Some(f)) => format!("{d} → {f}"),
            (None, Some(f)) => f.to_owned(),
            _ => "-".to_owned(),
        };
        let tool = about(e);
        let run: String = text(e, "run_id").chars().take(8).collect();
        out(&format!(
            "{:24}  {:8}  {:tool_width$}  {:46}  {:8}  {:8}  {}",
            text(e, "at"),
            run,
            tool,
            scope,
            text(e, "decision"),
            text(e, "answered_by"),
            text(e, "origin")
        ));
    }
    ExitCode::SUCCESS
}

/// The latest entries; none (and nothing created) when there is no database yet.
async fn read(data_dir: Option<&Path>, limit: u32) -> Result<Vec<AuditEntry>, Error> {
    let dir = DataDir::resolve(data_dir)?;
    if !dir.db_path().exists() {
        return Ok(Vec::new());
    }
    let host = Host::open(dir, BrowserSettings::default()).await?;
    let reply = host.handle(Op::AuditLog { limit }).await;
    host.close().await;
    match reply? {
        Reply::AuditLog { entries } => Ok(entries),
        _ => Err(Error::internal("the host did not answer with the audit log")),
    }
}

/// Print a value as pretty JSON on stdout.
pub(super) fn print_json<T: serde::Serialize>(value: &T) -> ExitCode {
    match serde_json::to_string_pretty(value) {
        Ok(s) => {
            out(&s);
            ExitCode::SUCCESS
        }
        Err(e) => fail(&Error::internal("cannot serialise output").with_source(e), EXIT_FAILURE),
    }
}
