//! Typed errors with a stable machine code. Every boundary (tool result, CLI
//! exit, HTTP body) turns an [`Error`] into its wire form with [`Error::to_wire`];
//! nothing matches on message strings.

use serde::{Deserialize, Serialize};

/// Stable, machine-readable error codes. Serialized in `snake_case`; these
/// strings are part of the public contract (ToolResultV2 `error.code`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema, sqlx::Type, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[sqlx(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Tool arguments or a request body do not match the schema.
    InvalidArguments,
    /// No tool with that name is registered.
    UnknownTool,
    /// The tool is declared but not built yet, or needs something absent.
    NotAvailable,
    /// A record (profile key, stored file, tool, ...) does not exist.
    NotFound,
    /// A local file path or `file://` ref does not exist or cannot be read.
    FileNotFound,
    /// The data directory cannot be created or written.
    DataDir,
    /// The SQLite store failed (I/O, constraint, corruption).
    Storage,
    /// The disk under the data directory is full (or a quota or file size
    /// limit was reached): nothing of the failed write was kept.
    DiskFull,
    /// The database stayed locked by another program for longer than the
    /// busy timeout (5 s).
    DatabaseBusy,
    /// Other local I/O failed.
    Io,
    /// A bug: an invariant did not hold.
    Internal,
    /// No element matches the selector or ref (or the ref is stale).
    ElementNotFound,
    /// The element exists but cannot take the action (hidden, disabled,
    /// covered, not editable, not a file input...).
    NotInteractable,
    /// The operation did not finish within its time limit.
    Timeout,
    /// A page could not be loaded (DNS, refused connection, bad URL...).
    NavigationFailed,
    /// No open tab has that id.
    TabNotFound,
    /// The browser cannot be found, launched or reached.
    BrowserUnavailable,
    /// The browser or the tab crashed or was closed during the call; it is
    /// relaunched for the next call, and the call is not replayed.
    BrowserCrashed,
    /// The user (or the policy, when nobody can be asked) refused the action.
    Denied,
    /// No model server answers at the configured endpoint (refused
    /// connection, unknown host, connect timeout); the message says how to
    /// start one.
    ModelUnavailable,
    /// The model server answered with an error (HTTP status and its message),
    /// or its response could not be used (cut stream, oversized output).
    ModelError,
    /// The user stopped the run (Ctrl-C, Stop).
    Cancelled,
    /// The OS keyring (Secret Service, Keychain, Credential Manager) is
    /// missing, locked or refused access, or holds an unusable entry. Halley
    /// never falls back to storing the secret in plain text.
    Keyring,
    /// An OAuth sign-in or token request failed (wrong `state` or issuer,
    /// consent declined, code or refresh token refused by the provider).
    AuthFailed,
    /// No web search provider gave results (each one's reason in the message).
    SearchFailed,
}

