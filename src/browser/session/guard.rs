//! [`Guard`]: one tool call's exclusive use of the browser, seen as its run
//! sees it: the tabs it may use, its current tab, tabs attached, opened and
//! closed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::inspector::EventTargetCrashed;
use chromiumoxide::cdp::browser_protocol::page::ReloadParams;
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, CreateTargetParams, TargetId};
use futures::StreamExt;
use tokio::sync::MutexGuard;

use crate::tools::catalogue::navigation::WaitUntil;

use super::super::cdp::{cdp_error, crashed};
use super::super::launch::Connected;
use super::super::net::NetTracker;
use super::super::runtime::World;
use super::handle::TabHandle;
use super::relaunch::page_targets;
use super::{State, Tab};
use crate::error::{Error, ErrorCode, Result};

/// Exclusive use of the browser for one tool call, seen as the call's run
/// sees it.
pub(crate) struct Guard<'a> {
    pub(super) state: MutexGuard<'a, State>,
    pub(super) attached: &'a std::sync::Mutex<Vec<(String, Page)>>,
    /// The call's run (`None`: a direct call, the user's).
    pub(super) owner: Option<String>,
    /// Whether the run acts in front of the user.
    pub(super) foreground: bool,
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
                let _ = super::super::page::wait_for_load(&live, WaitUntil::DomContentLoaded, Duration::from_secs(15))
                    .await;
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
        let hub = Arc::clone(&self.conn()?.hub);
        let handle = TabHandle {
            id,
            page,
            net,
            world: World::new(),
            crashed,
            gone,
            wire: Arc::default(),
            hub,
            filled: Arc::default(),
        };
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
        let _ = super::super::page::wait_for_load(&handle, WaitUntil::DomContentLoaded, Duration::from_secs(10)).await;
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
