//! Provider traces: each model call's request body and raw response, per run
//! and step. Rows arrive already redacted (see `agent::trace`).

use serde_json::Value;

use crate::error::Result;
use crate::store::{Store, now};

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ProviderTraceRow {
    pub id: i64,
    pub run_id: String,
    pub step_id: Option<String>,
    /// The URL called, e.g. `http://127.0.0.1:11434/v1/chat/completions`.
    pub endpoint: String,
    /// The request body as sent.
    #[sqlx(json)]
    pub request: Value,
    /// The response as received (SSE text or a body); `None` when nothing came.
    pub response: Option<String>,
    /// The HTTP status; `None` when there was no answer.
    pub status: Option<i64>,
    pub error: Option<String>,
    pub created_at: String,
}

/// A trace to record.
#[derive(Debug, Clone, PartialEq)]
pub struct NewProviderTrace {
    pub run_id: String,
    pub step_id: Option<String>,
    pub endpoint: String,
    pub request: Value,
    pub response: Option<String>,
    pub status: Option<u16>,
    pub error: Option<String>,
}

/// Accessor for the `provider_traces` table.
pub struct ProviderTraces<'a> {
    store: &'a Store,
}

impl Store {
    pub fn provider_traces(&self) -> ProviderTraces<'_> {
        ProviderTraces { store: self }
    }
}

impl ProviderTraces<'_> {
    pub async fn insert(&self, new: &NewProviderTrace) -> Result<ProviderTraceRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO provider_traces (run_id, step_id, endpoint, request, response, status, error, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             RETURNING *",
            )
            .bind(&new.run_id)
            .bind(new.step_id.as_deref())
            .bind(&new.endpoint)
            .bind(sqlx::types::Json(&new.request))
            .bind(new.response.as_deref())
            .bind(new.status)
            .bind(new.error.as_deref())
            .bind(now())
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    /// A run's traces, in the order they were written.
    pub async fn for_run(&self, run_id: &str) -> Result<Vec<ProviderTraceRow>> {
        Ok(sqlx::query_as("SELECT * FROM provider_traces WHERE run_id = ?1 ORDER BY id")
            .bind(run_id)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// A step's traces (more than one when the call was made again), in order.
    pub async fn for_step(&self, step_id: &str) -> Result<Vec<ProviderTraceRow>> {
        Ok(sqlx::query_as("SELECT * FROM provider_traces WHERE step_id = ?1 ORDER BY id")
            .bind(step_id)
            .fetch_all(self.store.pool())
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::steps::NewStep;
    use crate::store::test_support::{agent, open_temp};

    fn trace(run_id: &str, step_id: Option<&str>) -> NewProviderTrace {
        NewProviderTrace {
            run_id: run_id.into(),
            step_id: step_id.map(str::to_owned),
            endpoint: "http://127.0.0.1:11434/v1/chat/completions".into(),
            request: json!({"model": "m", "messages": [{"role": "user", "content": "Xin chào"}]}),
            response: Some("data: {\"choices\":[]}\n\ndata: [DONE]\n\n".into()),
            status: Some(200),
            error: None,
        }
    }

    #[tokio::test]
    async fn traces_by_run_and_step_and_deleted_with_them() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let run = store.runs().create(&agent, None).await.unwrap();
        let s0 = store.steps().insert(&NewStep::started(&run.id, "m")).await.unwrap();
        let s1 = store.steps().insert(&NewStep::started(&run.id, "m")).await.unwrap();
        let t0 = store.provider_traces().insert(&trace(&run.id, Some(&s0.id))).await.unwrap();
        let failed = NewProviderTrace {
            response: None,
            status: None,
            error: Some("connection refused".into()),
            ..trace(&run.id, Some(&s1.id))
        };
        let t1 = store.provider_traces().insert(&failed).await.unwrap();
        let t2 = store.provider_traces().insert(&trace(&run.id, None)).await.unwrap();
        assert_eq!(t0.request, trace("", None).request);
        assert_eq!((t1.status, t1.response.as_deref(), t1.error.as_deref()), (None, None, Some("connection refused")));
        assert_eq!(store.provider_traces().for_run(&run.id).await.unwrap(), vec![t0.clone(), t1.clone(), t2.clone()]);
        assert_eq!(store.provider_traces().for_step(&s1.id).await.unwrap(), vec![t1]);

        // Deleting a step takes its traces; deleting the run takes the rest.
        sqlx::query("DELETE FROM steps WHERE id = ?1").bind(&s0.id).execute(store.pool()).await.unwrap();
        assert_eq!(store.provider_traces().for_run(&run.id).await.unwrap().len(), 2);
        assert!(store.runs().delete(&run.id).await.unwrap());
        let (n,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM provider_traces").fetch_one(store.pool()).await.unwrap();
        assert_eq!(n, 0);
    }

    #[tokio::test]
    async fn the_schema_refuses_bad_rows() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let run = store.runs().create(&agent, None).await.unwrap();
        let unknown_run = store.provider_traces().insert(&trace("run-none", None)).await.unwrap_err();
        assert_eq!(unknown_run.code(), ErrorCode::Storage);
        let unknown_step = store.provider_traces().insert(&trace(&run.id, Some("step-none"))).await.unwrap_err();
        assert_eq!(unknown_step.code(), ErrorCode::Storage);
        let bad_status = NewProviderTrace { status: Some(42), ..trace(&run.id, None) };
        assert_eq!(store.provider_traces().insert(&bad_status).await.unwrap_err().code(), ErrorCode::Storage);
        let res = sqlx::query(
            "INSERT INTO provider_traces (run_id, endpoint, request, created_at) VALUES (?1, 'x', 'not json', 'now')",
        )
        .bind(&run.id)
        .execute(store.pool())
        .await;
        assert!(res.is_err(), "request must be JSON");
    }
}
