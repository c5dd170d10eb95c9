//! The soak's driver, shared by `examples/soak/main.rs` (`make soak`) and
//! the CI smoke test (`tests/suite/soak.rs`, a 30-second run).
//!
//! It runs the desktop core the way the desktop app's `Host` runs it, in
//! its own process: `halley serve` (the `Host`, its watch scheduler and the
//! local API server; the desktop app adds only its windows), against a
//! throwaway data dir, and drives it for a while:
//! - `watches` price watches (every minute) on the loopback fixture shop's
//!   `/watched/soak-N` pages (tests/common/fixtures.rs: JSON-LD VND pages,
//!   one in ten rendered by a script, so checked in a background tab of the
//!   managed Chromium), some prices changed every minute so `changed` rules
//!   fire and their notifications go to the session's D-Bus daemon;
//! - every `conversation_every`, a conversation through the local API
//!   (`POST /api/v1/runs`, streamed) where the scripted model
//!   (tests/common/model_server.rs, the only fake) navigates to a shop page
//!   and reads it (`browser_navigate`, `browser_snapshot`: real Chromium);
//! - then an API client (one of three, in turn) registers its
//!   client-executed tool (`POST /api/letta/agents/tools`), listens on its
//!   event stream and answers a call made by a run's model and one made
//!   directly (`POST /api/v1/tools/{name}/call`), then goes away.
//!
//! Every `sample_every` it reads, from /proc and the data dir: the resident
//! memory of the `halley` process, its open file descriptors, the Chromium
//! processes below it (count and PSS) and the database's size (main file
//! plus WAL) with its row counts, and judges the growth at the end
//! ([`Report::verdicts`]).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use futures::StreamExt;
use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "../../src-tauri/tests/common/proc.rs"]
mod proc;

// The includer's `fixtures` and `model_server` (tests/common/): declared once
// per crate.
use super::fixtures::{FixtureServer, PageKind, WatchedPage};
use super::model_server::{MODEL_ID, ModelServer, ToolCall, Turn};

/// What to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// The `halley` binary.
    pub halley: PathBuf,
    pub duration: Duration,
    /// Samples before this are the warm-up: the growth judged is after it.
    pub warmup: Duration,
    pub watches: usize,
    pub sample_every: Duration,
    pub conversation_every: Duration,
    /// Print each sample as it is taken.
    pub verbose: bool,
}

impl Config {
    /// `minutes` long, 200 watches, a sample every 10 s, a conversation a
    /// minute; the warm-up is 5 minutes, or a third of a shorter run.
    pub fn minutes(halley: PathBuf, minutes: f64) -> Config {
        let duration = Duration::from_secs_f64(minutes * 60.0);
        Config {
            halley,
            duration,
            warmup: (duration / 3).min(Duration::from_secs(300)),
            watches: 200,
            sample_every: Duration::from_secs(10),
            conversation_every: Duration::from_secs(60),
            verbose: true,
        }
    }
}

/// One reading.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sample {
    /// Seconds since `halley serve` started.
    pub t: f64,
    pub rss_kib: u64,
    pub fds: u64,
    pub chromium_procs: u64,
    pub chromium_pss_kib: u64,
    /// `halley.db` + `-wal` (+ `-shm`), bytes.
    pub db_bytes: u64,
    pub observations: i64,
    pub runs: i64,
    pub steps: i64,
    /// Alerts handed to the notification daemon.
    pub alerts_sent: i64,
}

/// What the soak did and read.
#[derive(Debug, Default)]
pub struct Report {
    pub config_watches: usize,
    pub minutes: f64,
    pub warmup_secs: f64,
    pub samples: Vec<Sample>,
    pub conversations_ok: usize,
    pub conversations_failed: Vec<String>,
    pub client_calls_ok: usize,
    pub client_calls_failed: Vec<String>,
    pub price_changes: usize,
    /// `halley serve`'s exit status after SIGTERM.
    pub exit: Option<i32>,
    /// Chromium processes left once `halley serve` exited.
    pub chromium_left: usize,
}

/// One criterion: its name, the figure, the limit, passed or not.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub name: &'static str,
    pub figure: String,
    pub limit: String,
    pub ok: bool,
}

