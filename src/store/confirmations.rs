//! Confirmations the gate asks of the user before a SUBMIT-or-riskier
//! action: what will happen, its scope and risk, and the user's answer.
//! Only a pending confirmation can be answered; one past `expires_at` is
//! expired instead (a timed-out answer is a deny).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::types::Json;
use sqlx::{FromRow, Row};

use crate::error::{Error, Result};
use crate::store::{Store, decode_text, new_id, now};
use crate::tools::{PermissionScope, RiskLevel};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum ConfirmationStatus {
    Pending,
    Approved,
    Denied,
    Expired,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationRow {
    pub id: String,
    pub run_id: Option<String>,
    pub tool: String,
    pub action_summary: String,
    /// Hash of the effective action, to match an answer to the exact action.
    pub action_hash: String,
    pub scope: PermissionScope,
    pub risk_level: RiskLevel,
    /// What was shown to the user (ConfirmRequest).
    pub request: Value,
    pub status: ConfirmationStatus,
    /// The user's answer (ConfirmResultV1).
    pub answer: Option<Value>,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub answered_at: Option<String>,
}

impl FromRow<'_, SqliteRow> for ConfirmationRow {
    fn from_row(row: &SqliteRow) -> std::result::Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            run_id: row.try_get("run_id")?,
            tool: row.try_get("tool")?,
            action_summary: row.try_get("action_summary")?,
            action_hash: row.try_get("action_hash")?,
            scope: decode_text(row.try_get("scope")?)?,
            risk_level: decode_text(row.try_get("risk_level")?)?,
            request: row.try_get::<Json<Value>, _>("request")?.0,
            status: row.try_get("status")?,
            answer: row.try_get::<Option<Json<Value>>, _>("answer")?.map(|j| j.0),
            expires_at: row.try_get("expires_at")?,
            created_at: row.try_get("created_at")?,
            answered_at: row.try_get("answered_at")?,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewConfirmation {
    pub run_id: Option<String>,
    pub tool: String,
    pub action_summary: String,
    pub action_hash: String,
    pub scope: PermissionScope,
    pub risk_level: RiskLevel,
    pub request: Value,
    /// RFC 3339 in [`now`]'s format; `None`: never expires.
    pub expires_at: Option<String>,
}

/// Accessor for the `confirmations` table.
pub struct Confirmations<'a> {
    store: &'a Store,
}

impl Store {
    pub fn confirmations(&self) -> Confirmations<'_> {
        Confirmations { store: self }
    }
}

