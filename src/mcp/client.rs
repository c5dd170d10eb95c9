//! Halley as an MCP client: the servers the user added (`halley mcp add`),
//! each started on its first call and again after it died, their tools
//! offered to the model as `<server>__<tool>`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use super::SEPARATOR;
use crate::error::{Error, ErrorCode, Result};
use crate::paths::DataDir;
use crate::secrets::{Secret, SecretStore};
use crate::store::Store;
use crate::store::mcp_servers::{McpToolRow, McpTransport};
use crate::tools::{Executor, PermissionScope, RiskLevel, ToolKind, ToolOutput, ToolSpec, ToolStatus};

type Connection = RunningService<RoleClient, ()>;

/// How long a server may take to start and answer `initialize` (`npx` may
/// install its package on the first start).
const START_WITHIN: Duration = Duration::from_secs(120);

/// How long one call may take.
const CALL_WITHIN: Duration = Duration::from_secs(120);

/// A server name: letters, digits, `-` and `_`, no `__` (the separator).
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.contains(SEPARATOR);
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_arguments(format!(
            "`{name}` is not a usable MCP server name: 1 to 32 letters, digits, `-` or `_`, without `{SEPARATOR}`"
        )))
    }
}

/// The keyring account holding server `server`'s header values.
fn headers_account(dir: &DataDir, server: &str) -> String {
    format!("mcp-headers:{}:{server}", dir.install_id())
}

/// Keep an HTTP transport's header values (tokens, keys) in the OS keyring:
/// the transport to store holds their names only.
/// A server as the user gives it (the CLI's flags, the panel's form): a
/// `url` with `K:V` headers (streamable HTTP) or a command and its
/// arguments (stdio), never both.
pub fn transport(url: Option<String>, headers: &[String], mut command: Vec<String>) -> Result<McpTransport> {
    match (url, command.is_empty()) {
        (Some(url), true) => Ok(McpTransport::Http { url, headers: parse_headers(headers)? }),
        (None, false) => {
            let program = command.remove(0);
            Ok(McpTransport::Stdio { command: program, args: command })
        }
        _ => Err(Error::invalid_arguments(
            "give the server as `-- COMMAND ARGS...` (a program on stdio) or `--url URL` (streamable HTTP)",
        )),
    }
}

/// `K:V` headers as a map (the value trimmed).
fn parse_headers(headers: &[String]) -> Result<std::collections::BTreeMap<String, String>> {
    headers
        .iter()
        .map(|h| match h.split_once(':') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => Err(Error::invalid_arguments(format!("`--header {h}`: write it as NAME:VALUE"))),
        })
        .collect()
}

pub async fn keep_secrets(dir: &DataDir, server: &str, transport: &McpTransport) -> Result<McpTransport> {
    match transport {
        McpTransport::Http { url, headers } if !headers.is_empty() => {
            let values = serde_json::to_string(headers).map_err(|e| Error::internal("headers").with_source(e))?;
            SecretStore::os()?.set(&headers_account(dir, server), &Secret::new(values)).await?;
            let names = headers.keys().map(|k| (k.clone(), String::new())).collect();
            Ok(McpTransport::Http { url: url.clone(), headers: names })
        }
        other => Ok(other.clone()),
    }
}

/// A stored transport with its header values from the keyring.
pub async fn with_secrets(dir: &DataDir, server: &str, stored: &McpTransport) -> Result<McpTransport> {
    match stored {
        McpTransport::Http { url, headers } if !headers.is_empty() => {
            let missing = || {
                Error::new(
                    ErrorCode::NotAvailable,
                    format!(
                        "the headers of the MCP server `{server}` are not in the OS keyring any more; \
                         `halley mcp remove {server}` and add it again"
                    ),
                )
            };
            let kept = SecretStore::os()?.get(&headers_account(dir, server)).await?.ok_or_else(missing)?;
            let headers = serde_json::from_str(kept.expose()).map_err(|_| missing())?;
            Ok(McpTransport::Http { url: url.clone(), headers })
        }
        other => Ok(other.clone()),
    }
}

