//! Navigation and tab tools: navigate, new/switch/list/close tab, wait.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::{EventFrameNavigated, NavigateParams};
use chromiumoxide::cdp::browser_protocol::target::ActivateTargetParams;
use futures::StreamExt;
use serde_json::{Value, json};

use super::{BrowserTool, Call, output};
use crate::browser::page::{self, wait_for_load, wait_network_idle};
use crate::browser::runtime;
use crate::browser::session::{Guard, TabHandle};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::action::Action;
use crate::tools::ToolOutput;
use crate::tools::catalogue::navigation::{
    BrowserCloseTabArgs, BrowserCloseTabOutput, BrowserListTabsArgs, BrowserListTabsOutput, BrowserNavigateArgs,
    BrowserNavigateOutput, BrowserNewTabArgs, BrowserSwitchTabArgs, BrowserWaitArgs, BrowserWaitOutput, ElementState,
    TabInfo, TabOutput, WaitFor, WaitUntil,
};

/// Only web pages: never `javascript:`, `file:` or `chrome:` URLs.
pub(crate) fn check_url(url: &str) -> Result<()> {
    let parsed = url::Url::parse(url).map_err(|e| {
        Error::invalid_arguments(format!(
            "`{url}` is not an absolute URL ({e}); write it like https://example.com/page"
        ))
    })?;
    match parsed.scheme() {
        "http" | "https" => Ok(()),
        "about" if url == "about:blank" => Ok(()),
        other => {
            Err(Error::invalid_arguments(format!("cannot open `{other}:` URLs; only http(s) pages (and about:blank)")))
        }
    }
}

async fn goto(tab: &TabHandle, url: &str, until: WaitUntil, timeout: Duration) -> Result<BrowserNavigateOutput> {
    let started = Instant::now();
    let deadline = started + timeout;
    let mut committed = tab
        .page
        .event_listener::<EventFrameNavigated>()
        .await
        .map_err(|e| Error::new(ErrorCode::BrowserUnavailable, "cannot watch the tab").with_source(e))?;
    // chromiumoxide answers `Page.navigate` only after the `load` event, so
    // the commit of the new document is watched separately: waits for
    // `domcontentloaded` or `networkidle` are then Halley's own.
    // A place in the page shown (only the fragment differs) is reached
    // within the document: no new document and no `load`, which
    // `Page.navigate` would wait for until it timed out.
    let (now, _) = crate::browser::page::url_and_title(tab).await;
    if same_document(&now, url) {
        let script = format!("location.href = {}; true", serde_json::to_string(url).unwrap_or_default());
        runtime::eval(tab, &script, false).await?;
        return page_now(tab, url).await;
    }
    let request = tab.page.execute(NavigateParams::new(url));
    tokio::pin!(request);
    let timed_out =
        || Error::new(ErrorCode::Timeout, format!("{url} did not answer within {} ms", timeout.as_millis()));
    let error_page = tokio::select! {
        answer = &mut request => {
            check_answer(tab, url, answer)?;
            false
        }
        commit = async {
            while let Some(ev) = committed.next().await {
                if ev.frame.parent_id.is_none() {
                    return Some(ev.frame.url.starts_with("chrome-error:"));
                }
            }
            None
        } => commit.unwrap_or(false),
        () = tokio::time::sleep_until(deadline.into()) => return Err(timed_out()),
    };
    if error_page {
        // The network error comes with the answer to the request.
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(2));
        match tokio::time::timeout(left, &mut request).await {
            Ok(answer) => check_answer(tab, url, answer)?,
            Err(_) => return Err(timed_out()),
        }
        return Err(Error::new(ErrorCode::NavigationFailed, format!("cannot open {url}")));
    }
    tab.world.reset();
    wait_for_load(tab, until, deadline.saturating_duration_since(Instant::now())).await?;
    page_now(tab, url).await
}

