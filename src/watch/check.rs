//! Reading a watched page: HTTP first (a plain fetch with a Chrome-like
//! User-Agent, then the same extraction as `browser_extract` on facts built
//! from the HTML, [`super::html`]); the managed Chromium in a background tab
//! only when the fetched page yields no value (a script-rendered shop),
//! through the core's own browser tools (so through the gate), and straight
//! away for a watch whose last good check needed it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::html::{facts_from_html, products};
use super::rules::Reading;
use crate::browser::extract::extract;
use crate::builtin::browser::BrowserTool;
pub use crate::builtin::fetch::USER_AGENT;
use crate::builtin::fetch::{client, close_run, gated};
use crate::context::{CallContext, FrontEnd};
use crate::error::Error;
use crate::handler::Services;
use crate::store::new_id;
use crate::tools::catalogue::capture::{BrowserExtractOutput, ExtractFieldType, ExtractSourceType};

/// Pages larger than this are not read whole.
const MAX_BODY: usize = 8 * 1024 * 1024;

/// How a page was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Http,
    Browser,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Http => "http",
            Method::Browser => "browser",
        }
    }

    pub fn parse(s: &str) -> Option<Method> {
        match s {
            "http" => Some(Method::Http),
            "browser" => Some(Method::Browser),
            _ => None,
        }
    }
}

/// What to read from the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub url: String,
    pub selector: Option<String>,
    /// The fields asked of extraction (price, stock... and the watch's own).
    pub schema: BTreeMap<String, ExtractFieldType>,
    /// Whether the watch is about a price (else about its fields).
    pub wants_price: bool,
}

/// The outcome of reading a page once.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Something was read. `doubt`: why the reading cannot be trusted
    /// (rules then wait), e.g. several products on the page.
    Read { reading: Reading, method: Method, doubt: Option<String> },
    /// The page is gone (HTTP 404 or 410).
    Gone { status: u16 },
    /// The fetch failed, or nothing could be read.
    Failed { error: String },
}

/// A fetched page.
struct Fetched {
    status: u16,
    url: String,
    body: String,
}

/// Redirects followed at most.
const MAX_REDIRECTS: usize = 10;

/// Fetches `url`, following redirects; a redirect to another origin passes
/// the gate before it is requested (`Err` with the gate's reason).
async fn fetch(ctx: &Services, url: &str) -> std::result::Result<Fetched, String> {
    let mut current = url.to_owned();
    for _ in 0..=MAX_REDIRECTS {
        let resp = client(&current)
            .map_err(|e| e.message().to_owned())?
            .get(&current)
            .header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
            .header("Accept-Language", "vi-VN,vi;q=0.9,en-US;q=0.8,en;q=0.7")
            .send()
            .await
            .map_err(|e| format!("cannot fetch {current}: {e}"))?;
        let status = resp.status();
        let next = status
            .is_redirection()
            .then(|| resp.headers().get(reqwest::header::LOCATION).and_then(|l| l.to_str().ok()))
            .flatten()
            .and_then(|l| resp.url().join(l).ok());
        if let Some(next) = next {
            let next = next.to_string();
            if crate::vocab::origin::origin_of(&next) != crate::vocab::origin::origin_of(&current) {
                gated(ctx, &CallContext::new(FrontEnd::Background), "watch_poll", &next).await?;
            }
            current = next;
            continue;
        }
        let final_url = resp.url().to_string();
        let bytes = resp.bytes().await.map_err(|e| format!("cannot read {current}: {e}"))?;
        let bytes = &bytes[..bytes.len().min(MAX_BODY)];
        return Ok(Fetched {
            status: status.as_u16(),
            url: final_url,
            body: String::from_utf8_lossy(bytes).into_owned(),
        });
    }
    Err(format!("{url} redirects more than {MAX_REDIRECTS} times"))
}

fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned).filter(|s| !s.trim().is_empty())
}

/// The typed reading of an extraction's output.
pub fn reading_of(out: &BrowserExtractOutput, target: &Target) -> Reading {
    let mut fields = serde_json::Map::new();
    for name in target.schema.keys() {
        if matches!(name.as_str(), "price" | "currency" | "in_stock" | "name") {
            continue;
        }
        if let Some(v) = out.data.get(name) {
            fields.insert(name.clone(), v.clone());
        }
    }
    let mut reading = Reading {
        price: if target.wants_price { out.data.get("price").and_then(Value::as_f64) } else { None },
        currency: if target.wants_price { string(out.data.get("currency")) } else { None },
        in_stock: out.data.get("in_stock").and_then(Value::as_bool),
        fields,
        name: string(out.data.get("name")),
        unsure: BTreeMap::new(),
    };
    // A price or stock state read with little confidence (a conflict on the
    // page, a guess from loose text) is kept, but no rule acts on it.
    let read = [("price", reading.price.map(Value::from)), ("in_stock", reading.in_stock.map(Value::Bool))];
    for (field, value) in read {
        let Some(value) = value else { continue };
        let confidence = out.confidence.get(field).copied().unwrap_or(0.0);
        if confidence < super::TRUSTED {
            let notes: Vec<&str> = out
                .notes
                .iter()
                .filter_map(|n| n.strip_prefix(field).and_then(|n| n.strip_prefix(": ")))
                .take(2)
                .collect();
            let why = if notes.is_empty() { String::new() } else { format!(": {}", notes.join("; ")) };
            reading.unsure.insert(
                field.to_owned(),
                format!("{field} read as {value} with confidence {confidence:.2}, below {}{why}", super::TRUSTED),
            );
        }
    }
    reading
}

