//! The `halley` binary: parses the command line and hands it to `halley::cli`.

use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HALLEY_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,chromiumoxide=error,async_openai=off")),
        )
        .with_writer(std::io::stderr)
        .init();
    halley::cli::run(halley::cli::Cli::parse()).await
}
