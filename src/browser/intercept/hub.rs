//! The browser-wide interception the tabs' watches share ([`Hub`]).
//!
//! `Fetch` is enabled on the browser's own DevTools session, not on each
//! tab's: there it pauses the requests of every target, so what a tab's
//! out-of-process iframes (another site's frame is another renderer, and
//! another target) and the popups it opens send is held as well as what
//! its own frames send. A tab's own session would see none of those: its
//! children are attached and resumed by chromiumoxide before anyone could
//! enable anything on them.
//!
//! It is enabled once, as soon as the browser is connected, and stays on:
//! Chromium applies the browser's interception only to targets created
//! after it was enabled (an iframe already loaded when it is turned on is
//! never paused; seen on Chromium 156), so turning it on for an action
//! would miss the frames the page had already loaded. While no tab is
//! watched its one pattern matches no URL ([`Hub::fit`]): every target is
//! still created under the interception, yet nothing waits on Halley; the
//! first watch widens it to every request before its action starts, and
//! the last one to end narrows it again. A tab that existed
//! before (in a browser Halley attached to rather than started) is
//! intercepted on its own session while it is watched, as all tabs were
//! before; its out-of-process iframes are not covered.
//!
//! Each paused request is given to the watch of the tab it belongs to
//! ([`Hub::owner`]): the tab's own frames; an iframe target, by the frame
//! that holds it; a popup, by the tab that opened it. A request of a tab
//! nobody watches goes on at once, without looking further.
//!
//! A shared or service worker belongs to no tab: a watched tab of its site
//! judges it, else the newest watch. A service worker also outlives its
//! page, so the watch of a tab that closed is kept ([`Hub::retire`]) and
//! judges what a worker of the site it showed last sends while one runs
//! (the interception widened as the worker starts, [`Hub::worker_starts`],
//! before it is let run), even when no tab is watched at all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use chromiumoxide::Browser;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, DisableParams, EnableParams, EventRequestPaused, FailRequestParams, RequestId,
    RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::ErrorReason;
use chromiumoxide::cdp::browser_protocol::target::{
    EventTargetDestroyed, GetTargetInfoParams, GetTargetsParams, TargetId,
};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::super::cdp::cdp_error;
use super::watch::{MESSAGE, Outgoing, outgoing};
use crate::error::{Error, ErrorCode, Result};
use crate::vocab::origin::same_site;

/// How far a frame is followed up to its tab (iframe in iframe, popup of
/// a popup).
const MAX_DEPTH: usize = 6;

/// One tab's watch, as the hub routes requests to it.
pub(crate) struct Route {
    id: u64,
    /// The tab's target (its main frame has the same id).
    target: String,
    page: Page,
    /// The URL of the page the tab shows, as of the last action.
    pub home: Arc<Mutex<String>>,
    /// Reads to hold too (`hold_read(url, home)`); others go on at once.
    hold_read: fn(&str, &str) -> bool,
    tx: mpsc::UnboundedSender<Outgoing>,
    /// The held requests not decided yet.
    pub undecided: Arc<Mutex<Vec<RequestId>>>,
    /// For a tab open before the browser's interception was on (Chromium
    /// does not apply it there): its own session's interception, and the
    /// requests paused there (decided there).
    own: Mutex<Option<JoinHandle<()>>>,
    paused_own: Mutex<std::collections::HashSet<String>>,
    /// Keeps [`Route::home`] on the page the tab shows (its main frame's
    /// navigations), so what a page sends is judged against the page that
    /// sent it, not the one the last action left.
    follows: Mutex<Option<JoinHandle<()>>>,
    /// Grades what the tab's page sends over an encrypted WebSocket, as
    /// the tab's session reports it ([`follow_sockets`]).
    sockets: Mutex<Option<JoinHandle<()>>>,
}

/// An encrypted WebSocket (`wss://`) the relay carries: it closes the
/// connection when told ([`Hub::close_encrypted`]).
struct Encrypted {
    host: String,
    port: u16,
    close: Weak<tokio::sync::Notify>,
}