/// Whether `to` is `from` with a fragment (another or the same one): a
/// place in the same document.
fn same_document(from: &str, to: &str) -> bool {
    let (Ok(a), Ok(b)) = (url::Url::parse(from), url::Url::parse(to)) else { return false };
    let strip = |u: &url::Url| {
        let mut u = u.clone();
        u.set_fragment(None);
        u
    };
    b.fragment().is_some() && a.scheme() != "about" && strip(&a) == strip(&b)
}

/// What the tab shows now: its address, title and the document's status.
async fn page_now(tab: &TabHandle, url: &str) -> Result<BrowserNavigateOutput> {
    let info = runtime::eval(
        tab,
        "(() => { const n = performance.getEntriesByType('navigation')[0]; \
         return {url: location.href, title: document.title, status: n && n.responseStatus ? n.responseStatus : null}; })()",
        true,
    )
    .await?
    .unwrap_or(Value::Null);
    Ok(BrowserNavigateOutput {
        url: info.get("url").and_then(Value::as_str).unwrap_or(url).to_owned(),
        title: info.get("title").and_then(Value::as_str).unwrap_or_default().to_owned(),
        http_status: info.get("status").and_then(Value::as_u64).and_then(|s| u16::try_from(s).ok()),
    })
}

/// The answer to `Page.navigate`: a network error becomes `navigation_failed`.
fn check_answer(
    tab: &TabHandle,
    url: &str,
    answer: std::result::Result<
        chromiumoxide::types::CommandResponse<chromiumoxide::cdp::browser_protocol::page::NavigateReturns>,
        chromiumoxide::error::CdpError,
    >,
) -> Result<()> {
    let resp = match answer {
        Ok(r) => r,
        Err(e) if e.to_string().to_lowercase().contains("timeout") => {
            return Err(Error::new(ErrorCode::Timeout, format!("{url} did not finish loading in time")).with_source(e));
        }
        Err(e) => return Err(Error::new(ErrorCode::NavigationFailed, format!("cannot open {url}")).with_source(e)),
    };
    if let Some(err) = resp.result.error_text.as_deref().filter(|t| !t.is_empty()) {
        // Through the browser's relay, Chromium names any failure to
        // connect "the proxy failed", or, where the relay granted the
        // connection before making it (a watched tab's other site), an
        // empty response: the relay knows what it was.
        let through_relay = ["SOCKS", "PROXY", "EMPTY_RESPONSE", "CONNECTION_CLOSED"].iter().any(|e| err.contains(e));
        let real = through_relay.then(|| tab.hub.why_unreachable(url)).flatten();
        let err = real.map_or_else(|| err.to_owned(), |real| format!("net::{real}"));
        let err = err.as_str();
        let hint = match err {
            e if e.contains("NAME_NOT_RESOLVED") => " (the host name does not exist or there is no network)",
            e if e.contains("CONNECTION_REFUSED") => " (nothing is listening there)",
            e if e.contains("ABORTED") => " (the page cancelled the load, or it is a download)",
            _ => "",
        };
        return Err(Error::new(ErrorCode::NavigationFailed, format!("cannot open {url}: {err}{hint}")));
    }
    Ok(())
}

pub(super) async fn navigate(call: &mut Call<'_>, args: BrowserNavigateArgs) -> Result<ToolOutput> {
    check_url(&args.url)?;
    let tab = call.tab(None).await?;
    call.gate_plain(BrowserTool::Navigate, leaving_for(&args.url)).await?;
    let out = load(call, &tab, &args.url, args.wait_until, Duration::from_millis(args.timeout_ms.into())).await?;
    call.guard()?.note_url(&tab.id, &out.url, &out.title);
    let url = out.url.clone();
    Ok(output(&out)?.at(url))
}

/// Loads `url` in `tab`, the call's own. A run in the background (a watch
/// pass, an API run) lets go of the browser while the page loads, so other
/// runs' calls (a pass's other background tabs) go on meanwhile; the tab
/// stays its run's. One in front of the user keeps the browser.
async fn load(
    call: &mut Call<'_>,
    tab: &TabHandle,
    url: &str,
    until: WaitUntil,
    timeout: Duration,
) -> Result<BrowserNavigateOutput> {
    if call.cx.in_foreground() {
        return goto(tab, url, until, timeout).await;
    }
    call.unlocked(goto(tab, url, until, timeout)).await?
}

