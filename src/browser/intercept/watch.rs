//! What a page really sends while an agent action runs: CDP `Fetch`
//! interception (request stage). Requests that cannot change
//! anything on their own (GET, HEAD and OPTIONS with no body) go on at
//! once, unless the watcher wants to read them (one to another site, which
//! may carry the user's data away in its address, host name, fragment or
//! headers; one whose address orders); every other one (a form POST, `fetch`/XHR with a body, a beacon,
//! PUT/PATCH/DELETE) is held and handed to whoever watches, who lets it go
//! or fails it ([`WireWatch::decide`]). The grading is the gate's
//! (`gate::classify::wire`), joined to this by the browser tools
//! (`builtin::browser::wire`).
//!
//! A watch is on a tab from the first tool call a run makes on it, and is
//! not turned off when an action ends: it stays on the tab, judging what
//! the page sends by itself ([`Idle`]: a page's order as it loads, a
//! timer's, a slow handler's POST, a worker's), however long after, until
//! the next action on the tab takes it back or the run that holds the tab
//! ends.
//!
//! The interception itself is the browser's, shared by every tab's watch
//! ([`Hub`]): what a tab's out-of-process iframes and its popups send is
//! held with what its own frames send.
//!
//! `Fetch` does not pause a WebSocket's handshake, nor see a WebRTC
//! connection: those are held at the browser's relay (`intercept::relay`),
//! as a connection to a new site that no request explains, and handed to
//! the watch as a `CONNECT` ([`Outgoing::opens`]).

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{EventRequestPaused, RequestId};
use std::sync::{Arc, Mutex};

use std::future::Future;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::hub::{Hub, Route};
use crate::error::Result;

/// A request the page is about to send, held until decided.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    pub id: RequestId,
    /// `POST`.
    pub method: String,
    /// The URL with the fragment the page gave it (not sent to the
    /// server, but read by the page it opens).
    pub url: String,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// Every header as Chromium will send it (the Referer among them),
    /// for the gate to search for the user's values.
    pub headers: Vec<(String, String)>,
    /// The body as sent (bytes as UTF-8, lossy), if any.
    pub body: Option<String>,
    /// A document's request (a navigation, a form posted to a frame or the
    /// tab), not a page's script or resource request.
    pub navigates: bool,
    /// Seen only after it left (a message over an encrypted WebSocket,
    /// reported by the tab's session): graded, never asked about; one
    /// that would be asked about closes its socket.
    pub sent: bool,
}

impl Outgoing {
    /// A request that cannot change anything by itself: no body, and a
    /// method that only reads.
    pub fn reads_only(&self) -> bool {
        matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS") && self.body.is_none()
    }

    /// A message a page sent over a WebSocket (read by the relay), not a
    /// request: its body is the message.
    pub fn is_message(&self) -> bool {
        self.method == MESSAGE
    }

    /// A connection no request explains (a WebSocket, a call: seen by the
    /// relay, `CONNECT`), not a request.
    pub fn opens(&self) -> bool {
        self.method == "CONNECT"
    }
}

/// The method a WebSocket's message is graded under, as a request body
/// sent to the socket's address ([`Outgoing::is_message`]).
pub(crate) const MESSAGE: &str = "MESSAGE";

/// What becomes of a held request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Sent as it is.
    Continue,
    /// Never sent (the page sees a network error, "blocked by client").
    Fail,
}

/// The interception of one tab's requests (its frames, its out-of-process
/// iframes, the popups it opens: [`Hub`]), on while this lives. However
/// it ends ([`WireWatch::stop`], or dropped with a cancelled call), every
/// held request not decided yet is failed, never let go ungraded, and the
/// tab's route is removed (the browser's interception goes off with the
/// last one: a browser left intercepting with nobody listening would hang
/// all its requests).
pub(crate) struct WireWatch {
    hub: Arc<Hub>,
    route: Arc<Route>,
    held: mpsc::UnboundedReceiver<Outgoing>,
    stopped: bool,
}

impl WireWatch {
    /// Start holding the tab's requests: those that may change something,
    /// and the reads `hold_read(url, home)` picks (`home`: the page's URL
    /// as [`WireWatch::set_home`] last said).
    pub async fn start(hub: &Arc<Hub>, page: &Page, hold_read: fn(&str, &str) -> bool) -> Result<WireWatch> {
        // A browser whose requests the hub cannot see: no action runs.
        hub.check()?;
        let (route, held) = hub.add(page, hold_read).await?;
        Ok(WireWatch { hub: Arc::clone(hub), route, held, stopped: false })
    }

    /// The URL of the page the tab shows, kept by the hub as the tab
    /// navigates (shared: read it when a request is judged).
    pub fn home(&self) -> Arc<Mutex<String>> {
        Arc::clone(&self.route.home)
    }

