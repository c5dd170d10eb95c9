//! `halley mcp`: Halley's tools for MCP clients (`serve`, on stdio), and
//! other MCP servers' tools for Halley's model (`add`, `list`, `remove`:
//! a host's `AttachMcpServer`, `ListMcpServers`, `ListMcpServerRecords`,
//! `RemoveMcpServer`).

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;

use super::signals::{Signals, close_for};
use super::tools::{asks_nobody, print_json};
use super::{EXIT_FAILURE, EXIT_USAGE, exit_code, fail, out, warn};
use crate::api::mcp_server::McpServer;
use crate::core::BrowserSettings;
use crate::error::Error;
use crate::host::Host;
use crate::paths::DataDir;
use crate::protocol::{ForeignToolView, Op, Reply};

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

/// Serve on stdio until the client closes standard input (the browser is
/// closed, status 0) or a signal comes (what an MCP client sends to end a
/// stdio server: the calls in flight are dropped, the browser is closed,
/// and the status is the signal's).
async fn serve(data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let mut signals = Signals::install();
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let host = match Host::open(dir, browser).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let served = match signals.during(McpServer::new(std::sync::Arc::clone(&host)).serve_stdio()).await {
        Ok(served) => served,
        Err(stop) => return close_for(host.core(), stop).await,
    };
    host.close().await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

/// Open a host over the data directory, carry out `op` (it asks nobody),
/// close it.
async fn ask(data_dir: Option<&Path>, op: Op) -> Result<Reply, Error> {
    let dir = DataDir::resolve(data_dir)?;
    let host = Host::open(dir, BrowserSettings::default()).await?;
    let done = host.handle_as(&asks_nobody(), op).await;
    host.close().await;
    done
}

fn unexpected() -> Error {
    Error::internal("the host answered with something else")
}

async fn add(
    data_dir: Option<&Path>,
    name: &str,
    url: Option<String>,
    headers: &[String],
    command: Vec<String>,
) -> ExitCode {
    // Checked before the data directory is touched: bad input writes nothing.
    if let Err(e) = crate::mcp::client::transport(url.clone(), headers, command.clone()) {
        return fail(&e, EXIT_USAGE);
    }
    let op = Op::AttachMcpServer { name: name.to_owned(), url, headers: headers.to_vec(), command };
    match ask(data_dir, op).await {
        Ok(Reply::McpServerAttached { tools, described, .. }) => {
            out(&format!("added MCP server `{name}` with {} tools: {}", tools.len(), tools.join(", ")));
            for tool in &described {
                out(&format!("  {}", tool_line(tool)));
            }
            for line in warnings(&described) {
                warn(&line);
            }
            ExitCode::SUCCESS
        }
        Ok(_) => fail(&unexpected(), EXIT_FAILURE),
        Err(e) => fail(&e, exit_code(&e)),
    }
}

async fn list(data_dir: Option<&Path>, json: bool) -> ExitCode {
    if json {
        return match ask(data_dir, Op::ListMcpServerRecords).await {
            Ok(Reply::McpServerRecords { servers }) => print_json(&servers),
            Ok(_) => fail(&unexpected(), EXIT_FAILURE),
            Err(e) => fail(&e, EXIT_FAILURE),
        };
    }
    let servers = match ask(data_dir, Op::ListMcpServers).await {
        Ok(Reply::McpServers { servers }) => servers,
        Ok(_) => return fail(&unexpected(), EXIT_FAILURE),
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if servers.is_empty() {
        out("no MCP servers attached (`halley mcp add NAME -- COMMAND ARGS...`)");
    }
    for s in &servers {
        let how = if s.header_names.is_empty() {
            format!("{}: {}", s.transport, s.target)
        } else {
            format!("{}: {} (headers: {})", s.transport, s.target, s.header_names.join(", "))
        };
        out(&format!("{}  {}  ({} tools)", s.name, how.trim_end(), s.tools.len()));
        for t in &s.described {
            out(&format!("  {}", tool_line(t)));
        }
        for line in warnings(&s.described) {
            out(&format!("  warning: {line}"));
        }
    }
    ExitCode::SUCCESS
}

/// `server__tool: the first line of the server's description` (cut).
fn tool_line(tool: &ForeignToolView) -> String {
    let first = tool.description.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let first: String = if first.chars().count() > 100 {
        format!("{}…", first.chars().take(100).collect::<String>())
    } else {
        first.to_owned()
    };
    if first.is_empty() { tool.name.clone() } else { format!("{}: {first}", tool.name) }
}

/// One warning per line of a server's words that addresses the assistant.
pub(super) fn warnings(described: &[ForeignToolView]) -> Vec<String> {
    described
        .iter()
        .flat_map(|t| {
            t.flagged.iter().map(move |f| {
                if f.place == "name" {
                    return format!(
                        "the server's name for the tool `{}` addresses the assistant, as a prompt injection does; \
                         Halley does not offer that tool to the model",
                        t.name
                    );
                }
                let place = if f.place == "description" { String::new() } else { format!(" ({})", f.place) };
                format!(
                    "the server's description of `{}`{place} addresses the assistant, as a prompt injection does; \
                     Halley withholds that line from the model: {:?}",
                    t.name, f.line
                )
            })
        })
        .collect()
}

async fn remove(data_dir: Option<&Path>, name: &str) -> ExitCode {
    match ask(data_dir, Op::RemoveMcpServer { name: name.to_owned() }).await {
        Ok(_) => {
            out(&format!("removed MCP server `{name}`"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, exit_code(&e)),
    }
}
