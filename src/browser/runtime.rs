//! Calls into the page runtime (`js/runtime.js`): it runs in an isolated
//! world of the tab's main frame ("halley"), so the page's scripts can
//! neither see it nor override the DOM functions it uses. The world is
//! created per document and the runtime installed into it on first use.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::CreateIsolatedWorldParams;
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, ExecutionContextId, RemoteObjectId};
use serde_json::Value;

use super::session::TabHandle;
use crate::error::{Error, ErrorCode, Result};

/// The page runtime's source.
pub(crate) const RUNTIME_JS: &str = include_str!("js/runtime.js");

const WORLD_NAME: &str = "halley";

/// The isolated world of one tab's current document.
#[derive(Debug, Default)]
pub(crate) struct World {
    context: Mutex<Option<ExecutionContextId>>,
}

impl World {
    pub fn new() -> Arc<World> {
        Arc::new(World::default())
    }

    fn get(&self) -> Option<ExecutionContextId> {
        self.context.lock().ok().and_then(|c| *c)
    }

    /// Forget the world (the document changed).
    pub fn reset(&self) {
        self.set(None);
    }

    fn set(&self, id: Option<ExecutionContextId>) {
        if let Ok(mut c) = self.context.lock() {
            *c = id;
        }
    }
}

/// Call `__halley.<func>(arg)` and return its JSON result. A result of the
/// form `{"error": {"code", "message"}}` becomes that error.
pub(crate) async fn call(tab: &TabHandle, func: &str, arg: &Value) -> Result<Value> {
    let expr = format!(
        "(() => {{ const H = globalThis.__halley; if (!H) return {{__halley_missing: true}}; return H.{func}({arg}); }})()"
    );
    let value = eval(tab, &expr, true).await?.unwrap_or(Value::Null);
    if let Some(err) = value.get("error").filter(|e| e.is_object()) {
        return Err(runtime_error(err));
    }
    Ok(value)
}

/// [`call`] in the document the runtime is in now, once: `None` when that
/// document is gone (a navigation under way or done), without following
/// the tab into the next one (an action's own navigation is left alone).
pub(crate) async fn call_here(tab: &TabHandle, func: &str, arg: &Value) -> Result<Option<Value>> {
    let Some(ctx) = tab.world.get() else { return Ok(None) };
    let expr = format!(
        "(() => {{ const H = globalThis.__halley; if (!H) return {{__halley_missing: true}}; return H.{func}({arg}); }})()"
    );
    let params = EvaluateParams::builder()
        .expression(expr)
        .context_id(ctx)
        .return_by_value(true)
        .build()
        .map_err(|e| Error::internal(format!("bad evaluate params: {e}")))?;
    let value = match tab.page.execute(params).await {
        Ok(resp) => {
            if let Some(ex) = &resp.result.exception_details {
                let detail = ex.exception.as_ref().and_then(|o| o.description.clone()).unwrap_or(ex.text.clone());
                if context_gone(&detail) {
                    return Ok(None);
                }
                return Err(Error::internal(format!("the page runtime failed: {detail}")));
            }
            resp.result.result.value.clone().unwrap_or(Value::Null)
        }
        Err(e) if context_gone(&e.to_string()) => return Ok(None),
        Err(e) => return Err(Error::new(ErrorCode::BrowserUnavailable, "the page refused a command").with_source(e)),
    };
    if value.get("__halley_missing").is_some() {
        return Ok(None);
    }
    if let Some(err) = value.get("error").filter(|e| e.is_object()) {
        return Err(runtime_error(err));
    }
    Ok(Some(value))
}

/// [`call`], plus the page's URL and title read in the same round trip
/// (a tool that reports where it read saves a second evaluation).
pub(crate) async fn call_at(tab: &TabHandle, func: &str, arg: &Value) -> Result<(Value, String, String)> {
    let expr = format!(
        "(() => {{ const H = globalThis.__halley; if (!H) return {{__halley_missing: true}}; \
         return {{r: H.{func}({arg}), url: location.href, title: document.title}}; }})()"
    );
    let mut value = eval(tab, &expr, true).await?.unwrap_or(Value::Null);
    let text = |v: &mut Value, k: &str| match v.get_mut(k).map(Value::take) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    let (url, title) = (text(&mut value, "url"), text(&mut value, "title"));
    let value = value.get_mut("r").map(Value::take).unwrap_or(Value::Null);
    if let Some(err) = value.get("error").filter(|e| e.is_object()) {
        return Err(runtime_error(err));
    }
    Ok((value, url, title))
}