/// Projected growth over 30 minutes of the halley process's RSS allowed
/// after the warm-up (MiB): a leak of 1 KiB per watch check would be ~6 MiB.
pub const RSS_SLOPE_LIMIT_MIB: f64 = 16.0;
/// The same for the Chromium processes' PSS (MiB): tabs come and go, so it
/// is noisier.
pub const CHROMIUM_SLOPE_LIMIT_MIB: f64 = 64.0;
/// The memory slopes are judged only over at least this long after the
/// warm-up (seconds): a short run's slope is mostly the allocator settling.
pub const MIN_STEADY_SECS: f64 = 600.0;
/// Open descriptors: the end may exceed the warm-up's highest by this much.
pub const FD_TOLERANCE: u64 = 8;
/// Chromium processes: the end may exceed the warm-up's highest by this much.
pub const CHROMIUM_PROC_TOLERANCE: u64 = 2;
/// The database grows with what it keeps: bytes allowed per new
/// observation and per new step (a page snapshot's text, the messages,
/// the provider trace), plus the WAL's slack (it keeps its largest size
/// between checkpoints).
pub const DB_BYTES_PER_OBSERVATION: u64 = 2048;
pub const DB_BYTES_PER_STEP: u64 = 64 * 1024;
pub const DB_SLACK: u64 = 8 * 1024 * 1024;

const TOKEN_WAIT: Duration = Duration::from_secs(30);

/// Run the soak; an error is the harness failing (the core not starting,
/// a peer gone), not a growth verdict: those are in [`Report::verdicts`].
pub async fn soak(cfg: &Config) -> Result<Report> {
    let tmp = tempfile::tempdir()?;
    let data = tmp.path().join("data");
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![]);
    let mut shop = Shop::open(&site, cfg.watches);
    import_watches(cfg, &data, &site, tmp.path())?;
    let token = cli(cfg, &data, &["api", "token"])?.trim().to_owned();
    let port = free_port()?;
    let log = std::fs::File::create(tmp.path().join("serve.log"))?;
    let mut serve = tokio::process::Command::new(&cfg.halley)
        .args(["--data-dir"])
        .arg(&data)
        .args(["--headless", "serve", "--port", &port.to_string()])
        .env("OPENAI_BASE_URL", model.base_url())
        .env("HALLEY_MODEL", MODEL_ID)
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .context("starting halley serve")?;
    let pid = serve.id().context("halley serve's pid")?;
    let started = Instant::now();
    let api = Api { http: reqwest::Client::new(), base: format!("http://127.0.0.1:{port}"), token };
    api.wait_ready().await.with_context(|| format!("halley serve did not answer; its log:\n{}", log_of(tmp.path())))?;
    let db = Db::open(&data.join("halley.db")).await?;

    let mut report = Report {
        config_watches: cfg.watches,
        minutes: cfg.duration.as_secs_f64() / 60.0,
        warmup_secs: cfg.warmup.as_secs_f64(),
        ..Report::default()
    };
    if cfg.verbose {
        println!("{}", Sample::header());
    }
    let mut next_sample = Instant::now();
    let mut next_work = Instant::now();
    let mut round = 0usize;
    while started.elapsed() < cfg.duration {
        if Instant::now() >= next_sample {
            let s = sample(pid, &data, &db, started).await?;
            if cfg.verbose {
                println!("{}", s.row());
            }
            report.samples.push(s);
            next_sample += cfg.sample_every;
        }
        if Instant::now() >= next_work {
            ensure!(serve.try_wait()?.is_none(), "halley serve exited; its log:\n{}", log_of(tmp.path()));
            report.price_changes += shop.change_prices(&site, round);
            match conversation(&api, &model, &site, round).await {
                Ok(()) => report.conversations_ok += 1,
                Err(e) => report.conversations_failed.push(format!("round {round}: {e:#}")),
            }
            match client_round(&api, &model, round).await {
                Ok(n) => report.client_calls_ok += n,
                Err(e) => report.client_calls_failed.push(format!("round {round}: {e:#}")),
            }
            // The fixture's and the model's logs are the driver's memory, not the core's.
            site.clear();
            round += 1;
            next_work += cfg.conversation_every;
        }
        let next = next_sample.min(next_work);
        tokio::time::sleep(next.saturating_duration_since(Instant::now()).min(Duration::from_secs(1))).await;
    }
    let last = sample(pid, &data, &db, started).await?;
    if cfg.verbose {
        println!("{}", last.row());
    }
    report.samples.push(last);
    db.close().await;

    let chromium: Vec<u32> = chromium_below(pid);
    let _ = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let status = tokio::time::timeout(Duration::from_secs(30), serve.wait()).await;
    report.exit = match status {
        Ok(Ok(s)) => s.code(),
        _ => {
            let _ = serve.kill().await;
            None
        }
    };
    report.chromium_left = proc::wait_gone(&chromium, Duration::from_secs(5)).len();
    if report.conversations_ok == 0 || report.samples.len() < 2 {
        bail!("the soak did no work: {report:?}; the log:\n{}", log_of(tmp.path()));
    }
    Ok(report)
}

