//! The crash-point durability harness: realistic work, SIGKILLed at its
//! named crash points (`src/crashpoint.rs`: every database commit, before
//! and after every side effect), restarted, and checked: the database
//! passes `PRAGMA integrity_check`, nothing is lost or half-written, no
//! side effect happens twice, a cut-short run goes on from its last durable
//! step.
//!
//! A first run of a scenario with `HALLEY_CRASH_LOG` counts and names its
//! points; then each chosen point gets a fresh copy of the scenario's
//! starting data dir and a process started with `HALLEY_CRASH_AT=N`.
//! `HALLEY_CRASHPOINTS` chooses: `all` (`make crashpoints`), or a number of
//! points spread over the scenario (CI: 10 for the watch pass, 6 for the
//! run) plus the points just before and after the side effect that must
//! not happen twice (the notifications, the form's submit). Each sweep
//! prints a table row (scenario, points, kills, checks passed).

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::browser::have_browser;
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};
use crate::common::notify::{NotificationMonitor, monitor};
use crate::suite::watch::product;

/// One crash point as the first (counting) run logged it.
#[derive(Debug, Clone)]
struct Point {
    n: u64,
    name: String,
}

fn read_points(log: &Path) -> Vec<Point> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (n, name) = l.split_once('\t')?;
            Some(Point { n: n.parse().ok()?, name: name.to_owned() })
        })
        .collect()
}

/// `HALLEY_CRASHPOINTS=all` (`make crashpoints`): every point, of the
/// scenarios at full size.
/// `all:N,M` kills at those points only (a failure found by a sweep, again).
fn full() -> bool {
    std::env::var("HALLEY_CRASHPOINTS").is_ok_and(|v| v == "all" || v.starts_with("all:"))
}

/// The points `HALLEY_CRASHPOINTS=all:N,M` names, if it does.
fn only() -> Option<Vec<u64>> {
    let v = std::env::var("HALLEY_CRASHPOINTS").ok()?;
    let list = v.strip_prefix("all:")?;
    Some(list.split(',').filter_map(|n| n.trim().parse().ok()).collect())
}

/// The points to kill at: all of them, or `HALLEY_CRASHPOINTS` (else
/// `default`) spread evenly, plus every point just before or after the
/// side effect that must not happen twice (`effect`: in the point's name),
/// and the last two points.
fn chosen(points: &[Point], default: usize, effect: &str) -> Vec<Point> {
    if let Some(only) = only() {
        return points.iter().filter(|p| only.contains(&p.n)).cloned().collect();
    }
    if full() {
        return points.to_vec();
    }
    let want = std::env::var("HALLEY_CRASHPOINTS").unwrap_or_default();
    let n: usize = want.parse().unwrap_or(default).max(1);
    let step = (points.len() as f64 / n as f64).max(1.0);
    let mut picked: Vec<Point> = (0..n)
        .filter_map(|i| points.get((i as f64 * step) as usize))
        .chain(points.iter().filter(|p| p.name.contains("side effect") && p.name.contains(effect)))
        // The last two: the work done, its end not yet recorded (a run's
        // answer stored, the run not yet marked completed).
        .chain(points.iter().rev().take(2))
        .cloned()
        .collect();
    picked.sort_by_key(|p| p.n);
    picked.dedup_by_key(|p| p.n);
    picked
}

/// A directory tree copied (a scenario's starting data dir, per kill).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `halley --data-dir DATA ARGS...` with extra variables; its exit status
/// and output.
fn halley(data: &Path, args: &[&str], env: &[(&str, String)]) -> (std::process::ExitStatus, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env_remove("HALLEY_DATA_DIR")
        .env_remove("HALLEY_CRASH_AT")
        .env_remove("HALLEY_CRASH_LOG")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status, String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Read-only SQL on a data dir's database (after a kill: its WAL is read
/// as a restarted process reads it).
fn sql<T: Send + Unpin + 'static>(data: &Path, f: impl AsyncFnOnce(&mut sqlx::SqliteConnection) -> T) -> T {
    use sqlx::Connection;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let url = format!("sqlite://{}", data.join("halley.db").display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let out = f(&mut conn).await;
        let _ = conn.close().await;
        out
    })
}

fn integrity_ok(data: &Path) -> bool {
    sql(data, async |c| {
        let rows: Vec<(String,)> = sqlx::query_as("PRAGMA integrity_check").fetch_all(c).await.unwrap();
        rows.len() == 1 && rows[0].0 == "ok"
    })
}

