//! Halley as an MCP server: its tools, each call through the gate.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerInfo, Tool, ToolAnnotations,
};
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::context::{CallContext, FrontEnd};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::{ConfirmationRequest, Confirmer};
use crate::tools::catalogue::safety::ConfirmResultV1;
use crate::host::Host;
use crate::tools::{Executor, PermissionScope, ToolSpec, ToolStatus};

/// The MCP face of one [`Host`]. Cheap to clone (one per HTTP session).
#[derive(Debug, Clone)]
pub struct McpServer {
    host: Arc<Host>,
}

impl McpServer {
    pub fn new(host: Arc<Host>) -> McpServer {
        McpServer { host }
    }

    /// Serve MCP on standard input and output until the client goes.
    pub async fn serve_stdio(self) -> Result<()> {
        let running = self
            .serve(rmcp::transport::io::stdio())
            .await
            .map_err(|e| Error::internal(format!("the MCP client did not initialize: {e}")))?;
        running.waiting().await.map_err(|e| Error::internal("the MCP server stopped").with_source(e))?;
        Ok(())
    }
}

/// The tools an MCP client sees: the ones that run now, except those that
/// belong to another program (a client application's, another MCP
/// server's), which only their own front end can run.
fn offered(spec: &ToolSpec) -> bool {
    spec.status == ToolStatus::Available && matches!(spec.executor, Executor::Builtin | Executor::Implicit)
}

/// A tool as MCP lists it: the annotations follow the scope (READ_ONLY:
/// read-only; SUBMIT and above: destructive).
pub fn mcp_tool(spec: &ToolSpec) -> Tool {
    let schema = match &spec.parameters {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    let read_only = spec.permission_scope == PermissionScope::ReadOnly;
    let annotations = ToolAnnotations::from_raw(
        None,
        Some(read_only),
        (!read_only).then_some(spec.permission_scope.needs_confirmation()),
        None,
        Some(spec.page_content),
    );
    let mut tool = Tool::default();
    tool.name = spec.name.clone().into();
    tool.description = Some(spec.description.clone().into());
    tool.input_schema = Arc::new(schema);
    tool.annotations = Some(annotations);
    tool
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerInfo {
        let mut info = ServerInfo::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info.server_info = Implementation::new("halley", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Halley's browser and assistant tools. Every call passes Halley's gate: one that submits, \
             publishes, pays or deletes asks the user first."
                .into(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let registry = self.host.core().registry();
        let tools = registry.list().filter(|s| offered(s)).map(mcp_tool).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let registry = self.host.core().registry();
        let name = request.name.to_string();
        if registry.get(&name).is_some_and(|s| !offered(s)) {
            let err = Error::new(ErrorCode::NotAvailable, format!("`{name}` cannot be called over MCP"));
            return Ok(envelope(&crate::core::error_result(registry.get(&name), &err)).into());
        }
        let confirmer = Arc::new(Ask {
            peer: context.peer.clone(),
            // Halley's own dialog when the desktop app is there to show it.
            panel: self.host.has_panel().then(|| self.host.panel_confirmer()),
        });
        let cx = CallContext::new(FrontEnd::Mcp).with_confirmer(confirmer);
        let cancel = cx.cancel.clone();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let call = self.host.core().call_in(&registry, &cx, &name, args);
        // The client cancelling the request cancels the call.
        let result = tokio::select! {
            r = call => r,
            () = context.ct.cancelled() => {
                cancel.cancel();
                let err = Error::new(ErrorCode::Cancelled, "the MCP client cancelled the call");
                crate::core::error_result(registry.get(&name), &err)
            }
        };
        Ok(envelope(&result).into())
    }
}

/// A ToolResultV2 as an MCP result: the envelope as structured content
/// (and as text, for clients that read only that), `isError` on error.
fn envelope(result: &crate::tools::ToolResultV2) -> CallToolResult {
    let value = serde_json::to_value(result).unwrap_or(Value::Null);
    if result.is_ok() { CallToolResult::structured(value) } else { CallToolResult::structured_error(value) }
}

/// How long an MCP client has to answer a question.
const ELICIT_WITHIN: Duration = crate::gate::confirm::ANSWER_WITHIN;


/// The user's answer to a question, as an elicitation form.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Approval {
    /// Do it (true) or not (false).
    approve: bool,
}
rmcp::elicit_safe!(Approval);

/// A call's questions: to the MCP client as an elicitation when it can
/// answer one, else to the desktop panel, else refused with a reason.
#[derive(Debug)]
struct Ask {
    peer: Peer<RoleServer>,
    panel: Option<Arc<dyn Confirmer>>,
}

impl Ask {
    async fn ask(&self, request: &ConfirmationRequest) -> ConfirmResultV1 {
        let no = |reason: String| ConfirmResultV1 { approved: false, user_edits: Map::new(), reason };
        let mut message = format!("Halley asks before it acts: {}", request.action_summary);
        if !request.risks.is_empty() {
            message.push_str(&format!(" ({})", request.risks.join("; ")));
        }
        message.push_str(". Approve?");
        match self.peer.elicit_with_timeout::<Approval>(message, Some(ELICIT_WITHIN)).await {
            Ok(Some(a)) if a.approve => ConfirmResultV1 { approved: true, user_edits: Map::new(), reason: String::new() },
            Ok(_) | Err(ElicitationError::UserDeclined) => no("the MCP client's user declined".into()),
            Err(ElicitationError::UserCancelled) => no("the MCP client's user dismissed the question".into()),
            Err(ElicitationError::Service(rmcp::ServiceError::Timeout { .. })) => {
                no("no answer from the MCP client's user in time".into())
            }
            Err(e) => match &self.panel {
                // The client cannot be asked: Halley's own dialog asks.
                Some(panel) => panel.confirm(request).await,
                None => no(format!(
                    "it needs the user's confirmation, and this MCP client cannot ask ({e}) and Halley's \
                     desktop app is not there to ask; use a client that supports elicitation, or allow it \
                     with a rule (`halley rules add`)"
                )),
            },
        }
    }
}

impl Confirmer for Ask {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(self.ask(request))
    }

    fn answered_by(&self) -> &'static str {
        "user"
    }
}
