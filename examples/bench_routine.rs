//! A routine's replay beside the live run that recorded it (issue
//! "Routines", item 6). The live run is the agent loop against the
//! scripted model at a realistic latency: each turn answers after
//! [`FIRST_TOKEN_MS`] and streams its chunks over [`STREAM_MS`] more, 2 s a
//! turn in all, as a local or hosted model does. The replay is the same
//! steps from the saved routine, through the same core, gate and real
//! Chromium, with no model at all (the model server stays up and counts:
//! it gets no request). Model tokens are what the run's steps recorded
//! (the server's usage: its estimate of the request and answer).
//!
//! Two routines on the loopback fixture site: a price read (navigate,
//! snapshot, extract, answer: 4 turns) and an order (navigate, snapshot,
//! type the quantity, click "Đặt hàng" (PAYMENT, approved by the bench's
//! confirmer in both), answer: 5 turns).
//!
//! `make bench-routine` (or `cargo run --release -p halley --example bench_routine`).

use std::time::{Duration, Instant};

use anyhow::Context;
use halley::agent::run::{RunLimits, run_task_with};
use halley::agent::{ModelClient, ModelConfig, ModelFlags};
use halley::core::BrowserSettings;
use halley::gate::confirm::ApproveAll;
use halley::routine::{ReplayOptions, replay, save};
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

/// The model's time to the first chunk of each turn.
const FIRST_TOKEN_MS: u64 = 600;
/// The rest of the turn, its chunks spread over it.
const STREAM_MS: u64 = 1400;
/// Live runs per routine (each recorded; the first one is saved).
const LIVE_RUNS: usize = 3;
/// Replays per routine.
const REPLAYS: usize = 10;

fn turn(t: Turn) -> Turn {
    t.delay_ms(FIRST_TOKEN_MS).stream_ms(STREAM_MS)
}

fn calls(name: &str, args: serde_json::Value) -> Turn {
    turn(Turn::tool_calls(vec![ToolCall::new(name, args)]))
}

/// The order form: a quantity and "Đặt hàng" posting to `/checkout`.
const ORDER: &str = r#"<!doctype html><html lang="vi"><head><meta charset="utf-8"><title>Đặt hàng</title></head>
<body><main><h1>Giỏ hàng</h1>
<form id="checkout" action="/checkout" method="post">
<label for="qty">Số lượng</label> <input id="qty" name="qty" value="1">
<button id="buy" type="submit">Đặt hàng</button>
</form></main></body></html>"#;

struct Routine {
    name: &'static str,
    task: &'static str,
    script: fn(&fixtures::FixtureServer) -> Vec<Turn>,
}

fn price(site: &fixtures::FixtureServer) -> Vec<Turn> {
    vec![
        calls("browser_navigate", json!({"url": site.url("watched/laptop")})),
        calls("browser_snapshot", json!({})),
        calls("browser_extract", json!({"schema": {"name": "string", "price": "number"}})),
        turn(Turn::text("Laptop ASUS Vivobook 15 giá 21.490.000 ₫.")),
    ]
}

fn order(site: &fixtures::FixtureServer) -> Vec<Turn> {
    vec![
        calls("browser_navigate", json!({"url": site.url("page/order")})),
        calls("browser_snapshot", json!({})),
        calls("browser_type", json!({"selector": "#qty", "text": "2", "clear_first": true})),
        calls("browser_click", json!({"selector": "#buy"})),
        turn(Turn::text("Đã đặt 2 chiếc.")),
    ]
}

const ROUTINES: [Routine; 2] = [
    Routine { name: "price read", task: "Laptop này giá bao nhiêu?", script: price },
    Routine { name: "order", task: "Đặt 2 chiếc", script: order },
];

/// One side's figures: each run's time, the model's requests and tokens.
#[derive(Default)]
struct Side {
    times: Vec<Duration>,
    requests: usize,
    tokens: i64,
}

