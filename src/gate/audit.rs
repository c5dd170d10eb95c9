//! Every gate decision into the audit log: the tool, a hash of its
//! arguments (never their values), the declared and effective scopes, the
//! decision, who answered it and the origin.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::error::Result;
use crate::gate::policy::Decision;
use crate::store::Store;
use crate::store::audit_log::{AuditDecision, NewAuditEntry};
use crate::tools::PermissionScope;

/// The audit log's `event` for a gate decision.
pub const GATE_DECISION: &str = "gate_decision";

/// One decision to log.
#[derive(Debug, Clone, PartialEq)]
pub struct GateRecord<'a> {
    pub tool: String,
    /// [`args_hash`] of the call's arguments.
    pub args_hash: String,
    pub declared: PermissionScope,
    pub effective: PermissionScope,
    pub decision: &'a Decision,
    /// Who answered: `policy`, `user`, `rule`, `session` or `timeout`.
    pub answered_by: &'a str,
    pub origin: Option<String>,
    pub run_id: Option<String>,
    /// Why (the policy's reasons, the user's answer), never argument values.
    pub reasons: Vec<String>,
}

/// Append a gate decision to the audit log (event `gate_decision`, actor
/// the one who answered, scope the effective one).
pub async fn record(store: &Store, entry: GateRecord<'_>) -> Result<()> {
    let decision = match entry.decision {
        Decision::Allow => AuditDecision::Allow,
        Decision::Ask(_) => AuditDecision::Ask,
        Decision::Deny(_) => AuditDecision::Deny,
    };
    let detail = json!({
        "args_hash": entry.args_hash,
        "declared": entry.declared,
        "effective": entry.effective,
        "origin": entry.origin,
        "reason": entry.decision.reason(),
        "reasons": entry.reasons,
    });
    store
        .audit_log()
        .append(&NewAuditEntry {
            run_id: entry.run_id,
            tool: Some(entry.tool),
            scope: Some(entry.effective),
            decision: Some(decision),
            detail,
            ..NewAuditEntry::event(entry.answered_by, GATE_DECISION)
        })
        .await?;
    Ok(())
}

/// The audit log's `event` for a skill's own call.
pub const SKILL_CALL: &str = "skill_call";

/// A skill's own call, as logged once it ended. The call is not asked as a
/// whole (its steps are, each with its own `gate_decision` row), but it is
/// recorded: which skill, a hash of its arguments (never their values),
/// its declared scope and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillRecord<'a> {
    pub tool: &'a str,
    /// [`args_hash`] of the call's arguments.
    pub args_hash: String,
    pub declared: PermissionScope,
    /// Who called it: the run's front end (`cli`, `panel`, `api`...).
    pub front_end: &'a str,
    pub run_id: Option<String>,
    /// The call's id in its run (`call_1`), under which its steps are numbered.
    pub call_id: Option<String>,
    /// `ok` or `error` (the ToolResultV2's status).
    pub status: &'a str,
    /// The error's code when it failed.
    pub error_code: Option<&'a str>,
    /// The skill's own `status` in its result (`ok`, `partial`, `needs_confirmation`...).
    pub outcome: Option<&'a str>,
}

/// Append a skill's call to the audit log (event `skill_call`, actor the
/// front end that called it, scope the declared one, no decision: nobody
/// was asked about the call as a whole).
pub async fn record_skill(store: &Store, entry: SkillRecord<'_>) -> Result<()> {
    let detail = json!({
        "args_hash": entry.args_hash,
        "declared": entry.declared,
        "call_id": entry.call_id,
        "status": entry.status,
        "error_code": entry.error_code,
        "outcome": entry.outcome,
    });
    store
        .audit_log()
        .append(&NewAuditEntry {
            run_id: entry.run_id,
            tool: Some(entry.tool.to_owned()),
            scope: Some(entry.declared),
            detail,
            ..NewAuditEntry::event(entry.front_end, SKILL_CALL)
        })
        .await?;
    Ok(())
}

