//! Tool calls of a run as executed (arguments, the model's reason, executor,
//! outcome, duration): the run's timeline.

use serde::Serialize;
use serde_json::Value;

use crate::error::{ErrorCode, Result};
pub use crate::protocol::status::ToolCallStatus;
use crate::store::Store;

impl ToolCallStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for ToolCallStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct ToolCallRow {
    pub id: i64,
    pub run_id: String,
    pub step_id: Option<String>,
    pub call_id: String,
    pub tool: String,
    #[sqlx(json)]
    pub arguments: Value,
    pub reasoning: Option<String>,
    pub executor: String,
    pub status: ToolCallStatus,
    pub error_code: Option<ErrorCode>,
    pub duration_ms: i64,
    pub started_at: String,
}

/// A call to record once it is over.
#[derive(Debug, Clone, PartialEq)]
pub struct NewToolCall<'a> {
    pub run_id: &'a str,
    pub step_id: Option<&'a str>,
    pub call_id: &'a str,
    pub tool: &'a str,
    pub arguments: &'a Value,
    pub reasoning: Option<&'a str>,
    /// `builtin`, `client`, `implicit`, or `none` (never ran: bad arguments, unknown tool).
    pub executor: &'a str,
    pub status: ToolCallStatus,
    pub error_code: Option<ErrorCode>,
    pub duration_ms: i64,
    /// When the call started (RFC 3339, `store::now()`).
    pub started_at: &'a str,
}

/// Accessor for the `tool_calls` table.
pub struct ToolCalls<'a> {
    store: &'a Store,
}

impl Store {
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        ToolCalls { store: self }
    }
}

impl ToolCalls<'_> {
    pub async fn insert(&self, new: &NewToolCall<'_>) -> Result<ToolCallRow> {
        let mut tx = self.store.begin_write().await?;
        let row = insert_in(&mut tx, new).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// A run's calls in the order they ended.
    pub async fn for_run(&self, run_id: &str) -> Result<Vec<ToolCallRow>> {
        Ok(sqlx::query_as("SELECT * FROM tool_calls WHERE run_id = ?1 ORDER BY id")
            .bind(run_id)
            .fetch_all(self.store.pool())
            .await?)
    }
}

/// Insert a call's row inside the caller's transaction (its result message
/// is written in the same one: `Messages::record_tool_result`).
pub(crate) async fn insert_in(conn: &mut sqlx::SqliteConnection, new: &NewToolCall<'_>) -> Result<ToolCallRow> {
    let row = sqlx::query_as(
        "INSERT INTO tool_calls (run_id, step_id, call_id, tool, arguments, reasoning, executor, status,
             error_code, duration_ms, started_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING *",
    )
    .bind(new.run_id)
    .bind(new.step_id)
    .bind(new.call_id)
    .bind(new.tool)
    .bind(new.arguments.to_string())
    .bind(new.reasoning)
    .bind(new.executor)
    .bind(new.status)
    .bind(new.error_code)
    .bind(new.duration_ms.max(0))
    .bind(new.started_at)
    .fetch_one(conn)
    .await?;
    Ok(row)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::store::test_support::{agent, open_temp};

    #[tokio::test]
    async fn calls_are_kept_in_order_with_their_reason() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let run = store.runs().create(&agent, None).await.unwrap();
        let args = json!({"url": "http://shop.vn/laptop"});
        for (i, status) in [ToolCallStatus::Ok, ToolCallStatus::Error].into_iter().enumerate() {
            store
                .tool_calls()
                .insert(&NewToolCall {
                    run_id: &run.id,
                    step_id: None,
                    call_id: &format!("call_{i}"),
                    tool: "browser_navigate",
                    arguments: &args,
                    reasoning: Some("mở trang sản phẩm để xem giá"),
                    executor: "builtin",
                    status,
                    error_code: (status == ToolCallStatus::Error).then_some(ErrorCode::Timeout),
                    duration_ms: 12,
                    started_at: &crate::store::now(),
                })
                .await
                .unwrap();
        }
        let rows = store.tool_calls().for_run(&run.id).await.unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].call_id.as_str(), rows[0].arguments.clone(), rows[0].reasoning.as_deref(), rows[1].status),
            ("call_0", args, Some("mở trang sản phẩm để xem giá"), ToolCallStatus::Error)
        );
        assert_eq!(rows[1].error_code, Some(ErrorCode::Timeout));
    }
}
