//! Core memory blocks: labelled text (`persona`, `human`, ...) that is always
//! in an agent's context window, each with a character limit. Every change
//! of a block's value is recorded in `block_history` in the same transaction.

use crate::error::{Error, Result};
use crate::store::{Store, new_id, now};

/// Character limit of a new block when the caller gives none (Letta's).
pub const DEFAULT_CHAR_LIMIT: i64 = 5000;

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct BlockRow {
    pub id: String,
    pub agent_id: String,
    pub label: String,
    pub value: String,
    pub char_limit: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// Accessor for the `blocks` table.
pub struct Blocks<'a> {
    store: &'a Store,
}

impl Store {
    pub fn blocks(&self) -> Blocks<'_> {
        Blocks { store: self }
    }
}

impl Blocks<'_> {
    /// Create or change the block `label` of `agent_id`. `char_limit: None`
    /// keeps the current limit (or [`DEFAULT_CHAR_LIMIT`] for a new block).
    /// A history row (old value, new value, `actor`) is written when the
    /// block is created or its value changes. A value over the limit is an
    /// `invalid_arguments` error.
    pub async fn upsert(
        &self,
        agent_id: &str,
        label: &str,
        value: &str,
        char_limit: Option<i64>,
        actor: &str,
    ) -> Result<BlockRow> {
        let mut tx = self.store.begin_write().await?;
        let existing: Option<BlockRow> = sqlx::query_as("SELECT * FROM blocks WHERE agent_id = ?1 AND label = ?2")
            .bind(agent_id)
            .bind(label)
            .fetch_optional(&mut *tx)
            .await?;
        let limit = char_limit.or(existing.as_ref().map(|b| b.char_limit)).unwrap_or(DEFAULT_CHAR_LIMIT);
        let chars = i64::try_from(value.chars().count()).unwrap_or(i64::MAX);
        if limit <= 0 || chars > limit {
            return Err(Error::invalid_arguments(format!(
                "block {label:?} holds at most {limit} characters, got {chars}"
            )));
        }
        let at = now();
        let row: BlockRow = match &existing {
            Some(b) => {
                sqlx::query_as(
                    "UPDATE blocks SET value = ?2, char_limit = ?3, updated_at = ?4 WHERE id = ?1 RETURNING *",
                )
                .bind(&b.id)
                .bind(value)
                .bind(limit)
                .bind(&at)
                .fetch_one(&mut *tx)
                .await?
            }
            None => {
                sqlx::query_as(
                    "INSERT INTO blocks (id, agent_id, label, value, char_limit, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) RETURNING *",
                )
                .bind(new_id("block"))
                .bind(agent_id)
                .bind(label)
                .bind(value)
                .bind(limit)
                .bind(&at)
                .fetch_one(&mut *tx)
                .await?
            }
        };
        let old = existing.as_ref().map(|b| b.value.as_str());
        if old != Some(value) {
            sqlx::query(
                "INSERT INTO block_history (block_id, old_value, new_value, actor, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .bind(&row.id)
            .bind(old)
            .bind(value)
            .bind(actor)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(row)
    }

    pub async fn get(&self, agent_id: &str, label: &str) -> Result<Option<BlockRow>> {
        Ok(sqlx::query_as("SELECT * FROM blocks WHERE agent_id = ?1 AND label = ?2")
            .bind(agent_id)
            .bind(label)
            .fetch_optional(self.store.pool())
            .await?)
    }

    /// An agent's blocks, by label.
    pub async fn for_agent(&self, agent_id: &str) -> Result<Vec<BlockRow>> {
        Ok(sqlx::query_as("SELECT * FROM blocks WHERE agent_id = ?1 ORDER BY label")
            .bind(agent_id)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Delete a block and its history. `false` if it did not exist.
    pub async fn delete(&self, agent_id: &str, label: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM blocks WHERE agent_id = ?1 AND label = ?2")
            .bind(agent_id)
            .bind(label)
            .execute(self.store.pool())
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::{agent, open_temp};

    #[tokio::test]
    async fn upsert_creates_updates_and_lists() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let b = store.blocks().upsert(&agent, "human", "Name: An", None, "user").await.unwrap();
        assert_eq!((b.value.as_str(), b.char_limit), ("Name: An", DEFAULT_CHAR_LIMIT));
        let b2 = store.blocks().upsert(&agent, "human", "Name: An, vegan", Some(100), "agent").await.unwrap();
        assert_eq!(
            (b2.id.as_str(), b2.char_limit, b2.created_at.as_str()),
            (b.id.as_str(), 100, b.created_at.as_str())
        );
        let p = store.blocks().upsert(&agent, "persona", "helpful", None, "system").await.unwrap();
        assert_eq!(store.blocks().get(&agent, "human").await.unwrap(), Some(b2.clone()));
        assert_eq!(store.blocks().for_agent(&agent).await.unwrap(), vec![b2, p]);
    }

    #[tokio::test]
    async fn over_limit_is_rejected_and_nothing_changes() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let b = store.blocks().upsert(&agent, "human", "ab", Some(3), "user").await.unwrap();
        let err = store.blocks().upsert(&agent, "human", "ầbcd", None, "user").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        // Three characters fit a limit of three, however many bytes they take.
        store.blocks().upsert(&agent, "human", "ầầầ", None, "user").await.unwrap();
        let err = store.blocks().upsert(&agent, "x", "", Some(0), "user").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        assert_eq!(store.block_history().for_block(&b.id).await.unwrap().len(), 2);
    }

    #[tokio::test]
    async fn deleting_the_agent_or_block_cascades() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let b = store.blocks().upsert(&agent, "human", "x", None, "user").await.unwrap();
        store.blocks().upsert(&agent, "persona", "y", None, "user").await.unwrap();
        assert!(store.blocks().delete(&agent, "human").await.unwrap());
        assert!(!store.blocks().delete(&agent, "human").await.unwrap());
        assert_eq!(store.block_history().for_block(&b.id).await.unwrap(), vec![]);
        store.agents().delete(&agent).await.unwrap();
        assert_eq!(store.blocks().for_agent(&agent).await.unwrap(), vec![]);
    }
}
