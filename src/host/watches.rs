//! The watch scheduler of a long-lived host (the desktop app, `halley
//! serve`): every tick, the watches that are due are checked through
//! `watch_poll`, as a background front end (the same gate and engine as
//! every other check: state only in SQLite, a check missed while the
//! machine slept runs once, up to 4 checks of one site at once). The tray's
//! pause holds it. After a pass that checked something, [`Event::Watches`]
//! tells the front ends the unread alert count (the tray's badge).

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::json;

use super::Host;
use crate::context::{CallContext, FrontEnd};
use crate::protocol::Event;
use crate::tools::catalogue::data::WatchPollOutput;

/// How often the scheduler looks for due watches when none is set.
pub const DEFAULT_TICK: Duration = Duration::from_secs(30);

/// The scheduler's task; dropping it stops the scheduler.
#[derive(Debug)]
pub struct Scheduler {
    task: tokio::task::JoinHandle<()>,
    buttons: tokio::task::JoinHandle<()>,
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.task.abort();
        self.buttons.abort();
    }
}

impl Host {
    /// Check the due watches every `tick` until the host closes (or the
    /// returned [`Scheduler`] is dropped). A pass also runs at once. The
    /// buttons of the alerts' notifications act meanwhile (`watch::actions`).
    pub fn start_watch_scheduler(self: &Arc<Self>, tick: Duration) -> Scheduler {
        let presses = crate::notify::subscribe();
        let host = Arc::downgrade(self);
        let buttons = tokio::spawn(crate::watch::actions::listen(presses, async move |invoked| {
            let Some(host) = host.upgrade() else { return false };
            crate::watch::actions::act_logged(host.core(), invoked).await;
            true
        }));
        let host = Arc::downgrade(self);
        let task = tokio::spawn(async move {
            let mut last_unread = None;
            loop {
                if !pass(&host, &mut last_unread).await {
                    return;
                }
                tokio::time::sleep(tick).await;
            }
        });
        Scheduler { task, buttons }
    }
}

/// One pass; `false` when the host is gone.
async fn pass(host: &Weak<Host>, last_unread: &mut Option<u32>) -> bool {
    let Some(host) = host.upgrade() else { return false };
    if host.is_paused() || host.closing() {
        return true;
    }
    // The pass's browser checks run (and release) their own tabs' runs.
    let cx = CallContext::new(FrontEnd::Background).with_run(format!("watch-scheduler-{}", uuid::Uuid::new_v4()));
    let result = host.core().call_tool(&cx, "watch_poll", json!({})).await;
    let checked = match result.error {
        Some(e) => {
            tracing::warn!("watch scheduler: the pass failed: {}", e.message);
            0
        }
        None => serde_json::from_value::<WatchPollOutput>(result.data).map_or(0, |p| p.checks.len()),
    };
    let unread = match host.core().store().watch_alerts().unread_count().await {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!("watch scheduler: cannot count the unread alerts: {}", e.message());
            return true;
        }
    };
    let unread = u32::try_from(unread).unwrap_or(u32::MAX);
    if checked > 0 || *last_unread != Some(unread) {
        *last_unread = Some(unread);
        let _ = host.events.send(Event::Watches { checked: u32::try_from(checked).unwrap_or(u32::MAX), unread });
    }
    true
}