fn log_of(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("serve.log")).unwrap_or_default();
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// `halley --data-dir D --headless ARGS`, its stdout (an error with its
/// stderr when it fails).
fn cli(cfg: &Config, data: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new(&cfg.halley)
        .arg("--data-dir")
        .arg(data)
        .arg("--headless")
        .args(args)
        .output()
        .with_context(|| format!("running {}", cfg.halley.display()))?;
    ensure!(out.status.success(), "halley {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    Ok(String::from_utf8(out.stdout)?)
}

// ---------------------------------------------------------------- the shop

/// The watched pages and their prices.
struct Shop {
    prices: Vec<u64>,
}

fn page_name(i: usize) -> String {
    format!("soak-{i}")
}

fn page(i: usize, price: u64) -> WatchedPage {
    WatchedPage {
        kind: if i % 10 == 9 { PageKind::Script } else { PageKind::Product },
        name: format!("Laptop ASUS TUF Gaming F15 #{i}"),
        price,
        in_stock: true,
        ..WatchedPage::default()
    }
}

impl Shop {
    fn open(site: &FixtureServer, n: usize) -> Shop {
        let prices: Vec<u64> = (0..n as u64).map(|i| 5_000_000 + (i * 7_919 % 40_000) * 1_000).collect();
        for (i, p) in prices.iter().enumerate() {
            site.set_page(&page_name(i), page(i, *p));
        }
        Shop { prices }
    }

    /// Each round, 5 pages (in turn, a script-rendered one among them every
    /// other round) change price: 10 % down, back up the next time.
    fn change_prices(&mut self, site: &FixtureServer, round: usize) -> usize {
        if round == 0 {
            return 0; // the first checks read the first prices
        }
        let n = self.prices.len();
        let mut changed = 0;
        for k in 0..5.min(n) {
            let i = (round * 5 + k) * 7 % n;
            let base = 5_000_000 + (i as u64 * 7_919 % 40_000) * 1_000;
            let now = if self.prices[i] == base { base / 10 * 9 } else { base };
            self.prices[i] = now;
            site.change_page(&page_name(i), |p| p.price = now);
            changed += 1;
        }
        changed
    }
}

fn import_watches(cfg: &Config, data: &Path, site: &FixtureServer, dir: &Path) -> Result<()> {
    let watches: Vec<Value> = (0..cfg.watches)
        .map(|i| {
            json!({
                "target": {"url": site.url(&format!("watched/{}", page_name(i)))},
                "trigger_rules": [{"op": "changed"}],
                "frequency": "1m",
                "cooldown": "0m",
                "label": format!("Soak #{i}"),
            })
        })
        .collect();
    let file = dir.join("watches.json");
    std::fs::write(&file, serde_json::to_vec(&watches)?)?;
    let out = cli(cfg, data, &["watch", "import", &file.to_string_lossy()])?;
    let ids = out.lines().filter(|l| !l.is_empty() && !l.starts_with("imported")).count();
    ensure!(ids == cfg.watches, "halley imported {ids} watches of {}: {out}", cfg.watches);
    Ok(())
}

// ---------------------------------------------------------------- the API

/// The local API as a client reaches it (also the crash-point harness's
/// client, tests/suite/crashpoints.rs).
pub struct Api {
    pub http: reqwest::Client,
    pub base: String,
    pub token: String,
}

impl Api {
    pub fn post(&self, path: &str, body: &Value, client: Option<&str>) -> reqwest::RequestBuilder {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .header("Content-Type", "application/json")
            .body(body.to_string());
        match client {
            Some(id) => r.header("X-Halley-Client", id),
            None => r,
        }
    }

    async fn wait_ready(&self) -> Result<()> {
        let deadline = Instant::now() + TOKEN_WAIT;
        loop {
            let r = self.http.get(format!("{}/api/v1/tools", self.base)).bearer_auth(&self.token).send().await;
            match r {
                Ok(r) if r.status().is_success() => return Ok(()),
                Ok(r) if Instant::now() >= deadline => bail!("GET /api/v1/tools: {}", r.status()),
                Err(e) if Instant::now() >= deadline => bail!("GET /api/v1/tools: {e}"),
                _ => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }

    /// Start a run, streamed; approve any question it asks; its
    /// `run_ended` event.
    async fn run(&self, text: &str) -> Result<Value> {
        let r = self.post("/api/v1/runs", &json!({"text": text, "stream": true}), None).send().await?;
        ensure!(r.status().is_success(), "POST /api/v1/runs: {} {}", r.status(), r.text().await.unwrap_or_default());
        let mut events = Sse::new(r);
        while let Some(e) = events.next(RUN_LIMIT).await? {
            match e["type"].as_str() {
                Some("confirmation_waiting") => {
                    let id = e["request"]["id"].as_str().unwrap_or_default();
                    let body = json!({"approved": true});
                    self.post(&format!("/api/v1/confirmations/{id}"), &body, None).send().await?;
                }
                Some("run_ended") => return Ok(e),
                _ => {}
            }
        }
        bail!("the run's event stream ended without run_ended")
    }
}

const RUN_LIMIT: Duration = Duration::from_secs(120);

/// Server-sent events of a response: each `data:` line's JSON.
pub struct Sse {
    stream: futures::stream::BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buf: String,
}

impl Sse {
    pub fn new(r: reqwest::Response) -> Sse {
        Sse { stream: r.bytes_stream().map(|c| c.map(|b| b.to_vec())).boxed(), buf: String::new() }
    }

    /// The next event; `None` when the stream ends.
    pub async fn next(&mut self, limit: Duration) -> Result<Option<Value>> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                if let Some(data) = block.lines().find_map(|l| l.strip_prefix("data:")) {
                    return Ok(Some(serde_json::from_str(data.trim())?));
                }
                continue;
            }
            let chunk = tokio::time::timeout(limit, self.stream.next()).await.context("no event in time")?;
            match chunk {
                Some(c) => self.buf.push_str(&String::from_utf8_lossy(&c?)),
                None => return Ok(None),
            }
        }
    }
}

