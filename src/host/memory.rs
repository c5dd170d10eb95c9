//! The agent's memory as the user sees and edits it (`halley memory`):
//! the core blocks (always in the model's prompt), their change history,
//! and archival passages, for the default agent.

use crate::builtin::memory::blocks::{self as memory, ACTOR_USER, DEFAULT_BLOCK_LIMIT};
use crate::error::{Error, Result};
use crate::protocol::{ArchivalHitView, MemoryBlockView, MemoryChange, Reply};
use crate::store::Store;
use crate::store::blocks::{BlockRow, char_count};

/// The largest character limit a block is given here.
pub const MAX_BLOCK_LIMIT: i64 = 100_000;
/// The most passages one search returns.
pub const MAX_SEARCH_LIMIT: u32 = 100;

/// The core memory blocks.
pub async fn blocks(store: &Store) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let blocks = store.blocks().for_agent(&agent).await?.into_iter().map(view).collect();
    Ok(Reply::MemoryBlocks { blocks })
}

/// Set block `label` to `value` (created with `limit`, else
/// [`DEFAULT_BLOCK_LIMIT`], characters), changed by the user.
pub async fn set(store: &Store, label: &str, value: &str, limit: Option<i64>) -> Result<Reply> {
    memory::check_label(label)?;
    if let Some(l) = limit
        && !(1..=MAX_BLOCK_LIMIT).contains(&l)
    {
        return Err(Error::invalid_arguments(format!("a block's limit is 1 to {MAX_BLOCK_LIMIT} characters, not {l}")));
    }
    let agent = memory::default_agent(store).await?;
    let existing = store.blocks().get(&agent, label).await?;
    let limit = limit.or_else(|| existing.is_none().then_some(DEFAULT_BLOCK_LIMIT));
    let block = store.blocks().upsert(&agent, label, value, limit, ACTOR_USER).await?;
    Ok(Reply::MemoryBlockSet { block: view(block), created: existing.is_none() })
}

/// The latest `limit` changes (to block `label` only, when given), newest
/// first; `invalid_arguments` (naming the blocks) for an unknown block.
pub async fn history(store: &Store, label: Option<&str>, limit: u32) -> Result<Reply> {
    if let Some(label) = label {
        memory::check_label(label)?;
    }
    let agent = memory::default_agent(store).await?;
    let blocks = store.blocks().for_agent(&agent).await?;
    let label_of = |id: &str| blocks.iter().find(|b| b.id == id).map_or_else(String::new, |b| b.label.clone());
    let rows = match label {
        Some(label) => {
            let Some(block) = blocks.iter().find(|b| b.label == label) else {
                return Err(memory::unknown_label(store, &agent, label).await);
            };
            let mut rows = store.block_history().for_block(&block.id).await?;
            rows.reverse();
            rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            rows
        }
        None => store.block_history().recent_for_agent(&agent, limit).await?,
    };
    let changes = rows
        .into_iter()
        .map(|h| MemoryChange {
            label: label_of(&h.block_id),
            actor: h.actor,
            at: h.at,
            old_value: h.old_value,
            new_value: h.new_value,
        })
        .collect();
    Ok(Reply::MemoryHistory { changes })
}

/// Archival passages matching `query` (and carrying every tag of `tags`),
/// at most `limit` (1 to [`MAX_SEARCH_LIMIT`]).
pub async fn search(store: &Store, query: &str, tags: &[String], limit: u32) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let limit = limit.clamp(1, MAX_SEARCH_LIMIT);
    let hits = store
        .archival()
        .search(&agent, query, tags, limit)
        .await?
        .into_iter()
        .map(|h| ArchivalHitView {
            id: h.passage.id,
            agent_id: h.passage.agent_id,
            text: h.passage.text,
            tags: h.passage.tags,
            created_at: h.passage.created_at,
            snippet: h.snippet,
            score: h.score,
        })
        .collect();
    Ok(Reply::ArchivalHits { hits })
}

/// Store `text` as an archival passage with `tags`.
pub async fn add(store: &Store, text: &str, tags: &[String]) -> Result<Reply> {
    if text.trim().is_empty() {
        return Err(Error::invalid_arguments("the passage is empty: give some text"));
    }
    let agent = memory::default_agent(store).await?;
    let row = store.archival().insert(&agent, text, tags).await?;
    Ok(Reply::ArchivalAdded { id: row.id })
}

fn view(b: BlockRow) -> MemoryBlockView {
    MemoryBlockView {
        chars: char_count(&b.value),
        label: b.label,
        value: b.value,
        char_limit: b.char_limit,
        updated_at: b.updated_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    #[tokio::test]
    async fn a_block_set_by_the_user_shows_in_its_history() {
        let (_dir, store) = open_temp().await;
        let Reply::MemoryBlockSet { block, created } = set(&store, "sở_thích", "Trà", None).await.unwrap() else {
            panic!("not a block")
        };
        assert!(created);
        assert_eq!((block.chars, block.char_limit), (3, DEFAULT_BLOCK_LIMIT));
        let Reply::MemoryBlockSet { created, .. } = set(&store, "sở_thích", "Cà phê", None).await.unwrap() else {
            panic!("not a block")
        };
        assert!(!created);
        let Reply::MemoryHistory { changes } = history(&store, Some("sở_thích"), 10).await.unwrap() else {
            panic!("not the history")
        };
        let seen: Vec<_> = changes.iter().map(|c| (c.actor.as_str(), c.old_value.as_deref())).collect();
        assert_eq!(seen, [(ACTOR_USER, Some("Trà")), (ACTOR_USER, None)]);
        let code = |r: Result<Reply>| r.unwrap_err().code();
        assert_eq!(code(history(&store, Some("nope"), 10).await), ErrorCode::InvalidArguments);
        assert_eq!(code(set(&store, "bad label", "x", None).await), ErrorCode::InvalidArguments);
        assert_eq!(code(set(&store, "human", "x", Some(0)).await), ErrorCode::InvalidArguments);
        assert_eq!(code(add(&store, "  ", &[]).await), ErrorCode::InvalidArguments);
        store.close().await;
    }
}
