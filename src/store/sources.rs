//! Sources: knowledge bases of the user's files attached to an agent
//! (`sources`), the files put into them with how far their reading went
//! (`source_files`), and the passages read out of them (archival passages
//! carrying their source, file and page). What reads a file is
//! `builtin::memory::sources`; this module only keeps the rows.

use serde::Serialize;

use crate::error::{Error, ErrorCode, Result};
use crate::store::{Store, new_id, now};

/// The longest source name, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1_000;
/// A file left `extracting` longer than this is taken again (its process died).
const STALE_EXTRACTING_MINUTES: i64 = 10;

/// One source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct SourceRow {
    pub id: String,
    pub agent_id: String,
    pub name: String,
    pub description: String,
    pub created_at: String,
}

/// A source with how many files it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct SourceSummary {
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub source: SourceRow,
    pub files: i64,
    pub passages: i64,
}

/// A file of a source, with the reading's status and, once read, how far
/// its passages' embedding went (for the embedder `key` asked about).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct SourceFileRow {
    pub source_id: String,
    pub file_id: String,
    pub name: String,
    pub mime: String,
    pub size: i64,
    pub stored_path: String,
    /// `pending`, `extracting`, `extracted`, `skipped` or `failed`.
    pub status: String,
    pub error: Option<String>,
    pub pages: Option<i64>,
    pub passages: i64,
    /// Of its passages: embedded with the current embedder.
    pub embedded: i64,
    /// Of its passages: failed to embed (the latest reason in `embed_error`).
    pub embed_failed: i64,
    pub embed_error: Option<String>,
    pub added_at: String,
    pub updated_at: String,
}

/// A file taken to be read.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ClaimedFile {
    pub source_id: String,
    pub agent_id: String,
    pub file_id: String,
    pub name: String,
    pub mime: String,
    pub stored_path: String,
}

/// One passage read out of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPassage {
    pub text: String,
    /// 1-based; `None` for a file without pages.
    pub page: Option<i64>,
}

/// Where a passage came from, for citing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Origin {
    pub passage_id: String,
    pub source_id: String,
    pub source: String,
    pub file_id: String,
    pub file: String,
    pub page: Option<i64>,
}

/// Accessor for `sources` and `source_files`.
pub struct Sources<'a> {
    store: &'a Store,
}

impl Store {
    pub fn sources(&self) -> Sources<'_> {
        Sources { store: self }
    }
}

/// What names are compared by: lowercase, NFC (`HỒ SƠ` is `hồ sơ`).
fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.trim().nfc().flat_map(char::to_lowercase).collect()
}

/// `name` trimmed, or why it is not a source name.
pub fn check_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::invalid_arguments("a source needs a name, e.g. \"Visa Nhật 2026\""));
    }
    if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(Error::invalid_arguments(format!(
            "a source's name is 1 to {MAX_NAME_CHARS} characters on one line, not {name:?}"
        )));
    }
    Ok(name.to_owned())
}

