//! Archival memory: an agent's passages outside its context window, with
//! tags, found again by FTS5 full-text search ranked by bm25. Searches are
//! case- and diacritics-insensitive (`khach san` finds `khách sạn`, `da
//! nang` finds `Đà Nẵng`); user text never reaches FTS5's query syntax.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use sqlx::types::Json;

use crate::error::{Error, Result};
use crate::store::file_tags::normalize_tags;
use crate::store::{Store, new_id, now};

/// Words of a query at most; the rest is ignored.
pub const MAX_QUERY_TERMS: usize = 32;

/// The most matches one word search scores with bm25 (about 2 µs each):
/// an any-word search over 100,000 passages would otherwise score most of
/// them (`make bench-memory`).
pub const MAX_SCORED: u32 = 10_000;

/// A word search's ranking (see `Archival::run_search`): ?1 the FTS5
/// query, ?2 the agent, ?3 the tags (JSON), ?4 the limit, ?5 the source,
/// ?6 the floor.
const RANKED_SQL: &str = "SELECT p.seq, p.id, p.agent_id, p.text, p.tags, p.created_at, bm25(archival_fts) AS score
             FROM archival_fts CROSS JOIN archival_passages p ON p.seq = archival_fts.rowid
             WHERE archival_fts MATCH ?1 AND archival_fts.rowid > ?6 AND p.agent_id = ?2
               AND (json_array_length(?3) = 0
                    OR (SELECT count(*) FROM json_each(p.tags) t WHERE t.value IN (SELECT value FROM json_each(?3)))
                       = json_array_length(?3))
               AND (?5 IS NULL OR p.source_id = ?5)
             ORDER BY score, p.seq DESC
             LIMIT ?4";

/// One stored passage.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct PassageRow {
    pub id: String,
    pub agent_id: String,
    pub text: String,
    /// Trimmed, lowercased, sorted, without duplicates.
    #[sqlx(json)]
    pub tags: Vec<String>,
    pub created_at: String,
}

/// A passage found by [`Archival::search`].
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct ArchivalHit {
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub passage: PassageRow,
    /// The best-matching part of the text, matches in `[` `]`, cuts as `…`.
    pub snippet: String,
    /// bm25 score: lower (more negative) is a better match.
    pub score: f64,
}

/// The passages a word search found, best first, each with its bm25 score
/// (lower is better), and what cuts their snippets.
#[derive(Debug, Clone, Default)]
pub struct Ranked {
    pub hits: Vec<(PassageRow, f64)>,
    /// The FTS5 query that found them.
    fts: String,
    /// Their FTS rowids, by id.
    seqs: HashMap<String, i64>,
}

#[derive(sqlx::FromRow)]
struct RankedRow {
    seq: i64,
    #[sqlx(flatten)]
    passage: PassageRow,
    score: f64,
}

/// Accessor for `archival_passages` and its FTS index.
pub struct Archival<'a> {
    store: &'a Store,
    /// [`MAX_SCORED`], lower in tests.
    max_scored: u32,
}

impl Store {
    pub fn archival(&self) -> Archival<'_> {
        Archival { store: self, max_scored: MAX_SCORED }
    }
}