fn count(data: &Path, query: &'static str) -> i64 {
    sql(data, async move |c| sqlx::query_scalar::<_, i64>(query).fetch_one(c).await.unwrap())
}

/// What a sweep did, printed as a table row.
struct Sweep {
    scenario: &'static str,
    points: usize,
    kills: usize,
    checks: usize,
    /// Points a killing run finished before reaching.
    missed: usize,
    started: Instant,
    /// Kinds of points killed at (`commit: INSERT watch_alerts` ...), with counts.
    kinds: BTreeMap<String, usize>,
}

impl Sweep {
    fn new(scenario: &'static str, points: usize) -> Sweep {
        Sweep { scenario, points, kills: 0, checks: 0, missed: 0, started: Instant::now(), kinds: BTreeMap::new() }
    }

    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        assert!(ok, "{}: {}", self.scenario, what());
        self.checks += 1;
    }

    fn killed(&mut self, point: &Point) {
        self.kills += 1;
        *self.kinds.entry(point.name.clone()).or_default() += 1;
    }

    fn report(&self) {
        eprintln!(
            "CRASHPOINTS | {:<22} | points {:>4} | kills {:>4} | not reached {:>3} | checks passed {:>6} | {:>5.1} s",
            self.scenario,
            self.points,
            self.kills,
            self.missed,
            self.checks,
            self.started.elapsed().as_secs_f64()
        );
        for (name, n) in &self.kinds {
            eprintln!("CRASHPOINTS |   killed {n:>3} x at {name}");
        }
    }
}

/// The notifications seen since `from`, once the bus is quiet.
fn notified_since(m: &NotificationMonitor, from: usize) -> Vec<String> {
    let mut seen = m.notifications().len();
    loop {
        std::thread::sleep(Duration::from_millis(150));
        let now = m.notifications().len();
        if now == seen {
            break;
        }
        seen = now;
    }
    m.notifications().into_iter().skip(from).map(|n| n.summary).collect()
}

/// Watches in the pass: a little under 2 crash points each (its check's
/// one-transaction write; the alerts' claims, a transaction per delivery;
/// the notifications), so the full sweep has more than 200.
fn watches() -> usize {
    if full() { 200 } else { 12 }
}