/// The browser's interception, shared by the watches of all its tabs.
pub(crate) struct Hub {
    browser: Weak<Browser>,
    routes: Mutex<Routes>,
    listener: Mutex<Option<JoinHandle<()>>>,
    /// The page targets open when interception was turned on (a browser
    /// Halley attached to): each is watched on its own session instead.
    before: Mutex<std::collections::HashSet<String>>,
    /// Connections held for a watch's verdict, by their made-up request id.
    openings: Mutex<HashMap<String, tokio::sync::oneshot::Sender<bool>>>,
    /// Openings judged lately, and the verdict: Chromium tries a refused
    /// `wss://` again at once, which is not asked about twice.
    judged: Mutex<HashMap<String, (std::time::Instant, bool)>>,
    /// Why the relay could not connect to a host and port, lately, as
    /// Chromium would have named it (Chromium itself only says the proxy
    /// failed).
    unreachable: Mutex<HashMap<(String, u16), &'static str>>,
    /// The encrypted WebSockets open through the relay.
    encrypted: Mutex<Vec<Encrypted>>,
    /// Whether the browser's interception pauses every request (some tab is
    /// watched) or none ([`Hub::fit`]); held while it is changed.
    wide: tokio::sync::Mutex<bool>,
    /// The service workers running now (target id → script URL), as
    /// they start ([`Hub::worker_starts`]) and end.
    workers: Mutex<HashMap<String, String>>,
    /// Benchmarks only (feature `bench-knobs`): no interception, and the
    /// actions run without a watch, to time what the gate costs.
    #[cfg(feature = "bench-knobs")]
    ungated: bool,
}

/// The most watches of closed tabs kept for their sites' service workers
/// ([`Hub::retire`]); the oldest goes first.
const DORMANT_KEPT: usize = 16;

/// How long a verdict on an opening stands for the same address.
const JUDGED_FOR: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Default)]
struct Routes {
    next: u64,
    live: Vec<Arc<Route>>,
    /// Frame id → the target of the tab it was found to belong to (`None`:
    /// a tab nobody watched when it was asked; forgotten when a watch
    /// starts).
    frames: HashMap<String, Option<String>>,
    /// The watches of tabs that closed, kept for the service workers of
    /// the site each showed last ([`Hub::retire`]): a worker outlives its
    /// page (a timer under `waitUntil`, a Background Sync, a message the
    /// page sent as it went) and may send when no tab is watched at all.
    /// Each judges only while a worker of its site runs.
    dormant: Vec<Arc<Route>>,
}