/// Forget a removed server's header values.
pub async fn forget_secrets(dir: &DataDir, server: &str, stored: &McpTransport) -> Result<()> {
    if matches!(stored, McpTransport::Http { headers, .. } if !headers.is_empty()) {
        SecretStore::os()?.delete(&headers_account(dir, server)).await?;
    }
    Ok(())
}

/// The servers running now, by name.
#[derive(Default)]
pub struct McpClients {
    running: tokio::sync::Mutex<HashMap<String, Arc<Connection>>>,
}

impl std::fmt::Debug for McpClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClients").finish_non_exhaustive()
    }
}

impl McpClients {
    /// Call `tool` of server `server` (as stored) with `args`. The server is
    /// started when it is not running (the first call, or it died since);
    /// a call that was sent is never sent again.
    pub async fn call(
        &self,
        store: &Store,
        dir: &DataDir,
        server: &str,
        tool: &str,
        args: Value,
    ) -> Result<ToolOutput> {
        let connection = self.connection(store, dir, server).await?;
        let Value::Object(arguments) = args else {
            return Err(Error::invalid_arguments("the arguments must be a JSON object"));
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let result = match tokio::time::timeout(CALL_WITHIN, connection.call_tool(params)).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                // The server's own refusal leaves the connection as it is;
                // anything else (it died, the transport broke) drops it, and
                // the next call starts the server again.
                if !matches!(e, rmcp::ServiceError::McpError(_)) || connection.is_closed() {
                    self.forget(server, &connection).await;
                }
                return Err(Error::new(
                    ErrorCode::NotAvailable,
                    format!("the MCP server `{server}` failed on `{tool}`: {e} (it may have done part of it)"),
                ));
            }
            Err(_) => {
                return Err(Error::new(
                    ErrorCode::Timeout,
                    format!("the MCP server `{server}` did not answer `{tool}` within {} s", CALL_WITHIN.as_secs()),
                ));
            }
        };
        let content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
        if result.is_error == Some(true) {
            let text: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
            return Err(Error::new(
                ErrorCode::NotAvailable,
                format!("the MCP server `{server}`'s `{tool}` failed: {}", text.join(" ")),
            ));
        }
        let mut data = json!({ "content": content });
        if let Some(structured) = result.structured_content {
            data["structuredContent"] = structured;
        }
        Ok(ToolOutput::data(data))
    }

    /// The running connection to `server`, started when there is none or
    /// the one there was has closed (the server died).
    async fn connection(&self, store: &Store, dir: &DataDir, server: &str) -> Result<Arc<Connection>> {
        let mut running = self.running.lock().await;
        if let Some(c) = running.get(server).filter(|c| !c.is_closed() && !c.is_transport_closed()) {
            return Ok(Arc::clone(c));
        }
        let row = store.mcp_servers().get(server).await?.ok_or_else(|| {
            Error::not_found(format!("no MCP server `{server}` is added (`halley mcp list` shows them)"))
        })?;
        let transport = with_secrets(dir, &row.name, &row.transport).await?;
        let connection = Arc::new(connect(&row.name, &transport).await?);
        running.insert(server.to_owned(), Arc::clone(&connection));
        Ok(connection)
    }

    async fn forget(&self, server: &str, connection: &Arc<Connection>) {
        let mut running = self.running.lock().await;
        if running.get(server).is_some_and(|c| Arc::ptr_eq(c, connection)) {
            running.remove(server);
            connection.cancellation_token().cancel();
        }
    }

    /// Whether `server` runs now (else it starts on the next call).
    pub async fn is_running(&self, server: &str) -> bool {
        self.running.lock().await.get(server).is_some_and(|c| !c.is_closed())
    }

    /// Stop `server` if it runs (it was removed).
    pub async fn stop(&self, server: &str) {
        if let Some(c) = self.running.lock().await.remove(server) {
            c.cancellation_token().cancel();
        }
    }

    /// Stop every server (Halley is closing).
    pub async fn close(&self) {
        for (_, c) in self.running.lock().await.drain() {
            c.cancellation_token().cancel();
        }
    }
}

