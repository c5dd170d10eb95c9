//! `halley models key set|status|delete`: API keys in the OS keyring (read
//! from stdin, never from the command line, never printed), and the model
//! settings of `run`/`chat`/`models` with the saved key as the last source.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::json;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::agent::provider::{ENV_API_KEY, ModelConfig, ModelFlags};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::{Secret, SecretStore};

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
/// default the endpoint `halley run` would use ($OPENAI_BASE_URL, else Ollama).
#[derive(Debug, Clone, clap::Args)]
pub struct KeyTarget {
    /// Model endpoint preset: ollama, lmstudio, vllm, openai, openrouter, gemini.
    #[arg(long, value_name = "NAME", conflicts_with = "base_url")]
    pub preset: Option<String>,
    /// OpenAI-compatible base URL (the key is filed under its host and port).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
}

impl KeyTarget {
    fn config(&self) -> Result<ModelConfig> {
        let flags =
            ModelFlags { preset: self.preset.clone(), base_url: self.base_url.clone(), ..ModelFlags::default() };
        ModelConfig::resolve(flags, |k| std::env::var(k).ok())
    }
}

pub async fn run(cmd: KeyCommand) -> ExitCode {
    let target = match &cmd {
        KeyCommand::Set(t) | KeyCommand::Delete(t) | KeyCommand::Status { target: t, .. } => t,
    };
    let config = match target.config() {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_USAGE),
    };
    let store = match SecretStore::os() {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let account = config.key_account();
    let endpoint = endpoint_name(&config);
    match cmd {
        KeyCommand::Set(_) => {
            let key = match read_key(&endpoint).await {
                Ok(k) => k,
                Err(e) => return fail(&e, EXIT_USAGE),
            };
            if let Err(e) = store.set(&account, &key).await {
                return fail(&e, EXIT_FAILURE);
            }
            out(&format!("saved the API key for {endpoint} in the OS keyring (account {account})"));
            if let Some(var) = overriding_env(&config) {
                warn(&format!("{var} is set in this environment and is used before the saved key"));
            }
            ExitCode::SUCCESS
        }
        KeyCommand::Status { json, .. } => {
            let saved = match store.get(&account).await {
                Ok(k) => k.is_some(),
                Err(e) => return fail(&e, EXIT_FAILURE),
            };
            let env = overriding_env(&config);
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
        KeyCommand::Delete(_) => match store.delete(&account).await {
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

/// The model settings from flags and the environment, with the key saved in
/// the OS keyring as the last source. A keyring that cannot be read is not
/// fatal (a local model needs no key): it is reported and the call goes on
/// without a key.
pub(super) async fn resolve_model(flags: ModelFlags) -> Result<ModelConfig> {
    let config = ModelConfig::resolve(flags, |k| std::env::var(k).ok())?;
    if config.api_key.is_some() {
        return Ok(config);
    }
    let account = config.key_account();
    let saved = match SecretStore::os() {
        Ok(store) => store.get(&account).await,
        Err(e) => Err(e),
    };
    match saved {
        Ok(key) => Ok(config.with_saved_key(key.map(Secret::into_exposed))),
        Err(e) if config.is_loopback() => {
            tracing::debug!(error = %e.message(), "no saved API key: the OS keyring cannot be read");
            Ok(config)
        }
        Err(e) => {
            warn(&format!("going on without a saved API key: {}", e.to_wire().message));
            Ok(config)
        }
    }
}

/// "OpenAI (https://api.openai.com/v1)", or the base URL.
fn endpoint_name(config: &ModelConfig) -> String {
    match config.preset {
        Some(p) => format!("{} ({})", p.label(), config.base_url),
        None => config.base_url.clone(),
    }
}

/// The environment variable that gives this endpoint a key before the keyring.
fn overriding_env(config: &ModelConfig) -> Option<&'static str> {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    config.preset.and_then(|p| p.api_key_env()).filter(|v| set(v)).or_else(|| set(ENV_API_KEY).then_some(ENV_API_KEY))
}

/// The key from stdin: one line on a terminal (not echoed), else everything
/// up to the end; surrounding whitespace (the final newline) dropped.
async fn read_key(endpoint: &str) -> Result<Secret> {
    let endpoint = endpoint.to_owned();
    let text = tokio::task::spawn_blocking(move || read_stdin(&endpoint))
        .await
        .map_err(|e| Error::internal(format!("reading the key failed: {e}")))??;
    let key = text.trim();
    if key.is_empty() {
        return Err(Error::invalid_arguments(
            "no key on stdin: pipe it in, e.g. `printf %s \"$KEY\" | halley models key set --preset openai`",
        ));
    }
    if key.chars().any(char::is_control) {
        return Err(Error::invalid_arguments(
            "the key has a line break or another control character inside; give one key on one line",
        ));
    }
    Ok(Secret::new(key))
}

#[allow(clippy::print_stderr)]
fn read_stdin(endpoint: &str) -> Result<String> {
    let stdin = std::io::stdin();
    let io_err = |e: std::io::Error| Error::new(ErrorCode::Io, "cannot read the key from stdin").with_source(e);
    if stdin.is_terminal() {
        let hidden = echo(false);
        let shown = if hidden { "not shown" } else { "shown as you type" };
        eprint!("API key for {endpoint} ({shown}; Enter to finish): ");
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

#[allow(clippy::print_stderr)]
fn warn(line: &str) {
    eprintln!("halley: warning: {line}");
}
