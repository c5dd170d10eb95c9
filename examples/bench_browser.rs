//! Browser benchmark: Halley against Playwright MCP on the fixture pages,
//! side by side in one run. Prints snapshot sizes (tokens), snapshot time and
//! action latency as markdown tables; `--write-doc` also puts them into
//! `docs/benchmarks.md`. Run it with `make bench` (see docs/benchmarks.md).
//!
//! Halley is driven in-process through `halley::Core`; Playwright MCP over
//! stdio by `bench/playwright-mcp/bench.mjs`, which this program starts after
//! Halley's browser has been closed, so the two never share the CPU.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use halley::core::BrowserSettings;
use halley::tools::{Registry, ToolResultV2};
use halley::{Core, DataDir};
use regex::Regex;
use serde_json::{Value, json};

#[allow(dead_code, clippy::expect_used)]
#[path = "../tests/common/fixtures.rs"]
mod fixtures;

/// The fixture pages whose snapshots are compared.
const PAGES: &[&str] = &[
    "shop-vn.html",
    "shop-us.html",
    "form.html",
    "frames.html",
    "modal.html",
    "hidden.html",
    "tabs.html",
    "login.html",
    "catalogue?rows=200",
    "catalogue?rows=3000",
];
/// Largest snapshot page Halley accepts: the full snapshot is read with it.
const FULL_BUDGET: u64 = 200_000;
const DOC: &str = "docs/benchmarks.md";
const START: &str = "<!-- browser-bench:start -->";
const END: &str = "<!-- browser-bench:end -->";
const TOKEN_TARGET: f64 = 0.5;
const LATENCY_TARGET: f64 = 1.0;

/// The wire gate's aim: at most this much added to an action.
const WIRE_COST_AIM: f64 = 0.10;

/// The real shop pages whose loads time the wire gate's interception
/// (one page per site; never named in the output).
const PRODUCTS: &str = "../shared/datasets/products-dev";

struct Options {
    write_doc: bool,
    snapshot_runs: usize,
    action_runs: usize,
    load_runs: usize,
    /// Only the wire gate's cost (actions and page loads), printed (a
    /// quick look while working on the hub).
    only_wire: bool,
    chromium: PathBuf,
}

fn options() -> Result<Options> {
    let mut o = Options {
        write_doc: false,
        snapshot_runs: 15,
        action_runs: 20,
        load_runs: 2,
        only_wire: false,
        chromium: PathBuf::from("/usr/bin/chromium"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| anyhow!("{name} needs a value"));
        match arg.as_str() {
            "--write-doc" => o.write_doc = true,
            "--snapshot-runs" => o.snapshot_runs = value(&arg)?.parse()?,
            "--action-runs" => o.action_runs = value(&arg)?.parse()?,
            "--load-runs" => o.load_runs = value(&arg)?.parse()?,
            "--only-wire" => o.only_wire = true,
            "--chromium" => o.chromium = value(&arg)?.into(),
            "-h" | "--help" => {
                println!(
                    "usage: bench_browser [--write-doc] [--snapshot-runs N (15)] [--action-runs N (20)] \
                     [--load-runs N (2)] [--only-wire] [--chromium PATH (/usr/bin/chromium)]"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument `{other}` (try --help)"),
        }
    }
    if o.snapshot_runs == 0 || o.action_runs == 0 || o.load_runs == 0 {
        bail!("--snapshot-runs, --action-runs and --load-runs must be at least 1");
    }
    Ok(o)
}

/// Median and 90th percentile (nearest rank) of some milliseconds.
#[derive(Debug, Clone, Copy)]
struct Stats {
    median: f64,
    p90: f64,
}

impl Stats {
    fn of(samples: &[f64]) -> Stats {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 };
        let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
        Stats { median, p90: s[rank - 1] }
    }

    fn from_json(v: &Value) -> Stats {
        Stats { median: v["median"].as_f64().unwrap_or(f64::NAN), p90: v["p90"].as_f64().unwrap_or(f64::NAN) }
    }
}

/// One tool call, timed; an error result is an error.
async fn call(core: &Core, name: &str, args: Value) -> Result<(f64, ToolResultV2)> {
    let t0 = Instant::now();
    let result = core.call_tool(&halley::CallContext::new(halley::FrontEnd::Cli), name, args.clone()).await;
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    if !result.is_ok() {
        let why = result.error.as_ref().map(|e| format!("{:?}: {}", e.code, e.message)).unwrap_or_default();
        bail!("Halley {name} {args} failed: {why}");
    }
    Ok((ms, result))
}

/// `1 + runs` runs of `f`; the first is a warm-up and is not counted. Returns
/// the stats and the last run's value.
async fn timed<T, F, Fut>(runs: usize, f: F) -> Result<(Stats, T)>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(f64, T)>>,
{
    let (ms, last) = sampled(runs, f).await?;
    Ok((Stats::of(&ms), last))
}

/// [`timed`]'s samples themselves.
async fn sampled<T, F, Fut>(runs: usize, mut f: F) -> Result<(Vec<f64>, T)>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(f64, T)>>,
{
    let (_, mut last) = f().await?;
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (t, v) = f().await?;
        ms.push(t);
        last = v;
    }
    Ok((ms, last))
}

