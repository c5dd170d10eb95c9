//! `files_store` / `files_get` / `files_tag`: the user's documents (passport
//! scans, bookings, media), copied into the data directory content-addressed
//! by SHA-256, with metadata, tags and a note.

pub use crate::tools::catalogue::files::*;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode, Result};
use crate::handler::Services;
use crate::store::files::{FileRow, NewFile};

/// Default and maximum number of files `files_get` returns.
const DEFAULT_LIMIT: u32 = 50;

/// Turn a `file://` URL (absolute `file:///a/b.png`, `file://localhost/a`,
/// or relative `file://b.png`), a `~/` path or a plain path into an absolute
/// path. Relative refs are taken from the current directory. Does not
/// touch the disk.
pub fn resolve_file_ref(reference: &str) -> Result<PathBuf> {
    let trimmed = reference.trim();
    if trimmed.is_empty() {
        return Err(Error::invalid_arguments("empty file path"));
    }
    let path = if let Some(rest) = strip_prefix_ignore_case(trimmed, "file://") {
        if rest.starts_with('/') || strip_prefix_ignore_case(rest, "localhost/").is_some() {
            let url = url::Url::parse(trimmed)
                .map_err(|e| Error::invalid_arguments(format!("invalid file URL {trimmed:?}: {e}")))?;
            url.to_file_path()
                .map_err(|()| Error::invalid_arguments(format!("file URL {trimmed:?} does not name a local path")))?
        } else {
            PathBuf::from(percent_encoding::percent_decode_str(rest).decode_utf8_lossy().into_owned())
        }
    } else {
        PathBuf::from(trimmed)
    };
    let path = match path.strip_prefix("~") {
        Ok(rest) if path.starts_with("~") => dirs::home_dir().map(|h| h.join(rest)).unwrap_or(path),
        _ => path,
    };
    if path.is_absolute() {
        return Ok(path);
    }
    let cwd = std::env::current_dir()
        .map_err(|e| Error::new(ErrorCode::Io, "cannot read the current directory").with_source(e))?;
    Ok(cwd.join(path))
}

/// File names that hold keys, passwords or logins wherever they are.
const KEY_STORES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "authorized_keys",
    "known_hosts",
    "cookies",
    "login data",
    "web data",
    "key3.db",
    "key4.db",
    "logins.json",
    "cookies.sqlite",
    "shadow",
    "gshadow",
    "passwd",
    "netrc",
    ".netrc",
    ".pgpass",
    "credentials",
    ".git-credentials",
];
/// Extensions of key and password stores.
const KEY_EXTENSIONS: &[&str] = &["pem", "key", "p12", "pfx", "kdbx", "keychain", "gpg", "asc", "jks", "keystore"];
/// Places outside the home folder where users keep ordinary files.
const SHARED_PLACES: &[&str] = &["/tmp", "/var/tmp", "/media", "/mnt", "/run/media"];

/// Why the file at `reference` is not one of the user's ordinary files
/// (so taking it, into the files store or onto a page, asks first showing
/// the path): a key or password store, Halley's own data, a hidden file or
/// folder of the home (other programs' data, `~/.ssh`), or a place outside
/// the home, the shared folders (`/tmp`, `/media`...) and the current
/// directory (`/etc`, `/proc`). Links are followed:
/// it is where the link leads that counts, and the reason says so. `None`:
/// an ordinary file, or one that does not exist (the call then fails on it).
pub fn private_place(reference: &str, data_dir: &Path) -> Option<String> {
    let asked = resolve_file_ref(reference).ok()?;
    let real = std::fs::canonicalize(&asked).ok()?;
    let shown = if real == asked {
        real.display().to_string()
    } else {
        format!("{} (a link to {})", asked.display(), real.display())
    };
    let why = |what: &str| Some(format!("{shown} is {what}: Halley asks before taking it"));
    let name = real.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let ext = real.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    if KEY_STORES.contains(&name.as_str()) || KEY_EXTENSIONS.contains(&ext.as_str()) {
        return why("a key, password or login store");
    }
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let halley = canonical(data_dir);
    if real.starts_with(&halley) && !real.starts_with(halley.join("files")) {
        return why("Halley's own data");
    }
    let hidden = |base: &Path| {
        real.strip_prefix(base)
            .ok()
            .is_some_and(|rest| rest.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.')))
    };
    if let Some(home) = dirs::home_dir().map(|h| canonical(&h)).filter(|h| real.starts_with(h)) {
        return if hidden(&home) {
            why("in a hidden folder or file of your home (other programs' data and keys live there)")
        } else {
            None
        };
    }
    let shared = SHARED_PLACES.iter().map(|p| canonical(Path::new(p))).find(|p| real.starts_with(p));
    let cwd =
        std::env::current_dir().ok().map(|c| canonical(&c)).filter(|c| c.parent().is_some() && real.starts_with(c));
    match shared.or(cwd) {
        Some(_) => None,
        None => why("outside your home folder (system files or another program's data)"),
    }
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &s[prefix.len()..])
}