/// The watch's own text fields extraction left out, from a label on the
/// page with the same name (`status` ↔ "Status", `cong` ↔ "Cổng"):
/// extraction may read a name as a concept (`status` as stock) the page
/// does not show.
fn labelled_fields(facts: &crate::browser::extract::PageFacts, target: &Target, out: &mut BrowserExtractOutput) {
    use crate::vocab::text::fold_key;
    for (name, ty) in &target.schema {
        let own = !matches!(name.as_str(), "price" | "currency" | "in_stock" | "name");
        if !own || *ty != ExtractFieldType::String || out.data.contains_key(name) {
            continue;
        }
        let key = fold_key(name);
        if let Some((_, value)) = facts.pairs.iter().find(|(label, _)| fold_key(label) == key) {
            out.data.insert(name.clone(), Value::String(value.clone()));
            out.missing_fields.retain(|m| m != name);
            out.sources.insert(name.clone(), "label".into());
        }
    }
}

/// Whether a reading holds what the watch is about.
fn has_value(r: &Reading, target: &Target) -> bool {
    if target.wants_price { r.price.is_some() } else { !r.fields.is_empty() }
}

/// Why a reading cannot be trusted, if so.
fn doubt_of(out: &BrowserExtractOutput, jsonld_products: usize, target: &Target) -> Option<String> {
    if target.selector.is_some() || !target.wants_price {
        return None;
    }
    if jsonld_products > 1 {
        return Some(format!(
            "the page shows {jsonld_products} products; give the watch a `selector` for the one to watch"
        ));
    }
    let structured = out.sources.get("price").is_some_and(|s| matches!(s.as_str(), "json-ld" | "microdata"));
    let disputed = out.notes.iter().find(|n| n.starts_with("price:") && n.contains("different values"));
    match disputed {
        Some(note) if structured => {
            Some(format!("the page disagrees on the price ({note}); give the watch a `selector`"))
        }
        _ => None,
    }
}

/// Reads the page over HTTP (a redirect elsewhere passes the gate too).
async fn over_http(ctx: &Services, target: &Target) -> Outcome {
    let page = match fetch(ctx, &target.url).await {
        Ok(p) => p,
        Err(error) => return Outcome::Failed { error },
    };
    if matches!(page.status, 404 | 410) {
        return Outcome::Gone { status: page.status };
    }
    if !(200..300).contains(&page.status) {
        return Outcome::Failed { error: format!("{} answered HTTP {}", target.url, page.status) };
    }
    read_html(&page.body, &page.url, target)
}

/// Reads a fetched page's HTML as a check does (the same extraction as
/// `browser_extract`, on facts built from the HTML).
pub(crate) fn read_html(html: &str, url: &str, target: &Target) -> Outcome {
    let Some(facts) = facts_from_html(html, url, target.selector.as_deref()) else {
        return Outcome::Failed {
            error: format!("the selector {:?} matches nothing on the page", target.selector.as_deref().unwrap_or("")),
        };
    };
    let mut out = extract(&facts, &target.schema, ExtractSourceType::Dom);
    labelled_fields(&facts, target, &mut out);
    let reading = reading_of(&out, target);
    if !has_value(&reading, target) {
        return Outcome::Failed { error: "nothing could be read from the fetched page".into() };
    }
    let doubt = doubt_of(&out, products(&facts.jsonld), target);
    Outcome::Read { reading, method: Method::Http, doubt }
}

/// Background tabs a pass reuses for its browser checks: each slot is a run
/// of its own holding one tab, navigated from one watched page to the next
/// (a new tab costs a renderer process; a navigation on the same site
/// reuses it). [`Tabs::close`] closes them and releases the runs at the
/// end of the pass.
#[derive(Debug, Default)]
pub struct Tabs {
    free: std::sync::Mutex<Vec<Slot>>,
}

#[derive(Debug)]
struct Slot {
    run: String,
    tab: Option<String>,
}

impl Tabs {
    fn take(&self) -> Slot {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.pop().unwrap_or_else(|| Slot { run: new_id("watch-check"), tab: None })
    }

