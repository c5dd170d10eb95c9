//! The SQLite store: one file, `halley.db`, in the data directory. WAL,
//! foreign keys, `BEGIN IMMEDIATE` for writes, embedded forward-only
//! migrations and an integrity check at open. One module per table; each
//! exposes a small typed accessor borrowed from [`Store`].

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, Transaction};

use crate::error::{Error, ErrorCode, Result};

pub mod agents;
pub mod archival;
pub mod audit_log;
pub mod block_history;
pub mod blocks;
pub mod confirmations;
pub mod conversations;
pub mod embeddings;
pub mod file_tags;
pub mod files;
pub mod gate_rules;
pub mod mcp_servers;
pub mod messages;
pub mod oauth;
pub mod profile;
pub mod provider_traces;
pub mod routines;
pub mod runs;
pub mod settings;
pub mod sources;
pub mod steps;
pub mod tool_calls;
pub mod tools;
pub mod watch_alerts;
pub mod watch_observations;
pub mod watches;

pub use crate::paths::DB_FILE;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// A handle on the database. Cheap to clone (a pool inside).
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
    /// The key sealing sensitive profile values, from the keyring at the
    /// first need (see [`crate::secrets::sealed`]).
    sealer: std::sync::Arc<tokio::sync::OnceCell<crate::secrets::sealed::Sealer>>,
    /// The values of client-tool results marked sensitive: in memory only,
    /// never written (see [`crate::secrets::results`]).
    sensitive: std::sync::Arc<crate::secrets::results::SensitiveResults>,
    /// The archival vectors this process read (see [`embeddings`]).
    vectors: std::sync::Arc<embeddings::VectorCache>,
}

impl Store {
    /// Open (creating if needed) the database at `path`, apply pending
    /// migrations and check integrity. The parent directory must exist.
    pub async fn open(path: &Path) -> Result<Store> {
        let url = format!("sqlite://{}", path.display());
        let options = SqliteConnectOptions::from_str(&url)
            .map_err(|e| {
                Error::new(ErrorCode::Storage, format!("bad database path {}", path.display())).with_source(e)
            })?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            // Deleted and overwritten content is zeroed, not left in free
            // space (a profile value sealed after it was plain, a secret).
            .pragma("secure_delete", "on")
            .busy_timeout(Duration::from_secs(5));
        let mut pool_options = SqlitePoolOptions::new().max_connections(4);
        if crate::crashpoint::enabled() {
            pool_options = pool_options.after_connect(|conn, _| Box::pin(crash_points_on(conn)));
        }
        let pool = pool_options.connect_with(options).await.map_err(|e| {
            // A full disk or a database locked by another program says so.
            let err = Error::from(e);
            Error::new(err.code(), format!("cannot open database {}: {}", path.display(), err.to_wire().message))
        })?;
        let store = Store {
            pool,
            path: path.to_path_buf(),
            sealer: Default::default(),
            sensitive: Default::default(),
            vectors: Default::default(),
        };
        store.check_integrity().await?;
        MIGRATOR.run(&store.pool).await?;
        Ok(store)
    }

    /// `PRAGMA integrity_check`: anything but a single "ok" row is an error.
    pub async fn check_integrity(&self) -> Result<()> {
        let rows: Vec<(String,)> = sqlx::query_as("PRAGMA integrity_check").fetch_all(&self.pool).await?;
        match rows.as_slice() {
            [(ok,)] if ok == "ok" => Ok(()),
            _ => {
                let detail: Vec<&str> = rows.iter().map(|(r,)| r.as_str()).collect();
                Err(Error::new(
                    ErrorCode::Storage,
                    format!("database {} failed its integrity check: {}", self.path.display(), detail.join("; ")),
                ))
            }
        }
    }

