//! The agent's memory as the user sees and edits it (`halley memory`):
//! the core blocks (always in the model's prompt), their change history,
//! and archival passages, for the default agent.

use crate::builtin::memory::blocks::{self as memory, ACTOR_USER, DEFAULT_BLOCK_LIMIT};
use crate::builtin::memory::{embedder, sources};
use crate::error::{Error, Result};
use crate::protocol::{
    ArchivalHitView, ArchivalPassageView, ArchivalSearchMode, EmbedFailure, EmbedStatusView, EmbedderApiKind,
    EmbedderSettingsView, MemoryBlockView, MemoryChange, MemoryEmbedderView, Reply,
};
use crate::store::Store;
use crate::store::blocks::{BlockRow, char_count};
use crate::store::embeddings::EmbedderApi;

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

/// Archival passages for `query` (by words and meaning, or as `mode`
/// says; as `filter` restricts them: tags, dates, source), at most `limit`
/// (1 to [`MAX_SEARCH_LIMIT`]).
pub async fn search(
    store: &Store,
    query: &str,
    filter: embedder::Filter,
    limit: u32,
    mode: ArchivalSearchMode,
) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let limit = limit.clamp(1, MAX_SEARCH_LIMIT);
    let mode = match mode {
        ArchivalSearchMode::Both => embedder::Mode::Both,
        ArchivalSearchMode::Words => embedder::Mode::Words,
        ArchivalSearchMode::Meaning => embedder::Mode::Meaning,
    };
    let found = embedder::search(store, &agent, query, &filter, mode, limit as usize).await?;
    let hits = found
        .hits
        .into_iter()
        .map(|h| ArchivalHitView {
            source: h.origin.as_ref().map(|o| o.source.clone()),
            file: h.origin.as_ref().map(|o| o.file.clone()),
            file_id: h.origin.as_ref().map(|o| o.file_id.clone()),
            page: h.origin.as_ref().and_then(|o| o.page),
            snippet: h.snippet.unwrap_or_else(|| start_of(&h.passage.text)),
            id: h.passage.id,
            agent_id: h.passage.agent_id,
            text: h.passage.text,
            tags: h.passage.tags,
            created_at: h.passage.created_at,
            score: h.score,
            word_rank: h.word_rank,
            meaning_rank: h.meaning_rank,
            similarity: h.similarity,
        })
        .collect();
    Ok(Reply::ArchivalHits { hits, note: found.note })
}

/// The first words of a passage, for one found by meaning alone.
fn start_of(text: &str) -> String {
    let mut out: String = text.chars().take(160).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The embedder and the passages' statuses.
pub async fn embedder(store: &Store) -> Result<Reply> {
    Ok(Reply::MemoryEmbedder { embedder: embedder_view(embedder::state(store).await?) })
}

/// Set the embedder (asked for one embedding first).
pub async fn set_embedder(store: &Store, input: embedder::EmbedderInput) -> Result<Reply> {
    Ok(Reply::MemoryEmbedder { embedder: embedder_view(embedder::set(store, input).await?) })
}

/// Read the sources' files waiting, then embed what waits now, the failed
/// passages too.
pub async fn embed(store: &Store) -> Result<Reply> {
    let read = sources::read_pending(store).await?;
    let report = embedder::embed_pending(store, true).await?;
    Ok(Reply::ArchivalEmbedded {
        embedded: report.embedded,
        failed: report.failed,
        error: report.error,
        files_read: read.read,
        files_skipped: read.skipped,
        files_failed: read.failed,
    })
}

/// The store's API kind for the protocol's.
pub fn api_of(kind: EmbedderApiKind) -> EmbedderApi {
    match kind {
        EmbedderApiKind::Ollama => EmbedderApi::Ollama,
        EmbedderApiKind::Openai => EmbedderApi::Openai,
    }
}

fn embedder_view(state: embedder::EmbedderState) -> MemoryEmbedderView {
    let settings = state.embedder.map(|c| EmbedderSettingsView {
        api: match c.api {
            EmbedderApi::Ollama => EmbedderApiKind::Ollama,
            EmbedderApi::Openai => EmbedderApiKind::Openai,
        },
        base_url: c.base_url,
        model: c.model,
        query_prefix: c.query_prefix,
        passage_prefix: c.passage_prefix,
        input_type: c.input_type,
        remote: c.remote,
        dim: c.dim,
    });
    MemoryEmbedderView {
        settings,
        pending: state.counts.pending,
        embedding: state.counts.embedding,
        done: state.counts.done,
        failed: state.counts.failed,
        failures: state.failed.into_iter().map(|(passage_id, error)| EmbedFailure { passage_id, error }).collect(),
    }
}

/// The latest `limit` passages (1 to [`MAX_SEARCH_LIMIT`]) with their
/// embedding status, newest first.
pub async fn passages(store: &Store, limit: u32) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let key = store.embeddings().config().await?.map(|c| c.key());
    let (rows, total) =
        store.embeddings().recent_passages(&agent, key.as_deref(), limit.clamp(1, MAX_SEARCH_LIMIT)).await?;
    let passages = rows
        .into_iter()
        .map(|r| ArchivalPassageView {
            status: match r.status.as_str() {
                "embedding" => EmbedStatusView::Embedding,
                "done" => EmbedStatusView::Done,
                "failed" => EmbedStatusView::Failed,
                _ => EmbedStatusView::Pending,
            },
            id: r.id,
            text: r.text,
            tags: r.tags,
            created_at: r.created_at,
            error: r.error,
            retry_at: r.retry_at,
        })
        .collect();
    Ok(Reply::ArchivalPassages { passages, total })
}

