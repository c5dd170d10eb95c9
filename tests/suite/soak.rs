//! `make soak`'s driver works, at CI speed: 30 seconds of `halley serve`
//! (this build's binary) with 20 watches, two conversations with browser
//! tools and two API-client rounds, sampled every 3 s. Too short to judge
//! growth (the 30-minute `make soak` does); it checks that the core runs
//! the work and that every figure is read.

use std::path::PathBuf;
use std::time::Duration;

use crate::common::browser::have_browser;
use crate::common::{fixtures, model_server};

#[path = "../../examples/soak/driver.rs"]
pub(crate) mod driver;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_soak_driver_runs_the_core_for_30_seconds_and_reads_every_figure() {
    if !have_browser() {
        return;
    }
    if std::env::var_os("HALLEY_TEST_SESSION").is_none() {
        eprintln!("skipped: the soak needs the test session's keyring (run under scripts/with-session.sh)");
        return;
    }
    let mut cfg = driver::Config::minutes(PathBuf::from(env!("CARGO_BIN_EXE_halley")), 0.5);
    cfg.watches = 20;
    cfg.sample_every = Duration::from_secs(3);
    cfg.conversation_every = Duration::from_secs(15);
    cfg.verbose = false;
    let report = driver::soak(&cfg).await.unwrap();
    assert!(report.conversations_failed.is_empty(), "{:?}", report.conversations_failed);
    assert!(report.client_calls_failed.is_empty(), "{:?}", report.client_calls_failed);
    assert_eq!((report.conversations_ok, report.client_calls_ok), (2, 4), "two rounds, two calls answered in each");
    assert!(report.samples.len() >= 8, "{} samples", report.samples.len());
    let last = *report.samples.last().unwrap();
    assert!(last.rss_kib > 10_000 && last.fds > 5 && last.db_bytes > 0, "{last:?}");
    assert!(last.chromium_procs > 0 && last.chromium_pss_kib > 0, "the conversations used Chromium: {last:?}");
    assert!(last.observations >= 20, "every watch was checked: {last:?}");
    assert_eq!((last.runs, report.price_changes), (4, 5), "{last:?}");
    assert_eq!((report.exit, report.chromium_left), (Some(143), 0), "a clean exit, no Chromium left");
    let md = report.markdown();
    for v in report.verdicts() {
        assert!(md.contains(v.name), "{md}");
    }
    assert!(report.timeline(4).lines().count() >= 4, "{}", report.timeline(4));
}