/// Halley's whole snapshot of the current page: every page of it at the
/// largest budget, joined, and the tool results as the JSON a front end
/// would pass on. Returns the time of all calls together.
async fn full_snapshot(core: &Core) -> Result<(f64, (String, String))> {
    let (mut ms, first) = call(core, "browser_snapshot", json!({"max_chars": FULL_BUDGET})).await?;
    let mut text = first.data["text"].as_str().unwrap_or_default().to_owned();
    let mut envelopes = serde_json::to_string(&first)?;
    let pages = first.data["pages"].as_u64().unwrap_or(1);
    for page in 2..=pages {
        let (t, more) = call(core, "browser_snapshot", json!({"max_chars": FULL_BUDGET, "page": page})).await?;
        ms += t;
        text.push('\n');
        text.push_str(more.data["text"].as_str().unwrap_or_default());
        envelopes.push('\n');
        envelopes.push_str(&serde_json::to_string(&more)?);
    }
    Ok((ms, (text, envelopes)))
}

struct HalleyPage {
    name: String,
    url: String,
    full: String,
    /// The ToolResultV2 JSON of the full snapshot's calls.
    full_json: String,
    full_pages: u64,
    first_page: String,
    pages: u64,
    refs: usize,
    time: Stats,
}

struct Action {
    name: &'static str,
    what: &'static str,
    time: Stats,
    samples: Vec<f64>,
    /// Characters of the result's `data` as JSON.
    response_chars: usize,
}

impl Action {
    fn new(name: &'static str, what: &'static str, samples: Vec<f64>, response_chars: usize) -> Action {
        Action { name, what, time: Stats::of(&samples), samples, response_chars }
    }
}

struct HalleyRun {
    pages: Vec<HalleyPage>,
    actions: Actions,
}

struct Actions {
    actions: Vec<Action>,
    trivial: Stats,
    /// The same navigation right after an action, with the gate's watch
    /// on the tab (every request the page loads goes through it).
    watched_navigate: Action,
}

fn distinct_refs(text: &str) -> Result<usize> {
    let re = Regex::new(r"\[(e\d+)\]")?;
    let refs: std::collections::BTreeSet<&str> =
        re.captures_iter(text).filter_map(|c| c.get(1)).map(|m| m.as_str()).collect();
    Ok(refs.len())
}

/// The ref of the element on the snapshot line matching `pattern`
/// (`[e16] button "Thêm vào giỏ"` -> `e16`).
fn ref_of(text: &str, pattern: &str) -> Result<String> {
    let re = Regex::new(&format!(r"\[(e\d+)\] {pattern}"))?;
    re.captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_owned())
        .ok_or_else(|| anyhow!("no `{pattern}` in Halley's snapshot:\n{text}"))
}

async fn halley(core: &Core, server: &fixtures::FixtureServer, o: &Options) -> Result<HalleyRun> {
    let mut pages = Vec::new();
    for name in PAGES {
        eprintln!("[halley] snapshot {name}");
        let url = server.url(name);
        call(core, "browser_navigate", json!({"url": url})).await?;
        let (time, (full, full_json)) = timed(o.snapshot_runs, || full_snapshot(core)).await?;
        let (_, first) = call(core, "browser_snapshot", json!({})).await?;
        let (_, whole) = call(core, "browser_snapshot", json!({"max_chars": FULL_BUDGET})).await?;
        pages.push(HalleyPage {
            name: (*name).to_owned(),
            url,
            refs: distinct_refs(&full)?,
            full,
            full_json,
            full_pages: whole.data["pages"].as_u64().unwrap_or(0),
            first_page: first.data["text"].as_str().unwrap_or_default().to_owned(),
            pages: first.data["pages"].as_u64().unwrap_or(0),
            time,
        });
    }

    Ok(HalleyRun { pages, actions: actions(core, server, o.action_runs).await? })
}

