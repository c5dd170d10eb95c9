//! The agent's memory tools (Letta's): editing the core memory blocks shown
//! in every prompt, and storing and searching archival passages. Their types
//! live in `tools::builtin::memory`.

use super::{Decl, declare};
use crate::tools::builtin::memory::{
    ArchivalMemoryInsertArgs, ArchivalMemorySearchArgs, ArchivalMemorySearchOutput, CoreMemoryAppendArgs,
    CoreMemoryOutput, CoreMemoryReplaceArgs, Passage,
};
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
            "Full-text search of archival memory, best match first; case and Vietnamese diacritics do not matter (`khach san` finds `khách sạn`). Optionally only passages with given tags. Returns {id, text, tags, created_at} for each passage.",
        )),
    ]
}