    fn give_back(&self, slot: Slot) {
        self.free.lock().unwrap_or_else(|e| e.into_inner()).push(slot);
    }

    /// Close every tab the pass opened and release its runs.
    pub async fn close(&self, ctx: &Services) {
        let slots = std::mem::take(&mut *self.free.lock().unwrap_or_else(|e| e.into_inner()));
        for slot in slots {
            close_slot(ctx, slot).await;
        }
    }
}

async fn close_slot(ctx: &Services, slot: Slot) {
    close_run(ctx, &slot.run, slot.tab).await;
}

/// Reads the page in the managed Chromium, in a background tab of a run of
/// its own, through the browser tools (each passes the gate). With `tabs`
/// (a pass), the tab is kept for the pass's next browser check; without,
/// it is closed and the run released at once.
async fn in_browser(ctx: &Services, target: &Target, tabs: Option<&Tabs>) -> Outcome {
    let mut slot = tabs.map_or_else(|| Slot { run: new_id("watch-check"), tab: None }, Tabs::take);
    let cx = CallContext::new(FrontEnd::Background).with_run(slot.run.clone());
    // A blank tab first, held to the gate (`hold`) before the page loads:
    // the page's scripts run, but cannot order, submit or leak.
    let blank = match &slot.tab {
        Some(_) => Ok(()),
        None => match BrowserTool::NewTab.run(ctx, &cx, json!({})).await.output {
            Ok(tab) => {
                slot.tab = tab.data.pointer("/tab/id").and_then(Value::as_str).map(str::to_owned);
                Ok(())
            }
            Err(e) => Err(e),
        },
    };
    let held = match (blank, &slot.tab) {
        (Ok(()), Some(tab)) => super::hold::hold(ctx, &slot.run, tab, &target.url).await,
        (Err(e), _) => Err(e),
        (Ok(()), None) => Err(Error::internal("browser_new_tab named no tab")),
    };
    let opened = match held {
        Ok(()) => BrowserTool::Navigate.run(ctx, &cx, json!({"url": target.url, "wait_until": "load"})).await.output,
        Err(e) => Err(e),
    };
    let outcome = match opened {
        Err(e) => Outcome::Failed { error: format!("the browser could not open the page: {}", e.message()) },
        Ok(_) => {
            // With a selector, only what the element shows: the page's
            // JSON-LD may describe other products too.
            let kind = if target.selector.is_some() { "text" } else { "dom" };
            let args = json!({"schema": target.schema, "source": {"type": kind, "selector": target.selector}});
            let read = BrowserTool::Extract.run(ctx, &cx, args).await.output;
            match read.and_then(|o| {
                serde_json::from_value::<BrowserExtractOutput>(o.data)
                    .map_err(|e| Error::internal("unexpected browser_extract output").with_source(e))
            }) {
                Err(e) => Outcome::Failed { error: format!("the browser could not read the page: {}", e.message()) },
                Ok(out) => {
                    let reading = reading_of(&out, target);
                    if has_value(&reading, target) {
                        let doubt = doubt_of(&out, 0, target);
                        Outcome::Read { reading, method: Method::Browser, doubt }
                    } else {
                        Outcome::Failed { error: "nothing could be read from the page, even in the browser".into() }
                    }
                }
            }
        }
    };
    match tabs {
        // A tab that failed to open or load is not reused.
        Some(pool) if matches!(outcome, Outcome::Read { .. }) && slot.tab.is_some() => pool.give_back(slot),
        _ => close_slot(ctx, slot).await,
    }
    outcome
}

/// Reads the page over HTTP after the gate's word; `None` when the fetched
/// page yields nothing (script-rendered: the browser's turn).
pub async fn read_http(ctx: &Services, target: &Target) -> Option<Outcome> {
    if let Err(error) = gated(ctx, &CallContext::new(FrontEnd::Background), "watch_poll", &target.url).await {
        return Some(Outcome::Failed { error });
    }
    match over_http(ctx, target).await {
        Outcome::Failed { error } if error.starts_with("nothing could be read") => None,
        other => Some(other),
    }
}

/// Reads the page in the managed Chromium (see [`in_browser`]).
pub async fn read_browser(ctx: &Services, target: &Target, tabs: Option<&Tabs>) -> Outcome {
    in_browser(ctx, target, tabs).await
}

/// Reads the page: over HTTP unless the watch is known to need the
/// browser; in the browser when HTTP read nothing (not when the page is gone).
pub async fn read(ctx: &Services, target: &Target, known: Option<Method>, tabs: Option<&Tabs>) -> Outcome {
    if known != Some(Method::Browser)
        && let Some(outcome) = read_http(ctx, target).await
    {
        return outcome;
    }
    in_browser(ctx, target, tabs).await
}
