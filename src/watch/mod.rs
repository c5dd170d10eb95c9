//! Watches: a page's price, stock or fields, checked on a schedule, with
//! trigger rules that alert once through a native notification and the
//! panel's inbox.
//!
//! * [`check`]: reading the page (HTTP first, the managed Chromium when the
//!   fetched page yields nothing) into a [`rules::Reading`].
//! * [`html`]: fetched HTML → `PageFacts`, for the same extraction as `browser_extract`.
//! * [`rules`]: the rules engine (pure): edge-triggered, re-armed, cooldown, idempotency keys.
//! * [`format`]: money and changes as notifications show them (`19.990.000 ₫`).
//! * [`money`]: the one money parser watches use.
//!
//! A check ([`check_watch`]) reads the page, works out the watch's health
//! and, on a trusted reading, the rules; then writes the observation, the
//! watch's new state and the alerts in ONE transaction
//! (`Watches::apply_check`), and sends the alerts not sent yet
//! ([`crate::notify::deliver_pending`]).

pub mod check;
pub mod format;
pub mod html;
pub mod money;
pub mod rules;
pub mod tools;

use futures::StreamExt;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::handler::Services;
use crate::store::watch_alerts::{AlertChannel, NewAlert};
use crate::store::watches::{CheckWrite, NewObservation, ObservedReading, WatchHealth, WatchRow, WatchStatus};
use crate::store::{Store, now};
use crate::tools::catalogue::capture::ExtractFieldType;
use crate::tools::catalogue::data::{FiredRule, TriggerOp, TriggerRule, WatchCheck, WatchPollArgs, WatchPollOutput};
use check::{Method, Outcome, Target};
use rules::{Memory, Reading, RuleState};

/// Checks failing in a row before a watch counts as broken.
pub const BROKEN_AFTER: i64 = 3;

/// `30m`, `6h`, `1d` → seconds; `allow_zero` for cooldowns (`0m`).
pub fn parse_period(text: &str, allow_zero: bool) -> Result<i64> {
    let bad = || {
        Error::invalid_arguments(format!(
            "bad frequency {text:?}: write a number and a unit, `m` (minutes), `h` (hours) or `d` (days), e.g. `30m`, `6h`, `1d`"
        ))
    };
    let t = text.trim();
    let (num, unit) = t.split_at(t.len().saturating_sub(1));
    let n: i64 = num.parse().map_err(|_| bad())?;
    let secs = match unit {
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(bad()),
    };
    if n < 0 || (n == 0 && !allow_zero) || n > 3650 * 24 * 60 {
        return Err(bad());
    }
    Ok(n * secs)
}

/// `21600` → `6h`: the largest unit that divides it.
pub fn period_text(secs: i64) -> String {
    if secs > 0 && secs % 86_400 == 0 {
        format!("{}d", secs / 86_400)
    } else if secs > 0 && secs % 3600 == 0 {
        format!("{}h", secs / 3600)
    } else {
        format!("{}m", secs / 60)
    }
}

/// A page a watch may check: absolute `http(s)` with a host.
pub fn check_url(url: &str) -> Result<()> {
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(()),
        _ => Err(Error::invalid_arguments(format!("bad URL {url:?}: a watch checks an http:// or https:// page"))),
    }
}

/// An RFC 3339 time, as the store writes timestamps.
pub fn normalize_time(text: &str) -> Result<String> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .map_err(|_| {
            Error::invalid_arguments(format!("bad time {text:?}: use RFC 3339, e.g. 2026-02-10T08:00:00+07:00"))
        })
}

/// Whether rules of this set read the price (else the watch is about its fields).
pub fn wants_price(rules: &[TriggerRule], schema: &BTreeMap<String, ExtractFieldType>) -> bool {
    schema.is_empty()
        || rules.iter().any(|r| {
            matches!(r.op, TriggerOp::DropPct | TriggerOp::AllTimeLow | TriggerOp::BackInStock)
                || matches!(r.field.as_deref(), None | Some("price" | "in_stock" | "currency"))
        })
}

