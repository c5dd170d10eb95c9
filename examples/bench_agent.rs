//! Halley's own overhead per agent step, model time excluded: a scripted
//! OpenAI-compatible server answers at once, so what a step costs is
//! Halley's: building the prompt (every tool's schema, the history),
//! parsing the stream, the gate, running the tool on real Chromium
//! (a page snapshot), fencing the result and the database writes.
//!
//! The last row runs the three pages at once in one core, each its own run
//! (own context, own tab, own scripted model): a step's time then includes
//! waiting for the other runs' browser calls.
//!
//! The skills' table times each skill called directly (no model, so all
//! of it is Halley's: the gate, the browser steps on real Chromium against
//! the loopback fixture sites, the parsing, the database writes), every
//! question approved: `travel_plan_itinerary` builds its skeleton,
//! `travel_fill_forms` stops before submitting, `shopping_prepare_checkout`
//! before paying; the creator skills skip their language steps.
//!
//! Then the first request's tokens by real tokenizers, beside browser-use
//! and Playwright MCP, and the skills' language steps (`bench_agent/tokens.rs`).
//!
//! `make bench-agent` (or `cargo run --release -p halley --example bench_agent`;
//! `-- --tokens` for the token tables alone).

use std::time::{Duration, Instant};

use anyhow::Context;
use halley::agent::run::{AgentEvent, RunLimits, run_task_with};
use halley::agent::{ModelClient, ModelConfig, ModelFlags};
use halley::core::BrowserSettings;
use halley::gate::confirm::ApproveAll;
use halley::tools::Registry;
use halley::{CallContext, Core, DataDir, FrontEnd};
use serde_json::json;

#[allow(dead_code, clippy::expect_used)]
#[path = "../tests/common/fixtures.rs"]
mod fixtures;

#[allow(dead_code, clippy::expect_used, clippy::unwrap_used)]
#[path = "../tests/common/model_server.rs"]
mod model_server;

use model_server::{ModelServer, ToolCall, Turn};

#[path = "bench_agent/tokens.rs"]
mod tokens;

const STEPS: usize = 15;

const PAGES: [&str; 3] = ["shop-vn.html", "form.html", "catalogue?rows=200"];

/// A navigation, then [`STEPS`] snapshots, then the answer.
fn script(site: &fixtures::FixtureServer, page: &str) -> Vec<Turn> {
    let mut script = vec![Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url(page)}))])];
    for _ in 0..STEPS {
        script.push(Turn::tool_calls(vec![ToolCall::new("browser_snapshot", json!({}))]));
    }
    script.push(Turn::text("Xong."));
    script
}

/// Run one page's script as a run of `front_end` and return its step
/// times: from one tool result to the next (model call, tool, writes).
async fn steps_of(core: &Core, model: &ModelServer, front_end: FrontEnd) -> anyhow::Result<Vec<Duration>> {
    let flags =
        ModelFlags { base_url: Some(model.base_url()), model: Some("scripted-model".into()), ..ModelFlags::default() };
    let client = ModelClient::new(ModelConfig::resolve(flags, |_| None)?)?;
    let mut marks: Vec<Instant> = Vec::new();
    let limits = RunLimits { max_steps: 100, repeat_nudge_after: 1000, ..RunLimits::default() };
    let cx = CallContext::new(front_end);
    let outcome = run_task_with(core, &client, "scripted-model", "bench", None, &limits, &cx, |ev| {
        if matches!(ev, AgentEvent::ToolResult { .. }) {
            marks.push(Instant::now());
        }
    })
    .await?;
    anyhow::ensure!(outcome.answer.is_some(), "the run did not finish: {}", outcome.stop_reason);
    Ok(marks.windows(2).skip(1).map(|w| w[1] - w[0]).collect())
}

#[allow(clippy::print_stdout)]
fn row(label: &str, mut steps: Vec<Duration>) {
    steps.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| steps[((steps.len() - 1) as f64 * q).round() as usize];
    println!("| {label} | {:.1} | {:.1} | {:.1} |", ms(at(0.5)), ms(at(0.9)), ms(at(1.0)));
}

async fn open_core(tmp: &tempfile::TempDir) -> anyhow::Result<Core> {
    let settings = BrowserSettings { headless: true, ..BrowserSettings::default() };
    Ok(halley::host::open_core_full(DataDir::at(tmp.path().join("data")), Registry::builtin()?, settings).await?)
}

