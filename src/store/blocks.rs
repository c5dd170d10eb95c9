//! Core memory blocks: labelled text (`persona`, `human`, ...) that is always
//! in an agent's context window, each with a character limit. Every change
//! of a block's value is recorded in `block_history` in the same transaction.

use sqlx::SqliteConnection;

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
        check_fits(label, value, limit)?;
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
            record_history(&mut tx, &row.id, old, value, actor, &at).await?;
        }
        tx.commit().await?;
        Ok(row)
    }

    /// Create the block `label` of `agent_id` with `value` and `char_limit`
    /// unless it exists; `None` when it did (left as it is). The creation
    /// is recorded in the history under `actor`.
    pub async fn insert_missing(
        &self,
        agent_id: &str,
        label: &str,
        value: &str,
        char_limit: i64,
        actor: &str,
    ) -> Result<Option<BlockRow>> {
        check_fits(label, value, char_limit)?;
        let mut tx = self.store.begin_write().await?;
        let at = now();
        let row: Option<BlockRow> = sqlx::query_as(
            "INSERT INTO blocks (id, agent_id, label, value, char_limit, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) ON CONFLICT (agent_id, label) DO NOTHING RETURNING *",
        )
        .bind(new_id("block"))
        .bind(agent_id)
        .bind(label)
        .bind(value)
        .bind(char_limit)
        .bind(&at)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(row) = &row {
            record_history(&mut tx, &row.id, None, value, actor, &at).await?;
        }
        tx.commit().await?;
        Ok(row)
    }

    /// Change the value of an existing block in one write transaction:
    /// `edit` gets the current row and returns the new value, or an error
    /// that leaves the block as it is. The new value must fit the block's
    /// limit (else `invalid_arguments`). `None` when there is no such block.
    pub async fn modify<F>(&self, agent_id: &str, label: &str, actor: &str, edit: F) -> Result<Option<BlockRow>>
    where
        F: FnOnce(&BlockRow) -> Result<String> + Send,
    {
        let mut tx = self.store.begin_write().await?;
        let existing: Option<BlockRow> = sqlx::query_as("SELECT * FROM blocks WHERE agent_id = ?1 AND label = ?2")
            .bind(agent_id)
            .bind(label)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(existing) = existing else { return Ok(None) };
        let value = edit(&existing)?;
        if value == existing.value {
            return Ok(Some(existing));
        }
        check_fits(label, &value, existing.char_limit)?;
        let at = now();
        let row: BlockRow = sqlx::query_as("UPDATE blocks SET value = ?2, updated_at = ?3 WHERE id = ?1 RETURNING *")
            .bind(&existing.id)
            .bind(&value)
            .bind(&at)
            .fetch_one(&mut *tx)
            .await?;
        record_history(&mut tx, &row.id, Some(&existing.value), &value, actor, &at).await?;
        tx.commit().await?;
        Ok(Some(row))
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

/// The length of a block value as limits count it: characters, not bytes.
pub fn char_count(value: &str) -> i64 {
    i64::try_from(value.chars().count()).unwrap_or(i64::MAX)
}

/// `value` fits a block of `limit` characters (a limit must be positive).
fn check_fits(label: &str, value: &str, limit: i64) -> Result<()> {
    let chars = char_count(value);
    if limit <= 0 || chars > limit {
        return Err(Error::invalid_arguments(format!("block {label:?} holds at most {limit} characters, got {chars}")));
    }
    Ok(())
}

/// One `block_history` row, inside the caller's transaction.
async fn record_history(
    conn: &mut SqliteConnection,
    block_id: &str,
    old: Option<&str>,
    new: &str,
    actor: &str,
    at: &str,
) -> Result<()> {
    sqlx::query("INSERT INTO block_history (block_id, old_value, new_value, actor, at) VALUES (?1, ?2, ?3, ?4, ?5)")
        .bind(block_id)
        .bind(old)
        .bind(new)
        .bind(actor)
        .bind(at)
        .execute(conn)
        .await?;
    Ok(())
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

    #[tokio::test]
    async fn insert_missing_leaves_an_existing_block_alone() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let b = store.blocks().insert_missing(&agent, "human", "", 2000, "system").await.unwrap().unwrap();
        assert_eq!((b.value.as_str(), b.char_limit), ("", 2000));
        store.blocks().upsert(&agent, "human", "Tên: An", None, "user").await.unwrap();
        assert_eq!(store.blocks().insert_missing(&agent, "human", "", 2000, "system").await.unwrap(), None);
        let h = store.block_history().for_block(&b.id).await.unwrap();
        let got: Vec<_> = h.iter().map(|r| (r.old_value.as_deref(), r.new_value.as_str(), r.actor.as_str())).collect();
        assert_eq!(got, vec![(None, "", "system"), (Some(""), "Tên: An", "user")]);
        let err = store.blocks().insert_missing(&agent, "x", "abcd", 3, "system").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
    }

    #[tokio::test]
    async fn modify_edits_in_place_and_refuses_what_does_not_fit() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let b = store.blocks().upsert(&agent, "human", "ab", Some(4), "user").await.unwrap();
        let changed = store.blocks().modify(&agent, "human", "agent", |b| Ok(format!("{}c", b.value))).await;
        let changed = changed.unwrap().unwrap();
        assert_eq!((changed.id.as_str(), changed.value.as_str(), changed.char_limit), (b.id.as_str(), "abc", 4));

        let err = store.blocks().modify(&agent, "human", "agent", |_| Ok("abcde".into())).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        let err = store.blocks().modify(&agent, "human", "agent", |_| Err(Error::invalid_arguments("no"))).await;
        assert_eq!(err.unwrap_err().message(), "no");
        assert_eq!(store.blocks().modify(&agent, "nope", "agent", |_| Ok(String::new())).await.unwrap(), None);
        assert_eq!(store.blocks().get(&agent, "human").await.unwrap().map(|b| b.value), Some("abc".to_owned()));
        let actors: Vec<String> =
            store.block_history().for_block(&b.id).await.unwrap().into_iter().map(|h| h.actor).collect();
        assert_eq!(actors, vec!["user", "agent"]);
    }
}
