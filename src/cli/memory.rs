//! `halley memory blocks|set|history|search|add`: the agent's memory as the
//! user sees and edits it: core blocks (always in the model's prompt), their
//! change history, and archival passages.

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use serde::Serialize;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::builtin::memory::blocks::{self as memory, ACTOR_USER, DEFAULT_BLOCK_LIMIT};
use crate::error::{Error, ErrorCode};
use crate::paths::DataDir;
use crate::store::Store;
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
    /// Search archival memory (case and diacritics do not matter).
    Search {
        query: String,
        /// Only passages carrying this tag (repeatable: all of them).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// How many passages at most.
        #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100))]
        limit: u32,
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Store a passage in archival memory.
    Add {
        text: String,
        /// A tag to find it by (repeatable).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
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
    let store = match open(data_dir).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let result = match memory::default_agent(&store).await {
        Ok(agent) => match cmd {
            MemoryCommand::Blocks { json } => blocks(&store, &agent, json).await,
            MemoryCommand::Set { label, value, limit } => set(&store, &agent, &label, &value, limit).await,
            MemoryCommand::History { label, json, limit } => {
                history(&store, &agent, label.as_deref(), json, limit).await
            }
            MemoryCommand::Search { query, tags, limit, json } => {
                search(&store, &agent, &query, &tags, limit, json).await
            }
            MemoryCommand::Add { text, tags } => add(&store, &agent, &text, &tags).await,
        },
        Err(e) => Err(e),
    };
    store.close().await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if matches!(e.code(), ErrorCode::InvalidArguments | ErrorCode::NotFound) => fail(&e, EXIT_USAGE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

async fn open(data_dir: Option<&Path>) -> Result<Store, Error> {
    let dir = DataDir::resolve(data_dir)?;
    dir.ensure()?;
    Store::open(&dir.db_path()).await
}

/// A block as `memory blocks --json` prints it.
#[derive(Debug, Serialize)]
struct BlockView {
    label: String,
    value: String,
    chars: i64,
    char_limit: i64,
    updated_at: String,
}

async fn blocks(store: &Store, agent: &str, json: bool) -> Result<(), Error> {
    let rows = store.blocks().for_agent(agent).await?;
    let views: Vec<BlockView> = rows
        .into_iter()
        .map(|b| BlockView {
            chars: char_count(&b.value),
            label: b.label,
            value: b.value,
            char_limit: b.char_limit,
            updated_at: b.updated_at,
        })
        .collect();
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

async fn set(store: &Store, agent: &str, label: &str, value: &str, limit: Option<i64>) -> Result<(), Error> {
    let existing = store.blocks().get(agent, label).await?;
    let limit = limit.or_else(|| existing.is_none().then_some(DEFAULT_BLOCK_LIMIT));
    let b = store.blocks().upsert(agent, label, value, limit, ACTOR_USER).await?;
    out(&format!(
        "{} block {label}: {}/{} chars",
        if existing.is_some() { "set" } else { "created" },
        char_count(&b.value),
        b.char_limit
    ));
    Ok(())
}

/// A change as `memory history --json` prints it.
#[derive(Debug, Serialize)]
struct ChangeView {
    label: String,
    actor: String,
    at: String,
    /// `null` when the change created the block.
    old_value: Option<String>,
    new_value: String,
}

async fn history(store: &Store, agent: &str, label: Option<&str>, json: bool, limit: u32) -> Result<(), Error> {
    let blocks = store.blocks().for_agent(agent).await?;
    let label_of = |id: &str| blocks.iter().find(|b| b.id == id).map_or_else(String::new, |b| b.label.clone());
    let rows = match label {
        Some(label) => {
            let Some(block) = blocks.iter().find(|b| b.label == label) else {
                return Err(memory::unknown_label(store, agent, label).await);
            };
            let mut rows = store.block_history().for_block(&block.id).await?;
            rows.reverse();
            rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            rows
        }
        None => store.block_history().recent_for_agent(agent, limit).await?,
    };
    let views: Vec<ChangeView> = rows
        .into_iter()
        .map(|h| ChangeView {
            label: label_of(&h.block_id),
            actor: h.actor,
            at: h.at,
            old_value: h.old_value,
            new_value: h.new_value,
        })
        .collect();
    if json {
        return print_json(&views);
    }
    if views.is_empty() {
        out("no changes yet");
    }
    for v in &views {
        let what = match &v.old_value {
            None => "created".to_owned(),
            Some(old) => format!("{} -> {} chars", char_count(old), char_count(&v.new_value)),
        };
        out(&format!("{}  {}  by {}  {what}", v.at, v.label, v.actor));
        out(&format!("  {}", one_line(&v.new_value)));
    }
    Ok(())
}

async fn search(store: &Store, agent: &str, query: &str, tags: &[String], limit: u32, json: bool) -> Result<(), Error> {
    let hits = store.archival().search(agent, query, tags, limit).await?;
    if json {
        return print_json(&hits);
    }
    if hits.is_empty() {
        out("no passages found");
    }
    for h in &hits {
        let tags = if h.passage.tags.is_empty() { String::new() } else { format!("  [{}]", h.passage.tags.join(", ")) };
        out(&format!("{}  {}{tags}", h.passage.id, h.passage.created_at));
        out(&format!("  {}", one_line(&h.snippet)));
    }
    Ok(())
}

async fn add(store: &Store, agent: &str, text: &str, tags: &[String]) -> Result<(), Error> {
    let row = store.archival().insert(agent, text, tags).await?;
    out(&format!("added {}", row.id));
    Ok(())
}

/// `text` on one line: line breaks shown as ` / `.
fn one_line(text: &str) -> String {
    if text.is_empty() { "(empty)".to_owned() } else { text.lines().collect::<Vec<_>>().join(" / ") }
}

fn print_json<T: Serialize>(value: &T) -> Result<(), Error> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| Error::internal("cannot serialise output").with_source(e))?;
    out(&text);
    Ok(())
}