/// Store `text` as an archival passage with `tags`.
pub async fn add(store: &Store, text: &str, tags: &[String]) -> Result<Reply> {
    if text.trim().is_empty() {
        return Err(Error::invalid_arguments("the passage is empty: give some text"));
    }
    let agent = memory::default_agent(store).await?;
    let row = store.archival().insert(&agent, text, tags).await?;
    // With an embedder set, the passage is embedded now, so the next search
    // finds it by meaning; if the embedder fails, it is kept (found by its
    // words) and tried again later, and the reply says why.
    let not_embedded = match store.embeddings().config().await? {
        None => None,
        Some(_) => embedder::embed_pending(store, false).await?.error,
    };
    Ok(Reply::ArchivalAdded { id: row.id, not_embedded })
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

/// How often the embedder's worker looks for passages to embed.
pub const EMBED_TICK: std::time::Duration = std::time::Duration::from_secs(1);

/// The background embedding of a long-lived host; dropping it stops it.
#[derive(Debug)]
pub struct EmbedWorker {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for EmbedWorker {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl super::Host {
    /// Read the sources' files waiting into passages, and embed the
    /// archival passages waiting (new ones, those of a changed model, the
    /// failed whose time to try again came) every `tick`, in batches, until
    /// the host closes. A pass that fails leaves its batch
    /// `failed` with the reason; it is tried again later.
    pub fn start_embedder(self: &std::sync::Arc<Self>, tick: std::time::Duration) -> EmbedWorker {
        let host = std::sync::Arc::downgrade(self);
        let task = tokio::spawn(async move {
            loop {
                {
                    let Some(host) = host.upgrade() else { return };
                    if host.closing() {
                        return;
                    }
                    if !host.is_paused() {
                        let store = host.core().store();
                        if let Err(e) = embed_pass(store).await {
                            tracing::warn!("embedder: {}", e.message());
                        }
                    }
                }
                tokio::time::sleep(tick).await;
            }
        });
        EmbedWorker { task }
    }
}

async fn embed_pass(store: &Store) -> Result<()> {
    if store.sources().has_work().await? {
        let read = sources::read_pending(store).await?;
        tracing::info!(
            "sources: {} file(s) read into {} passage(s), {} skipped, {} failed",
            read.read,
            read.passages,
            read.skipped,
            read.failed
        );
    }
    let Some(config) = store.embeddings().config().await? else { return Ok(()) };
    if !store.embeddings().has_work(&config.key()).await? {
        return Ok(());
    }
    let report = embedder::embed_pending(store, false).await?;
    if let Some(e) = report.error {
        tracing::warn!("embedder: {} passage(s) failed: {e}", report.failed);
    }
    Ok(())
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
