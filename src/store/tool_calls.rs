//! Tool calls of a run as executed (arguments, the model's reason, executor,
//! outcome, duration): the run's timeline.

use serde::Serialize;
use serde_json::Value;

use crate::error::Result;
use crate::store::Store;

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
    pub status: String,
    pub error_code: Option<String>,
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
    /// `ok`, `error` or `cancelled`.
    pub status: &'a str,
    pub error_code: Option<&'a str>,
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
        .fetch_one(self.store.pool())
        .await?;
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
        for (i, status) in ["ok", "error"].iter().enumerate() {
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
                    error_code: (*status == "error").then_some("timeout"),
                    duration_ms: 12,
                    started_at: &crate::store::now(),
                })
                .await
                .unwrap();
        }
        let rows = store.tool_calls().for_run(&run.id).await.unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (
                rows[0].call_id.as_str(),
                rows[0].arguments.clone(),
                rows[0].reasoning.as_deref(),
                rows[1].status.as_str()
            ),
            ("call_0", args, Some("mở trang sản phẩm để xem giá"), "error")
        );
        assert_eq!(rows[1].error_code.as_deref(), Some("timeout"));
    }
}
