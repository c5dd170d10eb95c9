//! The watch scheduler of a long-lived host (the desktop app, `halley
//! serve`): every tick, the watches that are due are checked through
//! `watch_poll`, as a background front end (the same gate and engine as
//! every other check: state only in SQLite, a check missed while the
//! machine slept runs once, up to 4 checks of one site at once). The tray's
//! pause holds it. After a pass that checked something, [`Event::Watches`]
//! tells the front ends the unread alert count (the tray's badge); so does
//! a front end's direct call of a watch tool that changes something, and
//! the panel's alert inbox ops (list, mark read) are here too. The same
//! pass starts the routines whose schedule is due (`host::routines`).

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::json;

use super::Host;
use crate::context::{CallContext, FrontEnd};
use crate::error::{Error, Result};
use crate::protocol::{Event, Reply};
use crate::tools::ToolResultV2;
use crate::tools::catalogue::data::WatchPollOutput;
use crate::watch::tools::alert;

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
    /// buttons of the alerts' notifications act meanwhile (`host::actions`).
    pub fn start_watch_scheduler(self: &Arc<Self>, tick: Duration) -> Scheduler {
        let presses = crate::notify::subscribe();
        let host = Arc::downgrade(self);
        let buttons = tokio::spawn(crate::host::actions::listen(presses, async move |invoked| {
            let Some(host) = host.upgrade() else { return false };
            crate::host::actions::act_logged(host.core(), invoked).await;
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

    /// Act on the buttons of the notifications this process shows
    /// (`host::actions`) until the presses end: for a front end that checks
    /// the watches itself (`halley watch run`, through `watch_poll`), as
    /// the scheduler does beside its passes. Listens from the call on.
    pub fn answer_notification_buttons(&self) -> impl std::future::Future<Output = ()> + '_ {
        let presses = crate::notify::subscribe();
        crate::host::actions::listen(presses, async |invoked| {
            crate::host::actions::act_logged(self.core(), invoked).await;
            true
        })
    }
}

/// One pass; `false` when the host is gone.
async fn pass(host: &Weak<Host>, last_unread: &mut Option<u32>) -> bool {
    let Some(host) = host.upgrade() else { return false };
    if host.is_paused() || host.closing() {
        return true;
    }
    // The routines due now start first, each on a task of its own.
    host.run_due_routines().await;
    // The pass's browser checks run (and release) their own tabs' runs.
    let cx = CallContext::new(FrontEnd::Background).with_run(format!("watch-scheduler-{}", uuid::Uuid::new_v4()));
    let result = host.core().call_tool(&cx, "watch_poll", json!({})).await;
    if let Some(e) = &result.error {
        tracing::warn!("watch scheduler: the pass failed: {}", e.message);
    }
    let checked = checks_in(&result);
    let unread = match host.unread_alerts().await {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!("watch scheduler: cannot count the unread alerts: {}", e.message());
            return true;
        }
    };
    if checked > 0 || *last_unread != Some(unread) {
        *last_unread = Some(unread);
        host.tell_watches(checked, unread);
    }
    true
}

/// How many watches a `watch_poll` result checked (0 for a failed call).
fn checks_in(result: &ToolResultV2) -> usize {
    if result.error.is_some() {
        return 0;
    }
    serde_json::from_value::<WatchPollOutput>(result.data.clone()).map_or(0, |p| p.checks.len())
}

impl Host {
    /// Alerts nobody has read (the tray's count).
    async fn unread_alerts(&self) -> Result<u32> {
        let n = self.core().store().watch_alerts().unread_count().await?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    fn tell_watches(&self, checked: usize, unread: u32) {
        let _ = self.events.send(Event::Watches { checked: u32::try_from(checked).unwrap_or(u32::MAX), unread });
    }

    /// Whether a call of `name` may change the watches (its declaration).
    pub(super) fn changes_watches(&self, name: &str) -> bool {
        self.core().registry().get(name).is_some_and(|spec| spec.changes_watches)
    }

    /// After a front end's direct call of `name`, or a run's: when it changed the
    /// watches, [`Event::Watches`] tells every front end (the tray's count,
    /// the panel's view), as a scheduler pass does.
    pub(super) async fn after_tool_call(&self, name: &str, result: &ToolResultV2) {
        if result.error.is_some() || !self.changes_watches(name) {
            return;
        }
        match self.unread_alerts().await {
            Ok(unread) => self.tell_watches(checks_in(result), unread),
            Err(e) => tracing::warn!("cannot count the unread alerts: {}", e.message()),
        }
    }

    /// [`Op::ListAlerts`](crate::protocol::Op::ListAlerts).
    pub(super) async fn alerts(&self, limit: u32) -> Result<Reply> {
        if !(1..=1000).contains(&limit) {
            return Err(Error::invalid_arguments(format!("`limit` must be from 1 to 1000, not {limit}")));
        }
        let rows = self.core().store().watch_alerts().inbox(limit).await?;
        Ok(Reply::Alerts { alerts: rows.into_iter().map(alert).collect(), unread: self.unread_alerts().await? })
    }

    /// [`Op::MarkAlertsRead`](crate::protocol::Op::MarkAlertsRead).
    pub(super) async fn mark_alerts_read(&self, ids: Option<&[i64]>) -> Result<Reply> {
        for &id in ids.unwrap_or_default() {
            if !self.core().store().watch_alerts().exists(id).await? {
                return Err(Error::not_found(format!("no alert {id}: nothing was marked read")));
            }
        }
        self.core().store().watch_alerts().mark_read(ids).await?;
        let reply = self.alerts(INBOX_LIMIT).await?;
        if let Reply::Alerts { unread, .. } = &reply {
            self.tell_watches(0, *unread);
        }
        Ok(reply)
    }
}

/// How many alerts [`Op::MarkAlertsRead`](crate::protocol::Op::MarkAlertsRead) answers with.
const INBOX_LIMIT: u32 = 50;
