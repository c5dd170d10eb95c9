//! A `watch_poll` pass ([`poll`]): plain fetches and browser reads in two
//! lanes, turns per site, what the pass learns of each site, and the alerts
//! delivered beside the checks.

use futures::StreamExt;

use super::check::{self, Method, Outcome, Target};
use super::{finish, get_watch, target_of};
use crate::error::{Error, Result};
use crate::handler::Services;
use crate::store::now;
use crate::store::watches::{WatchRow, WatchStatus};
use crate::tools::catalogue::data::{TriggerRule, WatchCheck, WatchPollArgs, WatchPollOutput};

/// How often a pass's deliverer looks for alerts to send.
const DELIVER_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Plain fetches running at once in one pass.
const IN_FLIGHT: usize = 16;
/// Requests to one site (host) at once from a pass, fetches and browser
/// reads together: what Chromium itself allows a host.
const PER_SITE: usize = 6;
/// Of a site's turns, at most this many browser reads at once, so the
/// pages waiting for the browser never take every turn of the site's
/// plain fetches.
const BROWSER_PER_SITE: usize = 4;
/// Browser reads a pass runs at once, each in a background tab of its own:
/// their pages load side by side (a background run lets go of the browser
/// while its page loads); waiting for the browser, they hold no site's turn.
const BROWSER_AT_ONCE: usize = 4;

/// The turns of a site: every request's, and the browser reads' own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Lane {
    Site,
    Browser,
}
/// Pages of a site read by the browser (their fetch read nothing), with
/// none read by a fetch, before a pass sends the site's new watches
/// straight to the browser.
const LEARN_AFTER: usize = 3;

/// What a pass knows of a site (an origin): how many of its pages needed
/// the browser, how many a plain fetch read.
#[derive(Debug, Default, Clone, Copy)]
struct Site {
    browser: usize,
    http: usize,
}

/// One pass's shared state: the per-site turns, what it learnt of each
/// origin, its background tabs.
#[derive(Debug, Default)]
struct Pass {
    turns: std::sync::Mutex<std::collections::HashMap<(String, Lane), std::sync::Arc<tokio::sync::Semaphore>>>,
    sites: std::sync::Mutex<std::collections::HashMap<String, Site>>,
    tabs: check::Tabs,
    /// The browser started by the pass's first browser read.
    browser: tokio::sync::OnceCell<()>,
}

impl Pass {
    /// Starts from what the watches remember (the way each was read last).
    fn new(rows: &[WatchRow]) -> Pass {
        let pass = Pass::default();
        for row in rows {
            if let Some(m) = row.check_method.as_deref().and_then(Method::parse) {
                pass.learn(&row.target_url, m);
            }
        }
        pass
    }

    fn learn(&self, url: &str, method: Method) {
        let origin = crate::vocab::origin::origin_of(url).unwrap_or_default();
        let mut sites = self.sites.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let site = sites.entry(origin).or_default();
        match method {
            Method::Http => site.http += 1,
            Method::Browser => site.browser += 1,
        }
    }

    /// Whether a plain fetch is known to read nothing on this site.
    fn browser_only(&self, url: &str) -> bool {
        let origin = crate::vocab::origin::origin_of(url).unwrap_or_default();
        let sites = self.sites.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        sites.get(&origin).is_some_and(|s| s.http == 0 && s.browser >= LEARN_AFTER)
    }

    /// A turn to send a request to `url`'s host: at most [`PER_SITE`] at
    /// once, of which at most [`BROWSER_PER_SITE`] browser reads.
    async fn turn(&self, url: &str, browser: bool) -> Result<Vec<tokio::sync::OwnedSemaphorePermit>> {
        let host = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
        let lanes: &[Lane] = if browser { &[Lane::Browser, Lane::Site] } else { &[Lane::Site] };
        let mut held = Vec::with_capacity(lanes.len());
        for &lane in lanes {
            let width = if lane == Lane::Site { PER_SITE } else { BROWSER_PER_SITE };
            let limit = {
                let mut turns = self.turns.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                std::sync::Arc::clone(
                    turns
                        .entry((host.clone(), lane))
                        .or_insert_with(|| std::sync::Arc::new(tokio::sync::Semaphore::new(width))),
                )
            };
            held.push(limit.acquire_owned().await.map_err(|_| Error::internal("the site limit closed"))?);
        }
        Ok(held)
    }
}

/// A check for the browser lane: the row's index, what to read, its rules.
type BrowserJob = (usize, Target, Vec<TriggerRule>);
type Checked = (usize, Result<WatchCheck>);