/// A conversation: the model opens a shop page, reads it and answers.
async fn conversation(api: &Api, model: &ModelServer, site: &FixtureServer, round: usize) -> Result<()> {
    let url = site.url(&format!("watched/{}", page_name(round * 3 % 200)));
    model.push(Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": url}))]));
    model.push(Turn::tool_calls(vec![ToolCall::new("browser_snapshot", json!({}))]));
    model.push(Turn::text("Giá hiện tại đã có trên trang."));
    let before = model.remaining();
    let ended = api.run("Xem giá chiếc laptop này giúp tôi.").await?;
    ensure!(
        ended["status"] == json!("completed"),
        "the run ended {} ({}); {} model turns left of {before}",
        ended["status"],
        ended["stop_reason"],
        model.remaining()
    );
    ensure!(model.remaining() == 0, "the run ended with {} model turns unused", model.remaining());
    Ok(())
}

const CLIENT_TOOL: &str = "def stock_count(sku: str) -> int:\n    \"\"\"Count the units in the shop's back room.\n\n    Args:\n        sku: The product code.\n    \"\"\"\n";

/// An API client (one of three, in turn) registers its tool, listens, and
/// answers a run's call and a direct call; the number answered.
async fn client_round(api: &Api, model: &ModelServer, round: usize) -> Result<usize> {
    let client = format!("soak-app-{}", round % 3);
    let tool = format!("stock_count_{}", round % 3);
    let source = CLIENT_TOOL.replace("stock_count", &tool);
    let body = json!({"name": tool, "sourceCode": source, "timeoutSeconds": 30});
    let r = api.post("/api/letta/agents/tools", &body, Some(&client)).send().await?;
    ensure!(r.status().is_success(), "registering {tool}: {} {}", r.status(), r.text().await.unwrap_or_default());
    let listen = api.http.get(format!("{}/api/v1/clients/{client}/events", api.base)).bearer_auth(&api.token);
    let r = listen.header("X-Halley-Client", &client).send().await?;
    ensure!(r.status().is_success(), "listening as {client}: {}", r.status());
    let mut calls = Sse::new(r);

    let sku = format!("SKU-{round}");
    model.push(Turn::tool_calls(vec![ToolCall::new(&tool, json!({"sku": sku}))]));
    model.push(Turn::text("Đã đếm xong."));
    let run = api.run("Kho còn bao nhiêu?");
    let direct = async {
        let r = api.post(&format!("/api/v1/tools/{tool}/call"), &json!({"args": {"sku": "SKU-direct"}}), Some(&client));
        anyhow::Ok(r.send().await?.json::<Value>().await?)
    };
    let answer = async {
        for n in 0..2 {
            let call = calls.next(RUN_LIMIT).await?.with_context(|| format!("{client}'s stream ended"))?;
            ensure!(call["name"] == json!(tool), "call {n} is {call}");
            let body = json!({"tool_call_id": call["tool_call_id"], "result": 12 + n});
            let r = api.post("/api/v1/tool_results", &body, Some(&client)).send().await?;
            ensure!(r.status().is_success(), "answering {}: {}", call["tool_call_id"], r.status());
        }
        anyhow::Ok(())
    };
    let (ended, direct, answered) = tokio::join!(run, direct, answer);
    answered?;
    let ended = ended?;
    ensure!(ended["status"] == json!("completed"), "the client's run ended {}", ended["status"]);
    let direct = direct?;
    ensure!(direct["status"] == json!("ok"), "the direct call: {direct}");
    Ok(2)
}

// ---------------------------------------------------------------- sampling

/// A read-only view of the core's database, for row counts.
struct Db {
    pool: sqlx::SqlitePool,
}

impl Db {
    async fn open(path: &Path) -> Result<Db> {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path).read_only(true);
        let pool = sqlx::pool::PoolOptions::new().max_connections(1).connect_with(options).await?;
        Ok(Db { pool })
    }

    async fn count(&self, sql: &'static str) -> Result<i64> {
        let (n,): (i64,) = sqlx::query_as(sql).fetch_one(&self.pool).await?;
        Ok(n)
    }

    async fn close(self) {
        self.pool.close().await;
    }
}

