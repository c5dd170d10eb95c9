//! The audit trail: every gate decision, confirmation answer and notable
//! event, append-only (a trigger refuses updates). Rows carry no foreign
//! keys so the trail outlives the runs and tools it mentions.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::types::Json;
use sqlx::{FromRow, Row};

use crate::error::Result;
use crate::store::{Store, decode_text, now};
use crate::tools::PermissionScope;

/// The gate's verdict, as logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum AuditDecision {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow {
    pub id: i64,
    pub at: String,
    /// Who acted: `agent`, `user`, `gate`, a client name, ...
    pub actor: String,
    /// What happened: `tool_call`, `gate_decision`, `confirmation_answered`, ...
    pub event: String,
    pub run_id: Option<String>,
    pub tool: Option<String>,
    pub scope: Option<PermissionScope>,
    pub decision: Option<AuditDecision>,
    pub detail: Value,
}

impl FromRow<'_, SqliteRow> for AuditRow {
    fn from_row(row: &SqliteRow) -> std::result::Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            at: row.try_get("at")?,
            actor: row.try_get("actor")?,
            event: row.try_get("event")?,
            run_id: row.try_get("run_id")?,
            tool: row.try_get("tool")?,
            scope: row.try_get::<Option<String>, _>("scope")?.map(decode_text).transpose()?,
            decision: row.try_get("decision")?,
            detail: row.try_get::<Json<Value>, _>("detail")?.0,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewAuditEntry {
    pub actor: String,
    pub event: String,
    pub run_id: Option<String>,
    pub tool: Option<String>,
    pub scope: Option<PermissionScope>,
    pub decision: Option<AuditDecision>,
    pub detail: Value,
}

impl NewAuditEntry {
    /// An entry with no run, tool, scope or decision and an empty detail.
    pub fn event(actor: &str, event: &str) -> Self {
        Self {
            actor: actor.to_string(),
            event: event.to_string(),
            run_id: None,
            tool: None,
            scope: None,
            decision: None,
            detail: Value::Object(Default::default()),
        }
    }
}

/// Accessor for the `audit_log` table.
pub struct AuditLog<'a> {
    store: &'a Store,
}

impl Store {
    pub fn audit_log(&self) -> AuditLog<'_> {
        AuditLog { store: self }
    }
}

impl AuditLog<'_> {
    pub async fn append(&self, entry: &NewAuditEntry) -> Result<AuditRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO audit_log (at, actor, event, run_id, tool, scope, decision, detail)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING *",
            )
            .bind(now())
            .bind(&entry.actor)
            .bind(&entry.event)
            .bind(entry.run_id.as_deref())
            .bind(entry.tool.as_deref())
            .bind(entry.scope.map(PermissionScope::as_str))
            .bind(entry.decision)
            .bind(Json(&entry.detail))
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    /// The latest `limit` entries, newest first.
    pub async fn recent(&self, limit: u32) -> Result<Vec<AuditRow>> {
        Ok(sqlx::query_as("SELECT * FROM audit_log ORDER BY id DESC LIMIT ?1")
            .bind(limit)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// A run's entries, in order.
    pub async fn for_run(&self, run_id: &str) -> Result<Vec<AuditRow>> {
        Ok(sqlx::query_as("SELECT * FROM audit_log WHERE run_id = ?1 ORDER BY id")
            .bind(run_id)
            .fetch_all(self.store.pool())
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::error::{Error, ErrorCode};
    use crate::store::test_support::open_temp;

    #[tokio::test]
    async fn append_recent_for_run() {
        let (_dir, store) = open_temp().await;
        let a = store.audit_log().append(&NewAuditEntry::event("user", "settings_changed")).await.unwrap();
        let decision = NewAuditEntry {
            run_id: Some("run-1".into()),
            tool: Some("browser_click".into()),
            scope: Some(PermissionScope::Payment),
            decision: Some(AuditDecision::Ask),
            detail: json!({"reason": "Pay button"}),
            ..NewAuditEntry::event("gate", "gate_decision")
        };
        let b = store.audit_log().append(&decision).await.unwrap();
        assert_eq!(
            (b.scope, b.decision, &b.detail),
            (Some(PermissionScope::Payment), Some(AuditDecision::Ask), &json!({"reason": "Pay button"}))
        );
        assert!(b.id > a.id);
        assert_eq!(store.audit_log().recent(10).await.unwrap(), vec![b.clone(), a]);
        assert_eq!(store.audit_log().recent(1).await.unwrap(), vec![b.clone()]);
        assert_eq!(store.audit_log().for_run("run-1").await.unwrap(), vec![b]);
    }

    #[tokio::test]
    async fn rows_cannot_be_updated() {
        let (_dir, store) = open_temp().await;
        let a = store.audit_log().append(&NewAuditEntry::event("user", "x")).await.unwrap();
        let res = sqlx::query("UPDATE audit_log SET actor = 'someone else' WHERE id = ?1")
            .bind(a.id)
            .execute(store.pool())
            .await;
        assert_eq!(Error::from(res.unwrap_err()).code(), ErrorCode::Storage);
        assert_eq!(store.audit_log().recent(1).await.unwrap()[0].actor, "user");
    }
}