impl Sources<'_> {
    /// Make a source for `agent_id`; `invalid_arguments` for a bad name or
    /// one the agent has already (case aside).
    pub async fn create(&self, agent_id: &str, name: &str, description: &str) -> Result<SourceRow> {
        let name = check_name(name)?;
        let description = description.trim();
        if description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(Error::invalid_arguments(format!(
                "a source's description is at most {MAX_DESCRIPTION_CHARS} characters"
            )));
        }
        if self.by_name(agent_id, &name).await?.is_some() {
            return Err(Error::invalid_arguments(format!("there is already a source named {name:?}")));
        }
        super::returned(
            sqlx::query_as(
                "INSERT INTO sources (id, agent_id, name, name_key, description, created_at)
                 VALUES (?1, ?2, ?3, ?6, ?4, ?5)
                 RETURNING id, agent_id, name, description, created_at",
            )
            .bind(new_id("source"))
            .bind(agent_id)
            .bind(&name)
            .bind(description)
            .bind(now())
            .bind(name_key(&name))
            .fetch_all(self.store.pool())
            .await?,
        )
    }

    /// The source of `agent_id` named `name` (case aside).
    pub async fn by_name(&self, agent_id: &str, name: &str) -> Result<Option<SourceRow>> {
        Ok(sqlx::query_as(
            "SELECT id, agent_id, name, description, created_at FROM sources
             WHERE agent_id = ?1 AND name_key = ?2",
        )
        .bind(agent_id)
        .bind(name_key(name))
        .fetch_optional(self.store.pool())
        .await?)
    }

    /// The source named `name`, or `not_found` naming the sources there are.
    pub async fn named(&self, agent_id: &str, name: &str) -> Result<SourceRow> {
        if let Some(source) = self.by_name(agent_id, name).await? {
            return Ok(source);
        }
        let names: Vec<String> = self.list(agent_id).await?.into_iter().map(|s| s.source.name).collect();
        let there = if names.is_empty() {
            "there is none yet: `halley source create NAME`".to_owned()
        } else {
            format!("there are: {}", names.join(", "))
        };
        Err(Error::not_found(format!("no source named {:?}; {there}", name.trim())))
    }

    /// The source named `name`, made (without a description) when missing.
    pub async fn get_or_create(&self, agent_id: &str, name: &str) -> Result<SourceRow> {
        let name = check_name(name)?;
        if let Some(source) = self.by_name(agent_id, &name).await? {
            return Ok(source);
        }
        match self.create(agent_id, &name, "").await {
            Ok(source) => Ok(source),
            // Made meanwhile by another process.
            Err(e) if e.code() == ErrorCode::InvalidArguments => self.named(agent_id, &name).await,
            Err(e) => Err(e),
        }
    }

    /// The sources of `agent_id`, by name, with their counts.
    pub async fn list(&self, agent_id: &str) -> Result<Vec<SourceSummary>> {
        Ok(sqlx::query_as(
            "SELECT s.id, s.agent_id, s.name, s.description, s.created_at,
                (SELECT count(*) FROM source_files sf WHERE sf.source_id = s.id) AS files,
                (SELECT count(*) FROM archival_passages p WHERE p.source_id = s.id) AS passages
             FROM sources s WHERE s.agent_id = ?1 ORDER BY s.name_key",
        )
        .bind(agent_id)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// Delete a source with its passages (the stored files stay). `false`
    /// when it did not exist.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM source_files WHERE source_id = ?1").bind(id).execute(&mut *tx).await?;
        let done = sqlx::query("DELETE FROM sources WHERE id = ?1").bind(id).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }

    /// Put stored file `file_id` into source `source_id`, to be read. A
    /// file already there is read again when its reading failed; `true`
    /// when it is new to the source.
    pub async fn add_file(&self, source_id: &str, file_id: &str) -> Result<bool> {
        let at = now();
        let mut tx = self.store.begin_write().await?;
        let done = sqlx::query(
            "INSERT INTO source_files (source_id, file_id, added_at, updated_at) VALUES (?1, ?2, ?3, ?3)
             ON CONFLICT (source_id, file_id) DO NOTHING",
        )
        .bind(source_id)
        .bind(file_id)
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        let new = done.rows_affected() > 0;
        if !new {
            sqlx::query(
                "UPDATE source_files SET status = 'pending', error = NULL, updated_at = ?3
                 WHERE source_id = ?1 AND file_id = ?2 AND status = 'failed'",
            )
            .bind(source_id)
            .bind(file_id)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(new)
    }

    /// The files of a source, in the order they were added, their
    /// passages' embedding counted for the embedder `key`.
    pub async fn files(&self, source_id: &str, key: Option<&str>) -> Result<Vec<SourceFileRow>> {
        self.file_rows(source_id, key, None).await
    }

    /// One file of a source.
    pub async fn file(&self, source_id: &str, file_id: &str, key: Option<&str>) -> Result<Option<SourceFileRow>> {
        Ok(self.file_rows(source_id, key, Some(file_id)).await?.into_iter().next())
    }

    async fn file_rows(&self, source_id: &str, key: Option<&str>, file_id: Option<&str>) -> Result<Vec<SourceFileRow>> {
        Ok(sqlx::query_as(
            "SELECT sf.source_id, sf.file_id, f.name, f.mime, f.size, f.stored_path, sf.status, sf.error, sf.pages,
                sf.passages,
                (SELECT count(*) FROM archival_passages p JOIN archival_embeddings e ON e.passage_id = p.id
                  WHERE p.source_id = sf.source_id AND p.file_id = sf.file_id AND e.status = 'done'
                    AND e.embedder IS ?2) AS embedded,
                (SELECT count(*) FROM archival_passages p JOIN archival_embeddings e ON e.passage_id = p.id
                  WHERE p.source_id = sf.source_id AND p.file_id = sf.file_id AND e.status = 'failed') AS embed_failed,
                (SELECT e.error FROM archival_passages p JOIN archival_embeddings e ON e.passage_id = p.id
                  WHERE p.source_id = sf.source_id AND p.file_id = sf.file_id AND e.status = 'failed'
                  ORDER BY e.updated_at DESC LIMIT 1) AS embed_error,
                sf.added_at, sf.updated_at
             FROM source_files sf JOIN files f ON f.id = sf.file_id
             WHERE sf.source_id = ?1 AND (?3 IS NULL OR sf.file_id = ?3)
             ORDER BY sf.added_at, f.name",
        )
        .bind(source_id)
        .bind(key)
        .bind(file_id)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// Whether a file waits to be read.
    pub async fn has_work(&self) -> Result<bool> {
        let row: Option<(i64,)> = sqlx::query_as(
            "SELECT 1 FROM source_files WHERE status = 'pending' OR (status = 'extracting' AND updated_at < ?1) LIMIT 1",
        )
        .bind(stale_before())
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.is_some())
    }

    /// Take the next file to read (the oldest pending, or one whose reader
    /// died), marking it `extracting`.
    pub async fn claim(&self) -> Result<Option<ClaimedFile>> {
        let mut tx = self.store.begin_write().await?;
        let row: Option<ClaimedFile> = sqlx::query_as(
            "SELECT sf.source_id, s.agent_id, sf.file_id, f.name, f.mime, f.stored_path
             FROM source_files sf JOIN sources s ON s.id = sf.source_id JOIN files f ON f.id = sf.file_id
             WHERE sf.status = 'pending' OR (sf.status = 'extracting' AND sf.updated_at < ?1)
             ORDER BY sf.added_at LIMIT 1",
        )
        .bind(stale_before())
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(file) = &row {
            sqlx::query(
                "UPDATE source_files SET status = 'extracting', updated_at = ?3 WHERE source_id = ?1 AND file_id = ?2",
            )
            .bind(&file.source_id)
            .bind(&file.file_id)
            .bind(now())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(row)
    }

    /// Store the passages read out of a claimed file (replacing any it had)
    /// and mark it `extracted`: its passages wait for the embedder.
    pub async fn finish(&self, file: &ClaimedFile, pages: Option<i64>, passages: &[NewPassage]) -> Result<()> {
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM archival_passages WHERE source_id = ?1 AND file_id = ?2")
            .bind(&file.source_id)
            .bind(&file.file_id)
            .execute(&mut *tx)
            .await?;
        let at = now();
        for passage in passages {
            sqlx::query(
                "INSERT INTO archival_passages (id, agent_id, text, tags, created_at, source_id, file_id, page)
                 VALUES (?1, ?2, ?3, '[]', ?4, ?5, ?6, ?7)",
            )
            .bind(new_id("passage"))
            .bind(&file.agent_id)
            .bind(&passage.text)
            .bind(&at)
            .bind(&file.source_id)
            .bind(&file.file_id)
            .bind(passage.page)
            .execute(&mut *tx)
            .await?;
        }
        let done = sqlx::query(
            "UPDATE source_files SET status = 'extracted', error = NULL, pages = ?3, passages = ?4, updated_at = ?5
             WHERE source_id = ?1 AND file_id = ?2",
        )
        .bind(&file.source_id)
        .bind(&file.file_id)
        .bind(pages)
        .bind(i64::try_from(passages.len()).unwrap_or(i64::MAX))
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            // The file left the source meanwhile: keep nothing of it.
            tx.rollback().await?;
            return Ok(());
        }
        tx.commit().await?;
        Ok(())
    }

    /// Mark a claimed file `failed` or `skipped` (`status`) with `reason`.
    pub async fn stop(&self, file: &ClaimedFile, status: &str, reason: &str, pages: Option<i64>) -> Result<()> {
        sqlx::query(
            "UPDATE source_files SET status = ?3, error = ?4, pages = ?5, passages = 0, updated_at = ?6
             WHERE source_id = ?1 AND file_id = ?2",
        )
        .bind(&file.source_id)
        .bind(&file.file_id)
        .bind(status)
        .bind(reason)
        .bind(pages)
        .bind(now())
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// The passages of source `source_id`.
    pub async fn passage_ids(&self, source_id: &str) -> Result<Vec<String>> {
        let rows: Vec<(String,)> = sqlx::query_as("SELECT id FROM archival_passages WHERE source_id = ?1")
            .bind(source_id)
            .fetch_all(self.store.pool())
            .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Where each of `ids` came from (those read out of a source's file).
    pub async fn origins(&self, ids: &[String]) -> Result<Vec<Origin>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Ok(sqlx::query_as(
            "SELECT p.id AS passage_id, s.id AS source_id, s.name AS source, f.id AS file_id, f.name AS file, p.page
             FROM archival_passages p JOIN sources s ON s.id = p.source_id JOIN files f ON f.id = p.file_id
             WHERE p.id IN (SELECT value FROM json_each(?1))",
        )
        .bind(sqlx::types::Json(ids))
        .fetch_all(self.store.pool())
        .await?)
    }
}

fn stale_before() -> String {
    (chrono::Utc::now() - chrono::Duration::minutes(STALE_EXTRACTING_MINUTES))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::store::files::NewFile;
    use crate::store::test_support::{agent, open_temp};

    async fn file(store: &Store, n: u8) -> String {
        let sha = format!("{n:02x}").repeat(32);
        let new = NewFile {
            id: format!("file-{}", &sha[..16]),
            sha256: sha.clone(),
            name: format!("visa-{n}.pdf"),
            mime: "application/pdf".into(),
            size: 10,
            stored_path: format!("/nowhere/{sha}.pdf"),
            original_path: "/tmp/visa.pdf".into(),
            note: None,
        };
        store.files().upsert_with_tags(&new, &[], None).await.unwrap().0.id
    }

    #[tokio::test]
    async fn sources_hold_files_whose_passages_go_with_them() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let visa = store.sources().create(&agent, " Visa Nhật 2026 ", "Hồ sơ xin visa").await.unwrap();
        assert_eq!(visa.name, "Visa Nhật 2026");
        let err = store.sources().create(&agent, "VISA NHẬT 2026", "").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments, "{}", err.message());
        assert_eq!(store.sources().create(&agent, " ", "").await.unwrap_err().code(), ErrorCode::InvalidArguments);
        let err = store.sources().named(&agent, "Nope").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert!(err.message().contains("Visa Nhật 2026"), "{}", err.message());
        assert_eq!(store.sources().get_or_create(&agent, "VISA Nhật 2026").await.unwrap().id, visa.id);

        let f = file(&store, 1).await;
        assert!(store.sources().add_file(&visa.id, &f).await.unwrap());
        assert!(!store.sources().add_file(&visa.id, &f).await.unwrap());
        assert!(store.sources().has_work().await.unwrap());
        let claimed = store.sources().claim().await.unwrap().unwrap();
        assert_eq!((claimed.file_id.as_str(), claimed.agent_id.as_str()), (f.as_str(), agent.as_str()));
        assert!(store.sources().claim().await.unwrap().is_none());
        let passages = vec![
            NewPassage { text: "Trang một".into(), page: Some(1) },
            NewPassage { text: "Số dư tài khoản 50.000.000 ₫".into(), page: Some(2) },
        ];
        store.sources().finish(&claimed, Some(2), &passages).await.unwrap();
        let row = store.sources().file(&visa.id, &f, None).await.unwrap().unwrap();
        assert_eq!((row.status.as_str(), row.pages, row.passages, row.embedded), ("extracted", Some(2), 2, 0));
        let found = store.archival().search(&agent, "so du tai khoan", &[], 5).await.unwrap();
        assert_eq!(found.len(), 1);
        let origins = store.sources().origins(&[found[0].passage.id.clone()]).await.unwrap();
        assert_eq!(
            (origins[0].source.as_str(), origins[0].file.as_str(), origins[0].page),
            ("Visa Nhật 2026", "visa-1.pdf", Some(2))
        );
        let listed = store.sources().list(&agent).await.unwrap();
        assert_eq!((listed[0].files, listed[0].passages), (1, 2));

        // Deleting the source takes its passages (and their index entries),
        // not the stored file.
        assert!(store.sources().delete(&visa.id).await.unwrap());
        assert!(!store.sources().delete(&visa.id).await.unwrap());
        assert_eq!(store.archival().count(&agent).await.unwrap(), 0);
        assert!(store.archival().search(&agent, "so du", &[], 5).await.unwrap().is_empty());
        assert!(store.files().get(&f).await.unwrap().is_some());
        let (left,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM archival_embeddings").fetch_one(store.pool()).await.unwrap();
        assert_eq!(left, 0);
    }

    #[tokio::test]
    async fn a_failed_file_added_again_is_read_again() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let s = store.sources().create(&agent, "Files", "").await.unwrap();
        let f = file(&store, 2).await;
        store.sources().add_file(&s.id, &f).await.unwrap();
        let claimed = store.sources().claim().await.unwrap().unwrap();
        store.sources().stop(&claimed, "failed", "not a PDF", None).await.unwrap();
        let row = store.sources().file(&s.id, &f, None).await.unwrap().unwrap();
        assert_eq!((row.status.as_str(), row.error.as_deref()), ("failed", Some("not a PDF")));
        assert!(!store.sources().has_work().await.unwrap());
        store.sources().add_file(&s.id, &f).await.unwrap();
        let row = store.sources().file(&s.id, &f, None).await.unwrap().unwrap();
        assert_eq!((row.status.as_str(), row.error), ("pending", None));
    }
}