fn chromium_below(pid: u32) -> Vec<u32> {
    proc::descendants_of(pid).into_iter().filter(|p| proc::exe_name(*p).is_some_and(|n| n.contains("chrom"))).collect()
}

fn file_size(path: PathBuf) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

async fn sample(pid: u32, data: &Path, db: &Db, started: Instant) -> Result<Sample> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).context("halley serve is gone")?;
    let rss_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count() as u64).unwrap_or(0);
    let chromium = chromium_below(pid);
    let chromium_pss_kib = chromium.iter().filter_map(|p| proc::memory_of(*p)).map(|m| m.pss_kib).sum();
    let db_bytes = ["halley.db", "halley.db-wal", "halley.db-shm"].iter().map(|f| file_size(data.join(f))).sum();
    Ok(Sample {
        t: started.elapsed().as_secs_f64(),
        rss_kib,
        fds,
        chromium_procs: chromium.len() as u64,
        chromium_pss_kib,
        db_bytes,
        observations: db.count("SELECT COUNT(*) FROM watch_observations").await?,
        runs: db.count("SELECT COUNT(*) FROM runs").await?,
        steps: db.count("SELECT COUNT(*) FROM steps").await?,
        alerts_sent: db.count("SELECT COUNT(*) FROM watch_alerts WHERE delivered = 1").await?,
    })
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