impl Archival<'_> {
    /// The same, scoring at most `n` matches per search (tests).
    #[cfg(test)]
    fn scoring_at_most(self, n: u32) -> Self {
        Archival { max_scored: n, ..self }
    }

    /// Store a passage for `agent_id`. Text that is blank is an
    /// `invalid_arguments` error; tags are normalised (see
    /// [`normalize_tags`]).
    pub async fn insert(&self, agent_id: &str, text: &str, tags: &[String]) -> Result<PassageRow> {
        if text.trim().is_empty() {
            return Err(Error::invalid_arguments("an archival passage needs some text"));
        }
        let tags = normalize_tags(tags);
        super::returned(
            sqlx::query_as(
                "INSERT INTO archival_passages (id, agent_id, text, tags, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id, agent_id, text, tags, created_at",
            )
            .bind(new_id("passage"))
            .bind(agent_id)
            .bind(text)
            .bind(Json(&tags))
            .bind(now())
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    pub async fn get(&self, id: &str) -> Result<Option<PassageRow>> {
        Ok(sqlx::query_as("SELECT id, agent_id, text, tags, created_at FROM archival_passages WHERE id = ?1")
            .bind(id)
            .fetch_optional(self.store.pool())
            .await?)
    }

    /// The passages of `ids` that exist, in no order.
    pub async fn get_many(&self, ids: &[&str]) -> Result<Vec<PassageRow>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Ok(sqlx::query_as(
            "SELECT id, agent_id, text, tags, created_at FROM archival_passages
             WHERE id IN (SELECT value FROM json_each(?1))",
        )
        .bind(Json(ids))
        .fetch_all(self.store.pool())
        .await?)
    }

    /// The passages of `agent_id` matching `query`, best first, at most
    /// `limit`, restricted to those carrying every tag of `tags` (none: no
    /// restriction). Passages holding every word of the query come first;
    /// when none does, passages holding any of them. A query without a
    /// single word (only punctuation) is an `invalid_arguments` error.
    pub async fn search(&self, agent_id: &str, query: &str, tags: &[String], limit: u32) -> Result<Vec<ArchivalHit>> {
        self.search_in(agent_id, query, tags, None, limit).await
    }

    /// [`Self::search`] among the passages read out of source `source_id`
    /// only, when given.
    pub async fn search_in(
        &self,
        agent_id: &str,
        query: &str,
        tags: &[String],
        source_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<ArchivalHit>> {
        let ranked = self.ranked_in(agent_id, query, tags, source_id, limit).await?;
        let ids: Vec<&str> = ranked.hits.iter().map(|(p, _)| p.id.as_str()).collect();
        let mut snippets = self.snippets(&ranked, &ids).await?;
        Ok(ranked
            .hits
            .into_iter()
            .map(|(passage, score)| {
                let snippet = snippets.remove(&passage.id).unwrap_or_default();
                ArchivalHit { passage, snippet, score }
            })
            .collect())
    }

    /// The passages [`Self::search_in`] finds, best first, with their bm25
    /// score but without snippets ([`Self::snippets`] cuts them for the few
    /// shown). At most [`MAX_SCORED`] passages are scored: when the query's
    /// words are in more, an any-word search leaves out its commonest words
    /// (those that rank least) until the rest are in at most that many, and
    /// what still matches more is scored among its newest [`MAX_SCORED`].
    pub async fn ranked_in(
        &self,
        agent_id: &str,
        query: &str,
        tags: &[String],
        source_id: Option<&str>,
        limit: u32,
    ) -> Result<Ranked> {
        let terms = query_terms(query);
        if terms.is_empty() {
            return Err(Error::invalid_arguments(format!(
                "nothing to search for in {query:?}: give at least one word (letters or digits)"
            )));
        }
        let tags = normalize_tags(tags);
        let all = self.run_search(agent_id, terms.join(" "), &tags, source_id, limit).await?;
        if !all.hits.is_empty() || terms.len() == 1 {
            return Ok(all);
        }
        let any = self.rarest(terms).await?.join(" OR ");
        self.run_search(agent_id, any, &tags, source_id, limit).await
    }

    /// The snippets of the passages `ids` (found by `ranked`), by id: the
    /// best-matching part of each text, matches in `[` `]`, cuts as `…`.
    pub async fn snippets(&self, ranked: &Ranked, ids: &[&str]) -> Result<HashMap<String, String>> {
        let mut out = HashMap::with_capacity(ids.len());
        for id in ids {
            let Some(seq) = ranked.seqs.get(*id) else { continue };
            let snippet: Option<(String,)> = sqlx::query_as(
                "SELECT snippet(archival_fts, 0, '[', ']', '…', 24) FROM archival_fts
                 WHERE archival_fts MATCH ?1 AND rowid = ?2",
            )
            .bind(&ranked.fts)
            .bind(seq)
            .fetch_optional(self.store.pool())
            .await?;
            if let Some((snippet,)) = snippet {
                out.insert((*id).to_owned(), snippet);
            }
        }
        Ok(out)
    }

    /// The terms of an any-word search whose matches bm25 may score: all of
    /// them when at most [`MAX_SCORED`] passages hold one, else without the
    /// commonest (bm25 gives a word in most passages next to no weight)
    /// until the rest are in at most that many, the rarest always kept.
    async fn rarest(&self, terms: Vec<String>) -> Result<Vec<String>> {
        if self.floor(&terms.join(" OR ")).await? == 0 {
            return Ok(terms);
        }
        let mut counted = Vec::with_capacity(terms.len());
        for term in terms {
            let (n,): (i64,) = sqlx::query_as(
                "SELECT count(*) FROM (SELECT 1 FROM archival_fts WHERE archival_fts MATCH ?1 LIMIT ?2)",
            )
            .bind(&term)
            .bind(self.max_scored + 1)
            .fetch_one(self.store.pool())
            .await?;
            counted.push((term, n));
        }
        let mut by_count: Vec<usize> = (0..counted.len()).collect();
        by_count.sort_by_key(|i| std::cmp::Reverse(counted[*i].1));
        let mut total: i64 = counted.iter().map(|(_, n)| n).sum();
        let mut dropped = HashSet::new();
        for i in by_count {
            if total <= i64::from(self.max_scored) || dropped.len() + 1 == counted.len() {
                break;
            }
            total -= counted[i].1;
            dropped.insert(i);
        }
        Ok(counted.into_iter().enumerate().filter(|(i, _)| !dropped.contains(i)).map(|(_, (t, _))| t).collect())
    }

    /// The rowid under the newest [`MAX_SCORED`] matches of `fts` (0 when
    /// there are no more): a search scores only the rows above it.
    async fn floor(&self, fts: &str) -> Result<i64> {
        let row: Option<(i64,)> = sqlx::query_as(
            "SELECT rowid FROM archival_fts WHERE archival_fts MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2",
        )
        .bind(fts)
        .bind(self.max_scored)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.map_or(0, |(r,)| r))
    }

    async fn run_search(
        &self,
        agent_id: &str,
        fts: String,
        tags: &[String],
        source_id: Option<&str>,
        limit: u32,
    ) -> Result<Ranked> {
        let floor = self.floor(&fts).await?;
        // bm25 inside FTS5, the passage's row read by its key; no snippet
        // and no look at the tags unless some are asked for. CROSS JOIN
        // keeps the FTS5 match the outer loop: SQLite's planner would
        // otherwise walk the agent's passages and run the MATCH once per
        // passage (minutes over 100,000).
        let rows: Vec<RankedRow> = sqlx::query_as(RANKED_SQL)
            .bind(&fts)
            .bind(agent_id)
            .bind(Json(tags))
            .bind(limit)
            .bind(source_id)
            .bind(floor)
            .fetch_all(self.store.pool())
            .await?;
        let seqs = rows.iter().map(|r| (r.passage.id.clone(), r.seq)).collect();
        Ok(Ranked { hits: rows.into_iter().map(|r| (r.passage, r.score)).collect(), fts, seqs })
    }

    /// How many passages `agent_id` has.
    pub async fn count(&self, agent_id: &str) -> Result<i64> {
        let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM archival_passages WHERE agent_id = ?1")
            .bind(agent_id)
            .fetch_one(self.store.pool())
            .await?;
        Ok(n)
    }

    /// Delete a passage (and its index entry). `false` if it did not exist.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let done =
            sqlx::query("DELETE FROM archival_passages WHERE id = ?1").bind(id).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }
}

