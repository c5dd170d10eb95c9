//! Memory's sources as the user sees and edits them (`halley source`):
//! knowledge bases of their files attached to the default agent, each file
//! with how far its reading and embedding went. The reading itself is
//! `builtin::memory::sources`, run by the embedder's worker and by
//! `EmbedArchival`.

use crate::builtin::files::{self, resolve_file_ref};
use crate::builtin::memory::blocks as memory;
use crate::builtin::memory::sources::attach;
use crate::error::{Error, ErrorCode, Result};
use crate::handler::Services;
use crate::protocol::{Reply, SourceFileStatus, SourceFileView, SourceView};
use crate::store::Store;
use crate::store::sources::{SourceFileRow, SourceRow, SourceSummary};
use crate::tools::catalogue::files::FilesStoreArgs;

/// The most files one `AddToSource` takes.
pub const MAX_FILES_AT_ONCE: usize = 1_000;

/// Make a source.
pub async fn create(store: &Store, name: &str, description: &str) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let row = store.sources().create(&agent, name, description).await?;
    Ok(Reply::Source { source: view(SourceSummary { source: row, files: 0, passages: 0 }) })
}

/// The sources, by name.
pub async fn list(store: &Store) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let sources = store.sources().list(&agent).await?.into_iter().map(view).collect();
    Ok(Reply::Sources { sources })
}

/// Store the files at `paths` and put them into source `name`. Everything
/// is checked first (the source exists, every file is a readable file), so
/// a bad one stores nothing.
pub async fn add(services: &Services, name: &str, paths: &[String]) -> Result<Reply> {
    let store = &services.store;
    if paths.is_empty() {
        return Err(Error::invalid_arguments("name the files to add to the source"));
    }
    if paths.len() > MAX_FILES_AT_ONCE {
        return Err(Error::invalid_arguments(format!("at most {MAX_FILES_AT_ONCE} files at once")));
    }
    let agent = memory::default_agent(store).await?;
    let source = store.sources().named(&agent, name).await?;
    for reference in paths {
        let path = resolve_file_ref(reference)?;
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                return Err(Error::new(ErrorCode::FileNotFound, format!("not a regular file: {}", path.display())));
            }
            Err(_) => return Err(Error::new(ErrorCode::FileNotFound, format!("file not found: {}", path.display()))),
        }
    }
    for reference in paths {
        let args = FilesStoreArgs { file_path: reference.clone(), ..FilesStoreArgs::default() };
        let stored = files::store(services, args).await?;
        let row = store
            .files()
            .get(&stored.file.id)
            .await?
            .ok_or_else(|| Error::not_found(format!("no stored file {}", stored.file.id)))?;
        attach(store, &source.name, &row, false).await?;
    }
    files_of(store, &source).await
}

/// The files of source `name`.
pub async fn files(store: &Store, name: &str) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let source = store.sources().named(&agent, name).await?;
    files_of(store, &source).await
}

async fn files_of(store: &Store, source: &SourceRow) -> Result<Reply> {
    let key = store.embeddings().config().await?.map(|c| c.key());
    let rows = store.sources().files(&source.id, key.as_deref()).await?;
    let passages = rows.iter().map(|r| r.passages).sum();
    let summary =
        SourceSummary { source: source.clone(), files: i64::try_from(rows.len()).unwrap_or(i64::MAX), passages };
    let files = rows.into_iter().map(|r| file_view(r, key.is_some())).collect();
    Ok(Reply::SourceFiles { source: view(summary), files })
}

/// Delete source `name` with its passages.
pub async fn delete(store: &Store, name: &str) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let source = store.sources().named(&agent, name).await?;
    let passages = i64::try_from(store.sources().passage_ids(&source.id).await?.len()).unwrap_or(i64::MAX);
    store.sources().delete(&source.id).await?;
    Ok(Reply::SourceDeleted { name: source.name, passages })
}

fn view(s: SourceSummary) -> SourceView {
    SourceView {
        id: s.source.id,
        name: s.source.name,
        description: s.source.description,
        created_at: s.source.created_at,
        files: s.files,
        passages: s.passages,
    }
}

/// A file's status as the user reads it: once read, its passages' embedding
/// says whether it is embedding, done or failed.
fn file_view(r: SourceFileRow, has_embedder: bool) -> SourceFileView {
    let (status, error, note) = match r.status.as_str() {
        "pending" => (SourceFileStatus::Pending, None, None),
        "extracting" => (SourceFileStatus::Extracting, None, None),
        "skipped" => (SourceFileStatus::Skipped, r.error, None),
        "failed" => (SourceFileStatus::Failed, r.error, None),
        _ if r.embed_failed > 0 => (
            SourceFileStatus::Failed,
            Some(format!(
                "{} of its {} passages could not be embedded: {} (tried again later; `halley memory embed` now)",
                r.embed_failed,
                r.passages,
                r.embed_error.unwrap_or_default()
            )),
            None,
        ),
        _ if r.embedded >= r.passages => (SourceFileStatus::Done, None, None),
        _ if !has_embedder => (
            SourceFileStatus::Embedding,
            None,
            Some("no embedder is set: found by its words only (`halley memory embedder set`)".to_owned()),
        ),
        _ => (SourceFileStatus::Embedding, None, None),
    };
    SourceFileView {
        file_id: r.file_id,
        name: r.name,
        mime: r.mime,
        size: r.size,
        status,
        error,
        note,
        pages: r.pages,
        passages: r.passages,
        embedded: r.embedded,
        added_at: r.added_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_file_is_embedding_then_done_or_failed() {
        let row = |embedded, failed| SourceFileRow {
            source_id: "s".into(),
            file_id: "f".into(),
            name: "visa.pdf".into(),
            mime: "application/pdf".into(),
            size: 1,
            stored_path: String::new(),
            status: "extracted".into(),
            error: None,
            pages: Some(2),
            passages: 3,
            embedded,
            embed_failed: failed,
            embed_error: (failed > 0).then(|| "the embedder cannot be reached".to_owned()),
            added_at: String::new(),
            updated_at: String::new(),
        };
        assert_eq!(file_view(row(1, 0), true).status, SourceFileStatus::Embedding);
        assert_eq!(file_view(row(3, 0), true).status, SourceFileStatus::Done);
        let failed = file_view(row(1, 2), true);
        assert_eq!(failed.status, SourceFileStatus::Failed);
        assert!(failed.error.unwrap().contains("cannot be reached"));
        assert!(file_view(row(0, 0), false).note.is_some());
    }
}
