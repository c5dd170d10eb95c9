//! Halley as an MCP server: its tools, each call through the gate.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use std::collections::{BTreeMap, HashMap};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, Implementation, InputRequest, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::context::FrontEnd;
use crate::error::{Error, ErrorCode, Result};
use crate::gate::{ConfirmationRequest, Confirmer};
use crate::host::{Caller, Host};
use crate::protocol::{Op, Reply};
use crate::tools::catalogue::safety::ConfirmResultV1;
use crate::tools::{Executor, PermissionScope, ToolSpec, ToolStatus};

/// The MCP face of one [`Host`]. Cheap to clone; clones share the
/// questions handed out (one clone per HTTP session or request).
#[derive(Debug, Clone)]
pub struct McpServer {
    host: Arc<Host>,
    /// Questions sent back in an input-required result, by the state handed
    /// out with them: the call (tool and arguments) each belongs to.
    pending: Arc<std::sync::Mutex<HashMap<String, String>>>,
}

impl McpServer {
    pub fn new(host: Arc<Host>) -> McpServer {
        McpServer { host, pending: Arc::default() }
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
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
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
        let tools = match self.host.handle(Op::ListTools).await {
            Ok(Reply::Tools { tools }) => tools,
            Ok(_) => Vec::new(),
            Err(e) => return Err(ErrorData::internal_error(e.message().to_owned(), None)),
        };
        let tools = tools.iter().filter(|s| offered(s)).map(mcp_tool).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let tools = match self.host.handle(Op::ListTools).await {
            Ok(Reply::Tools { tools }) => tools,
            Ok(_) => Vec::new(),
            Err(e) => return Err(ErrorData::internal_error(e.message().to_owned(), None)),
        };
        let registry = ToolsByName(tools);
        let name = request.name.to_string();
        if registry.get(&name).is_some_and(|s| !offered(s)) {
            let err = Error::new(ErrorCode::NotAvailable, format!("`{name}` cannot be called over MCP"));
            return Ok(envelope(&crate::core::error_result(registry.get(&name), &err)).into());
        }
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let fingerprint = format!("{name}\n{args}");
        // Protocol 2026-07-28 and later: no server-to-client requests; a
        // question goes back as an input-required result and the client
        // calls again with the answer (multi round-trip requests).
        let rounds = context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let answered = match (&request.request_state, &request.input_responses) {
            (Some(state), Some(responses)) => {
                // Only the question handed out, for this very call, once.
                let issued = self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(state);
                if issued.as_deref() != Some(fingerprint.as_str()) {
                    let err = Error::invalid_arguments(
                        "this answer does not belong to a question Halley asked for this call (or it was used); nothing was done",
                    );
                    return Ok(envelope(&crate::core::error_result(registry.get(&name), &err)).into());
                }
                Some(
                    responses.get(CONFIRM_KEY).map_or_else(|| no("no answer to Halley's question".into()), from_elicit),
                )
            }
            _ => None,
        };
        let can_elicit = context.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        let asked = Arc::new(std::sync::Mutex::new(None));
        let confirmer = Arc::new(Ask {
            peer: context.peer.clone(),
            // Halley's own dialog when the desktop app is there to show it.
            panel: self.host.has_panel().then(|| self.host.panel_confirmer()),
            rounds: rounds.then(|| Rounds { can_elicit, answered: answered.into(), asked: Arc::clone(&asked) }),
        });
        let caller = Caller {
            front_end: FrontEnd::Mcp,
            confirmer,
            allowed_origins: Vec::new(),
            cancel: crate::context::Cancel::new(),
        };
        let cancel = caller.cancel.clone();
        let call = async {
            match self.host.handle_as(&caller, Op::CallTool { name: name.clone(), args }).await {
                Ok(Reply::ToolResult { result }) => result,
                Ok(_) => crate::core::error_result(registry.get(&name), &Error::internal("an unexpected reply")),
                Err(e) => crate::core::error_result(registry.get(&name), &e),
            }
        };
        // The client cancelling the request cancels the call.
        let result = tokio::select! {
            r = call => r,
            () = context.ct.cancelled() => {
                cancel.cancel();
                let err = Error::new(ErrorCode::Cancelled, "the MCP client cancelled the call");
                crate::core::error_result(registry.get(&name), &err)
            }
        };
        let question = asked.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(message) = question.filter(|_| !result.is_ok()) {
            // Nothing was done: the question goes to the client, whose next
            // call carries the answer.
            let state = uuid::Uuid::new_v4().to_string();
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            // Questions never answered do not pile up.
            if pending.len() >= MAX_PENDING
                && let Some(old) = pending.keys().next().cloned()
            {
                pending.remove(&old);
            }
            pending.insert(state.clone(), fingerprint);
            drop(pending);
            let schema = ElicitationSchema::from_type::<Approval>()
                .map_err(|e| ErrorData::internal_error(format!("the question's form: {e}"), None))?;
            let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema };
            let requests =
                BTreeMap::from([(CONFIRM_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)))]);
            return Ok(InputRequiredResult::new(Some(requests), Some(state)).into());
        }
        Ok(envelope(&result).into())
    }
}

