//! A watch reads its page without letting the page act: while a watch's
//! background tab loads and is read, and until the tab is closed or its
//! run released, everything its page sends is held to the gate's watch on
//! the tab (`browser::intercept`; no time limit: a pass's tabs are closed at
//! its end, a check's own tab at once), and with nobody to ask (a watch runs in the
//! background) what is not a plain read is failed: a form POST, a
//! `fetch`/XHR with a body, a beacon, a WebSocket or a call to a new site,
//! a read whose address would be an order if it were sent (`/order?qty=50`),
//! a read carrying the user's values. The page's scripts still run, so a
//! script-rendered price is read; they only cannot order, submit or leak.

use crate::browser::intercept::{Idle, Outgoing, Verdict};
use crate::error::Result;
use crate::gate::action::SecretValue;
use crate::gate::classify::wire::classify_request;
use crate::gate::request::WireRequest;
use crate::handler::Services;
use crate::tools::PermissionScope;

/// Hold what tab `tab` of run `run` sends (see the module documentation),
/// the page being (or about to be) `page_url`. A watch already on the tab
/// is replaced.
pub(super) async fn hold(ctx: &Services, run: &str, tab: &str, page_url: &str) -> Result<()> {
    let handle = {
        let mut guard = ctx.browser.acquire(Some(run), false).await?;
        guard.page(Some(tab)).await?
    };
    let mut slot = handle.wire.lock().await;
    // A watch already on the tab (a pass's tab reused, or the one its first
    // browser call started) holds fewer reads: replaced by one that holds
    // every read with something in its address.
    if let Some(idle) = slot.take()
        && let (Some(kept), _) = idle.take().await
    {
        kept.stop().await;
    }
    let wire = handle.watch_wire(every_read).await?;
    wire.set_home(page_url);
    let secrets = ctx.gate.secrets().await.unwrap_or_default();
    let page = page_url.to_owned();
    *slot = Some(Idle::spawn(wire, Some(run.to_owned()), move |held: Outgoing| {
        let verdict = judge(&held, &page, &secrets);
        async move {
            if let Some(why) = &verdict.1 {
                tracing::warn!("watch: the watched page tried to send {why}; blocked");
            }
            // Logged, not told: the pass reads the page on (its tool calls
            // would fail with what a page tried, `builtin::browser::wire::late`).
            (verdict.0, None)
        }
    }));
    Ok(())
}

/// Every read with something in its address is looked at (a watch's page
/// loads few enough).
fn every_read(url: &str, _home: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| u.query().is_some_and(|q| !q.is_empty()))
}

/// What becomes of one request of a watch's page: a plain read goes on;
/// anything else, or a read that would order if it were sent or that
/// carries the user's values, is failed.
fn judge(held: &Outgoing, page: &str, secrets: &[SecretValue]) -> (Verdict, Option<String>) {
    let what = format!("{} {}", held.method, held.url);
    if !held.reads_only() {
        return (Verdict::Fail, Some(format!("{what} (a watch only reads its page)")));
    }
    // A read graded as what it would be with its query as a body: an
    // address that orders, pays or carries the user's data is not read.
    let as_sent = WireRequest::parse("POST", &held.url, None, None);
    let graded = classify_request(&as_sent, Some(page), secrets);
    let read = classify_request(&WireRequest::parse(&held.method, &held.url, None, None), Some(page), secrets);
    if graded.scope >= PermissionScope::Submit || read.scope >= PermissionScope::Submit {
        return (Verdict::Fail, Some(format!("{what}: {}", graded.reasons.join("; "))));
    }
    (Verdict::Continue, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outgoing(method: &str, url: &str, body: Option<&str>) -> Outgoing {
        Outgoing {
            id: chromiumoxide::cdp::browser_protocol::fetch::RequestId::new("1"),
            method: method.into(),
            url: url.into(),
            content_type: body.map(|_| "application/x-www-form-urlencoded".into()),
            body: body.map(str::to_owned),
            headers: Vec::new(),
            navigates: false,
            sent: false,
        }
    }

    #[test]
    fn a_watched_page_reads_but_never_orders_or_leaks() {
        let page = "http://shop.localhost/p/1";
        let secrets = vec![SecretValue::profile("travel.passport_no", "B7654321")];
        let verdict = |o: Outgoing| judge(&o, page, &secrets).0;
        assert_eq!(verdict(outgoing("GET", "http://shop.localhost/price.json?id=1", None)), Verdict::Continue);
        assert_eq!(verdict(outgoing("GET", "http://shop.localhost/img/a.png", None)), Verdict::Continue);
        assert_eq!(verdict(outgoing("POST", "http://shop.localhost/api/order", Some("qty=50"))), Verdict::Fail);
        assert_eq!(verdict(outgoing("POST", "http://shop.localhost/log", Some(""))), Verdict::Fail);
        assert_eq!(verdict(outgoing("CONNECT", "wss://evil.localhost/", None)), Verdict::Fail);
        assert_eq!(verdict(outgoing("GET", "http://shop.localhost/order?qty=50&confirm=1", None)), Verdict::Fail);
        assert_eq!(verdict(outgoing("GET", "http://evil.localhost/c?p=B7654321", None)), Verdict::Fail);
    }
}
