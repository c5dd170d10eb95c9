//! `halley auth connect|list|check|disconnect`: OAuth accounts from the
//! command line, through a host's ops (`SignInAccount`, `OpenSignInPage`,
//! `ListAccounts`, `ListAccountRecords`, `CheckAccount`, `SignOutAccount`).
//! The user is asked before connecting (on the terminal unless `--yes`); the
//! sign-in page opens in the managed Chromium (or is only printed with
//! `--no-browser`).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use std::sync::Arc;

use clap::Subcommand;
use tokio::sync::broadcast::error::RecvError;

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, close_for};
use super::tools::{asks_nobody, cli_caller};
use super::{EXIT_FAILURE, exit_code, fail, out};
use crate::core::BrowserSettings;
use crate::error::{Error, Result};
use crate::host::{Caller, Host};
use crate::oauth::{ClientConfig, ConnectRequest, Connected};
use crate::paths::DataDir;
use crate::protocol::{Event, Op, Reply};

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
    let host = match open(data_dir, browser).await {
        Ok(host) => host,
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
                    let caller = cli_caller(confirmer(confirm, yes), Vec::new());
                    return connect(host, &caller, request, no_browser, json).await;
                }
                Err(e) => Err(e),
            }
        }
        AuthCommand::List { json } => list(&host, json).await,
        AuthCommand::Check { names, all } => check(&host, names, all).await,
        AuthCommand::Disconnect { name } => match ask(&host, Op::SignOutAccount { name }).await {
            Ok(Reply::AccountDisconnected { name, revoked }) => {
                let revoked = match revoked {
                    Some(true) => "revoked at the provider",
                    Some(false) => "the provider did not confirm the revocation (revoke it in the account's settings)",
                    None => "the provider offers no revocation (remove Halley in the account's settings)",
                };
                out(&format!("disconnected {name}: keyring entry deleted; {revoked}"));
                Ok(())
            }
            Ok(_) => Err(unexpected()),
            Err(e) => Err(e),
        },
    };
    host.close().await;
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, exit_code(&e)),
    }
}

/// Carry out `op`, which asks nobody.
async fn ask(host: &Arc<Host>, op: Op) -> Result<Reply> {
    host.handle_as(&asks_nobody(), op).await
}

fn unexpected() -> Error {
    Error::internal("the host answered with something else")
}

/// `halley auth check NAME... | --all`: each account's user info with a
/// fresh access token, one line each; an account that fails is said on
/// stderr as it fails and the others are checked all the same (then the
/// exit status is 1).
async fn check(host: &Arc<Host>, names: Vec<String>, all: bool) -> Result<()> {
    let names: Vec<String> = if all {
        match ask(host, Op::ListAccounts).await? {
            Reply::Accounts { accounts } => accounts.into_iter().map(|a| a.name).collect(),
            _ => return Err(unexpected()),
        }
    } else {
        names
    };
    let mut failed = Vec::new();
    for name in &names {
        let info = match ask(host, Op::CheckAccount { name: name.clone() }).await {
            Ok(Reply::AccountUserInfo { userinfo, .. }) => Ok(userinfo),
            Ok(_) => Err(unexpected()),
            Err(e) => Err(e),
        };
        match info {
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

async fn open(data_dir: Option<&Path>, browser: BrowserSettings) -> Result<Arc<Host>> {
    let dir = DataDir::resolve(data_dir)?;
    Host::open(dir, browser).await
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

/// The checked request as the host's `SignInAccount`.
fn sign_in_op(request: ConnectRequest) -> Op {
    let ConnectRequest { provider, issuer, client, scopes, timeout } = request;
    let (client_id, client_secret) = match client {
        Some(c) => (Some(c.client_id), c.client_secret.map(|s| s.expose().to_owned())),
        None => (None, None),
    };
    let timeout_secs = u32::try_from(timeout.as_secs()).unwrap_or(u32::MAX);
    Op::SignInAccount { provider: provider.name().to_owned(), issuer, client_id, client_secret, scopes, timeout_secs }
}

/// `halley auth connect`: the host's `SignInAccount` (the user asked
/// first, on this terminal unless `--yes`), its sign-in page printed when
/// the host has it and opened in the managed browser (`OpenSignInPage`)
/// unless `--no-browser`.
#[allow(clippy::print_stderr)]
async fn connect(host: Arc<Host>, caller: &Caller, request: ConnectRequest, no_browser: bool, json: bool) -> ExitCode {
    let mut signals = Signals::install();
    let mut events = host.subscribe();
    let flow = async {
        let signing = host.handle_as(caller, sign_in_op(request));
        tokio::pin!(signing);
        // Until the host has the sign-in page (or the sign-in failed first).
        let url = loop {
            tokio::select! {
                biased;
                event = events.recv() => match event {
                    Ok(Event::AccountSignIn { provider, url }) => {
                        eprintln!("Sign in at {provider}: {url}");
                        break url;
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return (&mut signing).await,
                },
                done = &mut signing => return done,
            }
        };
        if !no_browser {
            // The sign-in waits meanwhile: a callback is taken once this is done.
            host.handle_as(caller, Op::OpenSignInPage { url }).await?;
        }
        eprintln!("Waiting for the sign-in (the browser tab says when it is done)...");
        signing.await
    };
    let done = match signals.during(flow).await {
        Ok(done) => done,
        Err(stop) => return close_for(host.core(), stop).await,
    };
    host.close().await;
    let connected = match done {
        Ok(Reply::AccountConnected { name, provider, account, scopes_granted, scopes_missing, status }) => {
            Ok(Connected { name, provider, account, scopes_granted, scopes_missing, status })
        }
        Ok(_) => Err(unexpected()),
        Err(e) => Err(e),
    };
    match connected {
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

async fn list(host: &Arc<Host>, json: bool) -> Result<()> {
    if json {
        let Reply::AccountRecords { accounts } = ask(host, Op::ListAccountRecords).await? else {
            return Err(unexpected());
        };
        let s = serde_json::to_string_pretty(&accounts).map_err(|e| Error::internal(e.to_string()))?;
        out(&s);
        return Ok(());
    }
    let Reply::Accounts { accounts } = ask(host, Op::ListAccounts).await? else {
        return Err(unexpected());
    };
    if accounts.is_empty() {
        out("no account connected (halley auth connect --provider ...)");
    }
    for a in accounts {
        out(&format!("{}\t{}\t{}", a.name, a.status.as_str(), a.scopes_granted.join(" ")));
    }
    Ok(())
}
