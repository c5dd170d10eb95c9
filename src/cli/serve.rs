//! `halley serve` (the local API, without the desktop app) and
//! `halley api token` (the API's bearer token).

use std::path::Path;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::signals::Signals;
use super::{EXIT_FAILURE, exit_code, fail, out};
use crate::api;
use crate::core::BrowserSettings;
use crate::host::Host;
use crate::paths::DataDir;
use crate::secrets::SecretStore;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port on 127.0.0.1.
    #[arg(long, default_value_t = api::DEFAULT_PORT)]
    pub port: u16,
}

#[derive(Debug, Subcommand)]
pub enum ApiCommand {
    /// Print the local API's bearer token (made on first use, kept in the OS keyring).
    Token {
        /// Replace it with a new one (clients holding the old one are refused).
        #[arg(long)]
        rotate: bool,
    },
}

/// Serve the local API until a signal; the runs it starts use the saved
/// model settings.
#[allow(clippy::print_stderr)]
pub async fn serve(args: ServeArgs, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let mut signals = Signals::install();
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let token = match SecretStore::os() {
        Ok(secrets) => crate::secrets::token::get_or_create(&secrets, &dir).await,
        Err(e) => Err(e),
    };
    let token = match token {
        Ok(t) => t,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let host = match Host::open(dir.clone(), browser).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let mut server = match api::serve(std::sync::Arc::clone(&host), args.port, token.into_exposed()).await {
        Ok(s) => s,
        Err(e) => {
            host.close().await;
            return fail(&e, exit_code(&e));
        }
    };
    // `halley api token --rotate` from another terminal takes effect here.
    server.follow_keyring(dir);
    eprintln!("halley: the local API listens on http://{} (token: `halley api token`)", server.addr());
    // A long-lived host checks the due watches, like the desktop app.
    let _watches = host.start_watch_scheduler(crate::host::watches::DEFAULT_TICK);
    // And embeds the archival passages waiting for the embedder.
    let _embedder = host.start_embedder(crate::host::memory::EMBED_TICK);
    let stop = signals.recv().await;
    eprintln!("\nhalley: {}: stopping the runs and closing the browser", stop.name());
    server.stop().await;
    if tokio::time::timeout(CLOSE_LIMIT, host.close()).await.is_err() {
        eprintln!("halley: the browser did not close within {} s", CLOSE_LIMIT.as_secs());
    }
    stop.exit_code()
}

/// How long closing may take after a signal.
const CLOSE_LIMIT: std::time::Duration = std::time::Duration::from_secs(15);

/// `halley api token [--rotate]`.
pub async fn api(cmd: ApiCommand, data_dir: Option<&Path>) -> ExitCode {
    let ApiCommand::Token { rotate } = cmd;
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let token = match SecretStore::os() {
        Ok(secrets) if rotate => crate::secrets::token::rotate(&secrets, &dir).await,
        Ok(secrets) => crate::secrets::token::get_or_create(&secrets, &dir).await,
        Err(e) => Err(e),
    };
    match token {
        Ok(t) => {
            out(t.expose());
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}