impl Side {
    fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        t[t.len() / 2]
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

async fn tokens_of(core: &Core, run_id: &str) -> anyhow::Result<i64> {
    let steps = core.store().steps().for_run(run_id).await?;
    Ok(steps.iter().map(|s| s.prompt_tokens.unwrap_or(0) + s.completion_tokens.unwrap_or(0)).sum())
}

/// Live runs of `r` (the first saved as a routine), then its replays.
async fn bench(core: &Core, site: &fixtures::FixtureServer, r: &Routine) -> anyhow::Result<(Side, Side)> {
    let mut live = Side::default();
    let limits = RunLimits::default();
    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(std::sync::Arc::new(ApproveAll));
    for i in 0..LIVE_RUNS {
        let model = ModelServer::start((r.script)(site));
        let flags = ModelFlags {
            base_url: Some(model.base_url()),
            model: Some(model_server::MODEL_ID.into()),
            ..ModelFlags::default()
        };
        let client = ModelClient::new(ModelConfig::resolve(flags, |_| None)?)?;
        let t0 = Instant::now();
        let outcome = run_task_with(core, &client, model_server::MODEL_ID, r.task, None, &limits, &cx, |_| {}).await?;
        live.times.push(t0.elapsed());
        anyhow::ensure!(outcome.answer.is_some(), "the live run did not finish: {}", outcome.stop_reason);
        live.requests = model.request_count();
        live.tokens = tokens_of(core, &outcome.run_id).await?;
        if i == 0 {
            save(core.store(), &outcome.run_id, r.name).await?;
        }
    }
    // A model server stays up to count what reaches it: nothing should.
    let idle = ModelServer::start(Vec::new());
    let mut replayed = Side::default();
    for _ in 0..REPLAYS {
        let t0 = Instant::now();
        let report = replay(core, cx.clone(), r.name, ReplayOptions::default()).await?;
        replayed.times.push(t0.elapsed());
        anyhow::ensure!(report.status == "completed", "the replay {}: {:?}", report.status, report.stopped);
        replayed.tokens += tokens_of(core, &report.run_id).await?;
    }
    replayed.requests = idle.request_count();
    Ok((live, replayed))
}

#[allow(clippy::print_stdout)]
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let site = fixtures::FixtureServer::start();
    site.set_page(
        "laptop",
        fixtures::WatchedPage {
            name: "Laptop ASUS Vivobook 15".into(),
            price: 21_490_000,
            in_stock: true,
            ..fixtures::WatchedPage::default()
        },
    );
    site.set_html("order", ORDER);
    let tmp = tempfile::tempdir().context("temp dir")?;
    let settings = BrowserSettings { headless: true, ..BrowserSettings::default() };
    let core =
        halley::host::open_core_full(DataDir::at(tmp.path().join("data")), Registry::builtin()?, settings).await?;
    let before = load();
    println!(
        "A routine's replay beside the live run that recorded it: scripted model at {FIRST_TOKEN_MS} ms to the \
         first chunk + {STREAM_MS} ms of streamed chunks per turn; median of {LIVE_RUNS} live runs and {REPLAYS} \
         replays; real headless Chromium, loopback fixture site\n"
    );
    println!(
        "| Routine | live: time | live: model requests | live: tokens | replay: time | replay: model requests | replay: tokens | replay faster |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut result = Ok(());
    for r in &ROUTINES {
        match bench(&core, &site, r).await {
            Ok((live, replayed)) => {
                let (l, p) = (live.median(), replayed.median());
                println!(
                    "| {} | {:.2} s | {} | {} | {:.0} ms | {} | {} | {:.1}× |",
                    r.name,
                    l.as_secs_f64(),
                    live.requests,
                    live.tokens,
                    p.as_secs_f64() * 1000.0,
                    replayed.requests,
                    replayed.tokens,
                    l.as_secs_f64() / p.as_secs_f64()
                );
            }
            Err(e) => {
                result = Err(e.context(format!("routine `{}`", r.name)));
                break;
            }
        }
    }
    println!("\nAim: the replay ≥ 10× faster than the live run, 0 model requests and tokens.");
    println!("Load average (1, 5, 15 min): {before} before, {} after; {} CPUs.", load(), num_cpus());
    core.close().await;
    result
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}
