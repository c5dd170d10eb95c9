//! What the buttons of a watch alert's notification do (the buttons
//! themselves are `crate::notify::buttons`): "Open the page", "Snooze
//! 1 day", "Stop watching" (in Vietnamese when the user's language is). A
//! press arrives as the daemon's `ActionInvoked` signal for a notification
//! id ([`crate::notify::subscribe`]); the alert whose row holds that id (and
//! the daemon's bus name) says which watch, and the press is recorded on it
//! once (`claim_action`), so two processes hearing it never act twice. An
//! id no alert holds is ignored.
//!
//! * Open: a new tab in the managed Chromium when it runs (a direct call of
//!   `browser_new_tab`, through the gate like the user's own), else the
//!   system's default opener.
//! * Snooze: the watch's alerts reach the inbox only, for 24 hours
//!   (`snoozed_until`, in SQLite).
//! * Stop watching: the watch is paused (deleting it is destructive and is
//!   asked elsewhere).

use serde_json::json;

use crate::context::{CallContext, FrontEnd};
use crate::core::Core;
use crate::error::{Error, ErrorCode, Result};
use crate::notify::Invoked;
pub use crate::notify::buttons::{Button, SNOOZE_SECS, labels, vietnamese};
use crate::store::watches::WatchStatus;

/// What a press did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acted {
    pub alert_id: i64,
    pub watch_id: String,
    pub action: Button,
}

/// Acts on one press; `None` when it is about no alert of ours (or was
/// acted on already).
pub async fn act(core: &Core, invoked: &Invoked) -> Result<Option<Acted>> {
    let Some(action) = Button::parse(&invoked.action) else {
        return Ok(None);
    };
    let store = core.store();
    let Some(alert) = store.watch_alerts().claim_action(&invoked.daemon, invoked.id, action.key()).await? else {
        tracing::debug!("notification {} of {}: no alert of ours, ignored", invoked.id, invoked.daemon);
        return Ok(None);
    };
    let Some(watch_id) = alert.watch_id.clone() else { return Ok(None) };
    match action {
        Button::Stop => {
            store.watches().set_status(&watch_id, WatchStatus::Paused).await?;
        }
        Button::Snooze => {
            store.watches().snooze(&watch_id, SNOOZE_SECS).await?;
        }
        Button::Open => {
            let url = match alert.url.clone() {
                Some(u) => u,
                None => store
                    .watches()
                    .get(&watch_id)
                    .await?
                    .map(|w| w.target_url)
                    .ok_or_else(|| Error::not_found(format!("no watch {watch_id}")))?,
            };
            open(core, &url).await?;
        }
    }
    tracing::info!("notification button {:?} on watch {watch_id}", action.key());
    Ok(Some(Acted { alert_id: alert.id, watch_id, action }))
}

/// Opens `url` for the user: a new tab in the managed Chromium when it
/// runs, else the system's default opener.
async fn open(core: &Core, url: &str) -> Result<()> {
    crate::watch::check_url(url)?;
    if core.browser().is_running().await {
        let result = core.call_tool(&CallContext::new(FrontEnd::Panel), "browser_new_tab", json!({"url": url})).await;
        return match result.error {
            None => Ok(()),
            Some(e) => Err(Error::new(e.code, e.message)),
        };
    }
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| Error::new(ErrorCode::NotAvailable, format!("cannot open {url}: no `{opener}` ({e})")))
}

/// Hands every press to `on_press` until it says stop (`false`) or the
/// presses end.
pub async fn listen(mut presses: tokio::sync::broadcast::Receiver<Invoked>, on_press: impl AsyncFn(&Invoked) -> bool) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match presses.recv().await {
            Ok(invoked) => {
                if !on_press(&invoked).await {
                    return;
                }
            }
            Err(RecvError::Lagged(n)) => tracing::warn!("{n} notification presses missed"),
            Err(RecvError::Closed) => return,
        }
    }
}

/// [`act`], with a failure logged (a press has nobody to answer to).
pub async fn act_logged(core: &Core, invoked: &Invoked) {
    if let Err(e) = act(core, invoked).await {
        tracing::warn!("notification button {:?}: {}", invoked.action, e.message());
    }
}