/// The words of a query as quoted FTS5 strings: folded to lowercase ASCII
/// where Vietnamese or Latin marks allow (the index folds the same way), cut
/// at anything that is not a letter or a digit, so no user text can form
/// FTS5 syntax (operators, columns, `*`, `"`). At most [`MAX_QUERY_TERMS`],
/// without duplicates.
fn query_terms(query: &str) -> Vec<String> {
    let folded = crate::vocab::text::fold(query);
    let mut terms: Vec<String> = Vec::new();
    for word in folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let quoted = format!("\"{word}\"");
        if !terms.contains(&quoted) {
            terms.push(quoted);
        }
        if terms.len() == MAX_QUERY_TERMS {
            break;
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::{agent, open_temp};

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn ids(hits: &[ArchivalHit]) -> Vec<&str> {
        hits.iter().map(|h| h.passage.id.as_str()).collect()
    }

    #[tokio::test]
    async fn the_bundled_sqlite_has_fts5_with_diacritics_removal() {
        let (_dir, store) = open_temp().await;
        let (on,): (i64,) =
            sqlx::query_as("SELECT sqlite_compileoption_used('ENABLE_FTS5')").fetch_one(store.pool()).await.unwrap();
        assert_eq!(on, 1);
        let (sql,): (String,) = sqlx::query_as("SELECT sql FROM sqlite_master WHERE name = 'archival_fts'")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert!(sql.contains("unicode61 remove_diacritics 2"), "{sql}");
    }

    #[tokio::test]
    async fn insert_get_count_and_delete() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let p = store.archival().insert(&agent, "An thích phở bò", &strings(&[" Food ", "food", "Sở thích"])).await;
        let p = p.unwrap();
        assert!(p.id.starts_with("passage-"), "{}", p.id);
        assert_eq!(
            (p.agent_id.as_str(), p.text.as_str(), p.tags.clone()),
            (agent.as_str(), "An thích phở bò", strings(&["food", "sở thích"]))
        );
        assert_eq!(store.archival().get(&p.id).await.unwrap(), Some(p.clone()));
        assert_eq!(store.archival().count(&agent).await.unwrap(), 1);

        assert!(store.archival().delete(&p.id).await.unwrap());
        assert!(!store.archival().delete(&p.id).await.unwrap());
        assert_eq!(store.archival().count(&agent).await.unwrap(), 0);
        // The index forgot it too.
        assert_eq!(store.archival().search(&agent, "phở", &[], 5).await.unwrap(), vec![]);
    }

    #[tokio::test]
    async fn blank_text_is_refused() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let err = store.archival().insert(&agent, " \n\t", &[]).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        assert_eq!(store.archival().count(&agent).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn vietnamese_matches_with_or_without_diacritics() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let hotel = store.archival().insert(&agent, "Khách sạn Mường Thanh ở Đà Nẵng, giá 1.200.000 ₫", &[]).await;
        let hotel = hotel.unwrap();
        let plain = store.archival().insert(&agent, "The user likes khach san near the beach", &[]).await.unwrap();
        let other = store.archival().insert(&agent, "Chuyến bay HAN-NRT ngày 10/02", &[]).await.unwrap();

        let found = store.archival().search(&agent, "khach san", &[], 5).await.unwrap();
        let mut got = ids(&found);
        got.sort_unstable();
        let mut want = vec![hotel.id.as_str(), plain.id.as_str()];
        want.sort_unstable();
        assert_eq!(got, want);

        for query in ["KHÁCH SẠN", "da nang", "Đà Nẵng", "muong thanh", "MƯỜNG"] {
            let found = store.archival().search(&agent, query, &[], 5).await.unwrap();
            assert!(ids(&found).contains(&hotel.id.as_str()), "{query:?} did not find the hotel");
            assert!(!ids(&found).contains(&other.id.as_str()), "{query:?} found the flight");
        }
        // A decomposed (NFD) query matches too.
        let found = store.archival().search(&agent, "Kha\u{301}ch sa\u{323}n", &[], 5).await.unwrap();
        assert_eq!(found.len(), 2);

        // Snippets are cut from the original text, diacritics and all.
        let found = store.archival().search(&agent, "da nang", &[], 5).await.unwrap();
        assert_eq!(found[0].snippet, "Khách sạn Mường Thanh ở [Đà] [Nẵng], giá 1.200.000 ₫");
    }

    #[tokio::test]
    async fn every_word_first_then_any_word_ranked_by_bm25() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let both = store.archival().insert(&agent, "vé máy bay đi Tokyo tháng hai", &[]).await.unwrap();
        let one = store.archival().insert(&agent, "Tokyo Tokyo Tokyo: khách sạn Shinjuku", &[]).await.unwrap();
        let found = store.archival().search(&agent, "ve Tokyo", &[], 5).await.unwrap();
        assert_eq!(ids(&found), vec![both.id.as_str()]);

        // No passage holds both words: any word, the denser match first.
        let found = store.archival().search(&agent, "Tokyo Osaka", &[], 5).await.unwrap();
        assert_eq!(ids(&found), vec![one.id.as_str(), both.id.as_str()]);
        assert!(found[0].score <= found[1].score);
        let found = store.archival().search(&agent, "Tokyo", &[], 1).await.unwrap();
        assert_eq!(found.len(), 1);
    }

    #[tokio::test]
    async fn fts_syntax_in_queries_is_only_text() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let p = store.archival().insert(&agent, "NEAR the airport, AND cheap: text OR not", &[]).await.unwrap();
        for query in ["\"airport", "airport*", "text: cheap", "NEAR(airport cheap)", "airport AND", "-cheap ^airport"] {
            let found = store.archival().search(&agent, query, &[], 5).await.unwrap();
            assert_eq!(ids(&found), vec![p.id.as_str()], "{query:?}");
        }
        let found = store.archival().search(&agent, "OR", &[], 5).await.unwrap();
        assert_eq!(ids(&found), vec![p.id.as_str()]);
        for query in ["", "   ", "!!! ... ???", "\"*()^-:"] {
            let err = store.archival().search(&agent, query, &[], 5).await.unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArguments, "{query:?}");
        }
    }

    #[tokio::test]
    async fn tags_restrict_and_agents_are_apart() {
        let (_dir, store) = open_temp().await;
        let agent_a = agent(&store).await;
        let agent_b = agent(&store).await;
        let travel = store.archival().insert(&agent_a, "Hộ chiếu hết hạn 2030", &strings(&["travel", "docs"])).await;
        let travel = travel.unwrap();
        let shop = store.archival().insert(&agent_a, "Hộ chiếu: mua bao da", &strings(&["shopping"])).await.unwrap();
        store.archival().insert(&agent_b, "Hộ chiếu của B", &[]).await.unwrap();

        let found = store.archival().search(&agent_a, "ho chieu", &strings(&["TRAVEL"]), 5).await.unwrap();
        assert_eq!(ids(&found), vec![travel.id.as_str()]);
        let found = store.archival().search(&agent_a, "ho chieu", &strings(&["travel", "docs"]), 5).await.unwrap();
        assert_eq!(ids(&found), vec![travel.id.as_str()]);
        let found = store.archival().search(&agent_a, "ho chieu", &strings(&["travel", "shopping"]), 5).await;
        assert_eq!(found.unwrap(), vec![]);
        let found = store.archival().search(&agent_a, "ho chieu", &[], 5).await.unwrap();
        assert_eq!(found.len(), 2);
        assert!(ids(&found).contains(&shop.id.as_str()));

        store.agents().delete(&agent_a).await.unwrap();
        assert_eq!(store.archival().count(&agent_a).await.unwrap(), 0);
        let found = store.archival().search(&agent_b, "ho chieu", &[], 5).await.unwrap();
        assert_eq!(found.len(), 1);
        let (indexed,): (i64,) = sqlx::query_as("SELECT count(*) FROM archival_fts WHERE archival_fts MATCH 'chieu'")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(indexed, 1, "the cascade removed the deleted agent's passages from the index");
    }

    #[tokio::test]
    async fn a_common_word_does_not_make_bm25_score_every_passage() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        // The oldest passage holds the rare word; more than the cap of newer
        // ones hold the common word.
        let visa = store.archival().insert(&agent, "Thị thực Nhật: visa du lịch 90 ngày", &[]).await.unwrap();
        let mut tx = store.begin_write().await.unwrap();
        for i in 0..=40 {
            sqlx::query(
                "INSERT INTO archival_passages (id, agent_id, text, tags, created_at) VALUES (?1, ?2, ?3, '[]', ?4)",
            )
            .bind(format!("passage-filler-{i}"))
            .bind(&agent)
            .bind(format!("ghi chú số {i} về chuyến đi"))
            .bind(now())
            .execute(&mut *tx)
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
        // No passage holds both words; the any-word search leaves out the
        // common one, so the old rare match is not lost under the floor.
        let archival = store.archival().scoring_at_most(40);
        let found = archival.search(&agent, "chuyến visa", &[], 5).await.unwrap();
        assert_eq!(ids(&found)[0], visa.id.as_str());
        assert_eq!(found[0].snippet, "Thị thực Nhật: [visa] du lịch 90 ngày");
        // Every word common: the newest 40 matches are scored, the newest
        // first among equals.
        let found = archival.search(&agent, "chuyến đi", &[], 3).await.unwrap();
        assert_eq!(ids(&found), vec!["passage-filler-40", "passage-filler-39", "passage-filler-38"]);
        assert_eq!(archival.floor("\"chuyen\"").await.unwrap(), 2);
        // Without the cap, the same.
        let found = store.archival().search(&agent, "chuyến visa", &[], 1).await.unwrap();
        assert_eq!(ids(&found), vec![visa.id.as_str()]);
    }

    #[tokio::test]
    async fn the_ranking_walks_the_fts5_matches_not_the_agents_passages() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        for i in 0..50 {
            store.archival().insert(&agent, &format!("ghi chú {i}"), &[]).await.unwrap();
        }
        sqlx::query("ANALYZE").execute(store.pool()).await.unwrap();
        let plan: Vec<(i64, i64, i64, String)> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {RANKED_SQL}")))
                .bind("\"ghi\"")
                .bind(&agent)
                .bind(Json(Vec::<String>::new()))
                .bind(5)
                .bind(None::<String>)
                .bind(0)
                .fetch_all(store.pool())
                .await
                .unwrap();
        let steps: Vec<&str> = plan.iter().map(|(_, _, _, d)| d.as_str()).collect();
        assert!(steps[0].starts_with("SCAN archival_fts VIRTUAL TABLE"), "{steps:?}");
        assert!(steps.iter().any(|s| s.starts_with("SEARCH p USING INTEGER PRIMARY KEY")), "{steps:?}");
    }

    #[test]
    fn query_terms_are_quoted_folded_words() {
        assert_eq!(query_terms("Khách sạn, ĐÀ NẴNG!"), strings(&["\"khach\"", "\"san\"", "\"da\"", "\"nang\""]));
        assert_eq!(query_terms("a\"b OR c* a"), strings(&["\"a\"", "\"b\"", "\"or\"", "\"c\""]));
        assert_eq!(query_terms("?!"), Vec::<String>::new());
        assert_eq!(query_terms(&"w ".repeat(100)).len(), 1);
        let many: String = (0..100).map(|i| format!("w{i} ")).collect();
        assert_eq!(query_terms(&many).len(), MAX_QUERY_TERMS);
    }
}
