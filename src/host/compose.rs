//! The composition root: the host builds `Core` with every handler Halley
//! has. Each module that runs tools exports its handlers; this is the one
//! place that names them all.

use std::sync::Arc;

use crate::core::{BrowserSettings, Core};
use crate::error::Result;
use crate::handler::{Handler, Handlers};
use crate::mcp::client::McpClients;
use crate::paths::DataDir;
use crate::tools::{Executor, Registry};

/// Every handler: the built-ins and browser tools, the watch tools, web
/// search, the skills, and the MCP servers' tools (client tools are the
/// core's own: `Core::client_calls`).
pub fn handlers() -> Result<Handlers> {
    let mut handlers = Handlers::new();
    handlers.extend(crate::builtin::handlers())?;
    handlers.extend(crate::watch::tools::handlers())?;
    handlers.extend(crate::search::handlers())?;
    handlers.extend(crate::skills::handlers())?;
    handlers.add_executor(Executor::Mcp, Arc::new(McpClients::default()) as Arc<dyn Handler>);
    Ok(handlers)
}

/// Open the data directory, the store and the built-in registry, with
/// every handler.
pub async fn open_core(data_dir: DataDir) -> Result<Core> {
    open_core_with(data_dir, Registry::builtin()?).await
}

/// [`open_core`] with another registry.
pub async fn open_core_with(data_dir: DataDir, registry: Registry) -> Result<Core> {
    open_core_full(data_dir, registry, BrowserSettings::default()).await
}

/// [`open_core`] with another registry and explicit browser settings
/// (`--headless`, `--chromium`, `--cdp-url`).
pub async fn open_core_full(data_dir: DataDir, registry: Registry, browser: BrowserSettings) -> Result<Core> {
    Core::open(data_dir, registry, browser, handlers()?).await
}

/// The built-in registry plus every tool kept in `store` (registered
/// blueprints, the MCP servers' tools), without opening a core.
pub async fn stored_registry(store: &crate::store::Store) -> Result<Registry> {
    crate::core::with_stored(Registry::builtin()?, store, &handlers()?).await
}
