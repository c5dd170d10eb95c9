//! Agents: a name, a system prompt and model settings (Letta's `agents`,
//! without tenancy). Deleting an agent deletes its blocks, conversations and
//! runs.

use serde_json::Value;
use sqlx::types::Json;

use crate::error::{Error, Result};
use crate::store::{Store, new_id, now};

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AgentRow {
    pub id: String,
    pub name: String,
    pub system: String,
    #[sqlx(json)]
    pub llm_config: Value,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewAgent {
    /// `None`: a fresh `agent-<uuid>`.
    pub id: Option<String>,
    pub name: String,
    pub system: String,
    pub llm_config: Value,
}

impl NewAgent {
    /// An agent with an empty system prompt and default model settings.
    pub fn named(name: &str) -> Self {
        Self { id: None, name: name.to_string(), system: String::new(), llm_config: Value::Object(Default::default()) }
    }
}

/// Fields to change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentPatch {
    pub name: Option<String>,
    pub system: Option<String>,
    pub llm_config: Option<Value>,
}

/// Accessor for the `agents` table.
pub struct Agents<'a> {
    store: &'a Store,
}

impl Store {
    pub fn agents(&self) -> Agents<'_> {
        Agents { store: self }
    }
}

impl Agents<'_> {
    pub async fn create(&self, new: &NewAgent) -> Result<AgentRow> {
        let id = new.id.clone().unwrap_or_else(|| new_id("agent"));
        let at = now();
        super::returned(
            sqlx::query_as(
                "INSERT INTO agents (id, name, system, llm_config, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5) RETURNING *",
            )
            .bind(&id)
            .bind(&new.name)
            .bind(&new.system)
            .bind(Json(&new.llm_config))
            .bind(&at)
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    pub async fn get(&self, id: &str) -> Result<Option<AgentRow>> {
        Ok(sqlx::query_as("SELECT * FROM agents WHERE id = ?1").bind(id).fetch_optional(self.store.pool()).await?)
    }

    /// Every agent, oldest first.
    pub async fn list(&self) -> Result<Vec<AgentRow>> {
        Ok(sqlx::query_as("SELECT * FROM agents ORDER BY created_at, rowid").fetch_all(self.store.pool()).await?)
    }

    /// Change some fields; `not_found` if there is no such agent.
    pub async fn update(&self, id: &str, patch: &AgentPatch) -> Result<AgentRow> {
        let row: Option<AgentRow> = sqlx::query_as(
            "UPDATE agents SET name = COALESCE(?2, name), system = COALESCE(?3, system),
                 llm_config = COALESCE(?4, llm_config), updated_at = ?5
             WHERE id = ?1 RETURNING *",
        )
        .bind(id)
        .bind(patch.name.as_deref())
        .bind(patch.system.as_deref())
        .bind(patch.llm_config.as_ref().map(Json))
        .bind(now())
        .fetch_all(self.store.pool())
        .await?
        .into_iter()
        .next();
        row.ok_or_else(|| Error::not_found(format!("no agent {id}")))
    }

    /// Delete an agent and everything it owns. `false` if it did not exist.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM agents WHERE id = ?1").bind(id).execute(self.store.pool()).await?;
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

    #[tokio::test]
    async fn create_get_update_list_delete() {
        let (_dir, store) = open_temp().await;
        let a = store.agents().create(&NewAgent::named("Halley")).await.unwrap();
        assert!(a.id.starts_with("agent-"));
        assert_eq!(a.llm_config, json!({}));
        assert_eq!(store.agents().get(&a.id).await.unwrap(), Some(a.clone()));

        let b = store
            .agents()
            .create(&NewAgent { id: Some("agent-b".into()), system: "be brief".into(), ..NewAgent::named("B") })
            .await
            .unwrap();
        let patch =
            AgentPatch { system: Some("sys".into()), llm_config: Some(json!({"model": "m"})), ..Default::default() };
        let a2 = store.agents().update(&a.id, &patch).await.unwrap();
        assert_eq!((a2.name.as_str(), a2.system.as_str(), &a2.llm_config), ("Halley", "sys", &json!({"model": "m"})));
        assert_eq!(store.agents().list().await.unwrap(), vec![a2, b]);

        let err = store.agents().update("agent-none", &AgentPatch::default()).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert!(store.agents().delete(&a.id).await.unwrap());
        assert!(!store.agents().delete(&a.id).await.unwrap());
        assert_eq!(store.agents().get(&a.id).await.unwrap(), None);
    }
}