    /// A write transaction that takes the write lock up front
    /// (`BEGIN IMMEDIATE`), so read-then-write sequences cannot fail to
    /// upgrade under WAL.
    pub async fn begin_write(&self) -> Result<Transaction<'static, Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// A write transaction like [`Store::begin_write`] whose commit is on
    /// disk when it returns (`synchronous=FULL`: the WAL is synced at the
    /// commit), even through a power loss. For the few writes a side effect
    /// follows and that must never be undone: an approval, an alert claimed
    /// before its notification, a watch created, a call's placeholder before
    /// it runs. Everything else commits with `NORMAL` (durable through a
    /// crash of the process; see ARCHITECTURE.md, "Durability").
    /// A connection of the pool turns `FULL` for it, and is closed after it
    /// rather than handed back (the others stay `NORMAL`).
    pub async fn begin_durable(&self) -> Result<Transaction<'static, Sqlite>> {
        let mut conn = self.pool.acquire().await?;
        sqlx::query("PRAGMA synchronous = FULL").execute(&mut *conn).await?;
        conn.close_on_drop();
        Ok(Transaction::begin(conn, Some(sqlx::SqlSafeStr::into_sql_str("BEGIN IMMEDIATE"))).await?)
    }

    /// The key sealing this database's sensitive profile values (a
    /// `keyring` error when the OS keyring cannot be reached).
    pub async fn sealer(&self) -> Result<&crate::secrets::sealed::Sealer> {
        self.sealer.get_or_try_init(|| crate::secrets::sealed::Sealer::for_database(&self.path)).await
    }

    /// The values of client-tool results marked sensitive, kept in this
    /// process's memory (never in the database).
    pub fn sensitive_results(&self) -> &crate::secrets::results::SensitiveResults {
        &self.sensitive
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Close the pool, flushing the WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The row a write with `RETURNING` gave, its statement run to the end
/// (`fetch_all`). Outside a transaction SQLite commits a statement only
/// when it is stepped to its end, and `fetch_one`/`fetch_optional` stop at
/// the first row: a failed commit (disk full, a locked database) would go
/// unseen and the row be reported as written.
pub(crate) fn returned<T>(rows: Vec<T>) -> Result<T> {
    rows.into_iter().next().ok_or_else(|| Error::new(ErrorCode::Storage, "the database wrote no row"))
}

/// Every commit of this connection is a crash point named after what it
/// writes (`commit: INSERT tool_calls, INSERT messages`): the commit hook
/// runs just before the transaction becomes durable, so a kill there loses
/// exactly that transaction. Installed only when crash points are armed.
async fn crash_points_on(conn: &mut sqlx::SqliteConnection) -> std::result::Result<(), sqlx::Error> {
    use std::collections::BTreeSet;
    use std::sync::{Arc, Mutex};

    use sqlx::sqlite::SqliteOperation;

    let touched: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let mut handle = conn.lock_handle().await?;
    let on_update = Arc::clone(&touched);
    handle.set_update_hook(move |change| {
        let op = match change.operation {
            SqliteOperation::Insert => "INSERT",
            SqliteOperation::Update => "UPDATE",
            SqliteOperation::Delete => "DELETE",
            SqliteOperation::Unknown(_) => "WRITE",
        };
        if let Ok(mut t) = on_update.lock() {
            t.insert(format!("{op} {}", change.table));
        }
    });
    let on_commit = Arc::clone(&touched);
    handle.set_commit_hook(move || {
        let what = on_commit.lock().map(|mut t| std::mem::take(&mut *t)).unwrap_or_default();
        let what: Vec<String> = what.into_iter().collect();
        crate::crashpoint::point_with(|| format!("commit: {}", what.join(", ")));
        true
    });
    handle.set_rollback_hook(move || {
        if let Ok(mut t) = touched.lock() {
            t.clear();
        }
    });
    Ok(())
}

/// A fresh prefixed id, e.g. `new_id("agent")` gives `agent-<uuid v4>`.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4())
}

/// Read an enum stored as TEXT through its serde name (the spelling the
/// schema's CHECK constraints list), for row types whose enums live
/// outside the store (`PermissionScope`, `RiskLevel`, ...).
pub(crate) fn decode_text<T: serde::de::DeserializeOwned>(text: String) -> std::result::Result<T, sqlx::Error> {
    serde_json::from_value(serde_json::Value::String(text)).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

/// The serde name of an enum, as stored in TEXT columns.
pub(crate) fn encode_text<T: serde::Serialize>(value: &T) -> Result<String> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => Ok(s),
        _ => Err(Error::internal("enum does not serialize to a string")),
    }
}

/// The current time as stored in every timestamp column (RFC 3339, UTC, ms).
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::{DB_FILE, Store};

    /// A fresh store in a temporary directory (kept alive by the guard).
    pub async fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join(DB_FILE)).await.unwrap();
        (dir, store)
    }

    /// An agent row for tables that need one.
    pub async fn agent(store: &Store) -> String {
        store.agents().create(&crate::store::agents::NewAgent::named("test")).await.unwrap().id
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::test_support::open_temp;
    use super::*;

    #[tokio::test]
    async fn pragmas_are_wal_and_foreign_keys() {
        let (_dir, store) = open_temp().await;
        let (mode,): (String,) = sqlx::query_as("PRAGMA journal_mode").fetch_one(store.pool()).await.unwrap();
        assert_eq!(mode, "wal");
        let (fk,): (i64,) = sqlx::query_as("PRAGMA foreign_keys").fetch_one(store.pool()).await.unwrap();
        assert_eq!(fk, 1);
        store.check_integrity().await.unwrap();
    }

    #[tokio::test]
    async fn data_survives_close_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB_FILE);
        let store = Store::open(&path).await.unwrap();
        store.profile().apply(&[("k".into(), serde_json::json!([1, 2]))], &[]).await.unwrap();
        store.close().await;
        let store = Store::open(&path).await.unwrap();
        assert_eq!(store.profile().get("k").await.unwrap(), Some(serde_json::json!([1, 2])));
        assert_eq!(store.path(), path.as_path());
    }

    #[tokio::test]
    async fn corrupt_file_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB_FILE);
        std::fs::write(&path, b"this is not a sqlite database, just garbage bytes \x00\x01\x02".repeat(200)).unwrap();
        let err = Store::open(&path).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::Storage);
    }

    #[tokio::test]
    async fn check_constraint_violation_is_a_storage_error() {
        let (_dir, store) = open_temp().await;
        let agent = test_support::agent(&store).await;
        let res = sqlx::query("INSERT INTO runs (id, agent_id, status, started_at) VALUES ('r', ?1, 'bogus', ?2)")
            .bind(&agent)
            .bind(now())
            .execute(store.pool())
            .await;
        let err = Error::from(res.unwrap_err());
        assert_eq!(err.code(), ErrorCode::Storage);
    }

    #[test]
    fn ids_are_prefixed_uuids() {
        let id = new_id("agent");
        assert!(id.starts_with("agent-"));
        assert!(uuid::Uuid::parse_str(&id["agent-".len()..]).is_ok());
    }
}