/// What extraction is asked for: price, currency, stock and name for a
/// price watch, plus the watch's own fields.
pub fn target_of(row: &WatchRow) -> Result<(Target, Vec<TriggerRule>)> {
    let rules: Vec<TriggerRule> = serde_json::from_value(row.trigger_rules.clone())
        .map_err(|e| Error::internal(format!("watch {} has unreadable rules", row.id)).with_source(e))?;
    let own: BTreeMap<String, ExtractFieldType> = serde_json::from_value(row.schema.clone()).unwrap_or_default();
    let price = wants_price(&rules, &own);
    let mut schema = BTreeMap::new();
    if price {
        schema.insert("price".to_owned(), ExtractFieldType::Number);
        schema.insert("currency".to_owned(), ExtractFieldType::String);
        schema.insert("in_stock".to_owned(), ExtractFieldType::Boolean);
    }
    schema.insert("name".to_owned(), ExtractFieldType::String);
    schema.extend(own);
    let target = Target { url: row.target_url.clone(), selector: row.selector.clone(), schema, wants_price: price };
    Ok((target, rules))
}

/// The name a notification gives the watch: its label, else the product's
/// name, else the page's host.
fn label_of(row: &WatchRow, reading: Option<&Reading>, previous: Option<&Reading>) -> String {
    if !row.title.trim().is_empty() {
        return row.title.trim().to_owned();
    }
    if let Some(name) = reading.and_then(|r| r.name.clone()).or_else(|| previous.and_then(|r| r.name.clone())) {
        return name;
    }
    url::Url::parse(&row.target_url).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default()
}

fn shown(v: Option<Value>) -> String {
    match v {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => "—".to_owned(),
        Some(other) => other.to_string(),
    }
}

/// The alert's text for a rule that fired.
fn message(f: &rules::Firing, reading: &Reading, previous: Option<&Reading>) -> String {
    let cur = reading.currency.as_deref().or(previous.and_then(|p| p.currency.as_deref()));
    let field = f.rule.field.as_deref().unwrap_or("price");
    match f.rule.op {
        TriggerOp::BackInStock => match reading.price {
            Some(p) => format!("back in stock at {}", format::money(p, cur)),
            None => "back in stock".to_owned(),
        },
        TriggerOp::Changed if field != "price" => {
            format!("{field}: {} → {}", shown(previous.and_then(|p| p.get(field))), shown(reading.get(field)))
        }
        _ if f.on_price => match reading.price {
            Some(p) => format!("{} ({})", format::change(previous.and_then(|r| r.price), p, cur), f.description),
            None => f.description.clone(),
        },
        _ => format!("{} (now {})", f.description, shown(reading.get(field))),
    }
}

/// A whole check's plan: what to write, and what to report.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub write: CheckWrite,
    pub check: WatchCheck,
}

fn seconds_between(from: &str, to: &str) -> Option<i64> {
    let a = chrono::DateTime::parse_from_rfc3339(from).ok()?;
    let b = chrono::DateTime::parse_from_rfc3339(to).ok()?;
    Some((b - a).num_seconds())
}