/// The element a target names, as a remote object (for CDP commands that
/// take one, like `DOM.setFileInputFiles`).
pub(crate) async fn element_object(tab: &TabHandle, target: &Value) -> Result<RemoteObjectId> {
    let expr = format!(
        "(() => {{ const H = globalThis.__halley; if (!H) return {{__halley_missing: true}}; return H.element({target}); }})()"
    );
    for _ in 0..3 {
        let ctx = world(tab).await?;
        let params = EvaluateParams::builder().expression(expr.clone()).context_id(ctx).return_by_value(false).build();
        let params = params.map_err(|e| Error::internal(format!("bad evaluate params: {e}")))?;
        match tab.page.execute(params).await {
            Ok(resp) => {
                let obj = &resp.result.result;
                if let Some(id) = obj.object_id.clone()
                    && obj.subtype.as_ref().is_some_and(|s| format!("{s:?}").eq_ignore_ascii_case("node"))
                {
                    return Ok(id);
                }
                if obj.value.as_ref().and_then(|v| v.get("__halley_missing")).is_some() {
                    install(tab, ctx).await?;
                    continue;
                }
                return Err(Error::new(ErrorCode::ElementNotFound, "no element matches the target"));
            }
            Err(e) if context_gone(&e.to_string()) => {
                tab.world.set(None);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => {
                return Err(Error::new(ErrorCode::BrowserUnavailable, "the page refused a command").with_source(e));
            }
        }
    }
    Err(Error::new(ErrorCode::Timeout, "the page kept reloading; try again once it has settled"))
}

/// Evaluate an expression in the tab's Halley world (installing the
/// runtime when the document is new). Retries across navigations.
pub(crate) async fn eval(tab: &TabHandle, expr: &str, by_value: bool) -> Result<Option<Value>> {
    let mut last = String::new();
    for attempt in 0..6 {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(30 * attempt)).await;
        }
        let ctx = world(tab).await?;
        let params = EvaluateParams::builder()
            .expression(expr)
            .context_id(ctx)
            .return_by_value(by_value)
            .await_promise(true)
            .build()
            .map_err(|e| Error::internal(format!("bad evaluate params: {e}")))?;
        match tab.page.execute(params).await {
            Ok(resp) => {
                if let Some(ex) = &resp.result.exception_details {
                    let detail = ex.exception.as_ref().and_then(|o| o.description.clone()).unwrap_or(ex.text.clone());
                    if context_gone(&detail) {
                        tab.world.set(None);
                        last = detail;
                        continue;
                    }
                    return Err(Error::internal(format!("the page runtime failed: {detail}")));
                }
                let value = resp.result.result.value.clone();
                if value.as_ref().and_then(|v| v.get("__halley_missing")).is_some() {
                    install(tab, ctx).await?;
                    continue;
                }
                return Ok(value);
            }
            Err(e) => {
                let text = e.to_string();
                if context_gone(&text) {
                    tab.world.set(None);
                    last = text;
                    continue;
                }
                return Err(Error::new(ErrorCode::BrowserUnavailable, "the page refused a command").with_source(e));
            }
        }
    }
    Err(Error::new(
        ErrorCode::Timeout,
        format!("the page kept navigating away; try again once it has settled ({last})"),
    ))
}

async fn world(tab: &TabHandle) -> Result<ExecutionContextId> {
    if let Some(id) = tab.world.get() {
        return Ok(id);
    }
    let frame = tab
        .page
        .mainframe()
        .await
        .map_err(|e| Error::new(ErrorCode::BrowserUnavailable, "cannot read the tab's frame").with_source(e))?
        .ok_or_else(|| Error::new(ErrorCode::BrowserUnavailable, "the tab has no page loaded"))?;
    let mut params = CreateIsolatedWorldParams::new(frame);
    params.world_name = Some(WORLD_NAME.to_owned());
    let resp = tab.page.execute(params).await.map_err(|e| {
        Error::new(ErrorCode::BrowserUnavailable, "cannot create the page runtime's world").with_source(e)
    })?;
    let id = resp.result.execution_context_id;
    tab.world.set(Some(id));
    install(tab, id).await?;
    Ok(id)
}

async fn install(tab: &TabHandle, ctx: ExecutionContextId) -> Result<()> {
    let params = EvaluateParams::builder()
        .expression(RUNTIME_JS)
        .context_id(ctx)
        .return_by_value(true)
        .build()
        .map_err(|e| Error::internal(format!("bad evaluate params: {e}")))?;
    let resp = tab.page.execute(params).await.map_err(|e| {
        tab.world.set(None);
        Error::new(ErrorCode::BrowserUnavailable, "cannot install the page runtime").with_source(e)
    })?;
    if let Some(ex) = &resp.result.exception_details {
        return Err(Error::internal(format!("the page runtime does not load: {}", ex.text)));
    }
    Ok(())
}

fn context_gone(text: &str) -> bool {
    text.contains("Cannot find context")
        || text.contains("Execution context was destroyed")
        || text.contains("Inspected target navigated")
        || text.contains("Cannot find default execution context")
        || text.contains("context with specified id")
}

/// `{"code": "element_not_found", "message": "..."}` from the runtime.
fn runtime_error(err: &Value) -> Error {
    let message = err.get("message").and_then(Value::as_str).unwrap_or("the page runtime failed").to_owned();
    let code = match err.get("code").and_then(Value::as_str) {
        Some("element_not_found") => ErrorCode::ElementNotFound,
        Some("not_interactable") => ErrorCode::NotInteractable,
        Some("invalid_arguments") => ErrorCode::InvalidArguments,
        Some("timeout") => ErrorCode::Timeout,
        _ => ErrorCode::Internal,
    };
    Error::new(code, message)
}
