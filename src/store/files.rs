//! Stored files: content-addressed copies (by SHA-256) kept in the data
//! directory, with a name, MIME type, note and tags. The blob on disk is the
//! caller's business; this table only records where it is.

use crate::error::{Error, Result};
use crate::store::file_tags::{add_in, normalize_tags, remove_in, touch_in};
use crate::store::{Store, now};

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FileRow {
    pub id: String,
    pub sha256: String,
    pub name: String,
    pub mime: String,
    pub size: i64,
    /// Path of the blob inside the data directory.
    pub stored_path: String,
    /// Where the file came from.
    pub original_path: String,
    pub note: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewFile {
    pub id: String,
    pub sha256: String,
    pub name: String,
    pub mime: String,
    pub size: i64,
    pub stored_path: String,
    pub original_path: String,
    pub note: Option<String>,
}

/// Accessor for the `files` table.
pub struct Files<'a> {
    store: &'a Store,
}

impl Store {
    pub fn files(&self) -> Files<'_> {
        Files { store: self }
    }
}

const INSERT: &str = "INSERT INTO files (id, sha256, name, mime, size, stored_path, original_path, note,
        created_at, updated_at)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9) RETURNING *";

async fn insert_in(conn: &mut sqlx::SqliteConnection, new: &NewFile, note: Option<&str>) -> Result<FileRow> {
    super::returned(
        sqlx::query_as(INSERT)
            .bind(&new.id)
            .bind(&new.sha256)
            .bind(&new.name)
            .bind(&new.mime)
            .bind(new.size)
            .bind(&new.stored_path)
            .bind(&new.original_path)
            .bind(note)
            .bind(now())
            .fetch_all(conn)
            .await?,
    )
}

async fn get_in(conn: &mut sqlx::SqliteConnection, id: &str) -> Result<FileRow> {
    let row: Option<FileRow> =
        sqlx::query_as("SELECT * FROM files WHERE id = ?1").bind(id).fetch_optional(conn).await?;
    row.ok_or_else(|| Error::not_found(format!("no stored file {id}")))
}

async fn set_note_in(conn: &mut sqlx::SqliteConnection, id: &str, note: Option<&str>) -> Result<()> {
    let done = sqlx::query("UPDATE files SET note = ?2, updated_at = ?3 WHERE id = ?1")
        .bind(id)
        .bind(note)
        .bind(now())
        .execute(conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(Error::not_found(format!("no stored file {id}")));
    }
    Ok(())
}

