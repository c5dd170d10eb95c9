//! Page-level mechanics shared by the tools: waiting for loads and network
//! idle, noticing navigations an action started, real mouse and keyboard
//! input.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams,
    MouseButton,
};
use chromiumoxide::cdp::browser_protocol::page::{
    EventFrameNavigated, EventFrameRequestedNavigation, EventFrameStartedLoading, EventFrameStoppedLoading,
};
use futures::{FutureExt as _, StreamExt};
use serde_json::Value;

use super::keys::KeyPress;
use super::net::IDLE_AFTER;
use super::runtime;
use super::session::TabHandle;
use crate::error::{Error, ErrorCode, Result};
use crate::tools::catalogue::navigation::WaitUntil;

/// How long after an action a navigation it caused is expected to start.
const NAV_START_WINDOW: Duration = Duration::from_millis(60);

/// How long a page that showed no navigation within [`NAV_START_WINDOW`]
/// is given to run two more tasks and show whether one is on its way.
const BUSY_PAGE_WITHIN: Duration = Duration::from_secs(2);

/// Poll interval of waits.
const POLL: Duration = Duration::from_millis(25);

/// Wait until the tab's document reaches `until`. Errors with `timeout`.
pub(crate) async fn wait_for_load(tab: &TabHandle, until: WaitUntil, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    let wanted = match until {
        WaitUntil::DomContentLoaded => "d.readyState !== 'loading'",
        WaitUntil::Load | WaitUntil::NetworkIdle => "d.readyState === 'complete'",
    };
    let expr = format!("(() => {{ const d = document; return {wanted}; }})()");
    loop {
        let ready = runtime::eval(tab, &expr, true).await.ok().flatten().and_then(|v| v.as_bool()).unwrap_or(false);
        if ready {
            break;
        }
        tab.check_alive()?;
        if Instant::now() >= deadline {
            return Err(timeout_error(until, timeout));
        }
        tokio::time::sleep(POLL).await;
    }
    if until == WaitUntil::NetworkIdle {
        wait_network_idle(tab, deadline.saturating_duration_since(Instant::now()))
            .await
            .map_err(|_| timeout_error(until, timeout))?;
    }
    Ok(())
}

fn timeout_error(until: WaitUntil, timeout: Duration) -> Error {
    let what = match until {
        WaitUntil::DomContentLoaded => "the page's HTML was not parsed",
        WaitUntil::Load => "the page did not finish loading",
        WaitUntil::NetworkIdle => "the network did not go idle",
    };
    Error::new(
        ErrorCode::Timeout,
        format!(
            "{what} within {} ms; the page may still be usable (try browser_snapshot), or raise timeout_ms",
            timeout.as_millis()
        ),
    )
}

/// Wait until nothing has been in flight for 500 ms.
pub(crate) async fn wait_network_idle(tab: &TabHandle, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let quiet = tab.net.quiet_for();
        if quiet >= IDLE_AFTER {
            return Ok(());
        }
        tab.check_alive()?;
        if Instant::now() >= deadline {
            return Err(Error::new(
                ErrorCode::Timeout,
                format!(
                    "the network did not go idle within {} ms ({} requests in flight)",
                    timeout.as_millis(),
                    tab.net.inflight()
                ),
            ));
        }
        let left = if tab.net.inflight() == 0 { IDLE_AFTER.saturating_sub(quiet) } else { POLL };
        tokio::time::sleep(left.max(Duration::from_millis(5)).min(deadline.saturating_duration_since(Instant::now())))
            .await;
    }
}

/// Watches for a navigation of the tab's main frame that an action starts.
pub(crate) struct NavWatch {
    requested: chromiumoxide::listeners::EventStream<EventFrameRequestedNavigation>,
    started: chromiumoxide::listeners::EventStream<EventFrameStartedLoading>,
    navigated: chromiumoxide::listeners::EventStream<EventFrameNavigated>,
    stopped: chromiumoxide::listeners::EventStream<EventFrameStoppedLoading>,
}

impl NavWatch {
    /// Start watching, before the action.
    pub async fn start(tab: &TabHandle) -> Result<NavWatch> {
        let err = |e| Error::new(ErrorCode::BrowserUnavailable, "cannot watch the tab").with_source(e);
        Ok(NavWatch {
            requested: tab.page.event_listener::<EventFrameRequestedNavigation>().await.map_err(err)?,
            started: tab.page.event_listener::<EventFrameStartedLoading>().await.map_err(err)?,
            navigated: tab.page.event_listener::<EventFrameNavigated>().await.map_err(err)?,
            stopped: tab.page.event_listener::<EventFrameStoppedLoading>().await.map_err(err)?,
        })
    }

    /// After the action: did it start a navigation? If so, wait (up to
    /// `timeout`) until the new document is parsed. A download started by
    /// the action does not count.
    pub async fn settle(self, tab: &TabHandle, timeout: Duration) -> Result<bool> {
        self.settle_from(tab, timeout, false).await
    }