/// Works out a check's consequences (pure): health, rules, alerts, the
/// watch's new state.
pub fn plan(row: &WatchRow, rules: &[TriggerRule], outcome: Outcome, at: &str) -> Planned {
    let previous: Option<Reading> = row.last_value.clone().and_then(|v| serde_json::from_value(v).ok());
    let states: BTreeMap<String, RuleState> = serde_json::from_value(row.rule_state.clone()).unwrap_or_default();
    let mut write = CheckWrite {
        observation: NewObservation {
            observed_at: at.to_owned(),
            value: None,
            raw_text: None,
            triggered: false,
            error: None,
            reading: None,
        },
        health: row.health,
        consecutive_failures: row.consecutive_failures,
        last_error: row.last_error.clone(),
        check_method: None,
        currency: None,
        baseline_price: row.baseline_price,
        last_alerted_price: row.last_alerted_price,
        all_time_low: row.all_time_low,
        rule_state: row.rule_state.clone(),
        last_alert_at: row.last_alert_at.clone(),
        breaks: row.breaks,
        alerts: Vec::new(),
        jitter_secs: jitter(&row.id, at, row.frequency_secs),
    };
    let mut fired: Vec<FiredRule> = Vec::new();
    let mut typed = ObservedReading::default();
    let mut read: Option<Reading> = None;
    let alert = |rule: &str, value: String, description: String, body: String, fired: &mut Vec<FiredRule>| {
        fired.push(FiredRule { rule: rule.to_owned(), description, message: body.clone() });
        (rule.to_owned(), value, body)
    };
    let mut pending: Vec<(String, String, String)> = Vec::new();
    let mut error: Option<String> = None;
    let mut rule_fired = false;
    match outcome {
        Outcome::Read { reading, method, doubt } => {
            typed.price = reading.price;
            typed.currency = reading.currency.clone();
            typed.in_stock = reading.in_stock;
            typed.method = Some(method.as_str().to_owned());
            write.observation.value = serde_json::to_value(&reading).ok();
            write.check_method = Some(method.as_str().to_owned());
            match doubt {
                Some(d) => {
                    // Not trusted: rules wait; a broken watch stays broken.
                    write.health =
                        if row.health == WatchHealth::Broken { WatchHealth::Broken } else { WatchHealth::Degraded };
                    write.last_error = Some(d.clone());
                    error = Some(d);
                    // The observation keeps the reading; the watch's last value does not.
                    write.observation.value = None;
                    write.observation.raw_text = serde_json::to_string(&reading).ok();
                }
                None => {
                    let cooling_down = row
                        .last_alert_at
                        .as_deref()
                        .and_then(|last| seconds_between(last, at))
                        .is_some_and(|s| s < row.cooldown_secs);
                    let memory = Memory {
                        previous: previous.clone(),
                        baseline_price: row.baseline_price,
                        last_alerted_price: row.last_alerted_price,
                        all_time_low: row.all_time_low,
                        states,
                        cooling_down,
                    };
                    let eval = rules::evaluate(rules, &reading, &memory);
                    for f in &eval.fired {
                        let body = message(f, &reading, previous.as_ref());
                        pending.push(alert(&f.key, f.value.clone(), f.description.clone(), body, &mut fired));
                        rule_fired = true;
                        if f.on_price {
                            write.last_alerted_price = reading.price;
                        }
                    }
                    if rule_fired {
                        write.last_alert_at = Some(at.to_owned());
                    }
                    if row.health == WatchHealth::Broken {
                        let body = format!("works again: {}", summary(&reading));
                        pending.push(alert(
                            "health:recovered",
                            format!("#{}", row.breaks),
                            "the watch works again".into(),
                            body,
                            &mut fired,
                        ));
                    }
                    write.health = WatchHealth::Ok;
                    write.consecutive_failures = 0;
                    write.last_error = None;
                    write.currency = reading.currency.clone();
                    write.baseline_price = eval.baseline_price;
                    write.all_time_low = eval.all_time_low;
                    write.rule_state =
                        serde_json::to_value(&eval.states).unwrap_or_else(|_| Value::Object(Default::default()));
                    read = Some(reading);
                }
            }
        }
        Outcome::Gone { status } => {
            let e = format!("the page is gone (HTTP {status})");
            write.consecutive_failures += 1;
            write.health = WatchHealth::Broken;
            write.last_error = Some(e.clone());
            error = Some(e);
        }
        Outcome::Failed { error: e } => {
            write.consecutive_failures += 1;
            write.health = if row.health == WatchHealth::Broken || write.consecutive_failures >= BROKEN_AFTER {
                WatchHealth::Broken
            } else {
                WatchHealth::Degraded
            };
            write.last_error = Some(e.clone());
            error = Some(e);
        }
    }
    if write.health == WatchHealth::Broken && row.health != WatchHealth::Broken {
        write.breaks += 1;
        let why = error.clone().unwrap_or_default();
        let body = format!("stopped working: {why}. Halley keeps checking and says when it works again.");
        pending.push(alert("health:broken", format!("#{}", write.breaks), "the watch broke".into(), body, &mut fired));
    }
    let label = label_of(row, read.as_ref(), previous.as_ref());
    for (rule, value, body) in pending {
        write.alerts.push(NewAlert {
            watch_id: Some(row.id.clone()),
            rule,
            value,
            title: label.clone(),
            body,
            url: Some(row.target_url.clone()),
            // Snoozed: to the inbox only.
            channel: if row.snoozed_until.as_deref().is_some_and(|until| until > at) {
                AlertChannel::InApp
            } else {
                AlertChannel::Push
            },
        });
    }
    typed.health = write.health;
    typed.fired_rules = fired.iter().map(|f| f.rule.clone()).collect();
    write.observation.triggered = rule_fired;
    write.observation.error = error.clone();
    write.observation.reading = Some(typed.clone());
    let value = read.as_ref().and_then(|r| match r.price {
        Some(p) => Some(Value::from(p)),
        None if !r.fields.is_empty() => Some(Value::Object(r.fields.clone())),
        None => None,
    });
    let check = WatchCheck {
        watch_id: row.id.clone(),
        checked_at: at.to_owned(),
        price: typed.price,
        currency: typed.currency.clone(),
        in_stock: typed.in_stock,
        fields: read.as_ref().map(|r| r.fields.clone()).unwrap_or_default(),
        fired_rules: fired,
        health: write.health,
        method: typed.method.clone(),
        value,
        triggered: rule_fired,
        error,
    };
    Planned { write, check }
}

