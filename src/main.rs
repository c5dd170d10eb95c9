//! The `halley` binary: parses the command line and hands it to `halley::cli`.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

/// How long the runtime waits, at exit, for blocking work still running (a
/// read of the terminal that a signal interrupted never returns by itself).
const SHUTDOWN_WAIT: Duration = Duration::from_millis(200);

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HALLEY_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,chromiumoxide=error,async_openai=off")),
        )
        .with_writer(std::io::stderr)
        .init();
    halley::crashpoint::init();
    let cli = halley::cli::Cli::parse();
    let runtime = match halley::runtime() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(halley::cli::run(cli));
    runtime.shutdown_timeout(SHUTDOWN_WAIT);
    code
}
