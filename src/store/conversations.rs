//! Conversations: an agent's chat threads. Each holds ordered messages;
//! `updated_at` moves when a message is appended.

use crate::error::{Error, Result};
use crate::store::{Store, new_id, now};

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ConversationRow {
    pub id: String,
    pub agent_id: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
}

/// Accessor for the `conversations` table.
pub struct Conversations<'a> {
    store: &'a Store,
}

impl Store {
    pub fn conversations(&self) -> Conversations<'_> {
        Conversations { store: self }
    }
}

impl Conversations<'_> {
    pub async fn create(&self, agent_id: &str, title: &str) -> Result<ConversationRow> {
        super::returned(
            sqlx::query_as(
                "INSERT INTO conversations (id, agent_id, title, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?4) RETURNING *",
            )
            .bind(new_id("conv"))
            .bind(agent_id)
            .bind(title)
            .bind(now())
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    pub async fn get(&self, id: &str) -> Result<Option<ConversationRow>> {
        Ok(sqlx::query_as("SELECT * FROM conversations WHERE id = ?1")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?)
    }

    /// An agent's conversations, most recently active first.
    pub async fn for_agent(&self, agent_id: &str, limit: u32) -> Result<Vec<ConversationRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM conversations WHERE agent_id = ?1 ORDER BY updated_at DESC, rowid DESC LIMIT ?2",
        )
        .bind(agent_id)
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// Rename; `not_found` if there is no such conversation.
    pub async fn set_title(&self, id: &str, title: &str) -> Result<ConversationRow> {
        let row: Option<ConversationRow> =
            sqlx::query_as("UPDATE conversations SET title = ?2, updated_at = ?3 WHERE id = ?1 RETURNING *")
                .bind(id)
                .bind(title)
                .bind(now())
                .fetch_all(self.store.pool())
                .await?
                .into_iter()
                .next();
        row.ok_or_else(|| Error::not_found(format!("no conversation {id}")))
    }

    /// Delete a conversation and its messages. `false` if it did not exist.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM conversations WHERE id = ?1").bind(id).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use crate::error::ErrorCode;
    use crate::store::test_support::{agent, open_temp};

    #[tokio::test]
    async fn create_get_list_rename_delete() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let c1 = store.conversations().create(&agent, "trip").await.unwrap();
        assert!(c1.id.starts_with("conv-"));
        let c2 = store.conversations().create(&agent, "").await.unwrap();
        assert_eq!(store.conversations().get(&c1.id).await.unwrap(), Some(c1.clone()));
        // Timestamps have millisecond resolution; make the rename visibly later.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let c1 = store.conversations().set_title(&c1.id, "Tokyo trip").await.unwrap();
        assert_eq!(c1.title, "Tokyo trip");
        assert_eq!(store.conversations().for_agent(&agent, 10).await.unwrap(), vec![c1.clone(), c2.clone()]);
        assert_eq!(store.conversations().for_agent(&agent, 1).await.unwrap(), vec![c1.clone()]);
        let err = store.conversations().set_title("conv-none", "x").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert!(store.conversations().delete(&c2.id).await.unwrap());
        assert!(!store.conversations().delete(&c2.id).await.unwrap());
    }

    #[tokio::test]
    async fn unknown_agent_is_a_foreign_key_error() {
        let (_dir, store) = open_temp().await;
        let err = store.conversations().create("agent-none", "x").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::Storage);
    }
}
