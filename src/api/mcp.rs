//! `/mcp`: Halley's tools over MCP's streamable HTTP transport
//! ([`crate::api::mcp_server`]), behind the API's guard like every route (the
//! bearer token, a loopback `Host`, no `Origin`). rmcp checks `Host` and
//! `Origin` again itself: its loopback allowlist, and every `Origin`
//! refused (`enforce_origin_validation` with an empty list).

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::Api;
use crate::api::mcp_server::McpServer;

/// The path MCP clients post to.
pub const PATH: &str = "/mcp";

pub(super) fn routes(api: &Api) -> Router<Api> {
    // One server for every session: they share the questions handed out.
    let server = McpServer::new(Arc::clone(&api.host));
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["localhost", "127.0.0.1", "::1", "[::1]"])
        .enforce_origin_validation();
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::new(LocalSessionManager::default()), config);
    Router::new().route_service(PATH, service)
}
