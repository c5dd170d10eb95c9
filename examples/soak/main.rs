//! `make soak`: the desktop core (`halley serve`: the `Host` with its watch
//! scheduler and the local API, as the desktop app runs it) driven for 30
//! minutes with 200 watches, a conversation a minute and API clients
//! registering and answering tools, while its memory, descriptors, Chromium
//! processes and database size are sampled (see `driver.rs`). Exits non-zero
//! on unbounded growth.
//!
//! `cargo run --release -p halley --example soak -- HALLEY_BIN [--minutes N]
//! [--watches N] [--sample-secs N] [--write-doc]`, inside
//! scripts/with-session.sh (a throwaway HOME, D-Bus, keyring, notification
//! daemon; never the real home). `SOAK_MINUTES=5 make soak` for a short run.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};

mod driver;

#[allow(dead_code, clippy::expect_used)]
#[path = "../../tests/common/fixtures.rs"]
mod fixtures;

#[allow(dead_code, clippy::expect_used, clippy::unwrap_used)]
#[path = "../../tests/common/model_server.rs"]
mod model_server;

const DOC: &str = "docs/benchmarks.md";
const START: &str = "<!-- soak:start -->";
const END: &str = "<!-- soak:end -->";

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let halley = PathBuf::from(
        args.next().context("usage: soak HALLEY_BIN [--minutes N] [--watches N] [--sample-secs N] [--write-doc]")?,
    );
    let mut cfg = driver::Config::minutes(halley, 30.0);
    let mut write_doc = false;
    while let Some(a) = args.next() {
        let mut value = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--minutes" => {
                cfg = driver::Config {
                    watches: cfg.watches,
                    ..driver::Config::minutes(cfg.halley.clone(), value()?.parse()?)
                }
            }
            "--watches" => cfg.watches = value()?.parse()?,
            "--sample-secs" => cfg.sample_every = Duration::from_secs(value()?.parse()?),
            "--write-doc" => write_doc = true,
            other => bail!("unknown argument {other}"),
        }
    }
    println!(
        "soak: {} for {:.0} min, {} watches, a conversation every {} s, a sample every {} s",
        cfg.halley.display(),
        cfg.duration.as_secs_f64() / 60.0,
        cfg.watches,
        cfg.conversation_every.as_secs(),
        cfg.sample_every.as_secs()
    );
    let report = driver::soak(&cfg).await?;
    for e in report.conversations_failed.iter().chain(&report.client_calls_failed) {
        println!("failed: {e}");
    }
    let summary = report.markdown();
    println!("\n{summary}");
    if write_doc {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let section = format!(
            "{summary}\nThe samples (every {} s, thinned):\n\n{}",
            cfg.sample_every.as_secs(),
            report.timeline(16)
        );
        write_between(&root.join(DOC), &section)?;
    }
    let failed: Vec<_> = report.verdicts().into_iter().filter(|v| !v.ok).map(|v| v.name).collect();
    if !failed.is_empty() {
        bail!("soak failed: {}", failed.join("; "));
    }
    println!("soak: no unbounded growth");
    Ok(())
}

/// Replace what is between the soak's markers in `path`.
fn write_between(path: &std::path::Path, text: &str) -> Result<()> {
    let doc = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (Some(start), Some(end)) = (doc.find(START), doc.find(END)) else {
        bail!("{} has no `{START}` ... `{END}` markers", path.display());
    };
    let new = format!("{}{START}\n{text}{}", &doc[..start], &doc[end..]);
    std::fs::write(path, new)?;
    println!("wrote the soak's figures into {}", path.display());
    Ok(())
}
