//! `halley models key set|status|delete`: API keys in the OS keyring (read
//! from stdin, never from the command line, never printed), saved, looked
//! up and deleted by `crate::host::settings` as the panel's are.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::json;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out, warn};
use crate::agent::provider::{ModelConfig, ModelFlags};
use crate::error::{Error, ErrorCode, Result};
use crate::host::settings;
use crate::protocol::Settings;
use crate::secrets::Secret;

/// The longest key read from stdin.
const MAX_KEY_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Subcommand)]
pub enum KeyCommand {
    /// Save an endpoint's API key in the OS keyring. The key is read from
    /// stdin (e.g. `pass show openai | halley models key set --preset openai`),
    /// never from the command line.
    Set(KeyTarget),
    /// Whether a key is saved for an endpoint (the key is never printed).
    Status {
        #[command(flatten)]
        target: KeyTarget,
        /// Print JSON: {"account", "base_url", "preset", "saved", "overridden_by"}.
        #[arg(long)]
        json: bool,
    },
    /// Delete an endpoint's saved API key.
    Delete(KeyTarget),
}

/// Whose key: a preset's, or the endpoint at a base URL (by its host); by
/// default the endpoint `halley run` would use (the saved settings', else
/// $OPENAI_BASE_URL, else Ollama).
#[derive(Debug, Clone, clap::Args)]
pub struct KeyTarget {
    /// Model endpoint preset: ollama, lmstudio, llamacpp, vllm, openai, openrouter, gemini.
    #[arg(long, value_name = "NAME", conflicts_with = "base_url")]
    pub preset: Option<String>,
    /// OpenAI-compatible base URL (the key is filed under its host and port).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
}

impl KeyTarget {
    /// The endpoint: the one the flags name, else the saved settings', as
    /// for a run.
    fn settings(&self, saved: &Settings) -> Settings {
        let flags =
            ModelFlags { preset: self.preset.clone(), base_url: self.base_url.clone(), ..ModelFlags::default() };
        settings::with_overrides(saved, Some(&flags))
    }
}

pub async fn run(cmd: KeyCommand, saved: &Settings) -> ExitCode {
    let target = match &cmd {
        KeyCommand::Set(t) | KeyCommand::Delete(t) | KeyCommand::Status { target: t, .. } => t,
    };
    let endpoint_settings = target.settings(saved);
    let config = match settings::config_without_key(&endpoint_settings) {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_USAGE),
    };
    let account = config.key_account();
    let endpoint = endpoint_name(&config);
    match cmd {
        KeyCommand::Set(_) => {
            let key = match read_key(&format!("API key for {endpoint}"), "halley models key set --preset openai").await
            {
                Ok(k) => k,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            if let Err(e) = settings::save_key(&endpoint_settings, key.expose()).await {
                return fail(&e, super::exit_code(&e));
            }
            out(&format!("saved the API key for {endpoint} in the OS keyring (account {account})"));
            if let Some(var) = settings::key_from_env(&config) {
                warn(&format!("{var} is set in this environment and is used before the saved key"));
            }
            ExitCode::SUCCESS
        }
        KeyCommand::Status { json, .. } => {
            let saved = match settings::saved_key(&config).await {
                Ok(k) => k.is_some(),
                Err(e) => return fail(&e, EXIT_FAILURE),
            };
            let env = settings::key_from_env(&config);
            if json {
                let v = json!({"account": account, "base_url": config.base_url, "preset": config.preset.map(|p| p.name()),
                               "saved": saved, "overridden_by": env});
                out(&v.to_string());
                return ExitCode::SUCCESS;
            }
            let state = if saved { "an API key is saved" } else { "no API key is saved" };
            out(&format!("{state} for {endpoint} (account {account})"));
            if let Some(var) = env {
                out(&format!("{var} is set in this environment and is used before any saved key"));
            }
            ExitCode::SUCCESS
        }
        KeyCommand::Delete(_) => match settings::delete_key(&endpoint_settings).await {
            Ok(true) => {
                out(&format!("deleted the API key of {endpoint} from the OS keyring"));
                ExitCode::SUCCESS
            }
            Ok(false) => {
                out(&format!("no API key was saved for {endpoint} (account {account})"));
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e, EXIT_FAILURE),
        },
    }
}

/// "OpenAI (https://api.openai.com/v1)", or the base URL.
fn endpoint_name(config: &ModelConfig) -> String {
    match config.preset {
        Some(p) => format!("{} ({})", p.label(), config.base_url),
        None => config.base_url.clone(),
    }
}

/// The key from stdin: one line on a terminal (not echoed), else everything
/// up to the end; surrounding whitespace (the final newline) dropped.
/// `what`: the prompt's subject (`API key for ...`); `command`: the command,
/// for the hint when stdin is empty.
pub(super) async fn read_key(what: &str, command: &str) -> Result<Secret> {
    let what = what.to_owned();
    let text = tokio::task::spawn_blocking(move || read_stdin(&what))
        .await
        .map_err(|e| Error::internal(format!("reading the key failed: {e}")))??;
    if text.trim().is_empty() {
        return Err(Error::invalid_arguments(format!(
            "no key on stdin: pipe it in, e.g. `printf %s \"$KEY\" | {command}`"
        )));
    }
    settings::check_key(&text)
}

#[allow(clippy::print_stderr)]
fn read_stdin(what: &str) -> Result<String> {
    let stdin = std::io::stdin();
    let io_err = |e: std::io::Error| Error::new(ErrorCode::Io, "cannot read the key from stdin").with_source(e);
    if stdin.is_terminal() {
        let hidden = echo(false);
        let shown = if hidden { "not shown" } else { "shown as you type" };
        eprint!("{what} ({shown}; Enter to finish): ");
        let mut line = String::new();
        let read = stdin.read_line(&mut line);
        if hidden {
            echo(true);
            eprintln!();
        }
        read.map_err(io_err)?;
        return Ok(line);
    }
    let mut bytes = Vec::new();
    stdin.lock().take(MAX_KEY_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(io_err)?;
    if bytes.len() > MAX_KEY_BYTES {
        return Err(Error::invalid_arguments(format!("the key on stdin is longer than {} KB", MAX_KEY_BYTES / 1024)));
    }
    String::from_utf8(bytes).map_err(|_| Error::invalid_arguments("the key on stdin is not UTF-8 text"))
}

/// Turn the terminal's echo on or off with `stty` (which acts on its stdin,
/// the terminal); whether it worked.
fn echo(on: bool) -> bool {
    if !cfg!(unix) {
        return false;
    }
    std::process::Command::new("stty")
        .arg(if on { "echo" } else { "-echo" })
        .stdin(std::process::Stdio::inherit())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