/// The plain-fetch lane of a pass: reads row `i` over HTTP, unless it is
/// known to need the browser (the watch, or its site); hands it to the
/// browser lane when the fetch reads nothing.
async fn fetch_lane(
    ctx: &Services,
    pass: &Pass,
    i: usize,
    row: &WatchRow,
    browser: tokio::sync::mpsc::UnboundedSender<BrowserJob>,
) -> Option<Checked> {
    let (target, rules) = match target_of(row) {
        Ok(t) => t,
        Err(e) => return Some((i, Err(e))),
    };
    let known = row.check_method.as_deref().and_then(Method::parse);
    if (known.is_none() && pass.browser_only(&row.target_url)) || known == Some(Method::Browser) {
        let _ = browser.send((i, target, rules));
        return None;
    }
    let read = match pass.turn(&row.target_url, false).await {
        Ok(_turn) => check::read_http(ctx, &target).await,
        Err(e) => return Some((i, Err(e))),
    };
    match read {
        Some(outcome) => {
            if matches!(outcome, Outcome::Read { method: Method::Http, .. }) {
                pass.learn(&row.target_url, Method::Http);
            }
            Some((i, finish(ctx, row, &rules, outcome).await))
        }
        None => {
            pass.learn(&row.target_url, Method::Browser);
            let _ = browser.send((i, target, rules));
            None
        }
    }
}

/// One worker of the browser lane: reads the pages handed to it in a
/// background tab of the pass, until the fetch lane is done.
async fn browser_lane(
    ctx: &Services,
    pass: &Pass,
    rows: &[WatchRow],
    jobs: &tokio::sync::Mutex<tokio::sync::mpsc::UnboundedReceiver<BrowserJob>>,
) -> Vec<Checked> {
    let mut done = Vec::new();
    loop {
        let job = jobs.lock().await.recv().await;
        let Some((i, target, rules)) = job else { return done };
        let Some(row) = rows.get(i) else { continue };
        // Chromium starts (once) before this takes a turn of the site.
        pass.browser
            .get_or_init(|| async {
                if let Err(e) = ctx.browser.launch().await {
                    tracing::warn!("the browser for watches: {}", e.message());
                }
            })
            .await;
        let outcome = match pass.turn(&target.url, true).await {
            Ok(_turn) => check::read_browser(ctx, &target, Some(&pass.tabs)).await,
            Err(e) => {
                done.push((i, Err(e)));
                continue;
            }
        };
        done.push((i, finish(ctx, row, &rules, outcome).await));
    }
}

/// `watch_poll`: one watch, every due one, or (`all`) every active one.
///
/// A pass has two lanes: plain fetches, [`IN_FLIGHT`] at once, and the
/// browser, for the pages a fetch cannot read (known from the watch's last
/// check or its site, or found now), [`BROWSER_AT_ONCE`] at once; a site
/// gets at most [`PER_SITE`] requests at once, of which at most
/// [`BROWSER_PER_SITE`] browser reads. Pages known to
/// need the browser start it at once, beside the fetches.
pub async fn poll(ctx: &Services, args: &WatchPollArgs) -> Result<WatchPollOutput> {
    let rows = match &args.watch_id {
        Some(id) => vec![get_watch(&ctx.store, id).await?],
        None if args.all => {
            ctx.store.watches().all().await?.into_iter().filter(|w| w.status == WatchStatus::Active).collect()
        }
        None => ctx.store.watches().due(&now()).await?,
    };
    let pass = Pass::new(&rows);
    let (to_browser, jobs) = tokio::sync::mpsc::unbounded_channel();
    let jobs = tokio::sync::Mutex::new(jobs);
    // Futures made in loops, not by closures: a closure's future is not
    // `Send` for every lifetime, which the host's spawned runs need.
    let mut fetches = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        fetches.push(fetch_lane(ctx, &pass, i, row, to_browser.clone()));
    }
    drop(to_browser);
    let mut browsers = Vec::with_capacity(BROWSER_AT_ONCE);
    for _ in 0..BROWSER_AT_ONCE {
        browsers.push(browser_lane(ctx, &pass, &rows, &jobs));
    }
    // Notifications go out one at a time (daemons choke on many at once),
    // from one deliverer beside the checks, which never wait for them.
    let done = std::sync::atomic::AtomicBool::new(false);
    let checking = async {
        let fetched = futures::stream::iter(fetches).buffer_unordered(IN_FLIGHT).collect::<Vec<_>>();
        let (fetched, browsed) = futures::join!(fetched, futures::future::join_all(browsers));
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        let mut checks: Vec<Checked> = fetched.into_iter().flatten().chain(browsed.into_iter().flatten()).collect();
        checks.sort_by_key(|(i, _)| *i);
        checks
    };
    let delivering = async {
        loop {
            let last = done.load(std::sync::atomic::Ordering::SeqCst);
            if let Err(e) = crate::notify::deliver_pending(&ctx.store).await {
                tracing::warn!("watch alerts not sent yet: {}", e.message());
            }
            if last {
                break;
            }
            tokio::time::sleep(DELIVER_EVERY).await;
        }
    };
    let (checks, ()) = futures::join!(checking, delivering);
    pass.tabs.close(ctx).await;
    let checks = checks.into_iter().map(|(_, c)| c).collect::<Result<Vec<_>>>()?;
    // Alerts left unsent by a pass that was cut short go out now.
    crate::notify::deliver_pending(&ctx.store).await?;
    Ok(WatchPollOutput { checks })
}