/// Check that `path` is a readable regular file.
fn open_source(path: &Path, reference: &str) -> Result<std::fs::File> {
    let shown = if reference.trim() == path.display().to_string() {
        path.display().to_string()
    } else {
        format!("{} (from {reference})", path.display())
    };
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::new(ErrorCode::FileNotFound, format!("file not found: {shown}")),
        _ => Error::new(ErrorCode::FileNotFound, format!("cannot read {shown}")).with_source(e),
    })?;
    if !meta.is_file() {
        return Err(Error::new(ErrorCode::FileNotFound, format!("not a regular file: {shown}")));
    }
    std::fs::File::open(path)
        .map_err(|e| Error::new(ErrorCode::FileNotFound, format!("cannot read {shown}")).with_source(e))
}

/// SHA-256 of a file, streamed.
fn hash_file(path: &Path, reference: &str) -> Result<(String, u64)> {
    let mut file = open_source(path, reference)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(|e| {
            Error::new(ErrorCode::FileNotFound, format!("cannot read {}", path.display())).with_source(e)
        })?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok((hex::encode(hasher.finalize()), size))
}

/// Copy `src` into the content-addressed store while hashing it; the blob
/// lands under its SHA-256 (written to a temp file, then renamed, so a
/// crash never leaves a half-written blob under a real name).
fn copy_into_store(src: &Path, reference: &str, files_dir: &Path) -> Result<(String, u64, PathBuf)> {
    let mut input = open_source(src, reference)?;
    let io_err = |what: &str, e: std::io::Error| Error::write_failed(ErrorCode::DataDir, what, e);
    std::fs::create_dir_all(files_dir).map_err(|e| io_err(&format!("cannot create {}", files_dir.display()), e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(files_dir)
        .map_err(|e| io_err(&format!("cannot write into {}", files_dir.display()), e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = input.read(&mut buf).map_err(|e| {
            Error::new(ErrorCode::FileNotFound, format!("cannot read {}", src.display())).with_source(e)
        })?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        tmp.write_all(&buf[..n]).map_err(|e| io_err("cannot write the stored copy", e))?;
        size += n as u64;
    }
    let sha = hex::encode(hasher.finalize());
    let ext = src
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| e.len() <= 10 && e.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(|e| format!(".{}", e.to_ascii_lowercase()))
        .unwrap_or_default();
    let shard = files_dir.join(&sha[..2]);
    std::fs::create_dir_all(&shard).map_err(|e| io_err(&format!("cannot create {}", shard.display()), e))?;
    let dest = shard.join(format!("{sha}{ext}"));
    if dest.exists() {
        drop(tmp);
    } else {
        tmp.as_file().sync_all().map_err(|e| io_err("cannot flush the stored copy", e))?;
        tmp.persist(&dest).map_err(|e| io_err(&format!("cannot store {}", dest.display()), e.error))?;
    }
    Ok((sha, size, dest))
}

/// A MIME type from the file name (documents, images and media users store).
fn mime_for(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("heic") => "image/heic",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        Some("json") => "application/json",
        Some("txt") => "text/plain",
        Some("md") => "text/markdown",
        Some("csv") => "text/csv",
        Some("html" | "htm") => "text/html",
        Some("doc") => "application/msword",
        Some("docx") => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        Some("xlsx") => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        Some("zip") => "application/zip",
        Some("mp4") => "video/mp4",
        Some("mov") => "video/quicktime",
        Some("webm") => "video/webm",
        Some("mp3") => "audio/mpeg",
        _ => "application/octet-stream",
    }
}

fn file_url(path: &Path) -> String {
    url::Url::from_file_path(path).map_or_else(|()| format!("file://{}", path.display()), |u| u.to_string())
}

async fn to_stored(ctx: &Services, row: FileRow) -> Result<StoredFile> {
    let tags = ctx.store.file_tags().for_file(&row.id).await?;
    Ok(StoredFile {
        reference: file_url(Path::new(&row.stored_path)),
        size: u64::try_from(row.size).unwrap_or(0),
        id: row.id,
        name: row.name,
        sha256: row.sha256,
        mime: row.mime,
        tags,
        note: row.note,
        created_at: row.created_at,
    })
}

fn clean_tags(tags: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(tags.len());
    for tag in tags {
        let t = tag.trim().to_lowercase();
        if t.is_empty() || t.chars().count() > 64 {
            return Err(Error::invalid_arguments(format!("invalid tag {tag:?}: tags are 1 to 64 characters")));
        }
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f).await.map_err(|e| Error::internal("a file task failed").with_source(e))?
}

/// `files_store`.
pub async fn store(ctx: &Services, args: FilesStoreArgs) -> Result<FileOutput> {
    let tags = clean_tags(&args.tags)?;
    let src = resolve_file_ref(&args.file_path)?;
    let files_dir = ctx.data_dir.files_dir();
    let (reference, src_for_copy) = (args.file_path.clone(), src.clone());
    let (sha, size, dest) = blocking(move || copy_into_store(&src_for_copy, &reference, &files_dir)).await?;
    let name = match args.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => n.to_string(),
        None => src.file_name().map_or_else(|| sha.clone(), |n| n.to_string_lossy().into_owned()),
    };
    let new = NewFile {
        id: format!("file-{}", &sha[..16]),
        sha256: sha,
        name,
        mime: mime_for(&src).to_string(),
        size: i64::try_from(size).unwrap_or(i64::MAX),
        stored_path: dest.display().to_string(),
        original_path: src.display().to_string(),
        note: args.note.clone(),
    };
    let (row, existed) = ctx.store.files().upsert_with_tags(&new, &tags, args.note.as_deref()).await?;
    let source = match args.source.as_deref() {
        Some(name) => Some(crate::builtin::memory::sources::attach(&ctx.store, name, &row, true).await?.name),
        None => None,
    };
    Ok(FileOutput { file: to_stored(ctx, row).await?, deduplicated: existed, source })
}

/// The `files_store` tool: [`store`], the file put into the source the call
/// names, else [`FILES_SOURCE`](crate::builtin::memory::sources::FILES_SOURCE),
/// to be read into memory in the background.
pub async fn store_tool(ctx: &Services, mut args: FilesStoreArgs) -> Result<FileOutput> {
    if let Some(name) = &args.source {
        crate::store::sources::check_name(name)?;
    }
    args.source = Some(args.source.take().unwrap_or_else(|| crate::builtin::memory::sources::FILES_SOURCE.to_owned()));
    store(ctx, args).await
}

/// `files_get`: one file by id, files carrying all given tags, or the most
/// recent files when neither is given.
pub async fn get(ctx: &Services, args: FilesGetArgs) -> Result<FilesGetOutput> {
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, 1000);
    let rows = match (&args.id, &args.tags) {
        (Some(_), Some(_)) => return Err(Error::invalid_arguments("give either `id` or `tags`, not both")),
        (Some(id), None) => match ctx.store.files().get(id).await? {
            Some(row) => vec![row],
            None => return Err(Error::not_found(format!("no stored file with id `{id}`"))),
        },
        (None, Some(tags)) => ctx.store.files().with_all_tags(&clean_tags(tags)?, limit).await?,
        (None, None) => ctx.store.files().list(limit).await?,
    };
    let mut files = Vec::with_capacity(rows.len());
    for row in rows {
        files.push(to_stored(ctx, row).await?);
    }
    Ok(FilesGetOutput { files })
}

