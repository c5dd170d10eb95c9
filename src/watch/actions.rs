//! The buttons of a watch alert's notification: "Open the page", "Snooze
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
use crate::store::Store;
use crate::store::watches::WatchStatus;

/// How long "Snooze 1 day" mutes a watch.
pub const SNOOZE_SECS: i64 = 86_400;

/// A notification button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Open,
    Snooze,
    Stop,
}

impl Action {
    pub const ALL: [Action; 3] = [Action::Open, Action::Snooze, Action::Stop];

    pub fn key(self) -> &'static str {
        match self {
            Action::Open => "open",
            Action::Snooze => "snooze",
            Action::Stop => "stop",
        }
    }

    /// A key from a signal; `default` is a click on the notification itself.
    pub fn parse(key: &str) -> Option<Action> {
        match key {
            "open" | "default" => Some(Action::Open),
            "snooze" => Some(Action::Snooze),
            "stop" => Some(Action::Stop),
            _ => None,
        }
    }

    pub fn label(self, vietnamese: bool) -> &'static str {
        match (self, vietnamese) {
            (Action::Open, false) => "Open the page",
            (Action::Snooze, false) => "Snooze 1 day",
            (Action::Stop, false) => "Stop watching",
            (Action::Open, true) => "Mở trang",
            (Action::Snooze, true) => "Tạm hoãn 1 ngày",
            (Action::Stop, true) => "Ngừng theo dõi",
        }
    }
}

/// Whether the user's language is Vietnamese: the `language` setting, else
/// the system's locale.
pub async fn vietnamese(store: &Store) -> bool {
    match store.settings().get("language").await {
        Ok(Some(serde_json::Value::String(lang))) if !lang.trim().is_empty() => lang.trim().eq_ignore_ascii_case("vi"),
        _ => ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
            .is_some_and(|l| l.to_ascii_lowercase().starts_with("vi")),
    }
}

/// A watch alert's buttons, `(key, label)`, in the user's language.
pub async fn labels(store: &Store) -> Vec<(String, String)> {
    let vi = vietnamese(store).await;
    Action::ALL.iter().map(|a| (a.key().to_owned(), a.label(vi).to_owned())).collect()
}

/// What a press did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acted {
    pub alert_id: i64,
    pub watch_id: String,
    pub action: Action,
}

/// Acts on one press; `None` when it is about no alert of ours (or was
/// acted on already).
pub async fn act(core: &Core, invoked: &Invoked) -> Result<Option<Acted>> {
    let Some(action) = Action::parse(&invoked.action) else {
        return Ok(None);
    };
    let store = core.store();
    let Some(alert) = store.watch_alerts().claim_action(&invoked.daemon, invoked.id, action.key()).await? else {
        tracing::debug!("notification {} of {}: no alert of ours, ignored", invoked.id, invoked.daemon);
        return Ok(None);
    };
    let Some(watch_id) = alert.watch_id.clone() else { return Ok(None) };
    match action {
        Action::Stop => {
            store.watches().set_status(&watch_id, WatchStatus::Paused).await?;
        }
        Action::Snooze => {
            store.watches().snooze(&watch_id, SNOOZE_SECS).await?;
        }
        Action::Open => {
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
