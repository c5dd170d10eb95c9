//! The agent's memory tools (Letta's): editing the core memory blocks shown
//! in every prompt, and storing and searching archival passages. Their types
//! are here; the executors are in `crate::builtin::memory`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Decl, declare};
use crate::tools::spec::{PermissionScope as Scope, RiskLevel as Risk, ToolKind, ToolSpec};

pub(super) fn tools() -> Vec<ToolSpec> {
    let primitive = |name, scope, risk, description| Decl {
        name,
        kind: ToolKind::Primitive,
        scope,
        risk,
        confirm: false,
        needs: None,
        description,
    };
    vec![
        declare::<CoreMemoryAppendArgs, CoreMemoryOutput>(primitive(
            "core_memory_append",
            Scope::WriteNonDestructive,
            Risk::Medium,
            "Add a line to one of your core memory blocks (`human`: lasting facts about the user such as name, preferences, constraints; `persona`: yourself). The blocks are in every prompt, so keep them short. Fails without changing anything when the block would exceed its character limit. Never store a sensitive value (passport, card, phone...): write its {{profile.key}} placeholder.",
        )),
        declare::<CoreMemoryReplaceArgs, CoreMemoryOutput>(primitive(
            "core_memory_replace",
            Scope::WriteNonDestructive,
            Risk::Medium,
            "Replace text in a core memory block: `old_content` must occur exactly once in the block as shown; an empty `new_content` deletes it. Use it to correct outdated facts and to make room when a block is nearly full.",
        )),
        declare::<ArchivalMemoryInsertArgs, Passage>(primitive(
            "archival_memory_insert",
            Scope::WriteNonDestructive,
            Risk::Low,
            "Store a self-contained passage in archival memory (long-term, outside the prompt), with optional tags: trips, purchases, decisions, summaries worth finding again. Never store a sensitive value: write its {{profile.key}} placeholder.",
        )),
        declare::<ArchivalMemorySearchArgs, ArchivalMemorySearchOutput>(primitive(
            "archival_memory_search",
            Scope::ReadOnly,
            Risk::Low,
            "Search archival memory by meaning and by words, best match first: a question in English finds a Vietnamese passage and a paraphrase finds its original (when an embedder is set); case and Vietnamese diacritics do not matter (`khach san` finds `khách sạn`). Also searches the user's files put into sources (PDF, HTML, text: `files_store`, downloads); optionally only one `source`, only passages with given tags, or stored since/until a date. Returns {id, text, tags, created_at, score} for each passage, and for a passage from a file its `source`, `file` and `page`: cite them when you use it (\"visa.pdf, page 2\").",
        )),
    ]
}

/// Longest archival passage, in characters.
pub const MAX_PASSAGE_CHARS: usize = 10_000;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// Arguments of `core_memory_append`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoreMemoryAppendArgs {
    /// The block to add to: `human` (what you know about the user),
    /// `persona` (who you are) or another block shown in your memory.
    #[schemars(length(min = 1, max = 64))]
    pub label: String,
    /// The text to add, on a new line (e.g. "Ăn chay; thích ghế cạnh cửa sổ").
    #[schemars(length(min = 1))]
    pub content: String,
}

/// Arguments of `core_memory_replace`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoreMemoryReplaceArgs {
    /// The block to edit (e.g. `human`).
    #[schemars(length(min = 1, max = 64))]
    pub label: String,
    /// The exact text to replace, as the block shows it; it must occur
    /// exactly once (include surrounding words when it is short).
    #[schemars(length(min = 1))]
    pub old_content: String,
    /// The text to put instead; empty deletes `old_content`.
    pub new_content: String,
}

/// `data` of `core_memory_append` and `core_memory_replace`: the block after
/// the change.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CoreMemoryOutput {
    pub label: String,
    pub value: String,
    /// Characters used.
    pub chars: i64,
    /// Characters the block may hold.
    pub char_limit: i64,
}

/// Arguments of `archival_memory_insert`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchivalMemoryInsertArgs {
    /// A self-contained passage to keep: a fact, a decision, a summary
    /// (e.g. "Chuyến Đà Nẵng 12/2024: khách sạn Mường Thanh, 1.200.000 ₫/đêm").
    #[schemars(length(min = 1, max = 10000))]
    pub content: String,
    /// Tags to find it by later, e.g. `["travel", "hotel"]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(length(min = 1, max = 64)))]
    pub tags: Vec<String>,
}

/// Arguments of `archival_memory_search`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchivalMemorySearchArgs {
    /// What to look for, in any language: a question or words. Passages
    /// meaning the same are found even without a shared word (when an
    /// embedder is set); for words, case and Vietnamese diacritics do not
    /// matter (`khach san` finds `khách sạn`).
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// Only passages carrying every one of these tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(length(min = 1, max = 64)))]
    pub tags: Vec<String>,
    /// How many passages at most.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: u32,
    /// Only passages stored on or after this date (`2026-02-10`) or time
    /// (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 40))]
    pub since: Option<String>,
    /// Only passages stored before this date (that day excluded) or time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 40))]
    pub until: Option<String>,
    /// Only passages read out of the files of this source (its name, e.g.
    /// "Visa Nhật 2026", "Files", "Downloads").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 100))]
    pub source: Option<String>,
}

fn default_limit() -> u32 {
    5
}

/// One archival passage as the tools return it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Passage {
    /// `passage-…`
    pub id: String,
    pub text: String,
    /// Lowercase.
    pub tags: Vec<String>,
    /// When it was stored (RFC 3339, UTC).
    pub created_at: String,
    /// In a search: how well it matches (reciprocal-rank fusion of the
    /// word and meaning rankings; higher is better).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// For a passage read out of a file: the source holding the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For a passage read out of a file: the file's name, to cite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// For a passage read out of a file: the stored file's id (`files_get`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
    /// For a passage read out of a PDF: its page (1 = the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<i64>,
}

/// `data` of `archival_memory_search`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ArchivalMemorySearchOutput {
    /// Best match first.
    pub passages: Vec<Passage>,
    /// Said when meaning could not be used (no embedder set, the embedder
    /// down, passages not embedded yet): the search was by words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