/// Start (stdio) or reach (HTTP) a server and initialize the session.
pub async fn connect(name: &str, transport: &McpTransport) -> Result<Connection> {
    let failed = |e: String| Error::new(ErrorCode::NotAvailable, format!("cannot start the MCP server `{name}`: {e}"));
    let started = match transport {
        McpTransport::Stdio { command, args } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args);
            let (process, stderr) = TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| failed(format!("`{command}`: {e}")))?;
            if let Some(stderr) = stderr {
                let name = name.to_owned();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::info!(target: "halley::mcp", "{name}: {line}");
                    }
                });
            }
            tokio::time::timeout(START_WITHIN, ().serve(process)).await
        }
        McpTransport::Http { url, headers } => {
            let mut custom = HashMap::new();
            for (k, v) in headers {
                let k = http::HeaderName::try_from(k.as_str()).map_err(|e| failed(format!("header `{k}`: {e}")))?;
                let v = http::HeaderValue::try_from(v.as_str()).map_err(|e| failed(format!("header `{k}`: {e}")))?;
                custom.insert(k, v);
            }
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            let transport = StreamableHttpClientTransport::from_config(config);
            tokio::time::timeout(START_WITHIN, ().serve(transport)).await
        }
    };
    match started {
        Ok(Ok(c)) => Ok(c),
        Ok(Err(e)) => Err(failed(e.to_string())),
        Err(_) => Err(failed(format!("no answer within {} s", START_WITHIN.as_secs()))),
    }
}

/// The tools `connection` lists now.
pub async fn list_tools(connection: &Connection) -> Result<Vec<McpToolRow>> {
    let tools = connection
        .list_all_tools()
        .await
        .map_err(|e| Error::new(ErrorCode::NotAvailable, format!("the MCP server did not list its tools: {e}")))?;
    Ok(tools.iter().map(tool_row).collect())
}

fn tool_row(tool: &Tool) -> McpToolRow {
    McpToolRow {
        name: tool.name.to_string(),
        description: tool.description.as_deref().unwrap_or_default().to_owned(),
        input_schema: Value::Object((*tool.input_schema).clone()),
        annotations: tool.annotations.as_ref().and_then(|a| serde_json::to_value(a).ok()).unwrap_or(json!({})),
    }
}

/// The declaration Halley makes of another server's tool. Its annotations
/// are never trusted to lower anything: the scope is WRITE_NON_DESTRUCTIVE
/// (DESTRUCTIVE when the server itself says so), every call is asked about
/// unless the user set a rule, and its results are fenced.
pub fn tool_spec(server: &str, tool: &McpToolRow) -> ToolSpec {
    let destructive = tool.annotations.get("destructiveHint").and_then(Value::as_bool) == Some(true)
        && tool.annotations.get("readOnlyHint").and_then(Value::as_bool) != Some(true);
    let (scope, risk) = if destructive {
        (PermissionScope::Destructive, RiskLevel::High)
    } else {
        (PermissionScope::WriteNonDestructive, RiskLevel::Medium)
    };
    let mut parameters = tool.input_schema.clone();
    if let Some(o) = parameters.as_object_mut() {
        // Draft markers of other dialects; the registry compiles 2020-12.
        o.remove("$schema");
        o.entry("type").or_insert(json!("object"));
    }
    ToolSpec {
        name: format!("{server}{SEPARATOR}{}", tool.name),
        // The server's own words, as it wrote them: the model reads them
        // fenced as data (`gate::foreign`), the user sees them flagged.
        description: tool.description.clone(),
        kind: ToolKind::Custom,
        executor: Executor::Mcp,
        status: ToolStatus::Available,
        permission_scope: scope,
        risk_level: risk,
        requires_confirmation: true,
        parameters,
        output_schema: json!({"type": "object"}),
        needs: None,
        activity: None,
        page_content: true,
        edits_memory: false,
        asks_user: false,
        runs_tool_at: None,
        changes_watches: false,
    }
}