pub(super) async fn new_tab(call: &mut Call<'_>, args: BrowserNewTabArgs) -> Result<ToolOutput> {
    if let Some(url) = &args.url {
        check_url(url)?;
    }
    call.gate_plain(BrowserTool::NewTab, args.url.as_deref().map(leaving_for).unwrap_or_default()).await?;
    let tab = call.guard()?.new_tab("about:blank").await?;
    call.watched(&tab).await;
    if let Some(url) = &args.url {
        let out = load(call, &tab, url, args.wait_until, Duration::from_secs(30)).await?;
        call.guard()?.note_url(&tab.id, &out.url, &out.title);
    }
    if call.cx.in_foreground() {
        let _ = tab.page.bring_to_front().await;
    }
    let info = tab_info(call.guard()?, &tab.id, false).await?;
    let url = info.url.clone();
    Ok(output(&TabOutput { tab: info })?.at(url))
}

pub(super) async fn switch_tab(call: &mut Call<'_>, args: BrowserSwitchTabArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::SwitchTab, Action::default()).await?;
    call.guard()?.set_current(&args.tab_id)?;
    let tab = call.tab(Some(&args.tab_id)).await?;
    let target = tab.page.target_id().clone();
    if call.cx.in_foreground()
        && let Ok(browser) = call.guard()?.browser()
    {
        let _ = browser.execute(ActivateTargetParams::new(target)).await;
    }
    let info = tab_info(call.guard()?, &args.tab_id, false).await?;
    let url = info.url.clone();
    Ok(output(&TabOutput { tab: info })?.at(url))
}

pub(super) async fn list_tabs(call: &mut Call<'_>, args: BrowserListTabsArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::ListTabs, Action::default()).await?;
    let ids: Vec<String> = call.guard()?.tabs().iter().map(|t| t.id.clone()).collect();
    let mut tabs = Vec::with_capacity(ids.len());
    for id in ids {
        tabs.push(tab_info(call.guard()?, &id, args.include_favicons).await?);
    }
    output(&BrowserListTabsOutput { tabs })
}

pub(super) async fn close_tab(call: &mut Call<'_>, args: BrowserCloseTabArgs) -> Result<ToolOutput> {
    if !call.guard()?.tabs().iter().any(|t| t.id == args.tab_id) {
        return Err(call.guard()?.tab_not_found(&args.tab_id));
    }
    let tab = call.tab(Some(&args.tab_id)).await?;
    let state = runtime::call(&tab, "state", &json!({})).await.unwrap_or(Value::Null);
    let (url, _) = page::url_and_title(&tab).await;
    let unsaved = state.get("unsaved_form").and_then(Value::as_bool).unwrap_or(false);
    // Declared DESTRUCTIVE: closing one of the user's tabs is asked. A
    // background run closing a tab it opened itself (the user never saw it)
    // with no unsaved form edits is housekeeping: WRITE_NON_DESTRUCTIVE.
    let (declared, risk) = BrowserTool::CloseTab.declared();
    let own = call.guard()?.own_background_tab(&args.tab_id);
    let closing = Action {
        tool: BrowserTool::CloseTab.name().to_owned(),
        declared: Some(if own && !unsaved { crate::tools::PermissionScope::WriteNonDestructive } else { declared }),
        origin: crate::vocab::origin::origin_of(&url),
        url: Some(url),
        closes_unsaved_form: unsaved,
        ..Action::default()
    };
    call.pass(&closing, risk).await?;
    let current = call.guard()?.close_tab(&args.tab_id).await?;
    output(&BrowserCloseTabOutput { closed: args.tab_id, current_tab_id: current })
}