/// Up to 2 % of the period (at most 5 minutes), the same for the same
/// watch and time: checks of many watches spread out instead of landing together.
fn jitter(id: &str, at: &str, period: i64) -> i64 {
    let span = (period / 50).min(300);
    if span <= 0 {
        return 0;
    }
    let hash = id
        .bytes()
        .chain(at.bytes())
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    (hash % (span as u64 + 1)) as i64
}

/// `19.990.000 ₫, in stock` / `status: Delayed`.
fn summary(r: &Reading) -> String {
    let mut parts = Vec::new();
    if let Some(p) = r.price {
        parts.push(format::money(p, r.currency.as_deref()));
    }
    match r.in_stock {
        Some(true) => parts.push("in stock".to_owned()),
        Some(false) => parts.push("out of stock".to_owned()),
        None => {}
    }
    for (k, v) in &r.fields {
        parts.push(format!("{k}: {}", shown(Some(v.clone()))));
    }
    parts.join(", ")
}

/// A watch that is not deleted; `not_found` (an unknown watch id) otherwise.
pub async fn get_watch(store: &Store, id: &str) -> Result<WatchRow> {
    match store.watches().get(id).await? {
        Some(row) if row.status != WatchStatus::Deleted => Ok(row),
        _ => Err(Error::new(ErrorCode::NotFound, format!("unknown watch id {id:?}; `watch_list` shows the watches"))),
    }
}

/// Checks one watch now: read the page, write the observation, state and
/// alerts in one transaction, then send the alerts not sent yet.
pub async fn check_watch(ctx: &Services, row: &WatchRow) -> Result<WatchCheck> {
    let (target, rules) = target_of(row)?;
    let known = row.check_method.as_deref().and_then(Method::parse);
    let outcome = check::read(ctx, &target, known, None).await;
    let check = finish(ctx, row, &rules, outcome).await?;
    crate::notify::deliver_pending(&ctx.store).await?;
    Ok(check)
}

/// A check's reading written: the observation, the watch's state and its
/// alerts in one transaction (sent by whoever delivers).
async fn finish(ctx: &Services, row: &WatchRow, rules: &[TriggerRule], outcome: Outcome) -> Result<WatchCheck> {
    let planned = plan(row, rules, outcome, &now());
    ctx.store.watches().apply_check(&row.id, &planned.write).await?;
    Ok(planned.check)
}

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

#[cfg(test)]
mod tests;
