//! Tools registered at run time: custom tools and tools executed by the
//! client application that registered them (Letta-style registration, with
//! the Python source kept for reference). Built-in tools are not stored.

use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::types::Json;
use sqlx::{FromRow, Row};

use crate::error::Result;
use crate::store::{Store, decode_text, encode_text, new_id, now};
use crate::tools::{Executor, PermissionScope, RiskLevel, ToolKind};

#[derive(Debug, Clone, PartialEq)]
pub struct ToolRow {
    pub id: String,
    pub name: String,
    pub description: String,
    pub kind: ToolKind,
    pub executor: Executor,
    /// JSON Schema of the arguments.
    pub json_schema: Value,
    pub source_code: Option<String>,
    pub permission_scope: PermissionScope,
    pub risk_level: RiskLevel,
    pub requires_confirmation: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl FromRow<'_, SqliteRow> for ToolRow {
    fn from_row(row: &SqliteRow) -> std::result::Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            description: row.try_get("description")?,
            kind: decode_text(row.try_get("kind")?)?,
            executor: decode_text(row.try_get("executor")?)?,
            json_schema: row.try_get::<Json<Value>, _>("json_schema")?.0,
            source_code: row.try_get("source_code")?,
            permission_scope: decode_text(row.try_get("permission_scope")?)?,
            risk_level: decode_text(row.try_get("risk_level")?)?,
            requires_confirmation: row.try_get("requires_confirmation")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }
}

/// A tool to register (or re-register under the same name).
#[derive(Debug, Clone, PartialEq)]
pub struct NewTool {
    pub name: String,
    pub description: String,
    pub kind: ToolKind,
    pub executor: Executor,
    pub json_schema: Value,
    pub source_code: Option<String>,
    pub permission_scope: PermissionScope,
    pub risk_level: RiskLevel,
    pub requires_confirmation: bool,
}

/// Accessor for the `tools` table.
pub struct Tools<'a> {
    store: &'a Store,
}

impl Store {
    pub fn tools(&self) -> Tools<'_> {
        Tools { store: self }
    }
}

impl Tools<'_> {
    /// Register a tool, or replace the declaration of the tool with the same
    /// name (keeping its id and `created_at`).
    pub async fn upsert(&self, new: &NewTool) -> Result<ToolRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO tools (id, name, description, kind, executor, json_schema, source_code,
                 permission_scope, risk_level, requires_confirmation, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)
             ON CONFLICT (name) DO UPDATE SET description = excluded.description, kind = excluded.kind,
                 executor = excluded.executor, json_schema = excluded.json_schema,
                 source_code = excluded.source_code, permission_scope = excluded.permission_scope,
                 risk_level = excluded.risk_level, requires_confirmation = excluded.requires_confirmation,
                 updated_at = excluded.updated_at
             RETURNING *",
            )
            .bind(new_id("tool"))
            .bind(&new.name)
            .bind(&new.description)
            .bind(encode_text(&new.kind)?)
            .bind(encode_text(&new.executor)?)
            .bind(Json(&new.json_schema))
            .bind(new.source_code.as_deref())
            .bind(new.permission_scope.as_str())
            .bind(new.risk_level.as_str())
            .bind(new.requires_confirmation)
            .bind(now())
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    pub async fn get_by_name(&self, name: &str) -> Result<Option<ToolRow>> {
        Ok(sqlx::query_as("SELECT * FROM tools WHERE name = ?1").bind(name).fetch_optional(self.store.pool()).await?)
    }

    /// Every registered tool, by name.
    pub async fn list(&self) -> Result<Vec<ToolRow>> {
        Ok(sqlx::query_as("SELECT * FROM tools ORDER BY name").fetch_all(self.store.pool()).await?)
    }

    /// Unregister a tool. `false` if there was none by that name.
    pub async fn delete(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM tools WHERE name = ?1").bind(name).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    fn query_local_db() -> NewTool {
        NewTool {
            name: "query_local_db".into(),
            description: "Query the client app's local database for articles.".into(),
            kind: ToolKind::Custom,
            executor: Executor::Client,
            json_schema: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
            source_code: Some("def query_local_db(query: str):\n    return 1".into()),
            permission_scope: PermissionScope::ReadOnly,
            risk_level: RiskLevel::Low,
            requires_confirmation: true,
        }
    }

    #[tokio::test]
    async fn upsert_get_list_delete() {
        let (_dir, store) = open_temp().await;
        let t = store.tools().upsert(&query_local_db()).await.unwrap();
        assert!(t.id.starts_with("tool-"));
        assert_eq!(
            (t.kind, t.executor, t.permission_scope, t.requires_confirmation),
            (ToolKind::Custom, Executor::Client, PermissionScope::ReadOnly, true)
        );
        let changed = NewTool {
            permission_scope: PermissionScope::Payment,
            risk_level: RiskLevel::High,
            source_code: None,
            ..query_local_db()
        };
        let t2 = store.tools().upsert(&changed).await.unwrap();
        assert_eq!((t2.id.as_str(), t2.created_at.as_str()), (t.id.as_str(), t.created_at.as_str()));
        assert_eq!(
            (t2.permission_scope, t2.risk_level, t2.source_code.as_deref()),
            (PermissionScope::Payment, RiskLevel::High, None)
        );
        assert_eq!(store.tools().get_by_name("query_local_db").await.unwrap(), Some(t2.clone()));
        let other = store.tools().upsert(&NewTool { name: "a_tool".into(), ..query_local_db() }).await.unwrap();
        assert_eq!(store.tools().list().await.unwrap(), vec![other, t2]);
        assert!(store.tools().delete("query_local_db").await.unwrap());
        assert!(!store.tools().delete("query_local_db").await.unwrap());
        assert_eq!(store.tools().get_by_name("query_local_db").await.unwrap(), None);
    }

    #[tokio::test]
    async fn empty_name_is_rejected_by_the_schema() {
        let (_dir, store) = open_temp().await;
        let err = store.tools().upsert(&NewTool { name: String::new(), ..query_local_db() }).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::Storage);
    }
}