/// Questions handed out and not answered yet, at most.
const MAX_PENDING: usize = 256;

/// The key of Halley's question among a round's input requests.
const CONFIRM_KEY: &str = "halley_confirmation";

/// An elicitation's answer (`{action, content: {approve}}`) as a confirmation.
fn from_elicit(answer: &Value) -> ConfirmResultV1 {
    match serde_json::from_value::<ElicitResult>(answer.clone()) {
        Ok(r) if r.action == ElicitationAction::Accept => {
            let approve = r.content.as_ref().and_then(|c| c.get("approve")).and_then(Value::as_bool) == Some(true);
            if approve { yes() } else { no("the MCP client's user did not approve".into()) }
        }
        Ok(r) if r.action == ElicitationAction::Cancel => no("the MCP client's user dismissed the question".into()),
        Ok(_) => no("the MCP client's user declined".into()),
        Err(e) => no(format!("the MCP client's answer was malformed: {e}")),
    }
}

fn yes() -> ConfirmResultV1 {
    ConfirmResultV1 { approved: true, user_edits: Map::new(), reason: String::new() }
}

fn no(reason: String) -> ConfirmResultV1 {
    ConfirmResultV1 { approved: false, user_edits: Map::new(), reason }
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
    /// Protocol 2026-07-28 and later: the question goes back in the result.
    rounds: Option<Rounds>,
}

/// A call on a protocol of multi round-trip requests.
#[derive(Debug)]
struct Rounds {
    can_elicit: bool,
    /// The answer the client sent with this call, to the question asked
    /// before. Used once: a second question in the same call (a page that
    /// changed after the approval) is asked again.
    answered: std::sync::Mutex<Option<ConfirmResultV1>>,
    /// The question to send back (its message), when one was asked.
    asked: Arc<std::sync::Mutex<Option<String>>>,
}

/// The question as the MCP client's user reads it.
fn question(request: &ConfirmationRequest) -> String {
    let mut message = format!("Halley asks before it acts ({}): {}", request.tool, request.action_summary);
    if !request.risks.is_empty() {
        message.push_str(&format!(" ({})", request.risks.join("; ")));
    }
    message.push_str(". Approve?");
    message
}

impl Ask {
    async fn ask(&self, request: &ConfirmationRequest) -> ConfirmResultV1 {
        let cannot = |why: &str| {
            no(format!(
                "it needs the user's confirmation, and this MCP client cannot ask ({why}) and Halley's desktop \
                 app is not there to ask; use a client that supports elicitation, or allow it with a rule \
                 (`halley rules add`)"
            ))
        };
        if let Some(rounds) = &self.rounds {
            if let Some(answer) = rounds.answered.lock().unwrap_or_else(|e| e.into_inner()).take() {
                return answer;
            }
            if rounds.can_elicit {
                *rounds.asked.lock().unwrap_or_else(|e| e.into_inner()) = Some(question(request));
                return no("asked the MCP client; nothing was done yet".into());
            }
            return match &self.panel {
                Some(panel) => panel.confirm(request).await,
                None => cannot("it declared no elicitation"),
            };
        }
        match self.peer.elicit_with_timeout::<Approval>(question(request), Some(ELICIT_WITHIN)).await {
            Ok(Some(a)) if a.approve => yes(),
            Ok(_) | Err(ElicitationError::UserDeclined) => no("the MCP client's user declined".into()),
            Err(ElicitationError::UserCancelled) => no("the MCP client's user dismissed the question".into()),
            Err(ElicitationError::Service(rmcp::ServiceError::Timeout { .. })) => {
                no("no answer from the MCP client's user in time".into())
            }
            // The client cannot be asked: Halley's own dialog asks.
            Err(e) => match &self.panel {
                Some(panel) => panel.confirm(request).await,
                None => cannot(&e.to_string()),
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

/// The tools as the host lists them, looked up by name.
struct ToolsByName(Vec<crate::tools::ToolSpec>);

impl ToolsByName {
    fn get(&self, name: &str) -> Option<&crate::tools::ToolSpec> {
        self.0.iter().find(|t| t.name == name)
    }
}