    /// After an action whose navigation, if any, only the page's own
    /// script starts (a `change` handler's `this.form.submit()`, a
    /// `location` set): [`NavWatch::settle`], without waiting its window
    /// when the page shows none coming ([`NavWatch::shown_by_page`]). A
    /// slower script (a timer) is not waited for here either way: what it
    /// sends is judged by the tab's watch (`builtin::browser::wire`).
    pub async fn settle_if_requested(mut self, tab: &TabHandle, timeout: Duration) -> Result<bool> {
        match self.shown_by_page(tab, NAV_START_WINDOW).await {
            Some(Shown::Nothing) => Ok(false),
            Some(Shown::Started) => self.settle_from(tab, timeout, true).await,
            Some(Shown::Requested) | None => self.settle_from(tab, timeout, false).await,
        }
    }

    /// Whether the page shows a navigation of its main frame on its way,
    /// once two more of its tasks have run: the renderer announces a
    /// navigation it starts (`Page.frameRequestedNavigation`, then
    /// `Page.frameStartedLoading`) from the page's task that starts it,
    /// which a script's `submit()` or a form's default action queues
    /// behind the input that caused it; the answer to a script comes after
    /// any event the page sent before it. `None`: the page did not run
    /// them within `within` (it is busy).
    async fn shown_by_page(&mut self, tab: &TabHandle, within: Duration) -> Option<Shown> {
        const TWO_TASKS: &str = "new Promise(r => { const a = new MessageChannel(); a.port1.onmessage = () => { \
             const b = new MessageChannel(); b.port1.onmessage = () => r(true); b.port2.postMessage(0); }; \
             a.port2.postMessage(0); })";
        let probed = tokio::time::timeout(within, runtime::eval(tab, TWO_TASKS, true)).await;
        if !matches!(probed, Ok(Ok(Some(Value::Bool(true))))) {
            return None;
        }
        let main = tab.page.mainframe().await.ok().flatten();
        let is_main = |id: &chromiumoxide::cdp::browser_protocol::page::FrameId| main.as_ref().is_none_or(|m| m == id);
        let mut requested = false;
        while let Some(Some(ev)) = self.requested.next().now_or_never() {
            requested |= is_main(&ev.frame_id);
        }
        let mut started = false;
        while let Some(Some(ev)) = self.started.next().now_or_never() {
            started |= is_main(&ev.frame_id);
        }
        Some(match (started, requested) {
            (true, _) => Shown::Started,
            (false, true) => Shown::Requested,
            (false, false) => Shown::Nothing,
        })
    }

