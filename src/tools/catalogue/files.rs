//! Argument and output types of `files_store` / `files_get` / `files_tag`
//! (executors in `crate::builtin::files`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `files_store`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FilesStoreArgs {
    /// The file to store: a `file://` URL (`file:///home/me/passport.png`,
    /// or relative `file://passport.png`) or a plain path.
    pub file_path: String,
    /// Tags to attach, e.g. `["travel", "passport"]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// A free note, e.g. "scan 2025".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Display name; defaults to the file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The source (a knowledge base of the user's files, made if new, e.g.
    /// "Visa Nhật 2026") to put the file in: its text (PDF, HTML, plain
    /// text) is read in the background and found by `archival_memory_search`.
    /// Default: "Files".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 100))]
    pub source: Option<String>,
}

/// Arguments of `files_get`: by id, or by tags (files carrying all of them).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FilesGetArgs {
    /// A stored file's id (`file_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Return files that carry every one of these tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// At most this many files (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
}

/// Arguments of `files_tag`: pick the stored file by `id` or by the
/// `file_path` it was stored from (matched by content), then add or remove
/// tags and set the note.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FilesTagArgs {
    /// The stored file's id (`file-…`). Give this or `file_path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The original file (a `file://` URL or path); the stored copy with the
    /// same content is tagged. Give this or `id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// Tags to add.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Tags to remove.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_tags: Vec<String>,
    /// Replace the note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A stored file as tools return it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct StoredFile {
    pub id: String,
    pub name: String,
    pub sha256: String,
    pub size: u64,
    pub mime: String,
    /// `file://` URL of the stored copy inside the data directory.
    #[serde(rename = "ref")]
    pub reference: String,
    pub tags: Vec<String>,
    pub note: Option<String>,
    pub created_at: String,
}

/// `data` of `files_store` and `files_tag`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct FileOutput {
    pub file: StoredFile,
    /// `files_store` only: true when identical content was already stored
    /// (the existing record is returned, with the new tags and note).
    #[serde(default)]
    pub deduplicated: bool,
    /// `files_store` only: the source the file was put in; its text is read
    /// in the background (`halley source files NAME` shows how far).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// `data` of `files_get`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct FilesGetOutput {
    pub files: Vec<StoredFile>,
}
