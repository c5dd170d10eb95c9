//! `/v1/tools/`: client tools registered from their Python source, and the
//! list of them, in Letta's `Tool` shape.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::super::routes::{Body, client_tools, stored_tool};
use super::super::{Api, ApiError};
use super::letta_error;
use crate::error::{Error, ErrorCode};
use crate::protocol::{Op, StoredToolView};

/// The body of `POST|PUT /v1/tools/` (what the SDK sends; unknown fields
/// are ignored as Letta does).
#[derive(Debug, Deserialize)]
pub(super) struct ToolBody {
    source_code: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    default_requires_approval: Option<bool>,
    #[serde(default)]
    tags: Option<Vec<String>>,
}

/// A client tool in Letta's `Tool` shape; the lines of its words that
/// address the assistant, if any, in `metadata_.halley_flagged`.
fn tool_json(tool: &StoredToolView) -> Value {
    let parameters =
        tool.spec.as_ref().map_or_else(|| json!({"type": "object", "properties": {}}), |s| s.parameters.clone());
    json!({
        "id": tool.id,
        "name": tool.name,
        "description": tool.description,
        "tool_type": "custom",
        "source_type": "python",
        "source_code": tool.source_code,
        "json_schema": {"name": tool.name, "description": tool.description, "parameters": parameters},
        "args_json_schema": null,
        "default_requires_approval": tool.requires_confirmation,
        "enable_parallel_execution": false,
        "tags": [],
        "return_char_limit": 50000,
        "metadata_": if tool.flagged.is_empty() { json!({}) } else { json!({"halley_flagged": tool.flagged}) },
    })
}

pub(super) async fn create_tool(State(api): State<Api>, Body(body): Body<ToolBody>) -> Result<Response, ApiError> {
    save_tool(&api, body, false).await
}

pub(super) async fn upsert_tool(State(api): State<Api>, Body(body): Body<ToolBody>) -> Result<Response, ApiError> {
    save_tool(&api, body, true).await
}

/// Register a tool from its source: `create` refuses a name taken (409,
/// as Letta), `upsert` replaces it.
async fn save_tool(api: &Api, body: ToolBody, upsert: bool) -> Result<Response, ApiError> {
    let _ = body.tags;
    let function = crate::tools::python::parse_first_function(&body.source_code)?;
    if !upsert && stored_tool(api, &function.name).await?.is_some() {
        return Ok(letta_error(
            StatusCode::CONFLICT,
            ErrorCode::InvalidArguments,
            format!("a tool named `{}` exists already: upsert it (PUT /v1/tools/) to replace it", function.name),
        ));
    }
    let op = Op::RegisterClientTool {
        name: function.name.clone(),
        description: body.description.unwrap_or_default(),
        source_code: body.source_code,
        requires_approval: body.default_requires_approval.unwrap_or(false),
        client: None,
        timeout_secs: None,
    };
    api.host.handle(op).await?;
    let tool = stored_tool(api, &function.name).await?.ok_or_else(|| Error::internal("the tool was not stored"))?;
    Ok(Json(tool_json(&tool)).into_response())
}

/// The paging of a Letta list: the items after the id `after`, at most
/// `limit` (the SDK pages on with the last item's id until a page is empty).
#[derive(Debug, Deserialize)]
pub(super) struct Page {
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

/// `GET /v1/tools/`: the client tools, as a list.
pub(super) async fn list_tools(
    State(api): State<Api>,
    axum::extract::Query(page): axum::extract::Query<Page>,
) -> Result<Json<Value>, ApiError> {
    let mut tools = client_tools(&api).await?;
    if let Some(after) = &page.after {
        let at = tools.iter().position(|t| &t.id == after).map_or(tools.len(), |i| i + 1);
        tools.drain(..at);
    }
    tools.truncate(page.limit.unwrap_or(usize::MAX));
    Ok(Json(tools.iter().map(tool_json).collect()))
}