impl Confirmations<'_> {
    /// Ask: a new pending confirmation.
    pub async fn create(&self, new: &NewConfirmation) -> Result<ConfirmationRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO confirmations (id, run_id, tool, action_summary, action_hash, scope, risk_level,
                 request, status, expires_at, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9, ?10) RETURNING *",
            )
            .bind(new_id("confirm"))
            .bind(new.run_id.as_deref())
            .bind(&new.tool)
            .bind(&new.action_summary)
            .bind(&new.action_hash)
            .bind(new.scope.as_str())
            .bind(new.risk_level.as_str())
            .bind(Json(&new.request))
            .bind(new.expires_at.as_deref())
            .bind(now())
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    pub async fn get(&self, id: &str) -> Result<Option<ConfirmationRow>> {
        Ok(sqlx::query_as("SELECT * FROM confirmations WHERE id = ?1")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?)
    }

    /// What run `run_id` asked, in order.
    pub async fn for_run(&self, run_id: &str) -> Result<Vec<ConfirmationRow>> {
        Ok(sqlx::query_as("SELECT * FROM confirmations WHERE run_id = ?1 ORDER BY created_at, id")
            .bind(run_id)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Record the user's answer. `not_found` for an unknown id;
    /// `invalid_arguments` if `status` is `pending`, if the confirmation was
    /// already answered, or if it has expired (it is then marked expired).
    pub async fn answer(&self, id: &str, status: ConfirmationStatus, answer: &Value) -> Result<ConfirmationRow> {
        if status == ConfirmationStatus::Pending {
            return Err(Error::invalid_arguments("an answer cannot be `pending`"));
        }
        let at = now();
        let mut tx = self.store.begin_durable().await?;
        let current: Option<(ConfirmationStatus, Option<String>)> =
            sqlx::query_as("SELECT status, expires_at FROM confirmations WHERE id = ?1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let expired = match current {
            None => return Err(Error::not_found(format!("no confirmation {id}"))),
            Some((ConfirmationStatus::Pending, expires_at)) => expires_at.is_some_and(|e| e.as_str() <= at.as_str()),
            Some((done, _)) => {
                return Err(Error::invalid_arguments(format!("confirmation {id} was already answered ({done:?})")));
            }
        };
        let (status, answer) = if expired { (ConfirmationStatus::Expired, None) } else { (status, Some(answer)) };
        let row: ConfirmationRow = sqlx::query_as(
            "UPDATE confirmations SET status = ?2, answer = ?3, answered_at = ?4 WHERE id = ?1 RETURNING *",
        )
        .bind(id)
        .bind(status)
        .bind(answer.map(Json))
        .bind(&at)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        if expired {
            return Err(Error::invalid_arguments(format!(
                "confirmation {id} expired at {}",
                row.expires_at.unwrap_or_default()
            )));
        }
        Ok(row)
    }

    /// Pending confirmations, oldest first.
    pub async fn pending(&self) -> Result<Vec<ConfirmationRow>> {
        Ok(sqlx::query_as("SELECT * FROM confirmations WHERE status = 'pending' ORDER BY created_at, rowid")
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Mark every pending confirmation whose `expires_at` is at or before
    /// `now` as expired; returns their ids.
    pub async fn expire_due(&self, now: &str) -> Result<Vec<String>> {
        let rows: Vec<(String,)> = sqlx::query_as(
            "UPDATE confirmations SET status = 'expired', answered_at = ?1
             WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?1 RETURNING id",
        )
        .bind(now)
        .fetch_all(self.store.pool())
        .await?;
        let mut ids: Vec<String> = rows.into_iter().map(|(id,)| id).collect();
        ids.sort();
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    fn booking(expires_at: Option<&str>) -> NewConfirmation {
        NewConfirmation {
            run_id: None,
            tool: "browser_click".into(),
            action_summary: "Book HAN→NRT on 2026-02-10".into(),
            action_hash: "h1".into(),
            scope: PermissionScope::Payment,
            risk_level: RiskLevel::High,
            request: json!({"action_summary": "Book HAN→NRT", "cost_estimate": {"amount": 12500000, "currency": "VND"}}),
            expires_at: expires_at.map(str::to_string),
        }
    }

    #[tokio::test]
    async fn create_pending_answer() {
        let (_dir, store) = open_temp().await;
        let c = store.confirmations().create(&booking(None)).await.unwrap();
        assert!(c.id.starts_with("confirm-"));
        assert_eq!(
            (c.status, c.scope, c.risk_level, c.answer.as_ref()),
            (ConfirmationStatus::Pending, PermissionScope::Payment, RiskLevel::High, None)
        );
        assert_eq!(store.confirmations().pending().await.unwrap(), vec![c.clone()]);

        let answer = json!({"approved": true, "user_edits": {}, "reason": ""});
        let a = store.confirmations().answer(&c.id, ConfirmationStatus::Approved, &answer).await.unwrap();
        assert_eq!((a.status, a.answer.as_ref()), (ConfirmationStatus::Approved, Some(&answer)));
        assert!(a.answered_at.is_some());
        assert_eq!(store.confirmations().get(&c.id).await.unwrap(), Some(a));
        assert_eq!(store.confirmations().pending().await.unwrap(), vec![]);

        let again = store.confirmations().answer(&c.id, ConfirmationStatus::Denied, &answer).await.unwrap_err();
        assert_eq!(again.code(), ErrorCode::InvalidArguments);
        let none = store.confirmations().answer("confirm-none", ConfirmationStatus::Denied, &answer).await.unwrap_err();
        assert_eq!(none.code(), ErrorCode::NotFound);
        let c2 = store.confirmations().create(&booking(None)).await.unwrap();
        let pending = store.confirmations().answer(&c2.id, ConfirmationStatus::Pending, &answer).await.unwrap_err();
        assert_eq!(pending.code(), ErrorCode::InvalidArguments);
    }

    #[tokio::test]
    async fn expiry_turns_late_answers_into_expired() {
        let (_dir, store) = open_temp().await;
        let late = store.confirmations().create(&booking(Some("2000-01-01T00:00:00.000Z"))).await.unwrap();
        let err = store.confirmations().answer(&late.id, ConfirmationStatus::Approved, &json!({})).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        let late = store.confirmations().get(&late.id).await.unwrap().unwrap();
        assert_eq!((late.status, late.answer), (ConfirmationStatus::Expired, None));

        let a = store.confirmations().create(&booking(Some("2030-01-01T00:00:00.000Z"))).await.unwrap();
        let b = store.confirmations().create(&booking(Some("2040-01-01T00:00:00.000Z"))).await.unwrap();
        store.confirmations().create(&booking(None)).await.unwrap();
        assert_eq!(store.confirmations().expire_due("2035-01-01T00:00:00.000Z").await.unwrap(), vec![a.id]);
        let left: Vec<String> = store.confirmations().pending().await.unwrap().into_iter().map(|c| c.id).collect();
        assert_eq!(left.len(), 2);
        assert!(left.contains(&b.id));
    }

    #[tokio::test]
    async fn deleting_the_run_keeps_the_confirmation() {
        let (_dir, store) = open_temp().await;
        let agent = crate::store::test_support::agent(&store).await;
        let run = store.runs().create(&agent, None).await.unwrap();
        let c = store
            .confirmations()
            .create(&NewConfirmation { run_id: Some(run.id.clone()), ..booking(None) })
            .await
            .unwrap();
        store.runs().delete(&run.id).await.unwrap();
        assert_eq!(store.confirmations().get(&c.id).await.unwrap().unwrap().run_id, None);
    }
}
