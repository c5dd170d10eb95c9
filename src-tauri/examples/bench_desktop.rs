//! `make bench-desktop`: how fast the desktop app gets to a usable panel, and
//! how much memory it holds when idle.
//!
//! Each run launches `halley-desktop` through tauri-driver (WebDriver, as
//! the e2e tests do) in the current X display and times it until the panel
//! has rendered (`<body data-ready="1">`, set by ui/src/main.ts); then, after
//! `--idle` seconds, it sums the PSS and RSS (/proc/PID/smaps_rollup) of the
//! app's process tree (halley-desktop and its WebKit helpers; the managed
//! Chromium and its children are not the app's and are left out). Memory is
//! measured twice per run: under WebDriver, and in a plain launch of the
//! same binary as a user starts it (WebDriver automation adds its own
//! machinery to the web process; the plain launch is the figure held to the
//! target), once its panel window is viewable and `--idle` seconds have
//! passed. Run it in
//! a desktop session: `scripts/with-session.sh cargo run -p halley-desktop
//! --example bench_desktop -- --app target/release/halley-desktop`.
//!
//! Options: `--app PATH` (default: `halley-desktop` next to this example's
//! profile dir), `--runs N` (5), `--idle SECS` (5), `--write-doc` (replace
//! the section between the markers in docs/benchmarks.md).

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use common::KillOnDrop;
use common::driver::{AppEnv, TauriDriver};
use common::proc::{self, Memory};
use common::webdriver::Session;

const APP: &str = "halley-desktop";
const READY: &str = r#"return document.body.dataset.ready === "1";"#;
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// The panel window's title.
const TITLE: &str = "Halley";
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);
const DOC_BEGIN: &str = "<!-- desktop-bench:begin -->";
const DOC_END: &str = "<!-- desktop-bench:end -->";
/// A published figure for comparison (summed memory of the main process and
/// its children, like our RSS total, not PSS).
const ELECTRON: &str = "For comparison: an empty Electron app, release build on Linux x64, uses about 622 MB \
(main process and children, summed) in the \
[web-to-desktop-framework-comparison](https://github.com/Elanis/web-to-desktop-framework-comparison) \
benchmark (01-empty-app), against about 93 MB for an empty Tauri app there.\n\n";
/// Targets from the issue (#50): a usable panel within 0.5 s, at most
/// 150 MB idle with one tab open (the managed Chromium shown apart).
const TARGET_READY_MS: f64 = 500.0;
const TARGET_PSS_MB: f64 = 150.0;
/// The page the one tab shows (kept from "the last time", reopened at start).
const TAB_PAGE: &str = "<!doctype html><html lang=\"vi\"><meta charset=\"utf-8\"><title>Trang thử</title>\
<h1>Máy pha cà phê</h1><p>Giá: 2.490.000 ₫</p><button>Thêm vào giỏ</button></html>";

struct Options {
    app: PathBuf,
    runs: usize,
    idle: Duration,
    write_doc: bool,
}

fn options() -> Result<Options> {
    let exe = std::env::current_exe()?;
    // <target>/<profile>/examples/bench_desktop -> <target>/<profile>/halley-desktop
    let default_app = exe.parent().and_then(Path::parent).map(|d| d.join(APP)).context("no profile dir")?;
    let mut o = Options { app: default_app, runs: 5, idle: Duration::from_secs(5), write_doc: false };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--app" => o.app = PathBuf::from(value()?),
            "--runs" => o.runs = value()?.parse()?,
            "--idle" => o.idle = Duration::from_secs_f64(value()?.parse()?),
            "--write-doc" => o.write_doc = true,
            "-h" | "--help" => {
                println!("bench_desktop [--app PATH] [--runs N] [--idle SECS] [--write-doc]");
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?}"),
        }
    }
    if o.runs == 0 {
        bail!("--runs must be at least 1");
    }
    o.app = o.app.canonicalize().with_context(|| format!("{} not found; build it first", o.app.display()))?;
    Ok(o)
}

struct Run {
    /// Launch until the WebDriver session exists (app started, page loading).
    session_ms: f64,
    /// Launch until the panel has rendered.
    ready_ms: f64,
    /// Idle memory under WebDriver.
    automated: Memory,
    /// Idle memory of a plain launch, per process.
    plain: Measured,
}

#[derive(Default)]
struct Measured {
    total: Memory,
    processes: Vec<(u32, String, Memory)>,
    /// The managed Chromium's processes (one tab open), not the app's.
    browser: Memory,
    browser_processes: usize,
}