impl Hub {
    /// Turn the browser's interception on, for good (see the module's
    /// notes), and route what it pauses.
    pub async fn start(browser: &Arc<Browser>) -> Result<Arc<Hub>> {
        let hub = Arc::new(Hub {
            browser: Arc::downgrade(browser),
            routes: Mutex::default(),
            listener: Mutex::default(),
            before: Mutex::default(),
            openings: Mutex::default(),
            judged: Mutex::default(),
            unreachable: Mutex::default(),
            encrypted: Mutex::default(),
            wide: tokio::sync::Mutex::new(false),
            workers: Mutex::default(),
            #[cfg(feature = "bench-knobs")]
            ungated: false,
        });
        let mut ended = browser.event_listener::<EventTargetDestroyed>().await.map_err(|e| cdp_error(e, true))?;
        let weak = Arc::downgrade(&hub);
        tokio::spawn(async move {
            while let Some(event) = ended.next().await {
                let Some(hub) = weak.upgrade() else { break };
                hub.worker_ends(event.target_id.as_ref()).await;
            }
        });
        let mut paused = browser.event_listener::<EventRequestPaused>().await.map_err(|e| cdp_error(e, true))?;
        let weak = Arc::downgrade(&hub);
        let listener = tokio::spawn(async move {
            while let Some(event) = paused.next().await {
                let Some(hub) = weak.upgrade() else { break };
                hub.route(&event).await;
            }
        });
        if let Ok(mut slot) = hub.listener.lock() {
            *slot = Some(listener);
        }
        browser.execute(patterns(false)).await.map_err(|e| cdp_error(e, true))?;
        let open = browser.execute(GetTargetsParams::default()).await.map_err(|e| cdp_error(e, true))?;
        if let Ok(mut before) = hub.before.lock() {
            before.extend(
                open.result.target_infos.iter().filter(|t| t.r#type == "page").map(|t| t.target_id.as_ref().to_owned()),
            );
        }
        Ok(hub)
    }

    /// A hub for no browser (one whose interception could not be turned
    /// on, being shut down).
    pub fn detached() -> Arc<Hub> {
        Arc::new(Hub {
            browser: Weak::new(),
            routes: Mutex::default(),
            listener: Mutex::default(),
            before: Mutex::default(),
            openings: Mutex::default(),
            judged: Mutex::default(),
            unreachable: Mutex::default(),
            encrypted: Mutex::default(),
            wide: tokio::sync::Mutex::new(false),
            workers: Mutex::default(),
            #[cfg(feature = "bench-knobs")]
            ungated: false,
        })
    }

    /// Benchmarks only: a hub for a browser the gate does not watch at all
    /// (its actions run unwatched; see [`Hub::ungated`]).
    #[cfg(feature = "bench-knobs")]
    pub fn ungated() -> Arc<Hub> {
        let mut hub = Hub::detached();
        if let Some(hub) = Arc::get_mut(&mut hub) {
            hub.ungated = true;
        }
        hub
    }

    /// Benchmarks only: whether the actions on this browser run unwatched.
    #[cfg(feature = "bench-knobs")]
    pub fn is_ungated(&self) -> bool {
        self.ungated
    }

    /// Whether this hub intercepts a live browser (not [`Hub::detached`]).
    pub fn check(&self) -> Result<()> {
        self.browser().map(|_| ())
    }

    fn browser(&self) -> Result<Arc<Browser>> {
        self.browser.upgrade().ok_or_else(|| Error::new(ErrorCode::BrowserCrashed, "the browser is closed"))
    }

    /// Start routing the requests of `page`'s tab (and its children) to
    /// the returned receiver. A tab open before interception was on is
    /// intercepted on its own session as well.
    pub async fn add(
        self: &Arc<Self>,
        page: &Page,
        hold_read: fn(&str, &str) -> bool,
    ) -> Result<(Arc<Route>, mpsc::UnboundedReceiver<Outgoing>)> {
        let (tx, rx) = mpsc::unbounded_channel();
        let target = page.target_id().as_ref().to_owned();
        let route = {
            let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
            routes.next += 1;
            let route = Arc::new(Route {
                id: routes.next,
                target: target.clone(),
                page: page.clone(),
                home: Arc::default(),
                hold_read,
                tx,
                undecided: Arc::default(),
                own: Mutex::default(),
                paused_own: Mutex::default(),
                follows: Mutex::default(),
                sockets: Mutex::default(),
            });
            routes.live.push(Arc::clone(&route));
            routes.frames.retain(|_, owner| owner.is_some());
            route
        };
        follow_home(&route).await;
        follow_sockets(self, &route).await;
        let before = self.before.lock().is_ok_and(|b| b.contains(&target));
        let on = if before { self.intercept_own(&route).await } else { Ok(()) };
        if let Err(e) = on.and(self.fit().await) {
            self.remove(&route).await;
            return Err(e);
        }
        Ok((route, rx))
    }

    /// Make the browser's interception pause every request while some tab
    /// is watched and none while none is. Done under [`Hub::wide`], from
    /// the routes as they are then, so that the last change made is the
    /// one the routes call for, however adds and removes interleave.
    async fn fit(&self) -> Result<()> {
        let mut wide = self.wide.lock().await;
        let want = !self.judging().is_empty();
        if want != *wide {
            self.browser()?.execute(patterns(want)).await.map_err(|e| cdp_error(e, true))?;
            *wide = want;
        }
        Ok(())
    }

    /// Intercept the requests of `route`'s tab on its own session.
    async fn intercept_own(self: &Arc<Self>, route: &Arc<Route>) -> Result<()> {
        let mut paused = route.page.event_listener::<EventRequestPaused>().await.map_err(|e| cdp_error(e, true))?;
        let (hub, on) = (Arc::downgrade(self), Arc::downgrade(route));
        let listener = tokio::spawn(async move {
            while let Some(event) = paused.next().await {
                let (Some(hub), Some(route)) = (hub.upgrade(), on.upgrade()) else { break };
                if let Ok(mut own) = route.paused_own.lock() {
                    own.insert(event.request_id.as_ref().to_owned());
                }
                hub.deliver(&route, &event).await;
            }
        });
        if let Ok(mut own) = route.own.lock() {
            *own = Some(listener);
        }
        route.page.execute(patterns(true)).await.map_err(|e| cdp_error(e, true))?;
        Ok(())
    }

    /// Stop routing to `route` (and intercepting its own session).
    pub async fn remove(&self, route: &Route) {
        {
            let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
            routes.live.retain(|r| r.id != route.id);
            routes.dormant.retain(|r| r.id != route.id);
        }
        if let Err(e) = self.fit().await {
            tracing::debug!("wire: the browser's interception stays wide: {e}");
        }
        if let Some(follows) = route.follows.lock().ok().and_then(|mut f| f.take()) {
            follows.abort();
        }
        if let Some(sockets) = route.sockets.lock().ok().and_then(|mut f| f.take()) {
            sockets.abort();
        }
        let own = route.own.lock().ok().and_then(|mut o| o.take());
        if let Some(listener) = own {
            listener.abort();
            let _ = route.page.execute(DisableParams::default()).await;
        }
    }

    /// Send `id` of `route` on, or fail it ("blocked by client"), on the
    /// session that paused it.
    pub async fn decide(&self, route: &Route, id: RequestId, go: bool) -> Result<()> {
        let held = self.openings.lock().ok().and_then(|mut o| o.remove(id.as_ref()));
        if let Some(held) = held {
            let _ = held.send(go);
            return Ok(());
        }
        let own = route.paused_own.lock().is_ok_and(|mut own| own.remove(id.as_ref()));
        let sent = if own {
            if go {
                route.page.execute(ContinueRequestParams::new(id)).await.map(|_| ())
            } else {
                route.page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient)).await.map(|_| ())
            }
        } else {
            let browser = self.browser()?;
            if go {
                browser.execute(ContinueRequestParams::new(id)).await.map(|_| ())
            } else {
                browser.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient)).await.map(|_| ())
            }
        };
        sent.map_err(|e| cdp_error(e, true))
    }

    /// Fail every request `route` holds and has not decided.
    pub async fn fail_all(&self, route: &Route) {
        let ids = route.undecided.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default();
        for id in ids {
            let _ = self.decide(route, id, false).await;
        }
    }

    /// Hand one paused request to its tab's watch, or let it go.
    async fn route(self: &Arc<Self>, event: &EventRequestPaused) {
        let id = event.request_id.clone();
        let watched = !self.judging().is_empty();
        let owner = if watched { self.owner(event.frame_id.as_ref()).await } else { None };
        let Some(route) = owner else {
            self.go(id);
            return;
        };
        // A tab watched on its own session: what its main frame sends is
        // judged there, not twice. (Its other frames may be another
        // renderer's, which only this session sees: judged here.)
        if route.own.lock().is_ok_and(|o| o.is_some()) && event.frame_id.as_ref() == route.target {
            self.go(id);
            return;
        }
        self.deliver(&route, event).await;
    }

    /// Judge-or-go for one request paused for `route` (on the browser's
    /// session or the tab's own).
    async fn deliver(self: &Arc<Self>, route: &Arc<Route>, event: &EventRequestPaused) {
        let id = event.request_id.clone();
        let outgoing = outgoing(event);
        let home = route.home.lock().map(|h| h.clone()).unwrap_or_default();
        if outgoing.reads_only() && !(route.hold_read)(&outgoing.url, &home) {
            // Not awaited in turn: a page's loads go on side by side.
            let (hub, route) = (Arc::clone(self), Arc::clone(route));
            tokio::spawn(async move { hub.decide(&route, id, true).await });
            return;
        }
        if let Ok(mut pending) = route.undecided.lock() {
            pending.push(id.clone());
        }
        if route.tx.send(outgoing).is_err() {
            // Nobody grades any more: not sent.
            self.fail_all(route).await;
        }
    }

    /// Let a request paused on the browser's session go, not awaited.
    fn go(self: &Arc<Self>, id: RequestId) {
        let Ok(browser) = self.browser() else { return };
        tokio::spawn(async move { browser.execute(ContinueRequestParams::new(id)).await });
    }

    /// The relay could not connect to `host` and `port`: `why`, as
    /// Chromium names network errors (`ERR_CONNECTION_REFUSED`).
    pub fn unreachable(&self, host: &str, port: u16, why: &'static str) {
        if let Ok(mut failed) = self.unreachable.lock() {
            if failed.len() > 256 {
                failed.clear();
            }
            failed.insert((host.to_ascii_lowercase(), port), why);
        }
    }

    /// Why the page at `url` could not be reached, when the relay knows
    /// (for "the proxy failed", which is all Chromium says).
    pub fn why_unreachable(&self, url: &str) -> Option<&'static str> {
        let u = url::Url::parse(url).ok()?;
        let host = match u.host()? {
            url::Host::Ipv6(ip) => ip.to_string(),
            other => other.to_string().to_ascii_lowercase(),
        };
        let port = u.port_or_known_default()?;
        self.unreachable.lock().ok()?.get(&(host, port)).copied()
    }

    /// Whether a connection to `host` and `port` goes on without a look
    /// at what it carries (asked by the relay before it connects): while
    /// no tab is watched, and to a watched tab's own site.
    pub fn admits(&self, host: &str, port: u16) -> bool {
        let url = format!("http://{}:{port}/", if host.contains(':') { format!("[{host}]") } else { host.to_owned() });
        let live = self.judging();
        live.is_empty()
            || live.iter().any(|route| route.home.lock().is_ok_and(|home| !home.is_empty() && same_site(&home, &url)))
    }

    /// Whether the browser may open `opening` (a WebSocket or a call to a
    /// new site, as a URL: `ws://`, `wss://`, `turn://`…): the newest
    /// watch judges it as a `CONNECT` to that address.
    pub async fn opening(&self, opening: String) -> bool {
        if let Ok(mut judged) = self.judged.lock() {
            judged.retain(|_, (at, _)| at.elapsed() < JUDGED_FOR);
            if let Some((_, go)) = judged.get(&opening) {
                return *go;
            }
        }
        let go = self.judge_opening(opening.clone()).await;
        if let Ok(mut judged) = self.judged.lock() {
            judged.insert(opening, (std::time::Instant::now(), go));
        }
        go
    }

    async fn judge_opening(&self, opening: String) -> bool {
        let route = match self.judging().last().cloned() {
            Some(route) => route,
            // The watches ended meanwhile: nobody to judge it, as before any.
            None => return true,
        };
        self.hold(&route, "CONNECT", opening, Vec::new(), None, false).await
    }

    /// Whether a message a page sends over a plain WebSocket (`ws://`, read
    /// by the relay) may go to `url`: the watch of the tab whose page
    /// opened it (by the handshake's `Origin`: a page of that site that is
    /// watched; else one showing the socket's site; else the newest) grades
    /// it like a request body sent there (`MESSAGE`). While no tab is
    /// watched it goes on, as every request does then.
    pub async fn message(&self, url: String, origin: Option<String>, text: String) -> bool {
        let live = self.judging();
        let shows = |site: &str| {
            live.iter().rev().find(|r| r.home.lock().is_ok_and(|h| !h.is_empty() && same_site(&h, site))).cloned()
        };
        let route = origin.as_deref().and_then(shows).or_else(|| shows(&url)).or_else(|| live.last().cloned());
        let Some(route) = route else { return true };
        let headers = origin.map(|o| vec![("Origin".to_owned(), o)]).unwrap_or_default();
        self.hold(&route, MESSAGE, url, headers, Some(text), false).await
    }

    /// An encrypted WebSocket the relay carries to `host` and `port`: the
    /// returned signal closes it ([`Hub::close_encrypted`]).
    pub fn encrypted_socket(&self, host: &str, port: u16) -> Arc<tokio::sync::Notify> {
        let close = Arc::new(tokio::sync::Notify::new());
        if let Ok(mut open) = self.encrypted.lock() {
            open.retain(|e| e.close.strong_count() > 0);
            open.push(Encrypted { host: host.to_ascii_lowercase(), port, close: Arc::downgrade(&close) });
        }
        close
    }

    /// Close the encrypted WebSockets open to `url`'s host and port.
    fn close_encrypted(&self, url: &str) {
        let Ok(u) = url::Url::parse(url) else { return };
        let host = u.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        let port = u.port_or_known_default().unwrap_or(443);
        if let Ok(open) = self.encrypted.lock() {
            for e in open.iter().filter(|e| e.host == host && e.port == port) {
                if let Some(close) = e.close.upgrade() {
                    close.notify_one();
                }
            }
        }
    }

    /// Hand what the relay holds (an opening, a socket's message) to
    /// `route`'s watch as a request, and wait for its verdict.
    async fn hold(
        &self,
        route: &Route,
        method: &str,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<String>,
        sent: bool,
    ) -> bool {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let id = {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let id =
                RequestId::from(format!("halley-held-{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
            let Ok(mut openings) = self.openings.lock() else { return false };
            openings.insert(id.as_ref().to_owned(), tx);
            id
        };
        if let Ok(mut pending) = route.undecided.lock() {
            pending.push(id.clone());
        }
        let content_type = body.as_ref().map(|_| "text/plain".to_owned());
        let held = Outgoing {
            id: id.clone(),
            method: method.into(),
            url,
            content_type,
            headers,
            body,
            navigates: false,
            sent,
        };
        if route.tx.send(held).is_err() {
            let _ = self.openings.lock().map(|mut o| o.remove(id.as_ref()));
            return false;
        }
        rx.await.unwrap_or(false)
    }

    /// The watches that judge now: the closed tabs' whose site has a
    /// service worker running, then the open tabs' (newest last).
    fn judging(&self) -> Vec<Arc<Route>> {
        let Ok(routes) = self.routes.lock() else { return Vec::new() };
        let mut judging: Vec<Arc<Route>> = Vec::new();
        if !routes.dormant.is_empty() {
            let workers: Vec<String> = self.workers.lock().map(|w| w.values().cloned().collect()).unwrap_or_default();
            judging.extend(
                routes
                    .dormant
                    .iter()
                    .filter(|r| {
                        r.home.lock().is_ok_and(|home| !home.is_empty() && workers.iter().any(|w| same_site(&home, w)))
                    })
                    .cloned(),
            );
        }
        judging.extend(routes.live.iter().cloned());
        judging
    }

    /// `route`'s tab closed: its watch is kept for the service workers of
    /// the site it showed last, judging what they send whenever one runs
    /// (see [`Routes::dormant`]); `false` when there is nothing to keep
    /// it for (a page of no site, a browser gone).
    pub async fn retire(&self, route: &Arc<Route>) -> bool {
        let site = route.home.lock().ok().and_then(|h| crate::vocab::origin::site_of(&h));
        if site.is_none() || self.check().is_err() {
            return false;
        }
        {
            let Ok(mut routes) = self.routes.lock() else { return false };
            if !routes.live.iter().any(|r| r.id == route.id) {
                return false;
            }
            routes.live.retain(|r| r.id != route.id);
            routes.dormant.push(Arc::clone(route));
            let over = routes.dormant.len().saturating_sub(DORMANT_KEPT);
            routes.dormant.drain(..over);
        }
        if let Err(e) = self.fit().await {
            tracing::debug!("wire: the browser's interception did not follow a closed tab: {e}");
        }
        true
    }

    /// Whether `route`, retired, is still kept (the browser runs, and it
    /// was not let go for newer ones).
    pub fn keeps(&self, route: &Route) -> bool {
        self.check().is_ok() && self.routes.lock().is_ok_and(|r| r.dormant.iter().any(|d| d.id == route.id))
    }

    /// A service worker (`target`, its script at `url`) is about to run:
    /// the watch of a closed tab of its site judges it from its first
    /// request on (the browser's interception widened first).
    pub async fn worker_starts(&self, target: String, url: String) {
        if let Ok(mut workers) = self.workers.lock() {
            workers.insert(target, url);
        }
        if let Err(e) = self.fit().await {
            tracing::debug!("wire: the browser's interception did not follow a service worker: {e}");
        }
    }

    /// Target `target` is gone: if it was a service worker, the watches of
    /// closed tabs of its site rest again.
    async fn worker_ends(&self, target: &str) {
        let was = self.workers.lock().is_ok_and(|mut w| w.remove(target).is_some());
        if was && let Err(e) = self.fit().await {
            tracing::debug!("wire: the browser's interception stays wide: {e}");
        }
    }

    /// The watch of the tab that frame `frame` belongs to, if any.
    async fn owner(&self, frame: &str) -> Option<Arc<Route>> {
        let mut at = frame.to_owned();
        for _ in 0..MAX_DEPTH {
            match self.known(&at) {
                Known::Route(route) => {
                    self.remember(frame, Some(&route.target));
                    return Some(route);
                }
                Known::Nobody => return None,
                Known::Unknown => {}
            }
            // A frame inside a watched tab's own renderer.
            let live: Vec<Arc<Route>> = self.routes.lock().map(|r| r.live.clone()).unwrap_or_default();
            for route in &live {
                if route.owns_frame(&at).await {
                    self.remember(frame, Some(&route.target));
                    return Some(Arc::clone(route));
                }
            }
            // Another target: an iframe's, or a popup's.
            let browser = self.browser().ok()?;
            let info = browser.execute(GetTargetInfoParams { target_id: Some(TargetId::from(at.clone())) }).await;
            match info {
                Ok(info) => {
                    let info = &info.result.target_info;
                    let up = info
                        .parent_frame_id
                        .as_ref()
                        .map(|f| f.as_ref().to_owned())
                        .or_else(|| info.opener_id.as_ref().map(|o| o.as_ref().to_owned()));
                    match up {
                        Some(up) => at = up,
                        None if info.r#type.contains("worker") => {
                            // A shared or service worker belongs to no
                            // tab: a page of its site that is watched
                            // judges it (a click's message can make it
                            // order), else the watch of a closed tab of
                            // its site, else the newest watch.
                            let site = self
                                .judging()
                                .iter()
                                .rev()
                                .find(|r| r.home.lock().is_ok_and(|h| !h.is_empty() && same_site(&h, &info.url)))
                                .or_else(|| live.last())
                                .cloned();
                            return site;
                        }
                        None => {
                            // A tab of its own that nobody watches.
                            self.remember(frame, None);
                            return None;
                        }
                    }
                }
                // A frame that is no target (inside an iframe's renderer,
                // or gone): the newest watch judges it, rather than nobody.
                Err(_) => return live.last().cloned(),
            }
        }
        self.routes.lock().ok().and_then(|r| r.live.last().cloned())
    }

    fn known(&self, frame: &str) -> Known {
        let routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        // A watched tab's own main frame (a popup watched in its own right
        // too: its own watch, not its opener's).
        if let Some(route) = routes.live.iter().rev().find(|r| r.target == frame) {
            return Known::Route(Arc::clone(route));
        }
        let target = match routes.frames.get(frame) {
            Some(None) => return Known::Nobody,
            Some(Some(target)) => target.as_str(),
            None => frame,
        };
        match routes.live.iter().rev().find(|r| r.target == target) {
            Some(route) => Known::Route(Arc::clone(route)),
            // Found before for a tab whose watch has ended: nobody now.
            None if routes.frames.contains_key(frame) => Known::Nobody,
            None => Known::Unknown,
        }
    }

    fn remember(&self, frame: &str, target: Option<&str>) {
        if let Ok(mut routes) = self.routes.lock() {
            routes.frames.insert(frame.to_owned(), target.map(str::to_owned));
        }
    }
}

