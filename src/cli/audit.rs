//! `halley audit`: the audit trail, newest first — every gate decision with
//! its run, tool, declared and effective scope, decision, who answered and
//! origin, and every skill's own call (who called it, how it ended).

use std::path::Path;
use std::process::ExitCode;

use serde_json::{Value, json};

use super::{EXIT_FAILURE, fail, out};
use crate::error::Error;
use crate::paths::DataDir;
use crate::store::Store;
use crate::store::audit_log::AuditRow;

/// How many entries `halley audit` shows without `--limit`.
pub const DEFAULT_LIMIT: u32 = 50;

pub async fn run(data_dir: Option<&Path>, json: bool, limit: u32) -> ExitCode {
    let rows = match read(data_dir, limit).await {
        Ok(rows) => rows,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let entries: Vec<Value> = rows.iter().map(entry).collect();
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
async fn read(data_dir: Option<&Path>, limit: u32) -> Result<Vec<AuditRow>, Error> {
    let dir = DataDir::resolve(data_dir)?;
    if !dir.db_path().exists() {
        return Ok(Vec::new());
    }
    let store = Store::open(&dir.db_path()).await?;
    let rows = store.audit_log().recent(limit).await;
    store.close().await;
    rows
}

/// One entry as `audit --json` prints it: the gate decision's fields
/// lifted out of `detail` (null for other events); a skill's call
/// (`skill_call`) adds its `call_id`, `status`, `error_code` and `outcome`.
fn entry(row: &AuditRow) -> Value {
    let d = |k: &str| row.detail.get(k).cloned().unwrap_or(Value::Null);
    let mut entry = json!({
        "id": row.id,
        "at": row.at,
        "event": row.event,
        "tool": row.tool,
        "declared": d("declared"),
        "effective": row.scope,
        "decision": row.decision,
        "answered_by": row.actor,
        "origin": d("origin"),
        "run_id": row.run_id,
        "args_hash": d("args_hash"),
        "reason": d("reason"),
        "reasons": row.detail.get("reasons").cloned().unwrap_or_else(|| json!([])),
    });
    if row.event == crate::gate::audit::SKILL_CALL
        && let Some(fields) = entry.as_object_mut()
    {
        for key in ["call_id", "status", "error_code", "outcome"] {
            fields.insert(key.to_owned(), d(key));
        }
    }
    entry
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