    /// The page the tab shows now (for `hold_read`).
    pub fn set_home(&self, url: &str) {
        if let Ok(mut home) = self.route.home.lock() {
            url.clone_into(&mut home);
        }
    }

    /// The next held request (`None` once the tab's events end).
    pub async fn next(&mut self) -> Option<Outgoing> {
        self.held.recv().await
    }

    /// Let `request` go, or fail it. Letting go is not awaited: the
    /// watch judges the next request while the browser is told (a page's
    /// loads held for a look at their address go on side by side, not one
    /// browser round trip after another); a failure is, so that it is done
    /// before anything after it.
    pub async fn decide(&self, request: &Outgoing, verdict: Verdict) {
        let id = request.id.clone();
        if let Ok(mut pending) = self.route.undecided.lock() {
            pending.retain(|p| *p != id);
        }
        if verdict == Verdict::Continue {
            let (hub, route) = (Arc::clone(&self.hub), Arc::clone(&self.route));
            tokio::spawn(async move {
                if let Err(e) = hub.decide(&route, id.clone(), true).await {
                    tracing::debug!("wire: cannot let request {} go: {e}", id.as_ref());
                }
            });
        } else if let Err(e) = self.hub.decide(&self.route, id, false).await {
            tracing::debug!("wire: cannot fail {} {}: {e}", request.method, request.url);
        }
    }

    /// The tab closed: keep judging its site's service workers
    /// ([`Hub::retire`]); `false` when there is nothing to keep it for.
    pub async fn retire(&self) -> bool {
        self.hub.retire(&self.route).await
    }

    /// Whether the retired watch is still kept ([`Hub::keeps`]).
    pub fn kept(&self) -> bool {
        self.hub.keeps(&self.route)
    }

    /// Stop holding requests: a request still held was never graded, so it
    /// is failed; then the tab's route is removed.
    pub async fn stop(mut self) {
        self.stopped = true;
        self.held.close();
        while let Ok(left) = self.held.try_recv() {
            tracing::warn!("wire: {} {} was never graded; not sent", left.method, left.url);
        }
        end(&self.hub, &self.route).await;
    }
}

impl Drop for WireWatch {
    fn drop(&mut self) {
        if self.stopped {
            return;
        }
        // Dropped with its call (cancelled): the same end, as a task.
        let (hub, route) = (Arc::clone(&self.hub), Arc::clone(&self.route));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { end(&hub, &route).await });
        }
    }
}

/// Remove the route (nothing more is held for it), then fail what it
/// holds undecided.
async fn end(hub: &Hub, route: &Route) {
    hub.remove(route).await;
    hub.fail_all(route).await;
}

