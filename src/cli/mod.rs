//! The `halley` command line: argument parsing and the subcommands. Exit
//! codes: 0 success, 1 a tool or runtime error, 2 a usage error (bad flags,
//! invalid JSON, unknown tool, arguments that break the tool's schema).

mod audit;
mod auth;
mod confirm;
mod mcp;
mod memory;
mod model_keys;
mod models;
mod routine;
mod rules;
mod run;
mod runs;
mod search;
mod serve;
mod signals;
mod source;
mod tools;
mod watch;

pub use confirm::ConfirmMode;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code for a tool error or a runtime failure.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code for a usage error.
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "halley",
    version,
    about = "Halley: a local-first agentic browser. Drives your own Chromium; never pays, submits, publishes or deletes without asking.",
    propagate_version = true
)]
pub struct Cli {
    /// Data directory (holds halley.db and files/). Default: $HALLEY_DATA_DIR, else the OS app-data dir.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Run the browser without a window.
    #[arg(long, global = true)]
    pub headless: bool,

    /// The browser executable (default: $HALLEY_CHROMIUM, else chromium/chrome/edge on PATH).
    #[arg(long, global = true, value_name = "PATH")]
    pub chromium: Option<PathBuf>,

    /// Attach to a running Chrome's DevTools endpoint on this machine
    /// (e.g. http://127.0.0.1:9222) instead of starting a browser.
    #[arg(long, global = true, value_name = "URL")]
    pub cdp_url: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List, inspect and call tools.
    #[command(subcommand)]
    Tools(tools::ToolsCommand),
    /// The audit trail of gate decisions, newest first.
    Audit {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
        /// How many entries.
        #[arg(long, value_name = "N", default_value_t = audit::DEFAULT_LIMIT)]
        limit: u32,
    },
    /// The gate's standing rules: always allow / ask / never, per site or tool.
    #[command(subcommand)]
    Rules(rules::RulesCommand),
    /// List the model ids the model endpoint serves (default: Ollama on this
    /// machine); `halley models key` keeps API keys in the OS keyring.
    Models(models::ModelsArgs),
    /// Do a task: the model drives the tools (every call gated), the answer streams.
    Run(run::RunArgs),
    /// A conversation: one task per line, the answers stream; resumable.
    Chat(run::AgentOpts),
    /// The agent's memory: core blocks (always in the prompt), their history, archival passages.
    #[command(subcommand)]
    Memory(memory::MemoryCommand),
    /// Memory's sources: your files (PDF, HTML, text) grouped into knowledge
    /// bases the agent searches by words and meaning, citing file and page.
    #[command(subcommand)]
    Source(source::SourceCommand),
    /// What the agent did: runs, their steps and messages.
    #[command(subcommand)]
    Runs(runs::RunsCommand),
    /// Serve the local API on 127.0.0.1 (the desktop app serves it too).
    Serve(serve::ServeArgs),
    /// The local API: its bearer token.
    #[command(subcommand)]
    Api(serve::ApiCommand),
    /// Watches: a page's price, stock or status checked on a schedule, with
    /// alerts as native notifications.
    #[command(subcommand)]
    Watch(watch::WatchCommand),
    /// MCP: serve Halley's tools to MCP clients, attach other MCP servers' tools.
    #[command(subcommand)]
    Mcp(mcp::McpCommand),
    /// OAuth accounts (Google, GitHub, Microsoft, any OpenID issuer):
    /// connect with PKCE in the browser, tokens in the OS keyring only.
    #[command(subcommand)]
    Auth(auth::AuthCommand),
    /// Where `web_search` searches: the providers' order and URLs, the Brave
    /// Search API key (OS keyring).
    #[command(subcommand)]
    Search(search::SearchCommand),
    /// Routines: a finished run kept as a plan and replayed without the
    /// model, every step still gated.
    #[command(subcommand)]
    Routine(routine::RoutineCommand),
    /// Print where Halley keeps its data.
    Paths {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

impl Cli {
    /// How the browser is obtained (the global browser flags).
    fn browser_settings(&self) -> crate::core::BrowserSettings {
        crate::core::BrowserSettings {
            chromium: self.chromium.clone(),
            headless: self.headless,
            cdp_url: self.cdp_url.clone(),
            #[cfg(feature = "bench-knobs")]
            bench_wire_off: false,
        }
    }
}

/// Run the CLI; returns the process exit code.
pub async fn run(cli: Cli) -> ExitCode {
    let browser = cli.browser_settings();
    match cli.command {
        Command::Tools(cmd) => tools::run(cmd, cli.data_dir.as_deref(), browser).await,
        Command::Audit { json, limit } => audit::run(cli.data_dir.as_deref(), json, limit).await,
        Command::Rules(cmd) => rules::run(cmd, cli.data_dir.as_deref()).await,
        Command::Models(args) => models::run(args, cli.data_dir.as_deref()).await,
        Command::Run(args) => run::run(args, cli.data_dir.as_deref(), browser).await,
        Command::Chat(opts) => run::chat(opts, cli.data_dir.as_deref(), browser).await,
        Command::Memory(cmd) => memory::run(cmd, cli.data_dir.as_deref()).await,
        Command::Source(cmd) => source::run(cmd, cli.data_dir.as_deref()).await,
        Command::Runs(cmd) => runs::run(cmd, cli.data_dir.as_deref()).await,
        Command::Serve(args) => serve::serve(args, cli.data_dir.as_deref(), browser).await,
        Command::Api(cmd) => serve::api(cmd, cli.data_dir.as_deref()).await,
        Command::Watch(cmd) => watch::run(cmd, cli.data_dir.as_deref(), browser).await,
        Command::Mcp(cmd) => mcp::run(cmd, cli.data_dir.as_deref(), browser).await,
        Command::Auth(cmd) => auth::run(cmd, cli.data_dir.as_deref(), browser).await,
        Command::Search(cmd) => search::run(cmd, cli.data_dir.as_deref()).await,
        Command::Routine(cmd) => routine::run(cmd, cli.data_dir.as_deref(), browser).await,
        Command::Paths { json } => paths(cli.data_dir.as_deref(), json),
    }
}

fn paths(flag: Option<&std::path::Path>, json: bool) -> ExitCode {
    let dir = match crate::paths::DataDir::resolve(flag) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if json {
        let v = serde_json::json!({
            "data_dir": dir.root(),
            "database": dir.db_path(),
            "files": dir.files_dir(),
        });
        out(&v.to_string());
    } else {
        out(&format!("data dir:  {}", dir.root().display()));
        out(&format!("database:  {}", dir.db_path().display()));
        out(&format!("files:     {}", dir.files_dir().display()));
    }
    ExitCode::SUCCESS
}

/// The text of `file`, or of standard input when it is `-`.
pub(crate) fn read_input(file: &str) -> std::io::Result<String> {
    if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map(|_| s)
    } else {
        std::fs::read_to_string(file)
    }
}

/// Print a line on stdout (the CLI's output channel).
#[allow(clippy::print_stdout)]
pub(crate) fn out(line: &str) {
    println!("{line}");
}

/// Print a warning on stderr (`halley: warning: ...`).
#[allow(clippy::print_stderr)]
pub(crate) fn warn(line: &str) {
    eprintln!("halley: warning: {line}");
}

/// The exit code of an error: 2 for what the user got wrong (flags,
/// arguments), else 1.
pub(crate) fn exit_code(err: &crate::error::Error) -> u8 {
    if err.code() == crate::error::ErrorCode::InvalidArguments { EXIT_USAGE } else { EXIT_FAILURE }
}

/// Print an error on stderr and return `code`.
#[allow(clippy::print_stderr)]
pub(crate) fn fail(err: &crate::error::Error, code: u8) -> ExitCode {
    let wire = err.to_wire();
    eprintln!("halley: error [{}]: {}", wire.code, wire.message);
    ExitCode::from(code)
}
