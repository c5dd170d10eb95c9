//! One browser session: launches the browser on first use, notices when it
//! crashed or was closed and relaunches it (bounded backoff, tabs reopened
//! at their last URLs), and hands tool executors a [`Guard`] with the tabs.
//!
//! A call that was in flight when the browser died fails with
//! `browser_crashed`; nothing is ever replayed on the user's behalf.
//!
//! Many runs share the browser: a call sees it as its run does. A run acts
//! on the tabs it opened (and those its pages opened) or was handed (the
//! user's tab, for a run in the foreground; a tab it names), each run has
//! its own current tab, and a tab one run holds is never used by another
//! until that run ends ([`BrowserSession::release`]). A direct call (no
//! run) is the user's and may use any tab. A background run opens its
//! tabs behind the user's, never brings one forward, and they close when
//! it ends.

mod guard;
mod handle;
mod keep;
mod relaunch;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, TargetId};
use tokio::sync::Mutex;

use super::launch::{BrowserOptions, Connected};
use crate::error::{Error, ErrorCode, Result};
pub(crate) use guard::Guard;
pub(crate) use handle::TabHandle;
pub use keep::OpenTab;
use relaunch::{reopen_tabs, start};

/// The managed browser. Cheap to share; tool calls take turns on it.
pub struct BrowserSession {
    options: BrowserOptions,
    state: Mutex<State>,
    /// The pages attached for commands, by tab id: read without waiting
    /// for the call in flight (which holds `state`, e.g. while the user is
    /// asked), to move the window or bring a tab forward.
    attached: std::sync::Mutex<Vec<(String, Page)>>,
}

impl std::fmt::Debug for BrowserSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserSession").field("options", &self.options).finish_non_exhaustive()
    }
}

/// A tab as Halley tracks it: a stable id for the life of the session,
/// even across a relaunch.
pub(crate) struct Tab {
    pub id: String,
    pub target: TargetId,
    pub url: String,
    pub title: String,
    /// Set once the tab has been attached for commands.
    pub live: Option<TabHandle>,
}

#[derive(Default)]
struct State {
    conn: Option<Connected>,
    tabs: Vec<Tab>,
    next_tab: u32,
    /// The user's current tab (and that of direct calls).
    current: Option<String>,
    /// Which run holds a tab, by tab id.
    owners: HashMap<String, String>,
    /// Each run's current tab, by run id.
    run_current: HashMap<String, String>,
    /// The tabs a run in the background opened (and those their pages
    /// opened), by tab id: closed when the run ends ([`BrowserSession::release`]).
    behind: HashMap<String, String>,
    launches: u32,
    /// Set when the browser was found dead: the next acquire relaunches.
    crashed: bool,
    /// Until then, a start page the browser opens by itself after a launch
    /// (Chromium adds one when a relaunched profile opens its first window)
    /// is closed rather than listed: it is not one of the user's tabs.
    startup_until: Option<Instant>,
}

impl BrowserSession {
    pub fn new(options: BrowserOptions) -> BrowserSession {
        BrowserSession { options, state: Mutex::new(State::default()), attached: std::sync::Mutex::default() }
    }

    pub fn options(&self) -> &BrowserOptions {
        &self.options
    }

    /// Whether a browser has been started (or attached) in this session.
    pub async fn is_running(&self) -> bool {
        self.state.lock().await.conn.is_some()
    }

    /// The process id of the browser Halley started, if it runs.
    pub async fn pid(&self) -> Option<u32> {
        let state = self.state.lock().await;
        state.conn.as_ref().and_then(Connected::pid)
    }

    /// How many times the browser was launched (1 + relaunches).
    pub async fn launches(&self) -> u32 {
        self.state.lock().await.launches
    }

