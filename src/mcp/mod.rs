//! MCP both ways, on the official Rust SDK (`rmcp`, pinned).
//!
//! - [`server`]: Halley's tools for any MCP client, on stdio (`halley mcp
//!   serve`) and as streamable HTTP at `/mcp` on the local API
//!   ([`crate::api`]: the same token, `Host` and `Origin` rules). Every
//!   call goes through the gate like the panel's; a question to the user
//!   goes to the client as an elicitation when it can answer one, else to
//!   the desktop panel, else the call is refused.
//! - [`client`]: other MCP servers' tools for Halley's model (`halley mcp
//!   add|list|remove`), offered as `<server>__<tool>`; the server starts on
//!   the first call and again after it died. Their own annotations are
//!   never trusted: the tools are at least WRITE_NON_DESTRUCTIVE, asked
//!   about unless the user set a rule, and their results are fenced.

pub mod client;

/// Between a server's name and its tool's: `fs__read_file`.
pub const SEPARATOR: &str = "__";