pub(super) fn outgoing(event: &EventRequestPaused) -> Outgoing {
    let request = &event.request;
    let headers: Vec<(String, String)> = request
        .headers
        .inner()
        .as_object()
        .map(|h| h.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned))).collect())
        .unwrap_or_default();
    let content_type = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-type")).map(|(_, v)| v.clone());
    let body = request.post_data_entries.as_ref().map(|entries| {
        let mut bytes = Vec::new();
        for entry in entries {
            if let Some(b) = &entry.bytes
                && let Ok(mut decoded) = base64::engine::general_purpose::STANDARD.decode(AsRef::<str>::as_ref(b))
            {
                bytes.append(&mut decoded);
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let body = body.or_else(|| request.has_post_data.filter(|h| *h).map(|_| String::new()));
    Outgoing {
        id: event.request_id.clone(),
        method: request.method.to_ascii_uppercase(),
        url: format!("{}{}", request.url, request.url_fragment.as_deref().unwrap_or_default()),
        content_type,
        headers,
        body,
        navigates: event.resource_type == chromiumoxide::cdp::browser_protocol::network::ResourceType::Document,
        sent: false,
    }
}

/// A tab's watch between two actions, as the tab keeps it
/// (`TabHandle::wire`).
pub(crate) type WireSlot = Arc<tokio::sync::Mutex<Option<Idle>>>;

/// A watch judging what a page sends between actions, on a task of its
/// own, until an action takes it back ([`Idle::take`]) or the browser
/// closes; once the tab closed, only for its site's service workers
/// ([`WireWatch::retire`]). It has no
/// time limit: a page's order a minute after the last action is judged
/// like one a second after it, and it outlives the run that set it: a
/// page the agent left keeps being judged after its run ended, until
/// another run takes the tab (and judges it as its own).
pub(crate) struct Idle {
    handback: oneshot::Sender<()>,
    task: JoinHandle<Option<WireWatch>>,
    /// What was blocked since, as `judge` named it: told to the model.
    blocked: Arc<Mutex<Vec<String>>>,
    /// The run whose context judges (`None`: a direct call's).
    owner: Option<String>,
}

impl Idle {
    /// Judge each request `watch` holds with `judge` (run `owner`'s) until
    /// taken back; `judge` names what it blocks.
    pub fn spawn<F, Fut>(mut watch: WireWatch, owner: Option<String>, judge: F) -> Idle
    where
        F: Fn(Outgoing) -> Fut + Send + 'static,
        Fut: Future<Output = (Verdict, Option<String>)> + Send,
    {
        let (handback, mut back) = oneshot::channel::<()>();
        let blocked = Arc::new(Mutex::new(Vec::new()));
        let named = Arc::clone(&blocked);
        let task = tokio::spawn(async move {
            let handed = loop {
                tokio::select! {
                    biased;
                    back = &mut back => break back.is_ok(),
                    held = watch.next() => {
                        let Some(held) = held else { break false };
                        let (verdict, why) = judge(held.clone()).await;
                        watch.decide(&held, verdict).await;
                        if let (Some(why), Ok(mut named)) = (why, named.lock()) {
                            named.push(why);
                        }
                    }
                }
            };
            if handed {
                return Some(watch);
            }
            // The tab is gone (its handle dropped with it): the watch is
            // kept for its site's service workers, which outlive it, and
            // judges what they send, asked in the same context, until the
            // browser closes or newer closed tabs take its place.
            if watch.retire().await {
                loop {
                    tokio::select! {
                        held = watch.next() => {
                            let Some(held) = held else { break };
                            let (verdict, _) = judge(held.clone()).await;
                            watch.decide(&held, verdict).await;
                        }
                        () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {
                            if !watch.kept() {
                                break;
                            }
                        }
                    }
                }
            }
            watch.stop().await;
            None
        });
        Idle { handback, task, blocked, owner }
    }

    /// The run whose context judges.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// What was blocked since the last call, taken (each told once).
    pub fn blocked(&self) -> Vec<String> {
        self.blocked.lock().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default()
    }

    /// The watch back, for the next action (`None`: it had ended), with
    /// what it blocked and nobody was told yet (a request it was judging
    /// when asked back is judged first).
    pub async fn take(self) -> (Option<WireWatch>, Vec<String>) {
        let _ = self.handback.send(());
        let watch = self.task.await.ok().flatten();
        (watch, self.blocked.lock().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default())
    }
}

/// The person's values typed into a tab's page bind the tab to that page's
/// site (issue 42, item 3): from the first fill on, a request of the tab to
/// any other site may carry them, in whatever encoding the page picks
/// (base64 of the reverse, spelled out, split...), so it is asked, whatever
/// it looks like. Only what the tab already sent to other sites before the
/// fill (the same address again cannot carry a value typed later), and the
/// sites the person approved a request to since, go unasked.
#[derive(Debug, Default)]
pub struct Filled {
    /// What was typed (its label) and the site it was given to.
    given: Vec<(String, String)>,
    /// Other sites' addresses the tab sent before the first fill.
    before: std::collections::HashSet<String>,
    /// Sites the person approved a request to after a fill.
    allowed: Vec<String>,
}

/// The most addresses [`Filled`] remembers from before the first fill.
const BEFORE_KEPT: usize = 4096;

impl Filled {
    /// The person's values `labels` are being typed into `page_url`'s page.
    pub fn fill(&mut self, labels: &[String], page_url: &str) {
        let Some(site) = crate::vocab::origin::site_of(page_url) else { return };
        for label in labels {
            if !self.given.iter().any(|(l, s)| l == label && *s == site) {
                self.given.push((label.clone(), site.clone()));
            }
        }
    }

    /// A request to `url` was let go (before any fill, it may go again).
    pub fn sent(&mut self, url: &str) {
        if self.given.is_empty() && self.before.len() < BEFORE_KEPT {
            self.before.insert(url.to_owned());
        }
    }

    /// The person approved a request to `url`'s site after a fill.
    pub fn allow(&mut self, url: &str) {
        if let Some(site) = crate::vocab::origin::site_of(url)
            && !self.allowed.contains(&site)
        {
            self.allowed.push(site);
        }
    }

    /// Why a request to `url` must be asked about: after a fill, to a site
    /// the values were not given to, not sent before, not approved since.
    pub fn asks(&self, url: &str) -> Option<String> {
        if self.given.is_empty() || self.before.contains(url) {
            return None;
        }
        let dest = crate::vocab::origin::site_of(url)?;
        if self.allowed.contains(&dest) {
            return None;
        }
        let elsewhere: Vec<&(String, String)> = self.given.iter().filter(|(_, site)| *site != dest).collect();
        if elsewhere.is_empty() {
            return None;
        }
        let what: Vec<String> =
            elsewhere.iter().map(|(label, site)| format!("your {label} (typed into {site})")).collect();
        Some(format!(
            "after {} the page sends to {dest}, another site: whatever it carries may be that value, in any \
             encoding: SUBMIT",
            what.join(" and ")
        ))
    }
}