impl ErrorCode {
    /// The wire string of this code, e.g. `"invalid_arguments"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArguments => "invalid_arguments",
            Self::UnknownTool => "unknown_tool",
            Self::NotAvailable => "not_available",
            Self::NotFound => "not_found",
            Self::FileNotFound => "file_not_found",
            Self::DataDir => "data_dir",
            Self::Storage => "storage",
            Self::DiskFull => "disk_full",
            Self::DatabaseBusy => "database_busy",
            Self::Io => "io",
            Self::Internal => "internal",
            Self::ElementNotFound => "element_not_found",
            Self::NotInteractable => "not_interactable",
            Self::Timeout => "timeout",
            Self::NavigationFailed => "navigation_failed",
            Self::TabNotFound => "tab_not_found",
            Self::BrowserUnavailable => "browser_unavailable",
            Self::BrowserCrashed => "browser_crashed",
            Self::Denied => "denied",
            Self::ModelUnavailable => "model_unavailable",
            Self::ModelError => "model_error",
            Self::Cancelled => "cancelled",
            Self::Keyring => "keyring",
            Self::AuthFailed => "auth_failed",
            Self::SearchFailed => "search_failed",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The wire form of an error: `{"code": "...", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, ts_rs::TS)]
pub struct WireError {
    pub code: ErrorCode,
    pub message: String,
}

/// Halley's error: a code, a human message, and the underlying cause.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    code: ErrorCode,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), source: None }
    }

    /// Attach the underlying cause (kept for logs, not shown on the wire).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArguments, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether trying the same thing again may succeed (a busy database, a
    /// transient I/O error). Argument and lookup errors never are.
    pub fn is_retryable(&self) -> bool {
        match self.code {
            ErrorCode::Storage => self.source.as_deref().is_some_and(is_busy),
            ErrorCode::DatabaseBusy => true,
            ErrorCode::Io | ErrorCode::Timeout | ErrorCode::BrowserCrashed => true,
            ErrorCode::ElementNotFound | ErrorCode::NotInteractable => true,
            _ => false,
        }
    }

    /// The wire form: code plus message. The message includes the cause's
    /// message when it adds information.
    pub fn to_wire(&self) -> WireError {
        let message = match &self.source {
            Some(src) => {
                let cause = src.to_string();
                if cause.is_empty() || self.message.contains(&cause) {
                    self.message.clone()
                } else {
                    format!("{}: {cause}", self.message)
                }
            }
            None => self.message.clone(),
        };
        WireError { code: self.code, message }
    }
}

fn is_busy(err: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
    let text = err.to_string();
    text.contains("database is locked") || text.contains("database is busy")
}

/// What a full disk is told: the failed write kept nothing.
const DISK_FULL: &str = "the disk holding Halley's data is full (or a quota or file size limit was reached): \
                         nothing of this change was saved; free some space and try again";

impl Error {
    /// A local write that failed: `disk_full` when the disk is full (or a
    /// quota or file size limit was reached), else `code` with `what`.
    pub fn write_failed(code: ErrorCode, what: impl Into<String>, err: std::io::Error) -> Self {
        if disk_is_full(&err) {
            return Error::new(ErrorCode::DiskFull, format!("{}: {DISK_FULL}", what.into())).with_source(err);
        }
        Error::new(code, what).with_source(err)
    }
}

fn disk_is_full(err: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(err.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge)
}

impl From<sqlx::Error> for Error {
    fn from(err: sqlx::Error) -> Self {
        // SQLite's (extended) result codes: FULL, a failed write (what
        // SQLite reports when the file size limit is reached), BUSY and
        // LOCKED with their variants.
        let sqlite = match &err {
            sqlx::Error::Database(db) => db.code().and_then(|c| c.parse::<i32>().ok()),
            _ => None,
        };
        match sqlite {
            Some(13 | 778) => return Error::new(ErrorCode::DiskFull, DISK_FULL).with_source(err),
            Some(code) if matches!(code & 0xff, 5 | 6) => {
                return Error::new(
                    ErrorCode::DatabaseBusy,
                    "the database is locked by another program (waited 5 s for it): \
                     close whatever holds halley.db open, then try again; nothing was changed",
                )
                .with_source(err);
            }
            _ => {}
        }
        if let sqlx::Error::Io(io) = &err
            && disk_is_full(io)
        {
            return Error::new(ErrorCode::DiskFull, DISK_FULL).with_source(err);
        }
        Error::new(ErrorCode::Storage, "database error").with_source(err)
    }
}

impl From<sqlx::migrate::MigrateError> for Error {
    fn from(err: sqlx::migrate::MigrateError) -> Self {
        Error::new(ErrorCode::Storage, "database migration failed").with_source(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_form_has_code_and_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied");
        let err = Error::new(ErrorCode::DataDir, "cannot create /x").with_source(io);
        assert_eq!(
            err.to_wire(),
            WireError { code: ErrorCode::DataDir, message: "cannot create /x: permission denied".into() }
        );
        assert_eq!(serde_json::to_value(ErrorCode::InvalidArguments).unwrap(), "invalid_arguments");
        assert_eq!(ErrorCode::NotAvailable.as_str(), "not_available");
        assert!(!Error::invalid_arguments("x").is_retryable());
    }

    #[test]
    fn a_full_disk_is_disk_full_and_other_write_errors_keep_their_code() {
        use std::io::{Error as Io, ErrorKind};
        for kind in [ErrorKind::StorageFull, ErrorKind::FileTooLarge, ErrorKind::QuotaExceeded] {
            let err = Error::write_failed(ErrorCode::DataDir, "cannot write the copy", Io::from(kind));
            assert_eq!(err.code(), ErrorCode::DiskFull, "{kind:?}");
            assert!(err.message().starts_with("cannot write the copy: the disk holding Halley's data is full"));
        }
        let denied = Error::write_failed(ErrorCode::DataDir, "cannot write", Io::from(ErrorKind::PermissionDenied));
        assert_eq!(denied.code(), ErrorCode::DataDir);
        assert!(Error::new(ErrorCode::DatabaseBusy, "locked").is_retryable());
    }
}