    /// Whether the main frame starts loading within the window.
    async fn starts_within(&mut self, tab: &TabHandle, window: Duration) -> bool {
        let main = tab.page.mainframe().await.ok().flatten();
        let is_main = |id: &chromiumoxide::cdp::browser_protocol::page::FrameId| main.as_ref().is_none_or(|m| m == id);
        tokio::time::timeout(window, async {
            while let Some(ev) = self.started.next().await {
                if is_main(&ev.frame_id) {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false)
    }

    /// [`NavWatch::settle`]; `started`: the main frame's navigation was
    /// seen on its way already. When none starts within the window, the
    /// page is asked as in [`NavWatch::shown_by_page`], given longer: on a
    /// machine under load the start of a form's navigation can come after
    /// the window, and an action that missed it would end while what it
    /// sent is still on its way.
    async fn settle_from(mut self, tab: &TabHandle, timeout: Duration, started: bool) -> Result<bool> {
        let main = tab.page.mainframe().await.ok().flatten();
        let is_main = |id: &chromiumoxide::cdp::browser_protocol::page::FrameId| main.as_ref().is_none_or(|m| m == id);
        let start = started
            || self.starts_within(tab, NAV_START_WINDOW).await
            || match self.shown_by_page(tab, BUSY_PAGE_WITHIN).await {
                Some(Shown::Started) => true,
                Some(Shown::Requested) => self.starts_within(tab, BUSY_PAGE_WITHIN).await,
                Some(Shown::Nothing) | None => false,
            };
        if !start {
            return Ok(false);
        }
        let deadline = Instant::now() + timeout;
        let committed = tokio::time::timeout(timeout, async {
            loop {
                tokio::select! {
                    Some(ev) = self.navigated.next() => if ev.frame.parent_id.is_none() { return true },
                    Some(ev) = self.stopped.next() => if is_main(&ev.frame_id) { return false },
                    else => return false,
                }
            }
        })
        .await
        .unwrap_or(false);
        if committed {
            wait_for_load(tab, WaitUntil::DomContentLoaded, deadline.saturating_duration_since(Instant::now())).await?;
        }
        Ok(committed)
    }
}

/// What the page showed of a navigation of its main frame.
enum Shown {
    Nothing,
    /// Requested (it may still be cancelled, or stay in the document).
    Requested,
    /// Its loading started.
    Started,
}

/// The pointer moved to a point (top-level CSS pixels), no button down.
pub(crate) async fn mouse_move(tab: &TabHandle, x: f64, y: f64) -> Result<()> {
    let mut moved = DispatchMouseEventParams::new(DispatchMouseEventType::MouseMoved, x, y);
    moved.button = Some(MouseButton::None);
    exec(tab, moved).await
}

/// `button` pressed at a point, the `n`th press of a multi-click.
pub(crate) async fn mouse_down(tab: &TabHandle, x: f64, y: f64, button: &MouseButton, n: i64) -> Result<()> {
    let mut p = DispatchMouseEventParams::new(DispatchMouseEventType::MousePressed, x, y);
    p.button = Some(button.clone());
    p.click_count = Some(n);
    p.buttons = Some(button_bits(button));
    exec(tab, p).await
}

/// `button` released at a point: what it was pressed on is clicked.
pub(crate) async fn mouse_up(tab: &TabHandle, x: f64, y: f64, button: &MouseButton, n: i64) -> Result<()> {
    let mut p = DispatchMouseEventParams::new(DispatchMouseEventType::MouseReleased, x, y);
    p.button = Some(button.clone());
    p.click_count = Some(n);
    p.buttons = Some(0);
    exec(tab, p).await
}

/// The press ended without a release of its button, so that nothing is
/// clicked: Chromium delivers no `mouseup`, no `click` (nor `auxclick`) to
/// the frame that took the press, whichever it is, and the next press
/// starts afresh. For a press that went astray.
pub(crate) async fn mouse_abandon(tab: &TabHandle, x: f64, y: f64) -> Result<()> {
    let mut p = DispatchMouseEventParams::new(DispatchMouseEventType::MouseReleased, x, y);
    p.button = Some(MouseButton::None);
    p.buttons = Some(0);
    exec(tab, p).await
}

fn button_bits(b: &MouseButton) -> i64 {
    match b {
        MouseButton::Left => 1,
        MouseButton::Right => 2,
        MouseButton::Middle => 4,
        _ => 0,
    }
}

/// Press one key or chord.
pub(crate) async fn press(tab: &TabHandle, key: &KeyPress) -> Result<()> {
    for m in &key.held {
        exec(tab, key_event(m, DispatchKeyEventType::RawKeyDown, m.modifiers)).await?;
    }
    let down_type = if key.text.is_some() { DispatchKeyEventType::KeyDown } else { DispatchKeyEventType::RawKeyDown };
    let mut down = key_event(key, down_type, key.modifiers);
    if key.modifiers & super::keys::CTRL != 0 && key.code == "KeyA" {
        // Chromium does not map Ctrl+A to "select all" for synthetic
        // events on every platform: name the editing command.
        down.commands = Some(vec!["selectAll".to_owned()]);
    }
    exec(tab, down).await?;
    exec(tab, key_event(key, DispatchKeyEventType::KeyUp, key.modifiers)).await?;
    for m in key.held.iter().rev() {
        exec(tab, key_event(m, DispatchKeyEventType::KeyUp, 0)).await?;
    }
    Ok(())
}

fn key_event(key: &KeyPress, kind: DispatchKeyEventType, modifiers: i64) -> DispatchKeyEventParams {
    let mut p = DispatchKeyEventParams::new(kind.clone());
    p.key = Some(key.key.clone());
    if !key.code.is_empty() {
        p.code = Some(key.code.clone());
    }
    if key.key_code != 0 {
        p.windows_virtual_key_code = Some(key.key_code);
        p.native_virtual_key_code = Some(key.key_code);
    }
    p.modifiers = Some(modifiers);
    if kind == DispatchKeyEventType::KeyDown {
        p.text.clone_from(&key.text);
        p.unmodified_text.clone_from(&key.text);
    }
    p
}

/// Insert text at the focus, as an IME would (any script, diacritics kept).
pub(crate) async fn insert_text(tab: &TabHandle, text: &str) -> Result<()> {
    exec(tab, InsertTextParams::new(text)).await
}

async fn exec<C: chromiumoxide::types::Command>(tab: &TabHandle, cmd: C) -> Result<()> {
    tab.page
        .execute(cmd)
        .await
        .map(|_| ())
        .map_err(|e| Error::new(ErrorCode::BrowserUnavailable, "the browser refused an input event").with_source(e))
}

/// The tab's URL and title.
pub(crate) async fn url_and_title(tab: &TabHandle) -> (String, String) {
    let v = runtime::eval(tab, "({url: location.href, title: document.title})", true).await.ok().flatten();
    let get = |k: &str| v.as_ref().and_then(|v| v.get(k)).and_then(Value::as_str).unwrap_or_default().to_owned();
    (get("url"), get("title"))
}
