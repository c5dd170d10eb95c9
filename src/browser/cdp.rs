//! The CDP leaf the rest of `browser` stands on: a DevTools failure as a
//! Halley error (`browser_crashed` when the browser is gone, `timeout`,
//! else `browser_unavailable` with the cause). It names no other module of
//! `browser`: the order is `cdp` <- `intercept` <- `launch` <- `session`.

use crate::error::{Error, ErrorCode};

/// A CDP failure as a Halley error: `browser_crashed` when the browser is
/// gone, else `browser_unavailable` with the cause.
pub(crate) fn cdp_error(err: chromiumoxide::error::CdpError, alive: bool) -> Error {
    if !alive {
        return crashed();
    }
    let text = err.to_string();
    if text.contains("Timeout") || text.contains("timed out") {
        return Error::new(ErrorCode::Timeout, "the browser did not answer in time").with_source(err);
    }
    Error::new(ErrorCode::BrowserUnavailable, "the browser refused the command").with_source(err)
}

pub(crate) fn crashed() -> Error {
    Error::new(
        ErrorCode::BrowserCrashed,
        "the browser crashed or was closed during this call; it is restarted with the same tabs on the next call. \
         The action was not repeated: check the page before trying again.",
    )
}

/// `Target.sendMessageToTarget`: a command for a session attached without
/// `flatten` (chromiumoxide's browser sends only on its own session).
#[derive(Debug, Clone, serde::Serialize)]
struct SendMessageToTarget {
    #[serde(rename = "sessionId")]
    session_id: String,
    message: String,
}

impl chromiumoxide::Method for SendMessageToTarget {
    fn identifier(&self) -> chromiumoxide::types::MethodId {
        "Target.sendMessageToTarget".into()
    }
}

impl chromiumoxide::Command for SendMessageToTarget {
    type Response = serde_json::Value;
}

/// Let each service worker run. chromiumoxide auto-attaches a page's
/// children waiting for the debugger and, for a service worker, sends
/// `Runtime.runIfWaitingForDebugger` and the detach together: on Chromium
/// 156 the detach wins, and the worker stays paused for good (its page's
/// `navigator.serviceWorker.ready` never settles, whatever site it is).
/// Each new service worker target is attached here from the browser's own
/// session and told to run (a no-op when it already runs), then left.
/// What it sends is paused by the browser-wide interception like any
/// other target's (`intercept::hub`): `starts(target, script_url)` is
/// awaited before the worker is let run, so the interception can widen
/// for it first. The task ends with the connection.
pub(crate) async fn release_service_workers<F, Fut>(browser: &std::sync::Arc<chromiumoxide::Browser>, starts: F)
where
    F: Fn(String, String) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    use chromiumoxide::cdp::browser_protocol::target::{
        AttachToTargetParams, DetachFromTargetParams, EventTargetCreated,
    };
    use futures::StreamExt;
    let Ok(mut created) = browser.event_listener::<EventTargetCreated>().await else { return };
    let weak = std::sync::Arc::downgrade(browser);
    let starts = std::sync::Arc::new(starts);
    tokio::spawn(async move {
        while let Some(event) = created.next().await {
            if event.target_info.r#type != "service_worker" {
                continue;
            }
            let Some(browser) = weak.upgrade() else { break };
            let target = event.target_info.target_id.clone();
            let (starts, url) = (std::sync::Arc::clone(&starts), event.target_info.url.clone());
            tokio::spawn(async move {
                starts(target.as_ref().to_owned(), url).await;
                let attach = AttachToTargetParams { target_id: target, flatten: Some(false) };
                let Ok(attached) = browser.execute(attach).await else { return };
                let session = attached.result.session_id.clone();
                let run = || SendMessageToTarget {
                    session_id: session.as_ref().to_owned(),
                    message: r#"{"id":1,"method":"Runtime.runIfWaitingForDebugger"}"#.to_owned(),
                };
                // Once now, and once after the page's own session has
                // attached and let go (its pause may come after ours).
                let _ = browser.execute(run()).await;
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                let _ = browser.execute(run()).await;
                let _ = browser.execute(DetachFromTargetParams::builder().session_id(session).build()).await;
            });
        }
    });
}
