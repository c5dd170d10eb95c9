//! The gated HTTP fetch that watches and web search share: one HTTP client
//! (a Chrome-like User-Agent, redirects followed by the caller, each hop
//! past the gate), the gate's word on fetching a URL in the caller's
//! context, and closing a background run's tab.

use std::time::Duration;

use serde_json::json;

use crate::builtin::browser::BrowserTool;
use crate::context::{CallContext, FrontEnd};
use crate::error::{Error, Result};
use crate::gate::action::Action;
use crate::gate::policy::Decision;
use crate::handler::Services;
use crate::tools::{PermissionScope, RiskLevel};

/// What the user's browser says it is.
pub const USER_AGENT: &str =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

const FETCH_TIMEOUT: Duration = Duration::from_secs(20);

/// The HTTP client of watches (and of `web_search`'s API providers): a
/// Chrome-like User-Agent, no redirects followed by itself, no proxy for
/// loopback. Two clients per process (loopback, the rest), made once: a
/// client loads the system's certificates and keeps the connections for
/// the next requests.
pub fn client(url: &str) -> Result<reqwest::Client> {
    static CLIENTS: std::sync::OnceLock<std::result::Result<[reqwest::Client; 2], String>> = std::sync::OnceLock::new();
    let loopback = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)).is_some_and(|h| {
        h == "localhost" || h.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()) || h == "[::1]"
    });
    let clients = CLIENTS.get_or_init(|| {
        let make = |loopback: bool| {
            // Redirects are followed by `fetch`, each hop past the gate first.
            let mut b = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(USER_AGENT)
                .connect_timeout(Duration::from_secs(10))
                .timeout(FETCH_TIMEOUT);
            if loopback {
                b = b.no_proxy();
            }
            b.build().map_err(|e| e.to_string())
        };
        Ok([make(false)?, make(true)?])
    });
    match clients {
        Ok(pair) => Ok(pair[usize::from(loopback)].clone()),
        Err(e) => Err(Error::internal(format!("cannot set up the HTTP client for watches: {e}"))),
    }
}

/// The gate's word on fetching `url`, as on a navigation there: the
/// user's site rules (a site set to `never` is not fetched) and the
/// background run's limits. An allowed fetch is decided without a write;
/// anything else goes through the whole gate (asked, audited). `Err`: why
/// the check may not fetch it, the watch's health note. `tool`: the tool
/// the fetch is for (`watch_poll`, `web_search`); `cx`: the call it is
/// made for (its run is audited, its confirmer asked).
pub async fn gated(ctx: &Services, cx: &CallContext, tool: &str, url: &str) -> std::result::Result<(), String> {
    let action = Action {
        tool: tool.into(),
        declared: Some(PermissionScope::ReadOnly),
        url: Some(url.to_owned()),
        origin: crate::vocab::origin::origin_of(url),
        destination: Some(url.to_owned()),
        ..Action::default()
    };
    let quick = ctx.gate.policy().decide(
        &action.tool,
        PermissionScope::ReadOnly,
        PermissionScope::ReadOnly,
        action.origin.as_deref(),
        None,
    );
    if quick == Decision::Allow {
        return Ok(());
    }
    let args = json!({"url": url});
    match ctx.gate.check(cx, &action, RiskLevel::Low, &args).await {
        Ok(_) => Ok(()),
        Err(refused) => Err(format!("the gate refused to fetch {url}: {}", Error::from(refused).message())),
    }
}

/// Close the background tab `run` opened (if any) and release the run's tabs.
pub async fn close_run(ctx: &Services, run: &str, tab: Option<String>) {
    let cx = CallContext::new(FrontEnd::Background).with_run(run.to_owned());
    if let Some(tab_id) = tab {
        let closed = BrowserTool::CloseTab.run(ctx, &cx, json!({"tab_id": tab_id})).await.output;
        if let Err(e) = closed {
            tracing::warn!("a background tab stays open: {}", e.message());
        }
    }
    ctx.browser.release(run).await;
}