pub(super) async fn wait(call: &mut Call<'_>, args: BrowserWaitArgs) -> Result<ToolOutput> {
    let timeout = Duration::from_millis(args.timeout_ms.into());
    let started = Instant::now();
    let tab = call.tab(None).await?;
    call.gate_plain(BrowserTool::Wait, Action::default()).await?;
    let met = match args.until {
        WaitFor::Timeout => {
            tokio::time::sleep(timeout).await;
            true
        }
        WaitFor::NetworkIdle => wait_network_idle(&tab, timeout).await.is_ok(),
        WaitFor::Selector => {
            let selector = args
                .selector
                .as_deref()
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(|| Error::invalid_arguments("browser_wait: `until: \"selector\"` needs `selector`"))?;
            poll(&tab, timeout, &Check::Selector(selector, args.state)).await?
        }
        WaitFor::Text => {
            let text = args
                .text
                .as_deref()
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(|| Error::invalid_arguments("browser_wait: `until: \"text\"` needs `text`"))?;
            poll(&tab, timeout, &Check::Text(text)).await?
        }
    };
    let waited_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (url, _) = page::url_and_title(&tab).await;
    Ok(output(&BrowserWaitOutput { condition_met: met, waited_ms })?.at(url))
}

/// Poll a condition until it holds or the time is up.
async fn poll(tab: &TabHandle, timeout: Duration, check: &Check<'_>) -> Result<bool> {
    let deadline = Instant::now() + timeout;
    loop {
        if check.holds(tab).await? {
            return Ok(true);
        }
        tab.check_alive()?;
        if Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What `browser_wait` polls for.
enum Check<'a> {
    Selector(&'a str, ElementState),
    Text(&'a str),
}

impl Check<'_> {
    async fn holds(&self, tab: &TabHandle) -> Result<bool> {
        match self {
            Check::Selector(selector, state) => {
                let found =
                    runtime::call(tab, "locate", &json!({"target": {"selector": selector}, "scroll": false})).await;
                match (found, state) {
                    (Ok(v), ElementState::Visible) => Ok(v.get("visible").and_then(Value::as_bool).unwrap_or(false)),
                    (Ok(v), ElementState::Hidden) => Ok(!v.get("visible").and_then(Value::as_bool).unwrap_or(false)),
                    (Ok(_), ElementState::Attached) => Ok(true),
                    (Err(e), ElementState::Hidden) if e.code() == ErrorCode::ElementNotFound => Ok(true),
                    (Err(e), _) if matches!(e.code(), ErrorCode::InvalidArguments | ErrorCode::BrowserUnavailable) => {
                        Err(e)
                    }
                    (Err(_), _) => Ok(false),
                }
            }
            Check::Text(text) => {
                let needle = serde_json::to_string(&text.to_lowercase()).unwrap_or_default();
                let expr = format!("(document.body ? document.body.innerText : '').toLowerCase().includes({needle})");
                Ok(runtime::eval(tab, &expr, true).await.ok().flatten().and_then(|v| v.as_bool()).unwrap_or(false))
            }
        }
    }
}

/// A navigation as the gate sees it: where the browser goes (and so what
/// the URL may carry there).
fn leaving_for(url: &str) -> Action {
    Action { destination: Some(url.to_owned()), origin: crate::vocab::origin::origin_of(url), ..Action::default() }
}

/// What the tab tools report of a tab.
pub(super) async fn tab_info(guard: &mut Guard<'_>, id: &str, favicon: bool) -> Result<TabInfo> {
    let current = guard.current_id() == Some(id);
    let (mut url, mut title) = guard
        .tabs()
        .iter()
        .find(|t| t.id == id)
        .map(|t| (t.url.clone(), t.title.clone()))
        .ok_or_else(|| guard.tab_not_found(id))?;
    let mut icon = None;
    if favicon {
        let tab = guard.page(Some(id)).await?;
        (url, title) = page::url_and_title(&tab).await;
        let v = runtime::eval(
            &tab,
            "(() => { const l = document.querySelector('link[rel~=\"icon\"]'); return l ? l.href : new URL('/favicon.ico', location.href).href; })()",
            true,
        )
        .await
        .ok()
        .flatten();
        icon = v.and_then(|v| v.as_str().map(str::to_owned));
    }
    Ok(TabInfo { id: id.to_owned(), title, url, current, favicon: icon })
}
