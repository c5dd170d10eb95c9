//! Halley's own overhead per agent step, model time excluded: a scripted
//! OpenAI-compatible server answers at once, so what a step costs is
//! Halley's: building the prompt (every tool's schema, the history),
//! parsing the stream, the gate, running the tool on real Chromium
//! (a page snapshot), fencing the result and the database writes.
//!
//! `make bench-agent` (or `cargo run --release -p halley --example bench_agent`).

use std::time::{Duration, Instant};

use anyhow::Context;
use halley::agent::run::{AgentEvent, RunLimits, run_task};
use halley::agent::{ModelClient, ModelConfig, ModelFlags};
use halley::core::BrowserSettings;
use halley::tools::Registry;
use halley::{Core, DataDir};
use serde_json::json;

#[allow(dead_code, clippy::expect_used)]
#[path = "../tests/common/fixtures.rs"]
mod fixtures;

#[allow(dead_code, clippy::expect_used, clippy::unwrap_used)]
#[path = "../tests/common/model_server.rs"]
mod model_server;

use model_server::{ModelServer, ToolCall, Turn};

const STEPS: usize = 15;

#[allow(clippy::print_stdout)]
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let site = fixtures::FixtureServer::start();
    println!("Halley per-step overhead (model time excluded), {STEPS} snapshot steps per page after one navigation\n");
    println!("| Page | median ms | p90 ms | max ms |");
    println!("| --- | ---: | ---: | ---: |");
    for page in ["shop-vn.html", "form.html", "catalogue?rows=200"] {
        let mut script =
            vec![Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url(page)}))])];
        for _ in 0..STEPS {
            script.push(Turn::tool_calls(vec![ToolCall::new("browser_snapshot", json!({}))]));
        }
        script.push(Turn::text("Xong."));
        let model = ModelServer::start(script);
        let tmp = tempfile::tempdir().context("temp dir")?;
        let settings = BrowserSettings { headless: true, ..BrowserSettings::default() };
        let core = Core::open_full(DataDir::at(tmp.path().join("data")), Registry::builtin()?, settings).await?;
        let flags = ModelFlags {
            base_url: Some(model.base_url()),
            model: Some("scripted-model".into()),
            ..ModelFlags::default()
        };
        let client = ModelClient::new(ModelConfig::resolve(flags, |_| None)?)?;
        let mut marks: Vec<Instant> = Vec::new();
        let limits = RunLimits { max_steps: 100, repeat_nudge_after: 1000, ..RunLimits::default() };
        let outcome = run_task(&core, &client, "scripted-model", "bench", None, &limits, |ev| {
            if matches!(ev, AgentEvent::ToolResult { .. }) {
                marks.push(Instant::now());
            }
        })
        .await?;
        core.close().await;
        anyhow::ensure!(outcome.answer.is_some(), "the run did not finish: {}", outcome.stop_reason);
        // A step: from one tool result to the next (model call, tool, writes).
        let mut steps: Vec<Duration> = marks.windows(2).skip(1).map(|w| w[1] - w[0]).collect();
        steps.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let at = |q: f64| steps[((steps.len() - 1) as f64 * q).round() as usize];
        println!("| {page} | {:.1} | {:.1} | {:.1} |", ms(at(0.5)), ms(at(0.9)), ms(at(1.0)));
    }
    println!("\nTarget: median ≤ 30 ms per step.");
    Ok(())
}