/// (b) A watch pass with alerts: `halley watch poll --all` over watches
/// whose prices dropped under their targets since the last pass. Killed
/// at every chosen point, then a pass that finishes: every watch kept,
/// exactly one alert and one firing observation per watch, each alert
/// handed to the desktop, no notification shown twice.
#[test]
fn crash_points_watch_pass_with_alerts() {
    let server = FixtureServer::start();
    let n_watches = watches();
    let notes = monitor();
    let h = Halley::new();
    let tag = &uuid::Uuid::new_v4().to_string()[..8];
    let mut entries = Vec::new();
    for i in 0..n_watches {
        let name = format!("crash-{tag}-{i}");
        server.set_page(&name, product(&format!("Sản phẩm {i}"), 3_000_000 + i as u64));
        entries.push(json!({
            "target": {"url": server.url(&format!("watched/{name}"))},
            "trigger_rules": [{"op": "<=", "value": 2_000_000}],
            "frequency": "1h",
            "label": format!("Crash {tag} #{i}"),
        }));
    }
    let file = h.write_file("watches.json", Value::Array(entries).to_string().as_bytes());
    assert_eq!(h.run(&["watch", "import", file.to_str().unwrap()]).code, 0);
    let first = h.run(&["watch", "poll", "--all", "--json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // The prices drop: the next pass alerts on every watch.
    for i in 0..n_watches {
        server.set_page(&format!("crash-{tag}-{i}"), product(&format!("Sản phẩm {i}"), 1_500_000 + i as u64));
    }
    let template = h.data_dir();
    let work = h.tmp.path().join("kills");

    let counting = work.join("count");
    copy_dir(&template, &counting);
    let log = work.join("count.log");
    let (status, _, err) = halley(&counting, &["watch", "poll", "--all"], &[("HALLEY_CRASH_LOG", path(&log))]);
    assert!(status.success(), "{err}");
    let points = read_points(&log);
    assert!(points.iter().any(|p| p.name.contains("notification")), "{points:?}");
    let mut sweep = Sweep::new("watch pass + alerts", points.len());

    for point in chosen(&points, 10, "notification") {
        let data = work.join(format!("k{}", point.n));
        copy_dir(&template, &data);
        let before = notes.as_ref().map_or(0, |m| m.notifications().len());
        let at = [("HALLEY_CRASH_AT", point.n.to_string())];
        let (status, _, err) = halley(&data, &["watch", "poll", "--all"], &at);
        // The alerts' claims are batched by time (a delivery every 100 ms),
        // so a pass may reach a few points fewer than the counting one: a
        // pass that finished is checked all the same, not counted a kill.
        if status.signal() == Some(9) {
            sweep.killed(&point);
        } else {
            sweep.check(status.success(), || format!("point {point:?}: {status:?} {err}"));
            sweep.missed += 1;
        }
        sweep.check(integrity_ok(&data), || format!("integrity after a kill at {point:?}"));
        let (status, _, err) = halley(&data, &["watch", "poll", "--all"], &[]);
        sweep.check(status.success(), || format!("the pass after a kill at {point:?}: {err}"));

        let watches = count(&data, "SELECT COUNT(*) FROM watches WHERE status = 'active'");
        sweep.check(watches == n_watches as i64, || format!("{watches} watches after a kill at {point:?}"));
        let alerts = count(&data, "SELECT COUNT(*) FROM watch_alerts WHERE rule = 'price<=2000000'");
        sweep.check(alerts == n_watches as i64, || format!("{alerts} alerts after a kill at {point:?}"));
        let per_watch = count(
            &data,
            "SELECT COUNT(*) FROM (SELECT watch_id FROM watch_alerts GROUP BY watch_id HAVING COUNT(*) > 1)",
        );
        sweep.check(per_watch == 0, || format!("a watch alerted twice after a kill at {point:?}"));
        let firing = count(&data, "SELECT COUNT(*) FROM watch_observations WHERE triggered = 1");
        sweep.check(firing == n_watches as i64, || format!("{firing} firing observations after a kill at {point:?}"));
        // Each alert points at the observation that fired it (written together).
        let orphans = count(
            &data,
            "SELECT COUNT(*) FROM watch_alerts a LEFT JOIN watch_observations o ON o.id = a.observation_id
             WHERE o.id IS NULL OR o.triggered = 0",
        );
        sweep.check(orphans == 0, || format!("{orphans} alerts without their observation after {point:?}"));
        let unsent = count(&data, "SELECT COUNT(*) FROM watch_alerts WHERE sent_at IS NULL");
        sweep.check(unsent == 0, || format!("{unsent} alerts never handed over after {point:?}"));
        let checked = count(&data, "SELECT COUNT(*) FROM watches WHERE last_checked_at IS NULL");
        sweep.check(checked == 0, || format!("{checked} watches never checked after {point:?}"));
        if let Some(m) = notes.as_ref() {
            let seen = notified_since(m, before);
            let mut by_label: BTreeMap<&str, usize> = BTreeMap::new();
            for s in seen.iter().filter(|s| s.contains(tag)) {
                *by_label.entry(s.as_str()).or_default() += 1;
            }
            sweep.check(by_label.values().all(|n| *n == 1), || {
                format!("a notification shown twice after a kill at {point:?}: {by_label:?}")
            });
        }
        let _ = std::fs::remove_dir_all(&data);
    }
    sweep.report();
    assert!(sweep.kills > 0);
}

/// A SIGKILLed Halley cannot close its browser: the Chromium it started
/// (its profile in `data`) is killed here, by pid.
fn kill_left_behind(data: &Path) {
    let needle = path(data);
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&needle) {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
}

/// A run's calls and messages, for a failure's message.
fn timeline(data: &Path) -> String {
    sql(data, async |c| {
        let calls: Vec<(String, String, String, Option<String>)> =
            sqlx::query_as("SELECT call_id, tool, status, error_code FROM tool_calls ORDER BY id")
                .fetch_all(&mut *c)
                .await
                .unwrap();
        let messages: Vec<(String, Option<String>)> =
            sqlx::query_as("SELECT role, substr(content, 1, 300) FROM messages ORDER BY seq")
                .fetch_all(&mut *c)
                .await
                .unwrap();
        format!("calls {calls:?}\nmessages {messages:#?}")
    })
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The run scenario's model, a careful agent reading the conversation:
/// it notes facts about the user (one turn each), then fills and submits the feedback form in
/// one turn. When that turn did not get the form sent (a call failed: a
/// resumed run's browser is a new one, the page and what was typed are
/// gone) it does the whole form again; when the submit itself was
/// interrupted (it may have gone through) it says so instead of sending
/// twice. The same answer from any process, so a run resumed after a kill
/// anywhere gets a sensible next turn.
fn feedback_model(form_url: String, notes: usize) -> impl Fn(&Value) -> Turn + Send + Sync + 'static {
    move |request| {
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let turns = messages.iter().filter(|m| m["role"] == "assistant").count();
        if turns < notes {
            return Turn::tool_calls(vec![ToolCall::new(
                "core_memory_append",
                json!({"label": "human", "content": format!("Ghi chú {turns}: Nguyễn Văn An")}),
            )]);
        }
        let last = messages.iter().rposition(|m| m["role"] == "assistant").unwrap_or_default();
        let form = Turn::tool_calls(vec![
            ToolCall::new("browser_navigate", json!({"url": form_url})),
            ToolCall::new("browser_type", json!({"selector": "#ho_ten", "text": "Nguyễn Văn An"})),
            ToolCall::new("browser_type", json!({"selector": "#noi_dung", "text": "Thủ tục nhanh, cảm ơn."})),
            ToolCall::new("browser_click", json!({"selector": "text=Gửi góp ý"})),
        ]);
        let calls = messages[last]["tool_calls"].as_array().cloned().unwrap_or_default();
        let Some(click) = calls.iter().find(|c| c["function"]["name"] == "browser_click") else { return form };
        let result = messages[last + 1..]
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == click["id"])
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        if result.contains("\"status\":\"ok\"") {
            Turn::text("Đã gửi góp ý.")
        } else if result.contains("Halley stopped") {
            Turn::text("Việc gửi góp ý bị gián đoạn: hãy kiểm tra trước khi gửi lại.")
        } else {
            form
        }
    }
}

const TASK: &str = "Gửi góp ý cho cổng dịch vụ công";

/// (a) A run with tool calls and a confirmation: `halley run` with the
/// scripted model writing memory, filling a form on the fixture site and
/// submitting it (the gate asks; the user answers yes on the terminal).
/// Killed at every chosen point, then `halley run --resume`: the run
/// ends completed from its last durable step, every call in the timeline
/// once with its result, the form POSTed at most once (exactly once when
/// the kill came before the submit began).
#[test]
fn crash_points_run_with_a_confirmed_submit() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let model = ModelServer::responding(feedback_model(site.url("feedback.html"), if full() { 24 } else { 1 }));
    let h = Halley::new();
    let work = h.tmp.path().join("kills");
    let base = model.base_url();
    let run = |data: &Path, extra: &[&str], env: &[(&str, String)]| {
        // A terminal for the confirmation (`script` gives the run a pty),
        // answered yes to each question.
        let mut args: Vec<String> =
            vec!["--data-dir".into(), path(data), "--headless".into(), "run".into(), "--json".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        // Room for the full mode's 24 notes, the form and a second try.
        args.extend([
            "--base-url".into(),
            base.clone(),
            "--model".into(),
            "m".into(),
            "--max-steps".into(),
            "64".into(),
        ]);
        let line = std::iter::once(env!("CARGO_BIN_EXE_halley").to_owned())
            .chain(args)
            .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
            .collect::<Vec<_>>()
            .join(" ");
        let mut child = Command::new("script")
            .args(["-q", "-e", "-c", &format!("exec {line}"), "/dev/null"])
            .env_remove("HALLEY_DATA_DIR")
            .env_remove("HALLEY_CRASH_AT")
            .env_remove("HALLEY_CRASH_LOG")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            let _ = stdin.write_all("y\n".repeat(4).as_bytes());
            // Kept open: `script` ends the session when its input does.
            std::mem::forget(stdin);
        }
        let out = child.wait_with_output().unwrap();
        (out.status, String::from_utf8_lossy(&out.stdout).into_owned())
    };

    // The starting data dir: the database made (a first start's
    // migrations are not this scenario's points).
    let template = h.data_dir();
    let (status, _, err) = halley(&template, &["watch", "list"], &[]);
    assert!(status.success(), "{err}");
    let counting = work.join("count");
    copy_dir(&template, &counting);
    let log = work.join("count.log");
    let posts = site.posts().len();
    let (status, out) = run(&counting, &[TASK], &[("HALLEY_CRASH_LOG", path(&log))]);
    assert!(status.success(), "{status:?} {out}");
    assert_eq!(site.posts().len(), posts + 1, "{out}");
    let points = read_points(&log);
    let submit = points.iter().find(|p| p.name == "before side effect: tool browser_click").unwrap().n;
    let mut sweep = Sweep::new("run + confirmed submit", points.len());

    for point in chosen(&points, 6, "browser_click") {
        let data = work.join(format!("k{}", point.n));
        copy_dir(&template, &data);
        let posts = site.posts().len();
        let (status, out) = run(&data, &[TASK], &[("HALLEY_CRASH_AT", point.n.to_string())]);
        // What each process printed, for a failure's message.
        let mut said = format!("killed run: {out}");
        // `script -e` reports the child's death by signal as 128 + 9.
        sweep.check(status.code() == Some(137), || format!("point {point:?} did not kill: {status:?} {out}"));
        sweep.killed(&point);
        kill_left_behind(&data);
        sweep.check(integrity_ok(&data), || format!("integrity after a kill at {point:?}"));
        let run_id: Option<String> = sql(&data, async |c| {
            sqlx::query_scalar("SELECT id FROM runs ORDER BY started_at DESC LIMIT 1").fetch_optional(c).await.unwrap()
        });
        if run_id.is_none() {
            // Killed before the run was recorded: the user starts it again.
            let (status, out) = run(&data, &[TASK], &[]);
            sweep.check(status.success(), || format!("the task again after a kill at {point:?}: {out}"));
            said.push_str(&format!("\nthe task again: {out}"));
        }
        let run_id: Option<String> = sql(&data, async |c| {
            sqlx::query_scalar("SELECT id FROM runs ORDER BY started_at DESC LIMIT 1").fetch_optional(c).await.unwrap()
        });
        if let Some(run_id) = run_id.as_deref() {
            let ended = count(&data, "SELECT COUNT(*) FROM runs WHERE status IN ('completed', 'failed', 'cancelled')");
            if ended == 0 {
                let (status, out) = run(&data, &["--resume", run_id], &[]);
                sweep.check(status.success(), || format!("resume after a kill at {point:?}: {out}"));
                said.push_str(&format!("\nresumed: {out}"));
            }
            let status: String =
                sql(&data, async |c| sqlx::query_scalar("SELECT status FROM runs").fetch_one(c).await.unwrap());
            sweep.check(status == "completed", || format!("the run is {status} after a kill at {point:?}"));
            // Every call the model asked for has exactly one result and one
            // row in the timeline; no step is left running.
            let calls: Vec<String> = sql(&data, async |c| {
                let rows: Vec<(Option<String>,)> =
                    sqlx::query_as("SELECT tool_calls FROM messages WHERE role = 'assistant'")
                        .fetch_all(c)
                        .await
                        .unwrap();
                rows.into_iter()
                    .filter_map(|(t,)| t)
                    .flat_map(|t| {
                        serde_json::from_str::<Value>(&t)
                            .unwrap()
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| c["id"].as_str().unwrap().to_owned())
                            .collect::<Vec<_>>()
                    })
                    .collect()
            });
            for call in &calls {
                let (results, rows) = sql(&data, {
                    let call = call.clone();
                    async move |c| {
                        let results: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM messages WHERE tool_call_id = ?1")
                            .bind(&call)
                            .fetch_one(&mut *c)
                            .await
                            .unwrap();
                        let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tool_calls WHERE call_id = ?1")
                            .bind(&call)
                            .fetch_one(&mut *c)
                            .await
                            .unwrap();
                        (results, rows)
                    }
                });
                sweep.check(results == 1 && rows == 1, || {
                    format!("call {call}: {results} results, {rows} timeline rows after a kill at {point:?}")
                });
            }
            let running = count(&data, "SELECT COUNT(*) FROM steps WHERE status = 'running'");
            sweep.check(running == 0, || format!("{running} steps left running after a kill at {point:?}"));
        }
        let sent = site.posts().len() - posts;
        sweep.check(sent <= 1, || {
            format!("the form was POSTed {sent} times after a kill at {point:?}: {}\n{said}", timeline(&data))
        });
        if point.n < submit {
            sweep.check(sent == 1, || {
                format!("the form was never POSTed after a kill at {point:?}: {}", timeline(&data))
            });
        }
        let _ = std::fs::remove_dir_all(&data);
    }
    sweep.report();
    assert!(sweep.kills > 0);
    let _: PathBuf = work;
}
