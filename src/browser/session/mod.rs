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

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::{SetDownloadBehaviorBehavior, SetDownloadBehaviorParams};
use chromiumoxide::cdp::browser_protocol::inspector::EventTargetCrashed;
use chromiumoxide::cdp::browser_protocol::page::ReloadParams;
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, CreateTargetParams, GetTargetsParams, TargetId};
use futures::StreamExt;
use tokio::sync::{Mutex, MutexGuard};

use crate::tools::catalogue::navigation::WaitUntil;

use super::launch::{BrowserOptions, Connected, connect};
use super::net::NetTracker;
use super::runtime::World;
use crate::error::{Error, ErrorCode, Result};

/// Delays before each launch attempt after a crash.
const RELAUNCH_BACKOFF_MS: [u64; 3] = [0, 500, 1500];

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

/// How long after a launch the browser's own start page is closed.
const STARTUP_GRACE: Duration = Duration::from_secs(5);

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
        let mut state = self.state.lock().await;
        state.conn.as_mut().and_then(|c| c.browser.get_mut_child()).and_then(|child| child.inner.id())
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

async fn start(options: &BrowserOptions, state: &mut State) -> Result<()> {
    let mut last: Option<Error> = None;
    for delay in RELAUNCH_BACKOFF_MS.iter().take(if state.launches == 0 { 1 } else { RELAUNCH_BACKOFF_MS.len() }) {
        tokio::time::sleep(Duration::from_millis(*delay)).await;
        match connect(options).await {
            Ok(conn) => {
                state.launches += 1;
                state.startup_until = conn.owned.then(|| Instant::now() + STARTUP_GRACE);
                let _ = std::fs::create_dir_all(&options.downloads_dir);
                let downloads = SetDownloadBehaviorParams::builder()
                    .behavior(SetDownloadBehaviorBehavior::AllowAndName)
                    .download_path(options.downloads_dir.display().to_string())
                    .events_enabled(true)
                    .build();
                if let Ok(params) = downloads
                    && let Err(e) = conn.browser.execute(params).await
                {
                    tracing::warn!("cannot set the download folder: {e}");
                }
                state.conn = Some(conn);
                return Ok(());
            }
            Err(e) => {
                tracing::warn!("browser launch failed: {}", e.to_wire().message);
                last = Some(e);
            }
        }
    }
    Err(last.unwrap_or_else(|| Error::new(ErrorCode::BrowserUnavailable, "cannot start the browser")))
}

/// After a relaunch, open each tab of the old session again at its last
/// URL, under its old id, without waiting for the pages to load. Only
/// navigations: no click or submit is replayed.
async fn reopen_tabs(state: &mut State, reopen: Vec<(String, String)>) -> Result<()> {
    let old_current = state.current.clone();
    state.tabs.clear();
    let Some(conn) = state.conn.as_ref() else { return Ok(()) };
    // A browser Halley starts has no window (`--no-startup-window`); a tab
    // it opened anyway is not the user's. An attached browser's tabs are.
    let spare = if conn.owned { page_targets(conn).await? } else { Vec::new() };
    let mut tabs = Vec::new();
    for (id, url) in reopen {
        let url = if url.is_empty() || url.starts_with("chrome-error:") { "about:blank".to_owned() } else { url };
        match conn.browser.execute(CreateTargetParams::new(url.clone())).await {
            Ok(created) => {
                tabs.push(Tab { id, target: created.result.target_id.clone(), url, title: String::new(), live: None })
            }
            Err(e) => tracing::warn!("cannot reopen {url}: {e}"),
        }
    }
    if !tabs.is_empty() {
        // The blank tab the new browser opened with is not one of the user's.
        for (target, _, _, _) in spare {
            let _ = conn.browser.execute(CloseTargetParams::new(target)).await;
        }
    }
    state.tabs = tabs;
    state.current = old_current.filter(|c| state.tabs.iter().any(|t| &t.id == c));
    Ok(())
}