/// One tab open, as a person left it: a page in the data dir, kept in
/// `tabs.json` for the app to open again as it starts.
fn keep_one_tab(env: &AppEnv) -> Result<()> {
    let dir = env.data_dir();
    std::fs::create_dir_all(&dir)?;
    let page = dir.join("bench-tab.html");
    std::fs::write(&page, TAB_PAGE)?;
    let url = format!("file://{}", page.display());
    let tabs = serde_json::json!({"tabs": [{"url": url, "title": "Trang thử", "current": true}]});
    std::fs::write(dir.join("tabs.json"), serde_json::to_vec(&tabs)?)?;
    Ok(())
}

/// Waits until the app's Chromium shows a page (a renderer runs).
fn wait_tab_open(pid: u32) -> Result<()> {
    let deadline = Instant::now() + READY_TIMEOUT;
    while !browser_processes(pid).iter().any(|p| cmdline(*p).contains("--type=renderer")) {
        if Instant::now() >= deadline {
            bail!("the kept tab was not opened within {READY_TIMEOUT:?}");
        }
        sleep(Duration::from_millis(50));
    }
    Ok(())
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .unwrap_or_default()
}

fn main() -> Result<()> {
    let o = options()?;
    if common::no_display().is_some() {
        bail!("no DISPLAY: run under scripts/with-session.sh (make bench-desktop does)");
    }
    let artifacts = common::artifacts_dir(&o.app)?;
    let env = AppEnv::new()?;
    let mut driver = TauriDriver::start(&env.vars()?, &artifacts.join("bench-desktop-driver.log"))?;
    eprintln!("bench-desktop: {} ({} runs, {:?} idle each)", o.app.display(), o.runs, o.idle);
    let mut runs = Vec::new();
    for i in 1..=o.runs {
        let run = one_run(&mut driver, &env, &o)?;
        eprintln!(
            "  run {i}: panel ready {:.0} ms (session {:.0} ms); idle PSS {:.1} MB, RSS {:.1} MB (under WebDriver: PSS {:.1} MB)",
            run.ready_ms,
            run.session_ms,
            mb(run.plain.total.pss_kib),
            mb(run.plain.total.rss_kib),
            mb(run.automated.pss_kib),
        );
        runs.push(run);
    }
    driver.stop()?;
    let report = report(&o, &runs)?;
    println!("{report}");
    if o.write_doc {
        let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/benchmarks.md");
        write_doc(&doc, &report)?;
        eprintln!("bench-desktop: wrote {}", doc.display());
    }
    Ok(())
}

fn one_run(driver: &mut TauriDriver, env: &AppEnv, o: &Options) -> Result<Run> {
    keep_one_tab(env)?;
    let start = Instant::now();
    let session = driver.launch(&o.app, &[])?;
    let session_ms = ms(start.elapsed());
    wait_ready(&session)?;
    let ready_ms = ms(start.elapsed());

    sleep(o.idle);
    let pid = driver.app_pid(APP)?.context("no halley-desktop process below tauri-driver")?;
    let automated = measure(pid).total;

    let mut tree = vec![pid];
    tree.extend(proc::descendants_of(pid));
    session.delete().context("closing the app")?;
    let left = proc::wait_gone(&tree, EXIT_TIMEOUT);
    if !left.is_empty() {
        bail!("the app did not go away after the session ended: {left:?}");
    }
    let plain = plain_run(env, o)?;
    Ok(Run { session_ms, ready_ms, automated, plain })
}

/// Launch the app as a user does, wait until its panel window is viewable
/// and `--idle` seconds have passed, measure, then SIGTERM it.
fn plain_run(env: &AppEnv, o: &Options) -> Result<Measured> {
    keep_one_tab(env)?;
    let child = Command::new(&o.app)
        .envs(env.vars()?)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", o.app.display()))?;
    let mut app = KillOnDrop(Some(child));
    let pid = app.pid()?;
    let deadline = Instant::now() + READY_TIMEOUT;
    while !panel_viewable() {
        if let Some(status) = app.try_wait()? {
            bail!("{APP} exited before its panel showed: {status}");
        }
        if Instant::now() >= deadline {
            bail!("the panel window was not viewable within {READY_TIMEOUT:?}");
        }
        sleep(Duration::from_millis(50));
    }
    wait_tab_open(pid)?;
    sleep(o.idle);
    let measured = measure(pid);
    let mut tree = vec![pid];
    tree.extend(proc::descendants_of(pid));
    common::run("kill", &["-TERM", &pid.to_string()])?;
    let status = app.wait_timeout(EXIT_TIMEOUT)?;
    if !status.success() {
        bail!("{APP} did not exit cleanly on SIGTERM: {status}");
    }
    let left = proc::wait_gone(&tree, EXIT_TIMEOUT);
    if !left.is_empty() {
        bail!("processes left behind by {APP}: {left:?}");
    }
    Ok(measured)
}

