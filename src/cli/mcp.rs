//! `halley mcp`: Halley's tools for MCP clients (`serve`, on stdio), and
//! other MCP servers' tools for Halley's model (`add`, `list`, `remove`).

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;

use super::tools::{open_core, print_json};
use super::{EXIT_FAILURE, EXIT_USAGE, exit_code, fail, out};
use crate::api::mcp_server::McpServer;
use crate::core::{BrowserSettings, Core};
use crate::error::Error;
use crate::host::Host;
use crate::paths::DataDir;
use crate::store::mcp_servers::McpTransport;

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Serve Halley's tools to an MCP client on standard input and output.
    /// Every call passes the gate; a question goes to the client as an
    /// elicitation, and is refused when the client cannot ask.
    Serve,
    /// Attach an MCP server: `halley mcp add NAME -- COMMAND ARGS...` (a
    /// program on stdio) or `halley mcp add NAME --url URL [--header K:V]`
    /// (streamable HTTP). Its tools are offered to the model as NAME__TOOL.
    Add {
        /// Letters, digits, `-` and `_`.
        name: String,
        /// The server's streamable HTTP endpoint.
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// A header sent with every HTTP request (`Authorization: Bearer x`).
        #[arg(long = "header", value_name = "K:V", requires = "url")]
        headers: Vec<String>,
        /// The program and its arguments (after `--`).
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// The MCP servers attached, with their tools.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Detach an MCP server (its tools go with it).
    Remove { name: String },
}

pub async fn run(cmd: McpCommand, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    match cmd {
        McpCommand::Serve => serve(data_dir, browser).await,
        McpCommand::Add { name, url, headers, command } => add(data_dir, &name, url, &headers, command).await,
        McpCommand::List { json } => list(data_dir, json).await,
        McpCommand::Remove { name } => remove(data_dir, &name).await,
    }
}

async fn serve(data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let host = match Host::open(dir, browser).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let served = McpServer::new(std::sync::Arc::clone(&host)).serve_stdio().await;
    host.close().await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

/// Open the core, do `work` with it, close it.
async fn with_core<T>(data_dir: Option<&Path>, work: impl AsyncFnOnce(&Core) -> Result<T, Error>) -> Result<T, Error> {
    let core = open_core(data_dir).await?;
    let done = work(&core).await;
    core.close().await;
    done
}

async fn add(
    data_dir: Option<&Path>,
    name: &str,
    url: Option<String>,
    headers: &[String],
    command: Vec<String>,
) -> ExitCode {
    let transport = match crate::mcp::client::transport(url, headers, command) {
        Ok(t) => t,
        Err(e) => return fail(&e, EXIT_USAGE),
    };
    match with_core(data_dir, async |core| core.add_mcp_server(name, &transport).await).await {
        Ok(row) => {
            let names: Vec<String> = row.tools.iter().map(|t| format!("{name}__{}", t.name)).collect();
            out(&format!("added MCP server `{name}` with {} tools: {}", names.len(), names.join(", ")));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, exit_code(&e)),
    }
}

async fn list(data_dir: Option<&Path>, json: bool) -> ExitCode {
    let servers = match with_core(data_dir, async |core| core.store().mcp_servers().list().await).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if json {
        return print_json(&servers);
    }
    if servers.is_empty() {
        out("no MCP servers attached (`halley mcp add NAME -- COMMAND ARGS...`)");
    }
    for s in &servers {
        let how = match &s.transport {
            McpTransport::Stdio { command, args } => format!("stdio: {command} {}", args.join(" ")),
            McpTransport::Http { url, headers } => {
                let names: Vec<&str> = headers.keys().map(String::as_str).collect();
                if names.is_empty() {
                    format!("http: {url}")
                } else {
                    format!("http: {url} (headers: {})", names.join(", "))
                }
            }
        };
        out(&format!("{}  {}  ({} tools)", s.name, how.trim_end(), s.tools.len()));
        for t in &s.tools {
            out(&format!("  {}__{}", s.name, t.name));
        }
    }
    ExitCode::SUCCESS
}

async fn remove(data_dir: Option<&Path>, name: &str) -> ExitCode {
    match with_core(data_dir, async |core| core.remove_mcp_server(name).await).await {
        Ok(()) => {
            out(&format!("removed MCP server `{name}`"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, exit_code(&e)),
    }
}