/// `files_tag`: the file is picked by id or by the content at `file_path`.
pub async fn tag(ctx: &Services, args: FilesTagArgs) -> Result<FileOutput> {
    let add = clean_tags(&args.tags)?;
    let remove = clean_tags(&args.remove_tags)?;
    if add.is_empty() && remove.is_empty() && args.note.is_none() {
        return Err(Error::invalid_arguments("nothing to change: give `tags`, `remove_tags` or `note`"));
    }
    let id = match (&args.id, &args.file_path) {
        (Some(id), None) => id.clone(),
        (None, Some(reference)) => {
            let path = resolve_file_ref(reference)?;
            let r = reference.clone();
            let (sha, _) = blocking(move || hash_file(&path, &r)).await?;
            match ctx.store.files().by_sha256(&sha).await? {
                Some(row) => row.id,
                None => {
                    return Err(Error::not_found(format!(
                        "{reference} has not been stored yet; store it first with files_store"
                    )));
                }
            }
        }
        _ => return Err(Error::invalid_arguments("give exactly one of `id` or `file_path`")),
    };
    let row = ctx.store.files().retag(&id, &add, &remove, args.note.as_deref()).await?;
    Ok(FileOutput { file: to_stored(ctx, row).await?, deduplicated: false, source: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_refs_resolve() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(resolve_file_ref("file:///tmp/a%20b.png").unwrap(), PathBuf::from("/tmp/a b.png"));
        assert_eq!(resolve_file_ref("file://localhost/tmp/x.pdf").unwrap(), PathBuf::from("/tmp/x.pdf"));
        assert_eq!(resolve_file_ref("file://passport.png").unwrap(), cwd.join("passport.png"));
        assert_eq!(
            resolve_file_ref("FILE://docs/h%E1%BB%99%20chi%E1%BA%BFu.png").unwrap(),
            cwd.join("docs/hộ chiếu.png")
        );
        assert_eq!(resolve_file_ref("/abs/x").unwrap(), PathBuf::from("/abs/x"));
        assert_eq!(resolve_file_ref("rel/x").unwrap(), cwd.join("rel/x"));
        assert!(resolve_file_ref("  ").is_err());
    }

    #[test]
    fn tags_are_normalised() {
        assert_eq!(
            clean_tags(&[" Travel ".into(), "travel".into(), "Hộ chiếu".into()]).unwrap(),
            vec!["travel", "hộ chiếu"]
        );
        assert!(clean_tags(&["  ".into()]).is_err());
    }

    #[test]
    fn mime_types() {
        assert_eq!(mime_for(Path::new("a.PNG")), "image/png");
        assert_eq!(mime_for(Path::new("booking.pdf")), "application/pdf");
        assert_eq!(mime_for(Path::new("noext")), "application/octet-stream");
    }
}