#[allow(clippy::print_stdout)]
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let site = fixtures::FixtureServer::start();
    // `--tokens`: the token tables only (they do not depend on the build profile).
    if std::env::args().any(|a| a == "--tokens") {
        let tmp = tempfile::tempdir().context("temp dir")?;
        let core = open_core(&tmp).await?;
        let tables = tokens::tables(&core, &site).await;
        core.close().await;
        return tables;
    }
    println!("Halley per-step overhead (model time excluded), {STEPS} snapshot steps per page after one navigation\n");
    println!("| Page | median ms | p90 ms | max ms |");
    println!("| --- | ---: | ---: | ---: |");
    for page in PAGES {
        let model = ModelServer::start(script(&site, page));
        let tmp = tempfile::tempdir().context("temp dir")?;
        let core = open_core(&tmp).await?;
        let steps = steps_of(&core, &model, FrontEnd::Cli).await;
        core.close().await;
        row(page, steps?);
    }
    // The three pages at once, one run each, in one core.
    let models: Vec<ModelServer> = PAGES.iter().map(|p| ModelServer::start(script(&site, p))).collect();
    let tmp = tempfile::tempdir().context("temp dir")?;
    let core = open_core(&tmp).await?;
    let runs = futures::future::join_all(models.iter().map(|m| steps_of(&core, m, FrontEnd::Background))).await;
    core.close().await;
    let mut all = Vec::new();
    for steps in runs {
        all.extend(steps?);
    }
    row("all three at once (3 runs, 1 core)", all);
    println!("\nTarget: median ≤ 30 ms per step (one run).");
    skills(&site).await?;
    let tmp = tempfile::tempdir().context("temp dir")?;
    let core = open_core(&tmp).await?;
    let tables = tokens::tables(&core, &site).await;
    core.close().await;
    tables
}

/// How many times each skill is called.
const SKILL_CALLS: usize = 5;

/// Each skill called directly [`SKILL_CALLS`] times: its whole time.
#[allow(clippy::print_stdout)]
async fn skills(site: &fixtures::FixtureServer) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir().context("temp dir")?;
    let core = open_core(&tmp).await?;
    let video = tmp.path().join("video.mp4");
    std::fs::write(&video, b"bench video").context("video")?;
    let sites = json!([
        site.url("travel/flights.html?from={from}&to={to}&date={date}&pax={pax}"),
        {"type": "hotel", "url": site.other_url("travel/hotels.html?location={location}")},
    ]);
    let profile = [
        ("travel.preferred_sites".to_owned(), sites),
        ("name".to_owned(), json!("NGUYEN VAN AN")),
        ("travel.nationality".to_owned(), json!("Việt Nam")),
        ("bench.home.full_name".to_owned(), json!("Nguyễn Văn An")),
        ("bench.home.street".to_owned(), json!("12 Lý Thường Kiệt")),
        ("bench.home.city".to_owned(), json!("Hà Nội")),
        ("shopping.fx.USD_VND".to_owned(), json!(25_400)),
    ];
    core.store().profile().apply(&profile, &[]).await?;
    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(std::sync::Arc::new(ApproveAll));
    let calls = [
        ("travel_search_options", json!({"type": "flight", "route": "HAN-NRT", "date": "2026-02-10", "pax": 1})),
        (
            "travel_plan_itinerary",
            json!({"origin": "HAN", "destination": "NRT", "dates": {"from": "2026-02-10", "to": "2026-02-14"},
                "budget_vnd": 30_000_000}),
        ),
        (
            "travel_fill_forms",
            json!({"form_url": site.url("travel/arrival.html"), "profile_keys": ["name", "travel.nationality"],
                "extra_fields": {"Flight number": "VJ934", "Date of arrival": "2026-02-10"}}),
        ),
        (
            "shopping_extract_specs",
            json!({"product_url": site.url("shop/vn/laptop.html"), "category": "laptop_gaming_v1"}),
        ),
        (
            "shopping_compare_options",
            json!({"items": [{"url": site.url("shop/vn/laptop.html"), "variant": "16GB/1TB"},
                {"url": site.other_url("shop/us/laptop.html"), "variant": "16GB/1TB"}]}),
        ),
        (
            "creator_plan_calendar",
            json!({"channels": ["youtube", "tiktok"], "cadence": "3_per_week",
            "pillars": ["tech", "build-in-public"], "weeks": 4}),
        ),
        ("creator_triage_inbox", json!({"thread_urls": [site.url("creator/thread/1"), site.url("creator/thread/2")]})),
        (
            "creator_collect_research",
            json!({"topic": "AI browsers", "max_sources": 2,
            "sources": [site.url("creator/article-1.html"), site.other_url("creator/article-2.html")]}),
        ),
        (
            "creator_schedule_post",
            json!({"channel": "youtube", "title": "Bench", "visibility": "private",
            "media_refs": [format!("file://{}", video.display())],
            "studio_url": site.url("creator/studio.html?verified=1")}),
        ),
        (
            "shopping_prepare_checkout",
            json!({"selected_option": {"url": site.url("shop/vn/laptop.html"), "variant": "16GB/1TB"},
                "address_ref": "bench.home", "coupon_code": "GIAM500K"}),
        ),
    ];
    // The browser's start is not the skills' time.
    let warm = core.call_tool(&cx, "browser_navigate", json!({"url": site.url("travel/flights.html")})).await;
    anyhow::ensure!(warm.is_ok(), "the browser did not start: {:?}", warm.error);
    println!("\nSkills called directly (no model: all of it is Halley's time), {SKILL_CALLS} calls each\n");
    println!("| Skill | median ms | p90 ms | max ms |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, args) in calls {
        let mut times = Vec::new();
        for _ in 0..SKILL_CALLS {
            let started = Instant::now();
            let result = core.call_tool(&cx, name, args.clone()).await;
            anyhow::ensure!(result.is_ok(), "{name} failed: {:?}", result.error);
            times.push(started.elapsed());
        }
        row(name, times);
    }
    core.close().await;
    Ok(())
}
