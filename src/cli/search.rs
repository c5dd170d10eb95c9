//! `halley search settings|key`: where `web_search` searches (the settings
//! the panel's Search section edits) and the Brave Search API key in the OS
//! keyring (read from stdin, never printed).

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::json;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::core::BrowserSettings;
use crate::error::{Error, ErrorCode};
use crate::host::Host;
use crate::paths::DataDir;
use crate::protocol::{Op, Reply, SearchProvider, SearchSettings};
use crate::search;

#[derive(Debug, Clone, Subcommand)]
pub enum SearchCommand {
    /// Show where `web_search` searches, or change it (the options given;
    /// an empty value clears a URL).
    Settings {
        /// The providers to ask, in order, comma-separated: searxng, brave,
        /// duckduckgo (empty: all three, in that order).
        #[arg(long, value_name = "LIST")]
        order: Option<String>,
        /// A SearXNG instance (its JSON format enabled), e.g. https://searx.example.org.
        #[arg(long, value_name = "URL")]
        searxng_url: Option<String>,
        /// DuckDuckGo's HTML endpoint (default https://html.duckduckgo.com).
        #[arg(long, value_name = "URL")]
        duckduckgo_url: Option<String>,
        /// The Brave Search API (default https://api.search.brave.com).
        #[arg(long, value_name = "URL")]
        brave_url: Option<String>,
        /// Print JSON: the search settings and whether a Brave key is saved.
        #[arg(long)]
        json: bool,
    },
    /// The Brave Search API key in the OS keyring.
    #[command(subcommand)]
    Key(KeyCommand),
}

#[derive(Debug, Clone, Subcommand)]
pub enum KeyCommand {
    /// Save the key, read from stdin (e.g. `pass show brave | halley search key set`).
    Set,
    /// Whether a key is saved (it is never printed).
    Status,
    /// Delete the saved key.
    Delete,
}

pub async fn run(cmd: SearchCommand, data_dir: Option<&Path>) -> ExitCode {
    match cmd {
        SearchCommand::Key(cmd) => match DataDir::resolve(data_dir) {
            Ok(dir) => key(&dir, cmd).await,
            Err(e) => fail(&e, EXIT_FAILURE),
        },
        SearchCommand::Settings { order, searxng_url, duckduckgo_url, brave_url, json } => {
            let change = order.is_some() || searxng_url.is_some() || duckduckgo_url.is_some() || brave_url.is_some();
            let order = match order.as_deref().map(parse_order).transpose() {
                Ok(o) => o,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            let dir = match DataDir::resolve(data_dir) {
                Ok(d) => d,
                Err(e) => return fail(&e, EXIT_FAILURE),
            };
            let saved = if change {
                let dir = dir.clone();
                let edit = |s: &mut SearchSettings| {
                    if let Some(o) = order {
                        s.order = o;
                    }
                    for (field, value) in [
                        (&mut s.searxng_url, searxng_url),
                        (&mut s.duckduckgo_url, duckduckgo_url),
                        (&mut s.brave_url, brave_url),
                    ] {
                        if let Some(v) = value {
                            *field = Some(v);
                        }
                    }
                };
                update(dir, edit).await
            } else {
                crate::host::settings::read(&dir).await.map(|s| s.search).map_err(|e| fail(&e, EXIT_FAILURE))
            };
            let saved = match saved {
                Ok(s) => s,
                Err(code) => return code,
            };
            show(&dir, &saved, json).await
        }
    }
}

/// `searxng,brave,duckduckgo` (empty: the default order).
fn parse_order(raw: &str) -> Result<Vec<SearchProvider>, Error> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            SearchProvider::from_name(name).ok_or_else(|| {
                Error::invalid_arguments(format!("unknown search provider `{name}`; use searxng, brave or duckduckgo"))
            })
        })
        .collect()
}

/// Change the saved search settings through a host (checked as the panel's are).
async fn update(dir: DataDir, edit: impl FnOnce(&mut SearchSettings)) -> Result<SearchSettings, ExitCode> {
    let host = Host::open(dir, BrowserSettings::default()).await.map_err(|e| fail(&e, EXIT_FAILURE))?;
    let reply = async {
        let Reply::Settings { mut settings, .. } = host.handle(Op::GetSettings).await? else {
            return Err(Error::internal("the host did not answer with the settings"));
        };
        edit(&mut settings.search);
        match host.handle(Op::SaveSettings { settings }).await? {
            Reply::Settings { settings, .. } => Ok(settings.search),
            _ => Err(Error::internal("the host did not answer with the settings")),
        }
    }
    .await;
    host.close().await;
    reply.map_err(|e| fail(&e, if e.code() == ErrorCode::InvalidArguments { EXIT_USAGE } else { EXIT_FAILURE }))
}

async fn show(dir: &DataDir, s: &SearchSettings, as_json: bool) -> ExitCode {
    let key_saved = search::brave_key(dir).await.ok().flatten().is_some();
    if as_json {
        let v = json!({"search": s, "brave_key_saved": key_saved});
        out(&v.to_string());
        return ExitCode::SUCCESS;
    }
    let order: Vec<&str> = if s.order.is_empty() {
        SearchProvider::ALL.iter().map(|p| p.name()).collect()
    } else {
        s.order.iter().map(|p| p.name()).collect()
    };
    out(&format!("order:          {}", order.join(", ")));
    out(&format!("searxng url:    {}", s.searxng_url.as_deref().unwrap_or("(none: not used)")));
    out(&format!("duckduckgo url: {}", s.duckduckgo_url.as_deref().unwrap_or(search::ddg::DEFAULT_BASE)));
    out(&format!("brave url:      {}", s.brave_url.as_deref().unwrap_or(search::brave::DEFAULT_BASE)));
    out(&format!("brave key:      {}", if key_saved { "saved in the OS keyring" } else { "none saved" }));
    ExitCode::SUCCESS
}

async fn key(dir: &DataDir, cmd: KeyCommand) -> ExitCode {
    let account = search::brave_key_account(dir);
    match cmd {
        KeyCommand::Set => {
            let key = match super::model_keys::read_key("Brave Search API key", "halley search key set").await {
                Ok(k) => k,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            match search::save_brave_key(dir, key.expose()).await {
                Ok(()) => {
                    out(&format!("saved the Brave Search API key in the OS keyring (account {account})"));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e, super::exit_code(&e)),
            }
        }
        KeyCommand::Status => match search::brave_key(dir).await {
            Ok(k) => {
                let state =
                    if k.is_some() { "a Brave Search API key is saved" } else { "no Brave Search API key is saved" };
                out(&format!("{state} (account {account})"));
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e, EXIT_FAILURE),
        },
        KeyCommand::Delete => match search::delete_brave_key(dir).await {
            Ok(true) => {
                out("deleted the Brave Search API key from the OS keyring");
                ExitCode::SUCCESS
            }
            Ok(false) => {
                out("no Brave Search API key was saved");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e, EXIT_FAILURE),
        },
    }
}