/// Whether the panel window is mapped and viewable on the display.
fn panel_viewable() -> bool {
    common::run("xwininfo", &["-name", TITLE]).is_ok_and(|info| info.contains("Map State: IsViewable"))
}

/// PSS and RSS of the app's process tree (the managed browser left out).
fn measure(pid: u32) -> Measured {
    let mut out = Measured::default();
    for p in app_processes(pid) {
        if let Some(m) = proc::memory_of(p) {
            out.total.pss_kib += m.pss_kib;
            out.total.rss_kib += m.rss_kib;
            out.processes.push((p, proc::exe_name(p).unwrap_or_default(), m));
        }
    }
    for p in browser_processes(pid) {
        if let Some(m) = proc::memory_of(p) {
            out.browser.pss_kib += m.pss_kib;
            out.browser.rss_kib += m.rss_kib;
            out.browser_processes += 1;
        }
    }
    out
}

/// The managed browser's processes below the app.
fn browser_processes(pid: u32) -> Vec<u32> {
    let apps = app_processes(pid);
    let mut all = vec![pid];
    all.extend(proc::descendants_of(pid));
    all.into_iter().filter(|p| !apps.contains(p)).collect()
}

fn wait_ready(session: &Session) -> Result<()> {
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        if session.execute(READY, &[]).is_ok_and(|v| v == serde_json::Value::Bool(true)) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!("the panel was not ready within {READY_TIMEOUT:?}");
        }
        sleep(Duration::from_millis(5));
    }
}

/// The app and its descendants, without the managed browser's subtree.
fn app_processes(pid: u32) -> Vec<u32> {
    let is_browser = |p: u32| {
        proc::exe_name(p).is_some_and(|n| n.contains("chromium") || n.contains("chrome"))
            || proc::comm(p).is_some_and(|n| n.contains("chromium") || n.contains("chrome"))
    };
    let mut out = vec![pid];
    let mut stack = vec![pid];
    while let Some(p) = stack.pop() {
        for c in proc::descendants_of(p).into_iter().filter(|c| proc::parent_of(*c) == Some(p)) {
            if !is_browser(c) {
                out.push(c);
                stack.push(c);
            }
        }
    }
    out
}

/// The figures of the last report in docs/benchmarks.md: its date, each
/// figure's median by name, each process's PSS by name.
#[derive(Default)]
struct Last {
    date: String,
    figures: std::collections::HashMap<String, String>,
    processes: std::collections::HashMap<String, String>,
}