/// Keep `route`'s home on the URL of the page its tab shows: each
/// navigation of its main frame, as the tab's session reports it.
async fn follow_home(route: &Arc<Route>) {
    use chromiumoxide::cdp::browser_protocol::page::EventFrameNavigated;
    if let Ok(Some(now)) = route.page.url().await
        && let Ok(mut home) = route.home.lock()
        && home.is_empty()
    {
        *home = now;
    }
    let Ok(mut navigated) = route.page.event_listener::<EventFrameNavigated>().await else { return };
    let home = Arc::downgrade(&route.home);
    let task = tokio::spawn(async move {
        while let Some(event) = navigated.next().await {
            if event.frame.parent_id.is_some() {
                continue;
            }
            let Some(home) = home.upgrade() else { break };
            if let Ok(mut home) = home.lock() {
                event.frame.url.clone_into(&mut home);
            }
        }
    });
    if let Ok(mut follows) = route.follows.lock() {
        *follows = Some(task);
    }
}

/// Grade what `route`'s page sends over an encrypted WebSocket
/// (`wss://`), which the relay cannot read: each message, as the tab's
/// session reports it sent (`Network.webSocketFrameSent`), is graded like
/// one the relay held ([`Hub::message`]), after the fact; one that would
/// be asked about closes the socket (the page sees it close) and the model
/// is told. (A plain `ws://` socket's messages are held by the relay
/// before they go: not graded twice.)
async fn follow_sockets(hub: &Arc<Hub>, route: &Arc<Route>) {
    use chromiumoxide::cdp::browser_protocol::network::{EventWebSocketCreated, EventWebSocketFrameSent};
    let (Ok(mut created), Ok(mut sent)) = (
        route.page.event_listener::<EventWebSocketCreated>().await,
        route.page.event_listener::<EventWebSocketFrameSent>().await,
    ) else {
        return;
    };
    let (hub, on) = (Arc::downgrade(hub), Arc::downgrade(route));
    let task = tokio::spawn(async move {
        let mut urls: HashMap<String, String> = HashMap::new();
        loop {
            tokio::select! {
                Some(made) = created.next() => {
                    if made.url.starts_with("wss:") {
                        if urls.len() > 256 {
                            urls.clear();
                        }
                        urls.insert(made.request_id.as_ref().to_owned(), made.url.clone());
                    }
                }
                Some(frame) = sent.next() => {
                    let Some(url) = urls.get(frame.request_id.as_ref()).cloned() else { continue };
                    let (Some(hub), Some(route)) = (hub.upgrade(), on.upgrade()) else { break };
                    let data = &frame.response.payload_data;
                    // Opcode 1 is text; 2 is binary, given in base64.
                    let text = if (frame.response.opcode - 1.0).abs() < f64::EPSILON {
                        data.clone()
                    } else {
                        use base64::Engine;
                        base64::engine::general_purpose::STANDARD
                            .decode(data)
                            .map_or_else(|_| data.clone(), |b| String::from_utf8_lossy(&b).into_owned())
                    };
                    let origin = route.home.lock().ok().and_then(|h| crate::vocab::origin::origin_of(&h));
                    let headers = origin.map(|o| vec![("Origin".to_owned(), o)]).unwrap_or_default();
                    if !hub.hold(&route, MESSAGE, url.clone(), headers, Some(text), true).await {
                        hub.close_encrypted(&url);
                    }
                }
                else => break,
            }
        }
    });
    if let Ok(mut slot) = route.sockets.lock() {
        *slot = Some(task);
    }
}

impl Route {
    /// Whether `frame` is one of the tab's own frames (its renderer's).
    async fn owns_frame(&self, frame: &str) -> bool {
        frame == self.target || self.page.frames().await.is_ok_and(|frames| frames.iter().any(|f| f.as_ref() == frame))
    }
}

/// `Fetch` on for every request, paused before it is sent (`every`), or
/// for none: a pattern no URL matches keeps the interception in place for
/// the targets created meanwhile, with nothing paused.
fn patterns(every: bool) -> EnableParams {
    let pattern = RequestPattern {
        url_pattern: Some(if every { "*" } else { "halley:nothing" }.into()),
        resource_type: None,
        request_stage: Some(RequestStage::Request),
    };
    EnableParams { patterns: Some(vec![pattern]), handle_auth_requests: None }
}

enum Known {
    Route(Arc<Route>),
    Nobody,
    Unknown,
}

impl Drop for Hub {
    fn drop(&mut self) {
        if let Ok(mut slot) = self.listener.lock()
            && let Some(listener) = slot.take()
        {
            listener.abort();
        }
    }
}