/// The page targets of the browser, in its order: (id, url, title, the
/// page that opened it).
async fn page_targets(conn: &Connected) -> Result<Vec<(TargetId, String, String, Option<TargetId>)>> {
    let targets = conn.browser.execute(GetTargetsParams::default()).await.map_err(|e| cdp_error(e, true))?;
    Ok(targets
        .result
        .target_infos
        .iter()
        .filter(|t| {
            t.r#type == "page" && !t.url.starts_with("devtools://") && !t.url.starts_with("chrome-extension://")
        })
        .map(|t| (t.target_id.clone(), t.url.clone(), t.title.clone(), t.opener_id.clone()))
        .collect())
}

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

/// Exclusive use of the browser for one tool call, seen as the call's run
/// sees it.
pub(crate) struct Guard<'a> {
    state: MutexGuard<'a, State>,
    attached: &'a std::sync::Mutex<Vec<(String, Page)>>,
    /// The call's run (`None`: a direct call, the user's).
    owner: Option<String>,
    /// Whether the run acts in front of the user.
    foreground: bool,
}

impl Guard<'_> {
    fn conn(&self) -> Result<&Connected> {
        self.state.conn.as_ref().ok_or_else(crashed)
    }

    pub fn browser(&self) -> Result<&chromiumoxide::Browser> {
        Ok(&self.conn()?.browser)
    }

    /// Turn a CDP error into a Halley error, noticing a dead browser (which
    /// is then relaunched by the next call).
    pub fn fail(&mut self, err: chromiumoxide::error::CdpError) -> Error {
        let alive = self.state.conn.as_mut().is_some_and(Connected::alive);
        if !alive {
            self.state.crashed = true;
        }
        cdp_error(err, alive)
    }

    /// Mark the browser as gone (a call saw it die).
    pub fn mark_crashed(&mut self) {
        let alive = self.state.conn.as_mut().is_some_and(Connected::alive);
        if !alive {
            self.state.crashed = true;
        }
    }

    /// Whether the current tab's renderer crashed during this call.
    pub fn current_tab_crashed(&self) -> bool {
        let current = self.current_id();
        self.state
            .tabs
            .iter()
            .find(|t| Some(t.id.as_str()) == current)
            .and_then(|t| t.live.as_ref())
            .is_some_and(|l| l.crashed.load(Ordering::SeqCst))
    }

    /// Whether the browser is still alive.
    pub fn alive(&mut self) -> bool {
        self.state.conn.as_mut().is_some_and(Connected::alive)
    }

    /// Bring the tab list in line with the browser: new tabs (opened by a
    /// page with target=_blank or window.open) get the next id; closed
    /// ones go; the current tab falls back to the last one.
    pub async fn sync_tabs(&mut self) -> Result<()> {
        let targets = match page_targets(self.conn()?).await {
            Ok(t) => t,
            Err(e) => {
                self.mark_crashed();
                return Err(if self.state.crashed { crashed() } else { e });
            }
        };
        let starting = self.state.startup_until.is_some_and(|t| Instant::now() < t);
        let mut targets = targets;
        if starting {
            let mut kept = Vec::with_capacity(targets.len());
            for (target, url, title, by_page) in targets {
                let start_page =
                    url.is_empty() || url.starts_with("chrome://newtab") || url.starts_with("chrome://new-tab-page");
                if start_page && by_page.is_none() && !self.state.tabs.iter().any(|t| t.target == target) {
                    let _ = self.conn()?.browser.execute(CloseTargetParams::new(target)).await;
                } else {
                    kept.push((target, url, title, by_page));
                }
            }
            targets = kept;
        }
        let owner = self.owner.clone();
        let state = &mut *self.state;
        state.tabs.retain(|t| targets.iter().any(|(id, _, _, _)| id == &t.target));
        let open: Vec<String> = state.tabs.iter().map(|t| t.id.clone()).collect();
        state.owners.retain(|tab, _| open.contains(tab));
        state.behind.retain(|tab, _| open.contains(tab));
        self.attached
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(id, _)| state.tabs.iter().any(|t| &t.id == id));
        for (target, url, title, opener) in targets {
            if let Some(tab) = state.tabs.iter_mut().find(|t| t.target == target) {
                tab.url = url;
                tab.title = title;
            } else {
                state.next_tab += 1;
                let id = format!("tab-{}", state.next_tab);
                // A tab a page opened belongs to whoever holds that page.
                let opener_tab = opener.and_then(|o| state.tabs.iter().find(|t| t.target == o).map(|t| t.id.clone()));
                if let Some(o) = &opener_tab {
                    if let Some(run) = state.owners.get(o).cloned() {
                        state.owners.insert(id.clone(), run);
                    }
                    if let Some(run) = state.behind.get(o).cloned() {
                        state.behind.insert(id.clone(), run);
                    }
                }
                state.tabs.push(Tab { id, target, url, title, live: None });
            }
        }
        // Keep ids increasing with age so the list reads in opening order.
        state.tabs.sort_by_key(|t| t.id.trim_start_matches("tab-").parse::<u32>().unwrap_or(u32::MAX));
        if state.current.as_ref().is_none_or(|c| !state.tabs.iter().any(|t| &t.id == c)) {
            // The user's tab: the last one no run holds, else the last one.
            let free = state.tabs.iter().rev().find(|t| !state.owners.contains_key(&t.id));
            state.current = free.or(state.tabs.last()).map(|t| t.id.clone());
        }
        // A run whose current tab closed goes on in the last tab it holds.
        let State { run_current, owners, tabs, .. } = state;
        run_current.retain(|_, tab| tabs.iter().any(|t| &t.id == tab));
        if let Some(run) = &owner
            && !run_current.contains_key(run)
            && let Some(last) = tabs.iter().rev().find(|t| owners.get(&t.id) == Some(run))
        {
            run_current.insert(run.clone(), last.id.clone());
        }
        if state.tabs.is_empty() {
            let page = self.conn()?.browser.new_page(CreateTargetParams::new("about:blank")).await;
            let page = match page {
                Ok(page) => page,
                Err(e) => return Err(self.fail(e)),
            };
            let state = &mut *self.state;
            state.next_tab += 1;
            let id = format!("tab-{}", state.next_tab);
            state.tabs.push(Tab {
                id: id.clone(),
                target: page.target_id().clone(),
                url: "about:blank".into(),
                title: String::new(),
                live: None,
            });
            state.current = Some(id);
        }
        Ok(())
    }

    /// The tabs this call may use: its run's and the ones no run holds
    /// (every tab, for a direct call).
    pub fn tabs(&self) -> Vec<&Tab> {
        self.state.tabs.iter().filter(|t| self.usable(&t.id)).collect()
    }

    /// Whether this call's run holds tab `id` and works in the background:
    /// a tab it opened itself behind the user's, which the user never saw.
    pub fn own_background_tab(&self, id: &str) -> bool {
        !self.foreground && self.owner.as_ref().is_some_and(|me| self.state.owners.get(id) == Some(me))
    }

    /// Whether this call may use tab `id`: no other run holds it.
    fn usable(&self, id: &str) -> bool {
        match (&self.owner, self.state.owners.get(id)) {
            (Some(me), Some(holder)) => me == holder,
            _ => true,
        }
    }

    /// The call's current tab: its run's, or the user's for a direct call.
    pub fn current_id(&self) -> Option<&str> {
        match &self.owner {
            Some(run) => self.state.run_current.get(run).map(String::as_str),
            None => self.state.current.as_deref(),
        }
    }

    /// Make `id` the call's current tab (its run now holds it).
    pub fn set_current(&mut self, id: &str) -> Result<()> {
        if !self.state.tabs.iter().any(|t| t.id == id) || !self.usable(id) {
            return Err(self.tab_not_found(id));
        }
        self.hold(id);
        Ok(())
    }

    /// The call's run holds tab `id` and makes it current; a direct call or
    /// a run in the foreground makes it the user's current tab too.
    fn hold(&mut self, id: &str) {
        if let Some(run) = &self.owner {
            self.state.owners.insert(id.to_owned(), run.clone());
            self.state.run_current.insert(run.clone(), id.to_owned());
        }
        if self.owner.is_none() || self.foreground {
            self.state.current = Some(id.to_owned());
        }
    }

    pub fn tab_not_found(&self, id: &str) -> Error {
        let open: Vec<&str> = self.tabs().iter().map(|t| t.id.as_str()).collect();
        let why = if self.state.tabs.iter().any(|t| t.id == id) {
            format!("tab `{id}` is in use by another run")
        } else {
            format!("no open tab `{id}`")
        };
        Error::new(
            ErrorCode::TabNotFound,
            format!("{why}; tabs you can use: {} (see browser_list_tabs)", open.join(", ")),
        )
    }

    /// The tab a call that names none acts on: its run's current tab; a
    /// run without one yet is handed the user's tab when it acts in the
    /// foreground (and no other run holds it), else it opens its own.
    async fn current_or_own(&mut self) -> Result<String> {
        if let Some(id) = self.current_id() {
            return Ok(id.to_owned());
        }
        if self.owner.is_none() {
            return Err(Error::new(ErrorCode::TabNotFound, "no tab is open"));
        }
        if self.foreground
            && let Some(user) = self.state.current.clone()
            && !self.state.owners.contains_key(&user)
        {
            self.hold(&user);
            return Ok(user);
        }
        Ok(self.new_tab("about:blank").await?.id)
    }

    /// The page of a tab (`None`: the current one), attached and tracked.
    /// A run that names a tab no run holds is handed it.
    pub async fn page(&mut self, tab: Option<&str>) -> Result<TabHandle> {
        let id = match tab {
            Some(id) => {
                if !self.usable(id) {
                    return Err(self.tab_not_found(id));
                }
                if self.owner.is_some() && self.state.tabs.iter().any(|t| t.id == id) {
                    let run = self.owner.clone().unwrap_or_default();
                    self.state.owners.insert(id.to_owned(), run);
                }
                id.to_owned()
            }
            None => self.current_or_own().await?,
        };
        let idx = self.state.tabs.iter().position(|t| t.id == id).ok_or_else(|| self.tab_not_found(&id))?;
        if let Some(live) = self.state.tabs[idx].live.clone() {
            if live.crashed.swap(false, Ordering::SeqCst) {
                // The tab's renderer died: load its page again (a navigation,
                // never a replayed action) before using it.
                tracing::warn!("{} crashed; reloading it", live.id);
                live.world.reset();
                if let Err(e) = live.page.execute(ReloadParams::default()).await {
                    return Err(self.fail(e));
                }
                let _ = super::page::wait_for_load(&live, WaitUntil::DomContentLoaded, Duration::from_secs(15)).await;
            }
            return Ok(live);
        }
        let target = self.state.tabs[idx].target.clone();
        let page = self.attach(target).await?;
        let net = NetTracker::start(&page).await;
        let crashed = Arc::new(AtomicBool::new(false));
        if let Ok(mut events) = page.event_listener::<EventTargetCrashed>().await {
            let flag = Arc::clone(&crashed);
            tokio::spawn(async move {
                while events.next().await.is_some() {
                    flag.store(true, Ordering::SeqCst);
                }
            });
        }
        let expected = self.state.tabs[idx].url.clone();
        let gone = Arc::clone(&self.conn()?.gone);
        let handle = TabHandle { id, page, net, world: World::new(), crashed, gone };
        // A tab reopened after a relaunch, or just opened by a page, may
        // still be loading: let its document be parsed before it is used.
        // A new target shows about:blank until its own URL commits, so wait
        // for that first (a loaded machine can be slow to get there).
        if !expected.is_empty() && expected != "about:blank" {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while std::time::Instant::now() < deadline {
                match handle.page.url().await {
                    Ok(Some(u)) if u != "about:blank" => break,
                    Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                    Err(_) => break,
                }
            }
        }
        let _ = super::page::wait_for_load(&handle, WaitUntil::DomContentLoaded, Duration::from_secs(10)).await;
        self.state.tabs[idx].live = Some(handle.clone());
        let mut attached = self.attached.lock().unwrap_or_else(|e| e.into_inner());
        attached.retain(|(t, _)| t != &handle.id);
        attached.push((handle.id.clone(), handle.page.clone()));
        Ok(handle)
    }

    /// chromiumoxide attaches to new targets on its own; wait for it.
    async fn attach(&mut self, target: TargetId) -> Result<Page> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match self.conn()?.browser.get_page(target.clone()).await {
                Ok(page) => return Ok(page),
                Err(e) if Instant::now() >= deadline || !self.alive() => return Err(self.fail(e)),
                Err(_) => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    }

    /// Open a new tab, held by the call's run, and make it current. A run
    /// in the background opens it behind the user's tab.
    pub async fn new_tab(&mut self, url: &str) -> Result<TabHandle> {
        let mut params = CreateTargetParams::new(url);
        if !self.foreground {
            params.background = Some(true);
        }
        let page = match self.conn()?.browser.new_page(params).await {
            Ok(p) => p,
            Err(e) => return Err(self.fail(e)),
        };
        let target = page.target_id().clone();
        self.sync_tabs().await?;
        let id = self
            .state
            .tabs
            .iter()
            .find(|t| t.target == target)
            .map(|t| t.id.clone())
            .ok_or_else(|| Error::internal("the new tab vanished"))?;
        self.hold(&id);
        if !self.foreground
            && let Some(run) = &self.owner
        {
            self.state.behind.insert(id.clone(), run.clone());
        }
        Box::pin(self.page(Some(&id))).await
    }

    /// Close a tab; returns the id of the tab that is current afterwards.
    pub async fn close_tab(&mut self, id: &str) -> Result<Option<String>> {
        let handle = self.page(Some(id)).await?;
        if let Err(e) = handle.page.close().await {
            return Err(self.fail(e));
        }
        // Wait until the browser has dropped the target.
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            self.sync_tabs().await?;
            if !self.state.tabs.iter().any(|t| t.id == id) || Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        Ok(self.current_id().map(str::to_owned))
    }

    /// Remember what a tab shows (for reopening after a crash).
    pub fn note_url(&mut self, id: &str, url: &str, title: &str) {
        if let Some(tab) = self.state.tabs.iter_mut().find(|t| t.id == id) {
            url.clone_into(&mut tab.url);
            title.clone_into(&mut tab.title);
        }
    }
}

/// A tab ready for commands.
#[derive(Clone)]
pub(crate) struct TabHandle {
    pub id: String,
    pub page: Page,
    pub net: Arc<NetTracker>,
    pub world: Arc<World>,
    /// Set when the tab's renderer crashed; the next use reloads it.
    pub crashed: Arc<AtomicBool>,
    /// Set when the whole browser is gone (its process exited or its
    /// DevTools connection closed): waits on the tab end at once.
    pub gone: Arc<AtomicBool>,
}

impl TabHandle {
    /// `browser_crashed` once the browser is gone, so a wait stops at once
    /// instead of polling a dead page until its deadline.
    pub fn check_alive(&self) -> Result<()> {
        if self.gone.load(Ordering::SeqCst) { Err(crashed()) } else { Ok(()) }
    }
}