fn last_figures(doc: &Path) -> Last {
    let mut last = Last::default();
    let Ok(text) = std::fs::read_to_string(doc) else { return last };
    let (Some(a), Some(b)) = (text.find(DOC_BEGIN), text.find(DOC_END)) else { return last };
    let section = &text[a..b];
    if let Some(rest) = section.split("Measured on ").nth(1) {
        last.date = rest.split_whitespace().next().unwrap_or_default().to_owned();
    }
    let mut in_processes = false;
    for line in section.lines() {
        if line.starts_with("| Process |") {
            in_processes = true;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 3 || cells[0].starts_with("---") || cells[0] == "Figure" || cells[0] == "Process" {
            continue;
        }
        if in_processes {
            last.processes.insert(figure_key(cells[0].trim_matches('*')), cells[2].trim_matches('*').to_owned());
        } else {
            last.figures.insert(figure_key(cells[0]), cells[1].to_owned());
        }
    }
    last
}

/// A figure's name without what changed in it between reports.
fn figure_key(name: &str) -> String {
    name.split(" (").next().unwrap_or(name).split(", one tab").next().unwrap_or(name).to_owned()
}

fn report(o: &Options, runs: &[Run]) -> Result<String> {
    let last_doc = last_figures(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/benchmarks.md"));
    let was = |figure: &str| last_doc.figures.get(&figure_key(figure)).cloned().unwrap_or_else(|| "-".into());
    let ready = median(runs.iter().map(|r| r.ready_ms).collect());
    let session = median(runs.iter().map(|r| r.session_ms).collect());
    let pss = median(runs.iter().map(|r| mb(r.plain.total.pss_kib)).collect());
    let rss = median(runs.iter().map(|r| mb(r.plain.total.rss_kib)).collect());
    let automated = median(runs.iter().map(|r| mb(r.automated.pss_kib)).collect());
    let all_pss: Vec<String> = runs.iter().map(|r| format!("{:.1}", mb(r.plain.total.pss_kib))).collect();
    let all_ready: Vec<String> = runs.iter().map(|r| format!("{:.0}", r.ready_ms)).collect();
    let profile =
        o.app.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let webkit = common::run("dpkg-query", &["-W", "-f=${Version}", "libwebkit2gtk-4.1-0"]).unwrap_or_default();
    let last = runs.last().context("no runs")?;

    let mut s = String::new();
    s.push_str(&format!(
        "Measured on {} with `{}` ({} build), WebKitGTK {}, Xvfb, {} runs, {:.0} s idle.\n\n",
        chrono_date(),
        APP,
        profile,
        if webkit.is_empty() { "?" } else { &webkit },
        runs.len(),
        o.idle.as_secs_f64()
    ));
    let browser = median(runs.iter().map(|r| mb(r.plain.browser.pss_kib)).collect());
    let last_date = if last_doc.date.is_empty() { "last".to_owned() } else { format!("last, {}", last_doc.date) };
    s.push_str(&format!("| Figure | Median | {last_date} | Target |\n| --- | ---: | ---: | ---: |\n"));
    let rows: [(&str, String, String); 6] = [
        (
            "Launch to usable panel",
            format!("{ready:.0} ms"),
            format!("≤ {TARGET_READY_MS:.0} ms {}", verdict(ready <= TARGET_READY_MS)),
        ),
        ("Launch to WebDriver session (app started)", format!("{session:.0} ms"), String::new()),
        (
            "Idle memory, PSS (app + WebKit helpers, plain launch)",
            format!("{pss:.1} MB"),
            format!("≤ {TARGET_PSS_MB:.0} MB {}", verdict(pss <= TARGET_PSS_MB)),
        ),
        ("Idle memory, RSS summed", format!("{rss:.1} MB"), String::new()),
        ("Idle memory, PSS, under WebDriver automation", format!("{automated:.1} MB"), String::new()),
        ("Managed Chromium apart, PSS", format!("{browser:.1} MB"), String::new()),
    ];
    for (name, value, target) in rows {
        s.push_str(&format!("| {name}, one tab open | {value} | {} | {target} |\n", was(name)));
    }
    s.push('\n');
    s.push_str(&format!("Launch to usable panel per run (ms): {}.\n", all_ready.join(", ")));
    s.push_str(&format!("Idle PSS per run, plain launch (MB): {}.\n\n", all_pss.join(", ")));
    s.push_str(ELECTRON);
    let was_pss = |name: &str| last_doc.processes.get(name).cloned().unwrap_or_else(|| "-".into());
    s.push_str(&format!(
        "Processes of the last plain launch:\n\n| Process | PID | PSS (MB) | RSS (MB) | PSS, {last_date} |\n| --- | ---: | ---: | ---: | ---: |\n"
    ));
    for (pid, name, m) in &last.plain.processes {
        s.push_str(&format!("| {name} | {pid} | {:.1} | {:.1} | {} |\n", mb(m.pss_kib), mb(m.rss_kib), was_pss(name)));
    }
    s.push_str(&format!(
        "| **total** | | **{:.1}** | **{:.1}** | {} |\n",
        mb(last.plain.total.pss_kib),
        mb(last.plain.total.rss_kib),
        was_pss("total")
    ));
    s.push_str(&format!(
        "| Managed Chromium, apart ({} processes, one tab) | | {:.1} | {:.1} | {} |\n",
        last.plain.browser_processes,
        mb(last.plain.browser.pss_kib),
        mb(last.plain.browser.rss_kib),
        was_pss("Managed Chromium, apart")
    ));
    Ok(s)
}

fn verdict(ok: bool) -> &'static str {
    if ok { "(met)" } else { "(**missed**)" }
}

/// Today's date (UTC) from `date`, for the report.
fn chrono_date() -> String {
    common::run("date", &["-u", "+%Y-%m-%d"]).map(|d| d.trim().to_owned()).unwrap_or_default()
}

fn write_doc(doc: &Path, report: &str) -> Result<()> {
    let text = std::fs::read_to_string(doc)?;
    let (Some(a), Some(b)) = (text.find(DOC_BEGIN), text.find(DOC_END)) else {
        bail!("{} has no {DOC_BEGIN} ... {DOC_END} markers", doc.display());
    };
    let new = format!("{}{DOC_BEGIN}\n{report}{}", &text[..a], &text[b..]);
    std::fs::write(doc, new)?;
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mb(kib: u64) -> f64 {
    kib as f64 / 1024.0
}