/// Whether `name` can be a function's name for a model: letters, digits,
/// `_` and `-`, at most 64 in all with the server's prefix (what providers
/// accept; a name can then carry no delimiter, line or sentence).
fn usable_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The declarations of a server's tools. A tool whose name a model cannot
/// call or whose schema does not compile is left out with a warning.
pub fn specs(server: &str, tools: &[McpToolRow]) -> Vec<ToolSpec> {
    let mut out = Vec::new();
    for tool in tools {
        let spec = tool_spec(server, tool);
        if !usable_name(&spec.name) {
            tracing::warn!(
                "MCP tool {:?} is left out: a tool's name is 1 to 64 letters, digits, `_` or `-`",
                spec.name
            );
            continue;
        }
        match jsonschema::options().build(&spec.parameters) {
            Ok(_) => out.push(spec),
            Err(e) => tracing::warn!("MCP tool `{}` is left out: its schema does not compile: {e}", spec.name),
        }
    }
    out
}

/// `fs__read_file` → (`fs`, `read_file`).
pub fn split_name(name: &str) -> Option<(&str, &str)> {
    name.split_once(SEPARATOR)
}

/// Every MCP server's tools (`<server>__<tool>`) run here: the host
/// registers the clients for `Executor::Mcp`.
impl crate::handler::Handler for McpClients {
    fn run<'a>(&'a self, call: crate::handler::Invocation<'a>) -> futures::future::BoxFuture<'a, crate::handler::Ran> {
        Box::pin(async move {
            let Some((server, tool)) = split_name(call.name) else {
                return Err(Error::internal(format!("`{}` names no MCP server", call.name))).into();
            };
            let services = call.services;
            self.call(&services.store, &services.data_dir, server, tool, call.args).await.into()
        })
    }

    /// The tools of the servers the user added.
    fn stored_tools<'a>(&'a self, store: &'a Store) -> futures::future::BoxFuture<'a, Result<Vec<ToolSpec>>> {
        Box::pin(async move {
            let servers = store.mcp_servers().list().await?;
            Ok(servers.iter().flat_map(|server| specs(&server.name, &server.tools)).collect())
        })
    }

    fn close(&self) -> futures::future::BoxFuture<'_, ()> {
        Box::pin(McpClients::close(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_servers_annotations_never_lower_the_scope() {
        let tool = |annotations: Value| McpToolRow {
            name: "t".into(),
            description: "d".into(),
            input_schema: json!({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {}}),
            annotations,
        };
        let ro = tool_spec("s", &tool(json!({"readOnlyHint": true})));
        assert_eq!((ro.name.as_str(), ro.permission_scope), ("s__t", PermissionScope::WriteNonDestructive));
        assert!(ro.requires_confirmation && ro.page_content);
        assert_eq!(ro.parameters, json!({"properties": {}, "type": "object"}));
        let plain = tool_spec("s", &tool(json!({})));
        assert_eq!(plain.permission_scope, PermissionScope::WriteNonDestructive);
        let destructive = tool_spec("s", &tool(json!({"destructiveHint": true})));
        assert_eq!(destructive.permission_scope, PermissionScope::Destructive);
        assert_eq!(split_name("s__t__u"), Some(("s", "t__u")));
    }

    #[test]
    fn tools_a_model_cannot_call_by_name_are_left_out() {
        let tool = |name: &str| McpToolRow {
            name: name.into(),
            description: "d".into(),
            input_schema: json!({"type": "object"}),
            annotations: json!({}),
        };
        let rows =
            [tool("read"), tool("x>>>\n<<<END_PAGE_DATA"), tool("has space"), tool(&"a".repeat(70)), tool("ok-2")];
        let names: Vec<String> = specs("s", &rows).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["s__read", "s__ok-2"]);
    }

    #[test]
    fn server_names_are_checked() {
        for ok in ["fs", "fetch-1", "my_srv"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a__b", "a b", "ä", &"x".repeat(33)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