/// SHA-256 (hex) of the arguments as canonical JSON: object keys sorted at
/// every depth, no whitespace. Equal arguments hash equal whatever their
/// key order.
pub fn args_hash(args: &Value) -> String {
    hex::encode(Sha256::digest(canonical(args).to_string().as_bytes()))
}

fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(fields) => {
            let mut keys: Vec<&String> = fields.keys().collect();
            keys.sort();
            let mut sorted = Map::new();
            for key in keys {
                if let Some(v) = fields.get(key) {
                    sorted.insert(key.clone(), canonical(v));
                }
            }
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::store::audit_log::AuditRow;
    use crate::store::test_support::open_temp;

    #[test]
    fn args_hash_ignores_key_order_not_values() {
        let a = json!({"url": "https://shop.vn", "opts": {"b": 1, "a": [{"y": 2, "x": 1}]}});
        let b = json!({"opts": {"a": [{"x": 1, "y": 2}], "b": 1}, "url": "https://shop.vn"});
        assert_eq!(args_hash(&a), args_hash(&b));
        assert_eq!(args_hash(&a).len(), 64);
        assert_ne!(args_hash(&a), args_hash(&json!({"url": "https://shop.vn"})));
        // sha256 of `{}`.
        assert_eq!(args_hash(&json!({})), "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
        // The hash is of the sorted form, not of the order the keys came in.
        assert_eq!(args_hash(&json!({"b": 1, "a": 2})), hex::encode(Sha256::digest(br#"{"a":2,"b":1}"#)));
    }

    #[tokio::test]
    async fn record_writes_a_gate_decision_without_argument_values() {
        let (_dir, store) = open_temp().await;
        let args = json!({"ref": "e12", "text": "4111 1111 1111 1111"});
        let decision = Decision::Ask("PAYMENT: needs your confirmation because it costs money".into());
        record(
            &store,
            GateRecord {
                tool: "browser_click".into(),
                args_hash: args_hash(&args),
                declared: PermissionScope::WriteNonDestructive,
                effective: PermissionScope::Payment,
                decision: &decision,
                answered_by: "policy",
                origin: Some("https://shop.vn".into()),
                run_id: Some("run-1".into()),
                reasons: vec!["a Pay button".into()],
            },
        )
        .await
        .unwrap();
        let row = store.audit_log().recent(5).await.unwrap().remove(0);
        let expected = AuditRow {
            id: row.id,
            at: row.at.clone(),
            actor: "policy".into(),
            event: "gate_decision".into(),
            run_id: Some("run-1".into()),
            tool: Some("browser_click".into()),
            scope: Some(PermissionScope::Payment),
            decision: Some(AuditDecision::Ask),
            detail: json!({
                "args_hash": args_hash(&args),
                "declared": "WRITE_NON_DESTRUCTIVE",
                "effective": "PAYMENT",
                "origin": "https://shop.vn",
                "reason": "PAYMENT: needs your confirmation because it costs money",
                "reasons": ["a Pay button"],
            }),
        };
        assert_eq!(row, expected);
        assert_eq!(store.audit_log().recent(5).await.unwrap(), vec![expected]);
        assert!(!row.detail.to_string().contains("4111"));

        record(
            &store,
            GateRecord {
                tool: "browser_click".into(),
                args_hash: args_hash(&args),
                declared: PermissionScope::WriteNonDestructive,
                effective: PermissionScope::Payment,
                decision: &Decision::Allow,
                answered_by: "user",
                origin: None,
                run_id: None,
                reasons: vec![],
            },
        )
        .await
        .unwrap();
        let user = store.audit_log().recent(1).await.unwrap().remove(0);
        assert_eq!(
            (user.actor.as_str(), user.decision, &user.detail["reason"], &user.detail["origin"]),
            ("user", Some(AuditDecision::Allow), &Value::Null, &Value::Null)
        );
    }
}
