//! `halley auth connect|list|check|disconnect`: OAuth accounts from the
//! command line. The user typing `connect` is the consent; the sign-in page
//! opens in the managed Chromium (or is only printed with `--no-browser`).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::Subcommand;

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, close_for};
use super::{EXIT_FAILURE, exit_code, fail, out};
use crate::context::{CallContext, FrontEnd};
use crate::core::{BrowserSettings, Core};
use crate::error::{Error, Result};
use crate::oauth::{ClientConfig, ConnectRequest, open_in_browser};
use crate::paths::DataDir;
use crate::tools::Registry;

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Connect an account: sign in at the provider in the browser (OAuth
    /// with PKCE); the refresh token goes to the OS keyring only.
    Connect {
        /// google, github, microsoft, or oidc (any OpenID Connect issuer).
        #[arg(long)]
        provider: String,
        /// The OpenID Connect issuer URL (`--provider oidc`).
        #[arg(long, value_name = "URL")]
        issuer: Option<String>,
        /// Your OAuth client's id (Halley ships none); default: the one used last for this provider.
        #[arg(long, value_name = "ID")]
        client_id: Option<String>,
        /// The client's secret, for clients that have one (Google "Desktop app").
        #[arg(long, value_name = "SECRET", conflicts_with = "client_file")]
        client_secret: Option<String>,
        /// A Google `client_secret_*.json` download (client id and secret).
        #[arg(long, value_name = "FILE", conflicts_with = "client_id")]
        client_file: Option<String>,
        /// Scopes, space-separated (Google's short names allowed: `youtube.upload`).
        #[arg(long, value_name = "SCOPES")]
        scopes: Option<String>,
        /// Print the sign-in URL only; do not open it in the managed browser.
        #[arg(long)]
        no_browser: bool,
        /// How long to wait for the sign-in, in seconds.
        #[arg(long, value_name = "SECS", default_value_t = 300)]
        timeout: u64,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        /// Connect without asking first (the gate asks, as for the tool
        /// `auth_oauth_connect`: SUBMIT, high risk).
        #[arg(long)]
        yes: bool,
        /// `ask` on the terminal (refused without one) or `deny`.
        #[arg(long, value_enum, default_value_t = ConfirmMode::Ask)]
        confirm: ConfirmMode,
    },
    /// The connected accounts, with their status and granted scopes (never a token).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Call the provider's user info with a fresh access token (refreshed when due),
    /// for each account named, or every account with `--all`.
    Check {
        #[arg(required_unless_present = "all")]
        names: Vec<String>,
        /// Every connected account, in turn.
        #[arg(long, conflicts_with = "names")]
        all: bool,
    },
    /// Disconnect an account: revoke it at the provider when it offers
    /// revocation and delete its keyring entry.
    Disconnect { name: String },
}

pub async fn run(cmd: AuthCommand, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let core = match open(data_dir, browser).await {
        Ok(core) => core,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let done = match cmd {
        AuthCommand::Connect {
            provider,
            issuer,
            client_id,
            client_secret,
            client_file,
            scopes,
            no_browser,
            timeout,
            json,
            yes,
            confirm,
        } => {
            let request = request(provider, issuer, client_id, client_secret, client_file, scopes, timeout);
            match request {
                Ok(request) => {
                    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(confirmer(confirm, yes));
                    return connect(core, &cx, request, no_browser, json).await;
                }
                Err(e) => Err(e),
            }
        }
        AuthCommand::List { json } => list(&core, json).await,
        AuthCommand::Check { names, all } => check(&core, names, all).await,
        AuthCommand::Disconnect { name } => core.oauth().disconnect(&name).await.map(|d| {
            let revoked = match d.revoked {
                Some(true) => "revoked at the provider",
                Some(false) => "the provider did not confirm the revocation (revoke it in the account's settings)",
                None => "the provider offers no revocation (remove Halley in the account's settings)",
            };
            out(&format!("disconnected {}: keyring entry deleted; {revoked}", d.name));
        }),
    };
    core.close().await;
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, exit_code(&e)),
    }
}

