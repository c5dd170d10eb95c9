//! The change log of core memory blocks: old and new value and who changed
//! it. Rows are written by [`crate::store::blocks::Blocks::upsert`] in the
//! same transaction as the change; this module only reads them.

use crate::error::Result;
use crate::store::Store;

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct BlockHistoryRow {
    pub id: i64,
    pub block_id: String,
    /// `None` for the row written when the block was created.
    pub old_value: Option<String>,
    pub new_value: String,
    pub actor: String,
    pub at: String,
}

/// Accessor for the `block_history` table.
pub struct BlockHistory<'a> {
    store: &'a Store,
}

impl Store {
    pub fn block_history(&self) -> BlockHistory<'_> {
        BlockHistory { store: self }
    }
}

impl BlockHistory<'_> {
    /// A block's changes, oldest first.
    pub async fn for_block(&self, block_id: &str) -> Result<Vec<BlockHistoryRow>> {
        Ok(sqlx::query_as("SELECT * FROM block_history WHERE block_id = ?1 ORDER BY id")
            .bind(block_id)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// The latest `limit` changes to any of an agent's blocks, newest first.
    pub async fn recent_for_agent(&self, agent_id: &str, limit: u32) -> Result<Vec<BlockHistoryRow>> {
        Ok(sqlx::query_as(
            "SELECT h.* FROM block_history h JOIN blocks b ON b.id = h.block_id
             WHERE b.agent_id = ?1 ORDER BY h.id DESC LIMIT ?2",
        )
        .bind(agent_id)
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use crate::store::test_support::{agent, open_temp};

    #[tokio::test]
    async fn an_update_writes_old_and_new_value() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let b = store.blocks().upsert(&agent, "human", "v1", None, "user").await.unwrap();
        store.blocks().upsert(&agent, "human", "v2", None, "agent").await.unwrap();
        // Same value again: no history row.
        store.blocks().upsert(&agent, "human", "v2", None, "agent").await.unwrap();
        let h = store.block_history().for_block(&b.id).await.unwrap();
        let got: Vec<_> = h.iter().map(|r| (r.old_value.as_deref(), r.new_value.as_str(), r.actor.as_str())).collect();
        assert_eq!(got, vec![(None, "v1", "user"), (Some("v1"), "v2", "agent")]);

        let other = store.blocks().upsert(&agent, "persona", "p", None, "system").await.unwrap();
        let recent = store.block_history().recent_for_agent(&agent, 2).await.unwrap();
        let got: Vec<_> = recent.iter().map(|r| (r.block_id.as_str(), r.new_value.as_str())).collect();
        assert_eq!(got, vec![(other.id.as_str(), "p"), (b.id.as_str(), "v2")]);
    }
}
