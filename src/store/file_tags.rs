//! Tags on stored files. Tags are compared case-insensitively after
//! trimming, so they are stored lowercased and trimmed; empty tags are
//! dropped.

use std::collections::BTreeSet;

use sqlx::SqliteConnection;

use crate::error::{Error, Result};
use crate::store::{Store, now};

/// The stored form of a tag: trimmed and lowercased; `None` if empty.
pub fn normalize_tag(tag: &str) -> Option<String> {
    let tag = tag.trim().to_lowercase();
    (!tag.is_empty()).then_some(tag)
}

/// Normalised, deduplicated and sorted.
pub fn normalize_tags(tags: &[String]) -> Vec<String> {
    tags.iter().filter_map(|t| normalize_tag(t)).collect::<BTreeSet<_>>().into_iter().collect()
}

/// Add tags inside a caller's transaction (already present: no change).
pub(crate) async fn add_in(conn: &mut SqliteConnection, file_id: &str, tags: &[String]) -> Result<()> {
    for tag in normalize_tags(tags) {
        sqlx::query("INSERT INTO file_tags (file_id, tag) VALUES (?1, ?2) ON CONFLICT DO NOTHING")
            .bind(file_id)
            .bind(tag)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Remove tags inside a caller's transaction (absent: no change).
pub(crate) async fn remove_in(conn: &mut SqliteConnection, file_id: &str, tags: &[String]) -> Result<()> {
    for tag in normalize_tags(tags) {
        sqlx::query("DELETE FROM file_tags WHERE file_id = ?1 AND tag = ?2")
            .bind(file_id)
            .bind(tag)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Bump the file's `updated_at`; `not_found` if there is no such file.
pub(crate) async fn touch_in(conn: &mut SqliteConnection, file_id: &str) -> Result<()> {
    let done = sqlx::query("UPDATE files SET updated_at = ?2 WHERE id = ?1")
        .bind(file_id)
        .bind(now())
        .execute(&mut *conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(Error::not_found(format!("no stored file {file_id}")));
    }
    Ok(())
}

/// Accessor for the `file_tags` table.
pub struct FileTags<'a> {
    store: &'a Store,
}

impl Store {
    pub fn file_tags(&self) -> FileTags<'_> {
        FileTags { store: self }
    }
}

impl FileTags<'_> {
    /// Tag a file; `not_found` if there is no such file.
    pub async fn add(&self, file_id: &str, tags: &[String]) -> Result<()> {
        let mut tx = self.store.begin_write().await?;
        touch_in(&mut tx, file_id).await?;
        add_in(&mut tx, file_id, tags).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Untag a file; `not_found` if there is no such file.
    pub async fn remove(&self, file_id: &str, tags: &[String]) -> Result<()> {
        let mut tx = self.store.begin_write().await?;
        touch_in(&mut tx, file_id).await?;
        remove_in(&mut tx, file_id, tags).await?;
        tx.commit().await?;
        Ok(())
    }

    /// A file's tags, sorted (empty for an unknown file).
    pub async fn for_file(&self, file_id: &str) -> Result<Vec<String>> {
        let rows: Vec<(String,)> = sqlx::query_as("SELECT tag FROM file_tags WHERE file_id = ?1 ORDER BY tag")
            .bind(file_id)
            .fetch_all(self.store.pool())
            .await?;
        Ok(rows.into_iter().map(|(t,)| t).collect())
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::files::tests::sample;
    use crate::store::test_support::open_temp;

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn tags_are_trimmed_lowercased_deduplicated() {
        assert_eq!(normalize_tags(&tags(&[" Visa ", "visa", "", "  ", "ẢNH", "b"])), tags(&["b", "visa", "ảnh"]));
    }

    #[tokio::test]
    async fn add_remove_for_file() {
        let (_dir, store) = open_temp().await;
        let f = store.files().insert(&sample("a")).await.unwrap();
        store.file_tags().add(&f.id, &tags(&["Passport", "travel", " TRAVEL "])).await.unwrap();
        store.file_tags().add(&f.id, &tags(&["passport"])).await.unwrap();
        assert_eq!(store.file_tags().for_file(&f.id).await.unwrap(), tags(&["passport", "travel"]));
        store.file_tags().remove(&f.id, &tags(&["TRAVEL", "absent"])).await.unwrap();
        assert_eq!(store.file_tags().for_file(&f.id).await.unwrap(), tags(&["passport"]));
        assert_eq!(store.file_tags().for_file("file-none").await.unwrap(), Vec::<String>::new());
        let err = store.file_tags().add("file-none", &tags(&["x"])).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        let err = store.file_tags().remove("file-none", &tags(&["x"])).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn deleting_a_file_deletes_its_tags() {
        let (_dir, store) = open_temp().await;
        let f = store.files().insert(&sample("a")).await.unwrap();
        store.file_tags().add(&f.id, &tags(&["x", "y"])).await.unwrap();
        assert!(store.files().delete(&f.id).await.unwrap());
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM file_tags").fetch_one(store.pool()).await.unwrap();
        assert_eq!(n, 0);
    }
}
