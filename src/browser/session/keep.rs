//! The user's tabs kept across a restart: what the browser shows now, each
//! tab with whether its page may be opened again by its address
//! ([`BrowserSession::open_tabs`]), and opening a saved list in a new
//! browser ([`BrowserSession::reopen`]). Reopening is a GET of the address
//! only: no form is re-sent, no history or page state is replayed.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::{GetNavigationHistoryParams, TransitionType};
use chromiumoxide::cdp::browser_protocol::target::ActivateTargetParams;

use super::relaunch::reopen_tabs;
use super::{BrowserSession, Tab};
use crate::error::Result;

/// How long one tab's history is waited for.
const HISTORY_WAIT: Duration = Duration::from_secs(2);

/// One of the user's open tabs, as it would be kept for the next start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTab {
    /// Its id in this session (as `browser_list_tabs` names it).
    pub id: String,
    pub url: String,
    pub title: String,
    /// The user's current tab.
    pub current: bool,
    /// The page is the answer to a form sent (a POST, or what it redirected
    /// to): opening its address again would not show it, or would send the
    /// form again.
    pub from_form: bool,
}

impl BrowserSession {
    /// The user's tabs as the browser shows them now, in their order
    /// (`None`: no browser runs, or a call kept it longer than `wait`). The
    /// tabs a background run opened behind the user's are left out: they
    /// close when the run ends.
    pub async fn open_tabs(&self, wait: Duration) -> Result<Option<Vec<OpenTab>>> {
        // Never (re)starts the browser: a dead one is left for the next call.
        let Ok(mut state) = tokio::time::timeout(wait, self.state.lock()).await else {
            return Ok(None);
        };
        if state.crashed || !state.conn.as_mut().is_some_and(super::super::launch::Connected::alive) {
            return Ok(None);
        }
        let mut guard = super::Guard { state, attached: &self.attached, owner: None, foreground: true };
        guard.sync_tabs().await?;
        let state = &guard.state;
        let Some(conn) = state.conn.as_ref() else { return Ok(None) };
        let tabs: Vec<&Tab> = state.tabs.iter().filter(|t| !state.behind.contains_key(&t.id)).collect();
        // Read side by side: the browser is held meanwhile, at most HISTORY_WAIT.
        let entries = futures::future::join_all(tabs.iter().map(|t| last_entry(&conn.browser, t))).await;
        let out = tabs
            .into_iter()
            .zip(entries)
            .map(|(tab, (url, from_form))| OpenTab {
                id: tab.id.clone(),
                url,
                title: tab.title.clone(),
                current: state.current.as_deref() == Some(tab.id.as_str()),
                from_form,
            })
            .collect();
        Ok(Some(out))
    }

    /// Open `urls` (in this order, `current` in front) in the browser,
    /// starting it: the tabs the browser had (a new one has its blank
    /// start page only) make way for them. Only GETs of the addresses.
    pub async fn reopen(&self, urls: &[String], current: Option<usize>) -> Result<()> {
        let mut guard = self.acquire(None, true).await?;
        let mut ids = Vec::new();
        let list: Vec<(String, String)> = urls
            .iter()
            .map(|u| {
                guard.state.next_tab += 1;
                let id = format!("tab-{}", guard.state.next_tab);
                ids.push(id.clone());
                (id, u.clone())
            })
            .collect();
        if list.is_empty() {
            return Ok(());
        }
        // A browser Halley started closes its start page once they are open
        // (`reopen_tabs`); an attached browser's own tabs stay.
        guard.state.current = current.and_then(|i| ids.get(i)).cloned();
        reopen_tabs(&mut guard.state, list).await?;
        if let Some(conn) = guard.state.conn.as_ref() {
            let front = guard.state.current.as_ref().and_then(|c| guard.state.tabs.iter().find(|t| &t.id == c));
            if let Some(tab) = front
                && let Err(e) = conn.browser.execute(ActivateTargetParams::new(tab.target.clone())).await
            {
                tracing::warn!("cannot bring the reopened current tab forward: {e}");
            }
        }
        guard.sync_tabs().await
    }
}

/// The address a tab shows and whether it is the answer to a form, read
/// from its history's current entry (else the address Halley last saw, as
/// if from a form).
async fn last_entry(browser: &chromiumoxide::Browser, tab: &Tab) -> (String, bool) {
    let read = async {
        let page = browser.get_page(tab.target.clone()).await.ok()?;
        let history = page.execute(GetNavigationHistoryParams::default()).await.ok()?;
        let index = usize::try_from(history.result.current_index).ok()?;
        let entry = history.result.entries.get(index)?;
        Some((entry.url.clone(), entry.transition_type == TransitionType::FormSubmit))
    };
    match tokio::time::timeout(HISTORY_WAIT, read).await {
        Ok(Some(found)) => found,
        // Unknown is taken as one-time: better a tab not reopened than a
        // form sent twice.
        _ => (tab.url.clone(), true),
    }
}
