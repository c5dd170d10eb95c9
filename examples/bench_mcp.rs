//! The local API's own overhead: the median round trip of a tool listing
//! and of a READ_ONLY tool call (`user_profile_get`: the store only, no
//! browser) over plain HTTP (`/api/v1/...`), over MCP's streamable HTTP
//! (`/mcp`) and over MCP on stdio (this program started again as
//! `halley mcp serve` would run, `--serve-stdio`), beside Playwright MCP's
//! `tools/list` over stdio (`bench/playwright-mcp`, as `make bench` installs
//! it). Every client is rmcp's or reqwest, on loopback.
//!
//! `make bench-api` (or `cargo run --release -p halley --example bench_mcp
//! [-- --runs N]`). Prints a markdown table.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use halley::DataDir;
use halley::api::mcp_server::McpServer;
use halley::core::BrowserSettings;
use halley::host::Host;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::json;

const TOKEN: &str = "hly_bench_token_0123456789abcdef";

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// Median and 90th percentile, in milliseconds.
fn stats(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (ms(at(0.5)), ms(at(0.9)))
}

/// Time `runs` calls of `f` after 3 warm-up calls.
async fn time<F, Fut>(runs: usize, mut f: F) -> Result<Vec<Duration>>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    for _ in 0..3 {
        f().await?;
    }
    let mut out = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f().await?;
        out.push(t.elapsed());
    }
    Ok(out)
}

async fn mcp_pair(client: &Client, runs: usize) -> Result<(Vec<Duration>, Vec<Duration>)> {
    let list = time(runs, || async {
        anyhow::ensure!(!client.list_all_tools().await?.is_empty(), "no tools listed");
        Ok(())
    })
    .await?;
    let call = time(runs, || async {
        let args = json!({"keys": ["shopping.budget_vnd"]});
        let params = CallToolRequestParams::new("user_profile_get")
            .with_arguments(args.as_object().cloned().unwrap_or_default());
        let r = client.call_tool(params).await?;
        anyhow::ensure!(r.is_error != Some(true), "the call failed: {r:?}");
        Ok(())
    })
    .await?;
    Ok((list, call))
}

#[allow(clippy::print_stdout)]
fn row(label: &str, list: Option<Vec<Duration>>, call: Option<Vec<Duration>>) {
    let cell = |s: Option<Vec<Duration>>| {
        s.map_or_else(
            || "n/a".to_owned(),
            |s| {
                let (m, p) = stats(s);
                format!("{m:.2} ({p:.2})")
            },
        )
    };
    println!("| {label} | {} | {} |", cell(list), cell(call));
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let tmp = tempfile::tempdir()?;
    if args.get(1).map(String::as_str) == Some("--serve-stdio") {
        // The stdio server side: what `halley mcp serve` runs.
        let dir = args.get(2).context("--serve-stdio DATA_DIR")?;
        let host = Host::open(DataDir::at(dir), BrowserSettings { headless: true, ..Default::default() }).await?;
        McpServer::new(Arc::clone(&host)).serve_stdio().await?;
        host.close().await;
        return Ok(());
    }
    let runs: usize = match args.iter().position(|a| a == "--runs") {
        Some(i) => args.get(i + 1).context("--runs N")?.parse()?,
        None => 200,
    };
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = tmp.path().join("data");
    let host = Host::open(DataDir::at(&data), BrowserSettings { headless: true, ..Default::default() }).await?;
    let server = halley::api::serve(Arc::clone(&host), 0, TOKEN.to_owned()).await?;
    let base = format!("http://{}", server.addr());

    // Plain HTTP: the API's own routes.
    let http = reqwest::Client::new();
    let get = |url: String| {
        let http = http.clone();
        async move {
            let r = http.get(url).bearer_auth(TOKEN).send().await?;
            anyhow::ensure!(r.status().is_success(), "{}", r.status());
            r.bytes().await?;
            Ok(())
        }
    };
    let list = time(runs, || get(format!("{base}/api/v1/tools"))).await?;
    let call = time(runs, || {
        let http = http.clone();
        let url = format!("{base}/api/v1/tools/user_profile_get/call");
        async move {
            let r = http
                .post(url)
                .bearer_auth(TOKEN)
                .header("Content-Type", "application/json")
                .body(r#"{"args":{"keys":["shopping.budget_vnd"]}}"#)
                .send()
                .await?;
            anyhow::ensure!(r.status().is_success(), "{}", r.status());
            r.bytes().await?;
            Ok(())
        }
    })
    .await?;

    // MCP over streamable HTTP, one session.
    let headers = [(http::header::AUTHORIZATION, http::HeaderValue::from_str(&format!("Bearer {TOKEN}"))?)].into();
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp")).custom_headers(headers);
    let over_http: Client = ().serve(StreamableHttpClientTransport::from_config(config)).await?;
    let (mcp_http_list, mcp_http_call) = mcp_pair(&over_http, runs).await?;
    over_http.cancel().await?;

    // MCP over stdio: this program again, as the server.
    let stdio_data = tmp.path().join("stdio");
    let mut cmd = tokio::process::Command::new(std::env::current_exe()?);
    cmd.arg("--serve-stdio").arg(&stdio_data);
    let over_stdio: Client = ().serve(TokioChildProcess::new(cmd)?).await?;
    let (mcp_stdio_list, mcp_stdio_call) = mcp_pair(&over_stdio, runs).await?;
    over_stdio.cancel().await?;

    // Playwright MCP's tools/list over stdio (its browser starts only on a browser call).
    let pw_cli = root.join("bench/playwright-mcp/node_modules/@playwright/mcp/cli.js");
    let pw_list = if pw_cli.exists() {
        let mut cmd = tokio::process::Command::new("node");
        cmd.arg(&pw_cli).arg("--headless").arg("--isolated");
        let pw: Client = ().serve(TokioChildProcess::new(cmd)?).await?;
        let list = time(runs, || async {
            anyhow::ensure!(!pw.list_all_tools().await?.is_empty(), "no tools listed");
            Ok(())
        })
        .await?;
        pw.cancel().await?;
        Some(list)
    } else {
        eprintln!("bench_mcp: {} is missing (`make bench` installs it); its row is n/a", pw_cli.display());
        None
    };

    server.stop().await;
    host.close().await;
    println!("Median (p90) round trip in ms, {runs} runs each after 3 warm-up calls, loopback:\n");
    println!("| Path | tool listing | READ_ONLY call (`user_profile_get`) |");
    println!("| --- | --- | --- |");
    row("Halley HTTP API (`GET /api/v1/tools`, `POST .../call`)", Some(list), Some(call));
    row("Halley MCP, streamable HTTP (`/mcp`)", Some(mcp_http_list), Some(mcp_http_call));
    row("Halley MCP, stdio (`halley mcp serve`)", Some(mcp_stdio_list), Some(mcp_stdio_call));
    row("Playwright MCP 0.0.83, stdio (`tools/list`)", pw_list, None);
    Ok(())
}
