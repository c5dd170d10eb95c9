//! MCP servers' tools for Halley's model, on the official Rust SDK
//! (`rmcp`, pinned). [`client`]: other MCP servers' tools (`halley mcp
//! add|list|remove`), offered as `<server>__<tool>`; the server starts on
//! the first call and again after it died. Their own annotations are never
//! trusted: the tools are at least WRITE_NON_DESTRUCTIVE, asked about unless
//! the user set a rule, and their results are fenced. `McpClients` is the
//! handler of every such tool (the host registers it). Halley's own MCP
//! server is a front end: `crate::api::mcp_server`.

pub mod client;

/// Between a server's name and its tool's: `fs__read_file`.
pub const SEPARATOR: &str = "__";
