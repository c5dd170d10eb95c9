//! What a page really sends while an agent action runs: CDP `Fetch`
//! interception on the tab (request stage). Requests that cannot change
//! anything on their own (GET, HEAD and OPTIONS with no body) go on at
//! once, unless the watcher wants to read their address (one to another
//! site, which may carry the user's data away); every other one (a form POST, `fetch`/XHR with a body, a beacon,
//! PUT/PATCH/DELETE) is held and handed to whoever watches, who lets it go
//! or fails it ([`WireWatch::decide`]). The grading is the gate's
//! (`gate::wire`), joined to this by the browser tools
//! (`builtin::browser::wire`).
//!
//! Limits: the tab's own session only (a popup is another tab; an
//! out-of-process iframe is another target); WebSocket and WebRTC are not
//! held.

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, DisableParams, EnableParams, EventRequestPaused, FailRequestParams, RequestId,
    RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::ErrorReason;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::session::{TabHandle, cdp_error};
use crate::error::Result;

/// A request the page is about to send, held until decided.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    pub id: RequestId,
    /// `POST`.
    pub method: String,
    pub url: String,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The body as sent (bytes as UTF-8, lossy), if any.
    pub body: Option<String>,
}

/// What becomes of a held request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Sent as it is.
    Continue,
    /// Never sent (the page sees a network error, "blocked by client").
    Fail,
}

/// The interception of one tab's requests, on while this lives. However
/// it ends ([`WireWatch::stop`], or dropped with a cancelled call), every
/// held request not decided yet is failed, never let go ungraded, and the
/// tab's interception is turned off (a tab left intercepting with nobody
/// listening would hang all its requests).
pub(crate) struct WireWatch {
    page: Page,
    held: mpsc::UnboundedReceiver<Outgoing>,
    /// The held requests not decided yet.
    undecided: Arc<Mutex<Vec<RequestId>>>,
    listener: JoinHandle<()>,
    stopped: bool,
}

impl WireWatch {
    /// Start holding the tab's requests: those that may change something,
    /// and the reads whose URL `hold_read` picks.
    pub async fn start(tab: &TabHandle, hold_read: impl Fn(&str) -> bool + Send + 'static) -> Result<WireWatch> {
        let page = tab.page.clone();
        let alive = !tab.gone.load(std::sync::atomic::Ordering::SeqCst);
        let mut paused = page.event_listener::<EventRequestPaused>().await.map_err(|e| cdp_error(e, alive))?;
        let pattern = RequestPattern {
            url_pattern: Some("*".into()),
            resource_type: None,
            request_stage: Some(RequestStage::Request),
        };
        page.execute(EnableParams { patterns: Some(vec![pattern]), handle_auth_requests: None })
            .await
            .map_err(|e| cdp_error(e, alive))?;
        let (tx, held) = mpsc::unbounded_channel();
        let undecided = Arc::new(Mutex::new(Vec::new()));
        let (waved, pending) = (page.clone(), Arc::clone(&undecided));
        let listener = tokio::spawn(async move {
            while let Some(event) = paused.next().await {
                let outgoing = outgoing(&event);
                let id = event.request_id.clone();
                if inert(&outgoing) && !hold_read(&outgoing.url) {
                    let _ = waved.execute(ContinueRequestParams::new(id)).await;
                    continue;
                }
                if let Ok(mut pending) = pending.lock() {
                    pending.push(id.clone());
                }
                if tx.send(outgoing).is_err() {
                    // Nobody grades any more: not sent.
                    fail_all(&waved, &pending).await;
                }
            }
        });
        Ok(WireWatch { page, held, undecided, listener, stopped: false })
    }

    /// The next held request (`None` once the tab's events end).
    pub async fn next(&mut self) -> Option<Outgoing> {
        self.held.recv().await
    }

    /// Let `request` go, or fail it.
    pub async fn decide(&self, request: &Outgoing, verdict: Verdict) {
        let id = request.id.clone();
        if let Ok(mut pending) = self.undecided.lock() {
            pending.retain(|p| *p != id);
        }
        let sent = match verdict {
            Verdict::Continue => self.page.execute(ContinueRequestParams::new(id)).await.map(|_| ()),
            Verdict::Fail => {
                self.page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient)).await.map(|_| ())
            }
        };
        if let Err(e) = sent {
            tracing::debug!("wire: cannot decide on {} {}: {e}", request.method, request.url);
        }
    }

    /// Stop holding requests: a request still held was never graded, so it
    /// is failed; then interception is off.
    pub async fn stop(mut self) {
        self.stopped = true;
        self.listener.abort();
        self.held.close();
        while let Ok(left) = self.held.try_recv() {
            tracing::warn!("wire: {} {} was never graded; not sent", left.method, left.url);
        }
        end(&self.page, &self.undecided).await;
    }
}

impl Drop for WireWatch {
    fn drop(&mut self) {
        self.listener.abort();
        if self.stopped {
            return;
        }
        // Dropped with its call (cancelled): the same end, as a task.
        let (page, undecided) = (self.page.clone(), Arc::clone(&self.undecided));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { end(&page, &undecided).await });
        }
    }
}

/// Fail what is undecided, then turn interception off.
async fn end(page: &Page, undecided: &Mutex<Vec<RequestId>>) {
    fail_all(page, undecided).await;
    let _ = page.execute(DisableParams::default()).await;
}

async fn fail_all(page: &Page, undecided: &Mutex<Vec<RequestId>>) {
    let ids = undecided.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default();
    for id in ids {
        let _ = page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient)).await;
    }
}

/// A request that cannot change anything by itself: no body, and a method
/// that only reads.
fn inert(request: &Outgoing) -> bool {
    matches!(request.method.as_str(), "GET" | "HEAD" | "OPTIONS") && request.body.is_none()
}

fn outgoing(event: &EventRequestPaused) -> Outgoing {
    let request = &event.request;
    let content_type = request
        .headers
        .inner()
        .as_object()
        .and_then(|h| h.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-type")))
        .and_then(|(_, v)| v.as_str())
        .map(str::to_owned);
    let body = request.post_data_entries.as_ref().map(|entries| {
        let mut bytes = Vec::new();
        for entry in entries {
            if let Some(b) = &entry.bytes
                && let Ok(mut decoded) = base64::engine::general_purpose::STANDARD.decode(AsRef::<str>::as_ref(b))
            {
                bytes.append(&mut decoded);
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let body = body.or_else(|| request.has_post_data.filter(|h| *h).map(|_| String::new()));
    Outgoing {
        id: event.request_id.clone(),
        method: request.method.to_ascii_uppercase(),
        url: request.url.clone(),
        content_type,
        body,
    }
}