/// `halley auth check NAME... | --all`: each account's user info with a
/// fresh access token, one line each; an account that fails is said on
/// stderr as it fails and the others are checked all the same (then the
/// exit status is 1).
async fn check(core: &Core, names: Vec<String>, all: bool) -> Result<()> {
    let names: Vec<String> = if all { core.oauth().list().await?.into_iter().map(|a| a.name).collect() } else { names };
    let mut failed = Vec::new();
    for name in &names {
        match core.oauth().userinfo(name).await {
            Ok(info) => {
                let who = ["email", "login", "preferred_username", "sub"]
                    .iter()
                    .find_map(|k| info.get(*k).and_then(|v| v.as_str()))
                    .unwrap_or("?");
                out(&format!("{name}: signed in as {who} (a fresh access token worked)"));
            }
            Err(e) if names.len() == 1 => return Err(e),
            Err(e) => {
                let _ = fail(&e, EXIT_FAILURE);
                failed.push((name.as_str(), e.code()));
            }
        }
    }
    match failed.first() {
        None => Ok(()),
        Some((_, code)) => Err(Error::new(
            *code,
            format!(
                "{} of {} accounts failed: {}",
                failed.len(),
                names.len(),
                failed.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

async fn open(data_dir: Option<&Path>, browser: BrowserSettings) -> Result<Core> {
    let dir = DataDir::resolve(data_dir)?;
    crate::host::open_core_full(dir, Registry::builtin()?, browser).await
}

fn request(
    provider: String,
    issuer: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    client_file: Option<String>,
    scopes: Option<String>,
    timeout: u64,
) -> Result<ConnectRequest> {
    let client = match client_file {
        Some(file) => {
            let text = super::read_input(&file)
                .map_err(|e| Error::invalid_arguments(format!("cannot read the client file {file}: {e}")))?;
            Some(ClientConfig::from_google_json(&text)?)
        }
        None => ClientConfig::from_parts(client_id, client_secret)?,
    };
    ConnectRequest::new(&provider, issuer, client, scopes.into_iter().collect(), Duration::from_secs(timeout))
}

#[allow(clippy::print_stderr)]
async fn connect(core: Core, cx: &CallContext, request: ConnectRequest, no_browser: bool, json: bool) -> ExitCode {
    let mut signals = Signals::install();
    let flow = async {
        let pending = core.oauth().begin(request).await?;
        // Asked and audited as the tool would be, once the client and the
        // provider are known to be usable.
        let args = serde_json::json!({"provider": pending.provider.name(), "scopes": pending.scopes});
        core.approve(cx, "auth_oauth_connect", &args).await?;
        eprintln!("Sign in at {}: {}", pending.provider.name(), pending.authorize_url);
        if !no_browser {
            open_in_browser(core.browser(), &pending.authorize_url).await?;
        }
        eprintln!("Waiting for the sign-in (the browser tab says when it is done)...");
        core.oauth().finish(pending).await
    };
    let done = match signals.during(flow).await {
        Ok(done) => done,
        Err(stop) => return close_for(&core, stop).await,
    };
    core.close().await;
    match done {
        Ok(c) if json => match serde_json::to_string_pretty(&c) {
            Ok(s) => {
                out(&s);
                ExitCode::SUCCESS
            }
            Err(e) => fail(&Error::internal("cannot serialise output").with_source(e), EXIT_FAILURE),
        },
        Ok(c) => {
            out(&format!("connected {} ({}): scopes {}", c.name, c.status.as_str(), c.scopes_granted.join(" ")));
            if !c.scopes_missing.is_empty() {
                out(&format!("not granted: {} (the consent was partial)", c.scopes_missing.join(" ")));
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, exit_code(&e)),
    }
}

async fn list(core: &Core, json: bool) -> Result<()> {
    let accounts = core.oauth().list().await?;
    if json {
        let s = serde_json::to_string_pretty(&accounts).map_err(|e| Error::internal(e.to_string()))?;
        out(&s);
        return Ok(());
    }
    if accounts.is_empty() {
        out("no account connected (halley auth connect --provider ...)");
    }
    for a in accounts {
        out(&format!("{}\t{}\t{}", a.name, a.status.as_str(), a.scopes_granted.0.join(" ")));
    }
    Ok(())
}
