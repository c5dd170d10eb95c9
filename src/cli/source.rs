//! `halley source create|list|add|files|delete`: memory's sources, the
//! user's files grouped into knowledge bases the agent searches (read to
//! text, cut into passages and embedded in the background: `halley serve`
//! or the desktop app; `halley memory embed` does it now); through the
//! host's ops as any front end's.

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::core::BrowserSettings;
use crate::error::{Error, ErrorCode};
use crate::host::Host;
use crate::paths::DataDir;
use crate::protocol::{Op, Reply, SourceFileStatus, SourceFileView, SourceView};

#[derive(Debug, Subcommand)]
pub enum SourceCommand {
    /// Make a source (a knowledge base of your files the agent searches).
    Create {
        /// Its name, e.g. "Visa Nhật 2026".
        name: String,
        /// What it holds.
        #[arg(long, value_name = "TEXT", default_value = "")]
        description: String,
    },
    /// The sources, with how many files and passages each holds.
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Store files and put them into a source: their text is read (PDF,
    /// HTML, plain text; images are skipped) and embedded in the background.
    Add {
        /// The source.
        name: String,
        /// The files (paths or `file://` URLs).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
    },
    /// A source's files and how far each is: pending, extracting,
    /// embedding, done, skipped or failed (with the reason).
    Files {
        name: String,
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Delete a source and the passages read out of its files (the stored
    /// files stay in the files store).
    Delete { name: String },
}

pub async fn run(cmd: SourceCommand, data_dir: Option<&Path>) -> ExitCode {
    // Decided before the data directory is touched: bad input writes nothing.
    let checked = match &cmd {
        SourceCommand::Create { name, .. }
        | SourceCommand::Add { name, .. }
        | SourceCommand::Files { name, .. }
        | SourceCommand::Delete { name } => crate::store::sources::check_name(name).map(drop),
        SourceCommand::List { .. } => Ok(()),
    };
    if let Err(e) = checked {
        return fail(&e, EXIT_USAGE);
    }
    // The files are named from here: the host reads them by absolute path.
    let cmd = match cmd {
        SourceCommand::Add { name, files } => match absolute(&files) {
            Ok(files) => SourceCommand::Add { name, files },
            Err(e) => return fail(&e, EXIT_USAGE),
        },
        other => other,
    };
    let host = match open(data_dir).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let result = match cmd {
        SourceCommand::Create { name, description } => {
            host.handle(Op::CreateSource { name, description }).await.and_then(created)
        }
        SourceCommand::List { json } => host.handle(Op::ListSources).await.and_then(|r| list(r, json)),
        SourceCommand::Add { name, files } => {
            let count = files.len();
            host.handle(Op::AddToSource { name, paths: files }).await.and_then(|r| added(r, count))
        }
        SourceCommand::Files { name, json } => {
            host.handle(Op::SourceFiles { name }).await.and_then(|r| source_files(r, json))
        }
        SourceCommand::Delete { name } => host.handle(Op::DeleteSource { name }).await.and_then(deleted),
    };
    host.close().await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if matches!(e.code(), ErrorCode::InvalidArguments | ErrorCode::NotFound | ErrorCode::FileNotFound) => {
            fail(&e, EXIT_USAGE)
        }
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

/// Each file as an absolute path (a `file://` URL as it is), checked to be
/// a regular file.
fn absolute(files: &[String]) -> Result<Vec<String>, Error> {
    files
        .iter()
        .map(|f| {
            let path = crate::builtin::files::resolve_file_ref(f)?;
            match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => Ok(path.display().to_string()),
                Ok(_) => Err(Error::new(ErrorCode::FileNotFound, format!("not a regular file: {}", path.display()))),
                Err(_) => Err(Error::new(ErrorCode::FileNotFound, format!("file not found: {}", path.display()))),
            }
        })
        .collect()
}

async fn open(data_dir: Option<&Path>) -> Result<std::sync::Arc<Host>, Error> {
    let dir = DataDir::resolve(data_dir)?;
    Host::open(dir, BrowserSettings::default()).await
}

fn unexpected() -> Error {
    Error::internal("the host did not answer with the sources")
}

fn created(reply: Reply) -> Result<(), Error> {
    let Reply::Source { source } = reply else { return Err(unexpected()) };
    out(&format!("created source {:?} ({})", source.name, source.id));
    Ok(())
}

fn list(reply: Reply, json: bool) -> Result<(), Error> {
    let Reply::Sources { sources } = reply else { return Err(unexpected()) };
    if json {
        return super::memory::print_json(&sources);
    }
    if sources.is_empty() {
        out("no sources yet: `halley source create NAME`");
    }
    for SourceView { name, description, files, passages, .. } in &sources {
        let about = if description.is_empty() { String::new() } else { format!("  {description}") };
        out(&format!("{name}  {files} file(s), {passages} passage(s){about}"));
    }
    Ok(())
}

fn added(reply: Reply, count: usize) -> Result<(), Error> {
    let Reply::SourceFiles { source, files } = reply else { return Err(unexpected()) };
    out(&format!(
        "added {count} file(s) to {:?}: read and embedded in the background (`halley memory embed` does it now)",
        source.name
    ));
    print_files(&files);
    Ok(())
}

fn source_files(reply: Reply, json: bool) -> Result<(), Error> {
    let Reply::SourceFiles { files, .. } = reply else { return Err(unexpected()) };
    if json {
        return super::memory::print_json(&files);
    }
    if files.is_empty() {
        out("no files yet: `halley source add NAME FILE...`");
    }
    print_files(&files);
    Ok(())
}

fn print_files(files: &[SourceFileView]) {
    for f in files {
        let status = match f.status {
            SourceFileStatus::Pending => "pending",
            SourceFileStatus::Extracting => "extracting",
            SourceFileStatus::Embedding => "embedding",
            SourceFileStatus::Done => "done",
            SourceFileStatus::Skipped => "skipped",
            SourceFileStatus::Failed => "failed",
        };
        let pages = f.pages.map_or_else(String::new, |p| format!(", {p} page(s)"));
        let progress = match (f.passages, f.pages) {
            (0, None) => String::new(),
            (0, Some(p)) => format!("  {p} page(s)"),
            (n, _) => format!("  {n} passage(s){pages}, {} embedded", f.embedded),
        };
        out(&format!("{}  {status}  {}{progress}", f.file_id, f.name));
        if let Some(why) = f.error.as_deref().or(f.note.as_deref()) {
            out(&format!("  {why}"));
        }
    }
}

fn deleted(reply: Reply) -> Result<(), Error> {
    let Reply::SourceDeleted { name, passages } = reply else { return Err(unexpected()) };
    out(&format!("deleted source {name:?} and its {passages} passage(s); the files stay in the files store"));
    Ok(())
}