/// The actions, timed: `runs` of each after a warm-up.
async fn actions(core: &Core, server: &fixtures::FixtureServer, runs: usize) -> Result<Actions> {
    eprintln!("[halley] actions");
    let size = |r: &ToolResultV2| r.data.to_string().chars().count();
    let mut actions = Vec::new();
    let shop = server.url("shop-vn.html");
    let form = server.url("form.html");

    let (samples, last) =
        sampled(runs, || call(core, "browser_navigate", json!({"url": shop, "wait_until": "load"}))).await?;
    actions.push(Action::new("navigate", "shop-vn.html, until load", samples, size(&last)));

    let (_, snap) = call(core, "browser_snapshot", json!({})).await?;
    let cart = ref_of(snap.data["text"].as_str().unwrap_or_default(), r#"button "Thêm vào giỏ""#)?;
    let (samples, last) = sampled(runs, || call(core, "browser_click", json!({"ref": cart}))).await?;
    actions.push(Action::new("click", "button “Thêm vào giỏ” by ref", samples, size(&last)));

    call(core, "browser_navigate", json!({"url": form})).await?;
    let (_, snap) = call(core, "browser_snapshot", json!({})).await?;
    let text = snap.data["text"].as_str().unwrap_or_default();
    let name = ref_of(text, r#"textbox "Họ và tên"#)?;
    let country = ref_of(text, r#"combobox "Quốc tịch"#)?;
    let (samples, last) = sampled(runs, || {
        call(core, "browser_type", json!({"ref": name, "text": "Nguyễn Văn An", "clear_first": true}))
    })
    .await?;
    actions.push(Action::new("type", "form.html #ho_ten “Nguyễn Văn An”", samples, size(&last)));
    let (samples, last) =
        sampled(runs, || call(core, "browser_select_option", json!({"ref": country, "label": "Nhật Bản"}))).await?;
    actions.push(Action::new("select", "form.html #quoc_tich → “Nhật Bản”", samples, size(&last)));
    let (samples, last) = sampled(runs, || call(core, "browser_screenshot", json!({}))).await?;
    actions.push(Action::new("screenshot", "viewport, PNG", samples, size(&last)));

    let (trivial, _) = timed(runs, || call(core, "browser_list_tabs", json!({}))).await?;
    // An action (a click), then the page loads again while the tab's watch is on.
    call(core, "browser_navigate", json!({"url": shop, "wait_until": "load"})).await?;
    let (samples, _) = sampled(runs, || async {
        call(core, "browser_click", json!({"selector": "#add-to-cart"})).await?;
        call(core, "browser_navigate", json!({"url": shop, "wait_until": "load"})).await
    })
    .await?;
    let watched_navigate = Action::new("navigate right after a click (the tab's watch on)", "", samples, 0);
    Ok(Actions { actions, trivial, watched_navigate })
}

/// Run `bench/playwright-mcp/bench.mjs` on the same pages; its JSON result.
fn playwright(root: &Path, run: &HalleyRun, o: &Options, server: &fixtures::FixtureServer) -> Result<Value> {
    let dir = root.join("bench/playwright-mcp");
    if !dir.join("node_modules/@playwright/mcp").is_dir() {
        bail!("{} has no node_modules: run `make bench` (or `npm ci` there) first", dir.display());
    }
    let tmp = tempfile::tempdir()?;
    let mut pages = Vec::new();
    for (i, p) in run.pages.iter().enumerate() {
        let full = tmp.path().join(format!("{i}.halley.txt"));
        let first = tmp.path().join(format!("{i}.halley-first.txt"));
        std::fs::write(&full, &p.full)?;
        let envelope = tmp.path().join(format!("{i}.halley.json"));
        std::fs::write(&first, &p.first_page)?;
        std::fs::write(&envelope, &p.full_json)?;
        pages.push(json!({
            "name": p.name, "url": p.url, "halley_text": full, "halley_first_text": first, "halley_json": envelope,
        }));
    }
    let out = tmp.path().join("playwright.json");
    let config = json!({
        "out": out,
        "output_dir": tmp.path().join("pw-output"),
        "chromium": o.chromium,
        "viewport": "1280x900",
        "snapshot_runs": o.snapshot_runs,
        "action_runs": o.action_runs,
        "pages": pages,
        "actions": {"shop": server.url("shop-vn.html"), "form": server.url("form.html")},
    });
    let config_path = tmp.path().join("config.json");
    std::fs::write(&config_path, serde_json::to_vec_pretty(&config)?)?;
    let status = Command::new("node")
        .arg(dir.join("bench.mjs"))
        .arg(&config_path)
        .current_dir(&dir)
        .status()
        .context("could not run node (Node 20+ is needed)")?;
    if !status.success() {
        bail!("bench/playwright-mcp/bench.mjs failed ({status})");
    }
    Ok(serde_json::from_slice(&std::fs::read(&out)?)?)
}

fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(str::trim)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 { format!("{:.2}×", a / b) } else { "n/a".into() }
}

fn ms(s: f64) -> String {
    if s >= 100.0 { format!("{s:.0}") } else { format!("{s:.1}") }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "✅" } else { "❌" }
}

/// The markdown report: machine, snapshot size, addressability, snapshot
/// time, action latency, per-call overhead.
fn report(run: &HalleyRun, wire: &Wire, loads: &Loads, pw: &Value, o: &Options, root: &Path) -> Result<String> {
    let mut md = String::new();
    let version = pw["version"].as_str().unwrap_or("?");
    let commit = command_line("git", &["-C", &root.to_string_lossy(), "rev-parse", "--short", "HEAD"]);
    writeln!(
        md,
        "Machine: {} ({} cores), {}; Playwright MCP {version} on Node {}; Halley {} ({}, `{}` build). \
         Snapshot times: median of {} runs, action latency: median and p90 of {} runs, one warm-up call excluded.\n",
        cpu_model(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        command_line(&o.chromium.to_string_lossy(), &["--version"]),
        pw["node"].as_str().unwrap_or("?"),
        env!("CARGO_PKG_VERSION"),
        commit,
        if cfg!(debug_assertions) { "debug" } else { "release" },
        o.snapshot_runs,
        o.action_runs,
    )?;

    let pw_pages = pw["pages"].as_array().ok_or_else(|| anyhow!("no pages in Playwright's result"))?;
    let tokenizer = pw["tokenizer"].as_str().unwrap_or("?");
    writeln!(
        md,
        "**Snapshot size** (tokens: `{tokenizer}` via js-tiktoken; ≈ chars/4 in brackets). Target: Halley ≤ {TOKEN_TARGET}× Playwright MCP.\n"
    )?;
    writeln!(
        md,
        "| Page | Halley full snapshot | Halley first page (default budget) | Playwright MCP `browser_snapshot` | Ratio | ≤ {TOKEN_TARGET}× | Halley as ToolResultV2 JSON, ratio |"
    )?;
    writeln!(md, "| --- | ---: | ---: | ---: | ---: | :---: | ---: |")?;
    let mut size_misses = Vec::new();
    for (h, p) in run.pages.iter().zip(pw_pages) {
        let h_chars = h.full.chars().count() as f64;
        let h_tokens = p["halley_tokens"].as_f64().unwrap_or(f64::NAN);
        let first_tokens = p["halley_first_tokens"].as_f64().unwrap_or(f64::NAN);
        let p_chars = p["chars"].as_f64().unwrap_or(f64::NAN);
        let p_tokens = p["tokens"].as_f64().unwrap_or(f64::NAN);
        let json_tokens = p["halley_json_tokens"].as_f64().unwrap_or(f64::NAN);
        let r = h_tokens / p_tokens;
        let ok = r <= TOKEN_TARGET;
        if !ok {
            size_misses.push(h.name.clone());
        }
        let pages = if h.full_pages > 1 { format!(", {} pages of 200k", h.full_pages) } else { String::new() };
        writeln!(
            md,
            "| {} | {:.0} ({:.0}{pages}) | {:.0} ({:.0}; page 1 of {}) | {:.0} ({:.0}) | {:.2}× ({}) | {} | {:.0}, {} |",
            h.name,
            h_tokens,
            h_chars / 4.0,
            first_tokens,
            h.first_page.chars().count() as f64 / 4.0,
            h.pages,
            p_tokens,
            p_chars / 4.0,
            r,
            ratio(h_chars, p_chars),
            verdict(ok),
            json_tokens,
            ratio(json_tokens, p_tokens),
        )?;
    }

    writeln!(
        md,
        "\n**Addressable elements**: refs in Halley's full snapshot (`[eN]`, one per interactive element) \
         and in Playwright MCP's (`[ref=eN]`, on every node), with the interactive ones among them (links, \
         buttons, fields, selects, checkboxes, tabs...).\n"
    )?;
    writeln!(md, "| Page | Halley refs | Playwright MCP refs, all | Playwright MCP refs, interactive roles |")?;
    writeln!(md, "| --- | ---: | ---: | ---: |")?;
    for (h, p) in run.pages.iter().zip(pw_pages) {
        writeln!(
            md,
            "| {} | {} | {} | {} |",
            h.name,
            h.refs,
            p["refs"]["all"].as_u64().unwrap_or(0),
            p["refs"]["interactive"].as_u64().unwrap_or(0)
        )?;
    }

    writeln!(
        md,
        "\n**Snapshot time** (ms; Halley: the full snapshot, every page at the 200k budget; Playwright MCP: one `browser_snapshot` call).\n"
    )?;
    writeln!(
        md,
        "| Page | Halley median | Halley p90 | Playwright MCP median | Playwright MCP p90 | Ratio (medians) |"
    )?;
    writeln!(md, "| --- | ---: | ---: | ---: | ---: | ---: |")?;
    for (h, p) in run.pages.iter().zip(pw_pages) {
        let t = Stats::from_json(&p["time"]);
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            h.name,
            ms(h.time.median),
            ms(h.time.p90),
            ms(t.median),
            ms(t.p90),
            ratio(h.time.median, t.median)
        )?;
    }

    writeln!(
        md,
        "\n**Action latency** (ms, median / p90). Playwright MCP default: as installed (a click waits a fixed \
         500 ms for triggered work to settle; navigate, click and select write a fresh snapshot to a file); \
         lean: `--snapshot-mode none --timeout-settle 0`. Target: Halley ≤ {LATENCY_TARGET}× Playwright MCP (default). \
         Response: characters of the result the model gets (Halley: `data` as JSON; Playwright MCP: the text parts, \
         plus the inline base64 image for the screenshot).\n"
    )?;
    writeln!(
        md,
        "| Action | Halley | Playwright MCP default | Ratio | ≤ {LATENCY_TARGET}× | Playwright MCP lean | Ratio to lean | Response chars, Halley / Playwright MCP |"
    )?;
    writeln!(md, "| --- | ---: | ---: | ---: | :---: | ---: | ---: | ---: |")?;
    let mut latency_misses = Vec::new();
    for a in &run.actions.actions {
        let d = &pw["actions"][a.name];
        let l = &pw["lean_actions"][a.name];
        let (ds, ls) = (Stats::from_json(d), Stats::from_json(l));
        let ok = a.time.median <= LATENCY_TARGET * ds.median;
        if !ok {
            latency_misses.push(a.name);
        }
        let image = d["image_chars"].as_u64().unwrap_or(0);
        let image = if image > 0 { format!(" + {image} image") } else { String::new() };
        writeln!(
            md,
            "| {} ({}) | {} / {} | {} / {} | {} | {} | {} / {} | {} | {} / {}{image} |",
            a.name,
            a.what,
            ms(a.time.median),
            ms(a.time.p90),
            ms(ds.median),
            ms(ds.p90),
            ratio(a.time.median, ds.median),
            verdict(ok),
            ms(ls.median),
            ms(ls.p90),
            ratio(a.time.median, ls.median),
            a.response_chars,
            d["response_chars"].as_u64().unwrap_or(0),
        )?;
    }

    wire_report(&mut md, wire)?;
    loads_report(&mut md, loads)?;

    let o_list = Stats::from_json(&pw["overhead"]["tools_list"]);
    let o_tabs = Stats::from_json(&pw["overhead"]["tabs_list"]);
    writeln!(
        md,
        "\n**Per-call overhead** (ms, median / p90): Playwright MCP `tools/list` over stdio {} / {}, \
         `browser_tabs {{action: list}}` {} / {}; Halley in-process `browser_list_tabs` {} / {}.\n",
        ms(o_list.median),
        ms(o_list.p90),
        ms(o_tabs.median),
        ms(o_tabs.p90),
        ms(run.actions.trivial.median),
        ms(run.actions.trivial.p90)
    )?;
    let list = |v: &[String]| if v.is_empty() { "none".to_owned() } else { v.join(", ") };
    writeln!(
        md,
        "Targets: snapshot ≤ {TOKEN_TARGET}× tokens missed on: {}; action latency ≤ {LATENCY_TARGET}× missed on: {}.",
        list(&size_misses),
        list(&latency_misses.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    )?;
    Ok(md)
}

/// Replace what is between the markers of `docs/benchmarks.md`.
fn write_doc(root: &Path, table: &str) -> Result<()> {
    let path = root.join(DOC);
    let doc = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let (Some(start), Some(end)) = (doc.find(START), doc.find(END)) else {
        bail!("{} has no `{START}` ... `{END}` markers", path.display());
    };
    if end < start {
        bail!("the markers of {} are in the wrong order", path.display());
    }
    let new = format!("{}{START}\n{table}{}", &doc[..start], &doc[end..]);
    std::fs::write(&path, new)?;
    eprintln!("wrote the table into {}", path.display());
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let o = options()?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let server = fixtures::FixtureServer::start();
    if o.only_wire {
        let mut md = String::new();
        wire_report(&mut md, &wire_actions(&server, &o).await?)?;
        loads_report(&mut md, &page_loads(&root, &o).await?)?;
        println!("{md}");
        return Ok(());
    }

    let data = tempfile::tempdir()?;
    let settings = BrowserSettings { headless: true, chromium: Some(o.chromium.clone()), ..Default::default() };
    let core = halley::host::open_core_full(DataDir::at(data.path()), Registry::builtin()?, settings).await?;
    let run = halley(&core, &server, &o).await;
    core.close().await;
    let run = run?;
    let wire = wire_actions(&server, &o).await?;
    let loads = page_loads(&root, &o).await?;
    // Let Halley's Chromium finish exiting before Playwright's starts.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;

    let pw = playwright(&root, &run, &o, &server)?;
    let table = report(&run, &wire, &loads, &pw, &o, &root)?;
    println!("{table}");
    if o.write_doc {
        write_doc(&root, &table)?;
    }
    Ok(())
}

/// The actions timed with the wire gate off (a bench build's knob: no
/// interception, no relay) and on (the product), in one run.
struct Wire {
    off: Actions,
    on: Actions,
}

/// Time the actions in two browsers, the gate off and on, taking turns:
/// two rounds of half the runs each, so a change in the machine's load
/// weighs on both alike.
async fn wire_actions(server: &fixtures::FixtureServer, o: &Options) -> Result<Wire> {
    let half = o.action_runs.div_ceil(2);
    let mut rounds: [Vec<Actions>; 2] = [Vec::new(), Vec::new()];
    // A browser of its own for each round: an action's watch stays on its
    // tab for a minute after it (`IDLE_MAX`), and a round that began with
    // the last round's watch on would time its first rows (navigate) with
    // every request paused, which is the last row's case, not theirs.
    for _ in 0..2 {
        for (k, off) in [true, false].into_iter().enumerate() {
            eprintln!("[halley] actions with the wire gate {}", if off { "off" } else { "on" });
            let data = tempfile::tempdir()?;
            let settings = BrowserSettings {
                headless: true,
                chromium: Some(o.chromium.clone()),
                bench_wire_off: off,
                ..Default::default()
            };
            let core = halley::host::open_core_full(DataDir::at(data.path()), Registry::builtin()?, settings).await?;
            let timed = actions(&core, server, half).await;
            core.close().await;
            rounds[k].push(timed?);
        }
    }
    let [off, on] = rounds.map(merged);
    Ok(Wire {
        off: off.ok_or_else(|| anyhow!("no actions timed"))?,
        on: on.ok_or_else(|| anyhow!("no actions timed"))?,
    })
}

/// Rounds of the same actions as one: their samples together.
fn merged(rounds: Vec<Actions>) -> Option<Actions> {
    let mut rounds = rounds.into_iter();
    let mut all = rounds.next()?;
    for round in rounds {
        let more = round.actions.into_iter().chain([round.watched_navigate]);
        for (a, more) in all.actions.iter_mut().chain([&mut all.watched_navigate]).zip(more) {
            a.samples.extend(more.samples);
            a.time = Stats::of(&a.samples);
        }
        all.trivial = round.trivial;
    }
    Some(all)
}

/// The wire gate's cost on each action: off and on side by side.
fn wire_report(md: &mut String, w: &Wire) -> Result<()> {
    writeln!(
        md,
        "\n**The gate at the wire, action latency** (issue 27: every request an action makes the page send is held \
         and graded; aim: at most {:.0} % added). Two browsers in this run, the gate off (a bench build's knob: no \
         interception, no relay; never in the product) and on (the product), taking turns in two rounds, a fresh \
         browser for each (an action's watch stays on its tab for a minute: the navigate row is timed with none on); \
         ms, median / p90.\n",
        WIRE_COST_AIM * 100.0
    )?;
    writeln!(md, "| Action | gate off | gate on | added (medians) | ≤ {:.0} % |", WIRE_COST_AIM * 100.0)?;
    writeln!(md, "| --- | ---: | ---: | ---: | :---: |")?;
    let mut row = |name: &str, off: Stats, on: Stats| -> Result<()> {
        let added = on.median / off.median - 1.0;
        writeln!(
            md,
            "| {name} | {} / {} | {} / {} | {:+.1} % | {} |",
            ms(off.median),
            ms(off.p90),
            ms(on.median),
            ms(on.p90),
            added * 100.0,
            verdict(added <= WIRE_COST_AIM)
        )?;
        Ok(())
    };
    let on = w.on.actions.iter().chain([&w.on.watched_navigate]);
    for (off, on) in w.off.actions.iter().chain([&w.off.watched_navigate]).zip(on) {
        row(off.name, off.time, on.time)?;
    }
    Ok(())
}

/// Page loads of real sites with the wire gate's interception off, on, and
/// on with the tab watched (after an action).
struct Loads {
    sites: usize,
    runs: usize,
    off: Stats,
    on: Stats,
    watched: Stats,
    /// The median over the sites of each site's added share (its medians).
    on_per_site: f64,
    watched_per_site: f64,
    /// Loads that failed (not counted).
    failed: usize,
}

/// One saved page per site of the products dataset (`www.` aside), by the
/// first 8 hex digits of its hash: sites are never named.
fn product_pages(root: &Path) -> Result<Vec<(String, axum::body::Bytes)>> {
    use std::io::Read as _;
    let dir = root.join(PRODUCTS);
    let truth: serde_json::Map<String, Value> = serde_json::from_slice(
        &std::fs::read(dir.join("ground-truth.json"))
            .with_context(|| format!("{} not found (the products-dev dataset)", dir.display()))?,
    )?;
    let mut ids: Vec<&String> = truth.keys().collect();
    ids.sort();
    let mut seen = std::collections::BTreeSet::new();
    let mut pages = Vec::new();
    for id in ids {
        let url = truth[id]["url"].as_str().unwrap_or_default();
        let host =
            url::Url::parse(url).ok().and_then(|u| u.host_str().map(|h| h.trim_start_matches("www.").to_owned()));
        if !seen.insert(host.unwrap_or_default()) {
            continue;
        }
        let gz = std::fs::read(dir.join("html.gz").join(format!("{id}.html.gz")))?;
        let mut html = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut html)?;
        pages.push((id.chars().take(8).collect(), html.into()));
    }
    Ok(pages)
}

/// Serve `pages` (`/{label}.html`) and a blank page on loopback; the base URL.
async fn serve_pages(pages: &[(String, axum::body::Bytes)]) -> Result<String> {
    use axum::response::IntoResponse as _;
    let mut files: std::collections::HashMap<String, axum::body::Bytes> =
        pages.iter().map(|(label, html)| (format!("{label}.html"), html.clone())).collect();
    files.insert("blank.html".into(), axum::body::Bytes::from_static(b"<!doctype html><title>blank</title>"));
    let files = std::sync::Arc::new(files);
    let app = axum::Router::new().route(
        "/{name}",
        axum::routing::get(move |axum::extract::Path(name): axum::extract::Path<String>| {
            let files = std::sync::Arc::clone(&files);
            async move {
                match files.get(&name) {
                    Some(html) => {
                        ([(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")], html.clone()).into_response()
                    }
                    None => axum::http::StatusCode::NOT_FOUND.into_response(),
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(format!("http://127.0.0.1:{port}"))
}

/// Time page loads of the real sites in three browsers side by side: the
/// interception off (a bench build's knob), on (the product), and on with
/// the tab watched (an action just before). The settings take turns page
/// by page, in a rotating order, each load from a blank page.
async fn page_loads(root: &Path, o: &Options) -> Result<Loads> {
    let pages = product_pages(root)?;
    let base = serve_pages(&pages).await?;
    let tmp = tempfile::tempdir()?;
    // Saved pages name their sites' hosts: those fail at once, as in
    // bench/browse (else each load waits ~30 s on them).
    let wrapper = tmp.path().join("chromium");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' --host-resolver-rules=\"MAP * ~NOTFOUND , EXCLUDE 127.0.0.1\" \"$@\"\n",
            o.chromium.display()
        ),
    )?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    }
    let mut cores = Vec::new();
    for off in [true, false, false] {
        let data = tempfile::tempdir_in(tmp.path())?;
        let settings = BrowserSettings {
            headless: true,
            chromium: Some(wrapper.clone()),
            bench_wire_off: off,
            ..Default::default()
        };
        let core = halley::host::open_core_full(DataDir::at(data.path()), Registry::builtin()?, settings).await?;
        cores.push((data, core));
    }
    let blank = format!("{base}/blank.html");
    // Warm-up: each browser loads one page first.
    for (_, core) in &cores {
        call(core, "browser_navigate", json!({"url": blank})).await?;
        let _ = load(core, format!("{base}/{}.html", pages[0].0)).await;
    }
    // samples[setting][page]
    let mut samples = vec![vec![Vec::new(); pages.len()]; 3];
    let mut failed = 0;
    for run in 0..o.load_runs {
        eprintln!("[halley] page loads of {} sites, run {}/{}", pages.len(), run + 1, o.load_runs);
        for (i, (label, _)) in pages.iter().enumerate() {
            for k in 0..3 {
                let setting = (run + i + k) % 3;
                let core = &cores[setting].1;
                call(core, "browser_navigate", json!({"url": blank})).await?;
                if setting == 2 {
                    // An action: the tab's watch stays on for the load.
                    call(core, "browser_press_key", json!({"keys": ["Shift"]})).await?;
                }
                match load(core, format!("{base}/{label}.html")).await {
                    Ok(t) => samples[setting][i].push(t),
                    Err(e) => {
                        eprintln!("[halley] page {label}: {e}");
                        failed += 1;
                    }
                }
            }
        }
    }
    for (_, core) in cores {
        core.close().await;
    }
    let all = |s: usize| Stats::of(&samples[s].iter().flatten().copied().collect::<Vec<_>>());
    let per_site = |s: usize| {
        let added: Vec<f64> = (0..pages.len())
            .filter(|&i| !samples[s][i].is_empty() && !samples[0][i].is_empty())
            .map(|i| Stats::of(&samples[s][i]).median / Stats::of(&samples[0][i]).median - 1.0)
            .collect();
        if added.is_empty() { f64::NAN } else { Stats::of(&added).median }
    };
    Ok(Loads {
        sites: pages.len(),
        runs: o.load_runs,
        off: all(0),
        on: all(1),
        watched: all(2),
        on_per_site: per_site(1),
        watched_per_site: per_site(2),
        failed,
    })
}

/// One page load until its HTML is parsed (`domcontentloaded`: its
/// blocking scripts and styles in; several saved pages never reach `load`
/// with their sites' hosts failing, some frame of theirs waiting), timed.
async fn load(core: &Core, url: String) -> Result<f64> {
    call(core, "browser_navigate", json!({"url": url, "wait_until": "domcontentloaded"})).await.map(|(t, _)| t)
}

/// The page loads' table.
fn loads_report(md: &mut String, l: &Loads) -> Result<()> {
    writeln!(
        md,
        "\n**Page loads of real sites with the wire gate** (its interception, which pauses every request while a tab \
         is watched and none while none is, and its relay; aim: at most {:.0} % added). One saved product page of each of {} sites \
         (products-dev), served on loopback (other hosts fail at once), `browser_navigate` until `domcontentloaded` \
         (some saved pages never reach `load` with their sites' hosts failing) from a blank page, {} loads of each page per setting; three browsers side by side, the settings taking turns \
         page by page. Off: a bench build's knob (feature `bench-knobs`), never in the product.{}\n",
        WIRE_COST_AIM * 100.0,
        l.sites,
        l.runs,
        if l.failed > 0 { format!(" {} loads failed and are not counted.", l.failed) } else { String::new() },
    )?;
    writeln!(
        md,
        "| Setting | median (ms) | p90 (ms) | added (medians) | added, median of the sites' | ≤ {:.0} % |",
        WIRE_COST_AIM * 100.0
    )?;
    writeln!(md, "| --- | ---: | ---: | ---: | ---: | :---: |")?;
    writeln!(md, "| interception off | {} | {} | | | |", ms(l.off.median), ms(l.off.p90))?;
    for (name, s, site) in [
        ("on (the product; no action on the tab)", l.on, l.on_per_site),
        ("on, the tab watched (right after an action)", l.watched, l.watched_per_site),
    ] {
        let added = s.median / l.off.median - 1.0;
        writeln!(
            md,
            "| {name} | {} | {} | {:+.1} % | {:+.1} % | {} |",
            ms(s.median),
            ms(s.p90),
            added * 100.0,
            site * 100.0,
            verdict(added <= WIRE_COST_AIM && site <= WIRE_COST_AIM)
        )?;
    }
    Ok(())
}
