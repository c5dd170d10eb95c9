//! The run history and the audit trail, read from the store for a front
//! end (`halley runs`, `halley audit`): the runs kept (ended ones too), one
//! run with its steps, tool calls, messages and provider traces, and the
//! audit entries with the gate decision's fields lifted out.

use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::gate::audit::SKILL_CALL;
use crate::protocol::{AuditEntry, Reply, RunMessage, RunRecord, RunStep, RunToolCall, RunTrace};
use crate::store::Store;
use crate::store::audit_log::AuditRow;
use crate::store::runs::RunRow;

/// The latest `limit` runs, newest first.
pub async fn runs(store: &Store, limit: u32) -> Result<Reply> {
    let runs = store.runs().list(limit).await?.into_iter().map(record).collect();
    Ok(Reply::RunHistory { runs })
}

/// Run `run_id` with its steps, tool calls, its own messages and (with
/// `with_traces`) its provider traces; `not_found` for an unknown run.
pub async fn run(store: &Store, run_id: &str, with_traces: bool) -> Result<Reply> {
    let run = store.runs().get(run_id).await?.ok_or_else(|| Error::not_found(format!("no run `{run_id}`")))?;
    let steps = store.steps().for_run(run_id).await?;
    let messages = match &run.conversation_id {
        Some(c) => store
            .messages()
            .for_conversation(c)
            .await?
            .into_iter()
            .filter(|m| m.run_id.as_deref() == Some(run_id))
            .collect(),
        None => Vec::new(),
    };
    let calls = store.tool_calls().for_run(run_id).await?;
    let traces = if with_traces { Some(store.provider_traces().for_run(run_id).await?) } else { None };
    let step_idx =
        |step_id: &Option<String>| step_id.as_ref().and_then(|sid| steps.iter().find(|s| &s.id == sid)).map(|s| s.idx);
    let tool_calls = calls
        .into_iter()
        .map(|c| RunToolCall {
            step_idx: step_idx(&c.step_id),
            call_id: c.call_id,
            tool: c.tool,
            arguments: c.arguments,
            reasoning: c.reasoning,
            executor: c.executor,
            status: c.status,
            error_code: c.error_code,
            duration_ms: c.duration_ms,
            started_at: c.started_at,
        })
        .collect();
    let traces = traces.map(|traces| {
        traces
            .into_iter()
            .map(|t| RunTrace {
                step_idx: step_idx(&t.step_id),
                id: t.id,
                step_id: t.step_id,
                endpoint: t.endpoint,
                status: t.status,
                error: t.error,
                request: t.request,
                response: t.response,
                created_at: t.created_at,
            })
            .collect()
    });
    let messages = messages
        .into_iter()
        .map(|m| RunMessage {
            seq: m.seq,
            role: m.role,
            content: m.content,
            tool_calls: m.tool_calls,
            tool_call_id: m.tool_call_id,
            tool_name: m.tool_name,
        })
        .collect();
    let steps = steps
        .into_iter()
        .map(|s| RunStep {
            idx: s.idx,
            model: s.model,
            status: wire_name(s.status),
            prompt_tokens: s.prompt_tokens,
            completion_tokens: s.completion_tokens,
            latency_ms: s.latency_ms,
            error: s.error,
        })
        .collect();
    Ok(Reply::RunDetail { run: record(run), steps, tool_calls, messages, traces })
}

/// The latest `limit` audit entries, newest first.
pub async fn audit(store: &Store, limit: u32) -> Result<Reply> {
    let entries = store.audit_log().recent(limit).await?.iter().map(audit_entry).collect();
    Ok(Reply::AuditLog { entries })
}

fn record(r: RunRow) -> RunRecord {
    RunRecord {
        id: r.id,
        conversation_id: r.conversation_id,
        status: r.status,
        stop_reason: r.stop_reason,
        started_at: r.started_at,
        ended_at: r.ended_at,
    }
}

/// One entry: the gate decision's fields lifted out of `detail` (null for
/// other events); a skill's call (`skill_call`) adds its `call_id`,
/// `status`, `error_code` and `outcome`.
fn audit_entry(row: &AuditRow) -> AuditEntry {
    let d = |k: &str| row.detail.get(k).cloned().unwrap_or(Value::Null);
    let skill = |k: &str| (row.event == SKILL_CALL).then(|| d(k));
    AuditEntry {
        id: row.id,
        at: row.at.clone(),
        event: row.event.clone(),
        tool: row.tool.clone(),
        declared: d("declared"),
        effective: row.scope,
        decision: row.decision.map(wire_name),
        answered_by: row.actor.clone(),
        origin: d("origin"),
        run_id: row.run_id.clone(),
        args_hash: d("args_hash"),
        reason: d("reason"),
        reasons: row.detail.get("reasons").cloned().unwrap_or_else(|| json!([])),
        call_id: skill("call_id"),
        status: skill("status"),
        error_code: skill("error_code"),
        outcome: skill("outcome"),
    }
}

/// A unit enum's name as it is serialised (`completed`, `allow`).
fn wire_name<T: serde::Serialize>(value: T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::store::audit_log::{AuditDecision, NewAuditEntry};
    use crate::store::test_support::open_temp;
    use crate::tools::PermissionScope;

    #[tokio::test]
    async fn audit_entries_lift_the_decisions_fields_and_a_skill_calls_outcome() {
        let (_dir, store) = open_temp().await;
        let decision = NewAuditEntry {
            tool: Some("browser_click".into()),
            scope: Some(PermissionScope::Submit),
            decision: Some(AuditDecision::Ask),
            detail: json!({"declared": "WRITE_NON_DESTRUCTIVE", "origin": "https://shop.vn", "reason": "a form"}),
            ..NewAuditEntry::event("user", "gate_decision")
        };
        store.audit_log().append(&decision).await.unwrap();
        let skill = NewAuditEntry {
            tool: Some("plan_trip".into()),
            detail: json!({"call_id": "c1", "outcome": "ok"}),
            ..NewAuditEntry::event("agent", SKILL_CALL)
        };
        store.audit_log().append(&skill).await.unwrap();
        let Reply::AuditLog { entries } = audit(&store, 10).await.unwrap() else { panic!("not the audit log") };
        let v = serde_json::to_value(&entries).unwrap();
        assert_eq!(v[0]["event"], SKILL_CALL);
        assert_eq!((&v[0]["call_id"], &v[0]["outcome"], &v[0]["status"]), (&json!("c1"), &json!("ok"), &Value::Null));
        assert_eq!(v[0]["reasons"], json!([]));
        let gate = v[1].as_object().unwrap();
        assert!(!gate.contains_key("call_id") && !gate.contains_key("outcome"));
        assert_eq!(
            (&v[1]["declared"], &v[1]["effective"], &v[1]["decision"], &v[1]["answered_by"], &v[1]["origin"]),
            (
                &json!("WRITE_NON_DESTRUCTIVE"),
                &json!("SUBMIT"),
                &json!("ask"),
                &json!("user"),
                &json!("https://shop.vn")
            )
        );
        store.close().await;
    }

    #[tokio::test]
    async fn an_unknown_run_is_not_found() {
        let (_dir, store) = open_temp().await;
        assert_eq!(run(&store, "run-nope", false).await.unwrap_err().code(), ErrorCode::NotFound);
        let Reply::RunHistory { runs } = runs(&store, 5).await.unwrap() else { panic!("not the runs") };
        assert!(runs.is_empty());
        store.close().await;
    }
}
