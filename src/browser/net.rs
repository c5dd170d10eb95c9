//! Network activity of one tab, for "network idle" waits: requests in
//! flight, and when the count last changed.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, RequestId,
};
use futures::StreamExt;

/// The network is idle after this long with nothing in flight (the common
/// definition, as in Chromium's own `networkIdle` lifecycle event).
pub const IDLE_AFTER: Duration = Duration::from_millis(500);

/// Requests still open longer than this (long polls, streams) do not keep
/// the page from counting as idle.
const STALE_AFTER: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(crate) struct NetTracker {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    inflight: HashSet<RequestId>,
    started: Vec<(RequestId, Instant)>,
    last_change: Instant,
}

impl NetTracker {
    /// Start following the page's network events.
    pub async fn start(page: &Page) -> Arc<NetTracker> {
        let tracker = Arc::new(NetTracker {
            inner: Mutex::new(Inner { inflight: HashSet::new(), started: Vec::new(), last_change: Instant::now() }),
        });
        let sent = page.event_listener::<EventRequestWillBeSent>().await;
        let done = page.event_listener::<EventLoadingFinished>().await;
        let failed = page.event_listener::<EventLoadingFailed>().await;
        if let (Ok(mut sent), Ok(mut done), Ok(mut failed)) = (sent, done, failed) {
            let weak = Arc::downgrade(&tracker);
            tokio::spawn(async move {
                loop {
                    let (id, opened) = tokio::select! {
                        Some(ev) = sent.next() => (ev.request_id.clone(), true),
                        Some(ev) = done.next() => (ev.request_id.clone(), false),
                        Some(ev) = failed.next() => (ev.request_id.clone(), false),
                        else => break,
                    };
                    let Some(t) = weak.upgrade() else { break };
                    t.record(id, opened);
                }
            });
        }
        tracker
    }

    fn record(&self, id: RequestId, opened: bool) {
        let Ok(mut inner) = self.inner.lock() else { return };
        let now = Instant::now();
        if opened {
            if inner.inflight.insert(id.clone()) {
                inner.started.push((id, now));
            }
        } else if inner.inflight.remove(&id) {
            inner.started.retain(|(r, _)| r != &id);
        }
        inner.last_change = now;
    }

    /// How long the network has been quiet (zero when requests are in flight).
    pub fn quiet_for(&self) -> Duration {
        let Ok(inner) = self.inner.lock() else { return Duration::ZERO };
        let now = Instant::now();
        let busy = inner.started.iter().any(|(_, at)| now.duration_since(*at) < STALE_AFTER);
        if busy { Duration::ZERO } else { now.duration_since(inner.last_change) }
    }

    /// Whether a request started or ended since `at`.
    pub fn changed_since(&self, at: Instant) -> bool {
        self.inner.lock().is_ok_and(|inner| inner.last_change > at)
    }

    /// Requests currently in flight (stale ones excluded).
    pub fn inflight(&self) -> usize {
        let Ok(inner) = self.inner.lock() else { return 0 };
        let now = Instant::now();
        inner.started.iter().filter(|(_, at)| now.duration_since(*at) < STALE_AFTER).count()
    }
}
