//! Client-executed tools over the API: a client application listens for
//! the calls of the tools it registered and posts their results back
//! ([`crate::builtin::client`] holds the calls).
//!
//! A client is the API token plus the id it gives itself in the
//! `X-Halley-Client` header when it registers (letters, digits, `-`, `_`,
//! `.`; none: `default`). It listens on `GET /api/v1/clients/{id}/events`
//! (server-sent events, one `tool_call_message` per `data:` line; the calls
//! still waiting come first, so a client that reconnects gets them again)
//! and answers with `POST /api/v1/tool_results`.

use std::convert::Infallible;

use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event as Sse, KeepAlive};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::routes::Body;
use super::{Api, ApiError};
use crate::builtin::client::{ClientCall, DEFAULT_CLIENT};
use crate::error::ErrorCode;
use crate::protocol::{Op, Reply};

/// The header a client names itself with.
pub const CLIENT_HEADER: &str = "x-halley-client";

pub(super) fn routes() -> Router<Api> {
    Router::new()
        .route("/api/v1/clients/{client}/events", get(client_events))
        .route("/api/v1/tool_results", post(tool_result))
}

/// The client a request comes from: its `X-Halley-Client` (none:
/// `default`). A malformed id is refused.
pub(super) fn client_key(headers: &HeaderMap) -> Result<String, ApiError> {
    match headers.get(CLIENT_HEADER) {
        None => Ok(DEFAULT_CLIENT.to_owned()),
        Some(value) => {
            let id = value.to_str().unwrap_or_default();
            checked_client(id)
        }
    }
}

fn checked_client(id: &str) -> Result<String, ApiError> {
    let fine = !id.is_empty()
        && id.len() <= 64
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if fine {
        Ok(id.to_owned())
    } else {
        Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidArguments,
            format!("client id {id:?} is not valid: 1 to 64 letters, digits, `-`, `_` or `.`"),
        ))
    }
}

/// `GET /api/v1/clients/{client}/events`: the calls of this client's
/// tools, as they come (those already waiting first). Open as long as the
/// client listens: a call made while no stream is open fails at once.
async fn client_events(State(api): State<Api>, Path(client): Path<String>) -> Result<Response, ApiError> {
    let client = checked_client(&client)?;
    let listener = api.host.client_calls().listen(&client);
    let waiting: std::collections::VecDeque<ClientCall> = listener.waiting.clone().into();
    let stream = futures::stream::unfold((listener, waiting), |(mut listener, mut waiting)| async move {
        let call = match waiting.pop_front() {
            Some(call) => call,
            None => listener.next().await?,
        };
        let data = serde_json::to_string(&call).unwrap_or_else(|_| "{}".to_owned());
        Some((Ok::<_, Infallible>(Sse::default().data(data)), (listener, waiting)))
    });
    let mut response = axum::response::Sse::new(stream).keep_alive(KeepAlive::default()).into_response();
    // Said outright: clients that guess (Python's requests) would read
    // Vietnamese arguments as Latin-1.
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream; charset=utf-8"));
    Ok(response)
}

/// The body of `POST /api/v1/tool_results`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ResultBody {
    /// The `tool_call_id` of the `tool_call_message`.
    pub tool_call_id: String,
    /// What the function returned (any JSON, `null` included).
    #[serde(default, deserialize_with = "present")]
    pub result: Option<Value>,
    /// Or: why it failed (a message for the model).
    #[serde(default)]
    pub error: Option<String>,
    /// The result holds secrets (a card number, a one-time password): its
    /// values (strings, numbers; at most 256) are kept in Halley's memory
    /// only, for the call's run and at most 1 h, and the model, the
    /// database, traces and the panel get placeholders
    /// `{{secret.<tool_call_id>.<path>}}` instead, which `browser_type`
    /// fills in after the gate. Not with `error` (400).
    #[serde(default)]
    pub sensitive: bool,
}

/// `POST /api/v1/tool_results`: a client's answer to a call. 404 for a
/// call nobody made, 400 for one already answered (or timed out): an
/// answer is applied once.
async fn tool_result(State(api): State<Api>, Body(body): Body<ResultBody>) -> Result<Json<Reply>, ApiError> {
    let op = Op::AnswerClientCall {
        tool_call_id: body.tool_call_id,
        result: body.result,
        error: body.error,
        sensitive: body.sensitive,
    };
    Ok(Json(api.host.handle(op).await?))
}

/// A field that is present, even as `null`, is `Some` (an absent one,
/// with `#[serde(default)]`, is `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}