impl Sample {
    pub fn header() -> String {
        "| min | halley RSS MiB | fds | Chromium procs | Chromium PSS MiB | DB MiB | observations | runs | steps | alerts sent |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
            .to_owned()
    }

    pub fn row(&self) -> String {
        format!(
            "| {:.1} | {:.1} | {} | {} | {:.0} | {:.2} | {} | {} | {} | {} |",
            self.t / 60.0,
            mib(self.rss_kib),
            self.fds,
            self.chromium_procs,
            mib(self.chromium_pss_kib),
            self.db_bytes as f64 / 1_048_576.0,
            self.observations,
            self.runs,
            self.steps,
            self.alerts_sent
        )
    }
}

/// Least-squares slope of `y` over `t` (per second); 0 with fewer than 2 points.
pub fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if points.len() < 2 {
        return 0.0;
    }
    let (mt, my) = points.iter().fold((0.0, 0.0), |(a, b), (t, y)| (a + t / n, b + y / n));
    let (num, den) =
        points.iter().fold((0.0, 0.0), |(num, den), (t, y)| (num + (t - mt) * (y - my), den + (t - mt) * (t - mt)));
    if den == 0.0 { 0.0 } else { num / den }
}

const HALF_HOUR: f64 = 1800.0;

/// A row of the summary: its name, the figure, whether it is in KiB shown as MiB.
type Row = (&'static str, Figure, bool);

/// One figure of a sample.
type Figure = fn(&Sample) -> u64;

impl Report {
    /// The samples after the warm-up (the last of the warm-up included, so
    /// there is always a start).
    fn steady(&self) -> &[Sample] {
        let first = self.samples.iter().position(|s| s.t >= self.warmup_secs).unwrap_or(self.samples.len() - 1);
        &self.samples[first.saturating_sub(1)..]
    }

    fn warmup_max(&self, f: impl Fn(&Sample) -> u64) -> u64 {
        let steady_start = self.steady()[0].t;
        self.samples.iter().filter(|s| s.t <= steady_start).map(f).max().unwrap_or(0)
    }

    /// Growth after the warm-up, projected over 30 minutes (MiB).
    fn projected_mib(&self, f: impl Fn(&Sample) -> u64) -> f64 {
        let points: Vec<(f64, f64)> = self.steady().iter().map(|s| (s.t, mib(f(s)))).collect();
        slope(&points) * HALF_HOUR
    }

    /// Every criterion of unbounded growth, and the work done.
    pub fn verdicts(&self) -> Vec<Verdict> {
        let steady = self.steady();
        let (first, last) = (steady[0], steady[steady.len() - 1]);
        let mut out = Vec::new();
        let slopes: [(&'static str, Figure, f64); 2] = [
            ("halley RSS growth after warm-up, per 30 min", |s| s.rss_kib, RSS_SLOPE_LIMIT_MIB),
            ("Chromium PSS growth after warm-up, per 30 min", |s| s.chromium_pss_kib, CHROMIUM_SLOPE_LIMIT_MIB),
        ];
        // A slope over a few minutes projected to 30 is mostly noise.
        let judged = last.t - first.t >= MIN_STEADY_SECS;
        for (name, f, limit) in slopes {
            let grown = self.projected_mib(f);
            out.push(Verdict {
                name,
                figure: format!("{grown:+.1} MiB"),
                limit: if judged {
                    format!("≤ {limit} MiB")
                } else {
                    format!("not judged: under {} min after the warm-up", MIN_STEADY_SECS / 60.0)
                },
                ok: !judged || grown <= limit,
            });
        }
        let counts: [(&'static str, Figure, u64); 2] = [
            ("open fds at the end (warm-up's highest)", |s| s.fds, FD_TOLERANCE),
            ("Chromium processes at the end (warm-up's highest)", |s| s.chromium_procs, CHROMIUM_PROC_TOLERANCE),
        ];
        for (name, f, tolerance) in counts {
            let before = self.warmup_max(f);
            out.push(Verdict {
                name,
                figure: format!("{} ({before})", f(&last)),
                limit: format!("≤ {}", before + tolerance),
                ok: f(&last) <= before + tolerance,
            });
        }
        let grown = last.db_bytes.saturating_sub(first.db_bytes);
        let observations = (last.observations - first.observations).max(0) as u64;
        let steps = (last.steps - first.steps).max(0) as u64;
        let allowed = observations * DB_BYTES_PER_OBSERVATION + steps * DB_BYTES_PER_STEP + DB_SLACK;
        out.push(Verdict {
            name: "database growth after warm-up (observations, steps added)",
            figure: format!("{:.2} MiB ({observations}, {steps})", grown as f64 / 1_048_576.0),
            limit: format!(
                "≤ {:.2} MiB ({DB_BYTES_PER_OBSERVATION} B/observation, {} KiB/step, {} MiB slack)",
                allowed as f64 / 1_048_576.0,
                DB_BYTES_PER_STEP / 1024,
                DB_SLACK / 1_048_576
            ),
            ok: grown <= allowed,
        });
        out.push(Verdict {
            name: "conversations / client calls failed",
            figure: format!("{} / {}", self.conversations_failed.len(), self.client_calls_failed.len()),
            limit: "0 / 0".to_owned(),
            ok: self.conversations_failed.is_empty() && self.client_calls_failed.is_empty(),
        });
        out.push(Verdict {
            name: "clean exit on SIGTERM, Chromium processes left",
            figure: format!("{:?}, {}", self.exit, self.chromium_left),
            limit: "Some(143), 0".to_owned(),
            ok: self.exit == Some(143) && self.chromium_left == 0,
        });
        out
    }

    /// The markdown summary: work done, start / end / highest, verdicts.
    pub fn markdown(&self) -> String {
        let (first, last) = (self.samples[0], self.samples[self.samples.len() - 1]);
        let steady = self.steady()[0];
        let max = |f: fn(&Sample) -> u64| self.samples.iter().map(f).max().unwrap_or(0);
        let mut md = String::new();
        md.push_str(&format!(
            "{:.0} min, {} watches every minute (1 in 10 script-rendered, read in Chromium), {} price changes, \
             {} conversations with browser tools ({} failed), {} client-tool calls answered ({} rounds failed); \
             {} checks recorded, {} alerts sent to the notification daemon. Warm-up: {:.0} min.\n\n",
            self.minutes,
            self.config_watches,
            self.price_changes,
            self.conversations_ok,
            self.conversations_failed.len(),
            self.client_calls_ok,
            self.client_calls_failed.len(),
            last.observations,
            last.alerts_sent,
            self.warmup_secs / 60.0
        ));
        md.push_str("| Measure | Start | After warm-up | End | Highest |\n| --- | ---: | ---: | ---: | ---: |\n");
        let rows: [Row; 5] = [
            ("halley RSS (MiB)", |s| s.rss_kib, true),
            ("open fds", |s| s.fds, false),
            ("Chromium processes", |s| s.chromium_procs, false),
            ("Chromium PSS (MiB)", |s| s.chromium_pss_kib, true),
            ("database + WAL (KiB)", |s| s.db_bytes / 1024, false),
        ];
        for (name, f, in_mib) in rows {
            let show = |v: u64| if in_mib { format!("{:.1}", mib(v)) } else { v.to_string() };
            md.push_str(&format!(
                "| {name} | {} | {} | {} | {} |\n",
                show(f(&first)),
                show(f(&steady)),
                show(f(&last)),
                show(max(f))
            ));
        }
        md.push_str("\n| Criterion | Figure | Limit | |\n| --- | ---: | --- | --- |\n");
        for v in self.verdicts() {
            md.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                v.name,
                v.figure,
                v.limit,
                if v.ok { "ok" } else { "FAIL" }
            ));
        }
        md
    }

    /// The samples as a table, thinned to about `rows` rows.
    pub fn timeline(&self, rows: usize) -> String {
        let every = self.samples.len().div_ceil(rows.max(1)).max(1);
        let mut out = Sample::header();
        for (i, s) in self.samples.iter().enumerate() {
            if i % every == 0 || i + 1 == self.samples.len() {
                out.push('\n');
                out.push_str(&s.row());
            }
        }
        out.push('\n');
        out
    }
}