    /// Take the browser for one tool call of run `owner` (`None`: a direct
    /// call), in the `foreground` or not: launch it if needed, relaunch it
    /// if it died, and sync the tab list.
    pub(crate) async fn acquire(&self, owner: Option<&str>, foreground: bool) -> Result<Guard<'_>> {
        let mut state = self.state.lock().await;
        let dead = match state.conn.as_mut() {
            Some(conn) => !conn.alive(),
            None => false,
        };
        if dead || state.crashed {
            tracing::warn!("the browser is gone (crashed or closed); relaunching");
            if let Some(conn) = state.conn.take() {
                conn.shutdown().await;
            }
            self.attached.lock().unwrap_or_else(|e| e.into_inner()).clear();
            state.crashed = false;
            let reopen: Vec<(String, String)> = state.tabs.iter().map(|t| (t.id.clone(), t.url.clone())).collect();
            start(&self.options, &mut state).await?;
            reopen_tabs(&mut state, reopen).await?;
        } else if state.conn.is_none() {
            start(&self.options, &mut state).await?;
        }
        let owner = owner.map(str::to_owned);
        let mut guard = Guard { state, attached: &self.attached, owner, foreground };
        guard.sync_tabs().await?;
        Ok(guard)
    }

    /// Starts the browser now if it does not run (a caller that will need
    /// it soon, e.g. a watch pass, overlaps its start with other work).
    pub async fn launch(&self) -> Result<()> {
        self.acquire(None, false).await.map(drop)
    }

    /// Run `run` has ended: the tabs it opened in the background are
    /// closed (nobody looks at them, and a long-lived core would keep one
    /// per run: the soak found Chromium growing by a renderer a run); the
    /// others (the user's tab it was handed, a foreground run's tabs) stay
    /// open and become the user's. The last tab is never closed.
    pub async fn release(&self, run: &str) {
        let mut state = self.state.lock().await;
        // The gate's watch on the tabs that stay open goes on: a page the
        // agent left may still order or send by itself (a timer, a
        // worker) after the run ended, and is asked about like before
        // (issue 42, item 1). The background tabs closed here end theirs.
        let behind: Vec<(String, TargetId)> = state
            .tabs
            .iter()
            .filter(|t| state.behind.get(&t.id).is_some_and(|r| r == run))
            .map(|t| (t.id.clone(), t.target.clone()))
            .collect();
        if !behind.is_empty() && behind.len() < state.tabs.len() {
            if let Some(conn) = state.conn.as_ref() {
                for (_, target) in &behind {
                    if let Err(e) = conn.browser.execute(CloseTargetParams::new(target.clone())).await {
                        tracing::warn!("a finished run's background tab stays open: {e}");
                    }
                }
            }
            let closed: Vec<&String> = behind.iter().map(|(id, _)| id).collect();
            state.tabs.retain(|t| !closed.contains(&&t.id));
            self.attached.lock().unwrap_or_else(|e| e.into_inner()).retain(|(id, _)| !closed.contains(&id));
        }
        state.behind.retain(|_, owner| owner != run);
        state.owners.retain(|_, owner| owner != run);
        state.run_current.remove(run);
    }

    /// The tabs run `run` holds now.
    pub async fn tabs_of(&self, run: &str) -> Vec<String> {
        let state = self.state.lock().await;
        let mut tabs: Vec<String> = state.owners.iter().filter(|(_, o)| *o == run).map(|(t, _)| t.clone()).collect();
        tabs.sort();
        tabs
    }

    /// Close the browser (only if Halley started it) and reap it.
    pub async fn close(&self) {
        let mut state = self.state.lock().await;
        if let Some(conn) = state.conn.take() {
            conn.shutdown().await;
        }
        state.tabs.clear();
        state.current = None;
        state.owners.clear();
        state.run_current.clear();
        state.behind.clear();
        self.attached.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// A page to steer the window with: tab `tab` (else the current or
    /// last attached one) when one is attached, without waiting for a call
    /// in flight. Otherwise, when `start` or a browser runs, the browser is
    /// taken (launched when `start`) within a few seconds; `None` when no
    /// browser runs and `start` is false.
    pub async fn window_page(&self, tab: Option<&str>, start: bool) -> Result<Option<Page>> {
        if let Some(page) = self.attached_page(tab) {
            return Ok(Some(page));
        }
        let Some(mut guard) = self.take_for_user(start).await? else { return Ok(None) };
        let handle = guard.page(tab).await?;
        Ok(Some(handle.page))
    }

    /// The browser for the user, within a few seconds (a call in flight
    /// keeps it meanwhile); `None` when no browser runs and `start` is false.
    async fn take_for_user(&self, start: bool) -> Result<Option<Guard<'_>>> {
        if !start
            && let Ok(state) = self.state.try_lock()
            && state.conn.is_none()
        {
            return Ok(None);
        }
        let acquired = tokio::time::timeout(WINDOW_WAIT, self.acquire(None, true))
            .await
            .map_err(|_| Error::new(ErrorCode::Timeout, "the browser is busy with a call; try again in a moment"))?;
        Ok(Some(acquired?))
    }

    /// The user's current tab, `(address, title)`, as the browser lists it
    /// now, without starting it: `None` when no browser runs or it has no
    /// tab. A call in flight is waited for a few seconds at most.
    pub async fn user_tab(&self) -> Result<Option<(String, String)>> {
        let Some(guard) = self.take_for_user(false).await? else { return Ok(None) };
        let Some(id) = guard.current_id() else { return Ok(None) };
        Ok(guard.tabs().into_iter().find(|t| t.id == id).map(|t| (t.url.clone(), t.title.clone())))
    }

    fn attached_page(&self, tab: Option<&str>) -> Option<Page> {
        let attached = self.attached.lock().unwrap_or_else(|e| e.into_inner());
        match tab {
            Some(id) => attached.iter().find(|(t, _)| t == id).map(|(_, p)| p.clone()),
            None => attached.last().map(|(_, p)| p.clone()),
        }
    }
}

/// How long [`BrowserSession::window_page`] waits for the browser.
const WINDOW_WAIT: Duration = Duration::from_secs(5);