impl Files<'_> {
    pub async fn insert(&self, new: &NewFile) -> Result<FileRow> {
        let mut conn = self.store.pool().acquire().await?;
        insert_in(&mut conn, new, new.note.as_deref()).await
    }

    pub async fn get(&self, id: &str) -> Result<Option<FileRow>> {
        Ok(sqlx::query_as("SELECT * FROM files WHERE id = ?1").bind(id).fetch_optional(self.store.pool()).await?)
    }

    pub async fn by_sha256(&self, sha256: &str) -> Result<Option<FileRow>> {
        Ok(sqlx::query_as("SELECT * FROM files WHERE sha256 = ?1")
            .bind(sha256)
            .fetch_optional(self.store.pool())
            .await?)
    }

    /// Set or clear the note; `not_found` if there is no such file.
    pub async fn set_note(&self, id: &str, note: Option<&str>) -> Result<()> {
        let mut conn = self.store.pool().acquire().await?;
        set_note_in(&mut conn, id, note).await
    }

    /// The latest `limit` files, newest first.
    pub async fn list(&self, limit: u32) -> Result<Vec<FileRow>> {
        Ok(sqlx::query_as("SELECT * FROM files ORDER BY created_at DESC, rowid DESC LIMIT ?1")
            .bind(limit)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// Files carrying every one of `tags` (compared after trimming and
    /// lowercasing), newest first. No tags: the same as [`Files::list`].
    pub async fn with_all_tags(&self, tags: &[String], limit: u32) -> Result<Vec<FileRow>> {
        let tags = normalize_tags(tags);
        if tags.is_empty() {
            return self.list(limit).await;
        }
        let wanted = serde_json::Value::from(tags.clone()).to_string();
        Ok(sqlx::query_as(
            "SELECT f.* FROM files f
             WHERE (SELECT COUNT(*) FROM file_tags t
                    WHERE t.file_id = f.id AND t.tag IN (SELECT value FROM json_each(?1))) = ?2
             ORDER BY f.created_at DESC, f.rowid DESC LIMIT ?3",
        )
        .bind(wanted)
        .bind(i64::try_from(tags.len()).unwrap_or(i64::MAX))
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?)
    }

    /// Delete a file's row and its tags. `false` if it did not exist.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM files WHERE id = ?1").bind(id).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }

    /// Store-or-reuse by content, in one transaction. If a file with the
    /// same SHA-256 exists: add `tags`, set the note when `note` is `Some`,
    /// and return it with `true`. Otherwise insert `new` (its note replaced
    /// by `note` when `Some`) with `tags` and return it with `false`.
    pub async fn upsert_with_tags(
        &self,
        new: &NewFile,
        tags: &[String],
        note: Option<&str>,
    ) -> Result<(FileRow, bool)> {
        let mut tx = self.store.begin_write().await?;
        let existing: Option<(String,)> =
            sqlx::query_as("SELECT id FROM files WHERE sha256 = ?1").bind(&new.sha256).fetch_optional(&mut *tx).await?;
        let (id, existed) = match existing {
            Some((id,)) => {
                touch_in(&mut tx, &id).await?;
                if note.is_some() {
                    set_note_in(&mut tx, &id, note).await?;
                }
                (id, true)
            }
            None => (insert_in(&mut tx, new, note.or(new.note.as_deref())).await?.id, false),
        };
        add_in(&mut tx, &id, tags).await?;
        let row = get_in(&mut tx, &id).await?;
        tx.commit().await?;
        Ok((row, existed))
    }

    /// Add and remove tags (removals first, so a tag in both ends up
    /// present) and set the note when `note` is `Some`, in one transaction.
    /// `not_found` if there is no such file.
    pub async fn retag(&self, id: &str, add: &[String], remove: &[String], note: Option<&str>) -> Result<FileRow> {
        let mut tx = self.store.begin_write().await?;
        touch_in(&mut tx, id).await?;
        remove_in(&mut tx, id, remove).await?;
        add_in(&mut tx, id, add).await?;
        if note.is_some() {
            set_note_in(&mut tx, id, note).await?;
        }
        let row = get_in(&mut tx, id).await?;
        tx.commit().await?;
        Ok(row)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    /// A file whose content hash is derived from `seed`.
    pub(crate) fn sample(seed: &str) -> NewFile {
        use sha2::Digest;
        let sha256 = hex::encode(sha2::Sha256::digest(seed.as_bytes()));
        NewFile {
            id: format!("file-{seed}"),
            name: format!("{seed}.pdf"),
            mime: "application/pdf".into(),
            size: 3,
            stored_path: format!("files/{sha256}"),
            original_path: format!("/home/u/{seed}.pdf"),
            note: None,
            sha256,
        }
    }

    fn tags(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[tokio::test]
    async fn insert_get_by_sha_note_list_delete() {
        let (_dir, store) = open_temp().await;
        let a = store.files().insert(&NewFile { note: Some("passport scan".into()), ..sample("a") }).await.unwrap();
        assert_eq!((a.id.as_str(), a.note.as_deref(), a.size), ("file-a", Some("passport scan"), 3));
        assert_eq!(a.created_at, a.updated_at);
        let b = store.files().insert(&sample("b")).await.unwrap();
        assert_eq!(store.files().get("file-a").await.unwrap(), Some(a.clone()));
        assert_eq!(store.files().by_sha256(&b.sha256).await.unwrap(), Some(b.clone()));
        assert_eq!(store.files().by_sha256("0".repeat(64).as_str()).await.unwrap(), None);

        store.files().set_note("file-b", Some("ticket")).await.unwrap();
        store.files().set_note("file-a", None).await.unwrap();
        assert_eq!(store.files().get("file-a").await.unwrap().unwrap().note, None);
        let err = store.files().set_note("file-none", Some("x")).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);

        let ids: Vec<String> = store.files().list(10).await.unwrap().into_iter().map(|f| f.id).collect();
        assert_eq!(ids, vec!["file-b", "file-a"]);
        assert_eq!(store.files().list(1).await.unwrap()[0].note.as_deref(), Some("ticket"));

        let dup = store.files().insert(&NewFile { id: "file-c".into(), ..sample("a") }).await.unwrap_err();
        assert_eq!(dup.code(), ErrorCode::Storage);
        assert!(store.files().delete("file-a").await.unwrap());
        assert!(!store.files().delete("file-a").await.unwrap());
        assert_eq!(store.files().get("file-a").await.unwrap(), None);
    }

    #[tokio::test]
    async fn with_all_tags_needs_every_tag() {
        let (_dir, store) = open_temp().await;
        for (seed, t) in [("a", vec!["travel", "visa"]), ("b", vec!["travel"]), ("c", vec!["Visa", "travel", "x"])] {
            let f = store.files().insert(&sample(seed)).await.unwrap();
            store.file_tags().add(&f.id, &tags(&t)).await.unwrap();
        }
        let ids = |rows: Vec<FileRow>| rows.into_iter().map(|f| f.id).collect::<Vec<_>>();
        let q = |t: &[&str]| tags(t);
        assert_eq!(
            ids(store.files().with_all_tags(&q(&[" VISA", "travel"]), 10).await.unwrap()),
            vec!["file-c", "file-a"]
        );
        assert_eq!(ids(store.files().with_all_tags(&q(&["travel"]), 2).await.unwrap()), vec!["file-c", "file-b"]);
        assert_eq!(
            ids(store.files().with_all_tags(&q(&["visa", "visa"]), 10).await.unwrap()),
            vec!["file-c", "file-a"]
        );
        assert_eq!(ids(store.files().with_all_tags(&q(&["visa", "nope"]), 10).await.unwrap()), Vec::<String>::new());
        assert_eq!(ids(store.files().with_all_tags(&[], 10).await.unwrap()), vec!["file-c", "file-b", "file-a"]);
    }

    #[tokio::test]
    async fn upsert_with_tags_reuses_by_content() {
        let (_dir, store) = open_temp().await;
        let (first, existed) =
            store.files().upsert_with_tags(&sample("a"), &tags(&["Travel"]), Some("passport")).await.unwrap();
        assert!(!existed);
        assert_eq!(first.note.as_deref(), Some("passport"));
        // Same content under another id: the first row is reused.
        let again = NewFile { id: "file-other".into(), ..sample("a") };
        let (second, existed) = store.files().upsert_with_tags(&again, &tags(&["visa "]), None).await.unwrap();
        assert!(existed);
        assert_eq!((second.id.as_str(), second.note.as_deref()), ("file-a", Some("passport")));
        assert_eq!(store.file_tags().for_file("file-a").await.unwrap(), tags(&["travel", "visa"]));
        let (third, _) = store.files().upsert_with_tags(&again, &[], Some("renewed")).await.unwrap();
        assert_eq!(third.note.as_deref(), Some("renewed"));
        assert_eq!(store.files().get("file-other").await.unwrap(), None);
    }

    #[tokio::test]
    async fn retag_adds_removes_and_notes_atomically() {
        let (_dir, store) = open_temp().await;
        store.files().upsert_with_tags(&sample("a"), &tags(&["a", "b"]), None).await.unwrap();
        let row = store.files().retag("file-a", &tags(&["C", "b"]), &tags(&["a", "b"]), Some("n")).await.unwrap();
        assert_eq!(row.note.as_deref(), Some("n"));
        assert_eq!(store.file_tags().for_file("file-a").await.unwrap(), tags(&["b", "c"]));
        let row = store.files().retag("file-a", &[], &tags(&["c"]), None).await.unwrap();
        assert_eq!(row.note.as_deref(), Some("n"));
        assert_eq!(store.file_tags().for_file("file-a").await.unwrap(), tags(&["b"]));
        let err = store.files().retag("file-none", &tags(&["x"]), &[], None).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
    }
}
