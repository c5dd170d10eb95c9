//! Adding and removing the MCP servers whose tools Halley offers: the
//! servers run through the `McpClients` handler the host registered for
//! `Executor::Mcp`; adding one keeps it and swaps its tools into the
//! registry.

use crate::core::Core;
use crate::error::{Error, Result};
use crate::mcp::client::{self, McpClients};
use crate::tools::{Executor, Registry, ToolSpec};

/// The MCP clients the host registered (none when the core was built
/// without them).
fn clients(core: &Core) -> Option<&McpClients> {
    core.handlers().executor_as::<McpClients>(Executor::Mcp)
}

/// Whether `spec` is a tool of the MCP server `server`.
fn owned_by(spec: &ToolSpec, server: &str) -> bool {
    spec.executor == Executor::Mcp && client::split_name(&spec.name).is_some_and(|(s, _)| s == server)
}

impl Core {
    /// Attach an MCP server: start it, list its tools, keep both, and offer
    /// the tools (`<name>__<tool>`) from every run's next turn. Nothing is
    /// kept when the server cannot be started or listed.
    pub async fn add_mcp_server(
        &self,
        name: &str,
        transport: &crate::store::mcp_servers::McpTransport,
    ) -> Result<crate::store::mcp_servers::McpServerRow> {
        client::check_name(name)?;
        if self.services().store.mcp_servers().get(name).await?.is_some() {
            return Err(Error::invalid_arguments(format!(
                "an MCP server named `{name}` is already added; `halley mcp remove {name}` first"
            )));
        }
        let connection = client::connect(name, transport).await?;
        let tools = client::list_tools(&connection).await;
        connection.cancellation_token().cancel();
        let tools = tools?;
        let specs = client::specs(name, &tools);
        let kept = |now: &Registry| now.list().filter(|t| !owned_by(t, name)).cloned().collect::<Vec<_>>();
        // Checked before it is stored: the names must not clash with the rest.
        Registry::new(kept(&self.registry()))?.with_custom(specs.clone())?;
        let stored = client::keep_secrets(&self.services().data_dir, name, transport).await?;
        let row = self.services().store.mcp_servers().add(name, &stored, &tools).await?;
        self.change_registry(|now| Registry::new(kept(now))?.with_custom(specs))?;
        Ok(row)
    }

    /// Whether the MCP server `name` runs now (servers start on demand).
    pub async fn mcp_server_running(&self, name: &str) -> bool {
        match clients(self) {
            Some(clients) => clients.is_running(name).await,
            None => false,
        }
    }

    /// Detach an MCP server: stop it and forget it and its tools.
    pub async fn remove_mcp_server(&self, name: &str) -> Result<()> {
        let Some(row) = self.services().store.mcp_servers().get(name).await? else {
            return Err(Error::not_found(format!("no MCP server `{name}` is added (`halley mcp list` shows them)")));
        };
        self.services().store.mcp_servers().delete(name).await?;
        if let Err(e) = client::forget_secrets(&self.services().data_dir, name, &row.transport).await {
            tracing::warn!("the headers of the MCP server `{name}` stay in the keyring: {}", e.message());
        }
        if let Some(clients) = clients(self) {
            clients.stop(name).await;
        }
        self.change_registry(|now| Registry::new(now.list().filter(|t| !owned_by(t, name)).cloned().collect()))
    }
}
